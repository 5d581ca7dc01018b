/*
 * A long run whose waiting sits in its tail: NCALLS MPI_Alltoallv of one
 * int per peer on MPI_COMM_WORLD, rank 1 arriving LATE_US microseconds
 * late in each of the last NLATE calls only.  The waiting of the run is
 * about (ranks - 1) x NLATE x LATE_US; the sample of calls must estimate it
 * (robustness.sh, case late-tail).
 *
 * usage: test_late_tail NCALLS NLATE LATE_US
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long ncalls = argc > 1 ? atol(argv[1]) : 300000, nlate = argc > 2 ? atol(argv[2]) : 300,
         late_us = argc > 3 ? atol(argv[3]) : 5000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = malloc(size * sizeof *sc), *sd = malloc(size * sizeof *sd);
    int *sb = malloc(size * sizeof *sb), *rb = malloc(size * sizeof *rb);
    for (int p = 0; p < size; p++)
        sc[p] = 1, sd[p] = p, sb[p] = rank;
    for (long c = 0; c < ncalls; c++) {
        if (rank == 1 && c >= ncalls - nlate)
            sleep_us(late_us);
        MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, sc, sd, MPI_INT, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("test_late_tail: %ld calls, rank 1 late by %ld us in the last %ld\n", ncalls,
               late_us, nlate);
    free(sc), free(sd), free(sb), free(rb);
    MPI_Finalize();
    return 0;
}
