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
#include "clock.h"
#include "cpt.h"
#include "log.h"
#include "runtime.h"
#include "stat.h"
#include "transport.h"
#include "search.h"

/* ------------------------------------------------------ this rank's sums */

/* The path and root of signature id of a table (none when not recorded). */
static uint32_t path_of_sig(const cp_counts *t, uint32_t id)
{
    return id != CP_SEQ_NONE && id < t->nsigs ? t->sigs[id].callpath : CP_SEQ_NONE;
}

static uint8_t form_of_sig(const cp_counts *t, uint32_t id)
{
    return id != CP_SEQ_NONE && id < t->nsigs ? t->sigs[id].form : 0;
}

/* Did the MPI library refuse the calls of signature id? */
static bool failed_sig(const cp_counts *t, uint32_t id)
{
    return id < t->nsigs && t->sigs[id].err != 0;
}

static int32_t root_of_sig(const cp_counts *t, uint32_t id)
{
    if (id == CP_SEQ_NONE || id >= t->nsigs)
        return -1;
    int64_t r = t->sigs[id].root;
    return r >= 0 && r <= INT32_MAX ? (int32_t)r : -1;
}

/* The sample of one series as records in seconds on world rank 0's time
 * line, each with its call index, root and path (from the call sequence:
 * both are in call order); the calls timed but not kept, and their time,
 * from the exact aggregates.  Returns 0, or -1 when memory ran out. */
static int expand(const cp_counts *c, cp_timing *t)
{
    uint64_t kept = cp_timing_kept(t);
    t->recs = malloc((kept ? kept : 1) * sizeof *t->recs);
    t->paths = malloc((kept ? kept : 1) * sizeof *t->paths);
    if (!t->recs || !t->paths)
        return -1;
    double tick = cp_clock_tick();
    cp_seq_iter it;
    cp_seq_iter_init(&it, &c->seq);
    uint64_t at = 0; /* call index at the start of the iterator's run */
    const cp_tblock *b = t->head;
    double sampled_time = 0, sampled_late = 0;
    t->n = 0;
    for (uint64_t j = 0; j < kept && b; j++) {
        const cp_sample_rec *s = &b->r[j % CP_TBLOCK_RECS];
        if (j % CP_TBLOCK_RECS == CP_TBLOCK_RECS - 1)
            b = b->next;
        if (s->enter == CP_SAMPLE_UNTIMED)
            continue;
        uint64_t call = cp_timing_chosen(j, t->level), left;
        uint32_t id = cp_seq_iter_peek(&it, &left);
        while (left != UINT64_MAX && call >= at + left) {
            cp_seq_iter_skip(&it, left);
            at += left;
            id = cp_seq_iter_peek(&it, &left);
        }
        if (left == UINT64_MAX)
            id = CP_SEQ_NONE;
        uint64_t ticks = s->enter & ((UINT64_C(1) << CP_SAMPLE_FLAG_SHIFT) - 1);
        double enter = cp_clock_ticks_seconds((double)ticks);
        double start = enter + (double)s->late * tick, exit = start + (double)s->dur * tick;
        sampled_time += exit - start;
        sampled_late += start - enter;
        t->paths[t->n] = path_of_sig(c, id);
        t->recs[t->n++] = (cp_timing_rec){.call = call,
                                          .enter = cp_clock_align(enter),
                                          .start = cp_clock_align(start),
                                          .exit = cp_clock_align(exit),
                                          .root = root_of_sig(c, id),
                                          .form = form_of_sig(c, id),
                                          .flags = (uint8_t)(s->enter >> CP_SAMPLE_FLAG_SHIFT |
                                                             (failed_sig(c, id) ? CP_CPT_FAILED
                                                                                : 0))};
    }
    uint64_t timed = 0;
    double time = 0, late = 0;
    for (uint32_t i = 0; i < t->nagg; i++) {
        timed += t->agg[i].n;
        time += (double)t->agg[i].time * tick;
        late += (double)t->agg[i].late * tick;
    }
    t->naggregated = timed > t->n ? timed - t->n : 0;
    t->agg_time = time > sampled_time ? time - sampled_time : 0;
    t->agg_late = late > sampled_late ? late - sampled_late : 0;
    return 0;
}

static int expand_all(void)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            if (c->coll[k] && expand(&c->coll[k]->counts, &c->coll[k]->timing))
                return -1;
    return 0;
}

/* Bytes of one of this rank's vectors in one call: a single count that goes
 * to every peer counts once per peer (the reader's rule). */
static uint64_t vec_bytes(const cp_counts *t, uint32_t v, int k, uint64_t peers)
{
    if (v == CP_SEQ_NONE || v >= t->nvecs)
        return 0;
    const cp_vec *x = &t->vecs[v];
    uint64_t sum = 0;
    for (int64_t i = 0, n = x->peers ? x->nnz : x->len; i < n; i++)
        sum += (uint64_t)x->counts[i];
    sum *= (uint64_t)x->dtsize;
    if (x->len == 1 && cp_collective_single_count_per_peer(cp_collective_names[k]))
        sum *= peers;
    return sum;
}

/* This rank's sites (collective x call path), a short list. */
typedef struct sites {
    cp_site *v;
    size_t n, cap;
    bool oom;
} sites;

static cp_coll_sums *site_get(sites *st, int k, uint32_t form, uint32_t path)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].coll == (uint32_t)k && st->v[i].path == path && st->v[i].form == form)
            return &st->v[i].s;
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 16;
        cp_site *nv = realloc(st->v, cap * sizeof *nv);
        if (!nv) {
            st->oom = true;
            return NULL;
        }
        st->v = nv;
        st->cap = cap;
    }
    st->v[st->n] = (cp_site){.rank = cp_rt.world_rank, .coll = (uint32_t)k, .form = form,
                             .path = path};
    return &st->v[st->n++].s;
}


static void count_sums(const cp_comm *c, int k, sites *st)
{
    const cp_counts *t = &c->coll[k]->counts;
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
        cp_coll_sums *s = id != CP_SEQ_NONE && id < t->nsigs
                              ? site_get(st, k, form_of_sig(t, id), path_of_sig(t, id)) : NULL;
        if (s) {
            s->visits += left;
            s->bytes_sent += left * vec_bytes(t, t->sigs[id].send, k, out);
            s->bytes_recv += left * vec_bytes(t, t->sigs[id].recv, k, in);
        }
        cp_seq_iter_skip(&it, left);
    }
}


/* This rank's sums per site: every timed call exactly, from the aggregates
 * per signature; the kept calls for how many have their own record, and
 * the slowest of them. */
static void timing_sums(cp_comm *c, int k, int64_t comm_id, sites *st, cp_cpt_slow *slow,
                        size_t *nslow)
{
    const cp_timing *t = &c->coll[k]->timing;
    const cp_counts *cn = &c->coll[k]->counts;
    double tick = cp_clock_tick();
    for (uint32_t i = 0; i < t->nagg; i++) {
        const cp_timing_agg *a = &t->agg[i];
        if (a->n == 0)
            continue;
        cp_coll_sums *s = site_get(st, k, form_of_sig(cn, i), path_of_sig(cn, i));
        if (!s) {
            st->oom = true;
            return;
        }
        double mn = (double)a->min * tick, mx = (double)a->max * tick;
        s->min = s->ntimed == 0 || mn < s->min ? mn : s->min;
        s->max = s->ntimed == 0 || mx > s->max ? mx : s->max;
        s->ntimed += a->n;
        s->naggregated += a->n;
        s->time += (double)a->time * tick;
        s->late += (double)a->late * tick;
    }
    for (size_t i = 0; i < t->n; i++) {
        const cp_timing_rec *r = &t->recs[i];
        cp_coll_sums *s = site_get(st, k, r->form, t->paths[i]);
        if (!s) {
            st->oom = true;
            return;
        }
        s->nrecords++;
        if (s->naggregated)
            s->naggregated--;
        double d = r->exit - r->start;
        if (*nslow == CP_SLOWEST && !(d > slow[CP_SLOWEST - 1].duration))
            continue; /* not among the slowest: spare the name */
        cp_cpt_slow cand = {.comm_id = comm_id, .call = r->call, .rank = cp_rt.world_rank,
                            .duration = d};
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
    int64_t drift = cp_clock_drift_ppm();
    if (drift < 0)
        drift = -drift;
    bool drifted = cp_clock_tsc && drift > CP_CLOCK_DRIFT_BOUND_PPM;
    rt->clock[0] = cp_clock_tsc;
    rt->clock[1] = drifted;
    rt->clock[2] = cp_clock_tsc ? drift : 0;
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

void cp_fin_timing(fin *f, const fin_ids *ids, const fin_leads *L, cp_run_times *rt)
{
    memset(rt, 0, sizeof *rt);
    rt->timing = cp_rt.cfg.timing != CP_TIMING_OFF;
    double fin_at = cp_clock_now();
    if (cp_clock_measure(&cp_rt.loc, true))
        cp_fin_fail(f, "cannot compare the clocks of the ranks");
    own_clock(f, rt);
    if (expand_all())
        cp_fin_fail(f, "out of memory while reading the timing sample");

    sites st = {0};
    cp_cpt_slow slow[CP_SLOWEST];
    size_t nslow = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        int64_t id = cp_fin_comm_id(ids, c);
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            count_sums(c, k, &st);
            timing_sums(c, k, id, &st, slow, &nslow);
        }
    }
    if (st.oom)
        cp_fin_fail(f, "out of memory while summing timings");

    /* Each rank's own waiting times, by reductions; the statistics of the
     * instances to rank 0. */
    cp_found fd;
    cp_fin_find_waits(f, L->trees_ok, rt->timing, slow, nslow, &fd);
    for (size_t i = 0; i < fd.nown; i++) {
        cp_coll_sums *s = site_get(&st, (int)fd.own[i].coll, fd.own[i].form, fd.own[i].path);
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
    rt->wall = cp_clock_align(fin_at) - cp_clock_align(cp_clock_start_time());
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
