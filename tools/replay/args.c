/*
 * This rank's arguments of one pattern, read from the recorded rows as the
 * count files define them (tests/mpi/colls.h spells each collective out):
 * a single count from column 0 of the rank's row, a vector from the whole
 * row; a rank without a row passes 0 (the non-root ranks of a rooted
 * collective).  Data go in contiguous runs (displacements are running
 * sums), in elements of the recorded datatype size: MPI_BYTE runs of that
 * size, or, for reductions, a predefined type of that size with MPI_SUM
 * (an 8-byte element is MPI_DOUBLE), else a byte-wise sum of our own.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* ---------------------------------------------------------------- types */

static struct { int64_t size; MPI_Datatype t; } types[32];
static size_t ntypes;
static MPI_Op byte_sum = MPI_OP_NULL;

/* A commutative sum of each byte: the reduction of elements of a size no
 * predefined type has. */
static void sum_bytes(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int size;
    MPI_Type_size(*dt, &size);
    unsigned char *a = in, *b = inout;
    for (size_t i = 0; i < (size_t)*len * (size_t)size; i++)
        b[i] = (unsigned char)(b[i] + a[i]);
}

static MPI_Datatype bytes_type(int64_t size)
{
    if (size == 1)
        return MPI_BYTE;
    for (size_t i = 0; i < ntypes; i++)
        if (types[i].size == size)
            return types[i].t;
    MPI_Datatype t;
    if (size > INT_MAX || MPI_Type_contiguous((int)size, MPI_BYTE, &t) != MPI_SUCCESS ||
        MPI_Type_commit(&t) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    if (ntypes < sizeof types / sizeof types[0])
        types[ntypes++].size = size, types[ntypes - 1].t = t;
    return t;
}

static MPI_Datatype reduce_type(int64_t size, MPI_Op *op)
{
    *op = MPI_SUM;
    switch (size) {
    case 1: return MPI_SIGNED_CHAR;
    case 2: return MPI_SHORT;
    case 4: return MPI_INT;
    case 8: return MPI_DOUBLE;
    case 16: return MPI_C_DOUBLE_COMPLEX;
    }
    if (byte_sum == MPI_OP_NULL)
        MPI_Op_create(sum_bytes, 1, &byte_sum);
    *op = byte_sum;
    return bytes_type(size);
}

void replay_types_free(void)
{
    for (size_t i = 0; i < ntypes; i++)
        MPI_Type_free(&types[i].t);
    ntypes = 0;
    if (byte_sum != MPI_OP_NULL)
        MPI_Op_free(&byte_sum);
}

/* ---------------------------------------------------------------- counts */

typedef struct ctx {
    double scale;
    bool too_big;
} ctx;

/* Count of rank r towards peer i (0 without a row), scaled; counts that
 * do not fit an int are flagged. */
static int get(ctx *x, const cp_block *b, int64_t r, size_t i)
{
    if (!b || r < 0 || !cp_block_row(b, r))
        return 0;
    int64_t v = cp_block_count(b, r, i);
    if (v <= 0)
        return 0;
    double s = x->scale == 1 ? (double)v : fmax(1, round((double)v * x->scale));
    if (s > INT_MAX) {
        x->too_big = true;
        return 0;
    }
    return (int)s;
}

static int64_t dt_of(const cp_block *b, const cp_block *other)
{
    const cp_block *x = b ? b : other;
    if (!x || x->counts_in_bytes || x->dtsize < 1)
        return 1;
    return x->dtsize;
}

/* counts[0..n) of rank r's row, their displacements (elements, or bytes
 * when bytes > 1 is the element size to multiply by); the elements in all. */
static int vector(ctx *x, const cp_block *b, int64_t r, int n, int **counts, int **displs,
                  int64_t unit, int64_t *total)
{
    *counts = malloc(((size_t)n + 1) * sizeof **counts);
    *displs = malloc(((size_t)n + 1) * sizeof **displs);
    if (!*counts || !*displs)
        return -1;
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        int64_t c = (int64_t)get(x, b, r, (size_t)i) * unit;
        if (c > INT_MAX || sum > INT_MAX)
            x->too_big = true;
        (*counts)[i] = (int)(c > INT_MAX ? 0 : c);
        (*displs)[i] = (int)(sum > INT_MAX ? 0 : sum);
        sum += c;
    }
    *total = sum;
    return 0;
}

static int byte_types(int n, MPI_Datatype **t)
{
    *t = malloc(((size_t)n + 1) * sizeof **t);
    if (!*t)
        return -1;
    for (int i = 0; i < n; i++)
        (*t)[i] = MPI_BYTE;
    return 0;
}

/* n ints widened into a new array of type T (one element more, so that
 * n = 0 allocates). */
#define WIDENED(name, T)                                                                   \
    static int name(int n, const int *v, T **out)                                          \
    {                                                                                      \
        *out = malloc(((size_t)n + 1) * sizeof **out);                                     \
        if (!*out)                                                                         \
            return -1;                                                                     \
        for (int i = 0; i < n; i++)                                                        \
            (*out)[i] = v[i];                                                              \
        return 0;                                                                          \
    }
WIDENED(aint_displs, MPI_Aint)

#if MPI_VERSION >= 4
WIDENED(count_array, MPI_Count)
#endif

int replay_args_make(const replay_comms *c, const replay_pattern *pt, double scale, replay_args *a,
                     char *why, size_t whysize)
{
    *a = (replay_args){.coll = pt->coll,
                       .comm = MPI_COMM_NULL,
                       .stype = MPI_BYTE,
                       .rtype = MPI_BYTE,
                       .op = MPI_OP_NULL};
    const replay_comm *rc = &c->v[pt->comm];
    if (rc->side < 0)
        return 0;
    const replay_coll *co = &replay_colls[pt->coll];
    int s = rc->side;
    int64_t r = rc->rank;
    const cp_block *S = pt->send[s], *R = pt->recv[s];
    ctx x = {.scale = scale};
    a->comm = rc->comm;
    int peers = (int)(rc->inter ? rc->size[1 - s] : rc->size[0]);
    int indeg = peers, outdeg = peers;
    if (co->flags & REPLAY_NEIGHBOR) {
        int weighted;
        MPI_Dist_graph_neighbors_count(rc->comm, &indeg, &outdeg, &weighted);
    }
    int64_t sdt = dt_of(S, R), rdt = dt_of(R, S);
    if (co->flags & REPLAY_REDUCE) {
        a->stype = a->rtype = reduce_type(sdt, &a->op);
        rdt = sdt;
    } else {
        a->stype = bytes_type(sdt);
        a->rtype = bytes_type(rdt);
    }
    if (a->stype == MPI_DATATYPE_NULL || a->rtype == MPI_DATATYPE_NULL) {
        snprintf(why, whysize, "no MPI datatype of %lld bytes", (long long)sdt);
        return 1;
    }
    bool root = false;
    if ((co->flags & REPLAY_ROOTED) && rc->inter) {
        /* The root's group recorded the root's side of the call (a send
         * block where the root sends, a receive block where it receives),
         * the other group the other side; both name the root's rank in its
         * group.  There the root passes MPI_ROOT, its group MPI_PROC_NULL,
         * the other group the root's rank (docs/collectives.md). */
        bool sends = strcmp(co->name, "Bcast") == 0 || strcmp(co->name, "Scatter") == 0 ||
                     strcmp(co->name, "Scatterv") == 0;
        int rs = -1;
        for (int g = 0; g < 2 && rs < 0; g++)
            if (sends ? pt->send[g] && !pt->recv[g] : pt->recv[g] && !pt->send[g])
                rs = g;
        const cp_block *rb = rs < 0 ? NULL : sends ? pt->send[rs] : pt->recv[rs];
        if (!rb || rb->root < 0 || rb->root >= rc->size[rs]) {
            snprintf(why, whysize, "no root recorded");
            return 1;
        }
        root = s == rs && rb->root == r;
        a->root = s != rs ? (int)rb->root : root ? MPI_ROOT : MPI_PROC_NULL;
    } else if (co->flags & REPLAY_ROOTED) {
        int64_t rt = S && S->root >= 0 ? S->root : R ? R->root : -1;
        if (rt < 0 || rt >= rc->size[0]) {
            snprintf(why, whysize, "no root recorded");
            return 1;
        }
        a->root = (int)rt;
        root = rt == r;
    }
    const char *n = co->name;
    int64_t st = 0, rt_ = 0;
    int nomem = 0;
    if (strcmp(n, "Alltoall") == 0 || strcmp(n, "Allgather") == 0 ||
        strcmp(n, "Neighbor_allgather") == 0 || strcmp(n, "Neighbor_alltoall") == 0) {
        a->scount = get(&x, S, r, 0);
        a->rcount = get(&x, R, r, 0);
        /* an all-to-all sends its count to each peer from its own place;
         * a gather sends one buffer to every peer */
        bool spread = strcmp(n, "Alltoall") == 0 || strcmp(n, "Neighbor_alltoall") == 0;
        a->sbytes = (size_t)a->scount * (size_t)sdt * (size_t)(spread ? outdeg : 1);
        a->rbytes = (size_t)a->rcount * (size_t)rdt * (size_t)indeg;
        a->sent = (int64_t)a->sbytes * (spread ? 1 : outdeg);
    } else if (strcmp(n, "Alltoallv") == 0 || strcmp(n, "Neighbor_alltoallv") == 0) {
        nomem |= vector(&x, S, r, outdeg, &a->scounts, &a->sdispls, 1, &st);
        nomem |= vector(&x, R, r, indeg, &a->rcounts, &a->rdispls, 1, &rt_);
        a->sbytes = (size_t)(st * sdt);
        a->rbytes = (size_t)(rt_ * rdt);
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Alltoallw") == 0 || strcmp(n, "Neighbor_alltoallw") == 0) {
        /* per-peer datatypes were recorded as bytes */
        nomem |= vector(&x, S, r, outdeg, &a->scounts, &a->sdispls, sdt, &st);
        nomem |= vector(&x, R, r, indeg, &a->rcounts, &a->rdispls, rdt, &rt_);
        nomem |= byte_types(outdeg, &a->stypes) | byte_types(indeg, &a->rtypes);
        if (co->flags & REPLAY_NEIGHBOR) {
            nomem |= aint_displs(outdeg, a->sdispls, &a->sdispls_aint) |
                     aint_displs(indeg, a->rdispls, &a->rdispls_aint);
#if MPI_VERSION >= 4
            nomem |= count_array(outdeg, a->scounts, &a->scounts_c) |
                     count_array(indeg, a->rcounts, &a->rcounts_c);
#endif
        }
        a->sbytes = (size_t)st;
        a->rbytes = (size_t)rt_;
        a->sent = st;
    } else if (strcmp(n, "Allgatherv") == 0 || strcmp(n, "Neighbor_allgatherv") == 0) {
        a->scount = get(&x, S, r, 0);
        nomem |= vector(&x, R, r, indeg, &a->rcounts, &a->rdispls, 1, &rt_);
        a->sbytes = (size_t)a->scount * (size_t)sdt;
        a->rbytes = (size_t)(rt_ * rdt);
        a->sent = (int64_t)a->sbytes * outdeg;
    } else if (strcmp(n, "Gather") == 0) {
        a->scount = get(&x, S, r, 0);
        a->rcount = root ? get(&x, R, r, 0) : 0;
        a->sbytes = (size_t)a->scount * (size_t)sdt;
        a->rbytes = (size_t)a->rcount * (size_t)rdt * (size_t)peers;
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Gatherv") == 0) {
        a->scount = get(&x, S, r, 0);
        nomem |= vector(&x, root ? R : NULL, r, peers, &a->rcounts, &a->rdispls, 1, &rt_);
        a->sbytes = (size_t)a->scount * (size_t)sdt;
        a->rbytes = (size_t)(rt_ * rdt);
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Scatter") == 0) {
        a->scount = root ? get(&x, S, r, 0) : 0;
        a->rcount = get(&x, R, r, 0);
        a->sbytes = (size_t)a->scount * (size_t)sdt * (size_t)peers;
        a->rbytes = (size_t)a->rcount * (size_t)rdt;
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Scatterv") == 0) {
        nomem |= vector(&x, root ? S : NULL, r, peers, &a->scounts, &a->sdispls, 1, &st);
        a->rcount = get(&x, R, r, 0);
        a->sbytes = (size_t)(st * sdt);
        a->rbytes = (size_t)a->rcount * (size_t)rdt;
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Bcast") == 0) {
        a->scount = root ? get(&x, S, r, 0) : get(&x, R, r, 0);
        a->stype = root ? a->stype : a->rtype;
        a->sbytes = (size_t)a->scount * (size_t)(root ? sdt : rdt);
        a->sent = root ? (int64_t)a->sbytes * (peers - 1) : 0;
    } else if (strcmp(n, "Reduce") == 0 || strcmp(n, "Allreduce") == 0 || strcmp(n, "Scan") == 0 ||
               strcmp(n, "Exscan") == 0 || strcmp(n, "Reduce_scatter_block") == 0) {
        /* an intercommunicator's root only receives: its count is its
         * receive row's */
        a->scount = S && cp_block_row(S, r) ? get(&x, S, r, 0) : get(&x, R, r, 0);
        bool block = strcmp(n, "Reduce_scatter_block") == 0;
        int64_t groups = rc->inter ? (rc->size[0] > rc->size[1] ? rc->size[0] : rc->size[1])
                                   : peers;
        a->sbytes = (size_t)a->scount * (size_t)sdt * (size_t)(block ? groups : 1);
        a->rbytes = (size_t)a->scount * (size_t)sdt;
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Reduce_scatter") == 0) {
        nomem |= vector(&x, S, r, peers, &a->scounts, &a->sdispls, 1, &st);
        a->sbytes = (size_t)(st * sdt);
        a->rbytes = (size_t)(r < peers && a->scounts ? a->scounts[r] : 0) * (size_t)sdt;
        if (rc->inter)
            a->rbytes = a->sbytes;
        a->sent = (int64_t)a->sbytes;
    } else if (strcmp(n, "Barrier") == 0) {
        /* nothing to move */
    } else {
        snprintf(why, whysize, "%s is not replayed", n);
        return 1;
    }
    if (nomem)
        return -1;
    if (x.too_big) {
        snprintf(why, whysize, "a count or displacement beyond INT_MAX (the _c forms are not "
                               "replayed)");
        return 1;
    }
    return 0;
}

void replay_args_free(replay_args *a)
{
    free(a->scounts);
    free(a->sdispls);
    free(a->rcounts);
    free(a->rdispls);
    free(a->stypes);
    free(a->rtypes);
    free(a->sdispls_aint);
    free(a->rdispls_aint);
#if MPI_VERSION >= 4
    free(a->scounts_c);
    free(a->rcounts_c);
#endif
    *a = (replay_args){0};
}
