/*
 * Per-collective entries of one communicator, only for the collectives it
 * has: a bit per collective and the entries of the set bits, in order of
 * collective.  Finalize holds several such tables per communicator (what
 * the lead merges, the wait states' series, what a lead writes); as fixed
 * arrays over every collective they were 0.6 to 1.2 KiB each, mostly
 * empty, and after 10,000 churned communicators 30 MB of fresh pages were
 * first touched in finalize (measured).  Here a communicator that called
 * one collective holds one entry.
 */
#ifndef COLLPROF_COLL_SLOTS_H
#define COLLPROF_COLL_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#define CP_SLOTS_MAX 64 /* collectives a table can carry (bits of the mask) */

typedef struct cp_slots {
    uint64_t mask; /* bit k: collective k has an entry */
    void *v;       /* the entries, in order of k (NULL: none) */
} cp_slots;

/* Collective k's entry (entries of `elem` bytes), or NULL: none. */
static inline void *cp_slots_at(const cp_slots *s, unsigned k, size_t elem)
{
    if (k >= CP_SLOTS_MAX || !(s->mask >> k & 1))
        return NULL;
    uint64_t below = s->mask & ((UINT64_C(1) << k) - 1);
    return (char *)s->v + elem * (size_t)__builtin_popcountll(below);
}

/* Collective k's entry, made zeroed when absent (the entries after it move:
 * a pointer to one is good until the next cp_slots_add).  NULL: k too large,
 * or memory ran out (s unchanged). */
void *cp_slots_add(cp_slots *s, unsigned k, size_t elem);

/* How many entries. */
unsigned cp_slots_count(const cp_slots *s);

/* The next collective with an entry at or after k, or CP_SLOTS_MAX. */
static inline unsigned cp_slots_next(const cp_slots *s, unsigned k)
{
    uint64_t rest = k >= CP_SLOTS_MAX ? 0 : s->mask >> k;
    return rest ? k + (unsigned)__builtin_ctzll(rest) : CP_SLOTS_MAX;
}

/* For each collective k with an entry, in order. */
#define CP_SLOTS_EACH(k, s)                                                                \
    for (unsigned k = cp_slots_next((s), 0); k < CP_SLOTS_MAX; k = cp_slots_next((s), k + 1))

/* The entries go (the caller frees what they point to first). */
void cp_slots_free(cp_slots *s);

#endif
