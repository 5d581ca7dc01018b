/*
 * How many calls of one series (communicator, collective) each member
 * made, as finalize's counts stage carries it up the communicator's tree:
 * the few distinct numbers with the ranks that made each.  A correct
 * program makes the same calls on every member; an erroneous one (a
 * collective one rank called and its peers never did), or a call that the
 * MPI library refused on some ranks only, does not, and then the call
 * indices of different members name different calls.  The lead learns
 * here whether its members agree, and names who made how many when they
 * do not ("rank 0: 1, ranks 1-3: 0").
 *
 * Fixed size (a handful of values, a handful of rank intervals each), so
 * that what goes up the tree stays small whatever the members did; what
 * does not fit is counted and said to be cut.  No MPI.
 */
#ifndef COLLPROF_CALLS_SAID_H
#define COLLPROF_CALLS_SAID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pack.h"

#define CP_SAID_VALUES 4    /* distinct numbers of calls kept */
#define CP_SAID_INTERVALS 8 /* rank intervals kept per number */

typedef struct cp_said_value {
    uint64_t calls;
    int64_t nranks;                  /* members that made this many */
    uint32_t nint;                   /* intervals kept */
    int64_t lo[CP_SAID_INTERVALS], hi[CP_SAID_INTERVALS]; /* inclusive */
} cp_said_value;

typedef struct cp_calls_said {
    uint32_t n;        /* values kept, in increasing order of calls */
    cp_said_value v[CP_SAID_VALUES];
    int64_t nother;    /* members whose number did not fit */
    uint64_t min, max; /* over every member held, those not kept too */
} cp_calls_said;

/* Members lo..hi-1 (communicator ranks) each made `calls` calls. */
void cp_said_init(cp_calls_said *s, int64_t lo, int64_t hi, uint64_t calls);
/* s += the members of x (x's ranks above s's). */
void cp_said_merge(cp_calls_said *s, const cp_calls_said *x);
/* Did every member make the same number of calls? */
static inline bool cp_said_agreed(const cp_calls_said *s)
{
    return s->min == s->max;
}
/* "rank 0: 1, ranks 1-3: 0" (most calls first), at most len bytes. */
void cp_said_text(const cp_calls_said *s, char *out, size_t len);

void cp_said_pack(cp_wbuf *b, const cp_calls_said *s);
/* 0, or -1 when the buffer is malformed. */
int cp_said_unpack(cp_rbuf *b, cp_calls_said *s);

#endif
