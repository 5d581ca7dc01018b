/*
 * One rank's clock as finalize reads it: what the clock module measured
 * (lib/clock.c), handed to the stages as a value, so that turning stamps
 * into seconds and aligning them to world rank 0 is a function of this
 * record alone.  No MPI, no clock of its own.
 */
#ifndef COLLPROF_TIME_LINE_H
#define COLLPROF_TIME_LINE_H

#include <stdbool.h>
#include <stdint.h>

/* An offset to add to this rank's clock to reach world rank 0's time line
 * ("seconds from the run's start"), measured at this rank's time `at`. */
typedef struct cp_clock_offset {
    bool have;
    double at, offset;
} cp_clock_offset;

typedef struct cp_time_line {
    double tick;    /* seconds of one tick: over the run when it was long
                       enough to know the rate better, else the calibration */
    uint64_t origin;/* the clock's own count at tick 0: calls keep the low
                       56 bits of their stamps as the clock gave them, and
                       ticks are counted from here modulo 2^56 */
    double clock0;  /* this rank's clock (seconds) at tick 0 */
    double start;   /* this rank's clock when collprof started */
    double end;     /* ... when it stopped recording (finalize, or the
                       partial profile) */
    cp_clock_offset to_rank0[2]; /* measured at start, and at the end */
    /* How calls were stamped: the time-stamp counter, its rate calibrated
     * at start (Hz) and the run's rate against it (ppm, 0 when the run was
     * too short to tell), or why it was not used. */
    bool tsc;
    double tsc_hz;
    int64_t drift_ppm;
    char why_not_tsc[128];
} cp_time_line;

/* The largest relative difference between the counter's rate over the run
 * and its calibration at start that is taken as measurement error (parts
 * per million).  Beyond it the counter did not tick evenly (a CPU or
 * hypervisor that changes its rate): said once, and recorded. */
#define CP_CLOCK_DRIFT_BOUND_PPM 5000

/* Ticks since tick 0 as seconds on this rank's clock. */
double cp_time_line_seconds(const cp_time_line *tl, double ticks);
/* t (this rank's clock) on world rank 0's time line: the offset
 * interpolated linearly between its two measurements (clocks drift); one
 * measurement: that one; none: seconds since this rank started. */
double cp_time_line_align(const cp_time_line *tl, double t);

#endif
