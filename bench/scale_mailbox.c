/*
 * The scale simulator's carrier (scale_sim.h): the messages in flight, to
 * a virtual rank not yet run from one that has, kept per destination in
 * the order they were sent.
 */
#include <stdlib.h>
#include <string.h>

#include "scale_sim.h"

#define BUCKETS 65536

static size_t bucket(const sim_mailbox *b, int64_t to)
{
    return (size_t)(sim_mix((uint64_t)to) % b->nbuckets);
}

static char *box_recv(void *ctx, int64_t from, size_t *len)
{
    sim_mailbox *b = ctx;
    size_t k = b->head ? bucket(b, b->self) : 0;
    sim_mail *prev = NULL;
    for (sim_mail *m = b->head ? b->head[k] : NULL; m; prev = m, m = m->next) {
        if (m->from != from || m->to != b->self)
            continue;
        if (prev)
            prev->next = m->next;
        else
            b->head[k] = m->next;
        if (b->tail[k] == m)
            b->tail[k] = prev;
        char *p = m->p;
        *len = m->len;
        b->received += (double)*len;
        if (*len > b->largest)
            b->largest = *len;
        b->n--;
        free(m);
        if (b->probe) /* the message is the rank's now */
            b->probe(b->probe_ctx);
        return p;
    }
    sim_die("a rank's child has not sent (the tree's order is broken)");
}

static void box_send(void *ctx, int64_t to, const void *p, size_t len)
{
    sim_mailbox *b = ctx;
    if (!b->head) { /* nbuckets: the caller's (a small scratch box), else BUCKETS */
        if (!b->nbuckets)
            b->nbuckets = BUCKETS;
        b->head = calloc(b->nbuckets, sizeof *b->head);
        b->tail = calloc(b->nbuckets, sizeof *b->tail);
        if (!b->head || !b->tail)
            sim_die("out of memory for the mailboxes");
    }
    sim_mail *m = malloc(sizeof *m);
    char *copy = malloc(len ? len : 1);
    if (!m || !copy)
        sim_die("out of memory for a message");
    memcpy(copy, p, len);
    *m = (sim_mail){b->self, to, copy, len, NULL};
    size_t k = bucket(b, to);
    if (b->tail[k])
        b->tail[k]->next = m;
    else
        b->head[k] = m;
    b->tail[k] = m;
    b->n++;
    b->sent += (double)len;
    if (b->probe) /* its packed message and the copy in flight */
        b->probe(b->probe_ctx);
}

cp_tree_io sim_mailbox_io(sim_mailbox *b)
{
    return (cp_tree_io){b, 0, box_recv, box_send};
}

void sim_mailbox_free(sim_mailbox *b)
{
    /* Only while messages are left (b->n): a scratch mailbox of the wait
     * stage's way down is freed once per member and child, every message
     * received, and its 65,536 buckets need no look then. */
    for (size_t k = 0; b->head && b->n && k < b->nbuckets; k++)
        for (sim_mail *m = b->head[k], *next; m; m = next) {
            next = m->next;
            free(m->p);
            free(m);
            b->n--;
        }
    free(b->head);
    free(b->tail);
    memset(b, 0, sizeof *b);
}
