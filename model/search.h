/*
 * The one binary search: the first index of a sorted sequence that is not
 * below what is looked for.  Inline, with the comparison as a function the
 * compiler sees, so that each use costs what a loop written out would; the
 * typed forms below cover the arrays of plain keys.
 */
#ifndef COLLPROF_SEARCH_H
#define COLLPROF_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first i in [0, n) for which below(ctx, i) is false, or n; below must
 * be true on a prefix of [0, n) and false after it. */
static inline size_t cp_lower_bound(size_t n, bool (*below)(const void *ctx, size_t i),
                                    const void *ctx)
{
    /* Without a branch on the comparison (a conditional move): keys that
     * come in no order make a branchy search mispredict half its steps
     * (measured: the wait statistics' bins, 16 % of the scale simulator).
     * The answer stays in [base, base + len]. */
    if (n == 0)
        return 0;
    size_t base = 0, len = n;
    while (len > 1) {
        size_t half = len / 2;
        base = below(ctx, base + half - 1) ? base + half : base;
        len -= half;
    }
    return base + below(ctx, base);
}

/* The same over sorted arrays of keys: the index of the first element >= key. */
#define CP_LOWER_BOUND_OF(name, type)                                              \
    struct name##_key {                                                            \
        const type *v;                                                             \
        type key;                                                                  \
    };                                                                             \
    static inline bool name##_below(const void *ctx, size_t i)                     \
    {                                                                              \
        const struct name##_key *k = ctx;                                          \
        return k->v[i] < k->key;                                                   \
    }                                                                              \
    static inline size_t name(const type *v, size_t n, type key)                   \
    {                                                                              \
        struct name##_key k = {v, key};                                            \
        return cp_lower_bound(n, name##_below, &k);                                \
    }
CP_LOWER_BOUND_OF(cp_lower_bound_i32, int32_t)
CP_LOWER_BOUND_OF(cp_lower_bound_i64, int64_t)
CP_LOWER_BOUND_OF(cp_lower_bound_u64, uint64_t)
#undef CP_LOWER_BOUND_OF

/* One step of a comparator (qsort, bsearch): when a and b differ, return
 * -1 or 1 from the comparator; when they are equal, go on to the next key. */
#define CP_ORDER_BY(a, b)                                                          \
    do {                                                                           \
        if ((a) != (b))                                                            \
            return (a) < (b) ? -1 : 1;                                             \
    } while (0)

#endif
