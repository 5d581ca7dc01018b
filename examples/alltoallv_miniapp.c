/*
 * alltoallv_miniapp: an irregular all-to-all exchange, the pattern collprof
 * is built to profile.
 *
 * Phase 1 ("halo"), on MPI_COMM_WORLD: the same irregular pattern repeated
 * many times (rank r sends r+p+1 ints to each peer p... except itself).
 * Phase 2 ("rebalance"), on two sub-communicators from MPI_Comm_split (even
 * and odd ranks): a pattern that changes every iteration, as a load
 * balancer's would.  Every rank checks what it received, so the profiler
 * can be seen not to change the results.
 *
 * usage: alltoallv_miniapp [halo_iterations] [rebalance_iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* How many ints `from` sends to `to` in iteration `it` (0 for the halo). */
static int amount(int from, int to, int it, int size)
{
    if (from == to)
        return 0;
    return 1 + (from + 2 * to + it) % (size + 1);
}

static int exchange(MPI_Comm comm, int it)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(size * sizeof *sc), *rc = malloc(size * sizeof *rc);
    int *sd = malloc(size * sizeof *sd), *rd = malloc(size * sizeof *rd);
    int ns = 0, nr = 0;
    for (int p = 0; p < size; p++) {
        sc[p] = amount(rank, p, it, size);
        rc[p] = amount(p, rank, it, size);
        sd[p] = ns;
        rd[p] = nr;
        ns += sc[p];
        nr += rc[p];
    }
    int *sbuf = malloc((ns + 1) * sizeof *sbuf), *rbuf = malloc((nr + 1) * sizeof *rbuf);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            sbuf[sd[p] + i] = rank * 1000 + p;
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm);
    int bad = 0;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < rc[p]; i++)
            bad |= rbuf[rd[p] + i] != p * 1000 + rank;
    free(sc), free(rc), free(sd), free(rd), free(sbuf), free(rbuf);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int halo = argc > 1 ? atoi(argv[1]) : 100;
    int rebalance = argc > 2 ? atoi(argv[2]) : 10;
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int it = 0; it < halo; it++)
        bad |= exchange(MPI_COMM_WORLD, 0);

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    for (int it = 0; it < rebalance; it++)
        bad |= exchange(half, it + 1);
    MPI_Comm_free(&half);

    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("alltoallv_miniapp: %d ranks, %d halo + %d rebalance exchanges: %s\n", size, halo,
               rebalance, anybad ? "WRONG DATA" : "all data correct");
    MPI_Finalize();
    return anybad;
}
