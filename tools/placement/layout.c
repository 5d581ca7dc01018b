/* Layouts of ranks on nodes and their cost (see layout.h). */
#include "layout.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

static int alloc_layout(cp_layout *l, int64_t nranks, int64_t nnodes)
{
    l->nranks = nranks, l->nnodes = nnodes;
    l->node = malloc((size_t)(nranks ? nranks : 1) * sizeof *l->node);
    return l->node ? 0 : -1;
}

int cp_layout_block(cp_layout *l, int64_t nranks, int64_t nnodes, int64_t per)
{
    if (alloc_layout(l, nranks, nnodes))
        return -1;
    for (int64_t r = 0; r < nranks; r++)
        l->node[r] = per > 0 && r / per < nnodes ? r / per : nnodes - 1;
    return 0;
}

int cp_layout_round_robin(cp_layout *l, int64_t nranks, int64_t nnodes)
{
    if (alloc_layout(l, nranks, nnodes))
        return -1;
    for (int64_t r = 0; r < nranks; r++)
        l->node[r] = r % nnodes;
    return 0;
}

void cp_layout_free(cp_layout *l)
{
    free(l->node);
    memset(l, 0, sizeof *l);
}

cp_u128 cp_layout_cut(const cp_rank_graph *g, const cp_layout *l)
{
    cp_u128 cut = 0;
    for (size_t i = 0; i < g->nedges; i++)
        if (l->node[g->edges[i].a] != l->node[g->edges[i].b])
            cut += g->edges[i].bytes;
    return cut;
}

static int cmp_pair(const void *x, const void *y)
{
    const cp_node_pair *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    CP_ORDER_BY(a->a, b->a);
    return (a->b > b->b) - (a->b < b->b);
}

static int cmp_nodes(const void *x, const void *y)
{
    const cp_node_pair *a = x, *b = y;
    CP_ORDER_BY(a->a, b->a);
    return (a->b > b->b) - (a->b < b->b);
}

/* The node pairs of crossing edges, summed: sort the crossing edges' pairs
 * (no nodes x nodes table: nodes may be many). */
int cp_layout_pairs(const cp_rank_graph *g, const cp_layout *l, size_t max, cp_node_pair **out,
                    size_t *n)
{
    *out = NULL, *n = 0;
    size_t k = 0;
    cp_node_pair *v = malloc((g->nedges ? g->nedges : 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < g->nedges; i++) {
        int64_t a = l->node[g->edges[i].a], b = l->node[g->edges[i].b];
        if (a != b)
            v[k++] = (cp_node_pair){a < b ? a : b, a < b ? b : a, g->edges[i].bytes};
    }
    /* Sum equal pairs: order by pair, then merge. */
    qsort(v, k, sizeof *v, cmp_nodes);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && v[m - 1].a == v[i].a && v[m - 1].b == v[i].b)
            v[m - 1].bytes += v[i].bytes;
        else
            v[m++] = v[i];
    }
    qsort(v, m, sizeof *v, cmp_pair);
    *out = v;
    *n = m < max ? m : max;
    return 0;
}

int64_t cp_layout_fullest(const cp_layout *l)
{
    int64_t *count = calloc((size_t)(l->nnodes ? l->nnodes : 1), sizeof *count), most = 0;
    if (!count)
        return -1;
    for (int64_t r = 0; r < l->nranks; r++)
        if (++count[l->node[r]] > most)
            most = count[l->node[r]];
    free(count);
    return most;
}
