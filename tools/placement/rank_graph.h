/*
 * The rank graph of a profile: for every pair of world ranks, the bytes the
 * run's collectives moved between them, in either direction, as the MPI
 * standard's data movement says each collective moves them (docs/
 * placement.md).  Built from the compact rows of the send side, block by
 * block and call count by call count: never a dense ranks x ranks matrix.
 * Reductions, scans and barriers, whose paths the standard does not fix,
 * are left out and their bytes counted per collective, to be said.
 */
#ifndef COLLPROF_RANK_GRAPH_H
#define COLLPROF_RANK_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/reader.h"

__extension__ typedef unsigned __int128 cp_u128;

typedef struct cp_rank_edge {
    int64_t a, b;   /* world ranks, a < b */
    uint64_t bytes; /* both directions, over the whole run */
} cp_rank_edge;

/* Bytes a collective moved that the graph leaves out, and why. */
typedef struct cp_left_out {
    char collective[32];
    cp_u128 bytes;
    const char *why;
} cp_left_out;

typedef struct cp_rank_graph {
    int64_t nranks;      /* world size */
    cp_rank_edge *edges; /* sorted by (a, b), each pair once */
    size_t nedges;
    cp_u128 total;       /* sum of the edges' bytes */
    cp_u128 self;        /* bytes a rank moved to itself (no pair) */
    cp_left_out *left;   /* per collective (and reason) */
    size_t nleft;
    bool saturated;      /* a pair's bytes passed 2^64 - 1: held at that */
} cp_rank_graph;

/* Build the graph of p.  Returns 0, or -1 with err set (no memory, a
 * profile without the world's size, a block whose ranks cannot be placed
 * in the world). */
int cp_rank_graph_build(const cp_profile *p, cp_rank_graph *g, cp_error *err);
void cp_rank_graph_free(cp_rank_graph *g);

/* u as decimal digits into buf (size >= 40). */
const char *cp_u128_str(cp_u128 u, char *buf, size_t size);

#endif
