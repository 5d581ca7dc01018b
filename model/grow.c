/* Growable arrays (grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The room for `need` elements, doubled from cap (or first): 0 when its
 * size in bytes overflows. */
static size_t grown_cap(size_t cap, size_t need, size_t elem, size_t first)
{
    size_t ncap = cap ? cap : (first ? first : 1);
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return 0;
        ncap *= 2;
    }
    return elem && ncap > SIZE_MAX / elem ? 0 : ncap;
}

int cp_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t ncap = grown_cap(*cap, need, elem, first);
    void *np = ncap ? realloc(*p, ncap * elem) : NULL;
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

void *cp_realloc_aligned(void *p, size_t keep, size_t bytes, size_t align)
{
    void *np = NULL;
    if (posix_memalign(&np, align, bytes ? bytes : align))
        return NULL;
    if (keep)
        memcpy(np, p, keep < bytes ? keep : bytes);
    free(p);
    return np;
}

int cp_grow_aligned(void **p, size_t *cap, size_t need, size_t elem, size_t first, size_t align)
{
    if (need <= *cap)
        return 0;
    size_t ncap = grown_cap(*cap, need, elem, first);
    void *np = ncap ? cp_realloc_aligned(*p, *cap * elem, ncap * elem, align) : NULL;
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

int cp_grow_implicit(void **p, size_t n, size_t elem)
{
    if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
        return 0; /* room left in the power of two it has */
    size_t cap = n ? n : 8;
    return cp_grow(p, &(size_t){n}, n + 1, elem, cap) == 0 ? 0 : -1;
}
