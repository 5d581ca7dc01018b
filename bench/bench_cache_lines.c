/*
 * bench_cache_lines: one collective of a family, called CALLS times, each
 * call after the program wrote EVICT_MIB MiB of its own data (one store
 * per 64-byte line), as a real application does between two phases of
 * work: the caches hold nothing of the collective's path when it is
 * called.  Run under cachegrind by bench/cache_lines.sh, with and without
 * the profiler, at two call counts, so that start-up and finalize cancel
 * and the difference is the last-level misses one call costs.
 *
 * usage: bench_cache_lines FAMILY CALLS [EVICT_MIB=16] [COMM=world]
 *   FAMILY: alltoallv alltoall allreduce bcast gatherv allgatherv
 *           reduce_scatter_block ialltoallv alltoallw barrier
 *   COMM: world, or self: the calls on MPI_COMM_SELF, where the MPI
 *         library's own path is the same at every call (no peer to be
 *         early or late: no unexpected message, no waiting), so that what
 *         the profiler adds is measured without the library's noise
 *   (1 int per peer, communicators of up to 64 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXRANKS 64

static const char *const families[] = {"alltoallv", "alltoall",  "allreduce",
                                       "bcast",     "gatherv",   "allgatherv",
                                       "reduce_scatter_block",   "ialltoallv",
                                       "alltoallw", "barrier"};
#define NFAMILIES (sizeof families / sizeof families[0])

int main(int argc, char **argv)
{
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
        }
    }
    free((void *)big);
    MPI_Finalize();
    return 0;
}
