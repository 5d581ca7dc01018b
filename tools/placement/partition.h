/*
 * A layout that keeps the heavy pairs of the rank graph on one node: the
 * graph partitioned with METIS (k-way, seed fixed: the same profile gives
 * the same layout) into nodes of at most `cap` ranks.  METIS balances to a
 * tolerance and takes 32-bit weights: the weights are scaled to fit, and
 * the cap is then enforced exactly by moving, from each node above it, the
 * rank whose move costs the fewest bytes (ties: the lowest rank, the
 * lowest node), followed by moves that save bytes into nodes with room.
 * Every byte count the command prints is computed from the graph itself,
 * never from the scaled weights.
 */
#ifndef COLLPROF_PARTITION_H
#define COLLPROF_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "rank_graph.h"

/* "METIS 5.1.0", or NULL when collprof was built without a partitioner. */
const char *cp_partitioner(void);

/* Partition g into nnodes nodes of at most cap ranks (nnodes * cap >=
 * g->nranks).  Returns 0, or -1 with err set. */
int cp_partition(const cp_rank_graph *g, int64_t nnodes, int64_t cap, cp_layout *out,
                 cp_error *err);

#endif
