/*
 * Finalize, internal: what the timing, location and counts collectors
 * contribute to the run-wide files (profile.cubex, profile.stat,
 * timings.cpt).
 *
 * finalize_timing.c: every rank aligns its times to world rank 0's clock and
 * sends the enter/exit times of its blocking calls to each communicator's
 * lead, which finds the wait-state instances; then every rank sends world
 * rank 0 its own sums per collective and, when it leads, the instances.
 * finalize_profile.c: rank 0 turns that into the Cube profile and the
 * statistics.  finalize_cpt.c: all ranks write timings.cpt.
 */
#ifndef COLLPROF_FINALIZE_TIMING_H
#define COLLPROF_FINALIZE_TIMING_H

#include "collprof/profile.h"
#include "finalize.h"
#include "pack.h"
#include "location.h"
#include "wait_states.h"

#define TAG_TIMING 0x6371
/* Slowest calls kept per rank, and job-wide in rank 0's aggregates. */
#define CP_SLOWEST 10

/* One rank's sums over one site: a collective called from one call path
 * (all its communicators). */
typedef struct cp_coll_sums {
    uint64_t visits;     /* calls recorded */
    uint64_t bytes_sent, bytes_recv;
    uint64_t ntimed;     /* calls timed: records + aggregated */
    uint64_t naggregated;
    uint64_t nrecords;   /* calls timed with their own record */
    double time;         /* execution: exit - start */
    double late;         /* barrier mode: start - enter */
    double min, max;     /* of exit - start over every timed call (ntimed > 0) */
    double wait[CP_NWAIT_PATTERNS]; /* severities of this rank's instances */
} cp_coll_sums;

/* A site: collective and call path (call-tree id, CP_SEQ_NONE: none). */
typedef struct cp_site {
    int64_t rank;        /* world rank */
    uint32_t coll;
    uint32_t path;
    cp_coll_sums s;
} cp_site;

/* The placeholder cnode of an instance until the Cube call tree exists. */
static inline int64_t cp_site_key(uint32_t coll, uint32_t path)
{
    return (int64_t)((uint64_t)path << 8 | coll);
}

/* Everything world rank 0 learns (rank 0 only, after cp_fin_timing). */
typedef struct cp_run_times {
    bool timing;                   /* COLLPROF_TIMING was not off */
    int64_t nranks;
    int64_t tsc_ranks;             /* ranks that stamped with the time-stamp counter */
    int64_t max_drift_ppm;         /* the largest |drift| of their counters */
    int64_t drifted_ranks;         /* how many beyond CP_CLOCK_DRIFT_BOUND_PPM */
    int64_t first_drifted;         /* the lowest of them, -1 when none */
    cp_location *loc;              /* per rank */
    double *wall;                  /* per rank: seconds from its start to finalize */
    cp_site *sites;                /* sorted by rank, collective, path */
    size_t nsites, capsites;
    struct wait_sum *waits;        /* the leads' waits, folded into sites */
    size_t nwaits;
    /* Instances of each pattern (severities) and the most severe ones, whose
     * cnode is cp_site_key(collective, path) until finalize_profile.c maps it. */
    double *values[CP_NWAIT_PATTERNS];
    size_t nvalues[CP_NWAIT_PATTERNS], capvalues[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS];
    cp_cpt_slow slowest[CP_SLOWEST]; /* job-wide, slowest first */
    size_t nslowest;
} cp_run_times;

/* What a lead found of the communicators it leads (finalize_waits.c). */
typedef struct cp_found {
    cp_wbuf sums;   /* per (member, site, pattern): world rank u64, collective u32,
                       path u32, pattern u32, summed waiting time f64 */
    uint64_t nsums;
    double *values[CP_NWAIT_PATTERNS]; /* every instance's waiting time */
    size_t nvalues[CP_NWAIT_PATTERNS], cap[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS]; /* most severe; cnode = cp_site_key */
    bool oom;
} cp_found;

/* Every rank: blocking calls' times to the leads (timing: there are any);
 * the leads fill *fd.  Every rank takes part. */
void cp_fin_find_waits(fin *f, bool timing, cp_found *fd);
void cp_found_free(cp_found *fd);

/* t->paths: the call path (call-tree id) of each of a table's timed calls,
 * from the call sequence.  Returns 0, or -1 when out of memory. */


/* Align, analyse and gather (every rank).  On rank 0 fills *rt. */
void cp_fin_timing(fin *f, cp_run_times *rt);
void cp_run_times_free(cp_run_times *rt);

/* Rank 0: build the Cube profile and the statistics from *rt and write
 * them under their final names (after every rank agreed that all went
 * well).  Sorts rt's instance values.  Each file stands on its own: one
 * that cannot be written is reported (cp_fin_missing) and the other still
 * is.  Returns how many of names[2] were written. */
size_t cp_fin_write_profile(fin *f, cp_run_times *rt, const char *names[2]);

/* All ranks: write this rank's chunk of timings.cpt (rank 0 with the header
 * and the aggregates from *rt) under the .part name. */
void cp_fin_write_cpt(fin *f, const cp_run_times *rt);

#endif
