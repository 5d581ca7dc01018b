/*
 * One rank's part of finalize's counts stage: what it holds of one
 * communicator's count tables while they go up the communicator's tree to
 * its lead (group_trees.h), over any carrier.  Finalize runs it over MPI
 * (lib/finalize/finalize_exchange.c), the scale simulator over its
 * mailboxes (bench/bench_scale.c).  No MPI here.
 *
 * A holding starts as the rank's own tables, one leaf tree per collective
 * (counts_tree.h), and for a topology communicator its neighbour lists;
 * each child's holding (the ranks below it, a contiguous range) is merged
 * in: identical rows collapse into rank ranges, so the lead ends with the
 * communicator's distinct rows, not one per rank.
 */
#ifndef COLLPROF_COUNTS_STAGE_H
#define COLLPROF_COUNTS_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calls_said.h"
#include "coll_slots.h"
#include "collprof/profile.h"
#include "counts_tree.h"
#include "group_trees.h"
#include "pack.h"

/* Collectives a holding can carry (the wrapped collectives' table has
 * fewer: lib/finalize checks it). */
#define CP_HOLD_COLLS 32

/* One rank's neighbour lists, by its rank in the communicator. */
typedef struct cp_nb_entry {
    int64_t crank;
    cp_neighbors nb;
} cp_nb_entry;

/* What the ranks held have of one collective. */
typedef struct cp_hold_coll {
    cp_tree *tree;       /* NULL: no rank held has calls of it */
    /* How many calls of it the ranks held made (with tree; a rank without
     * the collective made 0): the lead sees whether they agree. */
    cp_calls_said *said;
} cp_hold_coll;

typedef struct cp_holding {
    int64_t rank, size;           /* this rank's place in the communicator */
    int64_t lo, hi;               /* communicator ranks held */
    cp_slots c;                   /* a cp_hold_coll per collective present
                                     (coll_slots.h) */
    cp_nb_entry *nb;              /* topology communicators: per rank held */
    size_t nnb;
    bool failed;                  /* some rank's tables are missing */
    /* Called at each high-water mark of a merge (NULL: none): the
     * simulator's memory probe. */
    void (*probe)(void *ctx);
    void *probe_ctx;
} cp_holding;

/* Collective k's entry, or NULL: none. */
static inline cp_hold_coll *cp_holding_at(const cp_holding *h, uint32_t k)
{
    return cp_slots_at(&h->c, k, sizeof(cp_hold_coll));
}

/* An empty holding of rank `rank` of a communicator of `size`. */
void cp_holding_init(cp_holding *h, int64_t rank, int64_t size);
/* The rank's own table of collective k (relative_ok: its rows may be
 * written relative to the rank).  Failure marks the holding failed. */
void cp_holding_leaf(cp_holding *h, uint32_t k, const cp_counts_view *v, bool relative_ok);
/* The rank's own neighbour lists (a topology communicator). */
void cp_holding_neighbors(cp_holding *h, const int *sources, int nsources,
                          const int *destinations, int ndestinations);
void cp_holding_clear(cp_holding *h);
/* Free what e holds (e is left empty). */
void cp_hold_coll_clear(cp_hold_coll *e);

/* A holding as sent (ranks held, failed, trees, neighbour lists), and read
 * back into x (cp_holding_init'ed with the receiver's communicator size). */
void cp_holding_pack(cp_wbuf *b, const cp_holding *h);
int cp_holding_unpack(cp_rbuf *b, cp_holding *x);
/* h takes x's ranks (above its own): trees merged, neighbour lists
 * appended; x is emptied.  CP_GROUP_OK, or CP_GROUP_NOMEM (h failed). */
int cp_holding_absorb(cp_holding *h, cp_holding *x);

/* The holdings up each communicator's tree (cp_groups_up; values are
 * cp_holding): at the lead, the whole communicator's. */
extern const cp_group_op cp_holding_up_op;

#endif
