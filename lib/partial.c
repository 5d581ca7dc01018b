/*
 * Partial profile at exit without MPI_Finalize (see partial.h).  No MPI call
 * is made here: MPI may be gone or broken.  The counts are merged exactly as
 * at a lead, with this rank's tables as the only view of each communicator.
 */
#include "partial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_registry.h"
#include "compact.h"
#include "counts_merge.h"
#include "log.h"
#include "manifest.h"
#include "outdir.h"
#include "run_manifest.h"
#include "runtime.h"
#include "file_names.h"

static int merge_own(cp_counts_file out[2], cp_manifest *m, cp_error *err)
{
    m->comms = calloc(cp_registry_count() + 1, sizeof *m->comms);
    if (!m->comms)
        return cp_error_set(err, "out of memory");
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        bool used = false;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k] || c->coll[k]->counts.ncalls == 0)
                continue;
            cp_counts *t = &c->coll[k]->counts;
            used = true;
            cp_counts_settle(t);
            cp_counts_view v = {t->vecs, t->nvecs, t->sigs, t->nsigs, &t->seq};
            const cp_counts_view **views = calloc((size_t)c->size, sizeof *views);
            if (!views)
                return cp_error_set(err, "out of memory");
            views[c->rank] = &v;
            cp_block tmpl;
            memset(&tmpl, 0, sizeof tmpl);
            tmpl.comm_id = c->reg_index;
            tmpl.comm_size = c->size;
            tmpl.comm_world_ranks = c->members;
            snprintf(tmpl.collective, sizeof tmpl.collective, "%s", cp_collective_names[k]);
            size_t first[2] = {out[0].nblocks, out[1].nblocks};
            int rc = cp_counts_merge(views, c->size, &tmpl, out, err);
            free(views);
            if (rc)
                return -1;
            if (cp_counts_compact_rows(out, first, cp_rt.cfg.dense_rows))
                return cp_error_set(err, "out of memory");
        }
        if (used) {
            cp_comm_info *ci = &m->comms[m->ncomms++];
            ci->id = c->reg_index;
            ci->size = c->size;
            ci->lead = c->lead;
            if (cp_ranges_copy(&ci->members, &c->members) ||
                cp_ranges_copy(&ci->remote_members, &c->remote))
                return cp_error_set(err, "out of memory");
        }
    }
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

/* Each file stands on its own: one that cannot be written is listed as
 * missing in the manifest, and the others are still written. */
void cp_partial_write(const char *reason, bool always_say)
{
    int r = cp_rt.world_rank;
    char base[4096], dir[4200], path[4300], name[64];
    cp_error err;
    cp_counts_file out[2];
    cp_manifest m;
    memset(out, 0, sizeof out);
    memset(&m, 0, sizeof m);
    if (cp_outdir_create(&cp_rt.cfg, cp_rt.job, cp_rt.start_stamp, false, base, sizeof base, &err))
        goto fail;
    snprintf(dir, sizeof dir, "%s/" CP_FILE_PARTIAL "%d", base, r);
    if (cp_outdir_make(dir, false, &err))
        goto fail;
    cp_outdir_clear(dir, false); /* an earlier run's partial profile of this rank */
    m.files = calloc(3, sizeof *m.files);
    if (!m.files) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    m.files[m.nfiles++] = strdup(CP_FILE_MANIFEST);
    cp_error merge_err;
    bool merged = merge_own(out, &m, &merge_err) == 0;
    for (int d = 0; d < 2; d++) {
        cp_compact_file_name(name, sizeof name, d == 0 ? CP_SEND : CP_RECV, r, cp_rt.cfg.gzip);
        if (!merged) {
            missing(&m, name, &merge_err);
            continue;
        }
        out[d].version = CP_COUNTS_FORMAT_VERSION;
        out[d].direction = d;
        out[d].lead_rank = r;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (cp_compact_write_file(path, cp_rt.cfg.gzip, &out[d], &err))
            missing(&m, name, &err);
        else
            m.files[m.nfiles++] = strdup(name);
    }
    char why[256];
    snprintf(why, sizeof why, "%s; rank %d's own data only", reason, r);
    if (cp_run_manifest(&m, why)) {
        cp_error_set(&err, "out of memory");
        goto fail;
    }
    snprintf(path, sizeof path, "%s/" CP_FILE_MANIFEST, dir);
    if (cp_manifest_write_file(path, false, &m, &err))
        goto fail;
    if (r == 0 || always_say || cp_rt.cfg.verbose)
        cp_log("%s: rank %d wrote its partial profile to %s", reason, r, dir);
    goto out;
fail:
    cp_log("%s; rank %d could not write its partial profile: %s", reason, r, err.msg);
out:
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
    cp_manifest_free(&m);
}
