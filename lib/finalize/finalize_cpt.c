/*
 * A finalize stage: timings.cpt, one file written by all ranks.  Each rank
 * encodes its own chunk (location, then per (communicator, collective) its
 * times, compressed); an exclusive scan of the chunk sizes places it; rank 0
 * writes the header (with every chunk's offset) in front of its own chunk.
 * Each rank writes its part at its offset into a new file rank 0 made under
 * a temporary name, renamed by rank 0 once every rank agreed (finalize.c):
 * with pwrite where the file system keeps writes of several hosts to
 * disjoint ranges of a file apart (local file systems, Lustre, GPFS, ...),
 * with MPI-IO where it may not (NFS, SMB: ROMIO locks there).  MPI-IO's
 * collective open alone took 2 s of a 3.9 s finalize for 32 ranks on 2
 * cores; pwrite needs no collective at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/vfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "collprof_config.h"
#include "cpt.h"
#include "wait_sites.h"
#include "finalize_timing.h"
#include "textio.h"
#include "transport.h"
#include "file_names.h"
#include "grow.h"

/* The arrays of a series finalize makes, in one allocation (s->block),
 * largest elements first: finalize writes a series per communicator and
 * collective, and twelve allocations each were a tenth of its time after
 * churn.  The kept calls' own columns are the sample's (fill_series).  `n`
 * kept calls, `m` call sites. */
static size_t series_arrays(cp_cpt_series *s, char *block, size_t n, size_t m, size_t hist_n)
{
    size_t at = 0;
    s->site_time = cp_carve(block, &at, m, sizeof *s->site_time);
    s->site_calls = cp_carve(block, &at, m, sizeof *s->site_calls);
    s->hist = hist_n ? cp_carve(block, &at, hist_n, sizeof *s->hist) : NULL;
    s->site = cp_carve(block, &at, n, sizeof *s->site);
    s->site_path = cp_carve(block, &at, m, sizeof *s->site_path);
    s->site_form = cp_carve(block, &at, m, sizeof *s->site_form);
    return at;
}

/* The series' kept calls, its histogram, its call sites (the strata of
 * the waiting estimate, the same as finalize_waits.c's) and each kept
 * call's.  The kept calls' columns are the sample's own, lent (the chunk
 * frees s->block only, and is freed before the samples): copied, they
 * were fresh memory, a memory line every 1.6 kept calls at finalize. */
static int fill_series(cp_cpt_series *s, const cp_counts *counts, const cp_timing *t,
                       const cp_sample *sm, double tick)
{
    cp_wsites w = {0};
    cp_wsites_totals(&w, counts, t, tick);
    /* a kept call's site may be one no aggregate holds: all sites first */
    for (size_t i = 0; i < sm->n; i++)
        cp_wsites_get(&w, sm->cols.form[i], sm->paths ? sm->paths[i] : UINT32_MAX);
    size_t n = sm->n ? sm->n : 1, m = w.n ? w.n : 1;
    s->block = w.oom ? NULL : malloc(series_arrays(s, NULL, n, m, t->hist_n));
    if (!s->block) {
        cp_wsites_free(&w);
        return -1;
    }
    series_arrays(s, s->block, n, m, t->hist_n);
    if (t->hist_n) {
        memcpy(s->hist, t->hist, t->hist_n * sizeof *s->hist);
        s->hist_lo = t->hist_lo;
        s->hist_n = t->hist_n;
    }
    s->n = sm->n;
    s->call = sm->cols.call;
    s->enter = sm->cols.enter;
    s->start = sm->cols.start;
    s->exit = sm->cols.exit;
    s->root = sm->cols.root;
    s->flags = sm->cols.flags;
    for (size_t i = 0; i < sm->n; i++) {
        const cp_wsite *x =
            cp_wsites_get(&w, sm->cols.form[i], sm->paths ? sm->paths[i] : UINT32_MAX);
        s->site[i] = x ? (uint32_t)(x - w.v) : 0;
    }
    s->nsites = (uint32_t)w.n;
    for (size_t j = 0; j < w.n; j++) {
        s->site_time[j] = w.v[j].t;
        s->site_calls[j] = w.v[j].timed;
        s->site_path[j] = w.v[j].path; /* the job's ids by now (a partial: the rank's own) */
        s->site_form[j] = w.v[j].form;
    }
    cp_wsites_free(&w);
    return 0;
}

static int add_series(cp_cpt_chunk *ch, const cp_comm *c, const cp_sample *sm, int64_t id, int k,
                      double tick)
{
    const cp_timing *t = &c->coll[k]->timing;
    /* Doubling: a rank with 10,000 series grew its array by one each time. */
    if (cp_grow_implicit((void **)&ch->series, ch->nseries, sizeof *ch->series))
        return -1;
    cp_cpt_series *s = &ch->series[ch->nseries++];
    memset(s, 0, sizeof *s);
    s->comm_id = id;
    cp_collective_name_to(s->collective, sizeof s->collective, k);
    s->naggregated = sm->naggregated;
    s->agg_time = sm->agg_time;
    s->stride = t->stride ? t->stride : 1;
    s->tick = tick;
    return fill_series(s, &c->coll[k]->counts, t, sm, tick);
}

/* Rank 0's chunk: per collective over all ranks, and the slowest calls. */
static int add_aggregates(const fin *f, cp_cpt_chunk *ch, const cp_run_times *rt)
{
    cp_cpt_aggregates *a = &ch->agg;
    ch->has_aggregates = true;
    snprintf(a->start_time, sizeof a->start_time, "%s", f->start_iso);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(a->end_time, sizeof a->end_time, "%Y-%m-%dT%H:%M:%S", &tm);
    a->colls = calloc(CP_NCOLLECTIVES, sizeof *a->colls);
    a->slowest = calloc(CP_SLOWEST, sizeof *a->slowest);
    if (!a->colls || !a->slowest)
        return -1;
    for (int k = 0; k < CP_NCOLLECTIVES; k++) {
        const cp_coll_agg *g = &rt->colls[k]; /* every rank's sites (finalize_sites.c) */
        if (g->calls == 0)
            continue;
        cp_cpt_coll_stat cs = {.calls = g->calls, .min = g->any ? g->min : 0,
                               .max = g->any ? g->max : 0};
        cp_collective_name_to(cs.collective, sizeof cs.collective, k);
        cs.avg = g->time / (double)g->calls;
        a->colls[a->ncolls++] = cs;
    }
    memcpy(a->slowest, rt->slowest, rt->nslowest * sizeof *a->slowest);
    a->nslowest = rt->nslowest;
    return 0;
}

/* The id of c: job-wide (ids), or, in a rank's partial profile (ids NULL),
 * this rank's own numbering, as its manifest lists its communicators. */
static int64_t comm_id(const fin_ids *ids, const cp_comm *c)
{
    return ids ? cp_fin_comm_id(ids, c) : (int64_t)c->reg_index;
}

/* This rank's chunk; rank 0's with the job's aggregates from *rt (rt NULL:
 * none, in a rank's partial profile). */
static int build_chunk(const fin *f, const fin_ids *ids, const fin_samples *S,
                       const cp_run_times *rt,
                       cp_cpt_chunk *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->rank = f->rank;
    snprintf(ch->hostname, sizeof ch->hostname, "%s", f->loc->hostname);
    ch->core = f->loc->core;
    ch->pid = f->loc->pid;
    ch->node = f->loc->node;
    if (f->rank == 0 && rt && add_aggregates(f, ch, rt))
        return -1;
    for (cp_comm *c = f->comms; c; c = c->next) {
        int64_t id = comm_id(ids, c);
        for (int k = 0; k < CP_NCOLLECTIVES && id >= 0; k++)
            if (c->coll[k] && (cp_fin_sample(S, c, k)->n || cp_fin_sample(S, c, k)->naggregated) &&
                add_series(ch, c, cp_fin_sample(S, c, k), id, k, f->clock.tick))
                return -1;
    }
    return 0;
}

static void header_model(const fin *f, cp_cpt_file *h)
{
    memset(h, 0, sizeof *h);
    h->version[0] = CP_CPT_VERSION_MAJOR;
    h->version[1] = CP_CPT_VERSION_MINOR;
    h->version[2] = CP_CPT_VERSION_PATCH;
    snprintf(h->git_hash, sizeof h->git_hash, "%s", COLLPROF_GIT_HASH);
    /* The first line of the MPI library's version (cut to fit). */
    snprintf(h->mode, sizeof h->mode, "%.*s", (int)sizeof h->mode - 1, f->mpi_version);
    h->flags = CP_CPT_COUNTS | CP_CPT_TIMING | CP_CPT_LOCATION |
               (f->cfg->timing == CP_TIMING_BARRIER ? CP_CPT_BARRIER : 0);
    h->world_size = (uint64_t)f->size;
}

/* A failure of MPI-IO, with the MPI library's reason. */
static void cpt_mpi_fail(const fin *f, fin_cpt *cpt, const char *what, int rc)
{
    char reason[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, reason, &len);
    for (char *c = reason; *c; c++) /* MPICH's error stacks span lines */
        if (*c == '\n')
            *c = ' ';
    char msg[MPI_MAX_ERROR_STRING + 128];
    snprintf(msg, sizeof msg, "%s: %s", what, reason);
    cp_fin_cpt_fail(f, cpt, msg);
}

/* Write p[done, n) at offset + done with pwrite.  Also what a rank does when
 * an MPI library (Open MPI 4.1) reported success for a collective write
 * that the file system refused, saying so only in a line of its own on
 * stderr, with a short count: the rest is written after all, or the
 * failure gets the system's reason. */
static void rewrite_posix(const fin *f, fin_cpt *cpt, uint64_t offset, const unsigned char *p,
                          uint64_t n, uint64_t done)
{
    int fd = open(cpt->part, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    offset += done;
    while (!e && n > 0) {
        ssize_t k = pwrite(fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n, (off_t)offset);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            e = k < 0 ? errno : EIO;
            break;
        }
        p += k;
        n -= (uint64_t)k;
        offset += (uint64_t)k;
    }
    if (fd >= 0 && close(fd) != 0 && !e)
        e = errno;
    if (e) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot write " CP_FILE_TIMINGS ": %s", strerror(e));
        cp_fin_cpt_fail(f, cpt, msg);
    }
}

/* Does the directory's file system keep concurrent writes of several hosts
 * to disjoint ranges of one file apart?  Not NFS and SMB, whose clients
 * cache pages: there MPI-IO (which locks) writes the file. */
static bool posix_safe(const fin *f, const char *dir)
{
    if (f->cfg->timings_io != CP_TIMINGS_IO_AUTO)
        return f->cfg->timings_io == CP_TIMINGS_IO_POSIX;
    struct statfs sb;
    if (statfs(dir, &sb) != 0)
        return false;
    switch ((unsigned long)sb.f_type) {
    case 0x6969UL:     /* NFS */
    case 0xFF534D42UL: /* CIFS */
    case 0xFE534D42UL: /* SMB2 */
    case 0x517BUL:     /* SMB */
        return false;
    default:
        return true;
    }
}

void cp_fin_write_cpt(fin *f, const fin_ids *ids, const fin_samples *S, const cp_run_times *rt,
                      fin_cpt *cpt)
{
    if (f->cfg->timing == CP_TIMING_OFF)
        return; /* the same on every rank */
    cp_cpt_chunk ch;
    memset(&ch, 0, sizeof ch);
    cp_bytes out = {0};
    cp_error err;
    /* After an earlier stage failed there is no chunk to encode (the file
     * is skipped whole), but this rank still takes part below. */
    bool failed_before = f->failed;
    bool ok = !failed_before && build_chunk(f, ids, S, rt, &ch) == 0;
    if (!ok && !failed_before)
        cp_fin_cpt_fail(f, cpt, "out of memory while preparing " CP_FILE_TIMINGS);
    else if (ok && cp_cpt_encode_chunk(&ch, &out, &err)) {
        cp_fin_cpt_fail(f, cpt, err.msg);
        ok = false;
    }
    cp_cpt_chunk_free(&ch);

    cp_cpt_file h;
    header_model(f, &h);
    uint64_t hsize = cp_cpt_header_size(&h), len = ok ? out.len : 0, before = 0;
    cp_tp_exscan(&len, &before, 1, MPI_UINT64_T, MPI_SUM, f->w);
    if (f->rank == 0)
        before = 0; /* MPI leaves rank 0's result undefined */
    uint64_t offset = hsize + before;
    uint64_t *offsets = f->rank == 0 ? calloc((size_t)f->size, sizeof *offsets) : NULL;
    cp_tp_gather(&offset, 1, MPI_UINT64_T, offsets, 1, MPI_UINT64_T, 0, f->w);
    cp_bytes head = {0};
    if (f->rank == 0) {
        if (!offsets || cp_cpt_encode_header(&h, offsets, &head, &err)) {
            cp_fin_cpt_fail(f, cpt, offsets ? err.msg : "out of memory while writing " CP_FILE_TIMINGS);
            ok = false;
        }
        /* The header goes in front of rank 0's chunk. */
        if (ok && head.len == hsize) {
            cp_bytes both = {0};
            both.p = malloc(head.len + out.len);
            if (both.p) {
                memcpy(both.p, head.p, head.len);
                memcpy(both.p + head.len, out.p, out.len);
                both.len = both.cap = head.len + out.len;
                cp_bytes_free(&out);
                out = both;
                offset = 0;
            } else {
                cp_fin_cpt_fail(f, cpt, "out of memory while writing " CP_FILE_TIMINGS);
                ok = false;
            }
        }
    }
    free(offsets);
    cp_bytes_free(&head);

    MPI_File fh;
    /* MPI-IO has no O_NOFOLLOW: rank 0 creates a new file under a fresh
     * temporary name exclusively (never through a link planted there), and
     * the ranks open what it made.  The fresh name also keeps apart what
     * Open MPI keys on the file's name (its shared file pointer's named
     * semaphore, which a run killed while holding it leaves behind locked:
     * a fixed name would hang every later run in MPI_File_open). */
    int made[2] = {0, 0}; /* errno of the creation; written with pwrite */
    char final[sizeof cpt->part];
    snprintf(final, sizeof final, "%s/" CP_FILE_TIMINGS, f->dir);
    if (f->rank == 0) {
        int fd = cp_create_temporary(final, cpt->part, sizeof cpt->part);
        made[0] = fd >= 0 ? 0 : errno;
        made[1] = posix_safe(f, f->dir);
        if (fd >= 0)
            close(fd);
        else
            cpt->part[0] = 0;
    }
    cp_tp_bcast(made, 2, MPI_INT, 0, f->w);
    cp_tp_bcast(cpt->part, (int)sizeof cpt->part, MPI_CHAR, 0, f->w);
    bool fits = cp_bytes_fit(out.len);
    if (made[1]) {
        if (made[0]) {
            char msg[4500];
            snprintf(msg, sizeof msg, "cannot create a temporary file for %.4300s: %s", final,
                     strerror(made[0]));
            cp_fin_cpt_fail(f, cpt, msg);
        } else if (ok) {
            rewrite_posix(f, cpt, offset, out.p, out.len, 0);
        }
        cp_bytes_free(&out);
        return;
    }
    int rc = made[0] ? MPI_ERR_FILE
                  : PMPI_File_open(f->w, cpt->part, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        char msg[4500];
        snprintf(msg, sizeof msg, "cannot create a temporary file for %.4300s: %s", final,
                 made[0] ? strerror(made[0]) : "the MPI library cannot open it");
        cp_fin_cpt_fail(f, cpt, msg);
    }
    uint64_t want = ok && fits ? out.len : 0, written = 0;
    if (rc == MPI_SUCCESS) {
        rc = cp_write_at_all_bytes(fh, (MPI_Offset)offset, out.p, want, &written);
        if (!fits)
            cp_fin_cpt_fail(f, cpt,
                            "cannot write " CP_FILE_TIMINGS ": this rank's part is more than this MPI "
                            "library writes at once");
        else if (rc != MPI_SUCCESS)
            cpt_mpi_fail(f, cpt, "cannot write " CP_FILE_TIMINGS, rc);
        if ((rc = PMPI_File_close(&fh)) != MPI_SUCCESS)
            cpt_mpi_fail(f, cpt, "cannot close " CP_FILE_TIMINGS, rc);
        else if (!cpt->failed && written < want)
            rewrite_posix(f, cpt, offset, out.p + written, want - written, written);
    }
    cp_bytes_free(&out);
}

int cp_fin_write_own_cpt(const fin *f, const fin_samples *S, const cp_own_paths *own,
                         const char *path, cp_error *err)
{
    if (f->cfg->timing == CP_TIMING_OFF)
        return 0;
    cp_cpt_chunk ch;
    memset(&ch, 0, sizeof ch);
    int rc = build_chunk(f, NULL, S, NULL, &ch)
                 ? cp_error_set(err, "out of memory while preparing " CP_FILE_TIMINGS)
                 : 0;
    /* Its sites' paths as its own call tree's ids (its profile.cubex's). */
    for (size_t i = 0; rc == 0 && i < ch.nseries; i++)
        for (uint32_t j = 0; ch.series[i].site_path && j < ch.series[i].nsites; j++)
            ch.series[i].site_path[j] = cp_fin_path_renamed(ch.series[i].site_path[j], own);
    if (rc == 0) {
        cp_cpt_file file;
        header_model(f, &file);
        file.world_size = 1; /* this rank's chunk alone, */
        file.chunks = &ch;
        ch.rank = 0;         /* the first of the file */
        rc = cp_cpt_write(path, &file, err);
    }
    cp_cpt_chunk_free(&ch);
    return rc;
}
