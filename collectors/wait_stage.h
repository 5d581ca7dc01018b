/*
 * One rank's part of finalize's wait-state stage for one series
 * (communicator, collective): its sampled calls up the communicator's tree
 * and the lead's list back down (wait_tree.h), through group_trees.h over
 * any carrier.  Finalize runs it over MPI (lib/finalize/finalize_waits.c),
 * the scale simulator over its mailboxes (bench/scale_waits.c).  No MPI.
 *
 * Up, a member merges each child's list into its own (and keeps each
 * child's, for the way down); the lead keeps the calls every member timed
 * (cp_wseries_top); down, each member receives the lead's list with
 * `before` set for it, and sends each child the list with `before` raised
 * by its own leaf and its earlier children's lists.  A member then
 * computes its own waiting times (cp_wait_own) from what came down.
 */
#ifndef COLLPROF_WAIT_STAGE_H
#define COLLPROF_WAIT_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "group_trees.h"
#include "wait_tree.h"

typedef struct cp_wseries {
    cp_wlist own;      /* this member's own leaf */
    cp_wlist up;       /* own + the children's, going up */
    cp_wlist kid[64];  /* each child's list, by round */
    cp_wlist down;     /* what came down (at the lead: its completed up) */
    bool have_down;
} cp_wseries;

/* A member's series from its records (call order) as communicator rank
 * `rank`.  Returns 0, or -1 when out of memory. */
int cp_wseries_start(cp_wseries *s, const cp_timing_rec *recs, size_t n, int64_t rank);
/* The lead, between the ways up and down: the calls all `members` timed
 * become the list that goes down. */
void cp_wseries_top(cp_wseries *s, int64_t members);
void cp_wseries_free(cp_wseries *s);

/* Up and down each series' tree (cp_groups_up / cp_groups_down; values
 * are cp_wseries). */
extern const cp_group_op cp_wseries_up_op, cp_wseries_down_op;

#endif
