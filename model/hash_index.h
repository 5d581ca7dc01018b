/*
 * A small open-addressing index from 64-bit hashes to ids (positions in an
 * array its owner keeps), shared by every layer: the counts tables and
 * their merge, the communicator registry, the Cube builder.
 */
#ifndef COLLPROF_HASH_INDEX_H
#define COLLPROF_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_INDEX_EMPTY UINT32_MAX

typedef struct cp_index {
    uint64_t *hashes;
    uint32_t *ids;
    size_t cap, n;
} cp_index;

/* Does entry `id` hold the key being looked up? */
typedef bool (*cp_index_match_fn)(const void *ctx, uint32_t id);

static inline uint64_t cp_hash_mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

uint32_t cp_index_find(const cp_index *ix, uint64_t h, cp_index_match_fn match, const void *ctx);
/* Returns 0, or -1 on allocation failure (the index is unchanged). */
int cp_index_put(cp_index *ix, uint64_t h, uint32_t id);
void cp_index_free(cp_index *ix);

#endif
