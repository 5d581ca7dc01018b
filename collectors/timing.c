/* Timing collector: a sample by call index in pooled blocks, and exact
 * aggregates per signature (see timing.h). */
#include "timing.h"

#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash_index.h"


/* The pool: one allocation at start, touched page by page, handed out block
 * by block through a free list.  Blocks are taken once per CP_TBLOCK_RECS
 * kept calls and given back when a series thins: a mutex is cheap there. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cp_tblock *pool, *free_list;
static uint64_t blocks_out;
/* What a kept call reads of the sampler, on one line: while a series keeps
 * every call (its first ones), every call comes here, and in an
 * application whose own work evicts the caches between collectives each
 * line read is a trip to memory. */
static _Alignas(64) struct {
    uint64_t series_cap;    /* 0: auto, the pool shared among the series */
    _Atomic uint64_t nseries; /* series keeping a sample */
    uint64_t pool_blocks;
    uint64_t run_seed;      /* COLLPROF_TIMING_SEED; the same on every rank */
    _Atomic bool pressure;  /* a series found the pool dry */
} sampler = {.series_cap = 2};

int cp_timing_start(uint64_t max_records, uint64_t cap)
{
    pthread_mutex_lock(&pool_lock);
    sampler.series_cap = cap == 0 ? 0 : cap < 2 ? 2 : cap;
    atomic_store(&sampler.nseries, 0);
    atomic_store(&sampler.pressure, false);
    free(pool);
    pool = NULL;
    free_list = NULL;
    blocks_out = 0;
    sampler.pool_blocks = (max_records + CP_TBLOCK_RECS - 1) / CP_TBLOCK_RECS;
    int rc = 0;
    if (sampler.pool_blocks) {
        pool = malloc(sampler.pool_blocks * sizeof *pool);
        if (!pool) {
            sampler.pool_blocks = 0;
            rc = -1;
        } else {
            /* Touch every page now, not on the call path. */
            memset(pool, 0, sampler.pool_blocks * sizeof *pool);
            for (uint64_t i = sampler.pool_blocks; i-- > 0;) {
                pool[i].next = free_list;
                free_list = &pool[i];
            }
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static cp_tblock *take_block(void)
{
    pthread_mutex_lock(&pool_lock);
    cp_tblock *b = free_list;
    if (b) {
        free_list = b->next;
        b->next = NULL;
        blocks_out++;
    }
    pthread_mutex_unlock(&pool_lock);
    return b;
}

static void give_blocks(cp_tblock *b)
{
    pthread_mutex_lock(&pool_lock);
    bool some = b != NULL;
    while (b) {
        cp_tblock *next = b->next;
        b->next = free_list;
        free_list = b;
        blocks_out--;
        b = next;
    }
    if (some)
        atomic_store_explicit(&sampler.pressure, false, memory_order_relaxed);
    pthread_mutex_unlock(&pool_lock);
}

/* Records a series may keep before it thins. */
static uint64_t share(void)
{
    if (sampler.series_cap)
        return sampler.series_cap;
    uint64_t n = atomic_load_explicit(&sampler.nseries, memory_order_relaxed);
    uint64_t s = sampler.pool_blocks * CP_TBLOCK_RECS / (n ? n : 1);
    return s < 2 * CP_TBLOCK_RECS ? 2 * CP_TBLOCK_RECS : s;
}

/* One bit per (block, level), the same on every rank; seed 0 is the
 * runtime's. */
static unsigned hbit_seeded(uint64_t b, unsigned level, uint64_t seed)
{
    return (unsigned)(cp_hash_mix(cp_hash_mix(0x53414D504C45ull ^ seed, level), b) >> 29) & 1u;
}

void cp_timing_seed(uint64_t seed)
{
    sampler.run_seed = seed;
}

static unsigned hbit(uint64_t b, unsigned level)
{
    return hbit_seeded(b, level, sampler.run_seed);
}

uint64_t cp_timing_chosen_seeded(uint64_t b, unsigned level, uint64_t seed)
{
    /* Block b of level j holds blocks 2b and 2b+1 of level j-1: descend by
     * the hash's choice to the one call of level 0. */
    for (unsigned j = level; j > 0; j--)
        b = 2 * b + hbit_seeded(b, j, seed);
    return b;
}

uint64_t cp_timing_chosen(uint64_t b, unsigned level)
{
    return cp_timing_chosen_seeded(b, level, sampler.run_seed);
}

uint64_t cp_timing_pool_used(void)
{
    return blocks_out * CP_TBLOCK_RECS;
}

uint64_t cp_timing_pool_size(void)
{
    return sampler.pool_blocks * CP_TBLOCK_RECS;
}

uint64_t cp_timing_kept(const cp_timing *t)
{
    return t->npos;
}

/* One level up: of the slots of blocks 2j and 2j+1 the one the hash
 * chooses for block j stays, at the front of the chain, in order; the
 * blocks no longer needed go back.  A last block whose chosen call is still
 * to come keeps no slot.  The writer never overtakes the reader. */
static void thin(cp_timing *t)
{
    cp_tblock *rb = t->head, *wb = t->head;
    uint64_t w = 0;
    unsigned up = t->level + 1;
    for (uint64_t r = 0; r < t->npos; r++) {
        if (r > 0 && r % CP_TBLOCK_RECS == 0)
            rb = rb->next;
        if ((r & 1) != hbit(r / 2, up))
            continue;
        if (w > 0 && w % CP_TBLOCK_RECS == 0)
            wb = wb->next;
        wb->r[w % CP_TBLOCK_RECS] = rb->r[r % CP_TBLOCK_RECS];
        w++;
    }
    t->npos = w;
    t->level = up;
    t->stride = UINT64_C(1) << up;
    t->next = cp_timing_chosen(w, up);
    t->gate = t->next;
    if (w > 0) {
        give_blocks(wb->next);
        wb->next = NULL;
        t->tail = wb;
    } else {
        give_blocks(t->head);
        t->head = t->tail = NULL;
    }
}

/* The record of the next slot, marked untimed; NULL when no block can be
 * had (the series above their share then thin). */
static cp_sample_rec *push_slot(cp_timing *t)
{
    if (t->npos % CP_TBLOCK_RECS == 0) {
        cp_tblock *b = take_block();
        if (!b) {
            t->starved = true;
            atomic_store_explicit(&sampler.pressure, true, memory_order_relaxed);
            return NULL;
        }
        if (t->tail)
            t->tail->next = b;
        else
            t->head = b;
        t->tail = b;
    }
    cp_sample_rec *r = &t->tail->r[t->npos % CP_TBLOCK_RECS];
    cp_sample_untimed(r);
    t->npos++;
    return r;
}

cp_sample_rec *cp_timing_slot_kept(cp_timing *t, uint64_t idx)
{
    if (!t->registered) {
        t->registered = true;
        t->stride = UINT64_C(1) << t->level;
        atomic_fetch_add_explicit(&sampler.nseries, 1, memory_order_relaxed);
    }
    if (atomic_load_explicit(&sampler.pressure, memory_order_relaxed) && t->npos > share())
        thin(t); /* give the pool back to the series below their share */
    for (;;) {
        uint64_t b = t->npos; /* the block of t->next */
        if (b >= share()) {
            thin(t);
            continue;
        }
        if (idx < t->next) {
            t->gate = t->next;
            return NULL;
        }
        /* The block's chosen call was numbered without this function (a
         * start of a persistent request): its slot stays untimed. */
        cp_sample_rec *r = push_slot(t);
        if (!r) { /* the pool is dry: look again a block later */
            t->gate = idx + t->stride;
            return NULL;
        }
        t->next = cp_timing_chosen(b + 1, t->level);
        t->gate = t->next;
        if (idx == cp_timing_chosen(b, t->level))
            return r;
    }
}

uint32_t cp_timing_reserve(cp_timing *t, cp_sample_rec **first)
{
    uint64_t used = t->npos % CP_TBLOCK_RECS; /* of the tail block */
    if (t->level != 0 || used == 0 || atomic_load_explicit(&sampler.pressure, memory_order_relaxed))
        return 0;
    uint64_t n = CP_TBLOCK_RECS - used, cap = share();
    if (t->npos >= cap)
        return 0;
    if (n > cap - t->npos)
        n = cap - t->npos;
    *first = &t->tail->r[used];
    t->npos += n;
    t->next = t->gate = t->npos; /* level 0: call k is block k's */
    return (uint32_t)n;
}

void cp_timing_unreserve(cp_timing *t, uint32_t n)
{
    t->npos -= n;
    t->next = t->gate = t->npos;
}

/* The aggregates of signature sig beyond the array: made when the signature
 * is new (a new pattern: allocation is allowed then). */
static cp_timing_agg *agg_grow(cp_timing *t, uint32_t sig)
{
    if (sig >= t->nagg) {
        size_t n = t->nagg;
        if (cp_grow_aligned((void **)&t->agg, &n, (size_t)sig + 1, sizeof *t->agg, 1,
                            _Alignof(cp_timing_agg)) ||
            n > UINT32_MAX) {
            t->partial = true;
            return NULL;
        }
        memset(t->agg + t->nagg, 0, (n - t->nagg) * sizeof *t->agg);
        t->nagg = (uint32_t)n;
    }
    return &t->agg[sig];
}

/* Called from the wrappers after the MPI call: errno stays as MPI left it. */
cp_timing_agg *cp_timing_agg_grow(cp_timing *t, uint32_t sig)
{
    if (sig == UINT32_MAX) /* CP_SEQ_NONE: not recorded */
        return NULL;
    int saved = errno;
    cp_timing_agg *a = agg_grow(t, sig);
    errno = saved;
    return a;
}

/* Buckets of room beyond a duration that grows the histogram: its
 * durations wander over a few octaves (caches, the partner's arrival), and
 * each growth is an allocation.  A series' first duration gets a window of
 * 2 * HIST_ROOM buckets (32 bytes), where all 160 (640 bytes, zeroed) were
 * made before: a communicator duplicated for one call paid for them. */
#define HIST_ROOM 4

void cp_timing_hist_grow(cp_timing *t, uint32_t b, uint64_t count)
{
    if (b >= CP_TIMING_HIST_N)
        b = CP_TIMING_HIST_N - 1;
    if (!t->hist && t->partial)
        return; /* no aggregates were had: no histogram either */
    uint32_t lo, hi; /* the new range [lo, hi) */
    if (!t->hist) {
        lo = b > HIST_ROOM ? b - HIST_ROOM : 0;
        hi = b + HIST_ROOM;
    } else if (b < t->hist_lo) {
        lo = b > HIST_ROOM ? b - HIST_ROOM : 0;
        hi = t->hist_lo + t->hist_n;
    } else {
        lo = t->hist_lo;
        hi = b + 1 + HIST_ROOM;
    }
    if (hi > CP_TIMING_HIST_N)
        hi = CP_TIMING_HIST_N;
    int saved = errno; /* the wrappers' errno is the application's */
    uint32_t *nh = calloc(hi - lo, sizeof *nh);
    if (!nh) {
        t->partial = true; /* this duration is lost */
        errno = saved;
        return;
    }
    if (t->hist)
        memcpy(nh + (t->hist_lo - lo), t->hist, t->hist_n * sizeof *nh);
    free(t->hist);
    errno = saved;
    t->hist = nh;
    t->hist_lo = lo;
    t->hist_n = hi - lo;
    nh[b - lo] = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
}

/* The used buckets [a, b) of a histogram, four buckets a step first: a
 * communicator freed after one call scans its 160 buckets (churn). */
static void hist_used(const uint32_t *h, uint32_t *pa, uint32_t *pb)
{
    uint32_t a = *pa, b = *pb;
    while (b - a >= 4 && (h[a] | h[a + 1] | h[a + 2] | h[a + 3]) == 0)
        a += 4;
    while (a < b && h[a] == 0)
        a++;
    while (b - a >= 4 && (h[b - 1] | h[b - 2] | h[b - 3] | h[b - 4]) == 0)
        b -= 4;
    while (b > a && h[b - 1] == 0)
        b--;
    *pa = a;
    *pb = b;
}

void cp_timing_compact(cp_timing *t)
{
    if (t->hist) {
        uint32_t a = 0, b = t->hist_n;
        hist_used(t->hist, &a, &b);
        if (a == b) {
            free(t->hist);
            t->hist = NULL;
            t->hist_n = 0;
        } else if (b - a < t->hist_n) {
            memmove(t->hist, t->hist + a, (b - a) * sizeof *t->hist);
            uint32_t *nh = realloc(t->hist, (b - a) * sizeof *nh);
            if (nh)
                t->hist = nh;
            t->hist_lo += a;
            t->hist_n = b - a;
        }
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < t->nagg; i++)
        if (t->agg[i].n)
            used = i + 1;
    if (used && used < t->nagg) {
        size_t bytes = used * sizeof *t->agg;
        cp_timing_agg *na = cp_realloc_aligned(t->agg, bytes, bytes, _Alignof(cp_timing_agg));
        if (na) {
            t->agg = na;
            t->nagg = used;
        }
    }
}

void cp_timing_free(cp_timing *t)
{
    if (t->registered)
        atomic_fetch_sub_explicit(&sampler.nseries, 1, memory_order_relaxed);
    give_blocks(t->head);
    free(t->agg);
    free(t->hist);
    *t = (cp_timing){0};
}
