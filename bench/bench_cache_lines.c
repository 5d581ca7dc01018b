/*
 * bench_cache_lines: one collective of a family, called CALLS times, each
 * call after the program wrote EVICT_MIB MiB of its own data (one store
 * per 64-byte line), as a real application does between two phases of
 * work: the caches hold nothing of the collective's path when it is
 * called.  Run under cachegrind by bench/cache_lines.sh, with and without
 * the profiler, at two call counts, so that start-up and finalize cancel
 * and the difference is the last-level misses one call costs.
 *
 * usage: bench_cache_lines FAMILY CALLS [EVICT_MIB=16] [COMM=world] [DEGREE=1] [ALIGN=-1]
 *   FAMILY: alltoallv alltoall allreduce bcast gatherv allgatherv
 *           reduce_scatter_block ialltoallv alltoallw barrier
 *           neighbor_alltoallv: on a distributed graph of COMM in which
 *           every rank has DEGREE edges to the next rank (many edges to
 *           one neighbour, which MPI allows): count arrays of DEGREE
 *           counts, as a communicator of that many ranks passes them
 *   COMM: world, or self: the calls on MPI_COMM_SELF, where the MPI
 *         library's own path is the same at every call (no peer to be
 *         early or late: no unexpected message, no waiting), so that what
 *         the profiler adds is measured without the library's noise
 *   ALIGN: 0-3, the calls are made with the stack at one of the four
 *         offsets a 16-byte aligned frame can take in a 64-byte line
 *         (each ALIGN a different one, the same whatever the environment
 *         and address-space randomisation): the lines the frames of the
 *         call's path span depend on it, by a line or two; -1: as it comes
 *   (1 int per peer, communicators of up to 64 ranks)
 */
/* Open MPI's MPI_UNWEIGHTED points to an empty object: gcc takes it for an
 * array of no elements passed where MPI reads none either. */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXRANKS 64

static const char *const families[] = {"alltoallv", "alltoall",  "allreduce",
                                       "bcast",     "gatherv",   "allgatherv",
                                       "reduce_scatter_block",   "ialltoallv",
                                       "alltoallw", "barrier", "neighbor_alltoallv"};
#define NFAMILIES (sizeof families / sizeof families[0])

static int run(int argc, char **argv, volatile char *pad);

int main(int argc, char **argv)
{
    int align = argc >= 7 ? atoi(argv[6]) : -1;
    /* Every frame below is moved by pad bytes: the stack's offset in a
     * line at the calls is main's own plus 16 * align, modulo 64. */
    size_t pad = 0;
    if (align >= 0)
        pad = ((uintptr_t)__builtin_frame_address(0) - 16 * (uintptr_t)align) % 64;
    volatile char *p = __builtin_alloca(pad + 1);
    p[0] = 0;
    return run(argc, argv, p);
}

static __attribute__((noinline)) int run(int argc, char **argv, volatile char *pad)
{
    (void)pad;
    MPI_Init(&argc, &argv);
    int rank, size, f = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; argc >= 3 && i < NFAMILIES; i++)
        if (!strcmp(argv[1], families[i]))
            f = (int)i;
    if (f < 0 || size > MAXRANKS) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FAMILY CALLS [EVICT_MIB=16] (at most %d ranks)\n", argv[0],
                    MAXRANKS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long calls = atol(argv[2]);
    size_t evict = (size_t)(argc >= 4 ? atol(argv[3]) : 16) << 20;
    MPI_Comm comm = argc >= 5 && !strcmp(argv[4], "self") ? MPI_COMM_SELF : MPI_COMM_WORLD;
    MPI_Comm_size(comm, &size);
    int me;
    MPI_Comm_rank(comm, &me);
    volatile char *big = malloc(evict);
    int deg = argc >= 6 ? atoi(argv[5]) : 1;
    deg = deg < 1 ? 1 : deg;
    int *nb = malloc(3 * (size_t)deg * sizeof *nb), *nbuf = calloc(2 * (size_t)deg, sizeof *nbuf);
    int *ncounts = nb, *ndispls = nb + deg, *nto = nb + 2 * deg;
    MPI_Comm graph = MPI_COMM_NULL;
    if (f == 10) {
        for (int i = 0; i < deg; i++) {
            ncounts[i] = 1;
            ndispls[i] = i;
            nto[i] = (me + 1) % size;
        }
        int *nfrom = malloc((size_t)deg * sizeof *nfrom);
        for (int i = 0; i < deg; i++)
            nfrom[i] = (me + size - 1) % size;
        MPI_Dist_graph_create_adjacent(comm, deg, nfrom, MPI_UNWEIGHTED, deg, nto, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &graph);
        free(nfrom);
    }
    int sb[MAXRANKS], rb[MAXRANKS], counts[MAXRANKS], displs[MAXRANKS], bdispls[MAXRANKS];
    MPI_Datatype types[MAXRANKS];
    for (int q = 0; q < size; q++) {
        sb[q] = me * 100 + q;
        counts[q] = 1;
        displs[q] = q;
        bdispls[q] = q * (int)sizeof(int);
        types[q] = MPI_INT;
    }
    for (long c = 0; c < calls; c++) {
        for (size_t j = 0; j < evict; j += 64) /* the application's work */
            big[j] = (char)c;
        switch (f) {
        case 0: MPI_Alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, comm); break;
        case 1: MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm); break;
        case 2: MPI_Allreduce(sb, rb, 1, MPI_INT, MPI_SUM, comm); break;
        case 3: MPI_Bcast(sb, 1, MPI_INT, 0, comm); break;
        case 4: MPI_Gatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT, 0, comm); break;
        case 5: MPI_Allgatherv(sb, 1, MPI_INT, rb, counts, displs, MPI_INT, comm); break;
        case 6: MPI_Reduce_scatter_block(sb, rb, 1, MPI_INT, MPI_SUM, comm); break;
        case 7: {
            MPI_Request r;
            MPI_Ialltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, comm, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            break;
        }
        case 8: MPI_Alltoallw(sb, counts, bdispls, types, rb, counts, bdispls, types, comm); break;
        case 9: MPI_Barrier(comm); break;
        case 10:
            MPI_Neighbor_alltoallv(nbuf, ncounts, ndispls, MPI_INT, nbuf + deg, ncounts, ndispls,
                                   MPI_INT, graph);
            break;
        }
    }
    free((void *)big);
    if (graph != MPI_COMM_NULL)
        MPI_Comm_free(&graph);
    free(nb);
    free(nbuf);
    MPI_Finalize();
    return 0;
}
