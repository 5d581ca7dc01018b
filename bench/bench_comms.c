/*
 * bench_comms: communicator churn, as in libraries that duplicate a
 * communicator for every operation.
 *
 * One cycle is MPI_Comm_dup + one MPI_Alltoallv (1 int per peer) on the new
 * communicator + MPI_Comm_free.  Run with libcollprof.so preloaded.  The
 * cycles run in chunks, alternately without the profiler (PMPI_ entry
 * points: the profiler neither registers nor records) and with it (MPI_),
 * so both sides see the same machine.  Printed per chunk pair: the time
 * per cycle of each side, so that a cost that grows with the number of
 * communicators created so far shows as a rising column; then the medians,
 * the resident memory added by the profiled cycles (largest rank), and how
 * long MPI_Finalize takes (rank 0, with the profiler's merge and writing).
 *
 * usage: bench_comms [cycles=10000] [chunks=10]
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

static void cycles(int n, bool pmpi, int *sbuf, int *rbuf, const int *cnt, const int *displs)
{
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        if (pmpi) {
            PMPI_Comm_dup(MPI_COMM_WORLD, &c);
            PMPI_Alltoallv(sbuf, cnt, displs, MPI_INT, rbuf, cnt, displs, MPI_INT, c);
            PMPI_Comm_free(&c);
        } else {
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            MPI_Alltoallv(sbuf, cnt, displs, MPI_INT, rbuf, cnt, displs, MPI_INT, c);
            MPI_Comm_free(&c);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int total = bu_arg_int(argc, argv, 1, 10000);
    int nchunks = bu_arg_int(argc, argv, 2, 10);
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int per = total / nchunks > 0 ? total / nchunks : 1;
    int *sbuf = calloc((size_t)size, sizeof *sbuf), *rbuf = calloc((size_t)size, sizeof *rbuf);
    int *cnt = malloc((size_t)size * sizeof *cnt), *displs = malloc((size_t)size * sizeof *displs);
    double *t_bare = calloc((size_t)nchunks, sizeof *t_bare);
    double *t_prof = calloc((size_t)nchunks, sizeof *t_prof);
    if (!sbuf || !rbuf || !cnt || !displs || !t_bare || !t_prof) {
        fprintf(stderr, "bench_comms: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int j = 0; j < size; j++) {
        cnt[j] = 1;
        displs[j] = j;
    }
    cycles(100, true, sbuf, rbuf, cnt, displs); /* warm MPI up */

    long rss_added = 0;
    for (int k = 0; k < nchunks; k++) {
        for (int side = 0; side < 2; side++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            long r0 = bu_rss_kib();
            double t0 = bu_now();
            cycles(per, side == 0, sbuf, rbuf, cnt, displs);
            double t = (bu_now() - t0) / per;
            if (side == 0) {
                t_bare[k] = t;
            } else {
                t_prof[k] = t;
                rss_added += bu_rss_kib() - r0;
            }
        }
    }
    double *mb = malloc((size_t)nchunks * sizeof *mb), *mp = malloc((size_t)nchunks * sizeof *mp);
    long rss_max = 0;
    PMPI_Reduce(t_bare, mb, nchunks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(t_prof, mp, nchunks, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&rss_added, &rss_max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("## bench_comms: %d cycles of MPI_Comm_dup + MPI_Alltoallv + MPI_Comm_free, "
               "%d ranks, %d chunks each side\n\n%s\n\n",
               per * nchunks, size, nchunks, bu_profiler_status());
        printf("| chunk | communicators so far (profiled) | us/cycle without | us/cycle with | "
               "added us/cycle |\n|---|---|---|---|---|\n");
        for (int k = 0; k < nchunks; k++)
            printf("| %d | %d | %.2f | %.2f | %.2f |\n", k, (k + 1) * per, mb[k] * 1e6,
                   mp[k] * 1e6, (mp[k] - mb[k]) * 1e6);
        double first = (mp[0] - mb[0]) * 1e6, last = (mp[nchunks - 1] - mb[nchunks - 1]) * 1e6;
        double med_b = bu_median(mb, (size_t)nchunks) * 1e6;
        double med_p = bu_median(mp, (size_t)nchunks) * 1e6;
        printf("\nmedian us/cycle: without %.2f, with %.2f, added %.2f; added in the first "
               "chunk %.2f, in the last %.2f\n",
               med_b, med_p, med_p - med_b, first, last);
        printf("resident memory added by the profiled cycles: %ld KiB (largest rank)\n",
               rss_max);
        fflush(stdout);
    }
    double t0 = bu_now();
    MPI_Finalize();
    if (rank == 0)
        printf("MPI_Finalize: %.3f s\n", bu_now() - t0);
    free(sbuf);
    free(rbuf);
    free(cnt);
    free(displs);
    free(t_bare);
    free(t_prof);
    free(mb);
    free(mp);
    return 0;
}
