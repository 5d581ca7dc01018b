/*
 * The profile model (include/collprof/profile.h): range lists and count
 * blocks.  The manifest's functions live in writers/manifest.c.
 *
 * Range lists hold closed intervals, never single integers, so that a list
 * such as "0-1000000" costs one interval: nothing here ever loops over the
 * integers of an interval, and counts are computed with saturating unsigned
 * arithmetic (a parser may be handed "0-9223372036854775807").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collprof/profile.h"

/* ------------------------------------------------------------ range lists */

/* Make room for `need` intervals. */
static int ranges_reserve(cp_ranges *r, size_t need)
{
    if (need <= r->cap)
        return 0;
    size_t cap = r->cap ? r->cap : 4;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / sizeof(cp_range)) {
            errno = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    cp_range *v = realloc(r->v, cap * sizeof *v);
    if (!v)
        return -1;
    r->v = v;
    r->cap = cap;
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

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Every integer of a list with progressions, sorted (malloc'ed); NULL when
 * memory runs out or the list is beyond reason. */
static int64_t *sorted_values(const cp_ranges *r, size_t *n)
{
    int64_t total = cp_ranges_count(r);
    if (total < 0 || (uint64_t)total > SIZE_MAX / sizeof(int64_t) / 2)
        return NULL;
    int64_t *v = malloc(((size_t)total + 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        for (int64_t x = r->v[i].lo; x <= r->v[i].hi; x += step_of(&r->v[i]))
            v[k++] = x;
    qsort(v, k, sizeof *v, cmp_i64);
    *n = k;
    return v;
}

bool cp_ranges_equal(const cp_ranges *a, const cp_ranges *b)
{
    bool same = a->n == b->n;
    for (size_t j = 0; same && j < a->n; j++)
        same = a->v[j].lo == b->v[j].lo && a->v[j].hi == b->v[j].hi &&
               step_of(&a->v[j]) == step_of(&b->v[j]);
    if (same || (!cp_ranges_strided(a) && !cp_ranges_strided(b)))
        return same;
    /* Progressions on one side: compare the integers. */
    if (cp_ranges_count(a) != cp_ranges_count(b))
        return false;
    size_t na, nb;
    int64_t *x = sorted_values(a, &na), *y = sorted_values(b, &nb);
    bool eq = x && y && na == nb && memcmp(x, y, na * sizeof *x) == 0;
    free(x);
    free(y);
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

/* ------------------------------------------------------------- count data */

void cp_block_init(cp_block *b)
{
    memset(b, 0, sizeof *b);
    b->comm_id = -1;
    b->comm_size = -1;
    b->root = -1;
}

void cp_block_free(cp_block *b)
{
    if (!b)
        return;
    cp_ranges_free(&b->comm_world_ranks);
    cp_ranges_free(&b->all_calls);
    cp_ranges_free(&b->calls);
    cp_ranges_free(&b->callsites);
    for (size_t i = 0; i < b->nrows; i++) {
        cp_ranges_free(&b->rows[i].ranks);
        free(b->rows[i].counts);
    }
    free(b->rows);
    cp_block_init(b);
}

void cp_counts_file_free(cp_counts_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nblocks; i++)
        cp_block_free(&f->blocks[i]);
    free(f->blocks);
    f->blocks = NULL;
    f->nblocks = 0;
}

bool cp_block_equal(const cp_block *a, const cp_block *b)
{
    if (a->comm_id != b->comm_id || a->comm_size != b->comm_size ||
        a->root != b->root || a->nranks != b->nranks || a->dtsize != b->dtsize ||
        a->counts_in_bytes != b->counts_in_bytes || a->row_len != b->row_len ||
        a->nrows != b->nrows)
        return false;
    if (strncmp(a->collective, b->collective, sizeof a->collective) != 0)
        return false;
    if (!cp_ranges_equal(&a->comm_world_ranks, &b->comm_world_ranks) ||
        !cp_ranges_equal(&a->all_calls, &b->all_calls) ||
        !cp_ranges_equal(&a->calls, &b->calls) || !cp_ranges_equal(&a->callsites, &b->callsites))
        return false;
    for (size_t i = 0; i < a->nrows; i++) {
        if (!cp_ranges_equal(&a->rows[i].ranks, &b->rows[i].ranks) ||
            a->rows[i].len != b->rows[i].len)
            return false;
        if (a->rows[i].len > 0 &&
            memcmp(a->rows[i].counts, b->rows[i].counts, a->rows[i].len * sizeof(int64_t)) != 0)
            return false;
    }
    return true;
}

const cp_row *cp_block_row(const cp_block *b, int64_t rank)
{
    for (size_t i = 0; i < b->nrows; i++)
        if (cp_ranges_contains(&b->rows[i].ranks, rank))
            return &b->rows[i];
    return NULL;
}

int64_t cp_block_count(const cp_block *b, int64_t rank, size_t peer)
{
    const cp_row *row = cp_block_row(b, rank);
    if (!row || peer >= row->len)
        return -1;
    return row->counts[peer];
}

bool cp_collective_rows_vary(const char *collective)
{
    return strncasecmp(collective, "Neighbor_", 9) == 0;
}

/* Collectives whose single send count is an amount for each peer (the
 * others' single count is one contribution: a reduction's, a Bcast buffer, a
 * Gather item).  Not the same question as patterns_reach.c's "whom does the
 * data reach": an Allreduce's count reaches every rank but is one amount. */
bool cp_collective_single_count_per_peer(const char *collective)
{
    static const char *const per_peer[] = {
        "Alltoall", "Allgather",          "Allgatherv",          "Reduce_scatter_block",
        "Scatter",  "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall"};
    for (size_t i = 0; i < sizeof per_peer / sizeof per_peer[0]; i++)
        if (strcasecmp(collective, per_peer[i]) == 0)
            return true;
    return false;
}
