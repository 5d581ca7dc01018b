/*
 * bench_overhead: the time collprof adds to one collective call.
 *
 * Run with libcollprof.so preloaded, 2 ranks, 1 int per peer (so that the
 * MPI call itself is as cheap as it gets and the profiler's share shows).
 * For each operation, alternating batches of N calls through MPI_ (the
 * profiler's wrapper) and through PMPI_ (around it); the table gives the
 * median time per call of each, their difference and ratio.  The counts
 * repeat every call, which is the hot path the profiler optimises for (the
 * "same signature as last call" check).
 *
 * usage: bench_overhead [rounds=200] [calls_per_batch=1000] [lines]
 *
 * With "lines", rank 0 prints instead of the table one line per operation,
 * for run_benchmarks.sh to parse (times in ns per call; mpi_calls is how
 * many calls each rank made through MPI_, warm-up included, i.e. how many
 * calls collprof recorded and timed):
 *   bench_overhead op=alltoallv without_ns=390.1 with_ns=432.0 added_ns=41.9
 *       paired_ns=40.5 ratio=1.107 mpi_calls=606000
 */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

enum { OP_ALLTOALLV, OP_ALLTOALL, OP_IALLTOALLV, NOPS };

static const char *const op_names[NOPS] = {
    "MPI_Alltoallv",
    "MPI_Alltoall",
    "MPI_Ialltoallv + MPI_Wait",
};

/* The same, one word each, for the "lines" output. */
static const char *const op_keys[NOPS] = {"alltoallv", "alltoall", "ialltoallv_wait"};

#define WARMUP 2000

#define MAXRANKS 64

typedef struct ctx {
    MPI_Comm comm;
    int sbuf[MAXRANKS], rbuf[MAXRANKS];
    int counts[MAXRANKS], displs[MAXRANKS];
} ctx;

/* The loops are written twice on purpose, not through a function pointer:
 * the only difference between the two branches is the symbol called. */
static void batch(void *vc, int op, bool pmpi, int n)
{
    ctx *c = vc;
    MPI_Request req;
    switch (op) {
    case OP_ALLTOALLV:
        if (pmpi)
            for (int i = 0; i < n; i++)
                PMPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts,
                               c->displs, MPI_INT, c->comm);
        else
            for (int i = 0; i < n; i++)
                MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts,
                              c->displs, MPI_INT, c->comm);
        break;
    case OP_ALLTOALL:
        if (pmpi)
            for (int i = 0; i < n; i++)
                PMPI_Alltoall(c->sbuf, 1, MPI_INT, c->rbuf, 1, MPI_INT, c->comm);
        else
            for (int i = 0; i < n; i++)
                MPI_Alltoall(c->sbuf, 1, MPI_INT, c->rbuf, 1, MPI_INT, c->comm);
        break;
    default:
        /* MPI_Wait is not wrapped by collprof; PMPI_Wait on the PMPI side
         * keeps the two sides symmetrical all the same. */
        if (pmpi)
            for (int i = 0; i < n; i++) {
                PMPI_Ialltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts,
                                c->displs, MPI_INT, c->comm, &req);
                PMPI_Wait(&req, MPI_STATUS_IGNORE);
            }
        else
            for (int i = 0; i < n; i++) {
                MPI_Ialltoallv(c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts,
                               c->displs, MPI_INT, c->comm, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = bu_arg_int(argc, argv, 1, 200);
    int n = bu_arg_int(argc, argv, 2, 1000);
    bool lines = argc > 3 && strcmp(argv[3], "lines") == 0;
    int rank, size;
    bu_world("bench_overhead", 1, MAXRANKS, &rank, &size);
    ctx c = {.comm = MPI_COMM_WORLD};
    for (int p = 0; p < size; p++) {
        c.sbuf[p] = rank;
        c.counts[p] = 1;
        c.displs[p] = p;
    }
    /* Warm up both paths of every operation: the profiler registers the
     * communicator and the pattern on its first call, MPI sets up its
     * shared-memory channels; none of that belongs in the steady state. */
    for (int op = 0; op < NOPS; op++) {
        batch(&c, op, false, WARMUP);
        batch(&c, op, true, WARMUP);
    }
    bu_result res[NOPS];
    bu_interleaved(MPI_COMM_WORLD, rounds, n, NOPS, batch, &c, res);

    if (rank == 0 && lines) {
        long long mpi_calls = (long long)NOPS * (WARMUP + (long long)rounds * n);
        for (int op = 0; op < NOPS; op++) {
            const bu_result *x = &res[op];
            printf("bench_overhead op=%s without_ns=%.1f with_ns=%.1f added_ns=%.1f "
                   "paired_ns=%.1f ratio=%.4f mpi_calls=%lld\n",
                   op_keys[op], x->pmpi_med, x->mpi_med, x->added, x->paired_diff_med, x->ratio,
                   mpi_calls);
        }
        fflush(stdout);
    } else if (rank == 0) {
        printf("## bench_overhead: added time per call, %d ranks, 1 int per peer\n\n", size);
        printf("%s; %d rounds x %d calls per batch and side, interleaved; "
               "ns per call, median over rounds (quartiles in brackets)\n\n",
               bu_profiler_status(), rounds, n);
        printf("| operation | without (PMPI_) | with (MPI_) | added ns/call | paired diff "
               "| ratio | target <= 100 ns |\n");
        printf("|---|---|---|---|---|---|---|\n");
        for (int op = 0; op < NOPS; op++) {
            const bu_result *x = &res[op];
            printf("| %s | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.0f | %.0f | %.3f | %s |\n",
                   op_names[op], x->pmpi_med, x->pmpi_q1, x->pmpi_q3, x->mpi_med, x->mpi_q1,
                   x->mpi_q3, x->added, x->paired_diff_med, x->ratio,
                   x->added <= 100 ? "met" : "MISSED");
        }
        printf("\n(paired diff: median over rounds of with minus without in the same round)\n\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
