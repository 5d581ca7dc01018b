/*
 * Range lists of the profile model (include/collprof/profile.h).
 *
 * Range lists hold closed intervals, never single integers, so that a list
 * such as "0-1000000" costs one interval: nothing here ever loops over the
 * integers of an interval, and counts are computed with saturating unsigned
 * arithmetic (a parser may be handed "0-9223372036854775807").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/profile.h"
#include "search.h"
#include "grow.h"

/* Make room for `need` intervals.  A new list gets room for one: most
 * sets are one interval (a row's ranks: the lead of a million ranks
 * holds millions of them, and room for 4 cost 80 bytes more each); it
 * doubles from there. */
static int ranges_reserve(cp_ranges *r, size_t need)
{
    if (cp_grow((void **)&r->v, &r->cap, need, sizeof *r->v, 1)) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static int ranges_append_step(cp_ranges *r, int64_t lo, int64_t hi, int64_t step)
{
    if (ranges_reserve(r, r->n + 1) != 0)
        return -1;
    r->v[r->n] = (cp_range){.lo = lo, .hi = hi, .step = step > 1 ? step : 0};
    r->n++;
    return 0;
}

static int ranges_append(cp_ranges *r, int64_t lo, int64_t hi)
{
    return ranges_append_step(r, lo, hi, 0);
}

static int64_t step_of(const cp_range *x)
{
    return x->step > 1 ? x->step : 1;
}

/* Number of integers in one item (lo <= hi, both >= 0: no overflow). */
static uint64_t range_size(const cp_range *x)
{
    return (uint64_t)(x->hi - x->lo) / (uint64_t)step_of(x) + 1u;
}

bool cp_ranges_strided(const cp_ranges *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].step > 1 && r->v[i].hi > r->v[i].lo)
            return true;
    return false;
}

int cp_ranges_add_strided(cp_ranges *r, int64_t lo, int64_t hi, int64_t step)
{
    if (lo < 0 || lo > hi || step < 1 || (step > 1 && (hi - lo) % step != 0) ||
        (r->n > 0 && lo <= r->v[r->n - 1].lo)) {
        errno = EINVAL;
        return -1;
    }
    if (lo == hi)
        step = 1;
    if (r->n > 0) {
        cp_range *last = &r->v[r->n - 1];
        int64_t ls = step_of(last);
        /* The last item goes on: contiguous, the same progression, or a
         * single value that this progression continues. */
        if (step == 1 && ls == 1 && lo == last->hi + 1) {
            last->hi = hi;
            return 0;
        }
        if (step > 1 && ls == step && lo == last->hi + step) {
            last->hi = hi;
            return 0;
        }
        if (step > 1 && last->lo == last->hi && lo - last->hi == step) {
            last->hi = hi;
            last->step = step;
            return 0;
        }
    }
    return ranges_append_step(r, lo, hi, step);
}

int cp_ranges_add(cp_ranges *r, int64_t value)
{
    return cp_ranges_add_range(r, value, value);
}

int cp_ranges_add_range(cp_ranges *r, int64_t lo, int64_t hi)
{
    if (lo < 0 || lo > hi) {
        errno = EINVAL;
        return -1;
    }
    if (r->n == 0)
        return ranges_append(r, lo, hi);

    /* Fast paths: appending in increasing order. */
    cp_range *last = &r->v[r->n - 1];
    if (lo - 1 > last->hi || (last->step > 1 && lo > last->hi)) /* lo > last->hi + 1 */
        return ranges_append(r, lo, hi);
    if (last->step > 1) { /* progressions (the merge's lists): appending only */
        errno = EINVAL;
        return -1;
    }
    if (lo >= last->lo) {
        if (hi > last->hi)
            last->hi = hi;
        return 0;
    }

    /* General case.  i: first interval that touches or follows [lo, hi]
     * (v[i].hi >= lo - 1); j: first interval entirely after it
     * (v[j].lo > hi + 1).  Intervals i..j-1 merge with [lo, hi]. */
    size_t a = 0, b = r->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (r->v[m].hi >= lo - 1)
            b = m;
        else
            a = m + 1;
    }
    size_t i = a;
    b = r->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (r->v[m].lo - 1 > hi)
            b = m;
        else
            a = m + 1;
    }
    size_t j = a;

    if (i == j) { /* touches nothing: insert at i */
        if (ranges_reserve(r, r->n + 1) != 0)
            return -1;
        memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof *r->v);
        r->v[i].lo = lo;
        r->v[i].hi = hi;
        r->n++;
        return 0;
    }
    int64_t nlo = r->v[i].lo < lo ? r->v[i].lo : lo;
    int64_t nhi = r->v[j - 1].hi > hi ? r->v[j - 1].hi : hi;
    r->v[i].lo = nlo;
    r->v[i].hi = nhi;
    memmove(&r->v[i + 1], &r->v[j], (r->n - j) * sizeof *r->v);
    r->n -= j - i - 1;
    return 0;
}

int cp_ranges_push(cp_ranges *r, int64_t value)
{
    if (value < 0) {
        errno = EINVAL;
        return -1;
    }
    if (r->n > 0 && value - 1 == r->v[r->n - 1].hi) {
        r->v[r->n - 1].hi = value;
        return 0;
    }
    return ranges_append(r, value, value);
}

bool cp_ranges_contains(const cp_ranges *r, int64_t value)
{
    size_t a = 0, b = r->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (r->v[m].hi >= value)
            b = m;
        else
            a = m + 1;
    }
    return a < r->n && r->v[a].lo <= value;
}

int64_t cp_ranges_nth(const cp_ranges *r, int64_t i)
{
    if (i < 0)
        return -1;
    uint64_t k = (uint64_t)i;
    for (size_t j = 0; j < r->n; j++) {
        uint64_t size = range_size(&r->v[j]);
        if (k < size)
            return r->v[j].lo + (int64_t)k;
        k -= size;
    }
    return -1;
}

int64_t cp_ranges_index_of(const cp_ranges *r, int64_t value)
{
    uint64_t pos = 0;
    for (size_t j = 0; j < r->n; j++) {
        if (value >= r->v[j].lo && value <= r->v[j].hi) {
            pos += (uint64_t)(value - r->v[j].lo);
            return pos > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)pos;
        }
        pos += range_size(&r->v[j]);
        if (pos > (uint64_t)INT64_MAX)
            return -1; /* beyond anything representable */
    }
    return -1;
}

int64_t cp_ranges_count(const cp_ranges *r)
{
    uint64_t total = 0;
    for (size_t j = 0; j < r->n; j++) {
        total += range_size(&r->v[j]);
        if (total > (uint64_t)INT64_MAX)
            return INT64_MAX; /* saturate */
    }
    return (int64_t)total;
}

int cp_ranges_unstride(cp_ranges *r, int64_t max)
{
    uint64_t total = 0;
    int replaced = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].step > 1) {
            total += range_size(&r->v[i]);
            replaced++;
        }
    if (replaced == 0)
        return 0;
    if (max < 0 || total > (uint64_t)max || total > SIZE_MAX / sizeof(cp_range) - r->n) {
        errno = E2BIG;
        return -1;
    }
    size_t n = r->n + (size_t)total;
    cp_range *v = malloc(n * sizeof *v);
    if (!v) {
        errno = ENOMEM;
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        const cp_range *x = &r->v[i];
        if (x->step <= 1)
            v[k++] = (cp_range){.lo = x->lo, .hi = x->hi};
        else
            for (int64_t y = x->lo; y <= x->hi; y += x->step)
                v[k++] = (cp_range){.lo = y, .hi = y};
    }
    free(r->v);
    r->v = v;
    r->n = k;
    r->cap = n;
    return replaced;
}

static int cmp_range(const void *pa, const void *pb)
{
    const cp_range *a = pa, *b = pb;
    CP_ORDER_BY(a->lo, b->lo);
    return (a->hi > b->hi) - (a->hi < b->hi);
}

int cp_ranges_normalise(cp_ranges *r, bool no_overlap)
{
    bool sorted = true;
    for (size_t i = 1; i < r->n && sorted; i++)
        sorted = r->v[i].lo >= r->v[i - 1].lo;
    if (!sorted)
        qsort(r->v, r->n, sizeof *r->v, cmp_range);
    if (no_overlap)
        for (size_t i = 1; i < r->n; i++)
            if (r->v[i].lo <= r->v[i - 1].hi) {
                errno = EEXIST;
                return -1;
            }
    size_t k = 0;
    for (size_t i = 1; i < r->n; i++) {
        if (r->v[i].lo - 1 <= r->v[k].hi) { /* touches: lo <= hi + 1 */
            if (r->v[i].hi > r->v[k].hi)
                r->v[k].hi = r->v[i].hi;
        } else {
            r->v[++k] = r->v[i];
        }
    }
    if (r->n > 0)
        r->n = k + 1;
    return 0;
}

int cp_ranges_append(cp_ranges *acc, const cp_ranges *b)
{
    if (b->n == 0)
        return 0;
    if (ranges_reserve(acc, acc->n + b->n))
        return -1;
    memcpy(acc->v + acc->n, b->v, b->n * sizeof *b->v);
    acc->n += b->n;
    return 0;
}

int cp_ranges_union(cp_ranges *acc, const cp_ranges *b)
{
    if (b->n == 0)
        return 0;
    if (acc->n == 0 || b->v[0].lo - 1 > acc->v[acc->n - 1].hi)
        return cp_ranges_append(acc, b); /* all after: nothing to merge */
    cp_range *v = malloc((acc->n + b->n) * sizeof *v);
    if (!v) {
        errno = ENOMEM;
        return -1;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < acc->n || j < b->n) {
        cp_range x = j == b->n || (i < acc->n && acc->v[i].lo <= b->v[j].lo) ? acc->v[i++]
                                                                            : b->v[j++];
        x.step = 0;
        if (k > 0 && x.lo - 1 <= v[k - 1].hi) { /* overlaps or touches */
            if (x.hi > v[k - 1].hi)
                v[k - 1].hi = x.hi;
        } else {
            v[k++] = x;
        }
    }
    free(acc->v);
    acc->cap = acc->n + b->n;
    acc->v = v;
    acc->n = k;
    return 0;
}

/* A list with progressions as the plain set of its values, into *out (a
 * copy); 0, or -1 when memory ran out. */
static int plain_copy(const cp_ranges *r, cp_ranges *out)
{
    if (cp_ranges_copy(out, r) != 0)
        return -1;
    if (cp_ranges_unstride(out, INT64_MAX) < 0 || cp_ranges_normalise(out, false) != 0) {
        cp_ranges_free(out);
        return -1;
    }
    return 0;
}

bool cp_ranges_equal(const cp_ranges *a, const cp_ranges *b)
{
    bool same = a->n == b->n;
    for (size_t j = 0; same && j < a->n; j++)
        same = a->v[j].lo == b->v[j].lo && a->v[j].hi == b->v[j].hi &&
               step_of(&a->v[j]) == step_of(&b->v[j]);
    if (same || (!cp_ranges_strided(a) && !cp_ranges_strided(b)))
        return same;
    /* Progressions on one side: compare the sets of integers. */
    if (cp_ranges_count(a) != cp_ranges_count(b))
        return false;
    cp_ranges x = {0}, y = {0};
    bool eq = plain_copy(a, &x) == 0 && plain_copy(b, &y) == 0 && cp_ranges_equal(&x, &y);
    cp_ranges_free(&x);
    cp_ranges_free(&y);
    return eq;
}

int cp_ranges_copy(cp_ranges *dst, const cp_ranges *src)
{
    cp_range *v = NULL;
    if (src->n > 0) {
        v = malloc(src->n * sizeof *v);
        if (!v)
            return -1;
        memcpy(v, src->v, src->n * sizeof *v);
    }
    dst->v = v;
    dst->n = dst->cap = src->n;
    return 0;
}

void cp_ranges_free(cp_ranges *r)
{
    if (!r)
        return;
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}
