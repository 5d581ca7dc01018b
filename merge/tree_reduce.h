/*
 * A reduction of byte buffers up the binomial tree of ranks 0..n-1, rooted
 * at 0, over whatever carries the messages: finalize's MPI transport
 * (lib/finalize/finalize_mail.c) or the scale simulator's mailboxes
 * (bench/scale_sites.c), so that the simulator runs the same code for its
 * virtual ranks as finalize runs for real ones.  No MPI here.
 *
 * The tree: rank r > 0 sends to r - 2^k in round k, its lowest set bit,
 * after it has received from its children, r + 2^j for every round j < k
 * with r + 2^j < n.  Each rank receives from at most ceil(log2 n) others,
 * the ranks below a child form the contiguous range [r + 2^j, r + 2^(j+1)),
 * and a round never waits on a later one, so the rounds need no
 * collective.  Run rank by rank from n - 1 down to 0, each rank's children
 * have sent before it receives: the simulator needs no threads.
 */
#ifndef COLLPROF_TREE_REDUCE_H
#define COLLPROF_TREE_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pack.h"

static inline int cp_tree_send_round(int64_t r)
{
    int k = 0;
    while (r > 0 && !((r >> k) & 1))
        k++;
    return r > 0 ? k : -1; /* the root sends to no one */
}

static inline bool cp_tree_has_child(int64_t r, int64_t n, int k)
{
    int64_t step = (int64_t)1 << k;
    return (r & (2 * step - 1)) == 0 && r + step < n;
}

/* Rounds the tree of n ranks takes. */
static inline int cp_tree_rounds(int64_t n)
{
    int k = 0;
    while (((int64_t)1 << k) < n)
        k++;
    return k;
}

/* What carries the messages of one reduction. */
typedef struct cp_tree_io {
    void *ctx;
    /* Largest message the carrier takes (0: any). */
    uint64_t max_bytes;
    /* The next message from rank `from`, whole, malloc'ed; NULL when it
     * was lost (out of memory: it is received all the same). */
    char *(*recv)(void *ctx, int64_t from, size_t *len);
    /* len bytes to rank `to`; returns when p may be reused. */
    void (*send)(void *ctx, int64_t to, const void *p, size_t len);
} cp_tree_io;

/* What is reduced: pack this rank's value (with what it merged), or, when
 * failed, a value that says so; merge a child's packed value into this
 * rank's (false: malformed, lost, or out of memory).  `value` is the
 * rank's value. */
typedef struct cp_tree_op {
    void (*pack)(void *value, cp_wbuf *b, bool failed);
    bool (*merge)(void *value, const char *buf, size_t len);
} cp_tree_op;

/* Rank `rank` of n: merge its children's values into its own (*value),
 * then send the result to its parent.  At rank 0 *value ends as the whole
 * group's.  Returns false when something below this rank (or the rank
 * itself: ok false) failed; a failed rank still sends, so that no parent
 * waits for ever. */
bool cp_tree_reduce_up(int64_t rank, int64_t n, const cp_tree_io *io, const cp_tree_op *op,
                       void *value, bool ok);

#endif
