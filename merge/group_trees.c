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

/* ------------------------------------------------------------- batches
 *
 * A round's messages to one rank go as one batch: [u32 n][u32 more] then n
 * times [u64 len][message].  A rank of many small communicators (10,000
 * churned duplicates) so sends one message per peer and round, not one per
 * communicator.  A batch is cut where it would pass the carrier's largest
 * message (more = 1: another follows); a message that alone passes it goes
 * as its failed mark, as before. */
#define BATCH_HEAD (4 + 4)
#define SUB_HEAD 8

typedef struct outgoing {
    int64_t to;  /* the carrier's rank */
    size_t i;    /* the group */
} outgoing;

static int by_rank(const void *a, const void *b)
{
    const outgoing *x = a, *y = b;
    if (x->to != y->to)
        return (x->to > y->to) - (x->to < y->to);
    return (x->i > y->i) - (x->i < y->i);
}

/* x's message for member `to` (round: the op's) into b, whole: the head,
 * then the value when it may go; the mark alone when it cannot. */
static void message(cp_membership *x, int round, const cp_tree_io *io, const cp_group_op *op,
                    cp_groups_report *rep, cp_wbuf *b)
{
    char h[HEAD_BYTES];
    head(h, &x->key, x->failed);
    cp_put(b, h, sizeof h);
    if (!x->failed || op->partial)
        op->pack(x->value, round, b);
    bool big = !b->failed && io->max_bytes && b->len + BATCH_HEAD + SUB_HEAD > io->max_bytes;
    if (b->failed || big) { /* what still can go: the mark alone */
        rep->out_of_memory |= b->failed;
        rep->too_big |= big;
        x->failed = true;
        cp_wbuf_free(b);
        *b = (cp_wbuf){0};
        head(h, &x->key, true);
        cp_put(b, h, sizeof h);
    }
}

static void send_batch(const cp_tree_io *io, int64_t to, cp_wbuf *batch, uint32_t n, bool more)
{
    memcpy(batch->p, &n, 4);
    uint32_t m = more;
    memcpy(batch->p + 4, &m, 4);
    io->send(io->ctx, to, batch->p, batch->len);
    batch->len = BATCH_HEAD;
}

/* x's failed mark alone, as a batch of one from the stack (no room for
 * anything else); more: another batch to the same rank follows. */
static void send_mark(cp_membership *x, int64_t to, bool more, const cp_tree_io *io)
{
    char m[BATCH_HEAD + SUB_HEAD + HEAD_BYTES];
    uint32_t one = 1, next = more;
    uint64_t len = HEAD_BYTES;
    memcpy(m, &one, 4);
    memcpy(m + 4, &next, 4);
    memcpy(m + BATCH_HEAD, &len, SUB_HEAD);
    x->failed = true;
    head(m + BATCH_HEAD + SUB_HEAD, &x->key, true);
    io->send(io->ctx, to, m, sizeof m);
}

/* Every message of this round, out[0..n) sorted by rank, batched. */
static void send_all(const cp_groups *g, const outgoing *out, size_t n, int round,
                     const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    cp_wbuf batch = {0}, msg = {0};
    char zero[BATCH_HEAD] = {0};
    for (size_t k = 0; k < n;) {
        int64_t to = out[k].to;
        batch.len = 0;
        cp_put(&batch, zero, sizeof zero);
        uint32_t nsub = 0;
        for (; k < n && out[k].to == to; k++) {
            msg.len = 0;
            msg.failed = false;
            message(&g->v[out[k].i], round, io, op, rep, &msg);
            if (nsub && !batch.failed && io->max_bytes &&
                batch.len + SUB_HEAD + msg.len > io->max_bytes) {
                send_batch(io, to, &batch, nsub, true);
                nsub = 0;
            }
            uint64_t len = msg.len;
            cp_put(&batch, &len, SUB_HEAD);
            cp_put(&batch, msg.p, msg.len);
            nsub++;
        }
        if (batch.failed) { /* no room for the batch: each message as its mark alone */
            rep->out_of_memory = true;
            for (size_t j = k - nsub; j < k; j++)
                send_mark(&g->v[out[j].i], to, j + 1 < k, io);
        } else {
            send_batch(io, to, &batch, nsub, false);
        }
    }
    cp_wbuf_free(&batch);
    cp_wbuf_free(&msg);
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

/* Does member x send (out) or receive (!out) a message in round r of this
 * direction (down: from the roots), and to or from which rank of the
 * carrier (*peer, when asked)?  Up, a member sends to its parent and hears
 * from its child; down, the other way round. */
static bool in_round(const cp_groups *g, const cp_membership *x, int r, bool down, bool out,
                     int64_t *peer)
{
    int64_t step = (int64_t)1 << r;
    bool with_child = out == down;
    bool yes = with_child ? cp_tree_has_child(x->rank, x->size, r)
                          : cp_tree_send_round(x->rank) == r;
    if (yes && peer)
        *peer = g->world_of(x->members, with_child ? x->rank + step : x->rank - step);
    return yes;
}

/* Has x heard its message of round r of this direction? */
static bool heard(const cp_membership *x, int r, bool down)
{
    return down ? x->heard_down : (x->heard >> r) & 1;
}

/* One message of a batch from `from` in round r. */
static void take(const cp_groups *g, int r, int64_t from, bool down, cp_rbuf *rb,
                 const cp_group_op *op, cp_groups_report *rep)
{
    cp_group_key k;
    k.hash = cp_get_u64(rb);
    k.ordinal = cp_get_u32(rb);
    k.part = cp_get_u32(rb);
    bool failed = cp_get_u32(rb) != 0;
    cp_membership *t = rb->bad ? NULL : cp_groups_find(g, &k);
    if (!t || !expected(g, t, down, r, from)) {
        refuse(rep, from); /* the group that should have had it stays unheard: failed */
        return;
    }
    if (down)
        t->heard_down = true;
    else
        t->heard |= (uint64_t)1 << r;
    t->failed |= failed;
    if (!failed || rb->off < rb->len) {
        int rc = op->merge(t->value, r, rb);
        if (rc == CP_GROUP_OK && rb->bad)
            rc = CP_GROUP_MALFORMED;
        if (rc == CP_GROUP_MALFORMED)
            refuse(rep, from);
        else if (rc == CP_GROUP_NOMEM)
            rep->out_of_memory = true;
        t->failed |= rc != CP_GROUP_OK;
    }
}

/* The batches of round r from `from`, every message in them taken.  A
 * batch lost for want of room loses its messages (their groups stay
 * unheard, failed) and whether another followed: none is assumed. */
static void recv_batches(const cp_groups *g, int r, int64_t from, bool down,
                         const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    for (bool more = true; more;) {
        size_t len;
        char *buf = io->recv(io->ctx, from, &len);
        if (!buf) {
            rep->out_of_memory = true;
            return;
        }
        cp_rbuf rb = {.p = buf, .len = len};
        uint32_t n = cp_get_u32(&rb);
        more = cp_get_u32(&rb) != 0;
        /* The framing first: a batch that does not add up is refused
         * whole (its groups stay unheard, failed), none of it merged. */
        size_t body = rb.off;
        for (uint32_t j = 0; j < n && !rb.bad; j++) {
            uint64_t sub = cp_get_u64(&rb);
            if (rb.bad || sub > rb.len - rb.off)
                rb.bad = true;
            else
                rb.off += (size_t)sub;
        }
        if (rb.bad || rb.off != rb.len) {
            refuse(rep, from);
        } else {
            rb.off = body;
            for (uint32_t j = 0; j < n; j++) {
                uint64_t sub = cp_get_u64(&rb);
                cp_rbuf one = {.p = rb.p + rb.off, .len = (size_t)sub};
                take(g, r, from, down, &one, op, rep);
                rb.off += (size_t)sub;
            }
        }
        free(buf);
    }
}

/* Receive round r: once from every rank some group expects a message
 * from (ranks ascending), then every group that expected one and did not
 * get it is failed. */
static void recv_all(cp_groups *g, outgoing *in, size_t n, int r, bool down,
                     const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    for (size_t k = 0; k < n; k++)
        if (k == 0 || in[k].to != in[k - 1].to)
            recv_batches(g, r, in[k].to, down, io, op, rep);
    for (size_t k = 0; k < n; k++) {
        cp_membership *x = &g->v[in[k].i];
        if (!heard(x, r, down)) {
            x->failed = true;
            refuse(rep, in[k].to);
        }
    }
}

static int max_rounds(const cp_groups *g)
{
    int rounds = 0;
    for (size_t i = 0; i < g->n; i++)
        if (cp_tree_rounds(g->v[i].size) > rounds)
            rounds = cp_tree_rounds(g->v[i].size);
    return rounds;
}

/* One round, one direction: who this rank sends to and hears from, by
 * group, sorted by rank; then the batches out, then in. */
static void round_trip(cp_groups *g, int r, bool down, outgoing *out, outgoing *in,
                       const cp_tree_io *io, const cp_group_op *op, cp_groups_report *rep)
{
    size_t nout = 0, nin = 0;
    for (size_t i = 0; i < g->n; i++) {
        int64_t peer;
        if (in_round(g, &g->v[i], r, down, true, &peer))
            out[nout++] = (outgoing){peer, i};
        if (in_round(g, &g->v[i], r, down, false, &peer))
            in[nin++] = (outgoing){peer, i};
    }
    qsort(out, nout, sizeof *out, by_rank);
    qsort(in, nin, sizeof *in, by_rank);
    send_all(g, out, nout, r, io, op, rep);
    recv_all(g, in, nin, r, down, io, op, rep);
}

/* A round with no room to sort its messages: every group this rank sends
 * for goes as its failed mark, one batch each (more: another to the same
 * rank follows), and every rank heard from is received from once; quadratic
 * in the groups, but no allocation, and the peers see batches as always. */
static void round_without_room(cp_groups *g, int r, bool down, const cp_tree_io *io,
                               const cp_group_op *op, cp_groups_report *rep)
{
    rep->out_of_memory = true;
    for (size_t i = 0; i < g->n; i++) {
        int64_t to, other;
        if (!in_round(g, &g->v[i], r, down, true, &to))
            continue;
        bool more = false;
        for (size_t j = i + 1; j < g->n && !more; j++)
            more = in_round(g, &g->v[j], r, down, true, &other) && other == to;
        send_mark(&g->v[i], to, more, io);
    }
    for (size_t i = 0; i < g->n; i++) {
        int64_t from, other;
        if (!in_round(g, &g->v[i], r, down, false, &from))
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(in_round(g, &g->v[j], r, down, false, &other) && other == from);
        if (first)
            recv_batches(g, r, from, down, io, op, rep);
    }
    for (size_t i = 0; i < g->n; i++)
        if (in_round(g, &g->v[i], r, down, false, NULL) && !heard(&g->v[i], r, down))
            g->v[i].failed = true;
}

/* Both directions: every round, up from the leaves or down from the roots. */
static void all_rounds(cp_groups *g, bool down, const cp_tree_io *io, const cp_group_op *op,
                       cp_groups_report *rep)
{
    int rounds = max_rounds(g);
    outgoing *out = malloc((g->n ? g->n : 1) * sizeof *out);
    outgoing *in = malloc((g->n ? g->n : 1) * sizeof *in);
    for (int k = 0; k < rounds; k++) {
        int r = down ? rounds - 1 - k : k;
        if (out && in)
            round_trip(g, r, down, out, in, io, op, rep);
        else
            round_without_room(g, r, down, io, op, rep);
    }
    free(out);
    free(in);
}

void cp_groups_up(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                  cp_groups_report *rep)
{
    all_rounds(g, false, io, op, rep);
}

void cp_groups_down(cp_groups *g, const cp_tree_io *io, const cp_group_op *op,
                    cp_groups_report *rep)
{
    all_rounds(g, true, io, op, rep);
}
