/* Where ranks should live (see placement.h). */
#include "placement.h"

#include <stdlib.h>
#include <string.h>

#include "partition.h"

int64_t cp_placement_run_hosts(const cp_profile *p)
{
    const cp_cpt_file *f = &p->timings;
    if (!p->has_timings || !f->chunks)
        return 0;
    int64_t n = 0;
    for (uint64_t r = 0; r < f->world_size; r++)
        if ((int64_t)f->chunks[r].node + 1 > n)
            n = (int64_t)f->chunks[r].node + 1;
    return n;
}

/* The run's own layout: each rank's node as timings.cpt records it (the
 * location of every rank, written whenever the run was timed), each node
 * named by the host of its first rank. */
static int own_layout(const cp_profile *p, cp_placement *pl)
{
    const cp_cpt_file *f = &p->timings;
    int64_t nodes = cp_placement_run_hosts(p);
    if (!nodes || (int64_t)f->world_size != pl->g.nranks)
        return 0;
    cp_layout *l = &pl->own.l;
    l->nranks = pl->g.nranks, l->nnodes = nodes;
    l->node = malloc((size_t)l->nranks * sizeof *l->node);
    pl->own_hosts = calloc((size_t)nodes, sizeof *pl->own_hosts);
    if (!l->node || !pl->own_hosts)
        return -1;
    pl->own_nhosts = nodes;
    for (int64_t r = 0; r < l->nranks; r++) {
        int64_t k = l->node[r] = f->chunks[r].node;
        if (!pl->own_hosts[k] && !(pl->own_hosts[k] = strdup(f->chunks[r].hostname)))
            return -1;
    }
    for (int64_t k = 0; k < nodes; k++) /* a node no rank named (a damaged file) */
        if (!pl->own_hosts[k] && !(pl->own_hosts[k] = strdup("unknown")))
            return -1;
    pl->own.present = true;
    return 0;
}

static void cost(const cp_rank_graph *g, cp_placed *x)
{
    x->cut = cp_layout_cut(g, &x->l);
    x->fullest = cp_layout_fullest(&x->l);
}

/* Nodes numbered by the lowest rank each holds: the same partition reads
 * the same whatever numbers the partitioner gave. */
static int renumber(cp_layout *l)
{
    int64_t *to = malloc((size_t)l->nnodes * sizeof *to), next = 0;
    if (!to)
        return -1;
    for (int64_t q = 0; q < l->nnodes; q++)
        to[q] = -1;
    for (int64_t r = 0; r < l->nranks; r++) {
        if (to[l->node[r]] < 0)
            to[l->node[r]] = next++;
        l->node[r] = to[l->node[r]];
    }
    free(to);
    return 0;
}

static int copy_layout(cp_layout *to, const cp_layout *from)
{
    *to = *from;
    to->node = malloc((size_t)(from->nranks ? from->nranks : 1) * sizeof *to->node);
    if (!to->node)
        return -1;
    memcpy(to->node, from->node, (size_t)from->nranks * sizeof *to->node);
    return 0;
}

int cp_placement_make(const cp_profile *p, int64_t nnodes, int64_t cap, cp_placement *pl,
                      cp_error *err)
{
    memset(pl, 0, sizeof *pl);
    if (cp_rank_graph_build(p, &pl->g, err))
        return -1;
    int64_t n = pl->g.nranks;
    if (nnodes < 1 || nnodes > n) {
        cp_error_set(err, "--nodes %lld: between 1 and the run's %lld ranks, please",
                     (long long)nnodes, (long long)n);
        cp_placement_free(pl);
        return -1;
    }
    pl->nnodes = nnodes;
    pl->cap = cap > 0 ? cap : (n + nnodes - 1) / nnodes;
    if (pl->cap * nnodes < n) {
        cp_error_set(err, "%lld nodes of at most %lld ranks cannot hold the run's %lld ranks",
                     (long long)nnodes, (long long)pl->cap, (long long)n);
        cp_placement_free(pl);
        return -1;
    }
    int rc = own_layout(p, pl) || cp_layout_block(&pl->block.l, n, nnodes, pl->cap) ||
                     cp_layout_round_robin(&pl->round_robin.l, n, nnodes)
                 ? cp_error_set(err, "out of memory")
                 : 0;
    pl->block.present = pl->round_robin.present = rc == 0;
    if (rc == 0 && pl->own.present)
        cost(&pl->g, &pl->own);
    if (rc == 0) {
        cost(&pl->g, &pl->block);
        cost(&pl->g, &pl->round_robin);
    }
    /* The proposal: the partition, unless a launcher's layout crosses
     * fewer bytes (then that layout, said so). */
    if (rc == 0)
        rc = cp_partition(&pl->g, nnodes, pl->cap, &pl->proposal.l, err);
    if (rc == 0 && renumber(&pl->proposal.l))
        rc = cp_error_set(err, "out of memory");
    if (rc == 0) {
        pl->proposal.present = true;
        cost(&pl->g, &pl->proposal);
        snprintf(pl->proposal_by, sizeof pl->proposal_by, "%s", cp_partitioner());
        const cp_placed *better = pl->block.cut <= pl->proposal.cut       ? &pl->block
                                  : pl->round_robin.cut < pl->proposal.cut ? &pl->round_robin
                                                                           : NULL;
        if (better && pl->round_robin.cut < better->cut)
            better = &pl->round_robin;
        if (better) {
            snprintf(pl->proposal_by, sizeof pl->proposal_by, "%s layout; %s found none better",
                     better == &pl->block ? "block" : "round-robin", cp_partitioner());
            cp_layout_free(&pl->proposal.l);
            if (copy_layout(&pl->proposal.l, &better->l))
                rc = cp_error_set(err, "out of memory");
            else
                cost(&pl->g, &pl->proposal);
        }
    }
    if (rc == 0 && cp_layout_pairs(&pl->g, &pl->proposal.l, 10, &pl->pairs, &pl->npairs))
        rc = cp_error_set(err, "out of memory");
    if (rc)
        cp_placement_free(pl);
    return rc;
}

void cp_placement_free(cp_placement *pl)
{
    cp_rank_graph_free(&pl->g);
    cp_layout_free(&pl->own.l), cp_layout_free(&pl->block.l);
    cp_layout_free(&pl->round_robin.l), cp_layout_free(&pl->proposal.l);
    for (int64_t k = 0; k < pl->own_nhosts; k++)
        free(pl->own_hosts[k]);
    free(pl->own_hosts);
    free(pl->pairs);
    memset(pl, 0, sizeof *pl);
}
