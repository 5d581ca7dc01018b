/* The rank graph partitioned into nodes (see partition.h). */
#include "partition.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof_config.h"
#ifdef CP_HAVE_METIS
#include <metis.h>
#endif

const char *cp_partitioner(void)
{
#ifdef CP_HAVE_METIS
    static char name[32];
    snprintf(name, sizeof name, "METIS %d.%d.%d", METIS_VER_MAJOR, METIS_VER_MINOR,
             METIS_VER_SUBMINOR);
    return name;
#else
    return NULL;
#endif
}

#ifdef CP_HAVE_METIS
/* The graph as adjacency lists with its exact bytes. */
typedef struct adj {
    size_t *start; /* nranks + 1 */
    int64_t *to;
    uint64_t *bytes;
} adj;

static int adj_build(const cp_rank_graph *g, adj *a)
{
    size_t n = (size_t)g->nranks, m = 2 * g->nedges;
    a->start = calloc(n + 1, sizeof *a->start);
    a->to = malloc((m ? m : 1) * sizeof *a->to);
    a->bytes = malloc((m ? m : 1) * sizeof *a->bytes);
    size_t *at = calloc(n + 1, sizeof *at);
    if (!a->start || !a->to || !a->bytes || !at) {
        free(at);
        return -1;
    }
    for (size_t i = 0; i < g->nedges; i++)
        a->start[g->edges[i].a + 1]++, a->start[g->edges[i].b + 1]++;
    for (size_t v = 0; v < n; v++)
        a->start[v + 1] += a->start[v];
    memcpy(at, a->start, (n + 1) * sizeof *at);
    for (size_t i = 0; i < g->nedges; i++) {
        const cp_rank_edge *e = &g->edges[i];
        a->to[at[e->a]] = e->b, a->bytes[at[e->a]++] = e->bytes;
        a->to[at[e->b]] = e->a, a->bytes[at[e->b]++] = e->bytes;
    }
    free(at);
    return 0;
}

static void adj_free(adj *a)
{
    free(a->start), free(a->to), free(a->bytes);
}

/* Bytes between rank v and node q. */
static uint64_t conn(const adj *a, const cp_layout *l, int64_t v, int64_t q)
{
    uint64_t s = 0;
    for (size_t k = a->start[v]; k < a->start[v + 1]; k++)
        if (l->node[a->to[k]] == q)
            s += a->bytes[k];
    return s;
}

/* The best move of v to a node with room: the node it sends most to (ties:
 * the lowest), else the lowest node with room.  *gain: bytes saved (may be
 * negative).  -1 when no node has room. */
static int64_t best_move(const adj *a, const cp_layout *l, const int64_t *size, int64_t cap,
                         int64_t v, double *gain)
{
    int64_t p = l->node[v], best = -1;
    double own = (double)conn(a, l, v, p), most = -1;
    for (size_t k = a->start[v]; k < a->start[v + 1]; k++) {
        int64_t q = l->node[a->to[k]];
        if (q == p || size[q] >= cap)
            continue;
        double c = (double)conn(a, l, v, q);
        if (c > most || (c == most && q < best))
            most = c, best = q;
    }
    if (best < 0) {
        for (int64_t q = 0; q < l->nnodes && best < 0; q++)
            if (q != p && size[q] < cap)
                best = q, most = 0;
    }
    *gain = most - own;
    return best;
}

/* The cap, exactly: from each node above it, move the rank that costs the
 * fewest bytes; then moves that save bytes, while any does. */
static void enforce_cap(const adj *a, cp_layout *l, int64_t cap, int64_t *size)
{
    for (int64_t p = 0; p < l->nnodes; p++)
        while (size[p] > cap) {
            int64_t vbest = -1, qbest = -1;
            double gbest = 0;
            for (int64_t v = 0; v < l->nranks; v++) {
                if (l->node[v] != p)
                    continue;
                double gain;
                int64_t q = best_move(a, l, size, cap, v, &gain);
                if (q >= 0 && (vbest < 0 || gain > gbest))
                    vbest = v, qbest = q, gbest = gain;
            }
            if (vbest < 0)
                return; /* no node has room: cannot happen when nodes x cap >= ranks */
            l->node[vbest] = qbest, size[p]--, size[qbest]++;
        }
    for (int round = 0; round < 16; round++) {
        bool moved = false;
        for (int64_t v = 0; v < l->nranks; v++) {
            double gain;
            int64_t q = best_move(a, l, size, cap, v, &gain);
            if (q >= 0 && gain > 0) {
                size[l->node[v]]--, size[q]++;
                l->node[v] = q;
                moved = true;
            }
        }
        if (!moved)
            break;
    }
}

static int metis_parts(const cp_rank_graph *g, const adj *a, int64_t nnodes, cp_layout *l,
                       cp_error *err)
{
    idx_t n = (idx_t)g->nranks, ncon = 1, nparts = (idx_t)nnodes, cut = 0;
    size_t m = a->start[g->nranks];
    idx_t *xadj = malloc(((size_t)n + 1) * sizeof *xadj);
    idx_t *adjncy = malloc((m ? m : 1) * sizeof *adjncy);
    idx_t *adjwgt = malloc((m ? m : 1) * sizeof *adjwgt);
    idx_t *part = malloc(((size_t)n ? (size_t)n : 1) * sizeof *part);
    int rc = 0;
    if (!xadj || !adjncy || !adjwgt || !part)
        rc = cp_error_set(err, "out of memory");
    /* METIS sums weights in 32 bits: scale the total of both directions to
     * at most 2^29, no pair below 1. */
    double total = 2.0 * (double)g->total, scale = total > 536870912.0 ? 536870912.0 / total : 1;
    for (idx_t v = 0; rc == 0 && v <= n; v++)
        xadj[v] = (idx_t)a->start[v];
    for (size_t k = 0; rc == 0 && k < m; k++) {
        adjncy[k] = (idx_t)a->to[k];
        double w = floor((double)a->bytes[k] * scale + 0.5);
        adjwgt[k] = w < 1 ? 1 : (idx_t)w;
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_UFACTOR] = 1; /* as balanced as METIS will: the cap is enforced after */
    options[METIS_OPTION_NUMBERING] = 0;
    if (rc == 0) {
        int mr = METIS_PartGraphKway(&n, &ncon, xadj, adjncy, NULL, NULL, adjwgt, &nparts, NULL,
                                     NULL, options, &cut, part);
        if (mr != METIS_OK)
            rc = cp_error_set(err, "METIS could not partition the rank graph (%s)",
                              mr == METIS_ERROR_MEMORY ? "out of memory" : "error");
    }
    for (idx_t v = 0; rc == 0 && v < n; v++)
        l->node[v] = part[v];
    free(xadj), free(adjncy), free(adjwgt), free(part);
    return rc;
}
#endif

int cp_partition(const cp_rank_graph *g, int64_t nnodes, int64_t cap, cp_layout *out,
                 cp_error *err)
{
    memset(out, 0, sizeof *out);
    if (nnodes < 1 || cap < 1 || nnodes > g->nranks || nnodes * cap < g->nranks)
        return cp_error_set(err, "%lld nodes of at most %lld ranks cannot hold %lld ranks",
                            (long long)nnodes, (long long)cap, (long long)g->nranks);
    if (g->nranks > INT32_MAX || 2 * g->nedges > INT32_MAX)
        return cp_error_set(err, "the rank graph is beyond 32-bit indices");
#ifndef CP_HAVE_METIS
    (void)out;
    return cp_error_set(err, "this collprof was built without a graph partitioner: rebuild it "
                             "with METIS (Debian: apt-get install libmetis-dev)");
#else
    if (cp_layout_block(out, g->nranks, nnodes, (g->nranks + nnodes - 1) / nnodes))
        return cp_error_set(err, "out of memory");
    adj a = {0};
    int64_t *size = calloc((size_t)nnodes, sizeof *size);
    int rc = !size || adj_build(g, &a) ? cp_error_set(err, "out of memory") : 0;
    if (rc == 0 && nnodes > 1)
        rc = metis_parts(g, &a, nnodes, out, err);
    for (int64_t v = 0; rc == 0 && v < g->nranks; v++)
        size[out->node[v]]++;
    if (rc == 0)
        enforce_cap(&a, out, cap, size);
    adj_free(&a);
    free(size);
    if (rc)
        cp_layout_free(out);
    return rc;
#endif
}
