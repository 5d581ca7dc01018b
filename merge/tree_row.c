/* A counts tree's row values (see tree_row.h). */
#include "tree_row.h"

#include <stdlib.h>

int cp_trow_set(cp_trow *r, const int64_t *peers, const int64_t *counts, int64_t n)
{
    /* The exact size first: a million rows are not left with slack. */
    size_t size = 0;
    for (int64_t k = 0; k < n; k++) {
        if (peers)
            size += k ? cp_trow_uv_len((uint64_t)(peers[k] - peers[k - 1] - 1))
                      : cp_trow_uv_len(cp_trow_zigzag(peers[0]));
        size += cp_trow_uv_len(cp_trow_zigzag(counts[k]));
    }
    uint8_t *vals = malloc(size ? size : 1), *p = vals;
    if (!vals)
        return -1;
    for (int64_t k = 0; k < n; k++) {
        if (peers)
            p = k ? cp_trow_put_uv(p, (uint64_t)(peers[k] - peers[k - 1] - 1))
                  : cp_trow_put_uv(p, cp_trow_zigzag(peers[0]));
        p = cp_trow_put_uv(p, cp_trow_zigzag(counts[k]));
    }
    free(r->vals);
    r->vals = vals;
    r->nbytes = size;
    r->n = n;
    r->listed = peers != NULL;
    return 0;
}
