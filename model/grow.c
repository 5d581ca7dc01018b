/* Growable arrays (grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int cp_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : (first ? first : 1);
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return -1;
    void *np = realloc(*p, ncap * elem);
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
