/*
 * Clocks: this rank's monotonic clock in seconds since its start, and the
 * alignment of every rank's clock to world rank 0's, so that the times of
 * all ranks are "seconds from the run's start" on one time line.
 *
 * Ranks of one host share a clock; one rank per host (the lowest) measures
 * its offset to world rank 0 by ping-pong (the sample with the shortest
 * round trip wins) at initialisation and again at finalize, and tells the
 * other ranks of its host.  A time in between is aligned with the offset
 * interpolated linearly between the two measurements (clocks drift).
 */
#ifndef COLLPROF_CLOCK_H
#define COLLPROF_CLOCK_H

#include <mpi.h>
#include <stdbool.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "location.h"

extern time_t cp_clock_base; /* whole seconds subtracted to keep precision */

/* Seconds on this rank's clock (CLOCK_MONOTONIC, vDSO: no system call). */
static inline double cp_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - cp_clock_base) + 1e-9 * (double)ts.tv_nsec;
}

/* Timestamps of calls: the cheapest clock that is right.  On x86 with an
 * invariant TSC that the kernel itself uses as its clock source (so it is
 * synchronised across cores), the raw time-stamp counter (about 10 ns to
 * read, against 27 for clock_gettime); otherwise cp_clock_now().  A stamp
 * becomes seconds on this rank's clock with cp_clock_stamp_seconds, from the
 * (counter, clock) pairs read at start and at finalize (a linear map: the
 * counter's rate is measured, not assumed). */
extern bool cp_clock_tsc;

static inline double cp_clock_stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (cp_clock_tsc)
        return (double)__rdtsc(); /* exact: below 2^53 for years of uptime */
#endif
    return cp_clock_now();
}

/* After cp_clock_measure(.., true): a stamp as seconds on this rank's clock. */
double cp_clock_stamp_seconds(double stamp);

/* Start this rank's clock; allow_tsc false: CLOCK_MONOTONIC stamps only. */
void cp_clock_start(bool allow_tsc);
/* This rank's clock when it started. */
double cp_clock_start_time(void);

/* Collective over MPI_COMM_WORLD: group ranks by host (fills loc->node),
 * then measure the offset to world rank 0.  `final` selects which of the
 * two measurements this is.  Returns 0, or -1 when MPI failed (offsets then
 * stay as they were: 0 unless measured before). */
int cp_clock_measure(cp_location *loc, bool final);

/* t (this rank's clock) on world rank 0's time line. */
double cp_clock_align(double t);

#endif
