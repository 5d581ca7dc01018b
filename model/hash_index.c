/* Open-addressing hash index, linear probing, load kept at most one half. */
#include "hash_index.h"

#include <stdlib.h>
#include <string.h>

/* The hashes and the ids share one allocation (the ids after the hashes):
 * finalize makes and frees a few dozen small indexes per communicator. */
void cp_index_free(cp_index *ix)
{
    free(ix->hashes);
    memset(ix, 0, sizeof *ix);
}

uint32_t cp_index_find(const cp_index *ix, uint64_t h, cp_index_match_fn match, const void *ctx)
{
    if (!ix->cap)
        return CP_INDEX_EMPTY;
    size_t mask = ix->cap - 1;
    for (size_t i = h & mask; ix->ids[i] != CP_INDEX_EMPTY; i = (i + 1) & mask)
        if (ix->hashes[i] == h && match(ctx, ix->ids[i]))
            return ix->ids[i];
    return CP_INDEX_EMPTY;
}

static void put_nogrow(cp_index *ix, uint64_t h, uint32_t id)
{
    size_t mask = ix->cap - 1, i = h & mask;
    while (ix->ids[i] != CP_INDEX_EMPTY)
        i = (i + 1) & mask;
    ix->hashes[i] = h;
    ix->ids[i] = id;
    ix->n++;
}

int cp_index_put(cp_index *ix, uint64_t h, uint32_t id)
{
    if (2 * (ix->n + 1) > ix->cap) {
        cp_index big = {.cap = ix->cap ? ix->cap * 2 : 4};
        big.hashes = malloc(big.cap * (sizeof *big.hashes + sizeof *big.ids));
        if (!big.hashes)
            return -1;
        big.ids = (uint32_t *)(big.hashes + big.cap);
        memset(big.ids, 0xff, big.cap * sizeof *big.ids);
        for (size_t i = 0; i < ix->cap; i++)
            if (ix->ids[i] != CP_INDEX_EMPTY)
                put_nogrow(&big, ix->hashes[i], ix->ids[i]);
        cp_index_free(ix);
        *ix = big;
    }
    put_nogrow(ix, h, id);
    return 0;
}
