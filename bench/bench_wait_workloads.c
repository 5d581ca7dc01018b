/*
 * Workloads whose waiting is known once the run kept every call: what
 * bench/estimate_coverage.sh profiles, then samples offline
 * (bench_estimate.c).  2 ranks or more; rank 1 arrives late:
 *   steady    MPI_Alltoallv of 256 ints per peer, late by 0 to 20 us (uniform) in every call;
 *   heavy     MPI_Barrier, late by 4 ms in one call in 200 at random (heavy-tailed waits);
 *   bursty    MPI_Allreduce of 64 doubles, late by 1 ms in 100 calls in a row, every 5,000 calls;
 *   periodic  MPI_Alltoallv of 16 ints per peer, late by 500 us every 64th call (a period
 *             that lines up with the sampler's blocks of 2^k calls).
 *
 * usage: bench_wait_workloads MODE NCALLS SEED
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void late_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (us > 100) {
        struct timespec ts = {0, (us - 50) * 1000};
        nanosleep(&ts, NULL);
    }
    do /* the rest spun: a sleep overshoots by tens of microseconds */
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "steady";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    srand(seed);
    int per = !strcmp(mode, "steady") ? 256 : 16;
    int *cnt = malloc(size * sizeof *cnt), *dsp = malloc(size * sizeof *dsp);
    int *sb = calloc((size_t)size * per, sizeof *sb), *rb = calloc((size_t)size * per, sizeof *rb);
    double in[64] = {0}, out[64];
    for (int p = 0; p < size; p++)
        cnt[p] = per, dsp[p] = p * per;
    for (long c = 0; c < n; c++) {
        long us = 0;
        int r = rand();
        if (!strcmp(mode, "steady"))
            us = r % 21;
        else if (!strcmp(mode, "heavy"))
            us = r % 200 == 0 ? 4000 : 0;
        else if (!strcmp(mode, "bursty"))
            us = c % 5000 < 100 ? 1000 : 0;
        else
            us = c % 64 == 0 ? 500 : 0;
        if (rank == 1 && us)
            late_us(us);
        if (!strcmp(mode, "heavy"))
            MPI_Barrier(MPI_COMM_WORLD);
        else if (!strcmp(mode, "bursty"))
            MPI_Allreduce(in, out, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    }
    free(cnt), free(dsp), free(sb), free(rb);
    MPI_Finalize();
    return 0;
}
