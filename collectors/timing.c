/* Timing collector: a sample by call index in pooled blocks, and exact
 * aggregates per signature (see timing.h). */
#include "timing.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>


/* The pool: one allocation at start, touched page by page, handed out block
 * by block through a free list.  Blocks are taken once per CP_TBLOCK_RECS
 * kept calls and given back when a series thins: a mutex is cheap there. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cp_tblock *pool, *free_list;
static uint64_t pool_blocks, blocks_out;
static uint64_t series_cap = 2;

int cp_timing_start(uint64_t max_records, uint64_t cap)
{
    pthread_mutex_lock(&pool_lock);
    series_cap = cap < 2 ? 2 : cap;
    free(pool);
    pool = NULL;
    free_list = NULL;
    blocks_out = 0;
    pool_blocks = (max_records + CP_TBLOCK_RECS - 1) / CP_TBLOCK_RECS;
    int rc = 0;
    if (pool_blocks) {
        pool = malloc(pool_blocks * sizeof *pool);
        if (!pool) {
            pool_blocks = 0;
            rc = -1;
        } else {
            /* Touch every page now, not on the call path. */
            memset(pool, 0, pool_blocks * sizeof *pool);
            for (uint64_t i = pool_blocks; i-- > 0;) {
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
    while (b) {
        cp_tblock *next = b->next;
        b->next = free_list;
        free_list = b;
        blocks_out--;
        b = next;
    }
    pthread_mutex_unlock(&pool_lock);
}

uint64_t cp_timing_pool_used(void)
{
    return blocks_out * CP_TBLOCK_RECS;
}

uint64_t cp_timing_pool_size(void)
{
    return pool_blocks * CP_TBLOCK_RECS;
}

uint64_t cp_timing_kept(const cp_timing *t)
{
    return t->npos;
}

/* Keep every other slot (0, 2, 4, ...: the calls whose index is a multiple
 * of twice the stride) at the front of the chain, in order, and give back
 * the blocks no longer needed.  The writer never overtakes the reader. */
static void thin(cp_timing *t)
{
    cp_tblock *rb = t->head, *wb = t->head;
    uint64_t w = 0;
    for (uint64_t r = 0; r < t->npos; r++) {
        if (r > 0 && r % CP_TBLOCK_RECS == 0)
            rb = rb->next;
        if (r % 2)
            continue;
        if (w > 0 && w % CP_TBLOCK_RECS == 0)
            wb = wb->next;
        wb->r[w % CP_TBLOCK_RECS] = rb->r[r % CP_TBLOCK_RECS];
        w++;
    }
    t->npos = w;
    t->stride *= 2;
    if (w > 0) {
        give_blocks(wb->next);
        wb->next = NULL;
        t->tail = wb;
    }
}

/* The record of the next slot, marked untimed; NULL when no block can be
 * had. */
static cp_sample_rec *push_slot(cp_timing *t)
{
    if (t->npos % CP_TBLOCK_RECS == 0) {
        cp_tblock *b = take_block();
        if (!b) {
            t->starved = true;
            return NULL;
        }
        if (t->tail)
            t->tail->next = b;
        else
            t->head = b;
        t->tail = b;
    }
    cp_sample_rec *r = &t->tail->r[t->npos % CP_TBLOCK_RECS];
    r->enter = CP_SAMPLE_UNTIMED;
    r->late = r->dur = 0;
    t->npos++;
    return r;
}

/* The stride's power of two. */
static unsigned log2_of(uint64_t stride)
{
    return stride ? (unsigned)__builtin_ctzll(stride) : 0;
}

cp_sample_rec *cp_timing_slot_kept(cp_timing *t, uint64_t idx)
{
    if (t->stride == 0)
        t->stride = 1;
    if ((idx & (t->stride - 1)) != 0 || t->starved)
        return NULL;
    /* Calls the series numbered without this function (starts of
     * persistent requests) leave their slots untimed. */
    for (;;) {
        uint64_t pos = idx >> log2_of(t->stride);
        if (pos >= series_cap) {
            thin(t);
            if ((idx & (t->stride - 1)) != 0)
                return NULL;
            continue;
        }
        while (t->npos < pos)
            if (!push_slot(t))
                return NULL;
        if (t->npos > pos)
            return NULL; /* numbered twice? keep what is there */
        return push_slot(t);
    }
}

/* The aggregates of signature sig beyond the array: made when the signature
 * is new (a new pattern: allocation is allowed then). */
cp_timing_agg *cp_timing_agg_grow(cp_timing *t, uint32_t sig)
{
    if (sig == UINT32_MAX) /* CP_SEQ_NONE: not recorded */
        return NULL;
    /* The series' first timed call comes here (its first signature): the
     * histogram is made with it. */
    if (!t->hist && !t->partial) {
        t->hist = calloc(CP_TIMING_HIST_N, sizeof *t->hist);
        if (t->hist) {
            t->hist_lo = 0;
            t->hist_n = CP_TIMING_HIST_N;
        } else {
            t->partial = true;
        }
    }
    if (sig >= t->nagg) {
        uint32_t n = t->nagg ? t->nagg : 1;
        while (n <= sig)
            n *= 2;
        cp_timing_agg *na = realloc(t->agg, n * sizeof *na);
        if (!na) {
            t->partial = true;
            return NULL;
        }
        memset(na + t->nagg, 0, (n - t->nagg) * sizeof *na);
        t->agg = na;
        t->nagg = n;
    }
    return &t->agg[sig];
}

void cp_timing_compact(cp_timing *t)
{
    if (t->hist) {
        uint32_t a = 0, b = t->hist_n;
        while (a < b && t->hist[a] == 0)
            a++;
        while (b > a && t->hist[b - 1] == 0)
            b--;
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
        cp_timing_agg *na = realloc(t->agg, used * sizeof *na);
        if (na) {
            t->agg = na;
            t->nagg = used;
        }
    }
}

void cp_timing_free(cp_timing *t)
{
    give_blocks(t->head);
    free(t->agg);
    free(t->hist);
    free(t->recs);
    free(t->paths);
    *t = (cp_timing){0};
}
