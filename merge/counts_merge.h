/*
 * Counts collector, finalize side: the blocks of the profile model of one
 * (communicator, collective), one per distinct send matrix and one per
 * distinct receive matrix, each with the calls that moved exactly it, from
 * the tree of all its ranks (counts_tree.h), which finalize merges up the
 * communicator's members; or from every rank's tables at once.  Pure data,
 * no MPI (unit tested directly).
 */
#ifndef COLLPROF_COUNTS_MERGE_H
#define COLLPROF_COUNTS_MERGE_H

#include "collprof/profile.h"
#include "counts.h"
#include "counts_tree.h"

/* views[r]: communicator rank r's tables, or NULL when r sent none (its
 * calls count as not recorded).  Sequences may differ in length.  `tmpl`
 * gives what every block shares: comm_id, comm_size, comm_world_ranks and
 * collective (copied); nranks is set to `nranks`.  The blocks are appended to
 * out[CP_SEND] and out[CP_RECV], in order of their first call.  Returns 0, or
 * -1 when memory ran out (err set). */
int cp_counts_merge(const cp_counts_view *const *views, int64_t nranks, const cp_block *tmpl,
                    cp_counts_file out[2], cp_error *err);

/* Where cp_counts_tree_emit puts each block as it is made, in direction d
 * (CP_SEND, CP_RECV): takes b (frees it, whatever the outcome).  0, or -1
 * with err set. */
typedef int (*cp_block_sink)(void *ctx, int d, cp_block *b, cp_error *err);

/* The blocks from the tree of all the communicator's ranks (t->lo 0, t->hi
 * nranks), into sink, one at a time: the send blocks, then the receive
 * blocks, each in order of its first call.  Takes t: a piece's values are
 * freed as its last block reads them (its rows' ranks move into the
 * block), and t is freed on return, whatever the outcome; so the lead of
 * a world holds its tree and one block, not the tree and all its blocks
 * (a sink that writes them out keeps it so).  0, or -1 with err set. */
int cp_counts_tree_emit(cp_tree *t, const cp_block *tmpl, cp_block_sink sink, void *ctx,
                        cp_error *err);
/* The same, appended to out[CP_SEND] and out[CP_RECV]. */
int cp_counts_tree_blocks(cp_tree *t, const cp_block *tmpl, cp_counts_file out[2],
                          cp_error *err);

/* The tree of ranks [lo, hi) of views, merged in halves (as finalize's
 * tree does).  0, or -1 when memory ran out. */
int cp_counts_build_tree(const cp_counts_view *const *views, int64_t lo, int64_t hi,
                         int64_t nranks, bool relative_ok, cp_tree *t);

/* May the rows of this collective be read relative to their rank? (Not
 * where rows differ in length: neighbourhood collectives.) */
bool cp_counts_relative_ok(const char *collective);

/* The rows of the blocks out[d].blocks[first[d] ..] in rank space
 * (cp_block_compact_rows: sparse or relative where that is shorter), unless
 * dense (COLLPROF_COUNTS_ROWS=dense).  Returns 0, or -1 when memory ran out
 * (the matrices are the same either way). */
int cp_counts_compact_rows(cp_counts_file out[2], const size_t first[2], bool dense);

#endif
