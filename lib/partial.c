/*
 * Partial profile at exit without MPI_Finalize (see partial.h).  No MPI call
 * is made here: MPI may be gone or broken.  The count files are made by
 * finalize's own stages (count blocks, count files), with this rank's tables
 * as the only view of each communicator, led here; the manifest by the
 * manifest stage's functions; timings.cpt (this rank's chunk alone) by the
 * timing stage's.  The same writer makes the periodic snapshots
 * (COLLPROF_SNAPSHOT).  Everything goes into partial.rank<R>.next, which
 * then takes the place of partial.rank<R> in one step.
 */
#include "partial.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "comm_registry.h"
#include "compact.h"
#include "finalize.h"
#include "finalize_timing.h"
#include "log.h"
#include "manifest.h"
#include "outdir.h"
#include "runtime.h"
#include "snapshot_place.h"
#include "file_names.h"

/* This rank's tables as finalize's leads hold theirs: each communicator it
 * called collectives on led here, with this rank's rows only (its own
 * holding, as finalize's tables-to-leads stage makes it); and the manifest's
 * communicator table, numbered in this rank's order of first use. */
static int own_leads(fin *f, fin_leads *L, cp_manifest *m, const cp_own_paths *own,
                     cp_error *err)
{
    size_t n = cp_registry_count() + 1;
    m->comms = calloc(n, sizeof *m->comms);
    L->led = calloc(n, sizeof *L->led);
    if (!m->comms || !L->led)
        return cp_error_set(err, "out of memory");
    for (cp_comm *c = f->comms; c; c = c->next) {
        bool used = false;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            used |= c->coll[k] && c->coll[k]->counts.ncalls > 0;
        if (!used)
            continue;
        cp_holding h;
        cp_fin_own_holding(&h, c, own);
        cp_membership one = {.size = c->size, .rank = c->rank};
        size_t before = L->n;
        cp_fin_to_led(f, L, &one, c, &h);
        cp_holding_clear(&h);
        if (L->n > before)
            L->led[L->n - 1].id = c->reg_index;
        cp_comm_info *ci = &m->comms[m->ncomms++];
        ci->id = c->reg_index;
        ci->size = c->size;
        ci->lead = c->lead;
        if (cp_ranges_copy(&ci->members, &c->members) ||
            cp_ranges_copy(&ci->remote_members, &c->remote))
            return cp_error_set(err, "out of memory");
    }
    if (f->failed)
        return cp_error_set(err, "%s", f->err.msg);
    cp_fin_index_led(L);
    return 0;
}

/* Note a file that could not be written: in the manifest, and once on
 * stderr with the rank and the system's reason (err names the file); a
 * snapshot's files are said once in the run (the next may do better). */
static bool said_snapshot_failure;

static void missing(cp_manifest *m, int rank, bool quiet, const char *name, const cp_error *err)
{
    if (!quiet)
        cp_log("rank %d: %s is missing from its partial profile: %s", rank, name, err->msg);
    (void)cp_kv_add(&m->missing, &m->nmissing, name, err->msg); /* said on stderr anyway */
}

/* What each series holds, for the manifest (as finalize's numbering
 * stage records it): its calls and blocks per direction.  own_leads made
 * the leds and the manifest's communicators in one walk, the leds a
 * subsequence: both are walked in step. */
static int add_series(cp_manifest *m, const fin_leads *L)
{
    size_t j = 0;
    for (size_t i = 0; i < L->n; i++) {
        const cp_led *l = &L->led[i];
        while (j < m->ncomms && m->comms[j].id != l->id)
            j++;
        if (j == m->ncomms)
            break;
        cp_comm_info *ci = &m->comms[j];
        ci->series = calloc(cp_slots_count(&l->c) + 1, sizeof *ci->series);
        if (!ci->series)
            return -1;
        CP_SLOTS_EACH(k, &l->c)
        {
            const cp_led_coll *e = cp_led_at(l, k);
            if (!e->held.tree)
                continue;
            cp_series_info *x = &ci->series[ci->nseries++];
            snprintf(x->collective, sizeof x->collective, "%s", cp_collective_names[k]);
            x->calls = e->calls;
            x->blocks[0] = e->nblocks[0];
            x->blocks[1] = e->nblocks[1];
        }
    }
    return 0;
}

/* Every call this rank numbered so far: a snapshot of a state that did not
 * change since the last one is not written again. */
static uint64_t calls_so_far(const fin *f)
{
    uint64_t n = 0;
    for (const cp_comm *c = f->comms; c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            n += c->coll[k] ? c->coll[k]->counts.ncalls : 0;
    return n;
}

static uint64_t snapshot_calls = UINT64_MAX; /* at the last snapshot written */

/* When the state was taken, whether as a snapshot, and which process
 * (the reader tells a process still running from one that is gone). */
static void state_of(const fin *f, bool snapshot, cp_manifest *m)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(m->state.at, sizeof m->state.at, "%Y-%m-%dT%H:%M:%S", &tm);
    m->state.snapshot = snapshot;
    m->state.rank = f->rank;
    m->state.pid = (int64_t)f->loc->pid;
    snprintf(m->state.host, sizeof m->state.host, "%s", f->loc->hostname);
    m->has_state = true;
}

/* Put the folder made at `next` in the place of `final` in one step (the
 * kernel exchanges the two names), so that a kill at any moment leaves a
 * whole profile there, the new one or the one before; the old one is then
 * removed. */
static int swap_into_place(const char *next, const char *final, cp_error *err)
{
    if (renameat2(AT_FDCWD, next, AT_FDCWD, final, RENAME_EXCHANGE) == 0) {
        cp_outdir_remove_folder(next);
        return 0;
    }
    if (errno == ENOENT && rename(next, final) == 0)
        return 0;
    if (errno == EINVAL || errno == ENOSYS) { /* a file system without the exchange */
        cp_outdir_remove_folder(final);
        if (rename(next, final) == 0)
            return 0;
    }
    return cp_error_set(err, "cannot move %s into place as %s: %s", next, final, strerror(errno));
}

/* A file that cannot be written is listed as missing in the manifest (a
 * count file with its twin, as at finalize), and the others are still
 * written.  reason NULL: a snapshot of a run that goes on. */
void cp_partial_write(const char *reason, bool always_say)
{
    char base[4096], path[4300], name[64], final[4200];
    /* The stages' context: this rank alone, its folder as the output. */
    fin f;
    cp_fin_context(&f);
    int r = f.rank;
    bool snapshot = reason == NULL;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t calls = calls_so_far(&f);
    if (snapshot && calls == snapshot_calls)
        return; /* the one written holds this state already */
    char *dir = f.dir;
    cp_error err;
    cp_manifest m;
    memset(&m, 0, sizeof m);
    cp_own_paths own = {0};
    fin_samples S = {0};
    if (cp_outdir_create(f.cfg, f.job, cp_rt.start_stamp, false, base, sizeof base, &err))
        goto fail;
    if (strlen(base) > 4000) {
        cp_error_set(&err, "%.200s...: the output directory's path is too long", base);
        goto fail;
    }
    snprintf(final, sizeof final, "%.4000s/" CP_FILE_PARTIAL "%d", base, r);
    snprintf(dir, sizeof f.dir, "%.4000s" CP_PARTIAL_NEXT, final);
    /* The folder it replaces must be ours too: never a link planted there
     * (the exchange would hand its target to the clearing). */
    struct stat st;
    if ((lstat(final, &st) == 0 && cp_outdir_check(final, false, &err)) ||
        cp_outdir_make(dir, false, &err))
        goto fail;
    cp_outdir_clear(dir, false); /* what a kill left half-made */
    m.files = calloc(5, sizeof *m.files);
    if (!m.files) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    m.files[m.nfiles++] = strdup(CP_FILE_MANIFEST);
    /* This rank's call tree, its paths numbered in it (the live tables keep
     * theirs: the run may go on); none without call paths.  Every path
     * below is renamed by own (to none where it has no node). */
    bool tree = f.cfg->callsite_depth == 0 || cp_fin_own_call_tree(&m, &own) == 0;
    if (!tree) {
        cp_error_set(&err, "out of memory while numbering call paths");
        missing(&m, r, snapshot && said_snapshot_failure, CP_FILE_CUBE, &err);
    }
    /* The count files by finalize's own stages: blocks, then the files
     * under .part names, renamed into place here (no agreement to wait
     * for: this rank is the only writer of its folder). */
    fin_leads L = {0};
    fin_count_files cf;
    memset(&cf, 0, sizeof cf);
    cp_error lead_err;
    bool made = own_leads(&f, &L, &m, &own, &lead_err) == 0;
    if (made) {
        cp_fin_make_blocks(&f, &L);
        if (!f.failed)
            cp_fin_merge_and_write(&f, &L, &cf);
    }
    if (made && f.failed) {
        cp_error_set(&lead_err, "%s", f.err.msg);
        made = false;
    }
    char names[2][sizeof name];
    for (int d = 0; d < 2; d++)
        cp_compact_file_name(names[d], sizeof names[d], d == 0 ? CP_SEND : CP_RECV, r,
                             f.cfg->gzip);
    if (made && add_series(&m, &L)) {
        cp_error_set(&err, "out of memory");
        cp_fin_leads_free(&L);
        goto fail;
    }
    bool quiet = snapshot && said_snapshot_failure;
    if (made && L.n && cf.failed) { /* as at finalize: a file and its twin, said once */
        if (!quiet)
            cp_log("rank %d: %s and its twin %s are missing from its partial profile: %s", r,
               names[0], names[1], cf.err.msg);
        for (int d = 0; d < 2; d++) {
            remove(cf.part[d]);
            (void)cp_kv_add(&m.missing, &m.nmissing, names[d], cf.err.msg);
        }
    }
    for (int d = 0; d < 2 && !(made && L.n && cf.failed); d++) {
        memcpy(name, names[d], sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!made) {
            missing(&m, r, quiet, name, &lead_err);
        } else if (L.n == 0) { /* no calls: an empty file says so */
            cp_counts_file empty = {.version = CP_COUNTS_FORMAT_VERSION, .direction = d,
                                    .lead_rank = r};
            if (cp_compact_write_file(path, f.cfg->gzip, &empty, &err))
                missing(&m, r, quiet, name, &err);
            else
                m.files[m.nfiles++] = strdup(name);
        } else if (rename(cf.part[d], cf.final[d]) != 0) {
            cp_error_set(&err, "cannot rename %s into place: %s", cf.part[d], strerror(errno));
            remove(cf.part[d]);
            missing(&m, r, quiet, name, &err);
        } else {
            m.files[m.nfiles++] = strdup(name);
        }
    }
    cp_fin_leads_free(&L);
    /* The timing sample in seconds, read once for both files that hold its
     * times (timings.cpt, profile.cubex). */
    bool timing = f.cfg->timing != CP_TIMING_OFF;
    bool sampled = !timing || cp_fin_make_samples(f.comms, &f.clock, &S) == 0;
    cp_error serr = {{0}};
    if (!sampled)
        cp_error_set(&serr, "out of memory while reading the timing sample");
    /* The timed calls: this rank's chunk of timings.cpt, by the timing
     * stage's own functions, its communicators numbered as above. */
    if (timing) {
        snprintf(path, sizeof path, "%s/" CP_FILE_TIMINGS, dir);
        cp_error terr = serr;
        if (!sampled || cp_fin_write_own_cpt(&f, &S, &own, path, &terr)) {
            remove(path);
            missing(&m, r, quiet, CP_FILE_TIMINGS, &terr);
        } else {
            m.files[m.nfiles++] = strdup(CP_FILE_TIMINGS);
        }
        m.has_clock = true;
        cp_fin_own_clock_info(&f, &m.clock);
    }
    /* Its sites over its call tree: calls, bytes and time per call path
     * (without call paths, per collective below the program, as finalize's). */
    if (tree) {
        snprintf(path, sizeof path, "%s/" CP_FILE_CUBE, dir);
        cp_error perr = serr;
        if (!sampled || cp_fin_write_own_profile(&f, timing ? &S : NULL, &m, &own, path, &perr))
            missing(&m, r, quiet, CP_FILE_CUBE, &perr);
        else
            m.files[m.nfiles++] = strdup(CP_FILE_CUBE);
    }
    char why[256];
    if (snapshot)
        snprintf(why, sizeof why, "a snapshot of the run so far (one every %" PRIu64 " s); rank %d's "
                 "own data only", cp_config_snapshot_seconds(f.cfg, f.size), r);
    else
        snprintf(why, sizeof why, "%s; rank %d's own data only", reason, r);
    if (cp_fin_run_manifest(&f, &m, why)) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    state_of(&f, snapshot, &m);
    cp_fin_fingerprint_files(&f, &m); /* as at finalize: a file cut short is told */
    snprintf(path, sizeof path, "%s/" CP_FILE_MANIFEST, dir);
    if (cp_manifest_write_file(path, false, &m, &err) || swap_into_place(dir, final, &err))
        goto fail;
    if (snapshot) {
        snapshot_calls = calls;
        cp_snapshot_place_set(base);
        if (f.cfg->verbose >= 2) {
            struct timespec t1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            cp_log("rank %d wrote a snapshot of its state (%" PRIu64 " calls) to %s in %.3f ms", r,
                   calls, final,
                   (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        }
    } else if (r == 0 || always_say || f.cfg->verbose) {
        cp_log("%s: rank %d wrote its partial profile to %s", reason, r, final);
    }
    goto out;
fail:
    if (!snapshot)
        cp_log("%s; rank %d could not write its partial profile: %s", reason, r, err.msg);
    else if (!said_snapshot_failure)
        cp_log("rank %d could not write a snapshot of its state: %s (said once; it tries again "
               "at each interval)", r, err.msg);
    said_snapshot_failure |= snapshot;
out:
    cp_fin_samples_free(&S);
    free(own.map);
    cp_manifest_free(&m);
}
