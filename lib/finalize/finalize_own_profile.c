/*
 * A rank's own Cube profile, for its partial profile (lib/partial.c): its
 * sites (collective, form, call path) with its calls, bytes and time, over
 * its own call tree, one location that is this rank (cp_cube.first_rank).
 * The same functions as finalize's timing and run-files stages make it
 * (series_sums.c's sums, cubex_build.c's tree and column), with this rank
 * as the whole job and without the wait states, which need the calls of
 * its peers (the reader finds those in the timed calls every member's
 * partial profile holds).  No MPI.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "cubex_build.h"
#include "file_names.h"
#include "finalize_timing.h"

/* This rank's sites, its paths as its own call tree's ids, their times
 * from S (NULL: timing off). */
static int own_sites(const fin *f, const fin_samples *S, const cp_own_paths *own,
                     cp_site_list *st)
{
    for (cp_comm *c = f->comms; c && !st->oom; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k] || c->coll[k]->counts.ncalls == 0)
                continue;
            const cp_coll_tables *x = c->coll[k];
            cp_counts t = x->counts; /* read only, with the renamed signatures */
            if (!(t.sigs = cp_fin_sigs_renamed(&x->counts, own))) {
                st->oom = true;
                break;
            }
            bool neighbour = cp_collective_rows_vary(cp_collective_names[k]);
            cp_sums_of_counts(st, &t, k, (uint64_t)(neighbour ? c->outdegree : c->peers),
                              (uint64_t)(neighbour ? c->indegree : c->peers));
            if (S)
                cp_sums_of_timing(st, &t, &x->timing, k, cp_fin_sample(S, c, k), f->clock.tick);
            free(t.sigs);
        }
    return st->oom ? -1 : 0;
}

/* The sites' keys, ascending and distinct (cp_fin_site_keys), and the
 * calls timed in aggregate only over them. */
static int64_t *site_keys(const cp_site_list *st, size_t *n, uint64_t *aggregated)
{
    int64_t *keys = malloc((st->n ? st->n : 1) * sizeof *keys);
    *aggregated = 0;
    for (size_t i = 0; i < st->n; i++)
        *aggregated += st->v[i].s.naggregated;
    *n = keys ? cp_fin_site_keys(st->v, st->n, keys) : 0;
    return keys;
}

/* Row m, cnode of the one location (cp_cubex_row_fn). */
static int column_row(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    const cp_cube_column *k = ctx;
    raw[0] = k->raw[m * k->ncnodes + cnode];
    return 0;
}

int cp_fin_write_own_profile(const fin *f, const fin_samples *S, const cp_manifest *m,
                             const cp_own_paths *own, const char *path, cp_error *err)
{
    cp_site_list st = {.rank = f->rank};
    cp_cube c;
    memset(&c, 0, sizeof c);
    cp_cube_sites sc = {0};
    int64_t metric[CP_CM_SLOTS], root = -1;
    size_t nkeys = 0;
    uint64_t naggregated = 0;
    int64_t *keys = NULL;
    cp_cube_column k = {0};
    uint8_t *nonzero = NULL;
    int rc = -1;
    if (own_sites(f, S, own, &st) || !(keys = site_keys(&st, &nkeys, &naggregated)))
        goto out;
    char rank[32];
    snprintf(rank, sizeof rank, "%d", f->rank);
    uint32_t node = 0;
    char *host = (char *)f->loc->hostname;
    cp_job_hosts hosts = {.node = &node, .nranks = 1, .name = &host, .nnodes = 1};
    fin_cube_text t;
    cp_cube_job j = {.keys = keys, .nkeys = nkeys, .call_tree = m->call_tree,
                     .ncall_tree = m->ncall_tree, .hosts = &hosts, .no_waits = true};
    /* its calls up to its state; no wait states */
    cp_fin_cube_job(f, naggregated, "partial profile of rank", rank, &t, &j);
    if (cp_cube_build_meta(&j, &c, metric, &sc, &root))
        goto out;
    c.first_rank = f->rank;
    size_t cells = c.nmetrics * c.ncnodes;
    k = (cp_cube_column){calloc(cells ? cells : 1, sizeof(uint64_t)), c.nmetrics, c.ncnodes,
                         c.metrics};
    nonzero = calloc(cells ? cells : 1, 1);
    if (!k.raw || !nonzero)
        goto out;
    double wall = cp_time_line_align(&f->clock, f->clock.end) -
                  cp_time_line_align(&f->clock, f->clock.start);
    cp_cube_build_column(&k, metric, &sc, root, st.v, st.n, wall);
    for (size_t i = 0; i < cells; i++)
        nonzero[i] = k.raw[i] != 0;
    rc = cp_cubex_write_rows(path, &c, nonzero, column_row, &k, err) ? -2 : 0;
out:
    if (rc == -1)
        cp_error_set(err, "out of memory while building " CP_FILE_CUBE);
    free(keys);
    free(st.v);
    free(k.raw);
    free(nonzero);
    cp_cube_sites_free(&sc);
    cp_cube_free(&c);
    return rc ? -1 : 0;
}
