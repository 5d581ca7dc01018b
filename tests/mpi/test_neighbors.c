/*
 * Neighbourhood collectives on
 *  - a distributed graph from MPI_Dist_graph_create_adjacent with UNEVEN
 *    degrees: edges 0->2, 0->1, 1->2: out-degrees 2, 1, 0, in-degrees 0, 1,
 *    2 (at 4 ranks also 3->1, 3->2: out 2, 1, 0, 2, in 0, 2, 3, 0); each
 *    rank lists its sources in the reverse order of the edges, so that the
 *    order matters;
 *  - a 1-D non-periodic Cartesian grid (MPI_Cart_create): every rank has
 *    two in- and two out-neighbours, [left, right], MPI_PROC_NULL (-1) at
 *    the ends (its counts towards them are still in its rows);
 *  - a graph (MPI_Graph_create), a star around rank 0 listed as 0: n-1 .. 1,
 *    r: 0 (its neighbours are its sources and its destinations);
 *  - a distributed graph from MPI_Dist_graph_create, each rank giving the
 *    edges r -> r+1 and, on rank 0, also n-1 -> 1: the order of the
 *    neighbours is MPI's (MPI_Dist_graph_neighbors, gathered on every rank
 *    with PMPI_Allgather, which collprof does not see);
 *  - duplicates of the first two (MPI_Comm_dup keeps the topology; collprof
 *    copies a duplicate's neighbours from its parent): the same rows.
 * Rows: Neighbor_allgather / Neighbor_alltoall [sendcount] / [recvcount];
 * Neighbor_allgatherv [sendcount] / recvcounts (in-degree values);
 * Neighbor_alltoallv sendcounts (out-degree values) / recvcounts (in-degree
 * values); Neighbor_alltoallw the same in bytes (MPI_INT or MPI_DOUBLE per
 * edge).  A rank of degree 0 has a row of no counts.  The manifest lists
 * every rank's neighbours (sources and destinations, communicator ranks, -1
 * for MPI_PROC_NULL).  Counts per colls.h; checked on rank 0 (cpt_verify,
 * with cp_profile_check).
 *
 * Graph: Neighbor_allgather 0 count 2; Neighbor_allgatherv 0 seed 0;
 *   Neighbor_alltoall 0 count 1 (non-blocking); Neighbor_alltoallv 0 seed 0,
 *   1 seed 1 (large-count), 2 seed 0 (same matrix as 0);
 *   Neighbor_alltoallw 0 seed 1 (large-count), 1 seed 2 (non-blocking
 *   large-count).
 * Grid: Neighbor_alltoallv 0 seed 2; Neighbor_allgather 0 count 1;
 *   Neighbor_alltoallw 0 seed 0.
 * Star: Neighbor_alltoallv 0 seed 3; Neighbor_alltoallw 0 seed 4.
 * Dist graph (not adjacent): Neighbor_alltoallv 0 seed 5 (large-count),
 *   Neighbor_allgatherv 0 seed 6.
 *
 * MPICH 4.0.2's int-count MPI_(I)Neighbor_alltoallw binding swaps in- and
 * out-degree when it converts the count arrays (pmodels/mpich#6233, fixed by
 * pmodels/mpich#6250): wrong data, or a hang, when the degrees differ.  So
 * on the graph, whose degrees differ, Neighbor_alltoallw is called in its
 * _c forms only; the int form is called on the grid (equal degrees).
 */
/* Open MPI's MPI_UNWEIGHTED points to an empty object: gcc takes it for an
 * array of no elements passed where MPI reads none either. */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include "colls.h"

/* The neighbours the test expects of the dist graph g (edges above) and of
 * the 1-D grid c (left, right; -1 past the ends), on every rank. */
static void expect_neighbors(cpt_comm *g, cpt_comm *c, int n, const int *indeg,
                             int src[][CPT_MAXRANKS], const int *outdeg, int dst[][CPT_MAXRANKS])
{
    for (int r = 0; r < n; r++) {
        cpt_comm_set_neighbors(g, r, indeg[r], src[r], outdeg[r], dst[r]);
        int lr[2] = {r > 0 ? r - 1 : -1, r < n - 1 ? r + 1 : -1};
        cpt_comm_set_neighbors(c, r, 2, lr, 2, lr);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("neighbors");
    int n = cpt_world_size(), me = cpt_world_rank(), all[CPT_MAXRANKS];
    if (n < 3 || n > 4)
        cpt_die("3 or 4 ranks");
    for (int i = 0; i < n; i++)
        all[i] = i;
    static const int edges[][2] = {{0, 2}, {0, 1}, {1, 2}, {3, 1}, {3, 2}};
    int nedges = n == 3 ? 3 : 5;
    int indeg[CPT_MAXRANKS] = {0}, outdeg[CPT_MAXRANKS] = {0};
    int src[CPT_MAXRANKS][CPT_MAXRANKS], dst[CPT_MAXRANKS][CPT_MAXRANKS];
    for (int e = 0; e < nedges; e++) {
        int a = edges[e][0];
        dst[a][outdeg[a]++] = edges[e][1];
    }
    for (int e = nedges - 1; e >= 0; e--) {
        int b = edges[e][1];
        src[b][indeg[b]++] = edges[e][0];
    }
    MPI_Comm graph, grid;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg[me], src[me], MPI_UNWEIGHTED,
                                   outdeg[me], dst[me], MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    int dims[1] = {n}, periods[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &grid);

    cpt_comm *g = cpt_comm_declare("dist graph", n, all, graph, MPI_INT, MPI_INT);
    cpt_comm *c = cpt_comm_declare("cartesian 1-D", n, all, grid, MPI_INT, MPI_INT);
    expect_neighbors(g, c, n, indeg, src, outdeg, dst);
    /* The test's view of the neighbours must be MPI's. */
    int mi, mo, wt;
    MPI_Dist_graph_neighbors_count(graph, &mi, &mo, &wt);
    int ms[CPT_MAXRANKS], md[CPT_MAXRANKS];
    MPI_Dist_graph_neighbors(graph, mi, ms, MPI_UNWEIGHTED, mo, md, MPI_UNWEIGHTED);
    if (mi != indeg[me] || mo != outdeg[me])
        cpt_die("dist graph: degrees %d %d, declared %d %d", mi, mo, indeg[me], outdeg[me]);
    for (int j = 0; j < mi; j++)
        if (ms[j] != src[me][j])
            cpt_die("dist graph: source %d is %d, declared %d", j, ms[j], src[me][j]);
    for (int j = 0; j < mo; j++)
        if (md[j] != dst[me][j])
            cpt_die("dist graph: destination %d is %d, declared %d", j, md[j], dst[me][j]);
    int s, d;
    MPI_Cart_shift(grid, 0, 1, &s, &d);
    if (s != (me > 0 ? me - 1 : MPI_PROC_NULL) || d != (me < n - 1 ? me + 1 : MPI_PROC_NULL))
        cpt_die("cartesian: shift gives %d %d", s, d);

    cptc_neighbor_allgather(g, CPT_BLOCKING, 2);
    cptc_neighbor_alltoallv(c, CPT_BLOCKING, 2);
    cptc_neighbor_allgatherv(g, CPT_BLOCKING, 0);
    cptc_neighbor_alltoall(g, CPT_NONBLOCKING, 1);
    cptc_neighbor_alltoallv(g, CPT_BLOCKING, 0);
    cptc_neighbor_allgather(c, CPT_BLOCKING, 1);
    cptc_neighbor_alltoallw(g, CPT_LARGE, 1);
    cptc_neighbor_alltoallv(g, CPT_LARGE, 1);
    cptc_neighbor_alltoallw(c, CPT_BLOCKING, 0);
    cptc_neighbor_alltoallv(g, CPT_BLOCKING, 0);
    cptc_neighbor_alltoallw(g, CPT_NONBLOCKING_LARGE, 2);

    /* A star (MPI_Graph_create). */
    int index[CPT_MAXRANKS], gedges[2 * CPT_MAXRANKS], ne = 0;
    for (int r = 0; r < n; r++) {
        if (r == 0)
            for (int q = n - 1; q >= 1; q--)
                gedges[ne++] = q;
        else
            gedges[ne++] = 0;
        index[r] = ne;
    }
    MPI_Comm star;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, gedges, 0, &star);
    cpt_comm *st = cpt_comm_declare("star graph", n, all, star, MPI_INT, MPI_INT);
    for (int r = 0; r < n; r++) {
        int lo = r ? index[r - 1] : 0;
        cpt_comm_set_neighbors(st, r, index[r] - lo, gedges + lo, index[r] - lo, gedges + lo);
    }
    cptc_neighbor_alltoallv(st, CPT_BLOCKING, 3);
    cptc_neighbor_alltoallw(st, CPT_BLOCKING, 4);

    /* MPI_Dist_graph_create: MPI chooses the order of the neighbours. */
    int esrc[2] = {me, n - 1}, edeg[2] = {1, 1}, edst[2] = {(me + 1) % n, 1};
    MPI_Comm dg;
    MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? 2 : 1, esrc, edeg, edst, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &dg);
    int mine[2 + 2 * CPT_MAXRANKS], every[CPT_MAXRANKS][2 + 2 * CPT_MAXRANKS];
    MPI_Dist_graph_neighbors_count(dg, &mi, &mo, &wt);
    if (mi > CPT_MAXRANKS || mo > CPT_MAXRANKS)
        cpt_die("dist graph: too many neighbours");
    mine[0] = mi, mine[1] = mo;
    MPI_Dist_graph_neighbors(dg, mi, mine + 2, MPI_UNWEIGHTED, mo, mine + 2 + mi, MPI_UNWEIGHTED);
    PMPI_Allgather(mine, 2 + 2 * CPT_MAXRANKS, MPI_INT, every, 2 + 2 * CPT_MAXRANKS, MPI_INT,
                   MPI_COMM_WORLD);
    cpt_comm *gc = cpt_comm_declare("dist graph (not adjacent)", n, all, dg, MPI_INT, MPI_INT);
    for (int r = 0; r < n; r++)
        cpt_comm_set_neighbors(gc, r, every[r][0], every[r] + 2, every[r][1],
                               every[r] + 2 + every[r][0]);
    cptc_neighbor_alltoallv(gc, CPT_LARGE, 5);
    cptc_neighbor_allgatherv(gc, CPT_BLOCKING, 6);

    /* Duplicates: the same neighbours, in the same order. */
    MPI_Comm graph_dup, grid_dup;
    MPI_Comm_dup(graph, &graph_dup);
    MPI_Comm_dup(grid, &grid_dup);
    cpt_comm *gd = cpt_comm_declare("dup of dist graph", n, all, graph_dup, MPI_INT, MPI_INT);
    cpt_comm *cd = cpt_comm_declare("dup of cartesian 1-D", n, all, grid_dup, MPI_INT, MPI_INT);
    expect_neighbors(gd, cd, n, indeg, src, outdeg, dst);
    cptc_neighbor_alltoallv(gd, CPT_BLOCKING, 7);
    cptc_neighbor_allgatherv(gd, CPT_BLOCKING, 8);
    cptc_neighbor_alltoallv(cd, CPT_BLOCKING, 9);
    MPI_Comm_free(&graph_dup);
    MPI_Comm_free(&grid_dup);

    MPI_Comm_free(&dg);
    MPI_Comm_free(&star);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return cpt_verify();
}
