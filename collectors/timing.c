/* Timing collector: records within a rank-wide budget (see timing.h). */
#include "timing.h"

#include <stdlib.h>

static uint64_t budget;
static _Atomic uint64_t used;

void cp_timing_set_budget(uint64_t max_records)
{
    budget = max_records;
    atomic_store(&used, 0);
}

static void aggregate(cp_timing *t, const cp_timing_rec *r)
{
    t->naggregated++;
    t->agg_time += r->exit - r->start;
    t->agg_late += r->start - r->enter;
}

void cp_timing_add(cp_timing *t, const cp_timing_rec *r)
{
    if (t->partial || atomic_fetch_add_explicit(&used, 1, memory_order_relaxed) >= budget) {
        aggregate(t, r);
        return;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4;
        cp_timing_rec *nr = realloc(t->recs, cap * sizeof *nr);
        if (!nr) {
            t->partial = true;
            aggregate(t, r);
            return;
        }
        t->recs = nr;
        t->cap = cap;
    }
    t->recs[t->n++] = *r;
}

void cp_timing_compact(cp_timing *t)
{
    if (t->n == 0 || t->n >= t->cap)
        return;
    cp_timing_rec *nr = realloc(t->recs, t->n * sizeof *nr);
    if (nr) {
        t->recs = nr;
        t->cap = t->n;
    }
}

void cp_timing_free(cp_timing *t)
{
    free(t->recs);
    free(t->paths);
    *t = (cp_timing){0};
}
