/* Clocks and their alignment to world rank 0 (see clock.h). */
#include "clock.h"
#include "transport.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

time_t cp_clock_base;
bool cp_clock_tsc;
uint64_t cp_clock_origin;
static double start;          /* this rank's clock at start */
/* (stamp, clock) at start and at the final measurement: the stamp's rate. */
static double stamp0, clock0, stamp1, clock1;

/* Offset to add to this rank's clock: at start, and at the end. */
static cp_clock_offset sample[2];

static MPI_Comm node_comm = MPI_COMM_NULL, leaders = MPI_COMM_NULL;

#define PINGS 10
#define TAG_CLOCK 0x636c

const char *const cp_clock_mode_names[CP_CLOCK_NMODES] = {"auto", "tsc", "monotonic"};

static double tsc_hz;       /* calibrated at start; 0 without the counter */
static int64_t drift_ppm;   /* the run's rate against it (final measurement) */
static char why_not[128];

/* Does the CPU say its time-stamp counter is invariant?  The kernel lists
 * what CPUID says in the flags of /proc/cpuinfo: constant_tsc (the counter
 * ticks at a constant rate whatever the core's frequency) and nonstop_tsc
 * (it keeps ticking in deep sleep states).  The kernel's own clock source
 * does not matter: on most VMs it is kvm-clock although the counter is
 * invariant. */
static bool cpu_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[8192];
    bool constant = false, nonstop = false, seen = false;
    while (!seen && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        seen = true; /* every core lists the same flags: the first will do */
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
            constant |= !strcmp(tok, "constant_tsc");
            nonstop |= !strcmp(tok, "nonstop_tsc");
        }
    }
    fclose(f);
    return constant && nonstop;
#else
    return false;
#endif
}

/* A (counter, clock) pair read as close together as possible: the counter
 * is read on both sides of the clock and the pair with the shortest gap of
 * three kept. */
static void read_pair(double *stamp, double *clock)
{
    double best = -1;
    for (int i = 0; i < 3; i++) {
        double a = (double)cp_clock_ticks(), c = cp_clock_now(), b = (double)cp_clock_ticks();
        if (best < 0 || b - a < best) {
            best = b - a;
            *stamp = 0.5 * (a + b);
            *clock = c;
        }
    }
}

/* The counter's rate over a few milliseconds of busy waiting on the
 * monotonic clock; 0 when it does not look like a clock at all. */
static double calibrate(void)
{
    double s0, c0, s1, c1;
    read_pair(&s0, &c0);
    do
        read_pair(&s1, &c1);
    while (c1 - c0 < 0.004);
    double hz = (s1 - s0) / (c1 - c0);
    return hz > 1e7 && hz < 1e11 ? hz : 0;
}

void cp_clock_start(int mode)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cp_clock_base = ts.tv_sec;
    cp_clock_tsc = false;
    tsc_hz = 0;
    drift_ppm = 0;
    why_not[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    if (mode == CP_CLOCK_MONOTONIC)
        snprintf(why_not, sizeof why_not, "COLLPROF_CLOCK=monotonic");
    else if (mode == CP_CLOCK_AUTO && !cpu_invariant_tsc())
        snprintf(why_not, sizeof why_not,
                 "the CPU does not say its time-stamp counter is invariant "
                 "(constant_tsc and nonstop_tsc)");
    else {
        cp_clock_tsc = true; /* cp_clock_ticks reads the counter while calibrating */
        if ((tsc_hz = calibrate()) == 0)
            snprintf(why_not, sizeof why_not, "the time-stamp counter failed its calibration");
    }
    cp_clock_tsc = tsc_hz > 0;
#else
    (void)mode;
    snprintf(why_not, sizeof why_not, "no time-stamp counter on this architecture");
#endif
    start = cp_clock_now();
    read_pair(&stamp0, &clock0);
    cp_clock_origin = (uint64_t)stamp0;
    stamp0 = (double)cp_clock_origin;
}

/* The counter's rate: over the whole run when it lasted long enough for the
 * rate to be known better than the calibration's, else the calibration;
 * nanoseconds without the counter. */
static double run_hz(void)
{
    if (!cp_clock_tsc)
        return 1e9;
    if (clock1 - clock0 >= 0.5 && stamp1 > stamp0)
        return (stamp1 - stamp0) / (clock1 - clock0);
    return tsc_hz;
}

/* The communicators of the measurement: the ranks of this host, and one
 * rank per host (the lowest), whose order numbers the hosts. */
static int group_by_host(cp_location *loc)
{
    int wrank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm by_hash;
    if (PMPI_Comm_split(MPI_COMM_WORLD, cp_location_host_color(loc), wrank, &by_hash))
        return -1;
    /* Two host names may share a hash: split again by the first rank of
     * this group with the very same name (groups are a node's ranks: small). */
    int nrank, nsize;
    PMPI_Comm_rank(by_hash, &nrank);
    PMPI_Comm_size(by_hash, &nsize);
    char *names = malloc((size_t)nsize * sizeof loc->hostname);
    int same = nrank;
    if (names && cp_tp_allgather(loc->hostname, (int)sizeof loc->hostname, MPI_CHAR, names,
                                (int)sizeof loc->hostname, MPI_CHAR, by_hash) == MPI_SUCCESS)
        for (int r = 0; r < nsize; r++)
            if (!strncmp(names + (size_t)r * sizeof loc->hostname, loc->hostname,
                         sizeof loc->hostname)) {
                same = r;
                break;
            }
    free(names);
    int rc = PMPI_Comm_split(by_hash, same, nrank, &node_comm);
    PMPI_Comm_free(&by_hash);
    if (rc)
        return -1;
    PMPI_Comm_rank(node_comm, &nrank);
    if (PMPI_Comm_split(MPI_COMM_WORLD, nrank == 0 ? 0 : MPI_UNDEFINED, wrank, &leaders))
        return -1;
    int node = 0;
    if (leaders != MPI_COMM_NULL)
        PMPI_Comm_rank(leaders, &node);
    cp_tp_bcast(&node, 1, MPI_INT, 0, node_comm);
    loc->node = (uint32_t)node;
    return 0;
}

/* Leaders: offset of this clock to rank 0's "seconds from the run's start",
 * from the ping-pong with the shortest round trip. */
static double offset_to_rank0(void)
{
    int lrank, nleaders;
    PMPI_Comm_rank(leaders, &lrank);
    PMPI_Comm_size(leaders, &nleaders);
    if (lrank == 0) {
        for (int i = 1; i < nleaders; i++)
            for (int k = 0; k < PINGS; k++) {
                char ping;
                PMPI_Recv(&ping, 1, MPI_CHAR, i, TAG_CLOCK, leaders, MPI_STATUS_IGNORE);
                double t0 = cp_clock_now() - start;
                PMPI_Send(&t0, 1, MPI_DOUBLE, i, TAG_CLOCK, leaders);
            }
        return -start;
    }
    double best = DBL_MAX, offset = 0;
    for (int k = 0; k < PINGS; k++) {
        char ping = 0;
        double t0 = 0, t1 = cp_clock_now();
        PMPI_Send(&ping, 1, MPI_CHAR, 0, TAG_CLOCK, leaders);
        PMPI_Recv(&t0, 1, MPI_DOUBLE, 0, TAG_CLOCK, leaders, MPI_STATUS_IGNORE);
        double t2 = cp_clock_now();
        if (t2 - t1 < best) {
            best = t2 - t1;
            offset = t0 - 0.5 * (t1 + t2);
        }
    }
    return offset;
}

int cp_clock_measure(cp_location *loc, bool final)
{
    if (final) {
        read_pair(&stamp1, &clock1);
        if (cp_clock_tsc && clock1 - clock0 >= 0.5)
            drift_ppm = (int64_t)((run_hz() / tsc_hz - 1) * 1e6);
    }
    if (node_comm == MPI_COMM_NULL && group_by_host(loc))
        return -1;
    /* The host's offset travels as an offset of the raw monotonic clock:
     * each rank's own zero (cp_clock_base) differs. */
    double raw = 0;
    if (leaders != MPI_COMM_NULL)
        raw = offset_to_rank0() - (double)cp_clock_base;
    cp_tp_bcast(&raw, 1, MPI_DOUBLE, 0, node_comm);
    sample[final].have = true;
    sample[final].at = cp_clock_now();
    sample[final].offset = raw + (double)cp_clock_base;
    if (final) {
        PMPI_Comm_free(&node_comm);
        if (leaders != MPI_COMM_NULL)
            PMPI_Comm_free(&leaders);
    }
    return 0;
}

void cp_clock_read(double end, cp_time_line *out)
{
    *out = (cp_time_line){.tick = 1 / run_hz(), .origin = cp_clock_origin, .clock0 = clock0,
                          .start = start, .end = end,
                          .tsc = cp_clock_tsc, .tsc_hz = tsc_hz, .drift_ppm = drift_ppm};
    out->to_rank0[0] = sample[0];
    out->to_rank0[1] = sample[1];
    snprintf(out->why_not_tsc, sizeof out->why_not_tsc, "%s", why_not);
}
