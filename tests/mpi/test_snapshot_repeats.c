/*
 * A snapshot is taken while a program repeats one call.  With
 * COLLPROF_SNAPSHOT=1 the watcher asks for a snapshot every second, and the
 * next wrapper takes it before its call.  A repeated call counted only
 * reads the gate on its communicator's cache line, not collprof's state:
 * the request must close the gate, or a program that repeats its call
 * would never be snapshot.  Here both ranks repeat one MPI_Bcast and one
 * MPI_Allreduce (for 2.5 s, rank 0's clock deciding), then each looks for
 * its own snapshot (partial.rank<R>/manifest.json in COLLPROF_OUTPUT_DIR)
 * before MPI_Finalize, which removes it.  Run with COLLPROF_TIMING=off.
 *
 * Prints "snapshot: PASS ..." and exits 0, or says what is missing and
 * exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *dir = getenv("COLLPROF_OUTPUT_DIR");
    double t0 = MPI_Wtime();
    int go = 1, v = 7;
    long calls = 0;
    while (go) {
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int mine = rank == 0 ? MPI_Wtime() - t0 < 2.5 : 1;
        MPI_Allreduce(&mine, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        calls++;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/partial.rank%d/manifest.json", dir ? dir : ".", rank);
    struct stat st;
    int bad = stat(path, &st) != 0;
    if (bad)
        printf("snapshot: rank %d: no snapshot (%s) after %ld repeated calls over 2.5 s\n", rank,
               path, calls);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    if (!any && rank == 0)
        printf("snapshot: PASS: every rank snapshot while it repeated one call (%ld times)\n",
               calls);
    return any;
}
