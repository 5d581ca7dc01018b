/* Messages between ranks run one by one (mailbox.h). */
#include "mailbox.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static char *box_recv(void *ctx, int64_t from, size_t *len)
{
    tmailbox *b = ctx;
    for (size_t i = 0; i < b->n; i++)
        if (b->m[i].from == from && b->m[i].to == b->self) {
            char *p = b->m[i].p;
            *len = b->m[i].len - (from == b->corrupt_from && b->m[i].len > 0);
            /* In order of sending, as MPI delivers one source's messages. */
            memmove(&b->m[i], &b->m[i + 1], (--b->n - i) * sizeof b->m[i]);
            return p;
        }
    ck_abort_msg("rank %lld: nothing from %lld", (long long)b->self, (long long)from);
    return NULL;
}

static void box_send(void *ctx, int64_t to, const void *p, size_t len)
{
    tmailbox *b = ctx;
    ck_assert_uint_lt(b->n, sizeof b->m / sizeof *b->m);
    b->m[b->n] = (tmail){b->self, to, malloc(len ? len : 1), len};
    memcpy(b->m[b->n++].p, p, len);
}

cp_tree_io tmailbox_io(tmailbox *b)
{
    return (cp_tree_io){b, 0, box_recv, box_send};
}

size_t tmailbox_drain(tmailbox *b)
{
    size_t n = b->n;
    for (size_t i = 0; i < b->n; i++)
        free(b->m[i].p);
    b->n = 0;
    return n;
}
