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
 * nanoseconds of CLOCK_MONOTONIC); cp_clock_ticks_seconds turns ticks since
 * cp_clock_origin into seconds on this rank's clock (a linear map by the
 * run's rate). */
extern bool cp_clock_tsc;
extern uint64_t cp_clock_origin; /* ticks when the clock started */

/* COLLPROF_CLOCK: auto (the counter when the CPU says it is invariant),
 * tsc (the counter whatever the flags say, on x86), monotonic. */
enum cp_clock_mode { CP_CLOCK_AUTO = 0, CP_CLOCK_TSC, CP_CLOCK_MONOTONIC, CP_CLOCK_NMODES };
extern const char *const cp_clock_mode_names[CP_CLOCK_NMODES];

/* The largest relative difference between the counter's rate over the run
 * and its calibration at start that is taken as measurement error (parts
 * per million).  Beyond it the counter did not tick evenly (a CPU or
 * hypervisor that changes its rate): said once, and recorded. */
#define CP_CLOCK_DRIFT_BOUND_PPM 5000

static inline uint64_t cp_clock_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (cp_clock_tsc)
        return __rdtsc();
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks since cp_clock_origin as seconds on this rank's clock, and the
 * length of one tick in seconds (best after cp_clock_measure(.., true),
 * which measures the counter's rate over the run). */
double cp_clock_ticks_seconds(double ticks);
double cp_clock_tick(void);

/* Start this rank's clock (mode: enum cp_clock_mode), calibrating the
 * counter when it is used (a few milliseconds). */
void cp_clock_start(int mode);
/* This rank's counter: its calibrated rate at start in Hz (0 when calls are
 * stamped with CLOCK_MONOTONIC), and after the final cp_clock_measure the
 * relative difference of the run's rate from it, in ppm (0 when the run was
 * too short to tell).  why: why the counter is not used ("" when it is). */
double cp_clock_tsc_hz(void);
int64_t cp_clock_drift_ppm(void);
const char *cp_clock_why_not_tsc(void);
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
