/*
 * bench_patterns: does the per-call cost of collprof stay flat when a
 * program uses many distinct count vectors?
 *
 * Run with libcollprof.so preloaded, 2 ranks.  Two sets of precomputed,
 * pairwise distinct patterns, each on a communicator of its own (so each
 * has its own profiler tables): 1,000 patterns and 100,000 patterns, cycled
 * through in order.  The 1,000 are every 100th of the 100,000, so both sets
 * move the same amounts of data on average.  Every pattern is seen once
 * before timing: what is timed is the lookup of known vectors in a table of
 * 1,000 or 100,000 entries (plus the call sequence bookkeeping), not their
 * insertion; the first pass is reported separately.
 *
 * Batches of N calls through MPI_Alltoallv and PMPI_Alltoallv, for both sets,
 * interleaved in one run; the table gives the added time per call for each
 * set and the ratio of the two.
 *
 * usage: bench_patterns [rounds=200] [calls_per_batch=1000]
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

#define NSETS 2
static const int set_sizes[NSETS] = {1000, 100000};

typedef struct set {
    MPI_Comm comm;
    int npatterns;
    int *counts;   /* [npatterns][size] */
    int next[2];   /* next pattern of each side: [0] MPI_, [1] PMPI_ */
} set;

typedef struct ctx {
    int size;
    int *displs, *sbuf, *rbuf;
    set sets[NSETS + 1]; /* [NSETS]: one pattern, to warm the call site up */
} ctx;

static void batch(void *vc, int op, bool pmpi, int n)
{
    ctx *c = vc;
    set *s = &c->sets[op];
    int p = s->next[pmpi];
    /* Both sides walk the same pattern sequence from their own cursor. */
    if (pmpi)
        for (int i = 0; i < n; i++) {
            const int *cnt = &s->counts[(size_t)p * (size_t)c->size];
            PMPI_Alltoallv(c->sbuf, cnt, c->displs, MPI_INT, c->rbuf, cnt, c->displs, MPI_INT,
                           s->comm);
            if (++p == s->npatterns)
                p = 0;
        }
    else
        for (int i = 0; i < n; i++) {
            const int *cnt = &s->counts[(size_t)p * (size_t)c->size];
            MPI_Alltoallv(c->sbuf, cnt, c->displs, MPI_INT, c->rbuf, cnt, c->displs, MPI_INT,
                          s->comm);
            if (++p == s->npatterns)
                p = 0;
        }
    s->next[pmpi] = p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = bu_arg_int(argc, argv, 1, 200);
    int n = bu_arg_int(argc, argv, 2, 1000);
    int rank, size;
    bu_world("bench_patterns", 2, INT_MAX, &rank, &size);
    ctx c = {.size = size};
    c.displs = malloc((size_t)size * sizeof *c.displs);
    c.sbuf = calloc((size_t)size * BU_PATTERN_BASE, sizeof *c.sbuf);
    c.rbuf = calloc((size_t)size * BU_PATTERN_BASE, sizeof *c.rbuf);
    if (!c.displs || !c.sbuf || !c.rbuf)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < size; j++)
        c.displs[j] = j * BU_PATTERN_BASE;
    int largest = set_sizes[NSETS - 1];
    for (int k = 0; k < NSETS; k++) {
        set *s = &c.sets[k];
        s->npatterns = set_sizes[k];
        s->counts = malloc((size_t)s->npatterns * (size_t)size * sizeof *s->counts);
        if (!s->counts)
            PMPI_Abort(MPI_COMM_WORLD, 1);
        /* Evenly spread over the largest set: same average message size. */
        int stride = largest / s->npatterns;
        for (int p = 0; p < s->npatterns; p++)
            bu_pattern_counts(p * stride, rank, size, &s->counts[(size_t)p * (size_t)size]);
        PMPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    }

    /* Warm MPI up on each new communicator (PMPI_ only, a few patterns), so
     * that the first pass below times steady-state MPI. */
    for (int k = 0; k < NSETS; k++) {
        batch(&c, k, true, 2000);
        c.sets[k].next[1] = 0;
    }
    /* One call through the profiler from batch()'s call site, on a
     * communicator of its own: the first call from a call site resolves it
     * (symbols, once per process), which is no part of what a new pattern
     * costs. */
    set *warm = &c.sets[NSETS];
    warm->npatterns = 1;
    warm->counts = c.sets[0].counts;
    PMPI_Comm_dup(MPI_COMM_WORLD, &warm->comm);
    batch(&c, NSETS, false, 1);
    PMPI_Comm_free(&warm->comm);
    /* First pass over every pattern: PMPI_, then MPI_ (the profiler inserts
     * every vector).  Each timed as a whole: indicative only. */
    double first[NSETS][2];
    for (int k = 0; k < NSETS; k++)
        for (int side = 1; side >= 0; side--) {
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = bu_now();
            batch(&c, k, side == 1, c.sets[k].npatterns);
            first[k][side] = (bu_now() - t0) / c.sets[k].npatterns * 1e9;
        }
    double first_max[NSETS][2];
    PMPI_Reduce(first, first_max, 2 * NSETS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    long rss0 = bu_rss_kib();
    bu_result res[NSETS];
    bu_interleaved(MPI_COMM_WORLD, rounds, n, NSETS, batch, &c, res);
    long rss_growth = bu_rss_kib() - rss0, rss_max = 0;
    PMPI_Reduce(&rss_growth, &rss_max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("## bench_patterns: added time per call vs number of distinct patterns, "
               "%d ranks, MPI_Alltoallv\n\n", size);
        printf("%s; %d rounds x %d calls per batch and side, both sets interleaved; "
               "ns per call, median over rounds (quartiles in brackets)\n\n",
               bu_profiler_status(), rounds, n);
        printf("| distinct patterns | without (PMPI_) | with (MPI_) | added ns/call | paired diff "
               "| ratio | first pass without | first pass with |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < NSETS; k++) {
            const bu_result *x = &res[k];
            printf("| %d | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.0f | %.0f | %.3f | %.0f | %.0f |\n",
                   set_sizes[k], x->pmpi_med, x->pmpi_q1, x->pmpi_q3, x->mpi_med, x->mpi_q1,
                   x->mpi_q3, x->added, x->paired_diff_med, x->ratio, first_max[k][1],
                   first_max[k][0]);
        }
        const bu_result *lo = &res[0], *hi = &res[NSETS - 1];
        double r_added = lo->added > 0 ? hi->added / lo->added : 0;
        double r_paired = lo->paired_diff_med > 0 ? hi->paired_diff_med / lo->paired_diff_med : 0;
        printf("\n| comparison | value | target |\n|---|---|---|\n");
        printf("| added ns/call, %d / %d patterns | %.2f | <= 1.3: %s |\n", set_sizes[NSETS - 1],
               set_sizes[0], r_added, r_added <= 1.3 ? "met" : "MISSED");
        printf("| paired diff, %d / %d patterns | %.2f | <= 1.3: %s |\n", set_sizes[NSETS - 1],
               set_sizes[0], r_paired, r_paired <= 1.3 ? "met" : "MISSED");
        /* The first pass meets every pattern once: its added cost is that
         * of a pattern never seen (hashing, copying a 2-count vector,
         * inserting), slowest rank. */
        for (int k = 0; k < NSETS; k++) {
            double first = first_max[k][0] - first_max[k][1];
            printf("| a never-seen pattern, table growing to %d: added ns/call | %.0f | "
                   "<= 500: %s |\n",
                   set_sizes[k], first, first <= 500 ? "met" : "MISSED");
        }
        printf("| time per call with collprof, %d / %d patterns | %.3f | (info) |\n",
               set_sizes[NSETS - 1], set_sizes[0], lo->mpi_med > 0 ? hi->mpi_med / lo->mpi_med : 0);
        printf("\nVmRSS growth during the timed rounds (%d MPI_ calls per set after the first "
               "pass), largest of the ranks: %ld KiB\n\n", rounds * n, rss_max);
        fflush(stdout);
    }
    for (int k = 0; k < NSETS; k++) {
        PMPI_Comm_free(&c.sets[k].comm);
        free(c.sets[k].counts);
    }
    free(c.displs);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
