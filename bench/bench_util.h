/*
 * Shared helpers of the collprof benchmarks: a monotonic clock, medians,
 * resident memory, whether the profiler is preloaded, and the interleaved
 * with/without measurement every timing benchmark uses.
 *
 * The benchmarks run with libcollprof.so preloaded.  "With the profiler"
 * means calling MPI_X (resolved to collprof's wrapper), "without" means
 * calling PMPI_X (MPICH's own entry point, which the wrapper also ends in).
 * Both are measured in the same process, in alternating batches, because
 * timings on a shared 2-core machine drift by more than the effect we
 * measure: only the difference inside one run is trustworthy.
 */
#ifndef COLLPROF_BENCH_UTIL_H
#define COLLPROF_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <mpi.h>

#include "bench_clock.h" /* bu_now, bu_median, bu_quantile */

/* This rank and the world's size; a world of fewer than min or more than
 * max ranks ends the job (rank 0 says why, naming the benchmark). */
void bu_world(const char *name, int min, int max, int *rank, int *size);

/* Resident set size of this process in KiB (VmRSS of /proc/self/status),
 * -1 when it cannot be read. */
long bu_rss_kib(void);

/* Is libcollprof loaded into this process and recording?  Found by name at
 * run time, so the benchmarks need not link it (they get it by LD_PRELOAD). */
bool bu_profiler_loaded(void);
bool bu_profiler_recording(void);
/* One line for the header of a table: "collprof preloaded, recording". */
const char *bu_profiler_status(void);

/* One batch of `n` calls of operation `op` (0..nops-1) under test: through
 * the profiler (through_pmpi false: MPI_X) or around it (true: PMPI_X).
 * Both branches must do the same work apart from the entry point. */
typedef void (*bu_batch_fn)(void *ctx, int op, bool through_pmpi, int n);

/* Result of an interleaved measurement, in nanoseconds per call. */
typedef struct bu_result {
    double mpi_med, pmpi_med;   /* median per-call time of the batches */
    double mpi_q1, mpi_q3;      /* quartiles: how noisy the batches were */
    double pmpi_q1, pmpi_q3;
    double paired_diff_med;     /* median over rounds of (MPI - PMPI) in
                                   the same round: robust to slow drift */
    double added;               /* mpi_med - pmpi_med */
    double ratio;               /* mpi_med / pmpi_med */
} bu_result;

/*
 * Run `rounds` rounds; each round times, for each of `nops` operations, one
 * batch through MPI_ and one through PMPI_.  The order of these 2*nops
 * batches rotates by one from round to round, so that every batch kind runs
 * in every position equally often (nothing always runs first, right after a
 * neighbour's load, or on warm caches).  Every batch starts after a
 * PMPI_Barrier (not profiled) on comm.  A batch's time is the slowest
 * rank's, since a collective is done when every rank is.  Collective over
 * comm; res[0..nops) is valid on rank 0 of comm.
 */
void bu_interleaved(MPI_Comm comm, int rounds, int n, int nops, bu_batch_fn fn, void *ctx,
                    bu_result *res);

/*
 * Distinct count vectors for the pattern benchmarks.  Pattern p (0 <= p <
 * BU_MAX_PATTERNS) is the traffic matrix M[i][j] = 1 + (i + j even ? a : b)
 * ints, with a = p % BU_PATTERN_BASE and b = p / BU_PATTERN_BASE.  M is
 * symmetric, so a rank's send counts equal its receive counts, and every
 * row holds both a and b, so rows differ between patterns for any size >= 2.
 * Fills counts[0..size) for `rank`; counts stay <= BU_PATTERN_BASE.
 */
#define BU_PATTERN_BASE 317
#define BU_MAX_PATTERNS (BU_PATTERN_BASE * BU_PATTERN_BASE)
void bu_pattern_counts(int p, int rank, int size, int *counts);

/* Parse argv[i] as a positive int, or return def when absent (after
 * MPI_Init: a bad value aborts the job). */
int bu_arg_int(int argc, char **argv, int i, int def);

#endif
