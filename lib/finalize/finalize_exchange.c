/*
 * Finalize, step 2: the tables of every (communicator, collective) go to
 * the communicator's lead up a binomial tree of its members.  In round r a
 * member whose communicator rank c has r as its lowest set bit sends what it
 * holds (ranks c to c + 2^r - 1, merged) to member c - 2^r, which merges it
 * into its own (counts_tree.h: identical rows collapse into rank ranges at
 * every step).  So the lead receives O(log P) messages whose size grows
 * with the distinct rows, not with the ranks, and no member receives from
 * more than O(log P) others.
 *
 * Every member knows from the tree's shape which messages it will receive,
 * so the rounds need no collective and no rank waits for another round's
 * stragglers: a member posts its sends of round r (complete: its children
 * sent in earlier rounds) before it receives round r's, which by induction
 * over the rounds cannot deadlock.  A member whose tables could not be
 * packed still sends, marked failed, and the lead reports the failure.
 *
 * That needs every member to hold every communicator with calls.  When
 * memory ran out while registering one (cp_registry_complete), some rank
 * may not, so all ranks agree first and then send straight to the leads
 * with a counted exchange instead (finalize_mail.h), the leads merging the
 * same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_merge.h"
#include "counts_tree.h"
#include "finalize.h"
#include "finalize_mail.h"
#include "log.h"
#include "pack.h"
#include "runtime.h"
#include "transport.h"

/* One neighbour list entry: communicator rank and its lists. */
typedef struct nb_entry {
    int64_t crank;
    cp_neighbors nb;
} nb_entry;

/* What this rank holds of one communicator while it goes up the tree. */
typedef struct holding {
    cp_comm *c;
    int64_t lo, hi;               /* communicator ranks held */
    cp_tree *tree[CP_NCOLLECTIVES]; /* NULL: no rank held has calls of it */
    nb_entry *nb;                 /* topology communicators: per rank held */
    size_t nnb;
    bool failed;                  /* some rank's tables are missing */
    bool sent;
} holding;

static bool has_calls(const cp_comm *c)
{
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (c->coll[k] && c->coll[k]->counts.ncalls > 0)
            return true;
    return false;
}

static void holding_clear(holding *h)
{
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (h->tree[k]) {
            cp_tree_free(h->tree[k]);
            free(h->tree[k]);
            h->tree[k] = NULL;
        }
    for (size_t i = 0; i < h->nnb; i++) {
        free(h->nb[i].nb.sources);
        free(h->nb[i].nb.destinations);
    }
    free(h->nb);
    h->nb = NULL;
    h->nnb = 0;
}

static int64_t *copy_list(const int *v, int64_t n)
{
    int64_t *out = malloc((n > 0 ? (size_t)n : 1) * sizeof *out);
    for (int64_t i = 0; out && i < n; i++)
        out[i] = v[i];
    return out;
}

/* This rank's own tables of c: a leaf tree per collective it called. */
static void holding_leaf(holding *h, cp_comm *c)
{
    *h = (holding){.c = c, .lo = c->rank, .hi = c->rank + 1};
    for (int k = 0; k < CP_NCOLLECTIVES; k++) {
        if (!c->coll[k] || c->coll[k]->counts.ncalls == 0)
            continue;
        cp_counts *t = &c->coll[k]->counts;
        if (cp_seq_finish(&t->seq))
            t->partial = true;
        cp_counts_view v = {t->vecs, t->nvecs, t->sigs, t->nsigs, &t->seq};
        h->tree[k] = malloc(sizeof *h->tree[k]);
        if (!h->tree[k] ||
            cp_tree_leaf(h->tree[k], &v, c->rank, c->size,
                         cp_counts_relative_ok(cp_collective_names[k]))) {
            free(h->tree[k]);
            h->tree[k] = NULL;
            h->failed = true;
        }
    }
    if (c->topology != MPI_UNDEFINED) {
        h->nb = calloc(1, sizeof *h->nb);
        if (h->nb) {
            h->nb[0].crank = c->rank;
            h->nb[0].nb.sources = copy_list(c->sources, c->indegree);
            h->nb[0].nb.destinations = copy_list(c->destinations, c->outdegree);
            h->nb[0].nb.nsources = (size_t)c->indegree;
            h->nb[0].nb.ndestinations = (size_t)c->outdegree;
            h->nnb = 1;
        }
        if (!h->nb || !h->nb[0].nb.sources || !h->nb[0].nb.destinations)
            h->failed = true;
    }
}

/* ------------------------------------------------------------- messages */

static void put_list(cp_wbuf *b, const int64_t *v, size_t n)
{
    cp_put_u32(b, (uint32_t)n);
    cp_put(b, v, n * sizeof *v);
}

/* A holding as sent: communicator key, ranks held, failed, the trees, the
 * neighbour lists. */
static void pack_holding(cp_wbuf *b, const holding *h)
{
    cp_put_u64(b, h->c->key_hash);
    cp_put_u32(b, h->c->key_ordinal);
    cp_put_i64(b, h->lo);
    cp_put_i64(b, h->hi);
    cp_put_u32(b, h->failed);
    uint32_t n = 0;
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        n += h->tree[k] != NULL;
    cp_put_u32(b, n);
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (h->tree[k]) {
            cp_put_u32(b, (uint32_t)k);
            cp_tree_pack(b, h->tree[k]);
        }
    cp_put_u64(b, h->nnb);
    for (size_t i = 0; i < h->nnb; i++) {
        cp_put_i64(b, h->nb[i].crank);
        put_list(b, h->nb[i].nb.sources, h->nb[i].nb.nsources);
        put_list(b, h->nb[i].nb.destinations, h->nb[i].nb.ndestinations);
    }
}

/* The message when the holding cannot be packed: the ranks, failed. */
static void pack_failed(cp_wbuf *b, const holding *h)
{
    cp_wbuf_free(b);
    *b = (cp_wbuf){0};
    holding x = {.c = h->c, .lo = h->lo, .hi = h->hi, .failed = true};
    pack_holding(b, &x);
}

static int get_list(cp_rbuf *b, int64_t **v, size_t *n)
{
    uint32_t len = cp_get_u32(b);
    if (!cp_rbuf_has(b, len, 8) || !(*v = malloc((len ? len : 1) * sizeof **v)))
        return -1;
    *n = len;
    cp_get(b, *v, len * sizeof **v);
    return 0;
}

/* The rest of a message after its key: into *x (x->c set by the caller).
 * -1 when malformed or memory ran out. */
static int unpack_holding(cp_rbuf *b, holding *x)
{
    x->lo = cp_get_i64(b);
    x->hi = cp_get_i64(b);
    x->failed = cp_get_u32(b) != 0;
    uint32_t n = cp_get_u32(b);
    if (b->bad || x->lo < 0 || x->hi <= x->lo || x->hi > x->c->size || n > CP_NCOLLECTIVES)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = cp_get_u32(b);
        if (k >= CP_NCOLLECTIVES || x->tree[k] || !(x->tree[k] = malloc(sizeof *x->tree[k])))
            return -1;
        if (cp_tree_unpack(b, x->tree[k]) || x->tree[k]->nranks != x->c->size) {
            free(x->tree[k]);
            x->tree[k] = NULL;
            return -1;
        }
    }
    uint64_t nnb = cp_get_u64(b);
    if (!cp_rbuf_has(b, nnb, 16) || !(x->nb = calloc(nnb ? nnb : 1, sizeof *x->nb)))
        return -1;
    for (; x->nnb < nnb; x->nnb++) {
        nb_entry *e = &x->nb[x->nnb];
        e->crank = cp_get_i64(b);
        if (e->crank < x->lo || e->crank >= x->hi ||
            get_list(b, &e->nb.sources, &e->nb.nsources) ||
            get_list(b, &e->nb.destinations, &e->nb.ndestinations)) {
            x->nnb++;
            return -1;
        }
    }
    return b->bad ? -1 : 0;
}

/* h takes x's ranks (above its own): trees merged, neighbour lists
 * appended.  x is emptied. */
static void absorb(fin *f, holding *h, holding *x)
{
    h->failed |= x->failed;
    for (int k = 0; k < CP_NCOLLECTIVES; k++) {
        if (!x->tree[k])
            continue;
        if (!h->tree[k]) {
            h->tree[k] = x->tree[k];
            x->tree[k] = NULL;
            continue;
        }
        cp_tree *m = malloc(sizeof *m);
        if (!m || cp_tree_merge(m, h->tree[k], x->tree[k])) {
            free(m);
            cp_fin_fail(f, "out of memory while merging counts");
            h->failed = true;
            continue;
        }
        cp_tree_free(h->tree[k]);
        free(h->tree[k]);
        h->tree[k] = m;
    }
    if (x->nnb) {
        nb_entry *nn = realloc(h->nb, (h->nnb + x->nnb) * sizeof *nn);
        if (nn) {
            memcpy(nn + h->nnb, x->nb, x->nnb * sizeof *nn);
            h->nb = nn;
            h->nnb += x->nnb;
            x->nnb = 0;
        } else {
            h->failed = true;
        }
    }
    if (x->hi > h->hi)
        h->hi = x->hi;
    holding_clear(x);
}

/* The holdings of this rank, found by communicator key: a rank may be in
 * thousands of communicators. */
typedef struct holdings {
    holding *v;
    size_t n;
    cp_index ix;
    bool ix_ok;
} holdings;

static uint64_t key_of(uint64_t hash, uint32_t ordinal)
{
    return cp_hash_mix(hash ^ 0x486F6C64ull, ordinal);
}

struct key_ctx {
    const holdings *hs;
    uint64_t hash;
    uint32_t ordinal;
};

static bool key_match(const void *ctx, uint32_t i)
{
    const struct key_ctx *k = ctx;
    const cp_comm *c = k->hs->v[i].c;
    return c->key_hash == k->hash && c->key_ordinal == k->ordinal;
}

static holding *find_holding(const holdings *hs, uint64_t hash, uint32_t ordinal)
{
    struct key_ctx ctx = {hs, hash, ordinal};
    if (hs->ix_ok) {
        uint32_t i = cp_index_find(&hs->ix, key_of(hash, ordinal), key_match, &ctx);
        return i == CP_INDEX_EMPTY ? NULL : &hs->v[i];
    }
    for (size_t i = 0; i < hs->n; i++) /* no room for the index */
        if (key_match(&ctx, (uint32_t)i))
            return &hs->v[i];
    return NULL;
}

/* ---------------------------------------------------------------- tree */

static int world_of(const cp_comm *c, int64_t crank)
{
    return (int)cp_ranges_nth(&c->members, crank);
}

static bool send_round(const holding *h, int r)
{
    return cp_tree_send_round(h->c->rank) == r;
}

static bool recv_round(const holding *h, int r)
{
    return cp_tree_has_child(h->c->rank, h->c->size, r);
}

/* reqs and bufs: room for one send per holding (made before the ranks
 * chose the tree: without it a member could not send, and its parent
 * would wait). */
static void tree_rounds(fin *f, const holdings *H, MPI_Request *reqs, cp_wbuf *bufs)
{
    holding *hs = H->v;
    size_t n = H->n, nreqs = 0;
    int rounds = 0;
    for (size_t i = 0; i < n; i++)
        if (cp_tree_rounds(hs[i].c->size) > rounds)
            rounds = cp_tree_rounds(hs[i].c->size);
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            holding *h = &hs[i];
            if (!send_round(h, r))
                continue;
            pack_holding(&bufs[i], h);
            if (bufs[i].failed || !cp_bytes_fit(bufs[i].len)) {
                char msg[200];
                snprintf(msg, sizeof msg, "counts of ranks %" PRId64 "-%" PRId64 ": %s", h->lo,
                         h->hi - 1, bufs[i].failed ? "out of memory while packing"
                                                   : "more than this MPI library sends at once");
                cp_log("rank %d: %s", f->rank, msg);
                pack_failed(&bufs[i], h);
            }
            int dest = world_of(h->c, h->c->rank - ((int64_t)1 << r));
            if (cp_isend_bytes(bufs[i].p, bufs[i].len, dest, TAG_COUNTS, f->w, &reqs[nreqs]) ==
                MPI_SUCCESS)
                nreqs++;
            if (cp_rt.cfg.verbose >= 2)
                cp_log("rank %d sends %zu bytes of counts (ranks %" PRId64 "-%" PRId64
                       ") to rank %d", f->rank, bufs[i].len, h->lo, h->hi - 1, dest);
            holding_clear(h);
            h->sent = true;
        }
        /* This round's children, each message from its own source. */
        for (size_t i = 0; i < n; i++) {
            holding *h = &hs[i];
            if (h->sent || !recv_round(h, r))
                continue;
            int src = world_of(h->c, h->c->rank + ((int64_t)1 << r));
            size_t len;
            char *buf = cp_tp_recv_message(src, TAG_COUNTS, f->w, NULL, &len);
            if (!buf) {
                cp_fin_fail(f, "out of memory while receiving counts");
                continue;
            }
            /* Messages from one source come in its order of communicators,
             * not necessarily this rank's: the key says whose it is. */
            cp_rbuf rb = {.p = buf, .len = len};
            uint64_t hash = cp_get_u64(&rb);
            uint32_t ordinal = cp_get_u32(&rb);
            holding *t = find_holding(H, hash, ordinal);
            holding x = {.c = t ? t->c : NULL};
            if (!t || t->sent || !recv_round(t, r) ||
                world_of(t->c, t->c->rank + ((int64_t)1 << r)) != src || unpack_holding(&rb, &x) ||
                x.lo != t->c->rank + ((int64_t)1 << r)) {
                char msg[160];
                snprintf(msg, sizeof msg, "malformed counts received from rank %d", src);
                cp_fin_fail(f, msg);
            } else {
                absorb(f, t, &x);
            }
            holding_clear(&x);
            free(buf);
        }
    }
    for (size_t i = 0; i < nreqs; i++)
        cp_tp_wait(&reqs[i], NULL);
    for (size_t i = 0; i < n; i++)
        cp_wbuf_free(&bufs[i]);
}

/* ---------------------------------------------------- straight to leads */

struct direct {
    const holdings *H;
    holding *hs;
    size_t n;
    holding **got; /* per holding this rank leads: what each rank sent */
};

static void deliver_direct(fin *f, void *ctx, int source, uint32_t nrec, cp_rbuf *rbp)
{
    struct direct *d = ctx;
    if (!d || !d->got) { /* this rank could not make room to take them */
        cp_fin_fail(f, "out of memory while receiving counts");
        return;
    }
    for (uint32_t i = 0; i < nrec && !rbp->bad; i++) {
        uint64_t hash = cp_get_u64(rbp);
        uint32_t ordinal = cp_get_u32(rbp);
        holding *t = find_holding(d->H, hash, ordinal);
        holding x = {.c = t ? t->c : NULL};
        size_t j = t ? (size_t)(t - d->hs) : 0;
        if (!t || t->c->rank != 0 || unpack_holding(rbp, &x) || x.hi != x.lo + 1 ||
            world_of(t->c, x.lo) != source) {
            holding_clear(&x);
            rbp->bad = true;
            return;
        }
        if (!d->got[j] && !(d->got[j] = calloc((size_t)t->c->size, sizeof *d->got[j]))) {
            holding_clear(&x);
            cp_fin_fail(f, "out of memory while merging counts");
            return;
        }
        holding_clear(&d->got[j][x.lo]);
        d->got[j][x.lo] = x;
    }
}

/* Each lead merges what its ranks sent, in halves (as the tree would). */
static void fold(fin *f, holding *v, int64_t lo, int64_t hi)
{
    if (hi - lo < 2)
        return;
    int64_t mid = lo + (hi - lo) / 2;
    fold(f, v, lo, mid);
    fold(f, v, mid, hi);
    absorb(f, &v[lo], &v[mid]);
}

static void direct_exchange(fin *f, const holdings *H)
{
    holding *hs = H->v;
    size_t n = H->n;
    struct direct d = {H, hs, n, calloc(n ? n : 1, sizeof *d.got)};
    cp_mail m = {0};
    m.failed = d.got == NULL;
    for (size_t i = 0; i < n && !m.failed; i++) {
        if (hs[i].c->rank == 0)
            continue; /* the lead's own stays */
        cp_box *b = cp_mail_box(&m, (int)hs[i].c->lead);
        if (!b)
            break;
        pack_holding(&b->b, &hs[i]);
        b->nrecords++;
        holding_clear(&hs[i]);
        hs[i].sent = true;
    }
    cp_mail_exchange(f, &m, TAG_COUNTS, "counts", deliver_direct, &d);
    for (size_t i = 0; i < n && d.got; i++) {
        if (!d.got[i])
            continue;
        holding *v = d.got[i];
        holding_clear(&v[0]);
        v[0] = hs[i];
        fold(f, v, 0, hs[i].c->size);
        hs[i] = v[0];
        for (int64_t r = 1; r < hs[i].c->size; r++)
            holding_clear(&v[r]);
        free(v);
    }
    free(d.got);
}

/* ------------------------------------------------------------ the stage */

/* The lead's holding becomes its led communicator's trees and lists. */
static void to_led(fin *f, holding *h)
{
    cp_led *l = cp_fin_led_find(f, h->c->key_hash, h->c->key_ordinal);
    if (!l)
        return;
    if (h->failed) {
        char msg[200];
        snprintf(msg, sizeof msg, "the counts of some ranks of a communicator of %" PRId64
                 " ranks did not reach its lead", h->c->size);
        cp_fin_fail(f, msg);
    }
    for (int k = 0; k < CP_NCOLLECTIVES; k++) {
        l->tree[k] = h->tree[k];
        h->tree[k] = NULL;
    }
    if (h->nnb && (l->neighbors = calloc((size_t)h->c->size, sizeof *l->neighbors))) {
        for (size_t i = 0; i < h->nnb; i++) {
            l->neighbors[h->nb[i].crank] = h->nb[i].nb;
            h->nb[i].nb = (cp_neighbors){0};
        }
    } else if (h->nnb) {
        cp_fin_fail(f, "out of memory while receiving neighbour lists");
    }
}

void cp_fin_exchange(fin *f)
{
    size_t n = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        n += has_calls(c);
    holdings H = {.v = calloc(n ? n : 1, sizeof *H.v), .n = n};
    MPI_Request *reqs = calloc(n ? n : 1, sizeof *reqs);
    cp_wbuf *bufs = calloc(n ? n : 1, sizeof *bufs);
    bool room = H.v && reqs && bufs;
    int complete = room && cp_registry_complete(), all = 0;
    cp_tp_allreduce(&complete, &all, 1, MPI_INT, MPI_MIN, f->w);
    f->trees_ok = all != 0; /* the wait states' trees need the same */
    if (!room) {
        cp_fin_fail(f, "out of memory while sending counts");
        cp_mail m = {.failed = true}; /* still counted in, so nobody waits */
        cp_mail_exchange(f, &m, TAG_COUNTS, "counts", deliver_direct, NULL);
        free(H.v);
        free(reqs);
        free(bufs);
        return;
    }
    size_t i = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        if (has_calls(c)) {
            holding_leaf(&H.v[i], c);
            cp_index_put(&H.ix, key_of(c->key_hash, c->key_ordinal), (uint32_t)i);
            i++;
        }
    /* An index missing an entry would lose messages: all or none. */
    H.ix_ok = H.ix.n == n;
    if (all) {
        tree_rounds(f, &H, reqs, bufs);
    } else {
        if (f->rank == 0)
            cp_log("memory ran out while registering communicators: counts go straight to "
                   "each communicator's lead");
        direct_exchange(f, &H);
    }
    for (i = 0; i < n; i++) {
        if (!H.v[i].sent && H.v[i].c->rank == 0)
            to_led(f, &H.v[i]);
        holding_clear(&H.v[i]);
    }
    cp_index_free(&H.ix);
    free(H.v);
    free(reqs);
    free(bufs);
}
