/*
 * Layouts of ranks on nodes and what each costs: the bytes of the rank
 * graph (rank_graph.h) that cross between nodes, exactly, and per pair of
 * nodes.  The launchers' own layouts (blocks of consecutive ranks, ranks
 * dealt round-robin) and the partition (partition.h) are layouts alike.
 */
#ifndef COLLPROF_LAYOUT_H
#define COLLPROF_LAYOUT_H

#include <stdint.h>

#include "rank_graph.h"

typedef struct cp_layout {
    int64_t *node; /* per world rank: its node, 0 .. nnodes - 1 */
    int64_t nranks, nnodes;
} cp_layout;

/* Blocks: ranks 0 .. per-1 on node 0, and so on (Slurm's block
 * distribution, Hydra's and Open MPI's default by slot). */
int cp_layout_block(cp_layout *l, int64_t nranks, int64_t nnodes, int64_t per);
/* Round-robin: rank i on node i mod nnodes (Slurm's cyclic, --map-by node). */
int cp_layout_round_robin(cp_layout *l, int64_t nranks, int64_t nnodes);
void cp_layout_free(cp_layout *l);

/* The graph's bytes between nodes under l. */
cp_u128 cp_layout_cut(const cp_rank_graph *g, const cp_layout *l);

/* The bytes between each pair of nodes (i < j) under l, heaviest first:
 * at most max pairs into *out (malloc'ed), *n of them. */
typedef struct cp_node_pair {
    int64_t a, b;
    cp_u128 bytes;
} cp_node_pair;
int cp_layout_pairs(const cp_rank_graph *g, const cp_layout *l, size_t max, cp_node_pair **out,
                    size_t *n);

/* The ranks on each node, most on one node. */
int64_t cp_layout_fullest(const cp_layout *l);

#endif
