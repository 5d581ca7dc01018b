/*
 * A deliberately late rank at a known line, for the findings of `collprof
 * summary` (robustness.sh, case late-rank).  On every rank, exchange()
 * makes 10 MPI_Alltoallv calls on MPI_COMM_WORLD at one line; the last rank
 * sleeps DELAY before each, so the others wait for it there.  tidy() makes
 * 10 quick MPI_Allreduce calls elsewhere.  Rank 0 prints the line of the
 * late call and the delay, for the check to compare with the findings:
 *   late-rank: line N delay SECONDS ranks P
 * usage: test_late_rank [DELAY]   (seconds, default 0.05)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <mpi.h>

#define CALLS 10

static int late_line;
static double delay = 0.05;
/* A loop bound the compiler cannot see: an unrolled loop would be several
 * call sites. */
static volatile int calls = CALLS;

static void sleep_for(double s)
{
    struct timespec ts = {0, (long)(s * 1e9)};
    nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void exchange(int rank, int n)
{
    int *sc = malloc((size_t)n * sizeof *sc), *sd = malloc((size_t)n * sizeof *sd);
    int *buf = malloc((size_t)n * 4 * sizeof *buf), *rbuf = malloc((size_t)n * 4 * sizeof *rbuf);
    for (int i = 0; i < n; i++) {
        sc[i] = 1 + (i + rank) % 3;
        sd[i] = 4 * i;
        buf[4 * i] = rank;
    }
    /* Receive counts: what peer i sends to this rank. */
    int *rc = malloc((size_t)n * sizeof *rc);
    for (int i = 0; i < n; i++)
        rc[i] = 1 + (rank + i) % 3;
    for (int k = 0; k < calls; k++) {
        if (rank == n - 1)
            sleep_for(delay);
        late_line = __LINE__ + 1;
        MPI_Alltoallv(buf, sc, sd, MPI_INT, rbuf, rc, sd, MPI_INT, MPI_COMM_WORLD);
    }
    free(sc);
    free(sd);
    free(rc);
    free(buf);
    free(rbuf);
}

__attribute__((noinline)) static void tidy(void)
{
    int in = 1, out = 0;
    for (int k = 0; k < calls; k++)
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    if (argc > 1)
        delay = atof(argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    exchange(rank, n);
    tidy();
    if (rank == 0)
        printf("late-rank: line %d delay %g ranks %d\n", late_line, delay, n);
    MPI_Finalize();
    return 0;
}
