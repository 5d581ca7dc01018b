/*
 * One rank's part of finalize's call-path stage, over any carrier
 * (tree_reduce.h): finalize runs it over MPI (lib/finalize/
 * finalize_callsites.c), the scale simulator over its mailboxes
 * (bench/scale_paths.c).  No MPI here.
 *
 * Up: the rank's tree (its own paths, cp_ptree_child) takes in each
 * child's packed tree (cp_ptree_merge, remembering where the child's nodes
 * went) and goes to the parent packed.  Down: rank 0 numbers the job's
 * tree; every other rank receives from its parent the ids of the nodes it
 * sent; each rank then sends each child the ids of the nodes that child
 * sent.  Afterwards ids[i] is the call-tree id of the rank's node i.
 * A rank receives at most ceil(log2 P) trees up and one list down.
 */
#ifndef COLLPROF_CALLSITE_STAGE_H
#define COLLPROF_CALLSITE_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callsite_tree.h"
#include "tree_reduce.h"

typedef struct cp_paths_rank {
    cp_ptree t;       /* the rank's tree: its own paths first, then its children's */
    size_t nnodes;    /* t.n, kept when t's nodes are let go after the way up */
    cp_psub *subs;    /* per child whose tree arrived, in round order: where its
                         nodes went */
    size_t nsubs;
    bool ok;          /* the way up: nothing below or here failed */
    int64_t *ids;     /* after the way down: ids[i] of node i (NULL: failed) */
} cp_paths_rank;

/* The way up for rank `rank` of n; st->t holds its own paths, st->ok
 * whether they could be made.  Everything the rank receives is merged into
 * st->t; the tree is sent to the parent even when failed (then saying so). */
void cp_paths_up(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io);

/* The way down, after cp_paths_up on every rank: rank 0 numbers st->t into
 * m's call tree; the ids reach every rank.  Returns whether this rank has
 * its ids (st->ids); a rank without them still sends its children a list
 * that says so. */
bool cp_paths_down(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io,
                   cp_manifest *m);

void cp_paths_rank_free(cp_paths_rank *st);

#endif
