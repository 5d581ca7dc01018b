/*
 * Wait states without gathering timestamps: the part of finalize that
 * needs no MPI (lib/finalize/finalize_waits.c moves the lists; the scale
 * simulator in bench/ runs the same functions for its virtual ranks).
 *
 * The members of a communicator reduce their timed calls of one series
 * (communicator, collective) up the binomial tree of finalize and the result
 * comes back down; each member then computes its OWN waiting times, with
 * the definitions of cp_wait_states_call (wait_states.h), to the same
 * numbers.  No member ever holds another member's enter and exit times.
 *
 * Up: a list holds, per call index, how many of the members below timed it
 * (blocking calls only), their latest enter, first exit, the root's enter
 * and the latest enter of a member other than the root.  Lists merge by
 * call index (a union; the sample is the same on every member, so the
 * union is as long as one member's sample).  The lead keeps the calls
 * every member timed.
 *
 * Down: the lead's list, plus per call `before`: the latest enter of the
 * members of lower communicator rank than the receiver (the prefix the scan
 * family waits for).  A parent computes it for each child from its own
 * `before`, its own enter and the lists of its earlier children, whose
 * subtrees hold exactly the ranks between it and that child.
 *
 * Every message is O(calls sampled in the series); a member receives at
 * most ceil(log2 P) of them going up and one coming down.
 */
#ifndef COLLPROF_WAIT_TREE_H
#define COLLPROF_WAIT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pack.h"
#include "timing.h"

typedef struct cp_wcall {
    uint64_t call;
    uint64_t have;       /* members that timed it */
    double max_enter;    /* latest enter */
    double min_exit;     /* first exit */
    double root_enter;   /* the root's enter; -inf: the root is not among them */
    double other_enter;  /* latest enter of the others; -inf: none */
    double before;       /* down: latest enter of lower ranks; -inf: none */
} cp_wcall;

/* Sorted by call index, without repeats. */
typedef struct cp_wlist {
    cp_wcall *v;
    size_t n;
} cp_wlist;

/* A member's own list: its blocking timed calls (records in call order),
 * as communicator rank crank.  Returns 0, or -1 when out of memory. */
int cp_wlist_leaf(cp_wlist *l, const cp_timing_cols *r, size_t n, int64_t crank);

/* into := the union of into and from, per call the combined values.
 * Returns 0, or -1 when out of memory (into unchanged). */
int cp_wlist_merge(cp_wlist *into, const cp_wlist *from);

/* The lead: only the calls all `members` timed stay; before = -inf. */
void cp_wlist_complete(cp_wlist *l, uint64_t members);

/* Raise each call's `before` to the latest enter that `below` holds for
 * it (below: a member's own leaf or a child's subtree list). */
void cp_wlist_raise_before(cp_wlist *l, const cp_wlist *below);

/* A copy.  Returns 0, or -1 when out of memory. */
int cp_wlist_copy(cp_wlist *out, const cp_wlist *in);

/* What a member sends down to its child of round r: its own down list with
 * `before` raised by its own leaf and by its children of rounds 0..r-1
 * (kids[j]: the list its child of round j sent up; empty when none).
 * Returns 0, or -1 when out of memory. */
int cp_wlist_for_child(cp_wlist *out, const cp_wlist *down, const cp_wlist *own,
                       const cp_wlist *kids, int r);

/* The whole reduction for n members in one process, in the tree's order
 * (the scale simulator and the tests; the runtime moves the same lists
 * with MPI): own[m] every member's leaf; fills down[m] with what comes
 * down to member m.  Returns 0, or -1 when out of memory. */
int cp_wait_tree_local(size_t n, const cp_wlist *own, cp_wlist *down);

void cp_wlist_free(cp_wlist *l);

/* Packed: count, then the calls (`before` only when down). */
void cp_wlist_pack(cp_wbuf *b, const cp_wlist *l, bool down);
/* Returns 0, or -1 (b->bad, or out of memory). */
int cp_wlist_unpack(cp_rbuf *b, cp_wlist *l, bool down);

/* Called for each of this member's instances: pattern, the index of its
 * record, the waiting time (> 0); and first, for every call analysed, with
 * the pattern CP_WAIT_ANALYSED and its time in the call (exit - start):
 * what a whole-run estimate divides by (cp_wait_factor). */
#define CP_WAIT_ANALYSED (-1)
typedef void (*cp_wait_own_sink)(void *ctx, int pattern, size_t rec, double severity);

/* This member's waiting times in the calls of `down` (what came down to
 * it), from its own records r[0..n) (call order; non-blocking ones have
 * no wait states), as communicator rank crank of the collective's family. */
void cp_wait_own(int family, const cp_wlist *down, const cp_timing_cols *r, size_t n,
                 int64_t crank, cp_wait_own_sink sink, void *ctx);

#endif
