/*
 * The statistics of the profile model (statistics.h): a pattern's summary
 * over its instances, its most severe instances, a series' slowest calls.
 * Computed at finalize (merge/) and by the reader; written by the stat and
 * cpt formats (writers/), which own the files' layout.
 */
#include "statistics.h"

#include <stdlib.h>
#include <string.h>

/* |x| without libm (the model links nothing). */
static double magnitude(double x)
{
    return x < 0 ? -x : x;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

double cp_stat_quantile_sorted(const double *v, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t i = (size_t)h;
    if (i + 1 >= n)
        return v[n - 1];
    return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

void cp_stat_summarize(cp_stat_pattern *p, double *values, size_t n)
{
    p->count = n;
    p->mean = p->median = p->minimum = p->maximum = p->sum = 0;
    p->variance = p->q25 = p->q75 = 0;
    if (n == 0)
        return;
    qsort(values, n, sizeof *values, cmp_double);
    /* Neumaier's compensated sum: millions of small waits would otherwise
     * lose their last digits against a large running total. */
    double sum = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double t = sum + values[i];
        if (magnitude(sum) >= magnitude(values[i]))
            c += (sum - t) + values[i];
        else
            c += (values[i] - t) + sum;
        sum = t;
    }
    sum += c;
    p->sum = sum;
    p->mean = sum / (double)n;
    p->minimum = values[0];
    p->maximum = values[n - 1];
    p->median = cp_stat_quantile_sorted(values, n, 0.5);
    if (n >= 2) {
        /* Two passes (deviations from the mean): no cancellation. */
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (values[i] - p->mean) * (values[i] - p->mean);
        p->variance = ss / (double)(n - 1);
    }
    if (n >= 5) {
        p->q25 = cp_stat_quantile_sorted(values, n, 0.25);
        p->q75 = cp_stat_quantile_sorted(values, n, 0.75);
    }
}

/* Put e at the first position whose event is less severe (after equals:
 * ties keep the earlier), shifting the rest down; the list has room. */
static void insert_event(cp_stat_pattern *p, const cp_stat_event *e)
{
    size_t at = 0;
    while (at < p->nevents && p->events[at].duration >= e->duration)
        at++;
    memmove(&p->events[at + 1], &p->events[at], (p->nevents - at) * sizeof *p->events);
    p->events[at] = *e;
    p->nevents++;
}

void cp_stat_offer_event(cp_stat_pattern *p, const cp_stat_event *e)
{
    /* The common case first: the list is full and e is no more severe than
     * its last, so it can neither enter nor replace its cnode's entry (that
     * one is at least as severe as the last). */
    if (p->nevents == CP_STAT_MAX_EVENTS && !(e->duration > p->events[p->nevents - 1].duration))
        return;
    for (size_t i = 0; i < p->nevents; i++) {
        if (p->events[i].cnode != e->cnode)
            continue;
        if (!(e->duration > p->events[i].duration))
            return;
        memmove(&p->events[i], &p->events[i + 1], (p->nevents - i - 1) * sizeof *p->events);
        p->nevents--;
        insert_event(p, e);
        return;
    }
    if (p->nevents == CP_STAT_MAX_EVENTS)
        p->nevents--; /* drop the least severe: e is more severe (above) */
    insert_event(p, e);
}

void cp_cpt_slow_offer(cp_cpt_slow *list, size_t *n, size_t max, const cp_cpt_slow *s)
{
    size_t i = *n;
    if (max == 0 || (i == max && !(s->duration > list[max - 1].duration)))
        return;
    if (i == max)
        i--;
    else
        (*n)++;
    while (i > 0 && s->duration > list[i - 1].duration) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = *s;
}
