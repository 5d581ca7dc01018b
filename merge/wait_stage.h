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

#include "coll_slots.h"
#include "group_trees.h"
#include "wait_tree.h"

#define CP_WSERIES_ROUNDS 64

typedef struct cp_wseries {
    cp_wlist own;      /* this member's own leaf */
    cp_wlist up;       /* own + the children's, going up */
    bool up_is_own;    /* up is own, not copied, until a child's list comes
                          (a member without children sends its own list;
                          65,536 sampled calls are 3.5 MB of fresh pages) */
    cp_wlist *kid;     /* each child's list, by round (CP_WSERIES_ROUNDS of
                          them, allocated with the first child: most members
                          of most communicators have none, and 10,000
                          communicators of 1 KiB each cost finalize more in
                          first touches of pages than in work) */
    int nkid;          /* rounds up to the last that had a child (the
                          lists to free) */
    cp_wlist down;     /* what came down (at the lead: its completed up) */
    bool have_down;
} cp_wseries;

/* A member's series from its records (call order) as communicator rank
 * `rank`.  Returns 0, or -1 when out of memory. */
int cp_wseries_start(cp_wseries *s, const cp_timing_cols *recs, size_t n, int64_t rank);
/* The lead, between the ways up and down: the calls all `members` timed
 * become the list that goes down.  0, or -1 when out of memory (nothing
 * goes down). */
int cp_wseries_top(cp_wseries *s, int64_t members);
void cp_wseries_free(cp_wseries *s);

/* Up and down each series' tree (cp_groups_up / cp_groups_down; values
 * are cp_wseries). */
extern const cp_group_op cp_wseries_up_op, cp_wseries_down_op;

/* A communicator's series together, one group per communicator: every
 * member takes part whatever collectives it called, so that no member ever
 * waits for a list that a peer's own data does not promise (a call that
 * failed on one rank, a collective one rank called and its peers never
 * did).  Going up, each series carries the fewest and the most calls that
 * the members below made of it (a member without it made 0); the lead
 * lets a series come down only when every member made the same number of
 * calls of it: the call indices then name the same calls on every member.
 * A series the members disagree on is left out of the wait states. */
/* Collectives a communicator's series can carry (a bit each in the lead's
 * report of those left out). */
#define CP_WCOMM_COLLS 32

/* One collective of a communicator, as a member sees it. */
typedef struct cp_wcoll {
    cp_wseries *s;      /* NULL: this member has no such series */
    /* Up: this member's own calls of it, then the fewest and most over it
     * and the members below it (0 where absent). */
    uint64_t min_calls, max_calls;
    /* The sample's level (timing.h): up, the coarsest at or below this
     * member; down, the coarsest of all members, whose calls are the ones
     * every member kept: each stands for 2^level calls of the run. */
    uint32_t level;
} cp_wcoll;

/* An entry (cp_wcoll) per collective some member at or below this one has
 * (coll_slots.h: a communicator's few, not every collective's). */
typedef struct cp_wcomm {
    cp_slots c;
} cp_wcomm;

static inline cp_wcoll *cp_wcomm_at(const cp_wcomm *w, uint32_t k)
{
    return cp_slots_at(&w->c, k, sizeof(cp_wcoll));
}

void cp_wcomm_init(cp_wcomm *w);
/* This member's series k: its calls (numbered, recorded or not), its
 * records, and the level of its sample.  Returns 0, or -1 when out of
 * memory. */
int cp_wcomm_add(cp_wcomm *w, uint32_t k, uint64_t ncalls, const cp_timing_cols *recs,
                 size_t n, int64_t rank, uint32_t level);
/* What each call of series k's list stands for (once down): 2^level. */
static inline double cp_wcomm_weight(const cp_wcomm *w, uint32_t k)
{
    const cp_wcoll *e = cp_wcomm_at(w, k);
    uint32_t level = e ? e->level : 0;
    return (double)(UINT64_C(1) << (level < 63 ? level : 63));
}
/* The lead, between the ways up and down: the series all `members` agree
 * on are completed (cp_wseries_top); the others are dropped from what goes
 * down.  *disagreed (may be NULL) gets a bit per collective left out. */
void cp_wcomm_top(cp_wcomm *w, int64_t members, uint32_t *disagreed);
/* Series k came down: its list is cp_wcomm_series(w, k)->down. */
bool cp_wcomm_down(const cp_wcomm *w, uint32_t k);
/* This member's series k, or NULL. */
const cp_wseries *cp_wcomm_series(const cp_wcomm *w, uint32_t k);
void cp_wcomm_free(cp_wcomm *w);

/* Values are cp_wcomm. */
extern const cp_group_op cp_wcomm_up_op, cp_wcomm_down_op;

#endif
