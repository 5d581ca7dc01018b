/*
 * In finalize's timing stage: wait states by reductions over each communicator.
 *
 * For every series (communicator, collective with a wait-state family) the
 * members reduce their sampled calls up the binomial tree of the
 * communicator's members, and the lead's result comes back down the same
 * tree (merge/wait_tree.h: per call the latest enter, first exit,
 * the root's enter, ...).  Each member then computes its own waiting times
 * from its own records: no rank ever receives another rank's enter and exit
 * times, a member receives at most ceil(log2 P) lists going up and one
 * coming down, each as long as the series' sample (at most
 * COLLPROF_TIMING_MAX_CALLS calls).  All series move together, round by
 * round, as the count tables do (merge/group_trees.h): a member posts
 * its sends of a round before it receives that round's messages, so no
 * collective is needed between rounds and none can deadlock.  What a member
 * keeps, merges and sends is merge/wait_stage.h, shared with the scale
 * simulator; this file builds the series from the registry and carries
 * them over MPI.
 *
 * Then the statistics of every pattern's instances (merge/wait_stats.h,
 * bounded), the most severe instances and the slowest calls (timings.cpt's
 * list) merge up the world's binomial tree to rank 0, which writes
 * profile.stat: rank 0 receives ceil(log2 P) messages of bounded size.
 * Each rank's own waiting sums stay with it and reach rank 0 with its other
 * sums per site.
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
#include "stat.h"
#include "transport.h"
#include "group_trees.h"
#include "wait_sites.h"
#include "wait_stage.h"
#include "wait_stats.h"

#define TAG_WAITS_UP 0x6372
#define TAG_WAITS_DOWN 0x6373
#define TAG_WAIT_STATS 0x6374

_Static_assert(CP_NCOLLECTIVES <= CP_WCOMM_COLLS, "a communicator's series carry every collective");

/* One communicator this rank is a member of, with the series it called
 * there; all its series go through the communicator's tree together
 * (merge/wait_stage.h: cp_wcomm), so every member takes part. */
typedef struct wcomm {
    const cp_comm *c;
    cp_wcomm w;
} wcomm;

typedef struct all_series {
    wcomm *v;
    cp_groups g; /* g.v[i] is v[i]'s place in its tree */
} all_series;

/* Communicators whose series have wait states: the same on every member. */
static bool analysed_comm(const cp_comm *c)
{
    return !c->inter && c->size >= 2;
}

static bool analysed(const cp_comm *c, int k)
{
    return c->coll[k] && c->coll[k]->counts.ncalls > 0 &&
           cp_wait_family(cp_collective_names[k]) != CP_FAMILY_NONE;
}

/* Up each communicator's tree, the lead keeps the series its members
 * agree on, down again. */
static void up_and_down(fin *f, all_series *S, cp_found *fd)
{
    cp_groups_report rep = CP_GROUPS_REPORT_INIT;
    cp_fin_world_io up = {.f = f, .tag = TAG_WAITS_UP, .what = "wait-state lists"},
                    down = {.f = f, .tag = TAG_WAITS_DOWN, .what = "wait-state lists"};
    cp_tree_io io_up = cp_fin_world_carrier(&up), io_down = cp_fin_world_carrier(&down);
    cp_groups_up(&S->g, &io_up, &cp_wcomm_up_op, &rep);
    cp_fin_world_finish(&up);
    for (size_t i = 0; i < S->g.n; i++)
        if (S->g.v[i].rank == 0)
            cp_wcomm_top(&S->v[i].w, S->g.v[i].size, NULL);
    cp_groups_down(&S->g, &io_down, &cp_wcomm_down_op, &rep);
    cp_fin_world_finish(&down);
    fd->oom |= cp_fin_groups_said(f, &rep, "wait-state lists");
}

/* ---------------------------------------------- this rank's instances */

typedef struct own_ctx {
    cp_found *fd;
    const cp_sample *t; /* this rank's records of the series (columns, paths) */
    int k;
    cp_wsites sites;    /* the series' strata (merge/wait_sites.h) */
    int64_t rank;       /* this rank's world rank */
    bool weigh;         /* second pass: the factors are known */
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

/* First pass: each stratum's sampled time and waiting.  Second: every
 * instance counted with its stratum's factor, a whole-run estimate (exact
 * where the sample holds every call).  The instance itself (profile.stat's
 * listed events) is as it was measured. */
static void on_own(void *vctx, int p, size_t i, double sev)
{
    own_ctx *x = vctx;
    const cp_timing_cols *r = &x->t->cols;
    uint32_t path = x->t->paths[i], form = r->form[i];
    cp_wsite *w = cp_wsites_get(&x->sites, form, path);
    if (!w)
        return;
    if (!x->weigh) {
        if (p == CP_WAIT_ANALYSED)
            w->x += sev, w->analysed++;
        else
            w->y += sev;
        return;
    }
    if (p == CP_WAIT_ANALYSED)
        return;
    add_own(x->fd, (uint32_t)x->k, form, path, (uint32_t)p, sev * w->factor);
    cp_wstat_add_weighted(&x->fd->job.stat[p], sev, w->factor);
    cp_stat_event e = {.cnode = cp_site_key((uint32_t)x->k, form, path), .enter = r->enter[i],
                       .exit = r->exit[i], .duration = sev, .rank = x->rank};
    cp_stat_offer_event(&x->fd->job.top[p], &e);
}

/* This rank's waiting in one series, estimated per stratum. */
static void own_waits(const fin *f, const cp_sample *t, cp_found *fd, const cp_comm *c, int k,
                      const cp_wlist *down)
{
    int family = cp_wait_family(cp_collective_names[k]);
    own_ctx x = {.fd = fd, .t = t, .k = k, .rank = f->rank};
    cp_wsites_totals(&x.sites, &c->coll[k]->counts, &c->coll[k]->timing, f->clock.tick);
    cp_wait_own(family, down, &t->cols, t->n, c->rank, on_own, &x);
    cp_wsites_finish(&x.sites, f->cfg->timing != CP_TIMING_BARRIER);
    x.weigh = true;
    if (!x.sites.oom)
        cp_wait_own(family, down, &t->cols, t->n, c->rank, on_own, &x);
    fd->oom |= x.sites.oom;
    cp_wsites_free(&x.sites);
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

static void collect(cp_comm *comms, const fin_samples *samples, all_series *S)
{
    size_t n = 0;
    for (cp_comm *c = comms; c; c = c->next)
        n += analysed_comm(c);
    S->v = calloc(n ? n : 1, sizeof *S->v);
    S->g = (cp_groups){.v = calloc(n ? n : 1, sizeof *S->g.v),
                       .world_of = cp_fin_member_world};
    if (!S->v || !S->g.v)
        return;
    for (cp_comm *c = comms; c; c = c->next) {
        if (!analysed_comm(c))
            continue;
        size_t i = S->g.n++;
        wcomm *s = &S->v[i];
        s->c = c;
        cp_wcomm_init(&s->w);
        bool failed = false;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!analysed(c, k))
                continue;
            /* The records and their paths: the timing stage made them. */
            const cp_sample *sm = cp_fin_sample(samples, c, k);
            failed |= !sm->paths || cp_wcomm_add(&s->w, (uint32_t)k, c->coll[k]->counts.ncalls,
                                                &sm->cols, sm->n, c->rank,
                                                c->coll[k]->timing.level);
        }
        S->g.v[i] = (cp_membership){.key = {c->key_hash, c->key_ordinal, 0},
                                    .size = c->size, .rank = c->rank,
                                    .members = &c->members, .value = &s->w,
                                    .failed = failed};
    }
    cp_groups_index(&S->g);
}

static void all_series_free(all_series *S)
{
    for (size_t i = 0; S->v && i < S->g.n; i++)
        cp_wcomm_free(&S->v[i].w);
    cp_groups_free_index(&S->g);
    free(S->g.v);
    free(S->v);
}

void cp_fin_find_waits(fin *f, const fin_samples *samples, bool trees_ok, bool timing,
                       const cp_cpt_slow *slow, size_t nslow,
                       cp_found *fd)
{
    memset(fd, 0, sizeof *fd);
    if (!timing)
        return; /* the same on every rank */
    for (size_t i = 0; i < nslow; i++)
        cp_cpt_slow_offer(fd->job.slowest, &fd->job.nslowest, CP_SLOWEST, &slow[i]);
    all_series S = {0};
    if (trees_ok)
        collect(f->comms, samples, &S);
    /* A rank without room could not take part, and its peers would wait
     * for it: all agree first (one allreduce). */
    int ready = trees_ok && S.v && S.g.v, all = 0;
    cp_tp_allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, f->w);
    bool ok = all;
    if (!all) {
        if (f->rank == 0)
            cp_log("%s: wait states are not computed",
                   trees_ok ? "memory ran out on some rank"
                               : "memory ran out while registering communicators");
    } else {
        up_and_down(f, &S, fd);
        for (size_t i = 0; i < S.g.n; i++) {
            wcomm *s = &S.v[i];
            if (S.g.v[i].failed) {
                ok = false;
                fd->oom = true; /* the member that ran out says so too */
                continue;
            }
            for (int k = 0; k < CP_NCOLLECTIVES; k++) {
                /* Not down: its members disagree on its calls (the count
                 * tables name it), or it has no wait states here. */
                if (!cp_wcomm_down(&s->w, (uint32_t)k))
                    continue;
                own_waits(f, cp_fin_sample(samples, s->c, k), fd, s->c, k, &cp_wcomm_series(&s->w, (uint32_t)k)->down);
            }
        }
    }
    if (fd->oom)
        ok = false;
    stats_to_rank0(f, fd, ok);
    all_series_free(&S);
    if (fd->oom)
        cp_fin_fail(f, "out of memory while finding wait states");
}

void cp_found_free(cp_found *fd)
{
    free(fd->own);
    cp_job_waits_free(&fd->job);
    memset(fd, 0, sizeof *fd);
}
