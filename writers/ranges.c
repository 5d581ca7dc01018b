/*
 * The range-list grammar of the text formats (ranges.h): "0-5,7,9-12".
 *
 * Writer: items joined by ",", an interval lo-hi as "lo-hi", a lone value
 * alone ("7", never "7-7").
 * Parser: also ", " (and any spaces or tabs around items) as other tools
 * write it; rejects empty items, N-M with N > M, signs, values beyond
 * INT64_MAX and anything else, saying what was expected.  It works on
 * intervals only, never on the integers inside them, and in O(n log n) for
 * n items in any order, so that hostile input cannot make it slow; strided
 * items (cp_ranges_parse_strided) are listed value by value, up to a bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "grow.h"

/* ------------------------------------------------------------------ writer */

/* v's decimal text at buf[n], returning the new length (no snprintf: the
 * manifest writes one list per communicator). */
static size_t put_i64(char *buf, size_t n, int64_t v)
{
    char t[24];
    const char *d = cp_format_i64(t, v);
    size_t len = (size_t)(t + sizeof t - d);
    memcpy(buf + n, d, len);
    return n + len;
}

/* Text of one item into buf (room for three int64, two separators). */
static size_t format_item(char *buf, const cp_range *x)
{
    size_t n = put_i64(buf, 0, x->lo);
    if (x->lo == x->hi)
        return n;
    /* A progression of two values is written as two items: "4,6".  The
     * span in unsigned arithmetic: hi - lo overflows int64 for the widest
     * items (lo < 0 < hi). */
    bool two = x->step > 1 && (uint64_t)x->hi - (uint64_t)x->lo == (uint64_t)x->step;
    buf[n++] = two ? ',' : '-';
    n = put_i64(buf, n, x->hi);
    if (x->step > 1 && !two) {
        buf[n++] = '/';
        n = put_i64(buf, n, x->step);
    }
    return n;
}

int cp_ranges_write(cp_out *out, const cp_ranges *r)
{
    char buf[80];
    for (size_t i = 0; i < r->n; i++) {
        size_t n = 0;
        if (i > 0)
            buf[n++] = ',';
        n += format_item(buf + n, &r->v[i]);
        if (cp_out_write(out, buf, n) != 0)
            return -1;
    }
    return 0;
}

char *cp_ranges_to_string(const cp_ranges *r)
{
    /* At most 20 digits per number, '-', '/', ',': 64 bytes per item. */
    if (r->n > (SIZE_MAX - 1) / 64)
        return NULL;
    char *s = malloc(r->n * 64 + 1);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (i > 0)
            s[n++] = ',';
        n += format_item(s + n, &r->v[i]);
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

/* Parse every item of s[0..len) into r->v in written order (r cleared);
 * strided items only when `strided`. */
static int parse_items(const char *s, size_t len, cp_ranges *r, bool strided, const char **why)
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
        int64_t lo, hi, step = 0;
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
            if (strided && i < len && s[i] == '/') {
                i++;
                if (parse_number(s, len, &i, &step, why) != 0)
                    goto fail;
                if (step < 2 || hi == lo || (hi - lo) % step != 0) {
                    *why = "expected N-M/S with S >= 2, N < M and M - N a multiple of S";
                    goto fail;
                }
            }
        }
        if (cp_grow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v, 8)) {
            *why = "out of memory";
            goto fail;
        }
        r->v[r->n] = (cp_range){.lo = lo, .hi = hi, .step = step};
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

/* Parsed items as a SET (cp_ranges_normalise); strided ones first listed
 * value by value, each value once.  r is freed on failure. */
static int to_set(cp_ranges *r, bool strided, const char **why)
{
    int x = strided ? cp_ranges_unstride(r, CP_RANGES_MAX_STRIDED) : 0;
    if (x < 0)
        *why = errno == E2BIG ? "strided items of more than 16777216 calls in all (this reader "
                                "lists them one by one)"
                              : "out of memory";
    else if (cp_ranges_normalise(r, x > 0) != 0)
        *why = "a call listed twice";
    else
        return 0;
    cp_ranges_free(r);
    return -1;
}

int cp_ranges_parse_strided(const char *s, size_t len, cp_ranges *r, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (parse_items(s, len, r, true, why) != 0)
        return -1;
    return to_set(r, true, why);
}

int cp_ranges_parse(const char *s, size_t len, cp_ranges *r, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (parse_items(s, len, r, false, why) != 0)
        return -1;
    return to_set(r, false, why);
}

int cp_ranges_parse_ordered(const char *s, size_t len, cp_ranges *r, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (parse_items(s, len, r, false, why) != 0)
        return -1;
    /* No value twice: a sorted copy has no overlap. */
    if (r->n > 1) {
        cp_ranges sorted = {0};
        int rc = cp_ranges_copy(&sorted, r);
        bool dup = rc == 0 && cp_ranges_normalise(&sorted, true) != 0;
        cp_ranges_free(&sorted);
        if (rc != 0 || dup) {
            cp_ranges_free(r);
            *why = rc != 0 ? "out of memory" : "a value appears twice in an ordered list";
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
