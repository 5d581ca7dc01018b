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
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "location.h"
#include "time_line.h"

extern time_t cp_clock_base; /* whole seconds subtracted to keep precision */

/* Seconds on this rank's clock (CLOCK_MONOTONIC, vDSO: no system call). */
static inline double cp_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - cp_clock_base) + 1e-9 * (double)ts.tv_nsec;
}

/* Timestamps of calls: the cheapest clock that is right.  On x86 when the
 * CPU says its time-stamp counter is invariant (constant rate, and running
 * in every power state: the `constant_tsc` and `nonstop_tsc` flags), the raw
 * counter (about 11 ns to read, against 30 for clock_gettime on a VM whose
 * kernel clock is kvm-clock); otherwise cp_clock_now().  The counter's rate
 * is calibrated against CLOCK_MONOTONIC at start and measured again over
 * the whole run at finalize.  Stamps are integer ticks (the counter's, or
 * nanoseconds of CLOCK_MONOTONIC); finalize turns ticks since
 * cp_clock_origin into seconds on this rank's clock by the run's rate
 * (cp_clock_read). */
extern bool cp_clock_tsc;
extern uint64_t cp_clock_origin; /* ticks when the clock started */

/* COLLPROF_CLOCK: auto (the counter when the CPU says it is invariant),
 * tsc (the counter whatever the flags say, on x86), monotonic. */
enum cp_clock_mode { CP_CLOCK_AUTO = 0, CP_CLOCK_TSC, CP_CLOCK_MONOTONIC, CP_CLOCK_NMODES };
extern const char *const cp_clock_mode_names[CP_CLOCK_NMODES];

/* The clock's ticks, of the time-stamp counter when tsc (cp_clock_tsc:
 * the wrappers pass their copy of it, on the line they read anyway). */
static inline uint64_t cp_clock_ticks_of(bool tsc)
{
#if defined(__x86_64__) || defined(__i386__)
    if (tsc)
        return __rdtsc();
#else
    (void)tsc;
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cp_clock_ticks(void)
{
    return cp_clock_ticks_of(cp_clock_tsc);
}

/* Start this rank's clock (mode: enum cp_clock_mode), calibrating the
 * counter when it is used (a few milliseconds). */
void cp_clock_start(int mode);
/* Collective over MPI_COMM_WORLD: group ranks by host (fills loc->node),
 * then measure the offset to world rank 0.  `final` selects which of the
 * two measurements this is.  Returns 0, or -1 when MPI failed (offsets then
 * stay as they were: 0 unless measured before). */
int cp_clock_measure(cp_location *loc, bool final);

/* What this rank's clock measured, as the value finalize's stages are
 * handed (merge/time_line.h): its rate, its offsets to world rank 0, how
 * calls were stamped; end: this rank's clock when recording stopped.  Best
 * after cp_clock_measure(.., true), which measures the counter's rate over
 * the run and the final offset. */
void cp_clock_read(double end, cp_time_line *out);

#endif
