/*
 * In finalize's timing stage: what rank 0 must know of every rank's sites to build
 * the Cube profile's metadata and timings.cpt's aggregates, without
 * gathering the sites: the sorted set of site keys (collective, form, call
 * path) of the job, the number of calls timed in aggregate only, and per
 * collective the timed calls, their time and the shortest and longest call;
 * how the ranks stamped their calls (the manifest's clock); and where each
 * rank ran (host, core, pid: the Cube profile's system tree, O(P) at rank
 * 0 as the file's locations are, a few dozen bytes a rank).
 * Reduced up the world's binomial tree (cp_fin_up_tree): identical keys
 * collapse at every step, so rank 0 receives ceil(log2 P) messages of
 * O(distinct sites), not P lists; the locations of a subtree's ranks (a
 * contiguous range of them) follow their root's, so they arrive in rank
 * order, on the same messages (no gather of its own, whose three
 * collectives cost a round of the scheduler each where ranks outnumber
 * cores).  Each rank keeps its own sites: its
 * column of values goes to rank 0 row by row when profile.cubex is written
 * (finalize_profile.c).  The value and its merge (no MPI, run by the scale
 * simulator too): merge/job_sites.c.
 */
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"

#define TAG_SITES 0x6375

size_t cp_fin_site_keys(const cp_site *v, size_t n, int64_t *keys)
{
    for (size_t i = 0; i < n; i++)
        keys[i] = cp_site_key(v[i].coll, v[i].form, v[i].path);
    qsort(keys, n, sizeof *keys, cp_fin_cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || keys[m - 1] != keys[i])
            keys[m++] = keys[i];
    return m;
}

void cp_fin_job_sites(fin *f, cp_run_times *rt)
{
    cp_job_sites j;
    bool ok = cp_job_sites_init(&j, CP_NCOLLECTIVES, f->rank, f->loc, rt->clock) == 0;
    int64_t *own = malloc((rt->nmine ? rt->nmine : 1) * sizeof *own);
    ok = ok && own;
    for (size_t i = 0; ok && i < rt->nmine; i++) {
        const cp_site *s = &rt->mine[i];
        j.naggregated += s->s.naggregated;
        if (s->coll < CP_NCOLLECTIVES) {
            cp_coll_agg a = {.calls = s->s.ntimed, .time = s->s.time, .min = s->s.min,
                             .max = s->s.max, .any = s->s.nrecords > 0};
            cp_coll_agg_add(&j.colls[s->coll], &a);
        }
    }
    if (ok)
        cp_job_sites_add_keys(&j, own, cp_fin_site_keys(rt->mine, rt->nmine, own));
    free(own);
    /* A rank without room still takes part (j is then empty, or without
     * its keys): its parent must hear from it. */
    ok = cp_fin_up_tree(f, TAG_SITES, &cp_job_sites_op, &j, ok && !j.oom);
    if (f->rank == 0) {
        ok = ok && cp_job_sites_hosts(&j, f->size, &rt->hosts);
        rt->keys = j.keys;
        rt->nkeys = j.n;
        rt->naggregated = j.naggregated;
        if (j.colls)
            memcpy(rt->colls, j.colls, sizeof rt->colls);
        memcpy(rt->clock, j.clock, sizeof rt->clock);
        rt->sites_lost = !ok;
        j.keys = NULL;
    }
    cp_job_sites_free(&j);
}
