/*
 * Growable arrays, the one way to grow them: the capacity doubles, so that
 * n appends cost O(n) copies in all.  Two forms: with a capacity field
 * (cp_grow), and without one, the capacity implied by the count
 * (cp_grow_implicit: for arrays of the model, whose structs keep no
 * capacity, built only by appends from empty).
 */
#ifndef COLLPROF_GROW_H
#define COLLPROF_GROW_H

#include <stddef.h>

/* Room for `need` elements of `elem` bytes in *p, whose room is *cap
 * (doubled, from at least `first`, until it holds need).  0, or -1 with
 * *p and *cap unchanged when memory runs out or the size overflows. */
int cp_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);

/* cp_grow for arrays whose elements must stay on `align`-byte boundaries
 * (a power of two, a multiple of sizeof(void *)), which realloc does not
 * keep. */
int cp_grow_aligned(void **p, size_t *cap, size_t need, size_t elem, size_t first, size_t align);

/* realloc keeping `align` (as for cp_grow_aligned): a new block of `bytes`
 * holding the first `keep` bytes of p, p freed; NULL with p unchanged when
 * memory runs out. */
void *cp_realloc_aligned(void *p, size_t keep, size_t bytes, size_t align);

/* Room for one more element after n in *p, an array grown only by this
 * from NULL: its room is 8 elements, then the next power of two above n
 * (so it is reallocated when n is 0, or a power of two from 8 on).  0, or
 * -1 with *p unchanged. */
int cp_grow_implicit(void **p, size_t n, size_t elem);

/* Several arrays in one allocation: carve `n` elements of `size` bytes
 * from the block at *at (block NULL: room counting only, a first pass),
 * kept aligned to `size`.  Largest elements first wastes nothing. */
static inline void *cp_carve(char *block, size_t *at, size_t n, size_t size)
{
    *at = (*at + size - 1) / size * size;
    void *p = block ? block + *at : NULL;
    *at += n * size;
    return p;
}

#endif
