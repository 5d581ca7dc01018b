/*
 * The scale simulator's sites stage: finalize's own reduction of the job's
 * sites, clocks and locations (merge/job_sites.c) up the world's
 * binomial tree, through the same carrier interface finalize uses
 * (merge/tree_reduce.h: cp_tree_reduce_up), here mailboxes in memory.
 * The virtual ranks run one by one from P - 1 down to 0: a rank's children
 * have sent before it receives, so no threads are needed, and only the
 * messages in flight (at most one per level of the tree) are held.
 *
 * Every rank calls MPI_Alltoallv from two call paths and MPI_Allreduce from
 * one, every 1,000th rank MPI_Alltoallv from a third: rank 0 must end with
 * 4 keys whatever P, every rank's location in rank order (64 ranks a host),
 * the sums of the per-collective aggregates and the clocks (sites_exact).
 * Rank 0's cost is the O(P) of the locations, which profile.cubex's system
 * tree holds anyway.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sites.h"
#include "scale_sim.h"

#define NCOLLS 40 /* any number: the reduction does not know what they are */
#define C_ALLTOALLV 1
#define C_ALLREDUCE 10
#define RANKS_PER_HOST 64

static int64_t key(uint32_t coll, uint32_t path)
{
    return (int64_t)((uint64_t)path << 16 | coll << 8);
}

static void location_of(int64_t r, cp_location *loc)
{
    memset(loc, 0, sizeof *loc);
    snprintf(loc->hostname, sizeof loc->hostname, "node%05" PRId64, r / RANKS_PER_HOST);
    loc->core = (int32_t)(r % RANKS_PER_HOST);
    loc->pid = (int32_t)(10000 + r % 997);
    loc->node = (uint32_t)(r / RANKS_PER_HOST);
}

/* Rank r's own value, as finalize_sites.c makes it from its sites. */
static void own_value(int64_t r, cp_job_sites *j)
{
    cp_location loc;
    location_of(r, &loc);
    int64_t clock[4] = {1, 0, r % 100, INT64_MIN};
    if (cp_job_sites_init(j, NCOLLS, r, &loc, clock))
        sim_die("out of memory for a rank's sites");
    int64_t keys[4] = {key(C_ALLTOALLV, 0), key(C_ALLTOALLV, 1), key(C_ALLREDUCE, 1),
                       key(C_ALLTOALLV, 2)};
    cp_job_sites_add_keys(j, keys, r % 1000 == 0 ? 4 : 3);
    cp_coll_agg a = {.calls = 20, .time = 0.001 * (double)(r % 7), .min = 1e-6,
                     .max = 1e-3 * (double)(1 + r % 7), .any = 1};
    cp_coll_agg_add(&j->colls[C_ALLTOALLV], &a);
    cp_coll_agg_add(&j->colls[C_ALLREDUCE], &a);
    j->naggregated = (uint64_t)(r % 3);
}

static size_t held_by(const cp_job_sites *j)
{
    return j->n * sizeof *j->keys + j->ncolls * sizeof *j->colls + j->locs.cap;
}

void sim_sites(int64_t P, double *lead_recv_mib, double *lead_peak_mib, double *lead_cpu,
               size_t *nkeys, bool *exact)
{
    sim_mailbox box = {0};
    cp_tree_io io = sim_mailbox_io(&box);
    cp_job_sites root;
    bool ok = true;
    for (int64_t r = P - 1; r >= 0; r--) {
        cp_job_sites j;
        own_value(r, &j);
        box.self = r;
        box.received = 0;
        box.largest = 0;
        double t0 = sim_cpu_now();
        ok &= cp_tree_reduce_up(r, P, &io, &cp_job_sites_op, &j, true);
        double cpu = sim_cpu_now() - t0;
        sim_charge(r, box.received, cpu, held_by(&j) + box.largest);
        if (r == 0) {
            root = j;
            *lead_recv_mib = box.received / 1048576.0;
            *lead_peak_mib = (double)(held_by(&j) + box.largest) / 1048576.0;
            *lead_cpu = cpu;
        } else {
            cp_job_sites_free(&j);
        }
    }
    /* What rank 0 must hold: every rank's location, the 4 keys, the sums. */
    cp_location *loc = malloc((size_t)P * sizeof *loc);
    if (!loc)
        sim_die("out of memory for the locations");
    bool good = ok && box.n == 0 && cp_job_sites_locations(&root, P, loc) && root.n == 4;
    for (int64_t r = 0; good && r < P; r++) {
        cp_location want;
        location_of(r, &want);
        good = !strcmp(loc[r].hostname, want.hostname) && loc[r].core == want.core &&
               loc[r].pid == want.pid && loc[r].node == want.node;
    }
    uint64_t nagg = 0;
    for (int64_t r = 0; r < P; r++)
        nagg += (uint64_t)(r % 3);
    good = good && root.colls[C_ALLTOALLV].calls == 20 * (uint64_t)P &&
           root.colls[C_ALLREDUCE].calls == 20 * (uint64_t)P && root.naggregated == nagg &&
           root.clock[0] == P && root.clock[2] == (P > 100 ? 99 : P - 1) &&
           root.colls[C_ALLTOALLV].max == 1e-3 * (double)(P >= 7 ? 7 : P);
    *nkeys = root.n;
    *exact = good;
    free(loc);
    cp_job_sites_free(&root);
    sim_mailbox_free(&box);
}
