/*
 * One series' timing sample as finalize reads it, and this rank's sums per
 * site (collective x form x call path), from the recorders' tables: no MPI,
 * no clock of its own (the time line is handed in).
 */
#ifndef COLLPROF_SERIES_SUMS_H
#define COLLPROF_SERIES_SUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "sites.h"
#include "time_line.h"
#include "timing.h"

/* One series' sample: the calls the collector kept, in seconds on world
 * rank 0's time line, with their call paths (from the call sequence), and
 * the timed calls that are in the aggregates only.  The collector's state
 * is only read. */
typedef struct cp_sample {
    cp_timing_cols cols;
    uint32_t *paths;
    void *block; /* the columns and the paths, one allocation */
    size_t n;
    uint64_t naggregated;
    double agg_time, agg_late; /* seconds, of the calls in the aggregates only */
} cp_sample;

/* The sample of the series whose counts are c and timing t.  Returns 0, or
 * -1 when memory ran out (what was allocated is in *out, to free). */
int cp_sample_make(const cp_counts *c, const cp_timing *t, const cp_time_line *tl,
                   cp_sample *out);
/* Room for n kept calls in out's columns and paths (n = 0: one), in one
 * allocation (out->block, to free).  Returns 0, or -1 when memory ran out. */
int cp_sample_alloc(cp_sample *out, size_t n);
void cp_sample_free(cp_sample *s);

/* This rank's sites, a short list. */
typedef struct cp_site_list {
    cp_site *v;
    size_t n, cap;
    bool oom;         /* memory ran out: some sums are missing */
    int64_t rank;     /* this rank's world rank, which each site names */
} cp_site_list;

/* The sums of site (k, form, path), added when new; NULL (and oom) when
 * memory ran out. */
cp_coll_sums *cp_site_list_get(cp_site_list *st, int k, uint32_t form, uint32_t path);
/* Visits and bytes of collective k's calls (counts t), a vector to `out`
 * peers sent and from `in` received (the communicator's, or its
 * neighbourhood's). */
void cp_sums_of_counts(cp_site_list *st, const cp_counts *t, int k, uint64_t out, uint64_t in);
/* Time, late arrival, extremes and calls of collective k's timed calls
 * (counts cn, timing t, sample sm; tick: seconds of one tick). */
void cp_sums_of_timing(cp_site_list *st, const cp_counts *cn, const cp_timing *t, int k,
                       const cp_sample *sm, double tick);

#endif
