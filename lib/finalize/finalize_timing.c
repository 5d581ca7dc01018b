/*
 * A finalize stage: timing (see finalize_timing.h).
 *
 * Data sent to a lead grows with the calls timed (at most
 * COLLPROF_TIMING_MAX_CALLS per rank); data sent to rank 0 grows with the
 * collectives used and the wait-state instances found.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"
#include "cpt.h"
#include "log.h"
#include "stat.h"
#include "transport.h"
#include "search.h"
#include "finalize_samples.h"
#include "series_sums.h"

/* ------------------------------------------------------ this rank's sums */

/* The slowest of a series' kept calls, offered to this rank's list. */
static void offer_slowest(const cp_sample *sm, int k, int64_t comm_id, int64_t rank,
                          cp_cpt_slow *slow, size_t *nslow)
{
    for (size_t i = 0; i < sm->n; i++) {
        double d = sm->cols.exit[i] - sm->cols.start[i];
        if (*nslow == CP_SLOWEST && !(d > slow[CP_SLOWEST - 1].duration))
            continue; /* not among the slowest: spare the name */
        cp_cpt_slow cand = {.comm_id = comm_id, .call = sm->cols.call[i], .rank = rank, .duration = d};
        snprintf(cand.collective, sizeof cand.collective, "%s", cp_collective_names[k]);
        cp_cpt_slow_offer(slow, nslow, CP_SLOWEST, &cand);
    }
}

/* ----------------------------------------------------- to world rank 0 */

static int cmp_site(const void *a, const void *b)
{
    const cp_site *x = a, *y = b;
    CP_ORDER_BY(x->rank, y->rank);
    CP_ORDER_BY(x->coll, y->coll);
    CP_ORDER_BY(x->form, y->form);
    return (x->path > y->path) - (x->path < y->path);
}

/* How the ranks stamped their calls, for the manifest; ranks whose counter
 * did not tick evenly are reported once (their times were converted with
 * the rate measured over the run, the best there is, but may be off). */
/* This rank's part of them, for the reduction up the world's tree with
 * the job's sites (finalize_sites.c): only rank 0 needs the result. */
static void own_clock(fin *f, cp_run_times *rt)
{
    int64_t drift = f->clock.drift_ppm;
    if (drift < 0)
        drift = -drift;
    bool drifted = f->clock.tsc && drift > CP_CLOCK_DRIFT_BOUND_PPM;
    rt->clock[0] = f->clock.tsc;
    rt->clock[1] = drifted;
    rt->clock[2] = f->clock.tsc ? drift : 0;
    rt->clock[3] = drifted ? -(int64_t)f->rank : INT64_MIN;
}

/* Rank 0, once the reduction is done. */
static void say_clocks(fin *f, cp_run_times *rt)
{
    rt->tsc_ranks = rt->clock[0];
    rt->drifted_ranks = rt->clock[1];
    rt->max_drift_ppm = rt->clock[2];
    rt->first_drifted = rt->clock[1] ? -rt->clock[3] : -1;
    if (f->rank == 0 && rt->drifted_ranks)
        cp_log("the time-stamp counter of %" PRId64 " rank(s) (first: rank %" PRId64
               ") ran %.2f%% off its calibration over the run (more than %.1f%%): their call "
               "times were converted with the rate measured over the run and may be off; "
               "COLLPROF_CLOCK=monotonic avoids the counter",
               rt->drifted_ranks, rt->first_drifted, (double)rt->max_drift_ppm / 1e4,
               CP_CLOCK_DRIFT_BOUND_PPM / 1e4);
}

void cp_fin_timing(fin *f, const fin_ids *ids, const fin_leads *L, fin_samples *S,
                   cp_run_times *rt)
{
    memset(rt, 0, sizeof *rt);
    rt->timing = f->cfg->timing != CP_TIMING_OFF;
    own_clock(f, rt);
    if (cp_fin_make_samples(f->comms, &f->clock, S))
        cp_fin_fail(f, "out of memory while reading the timing sample");

    cp_site_list st = {.rank = f->rank};
    cp_cpt_slow slow[CP_SLOWEST];
    size_t nslow = 0;
    for (cp_comm *c = f->comms; c; c = c->next) {
        int64_t id = cp_fin_comm_id(ids, c);
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            const cp_coll_tables *x = c->coll[k];
            const cp_sample *sm = cp_fin_sample(S, c, k);
            bool neighbour = cp_collective_rows_vary(cp_collective_names[k]);
            cp_sums_of_counts(&st, &x->counts, k,
                              (uint64_t)(neighbour ? c->outdegree : c->peers),
                              (uint64_t)(neighbour ? c->indegree : c->peers));
            cp_sums_of_timing(&st, &x->counts, &x->timing, k, sm, f->clock.tick);
            offer_slowest(sm, k, id, f->rank, slow, &nslow);
        }
    }
    if (st.oom)
        cp_fin_fail(f, "out of memory while summing timings");

    /* Each rank's own waiting times, by reductions; the statistics of the
     * instances to rank 0. */
    cp_found fd;
    cp_fin_find_waits(f, S, L->trees_ok, rt->timing, slow, nslow, &fd);
    for (size_t i = 0; i < fd.nown; i++) {
        cp_coll_sums *s = cp_site_list_get(&st, (int)fd.own[i].coll, fd.own[i].form, fd.own[i].path);
        if (s && fd.own[i].pattern < CP_NWAIT_PATTERNS)
            s->wait[fd.own[i].pattern] += fd.own[i].v;
    }
    if (st.oom)
        cp_fin_fail(f, "out of memory while summing timings");
    if (f->rank == 0) {
        memcpy(rt->stat, fd.job.stat, sizeof rt->stat);
        memset(fd.job.stat, 0, sizeof fd.job.stat);
        memcpy(rt->top, fd.job.top, sizeof rt->top);
        memcpy(rt->slowest, fd.job.slowest, fd.job.nslowest * sizeof *fd.job.slowest);
        rt->nslowest = fd.job.nslowest;
        rt->stats_lost = fd.stats_lost;
    }

    /* This rank keeps its sites (its column of the Cube profile); rank 0
     * learns where the ranks ran and the job's sites. */
    rt->wall = cp_time_line_align(&f->clock, f->clock.end) -
               cp_time_line_align(&f->clock, f->clock.start);
    if (st.n)
        qsort(st.v, st.n, sizeof *st.v, cmp_site);
    rt->mine = st.v;
    rt->nmine = st.n;
    cp_fin_job_sites(f, rt); /* the clocks and locations too: rt->clock at rank 0 is
                                the job's, rt->hosts every rank's */
    if (f->rank == 0)
        say_clocks(f, rt);
    cp_found_free(&fd);
}

void cp_run_times_free(cp_run_times *rt)
{
    cp_job_hosts_free(&rt->hosts);
    free(rt->mine);
    free(rt->keys);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        cp_wstat_free(&rt->stat[p]);
    memset(rt, 0, sizeof *rt);
}
