/*
 * Where ranks should live: the rank graph of a profile, the bytes between
 * nodes under the run's own layout, the launchers' block and round-robin
 * layouts and a proposal, all computed exactly from the graph.  What
 * `collprof placement` prints and the report's placement section shows.
 */
#ifndef COLLPROF_PLACEMENT_H
#define COLLPROF_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "rank_graph.h"

typedef struct cp_placed {
    bool present;
    cp_layout l;
    cp_u128 cut;     /* bytes between nodes */
    int64_t fullest; /* ranks on the fullest node */
} cp_placed;

typedef struct cp_placement {
    cp_rank_graph g;
    int64_t nnodes, cap;
    cp_placed own;      /* the run's own hosts (timings.cpt), when known */
    char **own_hosts;   /* per node of the run's own layout */
    int64_t own_nhosts;
    cp_placed block, round_robin, proposal;
    char proposal_by[96]; /* "METIS 5.1.0", or which launcher layout it is */
    cp_node_pair *pairs;  /* the proposal's heaviest node pairs */
    size_t npairs;
} cp_placement;

/* The nodes the run itself ran on, as timings.cpt records each rank's
 * (0 without timings). */
int64_t cp_placement_run_hosts(const cp_profile *p);

/* The placement of p on nnodes nodes of at most cap ranks (cap 0: the
 * ranks over the nodes, rounded up).  Returns 0, or -1 with err set. */
int cp_placement_make(const cp_profile *p, int64_t nnodes, int64_t cap, cp_placement *out,
                      cp_error *err);
void cp_placement_free(cp_placement *pl);

#endif
