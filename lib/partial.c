/*
 * Partial profile at exit without MPI_Finalize (see partial.h).  No MPI call
 * is made here: MPI may be gone or broken.  The count files are made by
 * finalize's own stages (count blocks, count files), with this rank's tables
 * as the only view of each communicator, led here.
 */
#include "partial.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_registry.h"
#include "compact.h"
#include "finalize.h"
#include "log.h"
#include "manifest.h"
#include "outdir.h"
#include "runtime.h"
#include "file_names.h"

/* This rank's tables as finalize's leads hold theirs: each communicator it
 * called collectives on led here, with this rank's rows only (its own
 * holding, as finalize's tables-to-leads stage makes it); and the manifest's
 * communicator table, numbered in this rank's order of first use. */
static int own_leads(fin *f, fin_leads *L, cp_manifest *m, cp_error *err)
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
        cp_fin_own_holding(&h, c);
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
 * stderr with the rank and the system's reason (err names the file). */
static void missing(cp_manifest *m, const char *name, const cp_error *err)
{
    int r = cp_rt.world_rank;
    cp_log("rank %d: %s is missing from its partial profile: %s", r, name, err->msg);
    (void)cp_kv_add(&m->missing, &m->nmissing, name, err->msg); /* said on stderr anyway */
}

/* A file that cannot be written is listed as missing in the manifest (a
 * count file with its twin, as at finalize), and the others are still
 * written. */
void cp_partial_write(const char *reason, bool always_say)
{
    char base[4096], path[4300], name[64];
    /* The stages' context: this rank alone, its folder as the output. */
    fin f;
    cp_fin_context(&f);
    int r = f.rank;
    char *dir = f.dir;
    cp_error err;
    cp_manifest m;
    memset(&m, 0, sizeof m);
    if (cp_outdir_create(f.cfg, f.job, cp_rt.start_stamp, false, base, sizeof base, &err))
        goto fail;
    if (strlen(base) > 4000) {
        cp_error_set(&err, "%.200s...: the output directory's path is too long", base);
        goto fail;
    }
    snprintf(dir, sizeof f.dir, "%.4000s/" CP_FILE_PARTIAL "%d", base, r);
    if (cp_outdir_make(dir, false, &err))
        goto fail;
    cp_outdir_clear(dir, false); /* an earlier run's partial profile of this rank */
    m.files = calloc(3, sizeof *m.files);
    if (!m.files) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    m.files[m.nfiles++] = strdup(CP_FILE_MANIFEST);
    /* The count files by finalize's own stages: blocks, then the files
     * under .part names, renamed into place here (no agreement to wait
     * for: this rank is the only writer of its folder). */
    fin_leads L = {0};
    fin_count_files cf;
    memset(&cf, 0, sizeof cf);
    cp_error lead_err;
    bool made = own_leads(&f, &L, &m, &lead_err) == 0;
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
    if (made && L.n && cf.failed) { /* as at finalize: a file and its twin, said once */
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
            missing(&m, name, &lead_err);
        } else if (L.n == 0) { /* no calls: an empty file says so */
            cp_counts_file empty = {.version = CP_COUNTS_FORMAT_VERSION, .direction = d,
                                    .lead_rank = r};
            if (cp_compact_write_file(path, f.cfg->gzip, &empty, &err))
                missing(&m, name, &err);
            else
                m.files[m.nfiles++] = strdup(name);
        } else if (rename(cf.part[d], cf.final[d]) != 0) {
            cp_error_set(&err, "cannot rename %s into place: %s", cf.part[d], strerror(errno));
            remove(cf.part[d]);
            missing(&m, name, &err);
        } else {
            m.files[m.nfiles++] = strdup(name);
        }
    }
    cp_fin_leads_free(&L);
    char why[256];
    snprintf(why, sizeof why, "%s; rank %d's own data only", reason, r);
    if (cp_fin_run_manifest(&f, &m, why)) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    cp_fin_fingerprint_files(&f, &m); /* as at finalize: a file cut short is told */
    snprintf(path, sizeof path, "%s/" CP_FILE_MANIFEST, dir);
    if (cp_manifest_write_file(path, false, &m, &err))
        goto fail;
    if (r == 0 || always_say || f.cfg->verbose)
        cp_log("%s: rank %d wrote its partial profile to %s", reason, r, dir);
    goto out;
fail:
    cp_log("%s; rank %d could not write its partial profile: %s", reason, r, err.msg);
out:
    cp_manifest_free(&m);
}
