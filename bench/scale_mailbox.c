/*
 * The scale simulator's carrier for cp_tree_reduce_up (scale_sim.h): the
 * messages in flight, to a virtual rank not yet run from one that has.
 */
#include <stdlib.h>
#include <string.h>

#include "scale_sim.h"

static char *box_recv(void *ctx, int64_t from, size_t *len)
{
    sim_mailbox *b = ctx;
    for (size_t i = 0; i < b->n; i++)
        if (b->m[i].from == from && b->m[i].to == b->self) {
            char *p = b->m[i].p;
            *len = b->m[i].len;
            b->received += (double)*len;
            if (*len > b->largest)
                b->largest = *len;
            b->m[i] = b->m[--b->n];
            return p;
        }
    sim_die("a rank's child has not sent (the tree's order is broken)");
}

static void box_send(void *ctx, int64_t to, const void *p, size_t len)
{
    sim_mailbox *b = ctx;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        if (!(b->m = realloc(b->m, b->cap * sizeof *b->m)))
            sim_die("out of memory for the mailboxes");
    }
    char *copy = malloc(len ? len : 1);
    if (!copy)
        sim_die("out of memory for a message");
    memcpy(copy, p, len);
    b->m[b->n++] = (sim_mail){b->self, to, copy, len};
}

cp_tree_io sim_mailbox_io(sim_mailbox *b)
{
    return (cp_tree_io){b, 0, box_recv, box_send};
}

void sim_mailbox_free(sim_mailbox *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->m[i].p);
    free(b->m);
    memset(b, 0, sizeof *b);
}
