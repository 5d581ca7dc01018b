/*
 * What world rank 0 learns of every rank's wait states at finalize: per
 * pattern the statistics of its instances (wait_stats.h) and the most
 * severe ones, and the job's slowest calls — each of bounded size, merged
 * up the world's binomial tree (tree_reduce.h).  No MPI: finalize
 * (lib/finalize/finalize_waits.c) and the scale simulator
 * (bench/scale_waits.c) run it alike.
 */
#ifndef COLLPROF_JOB_WAITS_H
#define COLLPROF_JOB_WAITS_H

#include "statistics.h"
#include "tree_reduce.h"
#include "wait_states.h"
#include "wait_stats.h"

/* Slowest calls kept per rank, and job-wide in rank 0's aggregates. */
#define CP_SLOWEST 10

typedef struct cp_job_waits {
    cp_wstat stat[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS]; /* most severe; cnode = the site's key */
    cp_cpt_slow slowest[CP_SLOWEST];        /* slowest first */
    size_t nslowest;
} cp_job_waits;

/* The reduction's pack and merge (the value: a cp_job_waits).  A failed
 * rank's value still carries its slowest calls. */
extern const cp_tree_op cp_job_waits_op;
void cp_job_waits_free(cp_job_waits *j);

#endif
