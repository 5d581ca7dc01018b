/* Clocks and their alignment to world rank 0 (see clock.h). */
#include "clock.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

time_t cp_clock_base;
bool cp_clock_tsc;
static double start;          /* this rank's clock at start */
/* (stamp, clock) at start and at the final measurement: the stamp's rate. */
static double stamp0, clock0, stamp1, clock1;

/* Offset to add to this rank's clock: measured at local time at[i]. */
static struct {
    bool have;
    double at, offset;
} sample[2];

static MPI_Comm node_comm = MPI_COMM_NULL, leaders = MPI_COMM_NULL;

#define PINGS 10
#define TAG_CLOCK 0x636c

/* The kernel's clock source is the TSC: the kernel found it invariant and
 * synchronised across cores. */
static bool tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    char name[32] = "";
    if (!f)
        return false;
    bool ok = fgets(name, sizeof name, f) && strncmp(name, "tsc", 3) == 0 &&
              (name[3] == '\n' || name[3] == '\0');
    fclose(f);
    return ok;
#else
    return false;
#endif
}

void cp_clock_start(bool allow_tsc)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cp_clock_base = ts.tv_sec;
    cp_clock_tsc = allow_tsc && tsc_usable();
    start = cp_clock_now();
    stamp0 = cp_clock_stamp();
    clock0 = cp_clock_now();
}

double cp_clock_stamp_seconds(double stamp)
{
    if (!cp_clock_tsc)
        return stamp;
    /* Too short a run to measure the rate: a stamp is then close to start. */
    if (!(stamp1 > stamp0))
        return clock0;
    return clock0 + (stamp - stamp0) * ((clock1 - clock0) / (stamp1 - stamp0));
}

double cp_clock_start_time(void)
{
    return start;
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
    if (names && PMPI_Allgather(loc->hostname, (int)sizeof loc->hostname, MPI_CHAR, names,
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
    PMPI_Bcast(&node, 1, MPI_INT, 0, node_comm);
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
        stamp1 = cp_clock_stamp();
        clock1 = cp_clock_now();
    }
    if (node_comm == MPI_COMM_NULL && group_by_host(loc))
        return -1;
    /* The host's offset travels as an offset of the raw monotonic clock:
     * each rank's own zero (cp_clock_base) differs. */
    double raw = 0;
    if (leaders != MPI_COMM_NULL)
        raw = offset_to_rank0() - (double)cp_clock_base;
    PMPI_Bcast(&raw, 1, MPI_DOUBLE, 0, node_comm);
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

double cp_clock_align(double t)
{
    if (sample[0].have && sample[1].have && sample[1].at > sample[0].at) {
        double w = (t - sample[0].at) / (sample[1].at - sample[0].at);
        return t + sample[0].offset + w * (sample[1].offset - sample[0].offset);
    }
    if (sample[1].have)
        return t + sample[1].offset;
    if (sample[0].have)
        return t + sample[0].offset;
    return t - start;
}
