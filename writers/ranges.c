/*
 * The range-list grammar of the text formats (ranges.h): "0-5,7,9-12".
 *
 * Writer: items joined by ",", an interval lo-hi as "lo-hi", a lone value
 * alone ("7", never "7-7").
 * Parser: also ", " (and any spaces or tabs around items) as other tools
 * write it; rejects empty items, N-M with N > M, signs, values beyond
 * INT64_MAX and anything else, saying what was expected.  It works on
 * intervals only, never on the integers inside them, and in O(n log n) for
 * n items in any order, so that hostile input cannot make it slow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"

/* ------------------------------------------------------------------ writer */

/* Text of one item into buf (room for two int64 and '-'). */
static size_t format_item(char *buf, size_t size, const cp_range *x)
{
    int n = x->lo == x->hi ? snprintf(buf, size, "%" PRId64, x->lo)
                           : snprintf(buf, size, "%" PRId64 "-%" PRId64, x->lo, x->hi);
    return n < 0 ? 0 : (size_t)n;
}

int cp_ranges_write(cp_out *out, const cp_ranges *r)
{
    char buf[64];
    for (size_t i = 0; i < r->n; i++) {
        size_t n = 0;
        if (i > 0)
            buf[n++] = ',';
        n += format_item(buf + n, sizeof buf - n, &r->v[i]);
        if (cp_out_write(out, buf, n) != 0)
            return -1;
    }
    return 0;
}

char *cp_ranges_to_string(const cp_ranges *r)
{
    /* At most 20 digits per bound, '-', ',': 42 bytes per item. */
    if (r->n > (SIZE_MAX - 1) / 42)
        return NULL;
    char *s = malloc(r->n * 42 + 1);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (i > 0)
            s[n++] = ',';
        n += format_item(s + n, 42, &r->v[i]);
    }
    s[n] = '\0';
    return s;
}

/* ------------------------------------------------------------------ parser */

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A non-negative decimal integer at s[*i..len): digits only. */
static int parse_number(const char *s, size_t len, size_t *i, int64_t *out, const char **why)
{
    size_t k = *i;
    if (k >= len || !is_digit(s[k])) {
        *why = "expected a non-negative integer";
        return -1;
    }
    int64_t v = 0;
    while (k < len && is_digit(s[k])) {
        int d = s[k] - '0';
        if (v > (INT64_MAX - d) / 10) {
            *why = "number too large (more than 9223372036854775807)";
            return -1;
        }
        v = v * 10 + d;
        k++;
    }
    *i = k;
    *out = v;
    return 0;
}

/* Parse every item of s[0..len) into r->v in written order (r cleared). */
static int parse_items(const char *s, size_t len, cp_ranges *r, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    cp_ranges_free(r);
    size_t i = 0;
    while (i < len && is_space(s[i]))
        i++;
    if (i == len) {
        *why = "expected a range list such as 0-5,7, found nothing";
        return -1;
    }
    for (;;) {
        /* item */
        while (i < len && is_space(s[i]))
            i++;
        if (i == len || s[i] == ',') {
            *why = "empty item in range list (expected N or N-M)";
            goto fail;
        }
        int64_t lo, hi;
        if (parse_number(s, len, &i, &lo, why) != 0)
            goto fail;
        hi = lo;
        if (i < len && s[i] == '-') {
            i++;
            if (parse_number(s, len, &i, &hi, why) != 0)
                goto fail;
            if (hi < lo) {
                *why = "expected N-M with N <= M";
                goto fail;
            }
        }
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 8;
            cp_range *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(r->v, cap * sizeof *v);
            if (!v) {
                *why = "out of memory";
                goto fail;
            }
            r->v = v;
            r->cap = cap;
        }
        r->v[r->n].lo = lo;
        r->v[r->n].hi = hi;
        r->n++;
        /* separator or end */
        while (i < len && is_space(s[i]))
            i++;
        if (i == len)
            return 0;
        if (s[i] != ',') {
            *why = is_digit(s[i]) ? "expected ',' between items"
                                  : "unexpected character in range list (expected N, N-M "
                                    "or ',')";
            goto fail;
        }
        i++;
    }
fail:
    cp_ranges_free(r);
    return -1;
}

static int cmp_range(const void *pa, const void *pb)
{
    const cp_range *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return 0;
}

static bool sorted_by_lo(const cp_ranges *r)
{
    for (size_t i = 1; i < r->n; i++)
        if (r->v[i].lo < r->v[i - 1].lo)
            return false;
    return true;
}

int cp_ranges_parse(const char *s, size_t len, cp_ranges *r, const char **why)
{
    if (parse_items(s, len, r, why) != 0)
        return -1;
    /* Normalise: sort, then merge overlapping and adjacent intervals. */
    if (!sorted_by_lo(r))
        qsort(r->v, r->n, sizeof *r->v, cmp_range);
    size_t k = 0;
    for (size_t i = 1; i < r->n; i++) {
        if (r->v[i].lo - 1 <= r->v[k].hi) { /* touches: lo <= hi + 1 */
            if (r->v[i].hi > r->v[k].hi)
                r->v[k].hi = r->v[i].hi;
        } else {
            r->v[++k] = r->v[i];
        }
    }
    r->n = k + 1;
    return 0;
}

int cp_ranges_parse_ordered(const char *s, size_t len, cp_ranges *r, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (parse_items(s, len, r, why) != 0)
        return -1;
    /* No value twice: sort a copy and look for an overlap. */
    if (r->n > 1) {
        cp_range *sorted = malloc(r->n * sizeof *sorted);
        if (!sorted) {
            cp_ranges_free(r);
            *why = "out of memory";
            return -1;
        }
        memcpy(sorted, r->v, r->n * sizeof *sorted);
        qsort(sorted, r->n, sizeof *sorted, cmp_range);
        bool dup = false;
        for (size_t i = 1; i < r->n && !dup; i++)
            dup = sorted[i].lo <= sorted[i - 1].hi;
        free(sorted);
        if (dup) {
            cp_ranges_free(r);
            *why = "a value appears twice in an ordered list";
            return -1;
        }
    }
    /* Same intervals as cp_ranges_push would build: join "0-2,3" into 0-3. */
    size_t k = 0;
    for (size_t i = 1; i < r->n; i++) {
        if (r->v[i].lo - 1 == r->v[k].hi)
            r->v[k].hi = r->v[i].hi;
        else
            r->v[++k] = r->v[i];
    }
    r->n = k + 1;
    return 0;
}
