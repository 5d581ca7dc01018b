/*
 * The communicator cache: what a call reads of its communicator, found
 * from the handle in one memory line.
 *
 * An entry is one line: the gate (the recording's state, the same in every
 * entry: cp_hot_publish), the handle it holds, and a copy of what a call
 * reads of that communicator (the sizes of its count vectors, its rank,
 * whether it is an intercommunicator, the tables of the first collectives
 * it called).  A repeated call reads this line and its memo's, and nothing
 * else of collprof's: where the application's work evicts the caches
 * between collectives, each line is a trip to memory.  The registry
 * (comm_registry.c) stays the truth; an entry is a copy of it, written
 * when a communicator is looked up, when it makes its tables and when it
 * is freed.
 *
 * Entries are read without a lock from any thread and written under one:
 * a sequence lock in the handle's word.  The writer marks the word, writes
 * the fields, then stores the handle with a new version; a reader takes
 * the word, copies the fields, and keeps the copy only when the word is
 * still the same (else the call looks its communicator up in the
 * registry).  Each handle has two places (two hashes of it): two
 * communicators used in turn rarely push each other out.
 */
#ifndef COLLPROF_COMM_CACHE_H
#define COLLPROF_COMM_CACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <mpi.h>

#include "hash_index.h"

struct cp_comm;
struct cp_coll_tables;

/* Collectives whose tables an entry holds: the first ones a communicator
 * calls (cp_comm.hot_coll). */
#define CP_COMM_HOT 3
#define CP_COMM_HOT_NONE 0xff

/* The gate, in an entry's first word, for a recording that is on and not
 * paused: bit k set when a call of collective k is counted only, bit
 * CP_GATE_TIMED + k when it is timed passively, stamped by the time-stamp
 * counter.  A repeated call reads it on its entry's line instead of
 * cp_hot's. */
#define CP_GATE_TIMED 32

/* The handle's word: the handle's bits (below 2^48), a version that every
 * write changes (bits 48-62), and the writer's mark (bit 63). */
#define CP_KEY_HANDLE ((UINT64_C(1) << 48) - 1)
#define CP_KEY_VERSION_SHIFT 48
#define CP_KEY_VERSIONS (UINT64_C(1) << 15)
#define CP_KEY_WRITING (UINT64_C(1) << 63)
/* What a reader compares with a handle's bits: a marked word never matches. */
#define CP_KEY_MATCH (CP_KEY_HANDLE | CP_KEY_WRITING)
/* The bits of a handle the cache cannot hold (0, or wider than 48 bits):
 * they match no entry's word. */
#define CP_KEY_NEVER (UINT64_C(1) << 62)

typedef struct cp_comm_entry {
    _Alignas(64) _Atomic uint64_t gate;
    _Atomic uint64_t key;
    struct cp_comm *comm;
    int32_t peers, size, rank; /* as cp_comm's */
    /* Read as one word: bit 0 intercommunicator, then a byte for each of
     * the collectives whose tables are in hot[] (CP_COMM_HOT_NONE: none),
     * so that finding the call's is a few instructions without a loop. */
    uint32_t tags;
    struct cp_coll_tables *hot[CP_COMM_HOT];
} cp_comm_entry;
_Static_assert(CP_COMM_HOT == 3, "tags holds the inter bit and three collectives");

/* An entry's tags: inter, and the collectives of hot[0..2]. */
static inline uint32_t cp_comm_tags(bool inter, const uint8_t hot_coll[CP_COMM_HOT])
{
    return (uint32_t)inter | (uint32_t)hot_coll[0] << 8 | (uint32_t)hot_coll[1] << 16 |
           (uint32_t)hot_coll[2] << 24;
}
_Static_assert(sizeof(cp_comm_entry) == 64, "an entry is one line");

#define CP_COMM_CACHE_N 64
extern cp_comm_entry cp_comm_cache[CP_COMM_CACHE_N];

/* What a call reads of its communicator, copied out of its entry (or, off
 * the repeated call's path, out of the registry: cp_comm_view_of). */
typedef struct cp_comm_view {
    struct cp_comm *comm;
    struct cp_coll_tables *x; /* the call's collective's tables, NULL: none yet */
    int32_t peers;            /* processes a count vector addresses */
    int32_t size;             /* local group size */
    int32_t rank;             /* this process's rank in the local group */
    bool inter;               /* intercommunicator */
} cp_comm_view;

/* A handle's bits as the entries hold them. */
static inline uint64_t cp_comm_bits(MPI_Comm comm)
{
    uint64_t b;
    if (sizeof comm == sizeof(uint32_t)) {
        uint32_t u;
        memcpy(&u, &comm, sizeof u);
        b = u;
    } else {
        memcpy(&b, &comm, sizeof b);
    }
    return b && b <= CP_KEY_HANDLE ? b : CP_KEY_NEVER;
}

/* The two places of a handle's bits. */
static inline uint64_t cp_comm_place_hash(uint64_t bits)
{
    return cp_hash_mix(0x3C6EF372FE94F82Bull, bits);
}
static inline cp_comm_entry *cp_comm_first(uint64_t h)
{
    return &cp_comm_cache[h % CP_COMM_CACHE_N];
}
static inline cp_comm_entry *cp_comm_second(uint64_t h)
{
    uint64_t a = h % CP_COMM_CACHE_N, b = (h >> 32) % CP_COMM_CACHE_N;
    return &cp_comm_cache[b != a ? b : a ^ 1];
}

/* Does entry e hold the handle of these bits?  Then what a call of
 * collective coll reads of it, copied into v (its tables NULL when coll is
 * not among the entry's). */
static inline __attribute__((always_inline)) bool cp_comm_entry_read(cp_comm_entry *e, uint64_t bits,
                                                                     int coll, cp_comm_view *v)
{
    uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
    if ((k & CP_KEY_MATCH) != bits)
        return false;
    v->comm = __atomic_load_n(&e->comm, __ATOMIC_RELAXED);
    v->peers = __atomic_load_n(&e->peers, __ATOMIC_RELAXED);
    v->size = __atomic_load_n(&e->size, __ATOMIC_RELAXED);
    v->rank = __atomic_load_n(&e->rank, __ATOMIC_RELAXED);
    uint32_t t = __atomic_load_n(&e->tags, __ATOMIC_RELAXED), c = (uint32_t)coll;
    v->inter = t & 1;
    int i = (t >> 8 & 0xff) == c ? 0 : (t >> 16 & 0xff) == c ? 1 : t >> 24 == c ? 2 : -1;
    v->x = i >= 0 ? __atomic_load_n(&e->hot[i], __ATOMIC_RELAXED) : NULL;
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&e->key, memory_order_relaxed) == k;
}

/* The entry of a handle's bits, put into one of its places, or written
 * again where it is (src: its fields; its gate and key are not read).
 * `only_update`: where it is, if anywhere.  Thread-safe (a lock). */
void cp_comm_cache_put(uint64_t bits, const cp_comm_entry *src, bool only_update);
/* The entry of a handle's bits, when it holds comm, emptied. */
void cp_comm_cache_drop(uint64_t bits, const struct cp_comm *comm);
/* Every entry's gate set to g (cp_hot_publish). */
void cp_comm_cache_gate(uint64_t g);

#endif
