/*
 * Communicator registry: per-communicator state, found from a handle
 * without communication.
 *
 * A communicator's key is the same on every member: a hash of its membership
 * (world ranks, from PMPI_Comm_group + PMPI_Group_translate_ranks, computed
 * once) and the order of its first use among communicators of identical
 * membership.  The state hangs off an MPI attribute, so a freed handle that
 * MPI reuses gets a fresh state; a small lock-free cache in front of the
 * attribute keeps the common lookup to a few loads.
 */
#ifndef COLLPROF_COMM_REGISTRY_H
#define COLLPROF_COMM_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "collectives.h"
#include "collprof/profile.h"
#include "comm_cache.h"
#include "counts.h"
#include "timing.h"

/* The call that came twice in a row, as its capture described it, and the
 * signature it gave (call_memo.h): a call described the same again is that
 * signature again, counted in the memo's first line alone (`next`) and
 * folded into the tables when anything else reads or changes them.  The
 * first line holds everything such a call reads and writes counted only
 * (each side's count arrays as one key, cp_memo_key); the second what only
 * a miss or a fold reads; the third a timed call's times (cp_memo_times). */
enum cp_memo_kind {
    CP_MEMO_ABSENT, /* the side is not present */
    CP_MEMO_SINGLE, /* one count, n[] is its value */
    CP_MEMO_INTS,   /* counts of 4 bytes, n[] is their key */
    CP_MEMO_LONGS,  /* counts of 8 bytes, n[] is their key */
    CP_MEMO_BYTES   /* counts of 8 bytes, already in bytes (per-peer datatypes) */
};
/* Buckets of the duration histogram a memo counts, from its `lo` on: 5.25
 * octaves of quarter-octave buckets (timing_hist.h), room for what one
 * repeated call's durations span where the application's work evicts the
 * caches between calls (measured: 4.7 octaves); 8-bit counts, each
 * emptied into the series' histogram when it fills.  A duration outside
 * goes to the series' histogram at once, and when such calls become many
 * (a quarter of those counted) the buckets move to them. */
#define CP_MEMO_HIST 21
typedef struct cp_memo_times {
    _Alignas(64) uint64_t gate; /* the sample's gate as last read (timing.h):
                                   calls below it are not kept; it only
                                   grows, so an old value costs a look */
    /* While the series keeps every call: the sample's slots reserved for
     * calls gate, gate + 1, ... (cp_timing_reserve), rsv of them from
     * `slot` on, handed out here one per call; given back at every fold. */
    cp_sample_rec *slot;
    /* As the signature's cp_timing_agg, but for late arrival: a call that
     * arrived late (barrier mode), one of 2^32 ticks or more, or one past
     * 2^32 - 1 calls since the last fold adds to the series' timing
     * directly. */
    uint64_t time;
    uint32_t n;
    uint32_t min, max;
    uint8_t rsv;
    uint8_t lo;                 /* the first bucket counted here */
    uint8_t out;                /* calls outside since the buckets moved (at most 255) */
    uint8_t hist[CP_MEMO_HIST]; /* calls of buckets lo .. lo + 20 */
} cp_memo_times;
_Static_assert(sizeof(cp_memo_times) == 64, "a timed repeated call's times are one line");
_Static_assert(CP_TIMING_HIST_N <= 256, "a bucket's number is a byte");

typedef struct cp_memo {
    uint32_t sig;           /* CP_MEMO_EMPTY: nothing kept */
    int32_t root;           /* the call's root (cp_call) */
    uint8_t form;           /* enum cp_form */
    uint8_t kind[2];        /* send, receive: enum cp_memo_kind */
    uint32_t left;          /* calls from `next` on inside the recording window
                               (at most 2^32 - 1: then the general path, which
                               settles the memo, counts on) */
    const void *ra;         /* the call site whose path sig holds; NULL: no paths */
    int64_t n[2];           /* a single count's value, or an array's key
                               (cp_memo_key: the counts, or their digest) */
    int32_t dtsize[2];      /* the datatypes' sizes */
    void (*mpi)(void);      /* the MPI library's function of this form, called
                               from here rather than through the dynamic
                               linker's table (a line of its own) */
    uint64_t next;          /* the next call's index: calls base..next-1 are sig's,
                               counted here, not yet in the tables */
    /* Second line: for misses and folds. */
    _Alignas(64) cp_seq_tail tail; /* where calls of sig lengthen the sequence */
    uint32_t seen;          /* the signature of the last call that missed */
    uint64_t base;          /* the tables' call count when last folded */
    /* Third line: a timed repeated call's times (call_memo.h), added here
     * rather than to the series' timing (its line, the signature's
     * aggregate's, a histogram bucket's: three lines a call) and folded
     * into it with the calls (cp_memo_fold). */
    cp_memo_times times;
} cp_memo;
_Static_assert(offsetof(cp_memo, next) < 64 && offsetof(cp_memo, mpi) < 64 &&
                   offsetof(cp_memo, tail) == 64 && offsetof(cp_memo, times) == 128 &&
                   sizeof(cp_memo) == 192,
               "a repeated call reads the memo's first line, its third when timed");
#define CP_MEMO_EMPTY (CP_SEQ_NONE - 1)

/* What a communicator holds for one collective: allocated on the first call
 * of that collective, so that a communicator costs a few hundred bytes
 * until it makes a call, and only the collectives it uses cost more. */
typedef struct cp_coll_tables {
    cp_memo memo;
    cp_counts counts;
    _Alignas(64) cp_timing timing; /* its first line: what a timed call reads */
} cp_coll_tables;
_Static_assert(offsetof(cp_coll_tables, memo) == 0, "a memo's tables are where it is");

/* The calls x's memo counted, put into x's tables (memo_fold.c): the
 * call counter, the last signature, the sequence's last run.  Before
 * anything else reads or changes the tables; the caller holds them (busy,
 * signals.h).  Then cp_memo_settled once it changed them. */
void cp_memo_fold(cp_coll_tables *x);
/* The sample's slots the memo reserved and did not hand out, given back
 * (cp_timing_unreserve): before the sample is read or changed otherwise,
 * so that it holds numbered calls only. */
void cp_memo_unreserve(cp_coll_tables *x);
/* After the tables of x changed outside the memo: the memo counts on from
 * their call count, and is dropped when they ran out of memory. */
void cp_memo_settled(cp_coll_tables *x);
/* A memo's timed call of histogram bucket b fell outside its buckets, or
 * filled one: it (and the full bucket's calls) into the series' histogram
 * now; the buckets move when such calls become many (memo_fold.c). */
__attribute__((cold)) void cp_memo_hist_spill(cp_coll_tables *x, uint32_t b);
/* The first of a memo's buckets when they are placed around bucket b. */
static inline uint8_t cp_memo_hist_lo(uint32_t b)
{
    uint32_t lo = b < CP_MEMO_HIST / 2 ? 0 : b - CP_MEMO_HIST / 2;
    return (uint8_t)(lo > CP_TIMING_HIST_N - CP_MEMO_HIST ? CP_TIMING_HIST_N - CP_MEMO_HIST : lo);
}
/* cp_memo_fold for every series of every communicator (finalize, partial
 * profiles). */
void cp_memo_fold_all(void);

typedef struct cp_comm {
    /* What a call reads of it is copied into its entry in the communicator
     * cache (comm_cache.h): a repeated call reads that entry, not this. */
    MPI_Comm handle;     /* as registered */
    int32_t peers;       /* processes a count vector addresses: remote group
                            size on an intercommunicator, else size */
    int32_t size;        /* local group size */
    int32_t rank;        /* this process's rank in the local group */
    int32_t inter;       /* intercommunicator */
    uint8_t hot_coll[CP_COMM_HOT]; /* the first collectives it called (their
                                      tables in its cache entry), CP_COMM_HOT_NONE: free */
    /* Every collective's tables, NULL: not called. */
    cp_coll_tables *coll[CP_NCOLLECTIVES];
    _Atomic int live;    /* cleared when MPI frees the communicator */
    int64_t lead;        /* world rank of local rank 0 */
    cp_ranges members;   /* world ranks of the local group, in rank order */
    cp_ranges remote;    /* intercommunicators: the remote group's, else empty */
    int topology;        /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED */
    int64_t indegree, outdegree; /* neighbourhood collectives' row lengths */
    int *sources, *destinations; /* this rank's neighbours in MPI's order,
                                    communicator ranks, -1 for MPI_PROC_NULL */
    uint64_t key_hash;   /* membership hash */
    uint32_t key_ordinal;/* order of first use among identical memberships */
    uint32_t reg_index;  /* order of registration on this process */
    bool lost;           /* memory ran out for a table: calls not recorded */
    _Atomic bool persistent; /* has had persistent requests (their starts
                                may outlive the handle: never compacted) */
    struct cp_comm *next;
} cp_comm;
_Static_assert(CP_NCOLLECTIVES < CP_COMM_HOT_NONE, "hot_coll holds a collective in a byte");

/* The tables of collective k of c (NULL: not called yet). */
static inline cp_coll_tables *cp_comm_coll(const cp_comm *c, int k)
{
    return c->coll[k];
}

/* The tables of collective k of c, made on its first call; NULL when
 * memory ran out (c->lost is then set, reported once).  Called by the
 * thread making the call: MPI orders collectives on a communicator. */
cp_coll_tables *cp_comm_tables(cp_comm *c, int k);

/* The topology of comm (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH, else
 * MPI_UNDEFINED) and the number of sources and destinations of process
 * rank in it, as neighbourhood collectives count them (0 without one). */
int cp_topology_degrees(MPI_Comm comm, int rank, int *in, int *out);

/* Create the attribute keyval (at start). */
int cp_registry_start(void);
/* The state of comm, registered on first use; NULL for MPI_COMM_NULL or
 * when the profiler cannot register it (reported once).  Leaves errno as
 * it was; holds termination signals back while it registers (signals.h). */
cp_comm *cp_comm_lookup(MPI_Comm comm);
/* The same, for a communicator just made with the groups and topology of
 * `like` (a duplicate): when like is registered, its membership is copied
 * instead of asked of MPI (a group, its translation to world ranks, the
 * topology: most of what registering a duplicate cost, and libraries
 * duplicate a communicator per operation).  An unregistered `like` stays
 * unregistered: comm is then asked of MPI as cp_comm_lookup does. */
cp_comm *cp_comm_lookup_like(MPI_Comm comm, MPI_Comm like);

/* What a call of collective k reads of c, off the repeated call's path. */
static inline cp_comm_view *cp_comm_view_of(cp_comm *c, int k, cp_comm_view *v)
{
    *v = (cp_comm_view){.comm = c, .x = c->coll[k], .peers = c->peers, .size = c->size,
                        .rank = c->rank, .inter = c->inter != 0};
    return v;
}

/* What a call of collective k reads of the communicator whose handle has
 * these bits (cp_comm_bits) and place hash h, copied from its cache entry
 * into v: false when neither of its places holds it. */
static inline __attribute__((always_inline)) bool cp_comm_view_cached(uint64_t bits, uint64_t h,
                                                                      int k, cp_comm_view *v)
{
    if (!cp_comm_entry_read(cp_comm_first(h), bits, k, v) &&
        !cp_comm_entry_read(cp_comm_second(h), bits, k, v))
        return false;
    if (!v->x) /* not among the entry's collectives */
        v->x = v->comm->coll[k];
    return true;
}

/* comm's state, from the cache, else looked up (registered on first use). */
static inline cp_comm *cp_comm_get(MPI_Comm comm)
{
    cp_comm_view v;
    uint64_t bits = cp_comm_bits(comm);
    return cp_comm_view_cached(bits, cp_comm_place_hash(bits), 0, &v) ? v.comm
                                                                       : cp_comm_lookup(comm);
}
/* Every registered communicator, in registration order. */
cp_comm *cp_registry_first(void);
/* Did every communicator with calls get registered, and every table it
 * needed?  When not (memory ran out), this rank may lack a communicator
 * that its other members have: finalize then cannot rely on every member
 * taking part in its merge tree. */
bool cp_registry_complete(void);
/* Number of registered communicators. */
uint32_t cp_registry_count(void);

#endif
