/*
 * Which blocks of one direction share calls with which of the other
 * (reader_internal.h): the send blocks of a (communicator, collective)
 * against its receive blocks, say.  Pairwise intersection costs blocks x
 * calls (a profile of 1,000 patterns cycled through 1,000,000 calls took a
 * minute); here both sides' calls are sorted once and walked together, so
 * the cost is that of sorting the calls, plus the pairs that do share.
 */
#include <stdint.h>
#include <stdlib.h>

#include "reader_internal.h"
#include "search.h"

typedef struct span {
    int64_t lo, hi;
    size_t who;
} span;

/* The pairs found so far: open addressing on (a, b). */
typedef struct pair {
    size_t a, b;
    bool used;
    cp_ranges calls;
} pair;

typedef struct pair_map {
    pair *slots;
    size_t n, nslots;
} pair_map;

static size_t slot_of(const pair_map *m, size_t a, size_t b)
{
    uint64_t h = ((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b * 0xc2b2ae3d27d4eb4full);
    size_t i = (size_t)(h ^ (h >> 29)) & (m->nslots - 1);
    while (m->slots[i].used && (m->slots[i].a != a || m->slots[i].b != b))
        i = (i + 1) & (m->nslots - 1);
    return i;
}

static pair *pair_get(pair_map *m, size_t a, size_t b)
{
    if (2 * (m->n + 1) > m->nslots) {
        pair_map g = {calloc(m->nslots ? m->nslots * 2 : 64, sizeof(pair)), m->n,
                      m->nslots ? m->nslots * 2 : 64};
        if (!g.slots)
            return NULL;
        for (size_t i = 0; i < m->nslots; i++)
            if (m->slots[i].used)
                g.slots[slot_of(&g, m->slots[i].a, m->slots[i].b)] = m->slots[i];
        free(m->slots);
        *m = g;
    }
    pair *p = &m->slots[slot_of(m, a, b)];
    if (!p->used) {
        *p = (pair){a, b, true, {0}};
        m->n++;
    }
    return p;
}

static int cmp_span(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->lo < q->lo ? -1 : p->lo > q->lo;
}

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = *(pair *const *)x, *q = *(pair *const *)y;
    CP_ORDER_BY(p->a, q->a);
    return p->b < q->b ? -1 : p->b > q->b;
}

/* The sets' items as spans sorted by lo; false when two overlap (or no
 * memory: *oom), and then the caller intersects pair by pair. */
static bool spans_of(const cp_ranges *const *sets, size_t n, span **out, size_t *len, bool *oom)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += sets[i] ? sets[i]->n : 0;
    span *s = malloc((total ? total : 1) * sizeof *s);
    if (!s) {
        *oom = true;
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; sets[i] && r < sets[i]->n; r++)
            s[k++] = (span){sets[i]->v[r].lo, sets[i]->v[r].hi, i};
    qsort(s, k, sizeof *s, cmp_span);
    for (size_t i = 1; i < k; i++)
        if (s[i].lo <= s[i - 1].hi) {
            free(s);
            return false;
        }
    *out = s;
    *len = k;
    return true;
}

int cp_reader_common_calls(const cp_ranges *const *a, size_t na, const cp_ranges *const *b,
                           size_t nb, cp_common_fn fn, void *ctx)
{
    span *sa = NULL, *sb = NULL;
    size_t la = 0, lb = 0;
    bool oom = false;
    if (!spans_of(a, na, &sa, &la, &oom) || !spans_of(b, nb, &sb, &lb, &oom)) {
        free(sa);
        if (oom)
            return -1;
        /* overlapping sets (a broken file): pair by pair */
        cp_ranges both = {0};
        int rc = 0;
        for (size_t i = 0; i < na && rc == 0; i++)
            for (size_t j = 0; j < nb && rc == 0; j++) {
                if (!a[i] || !b[j])
                    continue;
                both.n = 0;
                for (size_t x = 0, y = 0; x < a[i]->n && y < b[j]->n;) {
                    int64_t lo = a[i]->v[x].lo > b[j]->v[y].lo ? a[i]->v[x].lo : b[j]->v[y].lo;
                    int64_t hi = a[i]->v[x].hi < b[j]->v[y].hi ? a[i]->v[x].hi : b[j]->v[y].hi;
                    if (lo <= hi && cp_ranges_add_range(&both, lo, hi) < 0)
                        rc = -1;
                    if (a[i]->v[x].hi < b[j]->v[y].hi)
                        x++;
                    else
                        y++;
                }
                if (rc == 0 && both.n)
                    rc = fn(ctx, i, j, &both);
            }
        cp_ranges_free(&both);
        return rc;
    }
    /* Walk both sorted lists: each overlap is a piece of a pair's calls,
     * found in increasing call order, so each pair's set only grows at its
     * end.  Pairs are found again through a hash table. */
    pair_map m = {0};
    int rc = 0;
    for (size_t i = 0, j = 0; i < la && j < lb && rc == 0;) {
        int64_t lo = sa[i].lo > sb[j].lo ? sa[i].lo : sb[j].lo;
        int64_t hi = sa[i].hi < sb[j].hi ? sa[i].hi : sb[j].hi;
        if (lo <= hi) {
            pair *q = pair_get(&m, sa[i].who, sb[j].who);
            rc = q ? cp_ranges_add_range(&q->calls, lo, hi) : -1;
        }
        if (sa[i].hi < sb[j].hi)
            i++;
        else
            j++;
    }
    free(sa);
    free(sb);
    pair **order = rc == 0 ? malloc((m.n ? m.n : 1) * sizeof *order) : NULL;
    if (rc == 0 && !order)
        rc = -1;
    for (size_t i = 0, k = 0; rc == 0 && i < m.nslots; i++)
        if (m.slots[i].used)
            order[k++] = &m.slots[i];
    if (rc == 0)
        qsort(order, m.n, sizeof *order, cmp_pair);
    for (size_t i = 0; rc == 0 && i < m.n; i++)
        rc = fn(ctx, order[i]->a, order[i]->b, &order[i]->calls);
    free(order);
    for (size_t i = 0; i < m.nslots; i++)
        cp_ranges_free(&m.slots[i].calls);
    free(m.slots);
    return rc;
}
