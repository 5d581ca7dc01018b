/*
 * The scale simulator's wait-state stage: the real functions of finalize
 * (collectors/wait_tree.c, collectors/wait_stats.c) for every virtual rank,
 * the lists and statistics packed and unpacked as finalize sends them
 * (lib/finalize/finalize_waits.c), in the tree's order.
 *
 * Each member's sampled calls (all `calls` of the series) are generated
 * from its world rank and the call: enter = call + up to 1 ms, exit =
 * call + 10 ms + up to 0.1 ms, so every call has N x N waiting and
 * completion on most ranks.  Each member's own waiting times, as
 * cp_wait_own computes them from what came down, are checked against the
 * generator's (latest enter - its enter; its exit - first exit), and rank
 * 0's merged statistics against the generator's count and sum.
 *
 * Cost per virtual rank: bytes received, CPU of its own work (leaf,
 * unpack, merge, pack, its own waits), and the most it held at once (its
 * leaf, what it merged, its children's lists that it keeps for the way
 * down, what came down, one message), counted from the lists' sizes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_waits.h"
#include "scale_sim.h"
#include "wait_states.h"
#include "wait_stats.h"
#include "wait_tree.h"

typedef struct series {
    wait_sim *s;
    const comm *c;
    uint64_t salt;
    const double *max_enter, *min_exit; /* the generator's, per call */
    cp_timing_rec *recs;                /* scratch: one member's records */
} series;

static void times(uint64_t salt, int64_t w, int j, double *enter, double *exit)
{
    uint64_t h = sim_mix(salt ^ ((uint64_t)w << 20) ^ (uint64_t)j);
    *enter = j + 1e-6 * (double)(h % 1000);
    *exit = j + 0.01 + 1e-6 * (double)((h >> 20) % 100);
}

/* Charged to the stage's own tables and the run's (sim_charge). */
static void note(wait_sim *s, int64_t w, double recv, double cpu, size_t held)
{
    s->recv[w] += recv;
    s->cpu[w] += cpu;
    if (held > s->peak[w])
        s->peak[w] = held;
    sim_charge(w, recv, cpu, held);
}

static void leaf(series *x, int64_t v, cp_wlist *own)
{
    int64_t w = sim_world_of(x->c, v);
    for (int j = 0; j < x->s->calls; j++) {
        cp_timing_rec *r = &x->recs[j];
        *r = (cp_timing_rec){.call = (uint64_t)j, .root = -1};
        times(x->salt, w, j, &r->enter, &r->exit);
        r->start = r->enter;
    }
    if (cp_wlist_leaf(own, x->recs, (size_t)x->s->calls, v))
        sim_die("out of memory for a leaf");
}

/* One list from one member to another, as bytes. */
static size_t ship(const cp_wlist *l, bool down, cp_wlist *out, double *pack_cpu,
                   double *unpack_cpu)
{
    double t0 = sim_cpu_now();
    cp_wbuf b = {0};
    cp_wlist_pack(&b, l, down);
    double t1 = sim_cpu_now();
    cp_rbuf rb = {b.p, b.len, 0, false};
    if (b.failed || cp_wlist_unpack(&rb, out, down))
        sim_die("cannot unpack a wait-state list");
    *pack_cpu = t1 - t0;
    *unpack_cpu = sim_cpu_now() - t1;
    size_t len = b.len;
    cp_wbuf_free(&b);
    return len;
}

static size_t sum_n(const cp_wlist *l, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += l[i].n;
    return t;
}

/* Member v, holding [v, v + span): its leaf merged with its children's
 * lists (each child's subtree first).  kids[r]: the list of its child of
 * round r (kept when kids is not NULL).  account: charge the work. */
static void up(series *x, int64_t v, int64_t span, cp_wlist *acc, cp_wlist *kids, bool account)
{
    int64_t w = sim_world_of(x->c, v);
    double t0 = sim_cpu_now();
    cp_wlist own;
    leaf(x, v, &own);
    if (cp_wlist_copy(acc, &own))
        sim_die("out of memory");
    double cpu = sim_cpu_now() - t0;
    int r = 0;
    cp_wlist held[64];
    memset(held, 0, sizeof held);
    for (int64_t step = 1; step < span && v + step < x->c->n; step *= 2, r++) {
        cp_wlist child, got;
        up(x, v + step, step, &child, NULL, account);
        double pc, uc;
        size_t len = ship(&child, false, &got, &pc, &uc);
        cp_wlist_free(&child);
        t0 = sim_cpu_now();
        if (cp_wlist_merge(acc, &got))
            sim_die("out of memory merging");
        cpu += uc + sim_cpu_now() - t0;
        if (account) {
            note(x->s, sim_world_of(x->c, v + step), 0, pc, 0);
            size_t bytes = (own.n + acc->n + sum_n(held, r) + got.n) * sizeof(cp_wcall) + len;
            note(x->s, w, (double)len, 0, bytes);
        }
        held[r] = got;
    }
    if (account)
        note(x->s, w, 0, cpu, 0);
    for (int i = 0; i < r; i++) {
        if (kids)
            kids[i] = held[i];
        else
            cp_wlist_free(&held[i]);
    }
    cp_wlist_free(&own);
}

static void check_own(void *vctx, int p, size_t i, double sev)
{
    void **ctx = vctx;
    series *x = ctx[0];
    const cp_timing_rec *r = &x->recs[i];
    double want = p == CP_WAIT_NXN ? x->max_enter[r->call] - r->enter
                                   : r->exit - x->min_exit[r->call];
    if (sev != want)
        x->s->exact = false;
    (*(uint64_t *)ctx[1])++;
}

/* Member v got `mine` from its parent (the lead: the completed list). */
static void down(series *x, int64_t v, int64_t span, const cp_wlist *mine, size_t mine_len)
{
    int64_t w = sim_world_of(x->c, v);
    cp_wlist kids[64], own, acc;
    memset(kids, 0, sizeof kids);
    up(x, v, span, &acc, kids, false); /* what v kept from the way up */
    int nk = 0;
    for (int64_t step = 1; step < span && v + step < x->c->n; step *= 2)
        nk++;
    leaf(x, v, &own); /* also refills x->recs with v's records */
    double t0 = sim_cpu_now();
    uint64_t found = 0;
    void *ctx[2] = {x, &found};
    cp_wait_own(CP_FAMILY_NXN, mine, x->recs, (size_t)x->s->calls, v, check_own, ctx);
    /* Every wait the generator made was found. */
    uint64_t want = 0;
    for (int j = 0; j < x->s->calls; j++)
        want += (x->max_enter[j] > x->recs[j].enter) + (x->recs[j].exit > x->min_exit[j]);
    if (found != want)
        x->s->exact = false;
    double cpu = sim_cpu_now() - t0;
    size_t base = (own.n + acc.n + sum_n(kids, nk) + mine->n) * sizeof(cp_wcall);
    note(x->s, w, (double)mine_len, 0, base);
    for (int r = nk - 1; r >= 0; r--) {
        int64_t step = (int64_t)1 << r;
        cp_wlist l, got;
        t0 = sim_cpu_now();
        if (cp_wlist_for_child(&l, mine, &own, kids, r))
            sim_die("out of memory");
        cpu += sim_cpu_now() - t0;
        double pc, uc;
        size_t len = ship(&l, true, &got, &pc, &uc);
        cpu += pc;
        note(x->s, w, 0, 0, base + l.n * sizeof(cp_wcall) + len);
        note(x->s, sim_world_of(x->c, v + step), 0, uc, 0);
        cp_wlist_free(&l);
        down(x, v + step, step, &got, len);
        cp_wlist_free(&got);
    }
    note(x->s, w, 0, cpu, 0);
    for (int r = 0; r < nk; r++)
        cp_wlist_free(&kids[r]);
    cp_wlist_free(&own);
    cp_wlist_free(&acc);
}

void sim_waits_init(wait_sim *s, int64_t P, int calls)
{
    memset(s, 0, sizeof *s);
    s->P = P;
    s->calls = calls;
    s->exact = true;
    s->recv = calloc((size_t)P, sizeof *s->recv);
    s->cpu = calloc((size_t)P, sizeof *s->cpu);
    s->peak = calloc((size_t)P, sizeof *s->peak);
    if (!s->recv || !s->cpu || !s->peak)
        sim_die("out of memory for the wait-state stage");
}

void sim_waits_comm(wait_sim *s, const comm *c)
{
    wait_truth *nt = realloc(s->truth, (s->ntruth + 1) * sizeof *nt);
    if (!nt)
        sim_die("out of memory");
    s->truth = nt;
    wait_truth *t = &s->truth[s->ntruth++];
    *t = (wait_truth){.c = *c, .salt = sim_mix((uint64_t)c->first * 1000003u + (uint64_t)c->stride)};
    t->max_enter = malloc((size_t)s->calls * sizeof(double));
    t->min_exit = malloc((size_t)s->calls * sizeof(double));
    series x = {.s = s, .c = c, .salt = t->salt, .max_enter = t->max_enter,
                .min_exit = t->min_exit, .recs = malloc((size_t)s->calls * sizeof *x.recs)};
    if (!t->max_enter || !t->min_exit || !x.recs)
        sim_die("out of memory");
    /* The generator's truth: latest enter and first exit of each call. */
    for (int j = 0; j < s->calls; j++) {
        t->max_enter[j] = -INFINITY;
        t->min_exit[j] = INFINITY;
        for (int64_t v = 0; v < c->n; v++) {
            double e, q;
            times(t->salt, sim_world_of(c, v), j, &e, &q);
            t->max_enter[j] = fmax(t->max_enter[j], e);
            t->min_exit[j] = fmin(t->min_exit[j], q);
        }
        for (int64_t v = 0; v < c->n; v++) {
            double e, q;
            times(t->salt, sim_world_of(c, v), j, &e, &q);
            s->expect_sum += (t->max_enter[j] - e) + (q - t->min_exit[j]);
            s->expect_n += (t->max_enter[j] > e) + (q > t->min_exit[j]);
        }
    }
    int64_t span = 1;
    while (span < c->n)
        span *= 2;
    cp_wlist top;
    up(&x, 0, span, &top, NULL, true);
    double t0 = sim_cpu_now();
    cp_wlist_complete(&top, (uint64_t)c->n);
    note(s, sim_world_of(c, 0), 0, sim_cpu_now() - t0, 0);
    if (top.n != (size_t)s->calls)
        s->exact = false;
    down(&x, 0, span, &top, 0);
    cp_wlist_free(&top);
    free(x.recs);
}

/* World rank r's own instances (what cp_wait_own found in each of its
 * communicators, checked equal to these on the way down). */
static void own_stats(const wait_sim *s, int64_t r, cp_wstat out[2])
{
    for (size_t i = 0; i < s->ntruth; i++) {
        const wait_truth *t = &s->truth[i];
        int64_t d = r - t->c.first;
        if (d < 0 || d % t->c.stride || d / t->c.stride >= t->c.n)
            continue;
        for (int j = 0; j < s->calls; j++) {
            double e, q;
            times(t->salt, r, j, &e, &q);
            if (t->max_enter[j] > e)
                cp_wstat_add(&out[0], t->max_enter[j] - e);
            if (q > t->min_exit[j])
                cp_wstat_add(&out[1], q - t->min_exit[j]);
        }
    }
}

static size_t wstat_bytes(const cp_wstat *w)
{
    return sizeof *w + (w->binned ? w->nbins * 12 : (size_t)w->n * 8);
}

static size_t job_bytes(const cp_job_waits *j)
{
    size_t n = sizeof *j;
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        n += wstat_bytes(&j->stat[p]);
    return n;
}

/* The statistics up the world's tree through finalize's own reduction
 * (collectors/job_waits.c over cp_tree_reduce_up), the ranks run from
 * P - 1 down to 0 over the simulator's mailboxes. */
void sim_waits_stats(wait_sim *s)
{
    sim_mailbox box = {0};
    cp_tree_io io = sim_mailbox_io(&box);
    cp_job_waits root;
    bool ok = true;
    for (int64_t r = s->P - 1; r >= 0; r--) {
        cp_job_waits j;
        memset(&j, 0, sizeof j);
        cp_wstat own[2];
        memset(own, 0, sizeof own);
        double t0 = sim_cpu_now();
        own_stats(s, r, own);
        j.stat[CP_WAIT_NXN] = own[0];
        j.stat[CP_NXN_COMPLETION] = own[1];
        box.self = r;
        box.received = 0;
        box.largest = 0;
        ok &= cp_tree_reduce_up(r, s->P, &io, &cp_job_waits_op, &j, true);
        note(s, r, box.received, sim_cpu_now() - t0, job_bytes(&j) + box.largest);
        if (r == 0)
            root = j;
        else
            cp_job_waits_free(&j);
    }
    sim_mailbox_free(&box);
    /* Rank 0: what profile.stat would say, against the generator. */
    uint64_t n = 0;
    double sum = 0;
    for (int q = 0; q < CP_NWAIT_PATTERNS; q++) {
        cp_stat_pattern p;
        memset(&p, 0, sizeof p);
        if (cp_wstat_summarize(&root.stat[q], &p))
            sim_die("out of memory summarizing");
        n += p.count;
        sum += p.sum;
        if (p.count && !(p.minimum <= p.median && p.median <= p.maximum))
            s->exact = false;
    }
    cp_job_waits_free(&root);
    if (!ok || n != s->expect_n || fabs(sum - s->expect_sum) > 1e-9 * s->expect_sum)
        s->exact = false;
}

void sim_waits_free(wait_sim *s)
{
    for (size_t i = 0; i < s->ntruth; i++) {
        free(s->truth[i].max_enter);
        free(s->truth[i].min_exit);
    }
    free(s->truth);
    free(s->recv);
    free(s->cpu);
    free(s->peak);
}
