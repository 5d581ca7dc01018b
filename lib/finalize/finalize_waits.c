/*
 * Finalize, step 4b: wait states by reductions over each communicator.
 *
 * For every series (communicator, collective with a wait-state family) the
 * members reduce their sampled calls up the binomial tree of the
 * communicator's members, and the lead's result comes back down the same
 * tree (collectors/wait_tree.h: per call the latest enter, first exit,
 * the root's enter, ...).  Each member then computes its own waiting times
 * from its own records: no rank ever receives another rank's enter and exit
 * times, a member receives at most ceil(log2 P) lists going up and one
 * coming down, each as long as the series' sample (at most
 * COLLPROF_TIMING_MAX_CALLS calls).  All series move together, round by
 * round, as the count tables do (finalize_exchange.c): a member posts its
 * sends of a round before it receives that round's messages, so no
 * collective is needed between rounds and none can deadlock.
 *
 * Then the statistics of every pattern's instances (collectors/wait_stats.h,
 * bounded), the most severe instances and the slowest calls (timings.cpt's
 * list) merge up the world's binomial tree to rank 0, which writes
 * profile.stat: rank 0 receives ceil(log2 P) messages of bounded size.  Each rank's own waiting sums stay
 * with it and reach rank 0 with its other sums per site.
 *
 * The trees need every member to hold every communicator; when memory ran
 * out while registering one (the count tables then went straight to the
 * leads, cp_fin_exchange), wait states are not computed and rank 0 says so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpt.h"
#include "finalize_mail.h"
#include "finalize_timing.h"
#include "log.h"
#include "runtime.h"
#include "stat.h"
#include "transport.h"
#include "wait_stats.h"
#include "wait_tree.h"

#define TAG_WAITS_UP 0x6372
#define TAG_WAITS_DOWN 0x6373
#define TAG_WAIT_STATS 0x6374

typedef struct series {
    cp_comm *c;
    int k, family;
    const cp_timing *t;  /* this rank's records (recs, paths) */
    cp_wlist own;        /* this member's own leaf */
    cp_wlist up;         /* own + the children's, going up */
    cp_wlist kid[64];    /* each child's list, by round */
    cp_wlist down;       /* what came down */
    bool failed, sent, have_down;
} series;

typedef struct all_series {
    series *v;
    size_t n;
    cp_index ix;
    bool ix_ok;
} all_series;

static bool analysed(const cp_comm *c, int k)
{
    return c->coll[k] && c->coll[k]->counts.ncalls > 0 && !c->inter && c->size >= 2 &&
           cp_wait_family(cp_collective_names[k]) != CP_FAMILY_NONE;
}

static uint64_t key_of(uint64_t hash, uint32_t ordinal, uint32_t k)
{
    return cp_hash_mix(cp_hash_mix(hash ^ 0x57616974ull, ordinal), k);
}

struct key_ctx {
    const all_series *S;
    uint64_t hash;
    uint32_t ordinal, k;
};

static bool key_match(const void *ctx, uint32_t i)
{
    const struct key_ctx *x = ctx;
    const series *s = &x->S->v[i];
    return s->c->key_hash == x->hash && s->c->key_ordinal == x->ordinal &&
           (uint32_t)s->k == x->k;
}

static series *find_series(const all_series *S, uint64_t hash, uint32_t ordinal, uint32_t k)
{
    struct key_ctx ctx = {S, hash, ordinal, k};
    if (S->ix_ok) {
        uint32_t i = cp_index_find(&S->ix, key_of(hash, ordinal, k), key_match, &ctx);
        return i == CP_INDEX_EMPTY ? NULL : &S->v[i];
    }
    for (size_t i = 0; i < S->n; i++)
        if (key_match(&ctx, (uint32_t)i))
            return &S->v[i];
    return NULL;
}

static int world_of(const series *s, int64_t crank)
{
    return (int)cp_ranges_nth(&s->c->members, crank);
}

static void put_key(cp_wbuf *b, const series *s, bool failed)
{
    cp_put_u64(b, s->c->key_hash);
    cp_put_u32(b, s->c->key_ordinal);
    cp_put_u32(b, (uint32_t)s->k);
    cp_put_u32(b, failed);
}

/* Send b (or, when it could not be packed, the key alone marked failed:
 * the receiver must hear something). */
static void send_list(fin *f, series *s, const cp_wlist *l, bool down, int dest, int tag,
                      cp_wbuf *b, MPI_Request *r, size_t *nr)
{
    put_key(b, s, s->failed);
    if (!s->failed)
        cp_wlist_pack(b, l, down);
    if (b->failed || !cp_bytes_fit(b->len)) {
        cp_wbuf_free(b);
        *b = (cp_wbuf){0};
        s->failed = true;
        put_key(b, s, true);
    }
    if (!b->failed &&
        cp_isend_bytes(b->p, b->len, dest, tag, f->w, &r[*nr]) == MPI_SUCCESS)
        (*nr)++;
}

/* The next message of `tag` from src: the series it is for, its list. */
static series *recv_list(fin *f, const all_series *S, int src, int tag, bool down, cp_wlist *l,
                         bool *failed)
{
    size_t len;
    char *buf = cp_tp_recv_message(src, tag, f->w, NULL, &len);
    *l = (cp_wlist){0};
    *failed = true;
    if (!buf)
        return NULL;
    cp_rbuf rb = {.p = buf, .len = len};
    uint64_t hash = cp_get_u64(&rb);
    uint32_t ordinal = cp_get_u32(&rb), k = cp_get_u32(&rb);
    bool bad = cp_get_u32(&rb) != 0;
    series *s = rb.bad ? NULL : find_series(S, hash, ordinal, k);
    if (s && !bad)
        *failed = cp_wlist_unpack(&rb, l, down) != 0;
    free(buf);
    return s;
}

/* A message that is not what the tree's shape says (a bug, or not ours). */
static void refuse(fin *f, int src, cp_wlist *l)
{
    char msg[160];
    snprintf(msg, sizeof msg, "malformed wait-state lists received from rank %d", src);
    cp_fin_fail(f, msg);
    cp_wlist_free(l);
}

static int max_rounds(const all_series *S)
{
    int rounds = 0;
    for (size_t i = 0; i < S->n; i++)
        if (cp_tree_rounds(S->v[i].c->size) > rounds)
            rounds = cp_tree_rounds(S->v[i].c->size);
    return rounds;
}

/* Up the tree: reqs and bufs have room for one message per series. */
static void rounds_up(fin *f, all_series *S, MPI_Request *reqs, size_t *nreqs, cp_wbuf *bufs)
{
    int rounds = max_rounds(S);
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < S->n; i++) {
            series *s = &S->v[i];
            if (cp_tree_send_round(s->c->rank) != r)
                continue;
            int dest = world_of(s, s->c->rank - ((int64_t)1 << r));
            send_list(f, s, &s->up, false, dest, TAG_WAITS_UP, &bufs[i], reqs, nreqs);
            s->sent = true;
        }
        for (size_t i = 0; i < S->n; i++) {
            series *s = &S->v[i];
            if (s->sent || !cp_tree_has_child(s->c->rank, s->c->size, r))
                continue;
            int src = world_of(s, s->c->rank + ((int64_t)1 << r));
            cp_wlist l;
            bool failed;
            series *t = recv_list(f, S, src, TAG_WAITS_UP, false, &l, &failed);
            /* Messages from one source come in its order of series: the key
             * says whose this is. */
            if (!t || t->sent || !cp_tree_has_child(t->c->rank, t->c->size, r) ||
                world_of(t, t->c->rank + ((int64_t)1 << r)) != src) {
                refuse(f, src, &l);
                continue;
            }
            t->kid[r] = l;
            if (failed || cp_wlist_merge(&t->up, &l))
                t->failed = true;
        }
    }
}

/* Down the tree, rounds in reverse: the lead's list, and for each child the
 * latest enter of the members before it.  bufs: one per child of every
 * series (the sends are outstanding together). */
static void rounds_down(fin *f, all_series *S, MPI_Request *reqs, size_t *nreqs, cp_wbuf *bufs)
{
    size_t nbufs = 0;
    for (size_t i = 0; i < S->n; i++) {
        series *s = &S->v[i];
        if (s->c->rank == 0) {
            cp_wlist_complete(&s->up, (uint64_t)s->c->size);
            s->down = s->up;
            s->up = (cp_wlist){0};
            s->have_down = true;
        }
    }
    for (int r = max_rounds(S) - 1; r >= 0; r--) {
        for (size_t i = 0; i < S->n; i++) {
            series *s = &S->v[i];
            if (!cp_tree_has_child(s->c->rank, s->c->size, r))
                continue;
            cp_wlist l = {0};
            if (!s->failed && cp_wlist_for_child(&l, &s->down, &s->own, s->kid, r))
                s->failed = true;
            int dest = world_of(s, s->c->rank + ((int64_t)1 << r));
            send_list(f, s, &l, true, dest, TAG_WAITS_DOWN, &bufs[nbufs++], reqs, nreqs);
            cp_wlist_free(&l);
        }
        for (size_t i = 0; i < S->n; i++) {
            series *s = &S->v[i];
            if (cp_tree_send_round(s->c->rank) != r)
                continue;
            int src = world_of(s, s->c->rank - ((int64_t)1 << r));
            cp_wlist l;
            bool failed;
            series *t = recv_list(f, S, src, TAG_WAITS_DOWN, true, &l, &failed);
            if (!t || t->have_down || cp_tree_send_round(t->c->rank) != r ||
                world_of(t, t->c->rank - ((int64_t)1 << r)) != src) {
                refuse(f, src, &l);
                continue;
            }
            t->down = l;
            t->have_down = true;
            t->failed |= failed;
        }
    }
}

/* ---------------------------------------------- this rank's instances */

typedef struct own_ctx {
    cp_found *fd;
    const series *s;
} own_ctx;

static void add_own(cp_found *fd, uint32_t k, uint32_t form, uint32_t path, uint32_t pattern,
                    double v)
{
    for (size_t i = 0; i < fd->nown; i++)
        if (fd->own[i].coll == k && fd->own[i].form == form && fd->own[i].path == path &&
            fd->own[i].pattern == pattern) {
            fd->own[i].v += v;
            return;
        }
    if (fd->nown == fd->capown) {
        size_t cap = fd->capown ? 2 * fd->capown : 16;
        cp_own_wait *n = realloc(fd->own, cap * sizeof *n);
        if (!n) {
            fd->oom = true;
            return;
        }
        fd->own = n;
        fd->capown = cap;
    }
    fd->own[fd->nown++] = (cp_own_wait){k, form, path, pattern, v};
}

static void on_own(void *vctx, int p, size_t i, double sev)
{
    own_ctx *x = vctx;
    const cp_timing_rec *r = &x->s->t->recs[i];
    uint32_t path = x->s->t->paths[i];
    add_own(x->fd, (uint32_t)x->s->k, r->form, path, (uint32_t)p, sev);
    cp_wstat_add(&x->fd->job.stat[p], sev);
    cp_stat_event e = {.cnode = cp_site_key((uint32_t)x->s->k, r->form, path), .enter = r->enter,
                       .exit = r->exit, .duration = sev, .rank = cp_rt.world_rank};
    cp_stat_offer_event(&x->fd->job.top[p], &e);
}

/* ------------------------------------------- statistics to world rank 0 */

/* Up the world's binomial tree (cp_fin_up_tree), as the call paths go. */
static void stats_to_rank0(fin *f, cp_found *fd, bool ok)
{
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        ok &= !fd->job.stat[p].oom;
    if (!cp_fin_up_tree(f, TAG_WAIT_STATS, &cp_job_waits_op, &fd->job, ok))
        fd->stats_lost = true;
}

/* ------------------------------------------------------------- the stage */

static void collect(all_series *S)
{
    size_t n = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            n += analysed(c, k);
    S->v = calloc(n ? n : 1, sizeof *S->v);
    if (!S->v)
        return;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!analysed(c, k))
                continue;
            series *s = &S->v[S->n];
            *s = (series){.c = c, .k = k, .family = cp_wait_family(cp_collective_names[k]),
                          .t = &c->coll[k]->timing};
            /* The records and their paths: cp_fin_timing's sums made them. */
            if (!s->t->paths ||
                cp_wlist_leaf(&s->own, s->t->recs, s->t->n, c->rank) ||
                cp_wlist_copy(&s->up, &s->own))
                s->failed = true;
            cp_index_put(&S->ix, key_of(c->key_hash, c->key_ordinal, (uint32_t)k),
                         (uint32_t)S->n);
            S->n++;
        }
    /* An index missing an entry would lose messages: all or none. */
    S->ix_ok = S->ix.n == S->n;
}

static void series_free(series *s)
{
    cp_wlist_free(&s->own);
    cp_wlist_free(&s->up);
    cp_wlist_free(&s->down);
    for (int r = 0; r < 64; r++)
        cp_wlist_free(&s->kid[r]);
}

/* Children of this member in series s (its messages each way). */
static size_t children(const series *s)
{
    size_t n = 0;
    for (int r = 0; r < cp_tree_rounds(s->c->size); r++)
        n += cp_tree_has_child(s->c->rank, s->c->size, r);
    return n;
}

void cp_fin_find_waits(fin *f, bool timing, const cp_cpt_slow *slow, size_t nslow,
                       cp_found *fd)
{
    memset(fd, 0, sizeof *fd);
    if (!timing)
        return; /* the same on every rank */
    for (size_t i = 0; i < nslow; i++)
        cp_cpt_slow_offer(fd->job.slowest, &fd->job.nslowest, CP_SLOWEST, &slow[i]);
    all_series S = {0};
    MPI_Request *reqs = NULL;
    cp_wbuf *bufs = NULL;
    size_t nsends = 0, nreqs = 0;
    if (f->trees_ok) {
        collect(&S);
        for (size_t i = 0; S.v && i < S.n; i++)
            nsends += children(&S.v[i]) + 1;
        reqs = calloc(nsends + 1, sizeof *reqs);
        bufs = calloc(nsends + 1, sizeof *bufs);
    }
    /* A rank without room could not take part, and its peers would wait
     * for it: all agree first (one allreduce). */
    int ready = f->trees_ok && S.v && reqs && bufs, all = 0;
    cp_tp_allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, f->w);
    bool ok = all;
    if (!all) {
        if (f->rank == 0)
            cp_log("%s: wait states are not computed",
                   f->trees_ok ? "memory ran out on some rank"
                               : "memory ran out while registering communicators");
    } else {
        rounds_up(f, &S, reqs, &nreqs, bufs);
        for (size_t i = 0; i < nreqs; i++)
            cp_tp_wait(&reqs[i], NULL);
        for (size_t i = 0; i < S.n; i++) {
            cp_wbuf_free(&bufs[i]);
            bufs[i] = (cp_wbuf){0};
        }
        nreqs = 0;
        rounds_down(f, &S, reqs, &nreqs, bufs);
        for (size_t i = 0; i < S.n; i++) {
            series *s = &S.v[i];
            if (s->failed || !s->have_down) {
                ok = false;
                fd->oom |= s->failed; /* the member that ran out says so too */
                continue;
            }
            own_ctx x = {fd, s};
            cp_wait_own(s->family, &s->down, s->t->recs, s->t->n, s->c->rank, on_own, &x);
        }
        for (size_t i = 0; i < nreqs; i++)
            cp_tp_wait(&reqs[i], NULL);
    }
    if (fd->oom)
        ok = false;
    stats_to_rank0(f, fd, ok);
    for (size_t i = 0; S.v && i < S.n; i++)
        series_free(&S.v[i]);
    for (size_t i = 0; bufs && i < nsends; i++)
        cp_wbuf_free(&bufs[i]);
    cp_index_free(&S.ix);
    free(S.v);
    free(reqs);
    free(bufs);
    if (fd->oom)
        cp_fin_fail(f, "out of memory while finding wait states");
}

void cp_found_free(cp_found *fd)
{
    free(fd->own);
    cp_job_waits_free(&fd->job);
    memset(fd, 0, sizeof *fd);
}
