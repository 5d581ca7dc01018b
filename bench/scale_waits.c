/*
 * The scale simulator's wait-state stage: finalize's own code for every
 * virtual rank — each member's series (merge/wait_stage.c) up and
 * down its communicator's tree through finalize's engine
 * (merge/group_trees.c), as lib/finalize/finalize_waits.c runs it
 * over MPI, here over the simulator's mailboxes; then the statistics up
 * the world's tree (merge/job_waits.c over cp_tree_reduce_up).
 *
 * Up, the members run from n - 1 down to 0; down, from the lead in the
 * tree's order, each member's state after the way up rebuilt from its
 * subtree's way up (not accounted) just before it runs: keeping every
 * member's lists between the two ways would hold the whole job's at once.
 *
 * Each member's sampled calls (all `calls` of the series) are generated
 * from its world rank and the call: enter = call + up to 1 ms, exit =
 * call + 10 ms + up to 0.1 ms, so every call has N x N waiting and
 * completion on most ranks.  Each member's own waiting times, as
 * cp_wait_own computes them from what came down, are checked against the
 * generator's (latest enter - its enter; its exit - first exit), and rank
 * 0's merged statistics against the generator's count and sum.
 *
 * Cost per virtual rank: bytes received, CPU of its own work (leaf, the
 * engine's packing, merging and unpacking, its own waits), and the most it
 * held at once: its lists (its leaf, what it merged, its children's lists
 * kept for the way down, what came down), the largest message it received
 * and the messages it sent (finalize's carrier keeps a copy of each until
 * the stage ends).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_waits.h"
#include "scale_sim.h"
#include "group_trees.h"
#include "wait_stage.h"
#include "wait_states.h"
#include "wait_stats.h"
#include "series_sums.h"
#include "wait_tree.h"

typedef struct series {
    wait_sim *s;
    const comm *c;
    uint64_t salt;
    const double *max_enter, *min_exit; /* the generator's, per call */
    cp_sample recs;                     /* scratch: one member's records */
} series;

static void times(uint64_t salt, int64_t w, int j, double *enter, double *exit)
{
    uint64_t h = sim_mix(salt ^ ((uint64_t)w << 20) ^ (uint64_t)j);
    /* [0, 1000) and [0, 100) from the two halves by a multiply, not a
     * division: every member's records are made again on the way down
     * (7 % of a run with divisions). */
    *enter = j + 1e-6 * (double)(((h & 0xffffffffu) * 1000) >> 32);
    *exit = j + 0.01 + 1e-6 * (double)(((h >> 32) * 100) >> 32);
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

/* x->recs := world rank w's sampled calls. */
static void gen_records(series *x, int64_t w)
{
    for (int j = 0; j < x->s->calls; j++) {
        cp_timing_rec r = {.call = (uint64_t)j, .root = -1};
        times(x->salt, w, j, &r.enter, &r.exit);
        r.start = r.enter;
        cp_timing_cols_put(&x->recs.cols, (size_t)j, r);
    }
}

/* Member v's series, as finalize starts it from its records. */
static void leaf(series *x, int64_t v, cp_wseries *w)
{
    gen_records(x, sim_world_of(x->c, v));
    if (cp_wseries_start(w, &x->recs.cols, (size_t)x->s->calls, v))
        sim_die("out of memory for a leaf");
}

static size_t series_bytes(const cp_wseries *w)
{
    size_t n = w->own.n + w->up.n + w->down.n;
    for (int r = 0; w->kid && r < CP_WSERIES_ROUNDS; r++) /* made with a first child */
        n += w->kid[r].n;
    return n * sizeof(cp_wcall);
}

/* Member v's part of one way (up or down) through finalize's engine, as
 * its only group; charged when `account`. */
static void run_member(series *x, int64_t v, cp_wseries *w, bool down, sim_mailbox *box,
                       bool account)
{
    int64_t wr = sim_world_of(x->c, v);
    cp_membership m = {.key = {x->salt, 0, 1}, .size = x->c->n, .rank = v, .members = x->c,
                       .value = w};
    cp_groups g = {.v = &m, .n = 1, .world_of = sim_member_world};
    cp_tree_io io = sim_mailbox_io(box);
    cp_groups_report rep = CP_GROUPS_REPORT_INIT;
    box->self = wr;
    box->received = box->sent = 0;
    box->largest = 0;
    /* The thread's CPU clock is a system call: read only for what is
     * charged (the rebuilds for the way down are not). */
    double t0 = account ? sim_cpu_now() : 0;
    if (down)
        cp_groups_down(&g, &io, &cp_wseries_down_op, &rep);
    else
        cp_groups_up(&g, &io, &cp_wseries_up_op, &rep);
    double cpu = account ? sim_cpu_now() - t0 : 0;
    if (m.failed || rep.malformed_from >= 0 || rep.out_of_memory)
        sim_die("the wait-state stage failed");
    if (account) /* its lists, the largest message in, its messages out */
        note(x->s, wr, box->received, cpu,
             series_bytes(w) + box->largest + (size_t)box->sent);
}

/* The way up for members hi - 1 down to lo, from their generated records;
 * member lo's series is kept in *keep (the others are let go: what went
 * up is in the mailbox).  Not accounted: a rebuild of what member lo held
 * after the way up, for the way down. */
static void up_range(series *x, int64_t lo, int64_t hi, sim_mailbox *box, cp_wseries *keep,
                     bool account)
{
    for (int64_t v = hi - 1; v >= lo; v--) {
        cp_wseries w;
        double t0 = account ? sim_cpu_now() : 0;
        leaf(x, v, &w);
        if (account)
            note(x->s, sim_world_of(x->c, v), 0, sim_cpu_now() - t0, 0);
        run_member(x, v, &w, false, box, account);
        if (v == lo)
            *keep = w;
        else
            cp_wseries_free(&w);
    }
}

static void check_own(void *vctx, int p, size_t i, double sev)
{
    void **ctx = vctx;
    if (p == CP_WAIT_ANALYSED)
        return;
    series *x = ctx[0];
    cp_timing_rec r = cp_timing_cols_get(&x->recs.cols, i);
    double want = p == CP_WAIT_NXN ? x->max_enter[r.call] - r.enter
                                   : r.exit - x->min_exit[r.call];
    if (sev != want)
        x->s->exact = false;
    (*(uint64_t *)ctx[1])++;
}

/* Member v's way down (w: what it held after the way up), then each of
 * its children's, each child's state rebuilt from its subtree's way up
 * over a scratch mailbox (keeping every member's state between the two
 * ways would hold P lists at once, which no rank does). */
static void down(series *x, int64_t v, cp_wseries *w, sim_mailbox *box)
{
    run_member(x, v, w, true, box, true);
    gen_records(x, sim_world_of(x->c, v));
    double t0 = sim_cpu_now();
    uint64_t found = 0;
    void *ctx[2] = {x, &found};
    if (!w->have_down)
        x->s->exact = false;
    cp_wait_own(CP_FAMILY_NXN, &w->down, &x->recs.cols, (size_t)x->s->calls, v, check_own, ctx);
    note(x->s, sim_world_of(x->c, v), 0, sim_cpu_now() - t0, 0);
    /* Every wait the generator made was found. */
    uint64_t want = 0;
    for (int j = 0; j < x->s->calls; j++)
        want += (x->max_enter[j] > x->recs.cols.enter[j]) + (x->recs.cols.exit[j] > x->min_exit[j]);
    if (found != want)
        x->s->exact = false;
    for (int r = cp_tree_rounds(x->c->n) - 1; r >= 0; r--) {
        if (!cp_tree_has_child(v, x->c->n, r))
            continue;
        int64_t c = v + ((int64_t)1 << r), end = c + ((int64_t)1 << r);
        sim_mailbox scratch = {.nbuckets = 64}; /* one subtree's messages: few buckets */
        cp_wseries cw;
        up_range(x, c, end < x->c->n ? end : x->c->n, &scratch, &cw, false);
        sim_mailbox_free(&scratch);
        down(x, c, &cw, box);
        cp_wseries_free(&cw);
    }
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
                .min_exit = t->min_exit};
    if (!t->max_enter || !t->min_exit || cp_sample_alloc(&x.recs, (size_t)s->calls))
        sim_die("out of memory");
    /* The generator's truth: latest enter and first exit of each call. */
    for (int j = 0; j < s->calls; j++) {
        t->max_enter[j] = -INFINITY;
        t->min_exit[j] = INFINITY;
        for (int64_t v = 0; v < c->n; v++) {
            double e, q;
            times(t->salt, sim_world_of(c, v), j, &e, &q);
            t->max_enter[j] = cp_wmax(t->max_enter[j], e);
            t->min_exit[j] = cp_wmin(t->min_exit[j], q);
        }
        for (int64_t v = 0; v < c->n; v++) {
            double e, q;
            times(t->salt, sim_world_of(c, v), j, &e, &q);
            s->expect_sum += (t->max_enter[j] - e) + (q - t->min_exit[j]);
            s->expect_n += (t->max_enter[j] > e) + (q > t->min_exit[j]);
        }
    }
    sim_mailbox box = {0};
    cp_wseries top;
    up_range(&x, 0, c->n, &box, &top, true);
    double t0 = sim_cpu_now();
    if (cp_wseries_top(&top, c->n))
        sim_die("out of memory at the top");
    note(s, sim_world_of(c, 0), 0, sim_cpu_now() - t0, 0);
    if (top.down.n != (size_t)s->calls || box.n)
        s->exact = false;
    down(&x, 0, &top, &box);
    if (box.n)
        s->exact = false; /* a list nobody asked for */
    cp_wseries_free(&top);
    sim_mailbox_free(&box);
    cp_sample_free(&x.recs);
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
 * (merge/job_waits.c over cp_tree_reduce_up), the ranks run from
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
