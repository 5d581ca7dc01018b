/*
 * bench_families: the time collprof adds to one call of a representative of
 * each family of collectives (issue "every MPI collective"), at 2 ranks with
 * 1 element per peer, interleaved with the same calls around the profiler
 * (PMPI_) in the same run, as bench_overhead does for Alltoallv.
 *
 * usage: bench_families [rounds=100] [calls_per_batch=1000]
 */
/* Open MPI's MPI_UNWEIGHTED points to an empty object: gcc takes it for an
 * array of no elements passed where MPI reads none either. */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>

#include "bench_util.h"

enum {
    OP_BCAST,     /* 1 -> N, rooted */
    OP_GATHERV,   /* N -> 1, rooted, a vector at the root */
    OP_ALLREDUCE, /* reduction */
    OP_SCAN,      /* prefix reduction */
    OP_ALLGATHERV,
    OP_ALLTOALLW, /* per-peer datatypes: counts turned into bytes */
    OP_NEIGHBOR,  /* Neighbor_alltoallv on a ring */
    OP_BARRIER,
    NOPS
};

static const char *const op_names[NOPS] = {
    "MPI_Bcast", "MPI_Gatherv", "MPI_Allreduce", "MPI_Scan", "MPI_Allgatherv",
    "MPI_Alltoallw", "MPI_Neighbor_alltoallv", "MPI_Barrier",
};

#define MAXRANKS 64

typedef struct ctx {
    MPI_Comm comm, ring;
    int sbuf[MAXRANKS], rbuf[MAXRANKS];
    int counts[MAXRANKS], displs[MAXRANKS], bdispls[MAXRANKS];
    MPI_Datatype types[MAXRANKS];
} ctx;

/* Each loop is written for both symbols (P##name and name): only the
 * symbol called differs between the two sides. */
#define BOTH(name, args)                                                                       \
    do {                                                                                       \
        if (pmpi)                                                                              \
            for (int i = 0; i < n; i++)                                                        \
                P##name args;                                                                  \
        else                                                                                   \
            for (int i = 0; i < n; i++)                                                        \
                name args;                                                                     \
    } while (0)

static void batch(void *vc, int op, bool pmpi, int n)
{
    ctx *c = vc;
    switch (op) {
    case OP_BCAST:
        BOTH(MPI_Bcast, (c->sbuf, 1, MPI_INT, 0, c->comm));
        break;
    case OP_GATHERV:
        BOTH(MPI_Gatherv, (c->sbuf, 1, MPI_INT, c->rbuf, c->counts, c->displs, MPI_INT, 0, c->comm));
        break;
    case OP_ALLREDUCE:
        BOTH(MPI_Allreduce, (c->sbuf, c->rbuf, 1, MPI_INT, MPI_SUM, c->comm));
        break;
    case OP_SCAN:
        BOTH(MPI_Scan, (c->sbuf, c->rbuf, 1, MPI_INT, MPI_SUM, c->comm));
        break;
    case OP_ALLGATHERV:
        BOTH(MPI_Allgatherv, (c->sbuf, 1, MPI_INT, c->rbuf, c->counts, c->displs, MPI_INT, c->comm));
        break;
    case OP_ALLTOALLW:
        BOTH(MPI_Alltoallw, (c->sbuf, c->counts, c->bdispls, c->types, c->rbuf, c->counts,
                             c->bdispls, c->types, c->comm));
        break;
    case OP_NEIGHBOR:
        BOTH(MPI_Neighbor_alltoallv, (c->sbuf, c->counts, c->displs, MPI_INT, c->rbuf, c->counts,
                                      c->displs, MPI_INT, c->ring));
        break;
    default:
        BOTH(MPI_Barrier, (c->comm));
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = bu_arg_int(argc, argv, 1, 100);
    int n = bu_arg_int(argc, argv, 2, 1000);
    int rank, size;
    bu_world("bench_families", 1, MAXRANKS, &rank, &size);
    ctx c = {.comm = MPI_COMM_WORLD};
    for (int p = 0; p < size; p++) {
        c.sbuf[p] = rank;
        c.counts[p] = 1;
        c.displs[p] = p;
        c.bdispls[p] = p * (int)sizeof(int);
        c.types[p] = MPI_INT;
    }
    /* A ring: one in- and one out-neighbour each (with 2 ranks, the other). */
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    PMPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c.ring);
    for (int op = 0; op < NOPS; op++) {
        batch(&c, op, false, 2000);
        batch(&c, op, true, 2000);
    }
    bu_result res[NOPS];
    bu_interleaved(MPI_COMM_WORLD, rounds, n, NOPS, batch, &c, res);

    if (rank == 0) {
        printf("## bench_families: added time per call, one collective of each family, "
               "%d ranks, 1 element per peer\n\n", size);
        printf("%s; %d rounds x %d calls per batch and side, interleaved; "
               "ns per call, median over rounds (quartiles in brackets)\n\n",
               bu_profiler_status(), rounds, n);
        printf("| operation | without (PMPI_) | with (MPI_) | added ns/call | paired diff | ratio |\n");
        printf("|---|---|---|---|---|---|\n");
        for (int op = 0; op < NOPS; op++) {
            const bu_result *x = &res[op];
            printf("| %s | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.0f | %.0f | %.3f |\n",
                   op_names[op], x->pmpi_med, x->pmpi_q1, x->pmpi_q3, x->mpi_med, x->mpi_q1,
                   x->mpi_q3, x->added, x->paired_diff_med, x->ratio);
        }
        printf("\n");
        fflush(stdout);
    }
    PMPI_Comm_free(&c.ring);
    MPI_Finalize();
    return 0;
}
