/*
 * Which peers a row of a block reaches (docs/collectives.md read as "who
 * does a count go to"), for the patterns (not installed).
 */
#ifndef COLLPROF_PATTERNS_REACH_H
#define COLLPROF_PATTERNS_REACH_H

#include "collprof/profile.h"

enum cp_reach {
    CP_REACH_VECTOR, /* one count per peer: column j goes to peer j */
    CP_REACH_ALL,    /* one count, to (send) or from (receive) every peer */
    CP_REACH_ROOT,   /* one count, to or from the root only */
    CP_REACH_ABOVE,  /* one count, to every higher rank (Scan, Exscan send) */
    CP_REACH_BELOW,  /* one count, from every lower rank (Scan, Exscan receive) */
};

/* A row of length len of block b, read as direction (CP_SEND, CP_RECV): a
 * single count (len 1) reaches what the collective's table entry says; any
 * other row is read per peer. */
enum cp_reach cp_reach_of(const cp_block *b, int direction, size_t len);

#endif
