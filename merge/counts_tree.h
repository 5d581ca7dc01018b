/*
 * Counts collector, finalize side: the tables of a range of ranks of one
 * (communicator, collective), merged, so that finalize can merge them up a
 * tree of the communicator's members instead of sending every member's
 * tables to the lead.
 *
 * A tree of ranks [lo, hi) holds what those ranks passed, call by call:
 *  - pieces: the distinct parts of a count matrix those ranks hold in one
 *    direction (their rows, and the root), each row once with the set of
 *    ranks that passed it.  Ranks collapse into one row when they passed
 *    the same vector, or — for vectors kept sparse — the same vector
 *    relative to their own rank (a halo exchange: every inner rank sends to
 *    r-1 and r+1): so a piece grows with the distinct rows, not the ranks;
 *  - signatures: (send piece, receive piece, call paths), distinct;
 *  - the sequence of signature ids, one per call, compressed as each rank's
 *    own (sequence.h), so a cycle of patterns costs its length, not its
 *    calls.
 * Merging the trees of [lo, mid) and [mid, hi) walks both sequences span by
 * span (and whole repetitions at once when both cycle with one period).
 * The lead turns the tree of all its ranks into blocks (counts_merge.h).
 * Pure data, no MPI.
 */
#ifndef COLLPROF_COUNTS_TREE_H
#define COLLPROF_COUNTS_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "counts.h"
#include "hash_index.h"
#include "pack.h"
#include "sequence.h"
#include "tree_row.h"

/* One rank's tables as the lead sees them (own, or unpacked). */
typedef struct cp_counts_view {
    const cp_vec *vecs;
    uint32_t nvecs;
    const cp_sig *sigs;
    uint32_t nsigs;
    const cp_seq *seq; /* finished */
} cp_counts_view;

#define CP_PIECE_NONE UINT32_MAX

typedef struct cp_piece {
    int64_t root;    /* as the merge reads it; -1: none */
    bool root_here;  /* the root is one of these ranks (intercommunicators) */
    cp_trow *rows;
    uint32_t nrows;
    uint64_t hash;
} cp_piece;

typedef struct cp_tsig {
    uint32_t piece[2]; /* per direction, CP_PIECE_NONE: no rank of the range
                          passed a vector or a root */
    cp_ranges paths;   /* call paths of the calls */
    uint64_t hash;
} cp_tsig;

typedef struct cp_tree {
    int64_t lo, hi;    /* ranks held */
    int64_t nranks;    /* of the communicator */
    bool relative_ok;  /* rows may be relative (peers are ranks of the same space) */
    cp_piece *pieces;
    uint32_t npieces, cap_pieces;
    cp_index piece_ix;
    cp_tsig *sigs;
    uint32_t nsigs, cap_sigs;
    cp_index sig_ix;
    cp_seq seq; /* signature ids; CP_SEQ_NONE: a call no rank recorded */
} cp_tree;

void cp_tree_init(cp_tree *t, int64_t lo, int64_t hi, int64_t nranks, bool relative_ok);
void cp_tree_free(cp_tree *t);

/* The tree of one rank from its tables (v NULL: the rank has none; its
 * calls count as not recorded).  0, or -1 when memory ran out. */
int cp_tree_leaf(cp_tree *t, const cp_counts_view *v, int64_t rank, int64_t nranks,
                 bool relative_ok);

/* out = the tree of a's ranks and b's ranks (b's above a's).  0, or -1
 * when memory ran out or the two do not fit together (out is then freed).
 * Takes a and b: their rows move into out where nothing else reads them,
 * and both are freed on return, whatever the outcome (so the merge holds
 * the two halves and their union once, not twice).  probe (may be NULL):
 * called with probe_ctx where the merge holds the most, after each piece
 * is joined and before what it read for the last time is freed (the scale
 * simulator's measure of memory). */
int cp_tree_merge(cp_tree *out, cp_tree *a, cp_tree *b, void (*probe)(void *), void *probe_ctx);

/* Free piece p's rows (the blocks took what they needed); the piece stays,
 * empty. */
void cp_tree_drop_piece(cp_tree *t, uint32_t p);

/* Bytes a tree takes packed (what it costs to send). */
void cp_tree_pack(cp_wbuf *b, const cp_tree *t);
/* 0, or -1 when the buffer is malformed or memory ran out (t freed). */
int cp_tree_unpack(cp_rbuf *b, cp_tree *t);

#endif
