/*
 * bench_finalize: how long MPI_Finalize takes after many calls.
 *
 * collprof gathers each communicator's tables to its lead rank, merges them
 * and writes the count files inside MPI_Finalize, so that is where its
 * shutdown cost shows.  This program makes `calls` MPI_Alltoallv calls of one
 * repeating pattern ("one"), of two alternating patterns ("alt") or of a
 * cycle through 32 patterns ("cycle32"), then
 * times MPI_Finalize on rank 0 (the lead of MPI_COMM_WORLD, which merges and
 * writes) after a barrier.  run_benchmarks.sh runs it with and without
 * libcollprof.so preloaded, alternately, and prints the medians; one run
 * measures one finalize, so the comparison is across runs.
 *
 * Output, one line on rank 0, for the script to parse:
 *   bench_finalize mode=one calls=1000000 profiler=yes calls_s=1.234 finalize_s=0.001234
 *
 * Mode "mixed" instead makes 20 MPI_Alltoall (4 ints per peer) and 20
 * irregular MPI_Alltoallv, interleaved (the calls argument is ignored): a
 * short run whose finalize cost is the job size's, for the scaling table at
 * 2 to 32 ranks (bench/finalize_ranks.sh).
 *
 * usage: bench_finalize one|alt|cycle32|mixed [calls=1000000]
 */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    bool mixed = argc >= 2 && strcmp(argv[1], "mixed") == 0;
    int npatterns = argc < 2                        ? 0
                    : strcmp(argv[1], "one") == 0     ? 1
                    : strcmp(argv[1], "alt") == 0     ? 2
                    : strcmp(argv[1], "cycle32") == 0 ? 32
                    : mixed                           ? 20
                                                      : 0;
    if (npatterns == 0) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_finalize one|alt|cycle32|mixed [calls=1000000]\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    int calls = mixed ? 40 : bu_arg_int(argc, argv, 2, 1000000);
    if (size < 2 || size > 64) {
        if (rank == 0)
            fprintf(stderr, "bench_finalize: needs 2 to 64 ranks\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Pattern p: p + 1 ints per peer. */
    static int counts[32][64], displs[64], sbuf[32 * 64], rbuf[32 * 64];
    static int rcounts[32][64];
    for (int p = 0; p < 32; p++)
        for (int j = 0; j < size; j++) {
            /* mixed: irregular, what rank r sends p and receives from p */
            counts[p][j] = mixed ? 1 + (rank * 7 + j * 3 + p) % 5 : p + 1;
            rcounts[p][j] = mixed ? 1 + (j * 7 + rank * 3 + p) % 5 : p + 1;
        }
    for (int j = 0; j < size; j++)
        displs[j] = 32 * j;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = bu_now();
    for (int i = 0; i < calls; i++) {
        if (mixed && i % 2 == 0) {
            MPI_Alltoall(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, MPI_COMM_WORLD);
            continue;
        }
        int p = mixed ? i / 2 : i % npatterns;
        MPI_Alltoallv(sbuf, counts[p], displs, MPI_INT, rbuf, rcounts[p], displs, MPI_INT,
                      MPI_COMM_WORLD);
    }
    double t_calls = bu_now() - t0;
    /* Detect the profiler before finalizing (it stops recording inside). */
    bool profiled = bu_profiler_recording();
    PMPI_Barrier(MPI_COMM_WORLD);
    double t1 = bu_now();
    MPI_Finalize();
    double t_fin = bu_now() - t1;
    if (rank == 0) {
        printf("bench_finalize mode=%s calls=%d profiler=%s calls_s=%.3f finalize_s=%.6f\n",
               argv[1], calls, profiled ? "yes" : "no", t_calls, t_fin);
        fflush(stdout);
    }
    return 0;
}
