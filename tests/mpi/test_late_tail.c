/*
 * A long run whose waiting sits in its tail: NCALLS MPI_Alltoallv of one
 * int per peer on MPI_COMM_WORLD, 2 ranks, rank 1 arriving LATE_US
 * microseconds late (spun) in each of the last NLATE calls only.  The
 * sample of calls must estimate the run's waiting (robustness.sh, case
 * late-tail), and the program measures that waiting itself, exactly, to
 * hold the estimate against: both ranks stamp CLOCK_MONOTONIC (one clock on
 * one node) right before and right after each call, rank 1 sends its
 * stamps to rank 0 at the end (point-to-point: not profiled), and rank 0
 * applies the definitions of model/wait_states.c to every call (the wait
 * for the last rank to enter, the completion after the first rank left,
 * never beyond the waiting rank's own exit, the two together never longer
 * than the call).  It prints
 *   test_late_tail: exact waiting W s, time in the calls T s, N calls
 * The stamps lie outside collprof's own (the wrapper's work between them):
 * robustness.sh allows for that, per call.
 *
 * usage: test_late_tail NCALLS NLATE LATE_US
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Late by exactly us microseconds: spun, not slept (a sleep overshoots by
 * tens of microseconds, differently in every run). */
static void late_us(long us)
{
    double until = now() + 1e-6 * (double)us;
    while (now() < until)
        ;
}

static double min(double a, double b)
{
    return a < b ? a : b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long ncalls = argc > 1 ? atol(argv[1]) : 300000, nlate = argc > 2 ? atol(argv[2]) : 300,
         late = argc > 3 ? atol(argv[3]) : 5000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = malloc(size * sizeof *sc), *sd = malloc(size * sizeof *sd);
    int *sb = malloc(size * sizeof *sb), *rb = malloc(size * sizeof *rb);
    double *st = malloc(2 * (size_t)ncalls * sizeof *st); /* enter, exit of each call */
    if (!sc || !sd || !sb || !rb || !st || size != 2) {
        fprintf(stderr, "test_late_tail: 2 ranks and memory for the stamps, please\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int p = 0; p < size; p++)
        sc[p] = 1, sd[p] = p, sb[p] = rank;
    for (long c = 0; c < ncalls; c++) {
        if (rank == 1 && c >= ncalls - nlate)
            late_us(late);
        st[2 * c] = now();
        MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, sc, sd, MPI_INT, MPI_COMM_WORLD);
        st[2 * c + 1] = now();
    }
    if (rank == 1) {
        MPI_Send(st, (int)(2 * ncalls), MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    } else {
        double *o = malloc(2 * (size_t)ncalls * sizeof *o);
        MPI_Recv(o, (int)(2 * ncalls), MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double wait = 0, time = 0;
        for (long c = 0; c < ncalls; c++) {
            double e[2] = {st[2 * c], o[2 * c]}, x[2] = {st[2 * c + 1], o[2 * c + 1]};
            double last_in = e[0] > e[1] ? e[0] : e[1], first_out = min(x[0], x[1]);
            for (int r = 0; r < 2; r++) {
                double w = min(last_in, x[r]) - e[r];
                w = w > 0 ? w : 0;
                double done = x[r] > first_out ? x[r] - first_out : 0, room = x[r] - e[r] - w;
                wait += w + (done < room ? done : room > 0 ? room : 0);
                time += x[r] - e[r];
            }
        }
        printf("test_late_tail: exact waiting %.6f s, time in the calls %.6f s, %ld calls, "
               "rank 1 late by %ld us in the last %ld\n",
               wait, time, ncalls, late, nlate);
        free(o);
    }
    free(sc), free(sd), free(sb), free(rb), free(st);
    MPI_Finalize();
    return 0;
}
