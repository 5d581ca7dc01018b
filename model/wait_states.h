/*
 * Wait-state patterns with Scalasca's semantics, computed post mortem from
 * the enter and exit times of every rank in one call (no MPI here: the
 * runtime's lead ranks and the reader both use it).
 *
 * An instance is one rank's wait in one call; its severity is the waiting
 * time in seconds (0: no instance).  Families:
 *  - N x N (Alltoall*, Allgather*, Allreduce, Reduce_scatter*): a rank waits
 *    from its entry until the last rank enters (mpi_wait_nxn), and after the
 *    first rank has left it spends exit - first exit completing
 *    (mpi_nxn_completion);
 *  - Barrier: the same, as mpi_barrier_wait and mpi_barrier_completion;
 *  - 1 -> N (Bcast, Scatter, Scatterv): a rank other than the root that
 *    enters before the root waits for it (mpi_latebroadcast);
 *  - N -> 1 (Reduce, Gather, Gatherv): the root entering before the last
 *    other rank waits for it (mpi_earlyreduce);
 *  - Scan, Exscan: rank r waits until the last of ranks 0..r-1 has entered
 *    (mpi_earlyscan).
 * A wait never lasts beyond the waiting rank's own exit.  Neighbourhood
 * collectives and intercommunicators have no pattern.
 */
#ifndef COLLPROF_WAIT_STATES_H
#define COLLPROF_WAIT_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cp_wait_pattern {
    CP_WAIT_NXN = 0,
    CP_NXN_COMPLETION,
    CP_BARRIER_WAIT,
    CP_BARRIER_COMPLETION,
    CP_LATE_BROADCAST,
    CP_EARLY_REDUCE,
    CP_EARLY_SCAN,
    CP_NWAIT_PATTERNS
};

enum cp_wait_family {
    CP_FAMILY_NONE = 0,
    CP_FAMILY_NXN,
    CP_FAMILY_BARRIER,
    CP_FAMILY_ONE_TO_N,
    CP_FAMILY_N_TO_ONE,
    CP_FAMILY_SCAN
};

/* The Cube metric of each pattern: unique name, display name, description. */
typedef struct cp_wait_metric {
    const char *uniq_name, *disp_name, *descr;
} cp_wait_metric;
extern const cp_wait_metric cp_wait_metrics[CP_NWAIT_PATTERNS];

/* Waiting from `from` until `until`, never past the waiting rank's own
 * exit: the one rule of every pattern. */
static inline double cp_wait_until(double from, double until, double exit)
{
    if (until > exit)
        until = exit;
    return until > from ? until - from : 0;
}

/* The second pattern of a call (completion after the first rank left)
 * never makes one rank's waiting in the call longer than the call: a wait
 * and a completion that overlap (clocks of two nodes a little apart) are
 * counted once.  `first` is the first pattern's severity. */
static inline double cp_wait_completion(double enter, double exit, double first_out, double first)
{
    double c = exit > first_out ? exit - first_out : 0, room = exit - enter - first;
    return c < room ? c : room > 0 ? room : 0;
}

/* ---- Whole-run estimates from a sample of calls ----
 *
 * A stratum is one rank's timed calls of one call site (collective, form,
 * call path) of a series.  Of its calls the sample analysed some: their
 * waiting y (every pattern together) and their time in the call x (exit -
 * start) are known; the exact time t of all its timed calls is known from
 * the aggregates.  The estimate of the stratum's waiting is the sample's
 * waiting per second in the call times the exact time: y / x * t (a ratio
 * estimator).  Waiting lies within the call in passive timing, so y <= x
 * and the estimate never exceeds t; the factor is also capped at t / y so
 * that rounding cannot make it do so.  In barrier mode the late arrival
 * lies outside the time in the call by definition: no cap.  When the
 * sample holds every timed call of the stratum, the waiting is exact
 * (factor 1).  Finalize (profile.cubex, profile.stat) and the reader
 * (timings.cpt) use this one function, per stratum, so that their numbers
 * agree. */
static inline double cp_wait_factor(double x, double y, double t, bool every, bool bounded)
{
    if (every)
        return 1;
    if (!(x > 0) || !(t > 0))
        return 0; /* no sampled time here: no waiting can be estimated */
    double f = t / x;
    if (bounded && y * f > t)
        f = t / y;
    return f;
}

/* The family of a collective, by its name ("Alltoallv"; case-insensitive). */
int cp_wait_family(const char *collective);

/* The (at most two) patterns of a family; -1 where there is none. */
void cp_wait_family_patterns(int family, int pattern[2]);

/* One call on n ranks (communicator-local order): enter[r], exit[r], the
 * communicator-local root (rooted families).  Fills sev[0][r] and sev[1][r]
 * with the severity of the family's first and second pattern (0 where a rank
 * has none).  sev rows have n entries each. */
void cp_wait_states_call(int family, size_t n, const double *enter, const double *exit,
                         int64_t root, double *sev0, double *sev1);

/* One rank's timed calls of one (communicator, collective), in call order:
 * call index, enter and exit, root, flags (NULL, or CP_CPT_NONBLOCKING in
 * bit 0: such calls have no wait states). */
typedef struct cp_wait_member {
    const uint64_t *call;
    const double *enter, *exit;
    const int32_t *root;
    const uint8_t *flags;
    size_t n;
} cp_wait_member;

/* Called for every instance found (severity > 0). */
typedef void (*cp_wait_sink)(void *ctx, int pattern, size_t member, uint64_t call,
                             double enter, double exit, double severity);

/* Every call that all n members timed (blocking) is analysed with the
 * collective's family.  Returns 0, or -1 when memory ran out. */
int cp_wait_states_series(const char *collective, size_t n, const cp_wait_member *m,
                          cp_wait_sink sink, void *ctx);

/* fmax and fmin of two stamps, inline: the compiler calls libm for those
 * (measured: 5 % of the scale simulator's time).  As there, a NaN loses to
 * a number.  Written so that no branch is taken on the stamps: the
 * comparison becomes maxsd/minsd and the NaN test a mask (a branch on
 * stamps in no order mispredicted half the time: 15 % of the simulator). */
static inline double cp_wmax(double a, double b)
{
    double m = b > a ? b : a;
    return a != a ? b : m;
}

static inline double cp_wmin(double a, double b)
{
    double m = b < a ? b : a;
    return a != a ? b : m;
}

#endif
