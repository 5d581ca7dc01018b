/*
 * Reductions up, and lists back down, the binomial trees of many groups at
 * once, over any carrier (tree_reduce.h).  A rank is a member of many
 * groups — each communicator it called collectives on, or each
 * (communicator, collective) — and each group has its own tree of its
 * members (tree_reduce.h: member c sends to c - 2^r in round r, its lowest
 * set bit).  Finalize moves every communicator's count tables and wait-state
 * lists this way over MPI (lib/finalize/finalize_exchange.c,
 * finalize_waits.c); the scale simulator runs the same functions for its
 * virtual ranks over its mailboxes (bench/).  No MPI here.
 *
 * All the groups move together, round by round: in round r a member first
 * sends for every group whose send round is r (complete: its children in
 * that group sent in earlier rounds), then receives every message of round
 * r.  The carrier's send must not wait for the receiver (MPI: posted, the
 * buffer copied); then by induction over the rounds no member waits for
 * ever, and no collective is needed between rounds.  Down, the rounds go in
 * reverse: a member sends to its children of round r, then receives from
 * its parent if r is its send round.
 *
 * One source's messages come in its order of groups, not the receiver's,
 * so each message starts with its group's key; a message that is not what
 * the tree's shape says is refused and reported, never merged.  A member
 * whose value is missing (out of memory) still sends, marked failed, so
 * that no parent or child waits for ever.
 *
 * A member receives at most ceil(log2 n) messages per group going up and
 * one coming down, each as big as what the group's pack makes.  The
 * messages of a round to one rank travel as one batch (cut only at the
 * carrier's largest message): a rank of 10,000 small communicators sends
 * its peer one message per round, not 10,000.
 */
#ifndef COLLPROF_GROUP_TREES_H
#define COLLPROF_GROUP_TREES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash_index.h"
#include "pack.h"
#include "tree_reduce.h"

/* A group as every member names it: a communicator's key (hash, ordinal)
 * and a part of it (a collective; 0 when the whole communicator). */
typedef struct cp_group_key {
    uint64_t hash;
    uint32_t ordinal, part;
} cp_group_key;

typedef struct cp_membership {
    cp_group_key key;
    int64_t size, rank;    /* its members, and this rank's place among them */
    const void *members;   /* handed to cp_groups.world_of */
    void *value;           /* what goes up (and down) */
    bool failed;           /* a part at or below this member is missing */
    /* The engine's own: rounds heard from going up (bit r), and down. */
    uint64_t heard;
    bool heard_down;
} cp_membership;

typedef struct cp_groups {
    cp_membership *v;
    size_t n;
    /* The carrier's rank (MPI: world rank) of member m of a group. */
    int64_t (*world_of)(const void *members, int64_t m);
    cp_index ix; /* by key, when every group is in it (else a linear search) */
    bool ix_ok;
} cp_groups;

/* Index the keys of v[0..n-1] (after filling them); free with
 * cp_groups_free_index.  Duplicate keys are a caller's bug. */
void cp_groups_index(cp_groups *g);
void cp_groups_free_index(cp_groups *g);

/* The group of a key, or NULL. */
cp_membership *cp_groups_find(const cp_groups *g, const cp_group_key *k);

enum { CP_GROUP_OK = 0, CP_GROUP_MALFORMED = 1, CP_GROUP_NOMEM = 2 };

/* What goes through the trees.  Up: pack(value, round, b) is the message
 * for the parent (round: the member's send round); merge(value, round, rb)
 * takes the message of the child of that round.  Down: pack makes the
 * message for the child of round `round`, merge takes the parent's.
 * merge returns CP_GROUP_OK, or CP_GROUP_MALFORMED / CP_GROUP_NOMEM (the
 * group is then failed).  A failed member sends what it has when `partial`
 * (count tables: the others still reach the lead), else only the mark. */
typedef struct cp_group_op {
    void (*pack)(void *value, int round, cp_wbuf *b);
    int (*merge)(void *value, int round, cp_rbuf *rb);
    bool partial;
} cp_group_op;

/* What went wrong at this rank: the first rank whose message was not what
 * the trees' shapes say (-1: none), whether room ran out (a message or a
 * merge), whether a message was larger than the carrier takes (it went as
 * the failed mark alone).  Start it as CP_GROUPS_REPORT_INIT; up and down
 * add to it. */
typedef struct cp_groups_report {
    int64_t malformed_from;
    bool out_of_memory, too_big;
} cp_groups_report;
#define CP_GROUPS_REPORT_INIT ((cp_groups_report){-1, false, false})

/* Every group's value up its tree: at member 0 the group's whole. */
void cp_groups_up(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                  cp_groups_report *rep);

/* Down the same trees, after cp_groups_up on every rank (member 0 has made
 * its value the one that goes down). */
void cp_groups_down(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                    cp_groups_report *rep);

#endif
