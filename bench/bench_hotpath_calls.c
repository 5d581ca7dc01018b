/*
 * bench_hotpath_calls: the same MPI_Alltoallv (1 int per peer) N times and
 * nothing else, for bench/hotpath_instructions.sh to count the
 * instructions collprof adds to each call (callgrind).  Prints nothing.
 *
 * usage: bench_hotpath_calls [N=10000]
 */
#include <mpi.h>
#include <stdlib.h>

#define MAXRANKS 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n, calls = argc > 1 ? atoi(argv[1]) : 10000;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n > MAXRANKS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int sbuf[MAXRANKS], rbuf[MAXRANKS], counts[MAXRANKS], displs[MAXRANKS];
    for (int i = 0; i < n; i++) {
        counts[i] = 1;
        displs[i] = i;
        sbuf[i] = i;
    }
    for (int i = 0; i < calls; i++)
        MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                      MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
