/*
 * skewed_alltoallv: an MPI_Alltoallv in which one rank sends most of the
 * data, the kind of pattern a library's decision tables, tuned on uniform
 * benchmarks, may serve badly (docs/replay.md, "Tuning").  Rank 0 sends
 * `big` doubles to every other rank, the others send `small` doubles to
 * every rank; repeated `iterations` times, and every rank checks what it
 * received.
 *
 * usage: skewed_alltoallv [iterations] [big] [small]   (default 50 65536 16)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* How many doubles `from` sends to `to`. */
static int amount(int from, int to, int big, int small)
{
    if (from == to)
        return 0;
    return from == 0 ? big : small;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iterations = argc > 1 ? atoi(argv[1]) : 50;
    int big = argc > 2 ? atoi(argv[2]) : 65536, small = argc > 3 ? atoi(argv[3]) : 16;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = malloc(size * sizeof *sc), *rc = malloc(size * sizeof *rc);
    int *sd = malloc(size * sizeof *sd), *rd = malloc(size * sizeof *rd);
    int ns = 0, nr = 0;
    for (int p = 0; p < size; p++) {
        sc[p] = amount(rank, p, big, small);
        rc[p] = amount(p, rank, big, small);
        sd[p] = ns;
        rd[p] = nr;
        ns += sc[p];
        nr += rc[p];
    }
    double *sbuf = malloc((ns ? ns : 1) * sizeof *sbuf), *rbuf = malloc((nr ? nr : 1) * sizeof *rbuf);
    int bad = 0;
    for (int it = 0; it < iterations; it++) {
        for (int p = 0; p < size; p++)
            for (int i = 0; i < sc[p]; i++)
                sbuf[sd[p] + i] = rank * 1e6 + p * 1e3 + it;
        MPI_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            for (int i = 0; i < rc[p]; i++)
                bad += rbuf[rd[p] + i] != p * 1e6 + rank * 1e3 + it;
    }
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("skewed_alltoallv: %d ranks, %d exchanges, rank 0 sends %d doubles to each: %s\n",
               size, iterations, big, all ? "WRONG DATA" : "all data correct");
    free(sbuf);
    free(rbuf);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    MPI_Finalize();
    return all != 0;
}
