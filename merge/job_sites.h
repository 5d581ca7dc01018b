/*
 * What world rank 0 must know of every rank's sites, reduced up the
 * world's binomial tree (tree_reduce.h) at finalize: the job's distinct
 * site keys (collective, form, call path), the calls timed in aggregate
 * only, per collective the timed calls, their time and the shortest and
 * longest call, how the ranks stamped their calls, and where every rank
 * ran.  Identical keys collapse at every step, so rank 0 receives
 * ceil(log2 P) messages of O(distinct sites) — and the locations, O(P) at
 * rank 0 as profile.cubex's system tree is (a few dozen bytes a rank): a
 * subtree is a contiguous range of ranks, so they arrive in rank order.
 * No MPI: finalize (lib/finalize/finalize_sites.c) and the scale simulator
 * (bench/scale_sites.c) run it alike.
 */
#ifndef COLLPROF_JOB_SITES_H
#define COLLPROF_JOB_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "location.h"
#include "pack.h"
#include "tree_reduce.h"

/* Per collective over all ranks and sites, for timings.cpt's aggregates. */
typedef struct cp_coll_agg {
    uint64_t calls;   /* timed calls */
    double time;      /* their execution time */
    double min, max;  /* over the sites whose calls have their own records */
    uint32_t any;     /* min and max are set */
} cp_coll_agg;

typedef struct cp_job_sites {
    int64_t *keys;       /* ascending, distinct */
    size_t n;
    uint64_t naggregated;
    cp_coll_agg *colls;  /* ncolls, one per collective */
    size_t ncolls;
    int64_t clock[4];    /* sums, sums, maximum, maximum (cp_run_times.clock) */
    cp_wbuf locs;        /* the locations of ranks first .. first + nlocs - 1 */
    int64_t first;
    uint64_t nlocs;
    bool oom;
} cp_job_sites;

/* Rank `rank`'s own value: where it ran, its clock's four numbers, no
 * sites yet.  0, or -1 when out of memory (j then holds nothing). */
int cp_job_sites_init(cp_job_sites *j, size_t ncolls, int64_t rank, const cp_location *loc,
                      const int64_t clock[4]);
/* keys := keys U add (add ascending, distinct). */
void cp_job_sites_add_keys(cp_job_sites *j, const int64_t *add, size_t n);
/* a into per-collective aggregate *to. */
void cp_coll_agg_add(cp_coll_agg *to, const cp_coll_agg *a);
/* The reduction's pack and merge (the value: a cp_job_sites). */
extern const cp_tree_op cp_job_sites_op;
/* Rank 0, after the reduction: the n ranks' locations in rank order into
 * out[0..n).  false when some did not arrive (a subtree failed). */
bool cp_job_sites_locations(const cp_job_sites *j, int64_t n, cp_location *out);
/* The same as rank 0 keeps it: each rank's node, each node's host name
 * (out is emptied first; false also when out of memory). */
bool cp_job_sites_hosts(const cp_job_sites *j, int64_t n, cp_job_hosts *out);
void cp_job_sites_free(cp_job_sites *j);

#endif
