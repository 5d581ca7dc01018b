/*
 * The strata of a whole-run waiting estimate on one rank: per call site
 * (form, call path) of one series, the exact time and number of its timed
 * calls, and of the calls the wait-state analysis saw in the sample their
 * time and their waiting (model/wait_states.h: cp_wait_factor).  Finalize
 * fills one per series from the collector's aggregates and its records; the
 * reader one per (rank, series) from timings.cpt: the same strata, the same
 * factors, the same numbers.
 */
#ifndef COLLPROF_WAIT_SITES_H
#define COLLPROF_WAIT_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cp_wsite {
    uint32_t form, path;
    double t;           /* exact time in the call of every timed call */
    uint64_t timed;     /* and how many */
    double x, y;        /* the analysed sampled calls' time and waiting */
    uint64_t analysed;
    double factor;      /* cp_wsites_finish: what each sampled waiting counts */
} cp_wsite;

typedef struct cp_wsites {
    cp_wsite *v;
    size_t n, cap;
    bool oom;
} cp_wsites;

/* The site (form, path), added when new; NULL when memory ran out (then
 * s->oom).  Sites of a series are few: a linear search. */
cp_wsite *cp_wsites_get(cp_wsites *s, uint32_t form, uint32_t path);

/* Each call site's exact time and timed calls, from the timing
 * collector's aggregates per signature of the counts collector (ticks of
 * `tick` seconds). */
struct cp_counts;
struct cp_timing;
void cp_wsites_totals(cp_wsites *s, const struct cp_counts *c, const struct cp_timing *t,
                      double tick);

/* Each site's factor (cp_wait_factor): exact where the sample analysed
 * every timed call of the site; bounded by the time in the call unless
 * the run timed in barrier mode. */
void cp_wsites_finish(cp_wsites *s, bool bounded);

void cp_wsites_free(cp_wsites *s);

#endif
