/*
 * An application for collprof-replay's exactness test (replay_test.sh), on
 * 4 ranks: each kind of call the replay must reproduce, a few times each.
 *   world      MPI_Alltoallv stencil (r-1, r+1, cyclic), twice per step
 *   world      MPI_Allgatherv with counts rank+1
 *   world      MPI_Gatherv to root 1, MPI_Bcast from root 2 (rooted)
 *   world      MPI_Ialltoallv with counts changing every step (non-blocking)
 *   halves     MPI_Alltoallv irregular, on ranks {0,2} and {1,3} (a split)
 *   inter      MPI_Alltoallv between the halves (an intercommunicator), and
 *              rooted: MPI_Bcast from the odd half's rank 0, MPI_Gather to
 *              the even half's rank 0
 *   grid       MPI_Neighbor_alltoallv on a 2 x 2 Cartesian grid, not
 *              periodic (borders: MPI_PROC_NULL neighbours)
 * Every rank checks what it received: the data are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

#define STEPS 3

static int nerrors;

static void check(int got, int want, const char *what)
{
    if (got != want && nerrors++ < 5)
        fprintf(stderr, "replay_app: %s: got %d, expected %d\n", what, got, want);
}

/* counts[i] towards peer i; data: value sender*1000+peer. */
static void alltoallv(MPI_Comm comm, const int *sc, const int *rc, int inter, int nonblocking)
{
    int n, me;
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int sd[64], rd[64], ns = 0, nr = 0;
    for (int i = 0; i < n; i++) {
        sd[i] = ns;
        rd[i] = nr;
        ns += sc[i];
        nr += rc[i];
    }
    int *sb = malloc(((size_t)ns + 1) * sizeof *sb), *rb = malloc(((size_t)nr + 1) * sizeof *rb);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < sc[i]; k++)
            sb[sd[i] + k] = me * 1000 + i;
    if (nonblocking) {
        MPI_Request req;
        MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm);
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < rc[i]; k++)
            check(rb[rd[i] + k], i * 1000 + me, "Alltoallv data");
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 4) {
        if (rank == 0)
            fprintf(stderr, "replay_app: run on 4 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
    MPI_Comm grid;
    int dims[2] = {2, 2}, periods[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    for (int step = 0; step < STEPS; step++) {
        int sc[4] = {0}, rc[4] = {0};
        /* stencil: 2 to each neighbour */
        sc[(rank + 1) % 4] = sc[(rank + 3) % 4] = 2;
        rc[(rank + 1) % 4] = rc[(rank + 3) % 4] = 2;
        alltoallv(MPI_COMM_WORLD, sc, rc, 0, 0);
        alltoallv(MPI_COMM_WORLD, sc, rc, 0, 0);
        /* Allgatherv: rank r gives r + 1 */
        int rcv[4], dsp[4], all[10], mine[4] = {rank, rank, rank, rank};
        for (int i = 0, d = 0; i < 4; d += i + 1, i++) {
            rcv[i] = i + 1;
            dsp[i] = d;
        }
        MPI_Allgatherv(mine, rank + 1, MPI_INT, all, rcv, dsp, MPI_INT, MPI_COMM_WORLD);
        check(all[9], 3, "Allgatherv data");
        /* rooted */
        MPI_Gatherv(mine, rank + 1, MPI_INT, all, rcv, dsp, MPI_INT, 1, MPI_COMM_WORLD);
        double b[3] = {rank, rank, rank};
        MPI_Bcast(b, 3, MPI_DOUBLE, 2, MPI_COMM_WORLD);
        check((int)b[0], 2, "Bcast data");
        /* non-blocking, counts changing every step: rank r to p sends (r+p+step)%3 */
        for (int p = 0; p < 4; p++) {
            sc[p] = (rank + p + step) % 3;
            rc[p] = (p + rank + step) % 3;
        }
        alltoallv(MPI_COMM_WORLD, sc, rc, 0, 1);
        /* irregular on the halves: to half-rank p, 1 + (me + 2p) % 3 */
        int hme, hs[2], hr[2];
        MPI_Comm_rank(half, &hme);
        for (int p = 0; p < 2; p++) {
            hs[p] = 1 + (hme + 2 * p) % 3;
            hr[p] = 1 + (p + 2 * hme) % 3;
        }
        alltoallv(half, hs, hr, 0, 0);
        /* intercommunicator: to remote rank p, 1 + p + side */
        for (int p = 0; p < 2; p++) {
            hs[p] = 1 + p + rank % 2;
            hr[p] = 1 + hme + (1 - rank % 2);
        }
        alltoallv(inter, hs, hr, 1, 0);
        int odd = rank % 2, v[4] = {rank, rank, rank, rank}, g[8] = {0};
        MPI_Bcast(v, 3, MPI_INT, odd ? (hme == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
        if (!odd)
            check(v[0], 1, "intercommunicator Bcast data");
        MPI_Gather(v, 2, MPI_INT, g, 2, MPI_INT, odd ? 0 : (hme == 0 ? MPI_ROOT : MPI_PROC_NULL),
                   inter);
        if (rank == 0)
            check(g[2], 3, "intercommunicator Gather data");
        /* grid: to neighbour k (down0, up0, down1, up1), 1 + k + rank */
        int gs[4], gr[4], gsd[4], grd[4], gsb[40], grb[40], nbr[4];
        for (int d = 0; d < 2; d++)
            MPI_Cart_shift(grid, d, 1, &nbr[2 * d], &nbr[2 * d + 1]);
        for (int k = 0, o = 0; k < 4; o += gs[k], k++) {
            gs[k] = 1 + k + rank;
            gsd[k] = o;
            for (int j = 0; j < gs[k]; j++)
                gsb[o + j] = rank;
        }
        for (int k = 0, o = 0; k < 4; o += gr[k], k++) {
            /* neighbour k of mine sends to me as its neighbour k^1 */
            gr[k] = nbr[k] == MPI_PROC_NULL ? 0 : 1 + (k ^ 1) + nbr[k];
            grd[k] = o;
        }
        MPI_Neighbor_alltoallv(gsb, gs, gsd, MPI_INT, grb, gr, grd, MPI_INT, grid);
        for (int k = 0; k < 4; k++)
            if (gr[k])
                check(grb[grd[k]], nbr[k], "Neighbor_alltoallv data");
    }
    MPI_Comm_free(&grid);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    int bad = 0;
    MPI_Allreduce(&nerrors, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("replay_app: 4 ranks, %d steps: %s\n", STEPS, bad ? "WRONG DATA" : "all data correct");
    MPI_Finalize();
    return bad ? 1 : 0;
}
