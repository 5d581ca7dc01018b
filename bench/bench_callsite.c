/*
 * bench_callsite: the time the callsite collector adds to one collective
 * call, at the depth COLLPROF_CALLSITE_DEPTH says.
 *
 * The calls are made at the bottom of a chain of NEST functions (so that
 * depths up to NEST find real frames of the application, not the C
 * library's), through MPI_ (the profiler's wrapper) and PMPI_ (around it)
 * in alternating batches (bu_interleaved), 2 ranks, 1 int per peer.
 * run_benchmarks.sh runs it under COLLPROF_CALLSITE_DEPTH=0, 1, 4 and 8 in
 * turn (COLLPROF_TIMING=off, counts only), and takes the difference to depth
 * 0 of the same cycle.
 *
 * usage: bench_callsite [rounds=200] [calls_per_batch=1000]
 * Output, one line on rank 0:
 *   bench_callsite without_ns=390.1 with_ns=432.0 added_ns=41.9 paired_ns=40.5
 */
#include <stdio.h>

#include "bench_util.h"

#define NEST 10
#define WARMUP 2000

typedef struct ctx {
    MPI_Comm comm;
    int sbuf[2], rbuf[2], counts[2], displs[2];
} ctx;

/* The calls themselves, written twice: only the symbol differs. */
__attribute__((noinline)) static void calls(ctx *c, bool pmpi, int n)
{
    if (pmpi)
        for (int i = 0; i < n; i++)
            PMPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts, c->displs,
                           MPI_INT, c->comm);
    else
        for (int i = 0; i < n; i++)
            MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts, c->displs,
                          MPI_INT, c->comm);
}

/* NEST frames between the batch and the calls; volatile keeps the
 * recursion from being turned into a loop. */
__attribute__((noinline)) static void nest(ctx *c, bool pmpi, int n, volatile int depth)
{
    if (depth > 0)
        nest(c, pmpi, n, depth - 1);
    else
        calls(c, pmpi, n);
}

static void batch(void *vc, int op, bool pmpi, int n)
{
    (void)op;
    nest(vc, pmpi, n, NEST);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = bu_arg_int(argc, argv, 1, 200);
    int n = bu_arg_int(argc, argv, 2, 1000);
    int rank, size;
    bu_world("bench_callsite", 2, 2, &rank, &size);
    ctx c = {.comm = MPI_COMM_WORLD, .counts = {1, 1}, .displs = {0, 1}};
    batch(&c, 0, false, WARMUP);
    batch(&c, 0, true, WARMUP);
    bu_result res;
    bu_interleaved(MPI_COMM_WORLD, rounds, n, 1, batch, &c, &res);
    if (rank == 0)
        printf("bench_callsite without_ns=%.1f with_ns=%.1f added_ns=%.1f paired_ns=%.1f\n",
               res.pmpi_med, res.mpi_med, res.added, res.paired_diff_med);
    MPI_Finalize();
    return 0;
}
