/*
 * bench_memory: how much resident memory collprof adds over many calls.
 *
 * Run with libcollprof.so preloaded.  For each call sequence, on a
 * communicator of its own (so that each sequence starts with empty profiler
 * tables), first `calls` calls through PMPI_Alltoallv (around the profiler:
 * what MPI itself grows by), then `calls` calls of the same sequence through
 * MPI_Alltoallv (through the profiler).  The growth of VmRSS over each phase
 * is read from /proc/self/status; the difference is what the profiler
 * keeps.  Only PMPI_ calls warm up, so the profiler's first allocations for
 * a communicator are counted against it.
 *
 * Sequences: one repeating pattern (A A A ...), two alternating patterns
 * (A B A B ...), a cycle through 32 patterns, and, beyond the targets, a
 * cycle through 1,000 distinct patterns, longer than the cycles the call
 * sequence folds (CP_SEQ_MAX_PERIOD).
 *
 * usage: bench_memory [calls=1000000]
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

#define CYCLE 1000

typedef struct seqdef {
    const char *name;
    int npatterns; /* the sequence cycles through patterns 0..npatterns-1 */
} seqdef;

static const seqdef seqs[] = {
    {"one pattern (A A A ...)", 1},
    {"two patterns (A B A B ...)", 2},
    {"cycle of 32 patterns", 32},
    {"cycle of 1,000 patterns (not a target)", CYCLE},
};
#define NSEQS ((int)(sizeof seqs / sizeof seqs[0]))

typedef struct bufs {
    int size;
    int *counts; /* [npatterns][size] */
    int *displs, *sbuf, *rbuf;
} bufs;

static void run(const bufs *b, MPI_Comm comm, int npatterns, int calls, bool pmpi)
{
    int p = 0;
    for (int i = 0; i < calls; i++) {
        const int *cnt = &b->counts[(size_t)p * (size_t)b->size];
        if (pmpi)
            PMPI_Alltoallv(b->sbuf, cnt, b->displs, MPI_INT, b->rbuf, cnt, b->displs, MPI_INT,
                           comm);
        else
            MPI_Alltoallv(b->sbuf, cnt, b->displs, MPI_INT, b->rbuf, cnt, b->displs, MPI_INT,
                          comm);
        if (++p == npatterns)
            p = 0;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = bu_arg_int(argc, argv, 1, 1000000);
    int rank, size;
    bu_world("bench_memory", 2, INT_MAX, &rank, &size);
    bufs b = {.size = size};
    b.counts = malloc((size_t)CYCLE * (size_t)size * sizeof *b.counts);
    b.displs = malloc((size_t)size * sizeof *b.displs);
    b.sbuf = calloc((size_t)size * BU_PATTERN_BASE, sizeof *b.sbuf);
    b.rbuf = calloc((size_t)size * BU_PATTERN_BASE, sizeof *b.rbuf);
    if (!b.counts || !b.displs || !b.sbuf || !b.rbuf) {
        fprintf(stderr, "bench_memory: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Patterns spread over the pattern space; counts stay small. */
    for (int p = 0; p < CYCLE; p++)
        bu_pattern_counts(p * 97, rank, size, &b.counts[(size_t)p * (size_t)size]);
    for (int j = 0; j < size; j++)
        b.displs[j] = j * BU_PATTERN_BASE;

    /* Communicators made (and MPI warmed up on them) before any measuring. */
    MPI_Comm comm[NSEQS];
    for (int s = 0; s < NSEQS; s++) {
        PMPI_Comm_dup(MPI_COMM_WORLD, &comm[s]);
        run(&b, comm[s], seqs[s].npatterns, 2 * CYCLE, true);
    }

    long growth[NSEQS][2], before[NSEQS]; /* [0]: PMPI_, [1]: MPI_ */
    double secs[NSEQS][2];
    for (int s = 0; s < NSEQS; s++) {
        for (int side = 0; side < 2; side++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            long r0 = bu_rss_kib();
            double t0 = bu_now();
            run(&b, comm[s], seqs[s].npatterns, calls, side == 0);
            secs[s][side] = bu_now() - t0;
            growth[s][side] = bu_rss_kib() - r0;
            if (side == 0)
                before[s] = r0;
        }
    }
    /* The largest growth of any rank: memory is a per-process budget. */
    long gmax[NSEQS][2], bmax[NSEQS];
    double smax[NSEQS][2];
    PMPI_Reduce(growth, gmax, 2 * NSEQS, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(before, bmax, NSEQS, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(secs, smax, 2 * NSEQS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("## bench_memory: resident memory growth over %d MPI_Alltoallv calls, %d ranks\n\n",
               calls, size);
        printf("%s; VmRSS growth in KiB over each phase, largest of the ranks; "
               "the PMPI_ phase runs first, then the MPI_ phase, in one process\n\n",
               bu_profiler_status());
        printf("| call sequence | RSS before (KiB) | growth without (PMPI_) | growth with (MPI_) "
               "| added by collprof | target < 1 MiB | ns/call without | ns/call with |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
        for (int s = 0; s < NSEQS; s++) {
            long added = gmax[s][1] - gmax[s][0];
            printf("| %s | %ld | %ld KiB | %ld KiB | %ld KiB | %s | %.0f | %.0f |\n", seqs[s].name,
                   bmax[s], gmax[s][0], gmax[s][1], added,
                   s == NSEQS - 1 ? "(info)" : added < 1024 ? "met" : "MISSED",
                   smax[s][0] / calls * 1e9, smax[s][1] / calls * 1e9);
        }
        printf("\n(ns/call: whole phase, not interleaved; indicative only)\n\n");
        fflush(stdout);
    }
    for (int s = 0; s < NSEQS; s++)
        PMPI_Comm_free(&comm[s]);
    free(b.counts);
    free(b.displs);
    free(b.sbuf);
    free(b.rbuf);
    MPI_Finalize();
    return 0;
}
