/*
 * Counts collector, finalize side: merge the tables of every rank of one
 * (communicator, collective) into the blocks of the profile model, one per
 * distinct send matrix and one per distinct receive matrix, each with the
 * calls that moved exactly it.  Runs at the communicator's lead rank; pure
 * data, no MPI (unit tested directly).
 */
#ifndef COLLPROF_COUNTS_MERGE_H
#define COLLPROF_COUNTS_MERGE_H

#include "collprof/profile.h"
#include "counts.h"

/* One rank's tables as the lead sees them (own, or unpacked). */
typedef struct cp_counts_view {
    const cp_vec *vecs;
    uint32_t nvecs;
    const cp_sig *sigs;
    uint32_t nsigs;
    const cp_seq *seq; /* finished */
} cp_counts_view;

/* views[r]: communicator rank r's tables, or NULL when r sent none (its
 * calls count as not recorded).  Sequences may differ in length.  `tmpl`
 * gives what every block shares: comm_id, comm_size, comm_world_ranks and
 * collective (copied); nranks is set to `nranks`.  The blocks are appended to
 * out[CP_SEND] and out[CP_RECV], in order of their first call.  Returns 0, or
 * -1 when memory ran out (err set). */
int cp_counts_merge(const cp_counts_view *const *views, int64_t nranks, const cp_block *tmpl,
                    cp_counts_file out[2], cp_error *err);

/* The rows of the blocks out[d].blocks[first[d] ..] in rank space
 * (cp_block_compact_rows: sparse or relative where that is shorter), unless
 * dense (COLLPROF_COUNTS_ROWS=dense).  Returns 0, or -1 when memory ran out
 * (the matrices are the same either way). */
int cp_counts_compact_rows(cp_counts_file out[2], const size_t first[2], bool dense);

#endif
