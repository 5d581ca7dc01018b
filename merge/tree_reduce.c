/* A reduction up the binomial tree over any carrier (tree_reduce.h). */
#include "tree_reduce.h"

#include <stdlib.h>

bool cp_tree_reduce_up(int64_t rank, int64_t n, const cp_tree_io *io, const cp_tree_op *op,
                       void *value, bool ok)
{
    int rounds = cp_tree_rounds(n), up = cp_tree_send_round(rank);
    for (int k = 0; k < rounds && (up < 0 || k < up); k++) {
        if (!cp_tree_has_child(rank, n, k))
            continue;
        size_t len;
        char *buf = io->recv(io->ctx, rank + ((int64_t)1 << k), &len);
        if (!buf || !op->merge(value, buf, len))
            ok = false;
        free(buf);
    }
    if (up < 0)
        return ok;
    cp_wbuf b = {0};
    op->pack(value, &b, !ok);
    if (b.failed || (io->max_bytes && b.len > io->max_bytes)) { /* what still can go */
        cp_wbuf_free(&b);
        b = (cp_wbuf){0};
        op->pack(value, &b, true);
        ok = false;
    }
    static const char lost[4] = {1}; /* a failed value, when even that did not fit */
    io->send(io->ctx, rank - ((int64_t)1 << up), b.failed ? (const void *)lost : b.p,
             b.failed ? sizeof lost : b.len);
    cp_wbuf_free(&b);
    return ok;
}
