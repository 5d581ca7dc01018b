/*
 * Timing collector: when each call entered and left, per (communicator,
 * collective), in bounded memory.
 *
 * Each rank keeps at most COLLPROF_TIMING_MAX_CALLS records in total (one
 * budget shared by all its communicators and threads); past it a call only
 * adds to its table's aggregates, and the output says how many calls that
 * was.  Times are stamps of this rank's clock (lib/clock.h: time-stamp
 * counter ticks or seconds) until finalize turns them into seconds aligned
 * to world rank 0's clock.
 */
#ifndef COLLPROF_TIMING_H
#define COLLPROF_TIMING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cp_timing_rec {
    uint64_t call;  /* call index on its (communicator, collective) */
    double enter;   /* arrival in the wrapper */
    double start;   /* the MPI call proper began (after the barrier in
                       barrier mode; == enter otherwise) */
    double exit;
    int32_t root;   /* communicator-local root, -1 when not rooted */
    uint8_t flags;  /* enum cp_cpt_call_flag (collprof/profile.h) */
} cp_timing_rec;

typedef struct cp_timing {
    cp_timing_rec *recs;
    size_t n, cap;
    uint64_t naggregated; /* calls past the budget: aggregates only */
    double agg_time;      /* their summed exit - start */
    double agg_late;      /* their summed start - enter */
    bool partial;         /* memory ran out: later calls aggregated only */
    uint32_t *paths;      /* at finalize: the call path of each record */
} cp_timing;

/* The rank-wide budget of records (COLLPROF_TIMING_MAX_CALLS). */
void cp_timing_set_budget(uint64_t max_records);

/* Keep one call: a record while the budget lasts, else the aggregates.
 * Called by one thread at a time per table (MPI orders collectives on a
 * communicator).  Never fails: running out of memory aggregates. */
void cp_timing_add(cp_timing *t, const cp_timing_rec *r);

/* Give back the room beyond the records kept (the communicator was freed). */
void cp_timing_compact(cp_timing *t);

void cp_timing_free(cp_timing *t);

#endif
