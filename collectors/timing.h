/*
 * Timing collector: when each call entered and left, per (communicator,
 * collective), in memory that does not grow with the length of the run.
 *
 * Every timed call adds to exact aggregates kept per call signature (so per
 * call path): count, summed execution and late-arrival time, shortest and
 * longest call, in clock ticks.  Individual enter/exit times are kept for a
 * SAMPLE of the calls chosen by call index alone, one call in each block of
 * 2^level consecutive calls: which one is a hash of the block and the level
 * (cp_timing_chosen), the same on every member of the communicator, so
 * that the members keep the same calls and wait states stay computable,
 * and a pattern that repeats with a period cannot line up with the sample
 * (as it would with every 2^level-th call).  When the series has kept its
 * share of the pool, the level goes up and the sample is thinned: of the
 * two calls kept in blocks 2j and 2j+1 the one the hash chooses for block j
 * at the next level stays, so the sample at a level is a subset of the
 * sample at every lower level: members whose series thinned to different
 * levels still share the calls of the coarsest one.  A kept call stands for
 * the 2^level calls of its block: waiting times found in the sample are
 * scaled by that to describe the whole run.
 *
 * A series' share: COLLPROF_TIMING_SAMPLE records when set, else (auto) the
 * pool divided among the series that keep samples on this rank, so that one
 * busy series uses the whole pool.  When the pool runs dry a series above
 * its share thins at its next kept call and gives blocks back.
 *
 * A kept call is a 16-byte record in fixed-size blocks taken from a
 * rank-wide pool that is allocated and touched at start: no allocation and
 * no first touch of a page on the call path.  When the pool runs dry (more
 * series than the budget holds at their cap), a series keeps what it has
 * and its later calls count in the aggregates only; the output says so.
 *
 * Times are ticks of this rank's clock (lib/clock.h) until finalize turns
 * the sample into cp_timing_rec records in seconds, a product of its own
 * (cp_sample, lib/finalize/finalize_timing.h): this state is only read.
 */
#ifndef COLLPROF_TIMING_H
#define COLLPROF_TIMING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing_hist.h"

/* A kept call as finalize uses it: one row of cp_timing_cols (below). */
typedef struct cp_timing_rec {
    uint64_t call;  /* call index on its (communicator, collective) */
    double enter;   /* arrival in the wrapper */
    double start;   /* the MPI call proper began (after the barrier in
                       barrier mode; == enter otherwise) */
    double exit;
    int32_t root;   /* communicator-local root, -1 when not rooted */
    uint8_t flags;  /* enum cp_cpt_call_flag (collprof/profile.h) */
    uint8_t form;   /* enum cp_form (model/mpi_facts.h), from its signature */
} cp_timing_rec;

/* A series' kept calls as finalize uses them: a column per field, as
 * timings.cpt's model (cp_cpt_series) holds them, so that its writer takes
 * the columns as they are.  Copied into a model of its own they were 41
 * more bytes of fresh memory a kept call at finalize.  One call's fields
 * are read and written as a cp_timing_rec. */
typedef struct cp_timing_cols {
    uint64_t *call;
    double *enter, *start, *exit;
    int32_t *root;
    uint8_t *flags, *form;
} cp_timing_cols;

static inline cp_timing_rec cp_timing_cols_get(const cp_timing_cols *c, size_t i)
{
    return (cp_timing_rec){.call = c->call[i], .enter = c->enter[i], .start = c->start[i],
                           .exit = c->exit[i], .root = c->root[i], .flags = c->flags[i],
                           .form = c->form[i]};
}

static inline void cp_timing_cols_put(cp_timing_cols *c, size_t i, cp_timing_rec r)
{
    c->call[i] = r.call;
    c->enter[i] = r.enter;
    c->start[i] = r.start;
    c->exit[i] = r.exit;
    c->root[i] = r.root;
    c->flags[i] = r.flags;
    c->form[i] = r.form;
}

/* A kept call as the collector stores it: 16 bytes. */
typedef struct cp_sample_rec {
    uint64_t enter; /* the clock's stamp (clock.h; its low 56 bits: finalize
                       counts them from the clock's origin), flags in the
                       top byte; CP_SAMPLE_UNTIMED: a call of the
                       sample this rank did not time (paused, say) */
    float late;     /* start - enter, ticks */
    float dur;      /* exit - start, ticks */
} cp_sample_rec;

#define CP_SAMPLE_UNTIMED UINT64_MAX
#define CP_SAMPLE_FLAG_SHIFT 56
#define CP_TBLOCK_RECS 16

typedef struct cp_tblock {
    struct cp_tblock *next;
    cp_sample_rec r[CP_TBLOCK_RECS];
} cp_tblock;

/* Exact sums of the timed calls of one signature (ticks). */
/* One line each, on a line's boundary (agg_grow): a timed call changes one
 * signature's aggregate, and 40 bytes packed would cross into a second line
 * for two signatures in five. */
typedef struct cp_timing_agg {
    _Alignas(64) uint64_t n;
    uint64_t time, late;
    uint64_t min, max; /* of exit - start */
} cp_timing_agg;

typedef struct cp_timing {
    /* First, on one line, what every timed call reads: the gate of the
     * sample, the aggregates and the histogram; and what a call the sample
     * keeps reads and changes of it (while a series keeps every call, its
     * first ones, that is every call: no second line). */
    uint64_t gate;         /* calls below it need no look (>= next) */
    /* exact aggregates, per signature id of the counts collector */
    cp_timing_agg *agg;
    /* the series' durations: hist[i] counts bucket hist_lo + i; made with
     * the first duration, a few buckets around it, grown as durations fall
     * outside, trimmed to its used part once the communicator is freed */
    uint32_t *hist;
    uint32_t nagg;
    uint32_t hist_lo, hist_n;
    /* the sample */
    uint8_t level;         /* blocks of 2^level calls */
    bool registered;       /* counted among the series that share the pool */
    uint64_t npos;         /* slots used: one per block, blocks 0 .. npos-1 */
    uint64_t next;         /* the call the sample keeps next (of block npos) */
    cp_tblock *tail;
    /* Second line: first calls, thinning, finalize. */
    cp_tblock *head;
    uint64_t stride;       /* 2^level: calls per block (0 before the first call) */
    bool partial;         /* memory ran out for the aggregates */
    bool starved;          /* the pool ran dry once: some calls of the sample
                              are missing (their slots untimed) */
} cp_timing;
_Static_assert(offsetof(cp_timing, tail) + sizeof(cp_tblock *) <= 64,
               "a timed call, kept or not, reads one line of its series' timing");

/* Set up the pool: `max_records` records per rank, allocated and touched
 * now; `cap` records per series at most before it thins (>= 2).  Returns 0,
 * or -1 when the pool cannot be had (then nothing is kept, aggregates
 * only). */
int cp_timing_start(uint64_t max_records, uint64_t cap);

/* cp_timing_slot past the gate.  Leaves errno as it found it (the pool was
 * allocated at start; its mutex sets no errno): the wrappers call it
 * without saving errno. */
cp_sample_rec *cp_timing_slot_kept(cp_timing *t, uint64_t idx);
cp_timing_agg *cp_timing_agg_grow(cp_timing *t, uint32_t sig);

/* Right after cp_timing_slot gave call idx its slot: while the series keeps
 * every call (level 0), the slots of the calls after it up to the end of
 * the slot's block (and within the series' share), taken now, so that a
 * repeated call can be handed its slot without reading this series' line
 * or the sampler's (call_memo.h: one look here per block of
 * CP_TBLOCK_RECS calls).  *first is the first of them, for call idx + 1;
 * they are not marked untimed: each is marked when handed out.  Returns
 * how many (0: none, the state unchanged).  Before anything else reads or
 * changes the sample, the ones not handed out are given back
 * (cp_timing_unreserve). */
uint32_t cp_timing_reserve(cp_timing *t, cp_sample_rec **first);
/* The last n slots reserved, not handed out, given back. */
void cp_timing_unreserve(cp_timing *t, uint32_t n);

/* Where a call's times go: the record of call idx when it belongs to the
 * sample (marked untimed until cp_timing_add fills it), else NULL.  Called
 * for every numbered call of the series, in call order, by one thread at a
 * time (MPI orders collectives on a communicator).  Inline: most calls are
 * not in the sample, and the next kept call is known: one compare. */
static inline cp_sample_rec *cp_timing_slot(cp_timing *t, uint64_t idx)
{
    if (idx < t->gate)
        return NULL;
    return cp_timing_slot_kept(t, idx);
}

/* The call the sample keeps in block b of 2^level calls (the same on every
 * rank: a hash of the block at each level and of the run's seed, see
 * above). */
uint64_t cp_timing_chosen(uint64_t b, unsigned level);
/* The run's seed, the same on every rank (COLLPROF_TIMING_SEED: drawn anew
 * each run unless given), set before the first call: a workload that
 * repeats from run to run meets another sample in each run, so that the
 * estimate's error does not repeat with it. */
void cp_timing_seed(uint64_t seed);
/* The sampler with a given seed: what bench/bench_estimate.c draws many
 * samples of one run with, to measure the estimate's bias and the honesty
 * of its standard error. */
uint64_t cp_timing_chosen_seeded(uint64_t b, unsigned level, uint64_t seed);

/* cp_timing_hist_add for a bucket outside the histogram (or the first):
 * made or grown to take it, then counted (cold). */
void cp_timing_hist_grow(cp_timing *t, uint32_t b, uint64_t count);

/* count calls of histogram bucket b into the series' histogram; a
 * bucket's count saturates. */
static inline void cp_timing_hist_add(cp_timing *t, uint32_t b, uint64_t count)
{
    uint32_t i = b - t->hist_lo;
    if (__builtin_expect(!t->hist || i >= t->hist_n, 0)) {
        cp_timing_hist_grow(t, b, count);
        return;
    }
    uint64_t sum = t->hist[i] + count;
    t->hist[i] = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

/* A slot of the sample whose call has not been timed (yet): what a profile
 * written meanwhile reads, and what stays when the call is never timed. */
static inline void cp_sample_untimed(cp_sample_rec *rec)
{
    rec->enter = CP_SAMPLE_UNTIMED;
    rec->late = rec->dur = 0;
}

/* A kept call's record: enter (the clock's stamp, 56 bits kept), its
 * flags, how late it started and how long it took. */
static inline void cp_sample_put(cp_sample_rec *rec, uint64_t enter, uint64_t late,
                                 uint64_t dur, uint8_t flags)
{
    rec->enter = (enter & ((UINT64_C(1) << CP_SAMPLE_FLAG_SHIFT) - 1)) |
                 ((uint64_t)flags << CP_SAMPLE_FLAG_SHIFT);
    rec->late = (float)late;
    rec->dur = (float)dur;
}

/* A timed call of signature sig (CP_SEQ_NONE: none) took these stamps
 * (ticks); rec is its cp_timing_slot, or NULL.  Never fails: running out of
 * memory for a new signature's aggregates marks the table partial. */
static inline void cp_timing_add(cp_timing *t, cp_sample_rec *rec, uint32_t sig,
                                 uint64_t enter, uint64_t start, uint64_t exit, uint8_t flags)
{
    uint64_t dur = exit > start ? exit - start : 0, late = start > enter ? start - enter : 0;
    cp_timing_agg *a = sig < t->nagg ? &t->agg[sig] : cp_timing_agg_grow(t, sig);
    cp_timing_hist_add(t, cp_timing_hist_index(dur), 1);
    if (a) {
        a->min = a->n == 0 || dur < a->min ? dur : a->min;
        a->max = dur > a->max ? dur : a->max;
        a->n++;
        a->time += dur;
        a->late += late;
    }
    if (rec)
        cp_sample_put(rec, enter, late, dur, flags);
}

/* Shrink the aggregates and the histogram to what they hold (the
 * communicator was freed). */
void cp_timing_compact(cp_timing *t);

/* How many calls of the series the sample kept (untimed ones included). */
uint64_t cp_timing_kept(const cp_timing *t);

/* Records of the pool in use, and its size: what the unit tests check of
 * blocks taken and given back. */
uint64_t cp_timing_pool_used(void);
uint64_t cp_timing_pool_size(void);

void cp_timing_free(cp_timing *t);

#endif
