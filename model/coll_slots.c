/* Per-collective entries, only for the collectives present (coll_slots.h). */
#include "coll_slots.h"

#include <stdlib.h>
#include <string.h>

void *cp_slots_add(cp_slots *s, unsigned k, size_t elem)
{
    void *at = cp_slots_at(s, k, elem);
    if (at || k >= CP_SLOTS_MAX)
        return at;
    size_t n = cp_slots_count(s);
    size_t i = (size_t)__builtin_popcountll(s->mask & ((UINT64_C(1) << k) - 1));
    /* Exactly n + 1: most tables hold one or two entries, and never more
     * than the collectives a communicator called. */
    char *v = realloc(s->v, (n + 1) * elem);
    if (!v)
        return NULL;
    memmove(v + (i + 1) * elem, v + i * elem, (n - i) * elem);
    memset(v + i * elem, 0, elem);
    s->v = v;
    s->mask |= UINT64_C(1) << k;
    return v + i * elem;
}

unsigned cp_slots_count(const cp_slots *s)
{
    return (unsigned)__builtin_popcountll(s->mask);
}

void cp_slots_free(cp_slots *s)
{
    free(s->v);
    s->v = NULL;
    s->mask = 0;
}
