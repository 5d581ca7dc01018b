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
 * round, as the count tables do (collectors/group_trees.h): a member posts
 * its sends of a round before it receives that round's messages, so no
 * collective is needed between rounds and none can deadlock.  What a member
 * keeps, merges and sends is collectors/wait_stage.h, shared with the scale
 * simulator; this file builds the series from the registry and carries
 * them over MPI.
 *
 * Then the statistics of every pattern's instances (collectors/wait_stats.h,
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
#include "runtime.h"
#include "stat.h"
#include "transport.h"
#include "group_trees.h"
#include "wait_stage.h"
#include "wait_stats.h"

#define TAG_WAITS_UP 0x6372
#define TAG_WAITS_DOWN 0x6373
#define TAG_WAIT_STATS 0x6374

/* One series this rank is a member of: its communicator, collective, and
 * records; its lists go through the trees (collectors/wait_stage.h). */
typedef struct series {
    const cp_comm *c;
    int k, family;
    const cp_timing *t; /* this rank's records (recs, paths) */
    cp_wseries w;
} series;

typedef struct all_series {
    series *v;
    cp_groups g; /* g.v[i] is v[i]'s place in its tree */
} all_series;

static bool analysed(const cp_comm *c, int k)
{
    return c->coll[k] && c->coll[k]->counts.ncalls > 0 && !c->inter && c->size >= 2 &&
           cp_wait_family(cp_collective_names[k]) != CP_FAMILY_NONE;
}

/* Up each series' tree, the lead completes its list, down again. */
static void up_and_down(fin *f, all_series *S, cp_found *fd)
{
    cp_groups_report rep = CP_GROUPS_REPORT_INIT;
    cp_fin_world_io up = {.f = f, .tag = TAG_WAITS_UP, .what = "wait-state lists"},
                    down = {.f = f, .tag = TAG_WAITS_DOWN, .what = "wait-state lists"};
    cp_tree_io io_up = cp_fin_world_carrier(&up), io_down = cp_fin_world_carrier(&down);
    cp_groups_up(&S->g, &io_up, &cp_wseries_up_op, &rep);
    cp_fin_world_finish(&up);
    for (size_t i = 0; i < S->g.n; i++)
        if (S->g.v[i].rank == 0)
            cp_wseries_top(&S->v[i].w, S->g.v[i].size);
    cp_groups_down(&S->g, &io_down, &cp_wseries_down_op, &rep);
    cp_fin_world_finish(&down);
    fd->oom |= cp_fin_groups_said(f, &rep, "wait-state lists");
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
    S->g = (cp_groups){.v = calloc(n ? n : 1, sizeof *S->g.v),
                       .world_of = cp_fin_member_world};
    if (!S->v || !S->g.v)
        return;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!analysed(c, k))
                continue;
            size_t i = S->g.n++;
            series *s = &S->v[i];
            *s = (series){.c = c, .k = k, .family = cp_wait_family(cp_collective_names[k]),
                          .t = &c->coll[k]->timing};
            /* The records and their paths: cp_fin_timing's sums made them. */
            bool failed = !s->t->paths || cp_wseries_start(&s->w, s->t->recs, s->t->n, c->rank);
            S->g.v[i] = (cp_membership){.key = {c->key_hash, c->key_ordinal, (uint32_t)k},
                                        .size = c->size, .rank = c->rank,
                                        .members = &c->members, .value = &s->w,
                                        .failed = failed};
        }
    cp_groups_index(&S->g);
}

static void all_series_free(all_series *S)
{
    for (size_t i = 0; S->v && i < S->g.n; i++)
        cp_wseries_free(&S->v[i].w);
    cp_groups_free_index(&S->g);
    free(S->g.v);
    free(S->v);
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
    if (f->trees_ok)
        collect(&S);
    /* A rank without room could not take part, and its peers would wait
     * for it: all agree first (one allreduce). */
    int ready = f->trees_ok && S.v && S.g.v, all = 0;
    cp_tp_allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, f->w);
    bool ok = all;
    if (!all) {
        if (f->rank == 0)
            cp_log("%s: wait states are not computed",
                   f->trees_ok ? "memory ran out on some rank"
                               : "memory ran out while registering communicators");
    } else {
        up_and_down(f, &S, fd);
        for (size_t i = 0; i < S.g.n; i++) {
            series *s = &S.v[i];
            if (S.g.v[i].failed || !s->w.have_down) {
                ok = false;
                fd->oom |= S.g.v[i].failed; /* the member that ran out says so too */
                continue;
            }
            own_ctx x = {fd, s};
            cp_wait_own(s->family, &s->w.down, s->t->recs, s->t->n, s->c->rank, on_own, &x);
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
