/* Mergeable statistics of a pattern's instances (see wait_stats.h). */
#include "wait_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "statistics.h"
#include "grow.h"

/* Bins: value v > 0 falls in bin i = ceil(log(v) / log(g)), the values in
 * (g^(i-1), g^i]; g = (1 + a) / (1 - a), whose representative
 * 2 g^i / (g + 1) is within a of every value in it.  Values <= 0 (none in
 * practice: instances wait a positive time) share bin INT32_MIN, value 0. */
static double gamma_(void)
{
    return (1 + CP_WSTAT_ACCURACY) / (1 - CP_WSTAT_ACCURACY);
}

static int32_t bin_of(double v)
{
    static double log_g; /* log(gamma_()), once: the same value every call */
    if (!(v > 0))
        return INT32_MIN;
    if (log_g == 0)
        log_g = log(gamma_());
    double i = ceil(log(v) / log_g);
    return i < -2e9 ? -2000000000 : i > 2e9 ? 2000000000 : (int32_t)i;
}

static double value_of(int32_t i)
{
    double g = gamma_();
    return i == INT32_MIN ? 0 : 2 * pow(g, i) / (g + 1);
}

static void bin_add(cp_wstat *w, int32_t i, uint64_t count)
{
    size_t lo = cp_lower_bound_i32(w->bin, w->nbins, i);
    if (lo < w->nbins && w->bin[lo] == i) {
        w->cnt[lo] += count;
        return;
    }
    if (w->nbins == w->capbins) {
        size_t cap = w->capbins ? 2 * w->capbins : 64;
        int32_t *nb = realloc(w->bin, cap * sizeof *nb);
        if (nb)
            w->bin = nb;
        uint64_t *nc = nb ? realloc(w->cnt, cap * sizeof *nc) : NULL;
        if (!nc) {
            w->oom = true;
            return;
        }
        w->cnt = nc;
        w->capbins = cap;
    }
    memmove(w->bin + lo + 1, w->bin + lo, (w->nbins - lo) * sizeof *w->bin);
    memmove(w->cnt + lo + 1, w->cnt + lo, (w->nbins - lo) * sizeof *w->cnt);
    w->bin[lo] = i;
    w->cnt[lo] = count;
    w->nbins++;
}

/* n (bin, count) pairs, bins ascending and distinct, into w's bins: one
 * linear merge (adding them one by one moved the bins above each). */
static void bins_merge(cp_wstat *w, const int32_t *bin, const uint64_t *cnt, size_t n)
{
    if (n == 0)
        return;
    size_t cap = w->nbins + n, i = 0, j = 0, k = 0;
    int32_t *nb = malloc(cap * sizeof *nb);
    uint64_t *nc = malloc(cap * sizeof *nc);
    if (!nb || !nc) {
        free(nb);
        free(nc);
        for (size_t x = 0; x < n; x++)
            bin_add(w, bin[x], cnt[x]);
        return;
    }
    while (i < w->nbins || j < n) {
        if (j == n || (i < w->nbins && w->bin[i] < bin[j])) {
            nb[k] = w->bin[i];
            nc[k++] = w->cnt[i++];
        } else if (i == w->nbins || bin[j] < w->bin[i]) {
            nb[k] = bin[j];
            nc[k++] = cnt[j++];
        } else {
            nb[k] = bin[j];
            nc[k++] = w->cnt[i++] + cnt[j++];
        }
    }
    free(w->bin);
    free(w->cnt);
    w->bin = nb;
    w->cnt = nc;
    w->nbins = k;
    w->capbins = cap;
}

/* n values into w's bins, one by one: each bin found by a binary search. */
static void values_one_by_one(cp_wstat *w, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bin_add(w, bin_of(v[i]), 1);
}

/* n values into w's bins.  Many at once (a merge of kept values, up to
 * CP_WSTAT_EXACT): counted over the range of their bins, then joined to
 * w's in one linear merge; a search per value waited on a chain of loads
 * (measured: 12 % of the scale simulator).  Bins spread too wide for a
 * count of each, or no memory: one by one. */
static void values_into_bins(cp_wstat *w, const double *v, size_t n)
{
    int32_t *b = n >= 64 ? malloc(n * sizeof *b) : NULL;
    if (!b) {
        values_one_by_one(w, v, n);
        return;
    }
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    uint64_t zeros = 0; /* values <= 0: bin INT32_MIN, kept apart */
    for (size_t i = 0; i < n; i++) {
        b[i] = bin_of(v[i]);
        if (b[i] == INT32_MIN) {
            zeros++;
            continue;
        }
        lo = b[i] < lo ? b[i] : lo;
        hi = b[i] > hi ? b[i] : hi;
    }
    size_t range = lo <= hi ? (size_t)((int64_t)hi - lo + 1) : 0;
    uint64_t *cnt = range <= 4 * n ? calloc(range + 1, sizeof *cnt) : NULL;
    int32_t *bins = cnt ? malloc((range + 1) * sizeof *bins) : NULL;
    uint64_t *counts = bins ? malloc((range + 1) * sizeof *counts) : NULL;
    if (!counts) {
        free(cnt);
        free(bins);
        free(b);
        values_one_by_one(w, v, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (b[i] != INT32_MIN)
            cnt[b[i] - lo]++;
    size_t k = 0;
    if (zeros) {
        bins[k] = INT32_MIN;
        counts[k++] = zeros;
    }
    for (size_t j = 0; j < range; j++)
        if (cnt[j]) {
            bins[k] = (int32_t)(lo + (int64_t)j);
            counts[k++] = cnt[j];
        }
    bins_merge(w, bins, counts, k);
    free(counts);
    free(bins);
    free(cnt);
    free(b);
}

/* The kept values into bins. */
static void to_bins(cp_wstat *w)
{
    if (w->binned)
        return;
    w->binned = true;
    size_t n = (size_t)(w->n < w->capvals ? w->n : w->capvals);
    if (w->vals)
        values_into_bins(w, w->vals, n);
    free(w->vals);
    w->vals = NULL;
    w->capvals = 0;
}

/* Room for `more` values beside the kept ones; false: bin instead. */
static bool keep_room(cp_wstat *w, uint64_t have, uint64_t more)
{
    if (w->binned || have + more > CP_WSTAT_EXACT)
        return false;
    return cp_grow((void **)&w->vals, &w->capvals, have + more, sizeof *w->vals, 16) == 0;
}

/* Count, sum, extremes, mean and m2 of the union (Chan et al.). */
static void moments(cp_wstat *a, uint64_t nb, double sum, double mean, double m2, double mn,
                    double mx)
{
    if (nb == 0)
        return;
    uint64_t na = a->n, n = na + nb;
    double delta = mean - a->mean;
    a->mean += delta * (double)nb / (double)n;
    a->m2 += m2 + delta * delta * (double)na * (double)nb / (double)n;
    a->sum += sum;
    a->min = na == 0 || mn < a->min ? mn : a->min;
    a->max = na == 0 || mx > a->max ? mx : a->max;
    a->n = n;
}

void cp_wstat_add(cp_wstat *w, double v)
{
    uint64_t have = w->n;
    if (keep_room(w, have, 1)) {
        w->vals[have] = v;
    } else {
        to_bins(w);
        bin_add(w, bin_of(v), 1);
    }
    moments(w, 1, v, v, 0, v, v);
}

void cp_wstat_add_weighted(cp_wstat *w, double v, double weight)
{
    if (weight == 1) {
        cp_wstat_add(w, v);
        return;
    }
    /* The count and the quantiles take whole instances; the sum takes the
     * weight as it is, so that it is the whole-run estimate itself. */
    uint64_t n = weight < 1.5 ? 1 : (uint64_t)llround(weight);
    to_bins(w);
    bin_add(w, bin_of(v), n);
    moments(w, n, v * weight, v, 0, v, v);
}

void cp_wstat_merge(cp_wstat *into, const cp_wstat *from)
{
    uint64_t have = into->n;
    if (from->n == 0)
        return;
    if (!from->binned && keep_room(into, have, from->n)) {
        memcpy(into->vals + have, from->vals, from->n * sizeof *into->vals);
    } else {
        to_bins(into);
        if (from->binned)
            bins_merge(into, from->bin, from->cnt, from->nbins);
        else
            values_into_bins(into, from->vals, (size_t)from->n);
    }
    into->oom |= from->oom;
    moments(into, from->n, from->sum, from->mean, from->m2, from->min, from->max);
}

void cp_wstat_free(cp_wstat *w)
{
    free(w->vals);
    free(w->bin);
    free(w->cnt);
    memset(w, 0, sizeof *w);
}

/* The k-th smallest value (0-based) as the bins know it. */
static double nth(const cp_wstat *w, uint64_t k)
{
    if (k == 0)
        return w->min;
    if (k + 1 >= w->n)
        return w->max;
    uint64_t seen = 0;
    for (size_t i = 0; i < w->nbins; i++) {
        seen += w->cnt[i];
        if (k < seen) {
            double v = value_of(w->bin[i]);
            return v < w->min ? w->min : v > w->max ? w->max : v;
        }
    }
    return w->max;
}

static double quantile(const cp_wstat *w, double q)
{
    double h = q * (double)(w->n - 1), i = floor(h);
    double lo = nth(w, (uint64_t)i), hi = nth(w, (uint64_t)i + 1);
    return lo + (h - i) * (hi - lo);
}

int cp_wstat_summarize(const cp_wstat *w, cp_stat_pattern *p)
{
    if (!w->binned) {
        double *v = malloc((w->n ? w->n : 1) * sizeof *v);
        if (!v)
            return -1;
        if (w->n) /* vals is NULL when nothing was added */
            memcpy(v, w->vals, w->n * sizeof *v);
        cp_stat_summarize(p, v, w->n);
        free(v);
        return 0;
    }
    if (w->oom)
        return -1;
    p->count = w->n;
    p->sum = w->sum;
    p->mean = w->n ? w->sum / (double)w->n : 0;
    p->minimum = w->min;
    p->maximum = w->max;
    p->variance = w->n >= 2 ? w->m2 / (double)(w->n - 1) : 0;
    p->median = w->n ? quantile(w, 0.5) : 0;
    p->q25 = w->n >= 5 ? quantile(w, 0.25) : 0;
    p->q75 = w->n >= 5 ? quantile(w, 0.75) : 0;
    return 0;
}

int cp_wstat_file(cp_stat_file *st, bool documented, const cp_wstat stat[CP_NWAIT_PATTERNS],
                  const cp_stat_pattern top[CP_NWAIT_PATTERNS], const int64_t *metric_id,
                  int64_t (*cnode)(const void *ctx, int64_t placeholder), const void *ctx)
{
    memset(st, 0, sizeof *st);
    st->layout = documented ? CP_STAT_LAYOUT_DOCUMENTED : CP_STAT_LAYOUT_CUBEGUI;
    st->patterns = calloc(CP_NWAIT_PATTERNS, sizeof *st->patterns);
    if (!st->patterns)
        return -1;
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++) {
        if (stat[p].n == 0)
            continue;
        cp_stat_pattern *sp = &st->patterns[st->npatterns++];
        if (cp_wstat_summarize(&stat[p], sp))
            return -1;
        snprintf(sp->name, sizeof sp->name, "%s", cp_wait_metrics[p].uniq_name);
        sp->metric_id = documented && metric_id ? metric_id[p] : -1;
        sp->nevents = 0;
        for (size_t e = 0; e < top[p].nevents; e++) {
            cp_stat_event ev = top[p].events[e];
            ev.cnode = cnode(ctx, ev.cnode);
            if (ev.cnode >= 0)
                sp->events[sp->nevents++] = ev;
        }
    }
    return 0;
}
