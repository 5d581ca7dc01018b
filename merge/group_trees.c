/* Many groups' binomial trees at once, over any carrier (group_trees.h). */
#include "group_trees.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const cp_group_key *k)
{
    return cp_hash_mix(cp_hash_mix(k->hash ^ 0x47726F7570ull, k->ordinal), k->part);
}

static bool same_key(const cp_group_key *a, const cp_group_key *b)
{
    return a->hash == b->hash && a->ordinal == b->ordinal && a->part == b->part;
}

struct find_ctx {
    const cp_groups *g;
    const cp_group_key *k;
};

static bool key_match(const void *ctx, uint32_t i)
{
    const struct find_ctx *x = ctx;
    return same_key(&x->g->v[i].key, x->k);
}

void cp_groups_index(cp_groups *g)
{
    for (size_t i = 0; i < g->n; i++)
        cp_index_put(&g->ix, key_hash(&g->v[i].key), (uint32_t)i);
    /* An index missing an entry would lose messages: all or none. */
    g->ix_ok = g->ix.n == g->n;
}

void cp_groups_free_index(cp_groups *g)
{
    cp_index_free(&g->ix);
    g->ix_ok = false;
}

cp_membership *cp_groups_find(const cp_groups *g, const cp_group_key *k)
{
    struct find_ctx ctx = {g, k};
    if (g->ix_ok) {
        uint32_t i = cp_index_find(&g->ix, key_hash(k), key_match, &ctx);
        return i == CP_INDEX_EMPTY ? NULL : &g->v[i];
    }
    for (size_t i = 0; i < g->n; i++) /* no room for the index */
        if (key_match(&ctx, (uint32_t)i))
            return &g->v[i];
    return NULL;
}

/* ------------------------------------------------------------ messages */

/* The head of every message: the group's key, then whether it failed. */
#define HEAD_BYTES (8 + 4 + 4 + 4)

static void head(char out[HEAD_BYTES], const cp_group_key *k, bool failed)
{
    uint32_t f = failed;
    memcpy(out, &k->hash, 8);
    memcpy(out + 8, &k->ordinal, 4);
    memcpy(out + 12, &k->part, 4);
    memcpy(out + 16, &f, 4);
}

/* x's message for member `to` (round: the op's). */
static void send_one(const cp_groups *g, cp_membership *x, int round, int64_t to,
                     const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    char h[HEAD_BYTES];
    head(h, &x->key, x->failed);
    cp_wbuf b = {0};
    cp_put(&b, h, sizeof h);
    if (!x->failed || op->partial)
        op->pack(x->value, round, &b);
    bool big = !b.failed && io->max_bytes && b.len > io->max_bytes;
    if (b.failed || big) { /* what still can go: the mark alone, from the stack */
        rep->out_of_memory |= b.failed;
        rep->too_big |= big;
        x->failed = true;
        head(h, &x->key, true);
        io->send(io->ctx, g->world_of(x->members, to), h, sizeof h);
    } else {
        io->send(io->ctx, g->world_of(x->members, to), b.p, b.len);
    }
    cp_wbuf_free(&b);
}

static void refuse(cp_groups_report *rep, int64_t from)
{
    if (rep->malformed_from < 0)
        rep->malformed_from = from;
}

/* Is t's message of round r from `from` one it expects and has not had? */
static bool expected(const cp_groups *g, const cp_membership *t, bool down, int r, int64_t from)
{
    int64_t step = (int64_t)1 << r;
    if (down)
        return !t->heard_down && cp_tree_send_round(t->rank) == r &&
               g->world_of(t->members, t->rank - step) == from;
    return !((t->heard >> r) & 1) && cp_tree_has_child(t->rank, t->size, r) &&
           g->world_of(t->members, t->rank + step) == from;
}

/* The next message from `from`, which x (or another group of this rank
 * with the same source and round) expects. */
static void recv_one(const cp_groups *g, cp_membership *x, int r, int64_t from, bool down,
                     const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    size_t len;
    char *buf = io->recv(io->ctx, from, &len);
    if (!buf) { /* lost for want of room: whose it was is lost with it */
        rep->out_of_memory = true;
        x->failed = true;
        return;
    }
    cp_rbuf rb = {.p = buf, .len = len};
    cp_group_key k;
    k.hash = cp_get_u64(&rb);
    k.ordinal = cp_get_u32(&rb);
    k.part = cp_get_u32(&rb);
    bool failed = cp_get_u32(&rb) != 0;
    cp_membership *t = rb.bad ? NULL : cp_groups_find(g, &k);
    if (!t || !expected(g, t, down, r, from)) {
        refuse(rep, from);
        x->failed = true; /* the one it should have been is missing */
        free(buf);
        return;
    }
    if (down)
        t->heard_down = true;
    else
        t->heard |= (uint64_t)1 << r;
    t->failed |= failed;
    if (!failed || rb.off < rb.len) {
        int rc = op->merge(t->value, r, &rb);
        if (rc == CP_GROUP_OK && rb.bad)
            rc = CP_GROUP_MALFORMED;
        if (rc == CP_GROUP_MALFORMED)
            refuse(rep, from);
        else if (rc == CP_GROUP_NOMEM)
            rep->out_of_memory = true;
        t->failed |= rc != CP_GROUP_OK;
    }
    free(buf);
}

static int max_rounds(const cp_groups *g)
{
    int rounds = 0;
    for (size_t i = 0; i < g->n; i++)
        if (cp_tree_rounds(g->v[i].size) > rounds)
            rounds = cp_tree_rounds(g->v[i].size);
    return rounds;
}

void cp_groups_up(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                  cp_groups_report *rep)
{
    int rounds = max_rounds(g);
    for (int r = 0; r < rounds; r++) {
        int64_t step = (int64_t)1 << r;
        for (size_t i = 0; i < g->n; i++) {
            cp_membership *x = &g->v[i];
            if (cp_tree_send_round(x->rank) == r)
                send_one(g, x, r, x->rank - step, io, op, rep);
        }
        for (size_t i = 0; i < g->n; i++) {
            cp_membership *x = &g->v[i];
            if (cp_tree_has_child(x->rank, x->size, r))
                recv_one(g, x, r, g->world_of(x->members, x->rank + step), false, io, op, rep);
        }
    }
}

void cp_groups_down(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                    cp_groups_report *rep)
{
    for (int r = max_rounds(g) - 1; r >= 0; r--) {
        int64_t step = (int64_t)1 << r;
        for (size_t i = 0; i < g->n; i++) {
            cp_membership *x = &g->v[i];
            if (cp_tree_has_child(x->rank, x->size, r))
                send_one(g, x, r, x->rank + step, io, op, rep);
        }
        for (size_t i = 0; i < g->n; i++) {
            cp_membership *x = &g->v[i];
            if (cp_tree_send_round(x->rank) == r)
                recv_one(g, x, r, g->world_of(x->members, x->rank - step), true, io, op, rep);
        }
    }
}
