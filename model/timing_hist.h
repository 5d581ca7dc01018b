/*
 * The histogram of a series' call durations: its buckets are part of the
 * profile (timings.cpt's histograms, CP_CPT_HIST_BUCKETS), filled on the
 * call path (collectors/timing.h) and read back by the reader.
 */
#ifndef COLLPROF_TIMING_HIST_H
#define COLLPROF_TIMING_HIST_H

#include <stdint.h>

/* Durations of every timed call of a series, on a log scale: a quarter of
 * an octave per bucket (a bucket is at most 25% wide), ticks from 2^4 to
 * 2^44 (below: the first bucket, above: the last); 32-bit counts that
 * saturate.  Whole-run quantiles within 12.5% from 640 bytes per series. */
#define CP_TIMING_HIST_N 160

static inline uint32_t cp_timing_hist_index(uint64_t ticks)
{
    if (ticks < 16)
        return 0;
    unsigned b = 63u - (unsigned)__builtin_clzll(ticks);
    if (b >= 44)
        return CP_TIMING_HIST_N - 1;
    return 4u * (b - 4u) + (uint32_t)((ticks >> (b - 2u)) & 3u);
}

/* The ticks bucket i holds: [lo, hi) (bucket 0 also holds what is shorter). */
static inline void cp_timing_hist_bounds(uint32_t i, double *lo, double *hi)
{
    double base = (double)(UINT64_C(1) << (i / 4 + 2));
    *lo = (4 + i % 4) * base;
    *hi = (5 + i % 4) * base;
}

#endif
