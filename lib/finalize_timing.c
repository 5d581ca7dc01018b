/*
 * Finalize, step 4: timing (see finalize_timing.h).
 *
 * Data sent to a lead grows with the calls timed (at most
 * COLLPROF_TIMING_MAX_CALLS per rank); data sent to rank 0 grows with the
 * collectives used and the wait-state instances found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"
#include "clock.h"
#include "log.h"
#include "runtime.h"
#include "stat.h"

/* ------------------------------------------------------ this rank's sums */

static void align_times(void)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            cp_timing *t = &c->timing[k];
            for (size_t i = 0; i < t->n; i++) {
                t->recs[i].enter = cp_clock_align(t->recs[i].enter);
                t->recs[i].start = cp_clock_align(t->recs[i].start);
                t->recs[i].exit = cp_clock_align(t->recs[i].exit);
            }
        }
}

/* Bytes of one of this rank's vectors in one call: a single count that goes
 * to every peer counts once per peer (the reader's rule). */
static uint64_t vec_bytes(const cp_counts *t, uint32_t v, int k, uint64_t peers)
{
    if (v == CP_SEQ_NONE || v >= t->nvecs)
        return 0;
    const cp_vec *x = &t->vecs[v];
    uint64_t sum = 0;
    for (int64_t i = 0; i < x->len; i++)
        sum += (uint64_t)x->counts[i];
    sum *= (uint64_t)x->dtsize;
    if (x->len == 1 && cp_collective_single_count_per_peer(cp_collective_names[k]))
        sum *= peers;
    return sum;
}

static void count_sums(const cp_comm *c, int k, cp_coll_sums *s)
{
    const cp_counts *t = &c->counts[k];
    bool neighbour = cp_collective_rows_vary(cp_collective_names[k]);
    uint64_t out = neighbour ? (uint64_t)c->outdegree : (uint64_t)c->peers;
    uint64_t in = neighbour ? (uint64_t)c->indegree : (uint64_t)c->peers;
    cp_seq_iter it;
    cp_seq_iter_init(&it, &t->seq);
    for (;;) {
        uint64_t left;
        uint32_t id = cp_seq_iter_peek(&it, &left);
        if (left == UINT64_MAX)
            break;
        if (id != CP_SEQ_NONE && id < t->nsigs) {
            s->visits += left;
            s->bytes_sent += left * vec_bytes(t, t->sigs[id].send, k, out);
            s->bytes_recv += left * vec_bytes(t, t->sigs[id].recv, k, in);
        }
        cp_seq_iter_skip(&it, left);
    }
}

static void timing_sums(const cp_comm *c, int k, int64_t comm_id, cp_coll_sums *s,
                        cp_cpt_slow *slow, size_t *nslow)
{
    const cp_timing *t = &c->timing[k];
    s->ntimed += t->n + t->naggregated;
    s->naggregated += t->naggregated;
    bool first = s->nrecords == 0;
    s->nrecords += t->n;
    s->time += t->agg_time;
    s->late += t->agg_late;
    for (size_t i = 0; i < t->n; i++) {
        const cp_timing_rec *r = &t->recs[i];
        double d = r->exit - r->start;
        s->time += d;
        s->late += r->start - r->enter;
        if (first && i == 0)
            s->min = s->max = d;
        s->min = d < s->min ? d : s->min;
        s->max = d > s->max ? d : s->max;
        cp_cpt_slow cand = {.comm_id = comm_id, .call = r->call, .rank = cp_rt.world_rank,
                            .duration = d};
        snprintf(cand.collective, sizeof cand.collective, "%s", cp_collective_names[k]);
        cp_slowest_offer(slow, nslow, &cand);
    }
}

void cp_slowest_offer(cp_cpt_slow *list, size_t *n, const cp_cpt_slow *s)
{
    size_t i = *n;
    if (i == CP_SLOWEST && !(s->duration > list[CP_SLOWEST - 1].duration))
        return;
    if (i == CP_SLOWEST)
        i--;
    else
        (*n)++;
    while (i > 0 && s->duration > list[i - 1].duration) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = *s;
}

/* --------------------------------------------- enter/exit to the leads */

typedef struct member {
    uint64_t *call;
    double *enter, *exit;
    int32_t *root;
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
            const cp_timing *t = &c->timing[k];
            if (!analysed(c, k) || t->n == 0)
                continue;
            cp_box *ob = cp_mail_box(m, (int)c->lead);
            if (!ob)
                return;
            uint64_t nb = 0;
            for (size_t i = 0; i < t->n; i++)
                nb += !(t->recs[i].flags & CP_CPT_NONBLOCKING);
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
            !cp_rbuf_has(rb, n, 28)) {
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
        mb->have = true;
        mb->n = n;
        if (!mb->call || !mb->enter || !mb->exit || !mb->root) {
            cp_fin_fail(f, "out of memory while gathering timings");
            return;
        }
        for (uint64_t x = 0; x < n; x++) {
            mb->call[x] = cp_get_u64(rb);
            cp_get(rb, &mb->enter[x], sizeof(double));
            cp_get(rb, &mb->exit[x], sizeof(double));
            cp_get(rb, &mb->root[x], sizeof(int32_t));
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
    }
    free(m);
}

/* ------------------------------------------- wait states, at the leads */

/* What a lead found, for rank 0. */
typedef struct found {
    cp_wbuf sums;   /* (world rank u64, collective u32, pattern u32, value f64) */
    uint64_t nsums;
    double *values[CP_NWAIT_PATTERNS];
    size_t nvalues[CP_NWAIT_PATTERNS], cap[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS];
    bool oom;
} found;

static void add_value(found *fd, int p, double v)
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
 * candidate for the listed instances, and part of the member's sum. */
typedef struct sink_ctx {
    found *fd;
    const cp_comm *c;
    int k;
    double *sum; /* [member * CP_NWAIT_PATTERNS + pattern] */
} sink_ctx;

static void on_instance(void *vctx, int p, size_t m, uint64_t call, double enter, double exit,
                        double sev)
{
    sink_ctx *x = vctx;
    (void)call;
    x->sum[m * CP_NWAIT_PATTERNS + (size_t)p] += sev;
    add_value(x->fd, p, sev);
    cp_stat_event e = {.cnode = x->k, .enter = enter, .exit = exit, .duration = sev,
                       .rank = cp_ranges_nth(&x->c->members, (int64_t)m)};
    cp_stat_offer_event(&x->fd->top[p], &e);
}

static void analyse(const cp_comm *c, int k, const member *mb, found *fd)
{
    size_t n = (size_t)c->size;
    for (size_t m = 0; m < n; m++)
        if (!mb[m].have)
            return;
    cp_wait_member *wm = calloc(n, sizeof *wm);
    sink_ctx x = {fd, c, k, calloc(n * CP_NWAIT_PATTERNS, sizeof(double))};
    if (!wm || !x.sum) {
        fd->oom = true;
    } else {
        for (size_t m = 0; m < n; m++)
            wm[m] = (cp_wait_member){mb[m].call, mb[m].enter, mb[m].exit, mb[m].root, NULL,
                                     mb[m].n};
        if (cp_wait_states_series(cp_collective_names[k], n, wm, on_instance, &x))
            fd->oom = true;
        for (size_t m = 0; m < n; m++)
            for (int p = 0; p < CP_NWAIT_PATTERNS; p++) {
                double v = x.sum[m * CP_NWAIT_PATTERNS + (size_t)p];
                if (!(v > 0))
                    continue;
                cp_put_u64(&fd->sums, (uint64_t)cp_ranges_nth(&c->members, (int64_t)m));
                cp_put_u32(&fd->sums, (uint32_t)k);
                cp_put_u32(&fd->sums, (uint32_t)p);
                cp_put(&fd->sums, &v, sizeof v);
                fd->nsums++;
            }
    }
    free(wm);
    free(x.sum);
}

/* ----------------------------------------------------- to world rank 0 */

static void put_str(cp_wbuf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    cp_put_u32(b, n);
    cp_put(b, s, n);
}

static void get_str(cp_rbuf *b, char *out, size_t cap)
{
    uint32_t n = cp_get_u32(b);
    if (n >= cap || !cp_rbuf_has(b, n, 1)) {
        b->bad = true;
        out[0] = '\0';
        return;
    }
    cp_get(b, out, n);
    out[n] = '\0';
}

static void pack_event(cp_wbuf *b, const cp_stat_event *e)
{
    cp_put_i64(b, e->cnode);
    cp_put(b, &e->enter, sizeof e->enter);
    cp_put(b, &e->exit, sizeof e->exit);
    cp_put(b, &e->duration, sizeof e->duration);
    cp_put_i64(b, e->rank);
}

static void pack_for_rank0(cp_wbuf *b, const cp_coll_sums *sums, double wall,
                           const cp_cpt_slow *slow, size_t nslow, const found *fd)
{
    const cp_location *loc = &cp_rt.loc;
    put_str(b, loc->hostname);
    cp_put(b, &loc->core, sizeof loc->core);
    cp_put(b, &loc->pid, sizeof loc->pid);
    cp_put_u32(b, loc->node);
    cp_put(b, &wall, sizeof wall);
    uint32_t ncoll = 0;
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        ncoll += sums[k].visits > 0 || sums[k].ntimed > 0;
    cp_put_u32(b, ncoll);
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (sums[k].visits > 0 || sums[k].ntimed > 0) {
            cp_put_u32(b, (uint32_t)k);
            cp_put(b, &sums[k], sizeof sums[k]);
        }
    cp_put_u32(b, (uint32_t)nslow);
    for (size_t i = 0; i < nslow; i++) {
        put_str(b, slow[i].collective);
        cp_put_i64(b, slow[i].comm_id);
        cp_put_u64(b, slow[i].call);
        cp_put(b, &slow[i].duration, sizeof slow[i].duration);
    }
    /* What this rank found as a lead. */
    cp_put_u64(b, fd->nsums);
    cp_put(b, fd->sums.p, fd->sums.len);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++) {
        cp_put_u64(b, fd->nvalues[p]);
        cp_put(b, fd->values[p], fd->nvalues[p] * sizeof(double));
        cp_put_u32(b, (uint32_t)fd->top[p].nevents);
        for (size_t e = 0; e < fd->top[p].nevents; e++)
            pack_event(b, &fd->top[p].events[e]);
    }
}

static int grow_values(cp_run_times *rt, int p, size_t more)
{
    if (rt->nvalues[p] + more <= rt->capvalues[p])
        return 0;
    size_t cap = rt->capvalues[p] ? rt->capvalues[p] : 256;
    while (cap < rt->nvalues[p] + more)
        cap *= 2;
    double *nv = realloc(rt->values[p], cap * sizeof *nv);
    if (!nv)
        return -1;
    rt->values[p] = nv;
    rt->capvalues[p] = cap;
    return 0;
}

static void unpack_at_rank0(fin *f, cp_run_times *rt, int64_t r, cp_rbuf *b)
{
    cp_location *loc = &rt->loc[r];
    get_str(b, loc->hostname, sizeof loc->hostname);
    cp_get(b, &loc->core, sizeof loc->core);
    cp_get(b, &loc->pid, sizeof loc->pid);
    loc->node = cp_get_u32(b);
    cp_get(b, &rt->wall[r], sizeof rt->wall[r]);
    uint32_t ncoll = cp_get_u32(b);
    for (uint32_t i = 0; i < ncoll && !b->bad; i++) {
        uint32_t k = cp_get_u32(b);
        cp_coll_sums s;
        cp_get(b, &s, sizeof s);
        if (k >= CP_NCOLLECTIVES) {
            b->bad = true;
            break;
        }
        /* The waits come from the leads (possibly unpacked already). */
        memcpy(s.wait, rt->sums[r * CP_NCOLLECTIVES + k].wait, sizeof s.wait);
        rt->sums[r * CP_NCOLLECTIVES + k] = s;
        rt->used[k] = true;
    }
    uint32_t nslow = cp_get_u32(b);
    for (uint32_t i = 0; i < nslow && !b->bad; i++) {
        cp_cpt_slow s = {.rank = r};
        get_str(b, s.collective, sizeof s.collective);
        s.comm_id = cp_get_i64(b);
        s.call = cp_get_u64(b);
        cp_get(b, &s.duration, sizeof s.duration);
        cp_slowest_offer(rt->slowest, &rt->nslowest, &s);
    }
    uint64_t nsums = cp_get_u64(b);
    for (uint64_t i = 0; i < nsums && !b->bad; i++) {
        uint64_t wr = cp_get_u64(b);
        uint32_t k = cp_get_u32(b), p = cp_get_u32(b);
        double v;
        cp_get(b, &v, sizeof v);
        if (wr >= (uint64_t)rt->nranks || k >= CP_NCOLLECTIVES || p >= CP_NWAIT_PATTERNS) {
            b->bad = true;
            break;
        }
        rt->sums[wr * CP_NCOLLECTIVES + k].wait[p] += v;
    }
    for (int p = 0; p < CP_NWAIT_PATTERNS && !b->bad; p++) {
        uint64_t n = cp_get_u64(b);
        if (!cp_rbuf_has(b, n, sizeof(double))) {
            b->bad = true;
            break;
        }
        if (grow_values(rt, p, n)) {
            cp_fin_fail(f, "out of memory while gathering wait states");
            b->bad = true;
            break;
        }
        cp_get(b, rt->values[p] + rt->nvalues[p], n * sizeof(double));
        rt->nvalues[p] += n;
        uint32_t ne = cp_get_u32(b);
        for (uint32_t e = 0; e < ne && !b->bad; e++) {
            cp_stat_event ev;
            ev.cnode = cp_get_i64(b);
            cp_get(b, &ev.enter, sizeof ev.enter);
            cp_get(b, &ev.exit, sizeof ev.exit);
            cp_get(b, &ev.duration, sizeof ev.duration);
            ev.rank = cp_get_i64(b);
            cp_stat_offer_event(&rt->top[p], &ev);
        }
    }
}

/* Gather every rank's buffer at rank 0 and unpack it there. */
static void gather_at_rank0(fin *f, cp_run_times *rt, const cp_wbuf *mine)
{
    uint64_t len = mine->failed ? 0 : mine->len;
    if (mine->failed)
        cp_fin_fail(f, "out of memory while packing timings");
    MPI_Count *lens = NULL;
    MPI_Aint *displs = NULL;
    char *all = NULL;
    if (f->rank == 0) {
        lens = calloc((size_t)f->size, sizeof *lens);
        displs = calloc((size_t)f->size, sizeof *displs);
        rt->nranks = f->size;
        rt->loc = calloc((size_t)f->size, sizeof *rt->loc);
        rt->wall = calloc((size_t)f->size, sizeof *rt->wall);
        rt->sums = calloc((size_t)f->size * CP_NCOLLECTIVES, sizeof *rt->sums);
    }
    uint64_t *ulens = f->rank == 0 ? calloc((size_t)f->size, sizeof *ulens) : NULL;
    PMPI_Gather(&len, 1, MPI_UINT64_T, ulens, 1, MPI_UINT64_T, 0, f->w);
    size_t total = 0;
    bool ok = f->rank != 0 || (lens && displs && ulens && rt->loc && rt->wall && rt->sums);
    if (f->rank == 0 && ok) {
        for (int r = 0; r < f->size; r++) {
            lens[r] = (MPI_Count)ulens[r];
            displs[r] = (MPI_Aint)total;
            total += ulens[r];
        }
        all = malloc(total ? total : 1);
        ok = all != NULL;
    }
    /* Everyone learns whether rank 0 can receive, so that nobody sends into
     * a buffer that is not there. */
    int can = ok;
    PMPI_Bcast(&can, 1, MPI_INT, 0, f->w);
    if (!can)
        cp_fin_fail(f, "out of memory at rank 0 while gathering timings");
    else
        PMPI_Gatherv_c(mine->p, (MPI_Count)len, MPI_BYTE, all, lens, displs, MPI_BYTE, 0,
                       f->w);
    if (f->rank == 0 && can) {
        for (int r = 0; r < f->size && !f->failed; r++) {
            cp_rbuf rb = {.p = all + displs[r], .len = (size_t)lens[r]};
            unpack_at_rank0(f, rt, r, &rb);
            if (rb.bad)
                cp_fin_fail(f, "malformed timings received at rank 0");
        }
    }
    free(all);
    free(lens);
    free(displs);
    free(ulens);
}

void cp_fin_timing(fin *f, cp_run_times *rt)
{
    memset(rt, 0, sizeof *rt);
    rt->timing = cp_rt.cfg.timing != CP_TIMING_OFF;
    double fin_at = cp_clock_now();
    if (cp_clock_measure(&cp_rt.loc, true))
        cp_fin_fail(f, "cannot compare the clocks of the ranks");
    align_times();

    cp_coll_sums sums[CP_NCOLLECTIVES];
    memset(sums, 0, sizeof sums);
    cp_cpt_slow slow[CP_SLOWEST];
    size_t nslow = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        int64_t id = cp_fin_comm_id(f, c);
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            count_sums(c, k, &sums[k]);
            timing_sums(c, k, id, &sums[k], slow, &nslow);
        }
    }

    /* Enter/exit to the leads; wait states there. */
    timing_ctx ctx = {0};
    ctx.by_led = calloc((f->nled ? f->nled : 1) * CP_NCOLLECTIVES, sizeof *ctx.by_led);
    if (!ctx.by_led)
        cp_fin_fail(f, "out of memory while gathering timings");
    cp_mail m = {0};
    if (rt->timing)
        pack_to_leads(&m);
    cp_mail_exchange(f, &m, TAG_TIMING, "timings", from_member, &ctx);
    found fd;
    memset(&fd, 0, sizeof fd);
    for (size_t j = 0; j < f->nled && ctx.by_led; j++)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            member *mb = ctx.by_led[j * CP_NCOLLECTIVES + k];
            if (mb && !f->failed)
                analyse(f->led[j].comm, k, mb, &fd);
            free_members(mb, f->led[j].comm->size);
        }
    free(ctx.by_led);
    if (fd.oom || fd.sums.failed)
        cp_fin_fail(f, "out of memory while finding wait states");

    double wall = cp_clock_align(fin_at) - cp_clock_align(cp_clock_start_time());
    cp_wbuf mine = {0};
    pack_for_rank0(&mine, sums, wall, slow, nslow, &fd);
    gather_at_rank0(f, rt, &mine);
    cp_wbuf_free(&mine);
    cp_wbuf_free(&fd.sums);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        free(fd.values[p]);
}

void cp_run_times_free(cp_run_times *rt)
{
    free(rt->loc);
    free(rt->wall);
    free(rt->sums);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        free(rt->values[p]);
    memset(rt, 0, sizeof *rt);
}
