/*
 * In finalize's run-files stage: the Cube profile and the wait-state statistics.  What
 * goes into profile.cubex — rank 0's metadata and every rank's column
 * (writers/cubex_build.c), the rows a batch at a time (merge/cube_rows.c) —
 * is MPI-free (the scale simulator runs it too); here rank 0 builds the metadata from what the
 * timing stage gathered, shares the site -> cnode map, the ranks agree
 * that everyone has room and which rows anyone has a value in, and the
 * batches of rows go to rank 0 by MPI_Gather while it writes.  Then rank 0
 * writes profile.stat.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof_config.h"
#include "cube_rows.h"
#include "cubex_build.h"
#include "cubex.h"
#include "finalize_timing.h"
#include "stat.h"
#include "transport.h"
#include "file_names.h"


void cp_fin_cube_job(const fin *f, uint64_t naggregated, const char *extra_key,
                     const char *extra_value, fin_cube_text *t, cp_cube_job *j)
{
    snprintf(t->aggregated, sizeof t->aggregated, "%" PRIu64, naggregated);
    snprintf(t->machine, sizeof t->machine, "job %.200s", f->job);
    const char *const attrs[][2] = {
        {"collprof version", COLLPROF_VERSION},
        {"MPI library", f->mpi_version},
        {"job", f->job},
        {"start time", f->start_iso},
        {"timing", cp_timing_mode_name(f->cfg->timing)},
        {"calls timed in aggregate only", t->aggregated},
        {extra_key, extra_value},
    };
    size_t n = sizeof attrs / sizeof attrs[0] - (extra_key ? 0 : 1);
    memcpy(t->attrs, attrs, n * sizeof attrs[0]);
    j->timing = f->cfg->timing != CP_TIMING_OFF;
    j->barrier = f->cfg->timing == CP_TIMING_BARRIER;
    j->program = program_invocation_short_name;
    j->machine = t->machine;
#ifdef CP_MPIX_PERSISTENT /* this MPI library's persistent forms are MPIX_..._init */
    j->persistent_prefix = "MPIX_";
#endif
    j->attrs = (const char *const(*)[2])t->attrs;
    j->nattrs = n;
}

/* Rank 0: everything of profile.cubex but its values. */
static int build_meta(const fin *f, const cp_manifest *man, const cp_run_times *rt, cp_cube *c,
                      int64_t metric[CP_CM_SLOTS], cp_cube_sites *sc, int64_t *root)
{
    fin_cube_text t;
    cp_cube_job j = {.keys = rt->keys, .nkeys = rt->nkeys, .call_tree = man->call_tree,
                     .ncall_tree = man->ncall_tree, .hosts = &rt->hosts};
    cp_fin_cube_job(f, rt->naggregated, NULL, NULL, &t, &j);
    j.timing = rt->timing;
    return cp_cube_build_meta(&j, c, metric, sc, root);
}

static int64_t site_cnode(const void *ctx, int64_t key)
{
    return cp_cube_sites_cnode(ctx, key);
}

static int build_stat(const fin *f, cp_run_times *rt, const int64_t metric[], const cp_cube_sites *sc,
                      cp_stat_file *st)
{
    return cp_wstat_file(st, f->cfg->stat_documented, rt->stat, rt->top, metric + CP_CM_WAIT0,
                         site_cnode, sc);
}

/* What rank 0 tells every rank of the Cube's call tree. */
typedef struct meta_head {
    int32_t ok;
    int32_t pad;
    uint64_t ncnodes, nkeys;
    int64_t root;
} meta_head;

/* Every rank: the call tree's size, root and site -> cnode map from rank
 * 0 (sc filled on every rank), in chunks of a fixed size so that a rank
 * without room for the map still takes part, into scratch.  False when
 * rank 0 has no profile to write or this rank could not take the map. */
static bool share_meta(fin *f, meta_head *h, cp_cube_sites *sc)
{
    enum { CHUNK = 4096 };
    cp_tp_bcast(h, (int)sizeof *h, MPI_BYTE, 0, f->w);
    if (!h->ok)
        return false;
    if (f->rank != 0) {
        sc->n = (size_t)h->nkeys;
        sc->key = malloc((sc->n ? sc->n : 1) * sizeof *sc->key);
        sc->cnode = malloc((sc->n ? sc->n : 1) * sizeof *sc->cnode);
    }
    bool room = sc->key && sc->cnode;
    static int64_t scratch[CHUNK];
    for (uint64_t at = 0; at < h->nkeys; at += CHUNK) {
        int n = (int)(h->nkeys - at < CHUNK ? h->nkeys - at : CHUNK);
        cp_tp_bcast(room ? sc->key + at : scratch, n, MPI_INT64_T, 0, f->w);
        cp_tp_bcast(room ? sc->cnode + at : scratch, n, MPI_INT64_T, 0, f->w);
    }
    return room;
}

/* The batches of rows to rank 0 (cp_cube_gather_fn). */
static int gather(void *ctx, const size_t *cells, const uint64_t *mine, size_t n, uint64_t *all)
{
    (void)cells;
    fin *f = ctx;
    return cp_tp_gather(mine, (int)n, MPI_UINT64_T, all, (int)n, MPI_UINT64_T, 0, f->w) ==
                   MPI_SUCCESS ? 0 : -1;
}

size_t cp_fin_write_profile(fin *f, const cp_manifest *man, cp_run_times *rt,
                            const char *names[2])
{
    cp_cube cube;
    memset(&cube, 0, sizeof cube);
    int64_t metric[CP_CM_SLOTS];
    cp_cube_sites sc = {0};
    char path[4200];
    cp_error err;
    size_t n = 0;
    const char *why = "out of memory while building the Cube profile";
    meta_head h = {0};
    if (f->rank == 0) {
        if (rt->sites_lost)
            why = "the call sites or locations of some ranks did not reach rank 0";
        else if (build_meta(f, man, rt, &cube, metric, &sc, &h.root) == 0)
            h = (meta_head){.ok = 1, .ncnodes = cube.ncnodes, .nkeys = sc.n, .root = h.root};
    }
    bool ok = share_meta(f, &h, &sc);

    /* Every rank: its column (the metrics are the same everywhere: they
     * depend on the configuration alone). */
    cp_cube scratch;
    memset(&scratch, 0, sizeof scratch);
    int64_t m2[CP_CM_SLOTS];
    bool have_metrics = cp_cube_init(&scratch, 1) == 0 &&
                        cp_cube_build_metrics(&scratch, rt->timing,
                                              f->cfg->timing == CP_TIMING_BARRIER, true, m2) == 0;
    size_t nm = scratch.nmetrics, cells = nm * (size_t)h.ncnodes;
    cp_cube_column k = {calloc(cells ? cells : 1, sizeof(uint64_t)), nm, (size_t)h.ncnodes,
                        scratch.metrics};
    uint8_t *nz = calloc(cells ? cells : 1, 1), *any = calloc(cells ? cells : 1, 1);
    cp_cube_rows x = {0};
    bool batch = cp_cube_rows_start(&x, k.raw, nm, k.ncnodes, any, f->size, CP_CUBE_BATCH_BYTES,
                                    f->rank == 0, gather, f) == 0;
    if (h.ok) {
        /* Whether every rank has room (one maximum), then which rows anyone
         * has a value in (another): the same counts on every rank. */
        int failed = !(ok && have_metrics && k.raw && nz && any && batch), anyone = 1;
        cp_tp_allreduce(&failed, &anyone, 1, MPI_INT, MPI_MAX, f->w);
        ok = !anyone;
        if (ok) {
            cp_cube_build_column(&k, m2, &sc, h.root, rt->mine, rt->nmine, rt->wall);
            for (size_t i = 0; i < cells; i++)
                nz[i] = k.raw[i] != 0;
            ok = cp_tp_allreduce(nz, any, (int)cells, MPI_UNSIGNED_CHAR, MPI_MAX, f->w) ==
                 MPI_SUCCESS;
            cp_cube_rows_count(&x);
        }
        if (!ok)
            why = "a rank ran out of memory for its values of the Cube profile";
    }

    /* The rows, a batch at a time; rank 0 writes them as they come. */
    if (ok && f->rank == 0) {
        snprintf(path, sizeof path, "%s/" CP_FILE_CUBE, f->dir);
        if (cp_cubex_write_rows(path, &cube, any, cp_cube_rows_next, &x, &err))
            cp_fin_missing(f, CP_FILE_CUBE, err.msg, true);
        else
            names[n++] = CP_FILE_CUBE;
    }
    while (ok && x.done < x.rows) /* the other ranks; rank 0 after a failure */
        cp_cube_rows_batch(&x);
    if (f->rank == 0 && !ok) {
        cp_fin_missing(f, CP_FILE_CUBE, why, true);
        if (rt->timing)
            cp_fin_missing(f, CP_FILE_STAT, why, true);
    }

    if (f->rank == 0 && ok && rt->timing && rt->stats_lost) {
        cp_fin_missing(f, CP_FILE_STAT,
                       "the wait-state statistics of some ranks could not be computed", true);
    } else if (f->rank == 0 && ok && rt->timing) {
        cp_stat_file st;
        if (build_stat(f, rt, metric, &sc, &st)) {
            cp_fin_missing(f, CP_FILE_STAT, "out of memory while building the statistics", true);
        } else {
            snprintf(path, sizeof path, "%s/" CP_FILE_STAT, f->dir);
            if (cp_stat_write(path, &st, &err))
                cp_fin_missing(f, CP_FILE_STAT, err.msg, true);
            else
                names[n++] = CP_FILE_STAT;
        }
        cp_stat_file_free(&st);
    }
    cp_cube_rows_free(&x);
    free(k.raw);
    free(nz);
    free(any);
    cp_cube_free(&scratch);
    cp_cube_free(&cube);
    cp_cube_sites_free(&sc);
    return n;
}
