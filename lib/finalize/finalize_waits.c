/*
 * Finalize, step 4b: wait states at the leads.  Every rank sends the
 * enter/exit times of its blocking calls of each communicator (with a
 * wait-state family) to its lead, with the call path of each call; the lead
 * walks the calls every member timed (collectors/wait_states.c) and keeps,
 * for rank 0, each instance's waiting time (the statistics need them all),
 * its rank's sum per site and pattern, and the most severe instances.
 * Data sent to a lead grows with the calls timed (at most
 * COLLPROF_TIMING_MAX_CALLS per rank).
 */
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"
#include "stat.h"

/* --------------------------------------------- enter/exit to the leads */

typedef struct member {
    uint64_t *call;
    double *enter, *exit;
    int32_t *root;
    uint32_t *path;
    uint64_t n;
    bool have;
} member;

typedef struct timing_ctx {
    member **by_led; /* by_led[j * CP_NCOLLECTIVES + k]: one per member of led[j] */
} timing_ctx;

static bool analysed(const cp_comm *c, int k)
{
    return !c->inter && c->size >= 2 &&
           cp_wait_family(cp_collective_names[k]) != CP_FAMILY_NONE;
}

static void pack_to_leads(cp_mail *m)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k] || !analysed(c, k) || c->coll[k]->timing.n == 0)
                continue;
            const cp_timing *t = &c->coll[k]->timing;
            cp_box *ob = cp_mail_box(m, (int)c->lead);
            if (!ob)
                return;
            uint64_t nb = 0;
            for (size_t i = 0; i < t->n; i++)
                nb += !(t->recs[i].flags & CP_CPT_NONBLOCKING);
            const uint32_t *paths = t->paths; /* cp_fin_timing's sums found them */
            if (!paths) {
                m->failed = true;
                return;
            }
            cp_put_u64(&ob->b, c->key_hash);
            cp_put_u32(&ob->b, c->key_ordinal);
            cp_put_i64(&ob->b, c->rank);
            cp_put_u32(&ob->b, (uint32_t)k);
            cp_put_u64(&ob->b, nb);
            for (size_t i = 0; i < t->n; i++) {
                const cp_timing_rec *r = &t->recs[i];
                if (r->flags & CP_CPT_NONBLOCKING)
                    continue;
                cp_put_u64(&ob->b, r->call);
                cp_put(&ob->b, &r->enter, sizeof r->enter);
                cp_put(&ob->b, &r->exit, sizeof r->exit);
                cp_put(&ob->b, &r->root, sizeof r->root);
                cp_put_u32(&ob->b, paths[i]);
            }
            ob->nrecords++;
        }
}

static void from_member(fin *f, void *vctx, int source, uint32_t nrec, cp_rbuf *rb)
{
    timing_ctx *ctx = vctx;
    (void)source;
    for (uint32_t i = 0; i < nrec && !rb->bad && !f->failed; i++) {
        uint64_t hash = cp_get_u64(rb);
        uint32_t ordinal = cp_get_u32(rb);
        int64_t crank = cp_get_i64(rb);
        uint32_t k = cp_get_u32(rb);
        uint64_t n = cp_get_u64(rb);
        cp_led *l = cp_fin_led_find(f, hash, ordinal);
        if (!l || k >= CP_NCOLLECTIVES || crank < 0 || crank >= l->comm->size ||
            !cp_rbuf_has(rb, n, 32)) {
            rb->bad = true;
            return;
        }
        size_t j = (size_t)(l - f->led);
        member **slot = &ctx->by_led[j * CP_NCOLLECTIVES + k];
        if (!*slot && !(*slot = calloc((size_t)l->comm->size, sizeof **slot))) {
            cp_fin_fail(f, "out of memory while gathering timings");
            return;
        }
        member *mb = &(*slot)[crank];
        if (mb->have) {
            rb->bad = true;
            return;
        }
        mb->call = malloc((n ? n : 1) * sizeof *mb->call);
        mb->enter = malloc((n ? n : 1) * sizeof *mb->enter);
        mb->exit = malloc((n ? n : 1) * sizeof *mb->exit);
        mb->root = malloc((n ? n : 1) * sizeof *mb->root);
        mb->path = malloc((n ? n : 1) * sizeof *mb->path);
        mb->have = true;
        mb->n = n;
        if (!mb->call || !mb->enter || !mb->exit || !mb->root || !mb->path) {
            cp_fin_fail(f, "out of memory while gathering timings");
            return;
        }
        for (uint64_t x = 0; x < n; x++) {
            mb->call[x] = cp_get_u64(rb);
            cp_get(rb, &mb->enter[x], sizeof(double));
            cp_get(rb, &mb->exit[x], sizeof(double));
            cp_get(rb, &mb->root[x], sizeof(int32_t));
            mb->path[x] = cp_get_u32(rb);
        }
    }
}

static void free_members(member *m, int64_t n)
{
    for (int64_t i = 0; m && i < n; i++) {
        free(m[i].call);
        free(m[i].enter);
        free(m[i].exit);
        free(m[i].root);
        free(m[i].path);
    }
    free(m);
}

/* ------------------------------------------- wait states, at the leads */


static void add_value(cp_found *fd, int p, double v)
{
    if (fd->nvalues[p] == fd->cap[p]) {
        size_t cap = fd->cap[p] ? 2 * fd->cap[p] : 256;
        double *nv = realloc(fd->values[p], cap * sizeof *nv);
        if (!nv) {
            fd->oom = true;
            return;
        }
        fd->values[p] = nv;
        fd->cap[p] = cap;
    }
    fd->values[p][fd->nvalues[p]++] = v;
}

/* Each instance: its severity is a value of the pattern's statistics, a
 * candidate for the listed instances, and part of its rank's sum at its
 * site (the collective, called from that rank's call path). */
/* One member's waiting time per (call path, pattern): few entries. */
typedef struct msum {
    struct {
        uint32_t path, pattern;
        double v;
    } *e;
    size_t n, cap;
} msum;

typedef struct sink_ctx {
    cp_found *fd;
    const cp_comm *c;
    int k;
    const member *mb;
    msum *sums; /* per member */
} sink_ctx;

static void msum_add(cp_found *fd, msum *s, uint32_t path, uint32_t pattern, double v)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].path == path && s->e[i].pattern == pattern) {
            s->e[i].v += v;
            return;
        }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        void *ne = realloc(s->e, cap * sizeof *s->e);
        if (!ne) {
            fd->oom = true;
            return;
        }
        s->e = ne;
        s->cap = cap;
    }
    s->e[s->n].path = path;
    s->e[s->n].pattern = pattern;
    s->e[s->n++].v = v;
}

/* The member's record of a call (records are in call order). */
static size_t record_of(const member *m, uint64_t call)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->call[mid] < call)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void on_instance(void *vctx, int p, size_t m, uint64_t call, double enter, double exit,
                        double sev)
{
    sink_ctx *x = vctx;
    uint32_t path = x->mb[m].path[record_of(&x->mb[m], call)];
    int64_t rank = cp_ranges_nth(&x->c->members, (int64_t)m);
    msum_add(x->fd, &x->sums[m], path, (uint32_t)p, sev);
    add_value(x->fd, p, sev);
    cp_stat_event e = {.cnode = cp_site_key((uint32_t)x->k, path), .enter = enter, .exit = exit,
                       .duration = sev, .rank = rank};
    cp_stat_offer_event(&x->fd->top[p], &e);
}

static void analyse(const cp_comm *c, int k, const member *mb, cp_found *fd)
{
    size_t n = (size_t)c->size;
    for (size_t m = 0; m < n; m++)
        if (!mb[m].have)
            return;
    cp_wait_member *wm = calloc(n, sizeof *wm);
    sink_ctx x = {fd, c, k, mb, calloc(n, sizeof(msum))};
    if (!wm || !x.sums) {
        fd->oom = true;
        free(wm);
        free(x.sums);
        return;
    }
    for (size_t m = 0; m < n; m++)
        wm[m] = (cp_wait_member){mb[m].call, mb[m].enter, mb[m].exit, mb[m].root, NULL,
                                 mb[m].n};
    if (cp_wait_states_series(cp_collective_names[k], n, wm, on_instance, &x))
        fd->oom = true;
    /* Each member's sums, one entry per (rank, site, pattern), for rank 0. */
    for (size_t m = 0; m < n; m++) {
        int64_t rank = cp_ranges_nth(&c->members, (int64_t)m);
        for (size_t i = 0; i < x.sums[m].n; i++) {
            cp_put_u64(&fd->sums, (uint64_t)rank);
            cp_put_u32(&fd->sums, (uint32_t)k);
            cp_put_u32(&fd->sums, x.sums[m].e[i].path);
            cp_put_u32(&fd->sums, x.sums[m].e[i].pattern);
            cp_put(&fd->sums, &x.sums[m].e[i].v, sizeof x.sums[m].e[i].v);
            fd->nsums++;
        }
        free(x.sums[m].e);
    }
    free(x.sums);
    free(wm);
}

void cp_fin_find_waits(fin *f, bool timing, cp_found *fd)
{
    memset(fd, 0, sizeof *fd);
    timing_ctx ctx = {0};
    ctx.by_led = calloc((f->nled ? f->nled : 1) * CP_NCOLLECTIVES, sizeof *ctx.by_led);
    if (!ctx.by_led)
        cp_fin_fail(f, "out of memory while gathering timings");
    cp_mail m = {0};
    if (timing)
        pack_to_leads(&m);
    cp_mail_exchange(f, &m, TAG_TIMING, "timings", from_member, &ctx);
    for (size_t j = 0; j < f->nled && ctx.by_led; j++)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            member *mb = ctx.by_led[j * CP_NCOLLECTIVES + k];
            if (mb && !f->failed)
                analyse(f->led[j].comm, k, mb, fd);
            free_members(mb, f->led[j].comm->size);
        }
    free(ctx.by_led);
    if (fd->oom || fd->sums.failed)
        cp_fin_fail(f, "out of memory while finding wait states");
}

void cp_found_free(cp_found *fd)
{
    cp_wbuf_free(&fd->sums);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        free(fd->values[p]);
    memset(fd, 0, sizeof *fd);
}
