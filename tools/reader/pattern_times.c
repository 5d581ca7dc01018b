/*
 * Time per pattern: for each distinct send matrix (block) of a (communicator,
 * collective), the recorded times of its calls — exit - start of every
 * (rank, call) of timings.cpt's sample whose call moved that matrix — and
 * the waiting time of those instances (model/wait_states.c, as `collprof
 * timings` finds it per series).  Times exist per (communicator, collective)
 * in timings.cpt; a block's calls say which of them belong to which matrix.
 *
 * Each call is looked up once among the sorted call intervals of its
 * (communicator, collective)'s blocks: O(I log R) for I timed instances and
 * R intervals.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "search.h"
#include "stat.h"
#include "wait_states.h"

typedef struct span {
    int64_t lo, hi;
    size_t entry;
} span;

typedef struct group {
    int64_t comm;
    const char *collective;
    span *spans;
    size_t nspans;
} group;

typedef struct acc {
    double *dur;
    uint64_t *calls;
    size_t n, cap;
} acc;

typedef struct ctx {
    cp_pattern_time *t;
    acc *a;
    const group *g;
    int rc;
} ctx;

static int cmp_span(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

static int cmp_group(const void *x, const void *y)
{
    const group *a = x, *b = y;
    if (a->comm != b->comm)
        return (a->comm > b->comm) - (a->comm < b->comm);
    return cp_reader_collective_cmp(a->collective, b->collective);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int cmp_block(const void *x, const void *y)
{
    uintptr_t a = (uintptr_t)((const cp_pattern_time *)x)->b;
    uintptr_t b = (uintptr_t)((const cp_pattern_time *)y)->b;
    return (a > b) - (a < b);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

struct span_key {
    const group *g;
    int64_t call;
};

static bool span_before(const void *ctx, size_t i)
{
    const struct span_key *k = ctx;
    return k->g->spans[i].hi < k->call;
}

/* The entry whose block moved `call`, or SIZE_MAX. */
static size_t entry_of(const group *g, uint64_t call)
{
    struct span_key k = {g, (int64_t)call};
    size_t lo = cp_lower_bound(g->nspans, span_before, &k);
    return lo < g->nspans && g->spans[lo].lo <= (int64_t)call ? g->spans[lo].entry : SIZE_MAX;
}

static int push(acc *a, double d, uint64_t call)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        double *nd = realloc(a->dur, cap * sizeof *nd);
        if (nd)
            a->dur = nd;
        uint64_t *nc = realloc(a->calls, cap * sizeof *nc);
        if (nc)
            a->calls = nc;
        if (!nd || !nc)
            return -1;
        a->cap = cap;
    }
    a->dur[a->n] = d;
    a->calls[a->n++] = call;
    return 0;
}

static void on_wait(void *vc, int pattern, size_t member, uint64_t call, double enter,
                    double exit, double severity)
{
    ctx *c = vc;
    (void)pattern, (void)member, (void)enter, (void)exit;
    size_t e = entry_of(c->g, call);
    if (e != SIZE_MAX) {
        c->t[e].wait += severity;
        c->t[e].wait_instances++;
    }
}

/* Waiting of one group's calls, by the analysis `collprof timings` runs. */
static int group_waits(const cp_profile *p, const group *g, const cp_cpt_series **by_rank,
                       cp_pattern_time *t)
{
    cp_wait_member *wm;
    size_t n;
    if (cp_reader_wait_members(p, g->comm, by_rank, &wm, &n))
        return -1;
    if (!wm)
        return 0;
    ctx c = {t, NULL, g, 0};
    int rc = cp_wait_states_series(g->collective, n, wm, on_wait, &c);
    free(wm);
    return rc;
}

int cp_profile_pattern_times(const cp_profile *p, cp_pattern_time **out, size_t *nout,
                             cp_error *err)
{
    *out = NULL;
    *nout = 0;
    if (!p->has_timings || !p->has_manifest)
        return 0; /* no times to give */
    size_t n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        if (p->files[f].direction == CP_SEND)
            n += p->files[f].nblocks;
    cp_pattern_time *t = calloc(n ? n : 1, sizeof *t);
    acc *a = calloc(n ? n : 1, sizeof *a);
    group *g = calloc(n ? n : 1, sizeof *g);
    size_t world = (size_t)p->timings.world_size;
    const cp_cpt_series **by_rank = calloc(world ? world : 1, sizeof *by_rank);
    size_t ng = 0;
    int rc = -1;
    if (!t || !a || !g || !by_rank)
        goto out;
    /* The send blocks, grouped by (communicator, collective). */
    n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t i = 0; p->files[f].direction == CP_SEND && i < p->files[f].nblocks; i++)
            t[n++].b = &p->files[f].blocks[i];
    for (size_t e = 0; e < n; e++) {
        group key = {t[e].b->comm_id, t[e].b->collective, NULL, 0};
        group *at = NULL;
        for (size_t k = 0; k < ng && !at; k++) /* blocks of a group come together */
            if (!cmp_group(&g[ng - 1 - k], &key))
                at = &g[ng - 1 - k];
        if (!at) {
            at = &g[ng++];
            *at = key;
        }
        const cp_ranges *calls = &t[e].b->calls;
        span *ns = realloc(at->spans, (at->nspans + calls->n) * sizeof *ns);
        if (!ns)
            goto out;
        at->spans = ns;
        for (size_t r = 0; r < calls->n; r++)
            ns[at->nspans++] = (span){calls->v[r].lo, calls->v[r].hi, e};
    }
    for (size_t k = 0; k < ng; k++)
        qsort(g[k].spans, g[k].nspans, sizeof *g[k].spans, cmp_span);
    qsort(g, ng, sizeof *g, cmp_group);
    /* Each group: its series on every rank, their instances, their waits. */
    for (size_t k = 0; k < ng; k++) {
        memset(by_rank, 0, (world ? world : 1) * sizeof *by_rank);
        for (size_t r = 0; r < world; r++)
            for (size_t i = 0; i < p->timings.chunks[r].nseries; i++) {
                const cp_cpt_series *s = &p->timings.chunks[r].series[i];
                if (s->comm_id != g[k].comm || cp_reader_collective_cmp(s->collective, g[k].collective))
                    continue;
                by_rank[r] = s;
                for (uint64_t j = 0; j < s->n; j++) {
                    size_t e = entry_of(&g[k], s->call[j]);
                    if (e != SIZE_MAX && push(&a[e], s->exit[j] - s->start[j], s->call[j]))
                        goto out;
                }
            }
        if (group_waits(p, &g[k], by_rank, t))
            goto out;
    }
    for (size_t e = 0; e < n; e++) {
        acc *x = &a[e];
        t[e].instances = x->n;
        if (!x->n)
            continue;
        qsort(x->dur, x->n, sizeof *x->dur, cmp_double);
        t[e].min = x->dur[0];
        t[e].max = x->dur[x->n - 1];
        t[e].median = cp_stat_quantile_sorted(x->dur, x->n, 0.5);
        qsort(x->calls, x->n, sizeof *x->calls, cmp_u64);
        for (size_t i = 0; i < x->n; i++)
            t[e].calls += i == 0 || x->calls[i] != x->calls[i - 1];
    }
    qsort(t, n, sizeof *t, cmp_block); /* for cp_pattern_time_find */
    rc = 0;
out:
    for (size_t e = 0; a && e < n; e++) {
        free(a[e].dur);
        free(a[e].calls);
    }
    for (size_t k = 0; g && k < ng; k++)
        free(g[k].spans);
    free(a);
    free(g);
    free(by_rank);
    if (rc) {
        free(t);
        return cp_error_set(err, "out of memory while timing the patterns");
    }
    *out = t;
    *nout = n;
    return 0;
}

const cp_pattern_time *cp_pattern_time_find(const cp_pattern_time *t, size_t n,
                                            const cp_block *b)
{
    cp_pattern_time key = {.b = b};
    return t && n ? bsearch(&key, t, n, sizeof *t, cmp_block) : NULL;
}
