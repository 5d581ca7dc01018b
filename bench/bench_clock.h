/*
 * The benchmarks' clock and medians, without MPI, so that the benchmarks that
 * run no MPI (the reader's) share them with the others (bench_util.h).
 */
#ifndef COLLPROF_BENCH_CLOCK_H
#define COLLPROF_BENCH_CLOCK_H

#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC (not affected by clock adjustments). */
double bu_now(void);

/* Median of v[0..n) (v is reordered).  0 when n == 0. */
double bu_median(double *v, size_t n);
/* The q-quantile (0..1, nearest rank) of v[0..n) (v is reordered). */
double bu_quantile(double *v, size_t n, double q);

#endif
