/*
 * The numbers of `collprof timings` and of summary's time columns, from
 * timings.cpt: per (communicator, collective) the time spent, its spread,
 * the slowest calls, and the waiting time of each wait-state pattern,
 * recomputed from every rank's aligned enter/exit times with the same
 * analysis the runtime's leads use (model/wait_states.c).
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpt.h"
#include "search.h"
#include "timing_hist.h"
#include "reader_internal.h"
#include "stat.h"
#include "wait_states.h"
#include "file_names.h"
#include "grow.h"

const char cp_reader_barrier_note[] =
    "barrier mode: waiting counts from each rank's arrival in collprof's barrier before the "
    "call, which lies outside the time in the calls (exit - start): waiting may exceed that "
    "time";

const char *cp_reader_pattern_name(int i)
{
    return i >= 0 && i < CP_NWAIT_PATTERNS ? cp_wait_metrics[i].uniq_name : "?";
}

typedef struct key {
    int64_t comm;
    const char *collective;
} key;

/* One row being built: the series of every rank, and the durations. */
/* A histogram bucket of one rank in seconds: its middle, its calls. */
typedef struct hpoint {
    double at;
    uint64_t n;
} hpoint;

typedef struct acc {
    cp_timing_row row;
    cp_site_wait *site_waits; /* row 0 until the rows are sorted */
    size_t nsite_waits;
    const cp_cpt_series **by_rank; /* world_size entries */
    double *durations;
    size_t ndur, capdur;
    hpoint *hist; /* every rank's buckets (ranks' ticks differ) */
    size_t nhist, caphist;
} acc;

static int cmp_hpoint(const void *a, const void *b)
{
    const hpoint *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

/* Quantile q of the merged buckets (sorted), by the bucket's middle. */
static double hist_quantile(const hpoint *h, size_t n, uint64_t total, double q)
{
    uint64_t want = (uint64_t)(q * (double)(total - 1)), seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += h[i].n;
        if (seen > want)
            return h[i].at;
    }
    return n ? h[n - 1].at : 0;
}

static int add_hist(acc *a, const cp_cpt_series *s, cp_error *err)
{
    if (s->hist_n == 0 || !(s->tick > 0))
        return 0;
    if (cp_grow((void **)&a->hist, &a->caphist, a->nhist + s->hist_n, sizeof *a->hist, 64))
        return cp_error_set(err, "out of memory");
    for (uint32_t i = 0; i < s->hist_n; i++) {
        if (!s->hist[i])
            continue;
        double lo, hi;
        cp_timing_hist_bounds(s->hist_lo + i, &lo, &hi);
        a->hist[a->nhist++] = (hpoint){.at = 0.5 * (lo + hi) * s->tick, .n = s->hist[i]};
        a->row.hist_calls += s->hist[i];
    }
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const acc *x = a, *y = b;
    CP_ORDER_BY(x->row.comm, y->row.comm);
    return cp_reader_collective_cmp(x->row.collective, y->row.collective);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static acc *find_acc(acc **accs, size_t *n, const cp_cpt_series *s, size_t world,
                     cp_error *err)
{
    for (size_t i = 0; i < *n; i++)
        if ((*accs)[i].row.comm == s->comm_id &&
            !cp_reader_collective_cmp((*accs)[i].row.collective, s->collective))
            return &(*accs)[i];
    acc *na = realloc(*accs, (*n + 1) * sizeof *na);
    if (!na) {
        cp_error_set(err, "out of memory");
        return NULL;
    }
    *accs = na;
    acc *a = &na[(*n)++];
    memset(a, 0, sizeof *a);
    a->row.comm = s->comm_id;
    snprintf(a->row.collective, sizeof a->row.collective, "%s", s->collective);
    a->by_rank = calloc(world ? world : 1, sizeof *a->by_rank);
    if (!a->by_rank) {
        cp_error_set(err, "out of memory");
        return NULL;
    }
    return a;
}

static int add_series(acc *a, int64_t rank, const cp_cpt_series *s, cp_error *err)
{
    a->by_rank[rank] = s;
    cp_timing_row *r = &a->row;
    r->naggregated += s->naggregated;
    r->total += s->agg_time;
    if (cp_grow((void **)&a->durations, &a->capdur, a->ndur + s->n, sizeof *a->durations, 64))
        return cp_error_set(err, "out of memory");
    for (uint64_t i = 0; i < s->n; i++) {
        double d = s->exit[i] - s->start[i];
        a->durations[a->ndur++] = d;
        r->total += d;
        r->late += s->start[i] - s->enter[i];
        cp_cpt_slow slow = {.comm_id = s->comm_id, .call = s->call[i], .rank = rank,
                            .duration = d};
        memcpy(slow.collective, s->collective, sizeof slow.collective);
        cp_cpt_slow_offer(r->slowest, &r->nslowest, CP_TIMING_SLOWEST, &slow);
    }
    r->instances += s->n;
    return add_hist(a, s, err);
}

/* The calls of the sample every member kept (sorted), and per member its
 * strata (call sites: model/wait_states.h, cp_wait_factor) with each kept
 * call's waiting per pattern: what the whole-run estimate and its
 * uncertainty are made of. */
typedef struct member_sums {
    const cp_cpt_series *s;
    size_t nsites;      /* 1 for a file before version 3: the whole series */
    double *t, *x;      /* per site: exact time, sampled time */
    double *yq;         /* per site, the sampled waiting of each of the two patterns */
    uint64_t *timed, *analysed;
    double *factor;
    double *sev;        /* per kept call, the family's two patterns */
    double longest;     /* the longest kept call (exit - start, seconds) */
    double beyond;      /* time of the run's calls longer than every kept call */
} member_sums;

/* One instance the analysis found: member m's kept call i, its pattern. */
typedef struct instance {
    size_t m, i;
    int p;
    double sev;
} instance;

typedef struct sample_sums {
    cp_timing_row *r;
    cp_reader_wait_stats *ws; /* NULL: the statistics are not wanted */
    instance *inst;
    size_t ninst, capinst;
    bool oom;
    uint64_t *calls;
    size_t n;
    bool *analysed;     /* per common call: the analysis saw it */
    size_t nanalysed;
    member_sums *m;
    size_t nm;
    int pats[2];
} sample_sums;

static size_t site_of(const member_sums *ms, size_t i)
{
    return ms->s->nsites ? ms->s->site[i] : 0;
}

static size_t rec_of(const cp_cpt_series *s, uint64_t call)
{
    return cp_lower_bound_u64(s->call, (size_t)s->n, call);
}

static void on_instance(void *ctx, int p, size_t m, uint64_t call, double enter, double exit,
                        double sev)
{
    sample_sums *x = ctx;
    (void)enter, (void)exit;
    x->r->wait_sampled[p] += sev;
    x->r->wait_instances[p]++;
    member_sums *ms = &x->m[m];
    size_t i = rec_of(ms->s, call);
    if (i < ms->s->n && ms->s->call[i] == call) {
        int q = p == x->pats[1];
        ms->sev[2 * i + q] += sev;
        ms->yq[2 * site_of(ms, i) + q] += sev;
        if (x->ws && !x->oom &&
            cp_grow((void **)&x->inst, &x->capinst, x->ninst + 1, sizeof *x->inst, 64))
            x->oom = true;
        else if (x->ws)
            x->inst[x->ninst++] = (instance){m, i, p, sev};
    }
}

bool cp_reader_all_timed(const cp_wait_member *wm, size_t n, size_t i, size_t *at)
{
    uint64_t c = wm[0].call[i];
    at[0] = i;
    for (size_t m = 1; m < n; m++) {
        while (at[m] < wm[m].n && wm[m].call[at[m]] < c)
            at[m]++;
        if (at[m] >= wm[m].n || wm[m].call[at[m]] != c)
            return false;
    }
    return true;
}

/* The calls every member kept: their sorted call arrays intersected. */
static int common_calls(const cp_wait_member *wm, size_t nm, sample_sums *x)
{
    x->calls = malloc((wm[0].n ? wm[0].n : 1) * sizeof *x->calls);
    if (!x->calls)
        return -1;
    size_t *pos = calloc(nm, sizeof *pos);
    if (!pos)
        return -1;
    for (size_t i = 0; i < wm[0].n; i++)
        if (cp_reader_all_timed(wm, nm, i, pos))
            x->calls[x->n++] = wm[0].call[i];
    free(pos);
    return 0;
}

/* Each member's strata: the sites' exact time and calls (timings.cpt
 * version 3), else the series as one (its kept calls' time and the
 * aggregated calls'). */
static int member_strata(member_sums *ms, const cp_cpt_series *s)
{
    ms->s = s;
    ms->nsites = s->nsites ? s->nsites : 1;
    size_t k = ms->nsites;
    ms->t = calloc(k, sizeof *ms->t), ms->x = calloc(k, sizeof *ms->x);
    ms->factor = calloc(k, sizeof *ms->factor);
    ms->timed = calloc(k, sizeof *ms->timed), ms->analysed = calloc(k, sizeof *ms->analysed);
    ms->sev = calloc(2 * (s->n ? s->n : 1), sizeof *ms->sev);
    ms->yq = calloc(2 * k, sizeof *ms->yq);
    if (!ms->t || !ms->x || !ms->yq || !ms->factor || !ms->timed || !ms->analysed || !ms->sev)
        return -1;
    /* The calls longer than any the sample kept (a rare long wait that no
     * block's choice fell on): the histogram knows their time, the sample
     * nothing of their waiting, which may be none of it or all of it.  Said
     * beside the estimate (cp_timing_row.wait_unseen). */
    for (size_t i = 0; i < s->n; i++)
        if (s->exit[i] - s->start[i] > ms->longest)
            ms->longest = s->exit[i] - s->start[i];
    if (s->hist_n && s->tick > 0 && s->naggregated > 0) {
        for (uint32_t b = 0; b < s->hist_n; b++) {
            double lo, hi;
            cp_timing_hist_bounds(s->hist_lo + b, &lo, &hi);
            if (s->hist[b] && lo * s->tick > ms->longest)
                ms->beyond += (double)s->hist[b] * (lo + hi) / 2 * s->tick;
        }
    }
    if (s->nsites) {
        memcpy(ms->t, s->site_time, k * sizeof *ms->t);
        memcpy(ms->timed, s->site_calls, k * sizeof *ms->timed);
    } else { /* the blocking form's calls: a non-blocking one is a site of its own */
        for (size_t i = 0; i < s->n; i++)
            if (!(s->flags[i] & CP_CPT_NONBLOCKING)) {
                ms->t[0] += s->exit[i] - s->start[i];
                ms->timed[0]++;
            }
        ms->t[0] += s->agg_time;
        ms->timed[0] += s->naggregated;
    }
    return 0;
}

static void member_free(member_sums *ms)
{
    free(ms->t), free(ms->x), free(ms->factor);
    free(ms->timed), free(ms->analysed), free(ms->sev), free(ms->yq);
}

/* The calls the analysis saw (every member kept it, none non-blocking or
 * refused: as cp_wait_states_series), their time per stratum. */
static int analysed_time(sample_sums *x)
{
    x->analysed = calloc(x->n ? x->n : 1, sizeof *x->analysed);
    if (!x->analysed)
        return -1;
    for (size_t c = 0; c < x->n; c++) {
        bool blocking = true;
        for (size_t m = 0; m < x->nm && blocking; m++) {
            const cp_cpt_series *s = x->m[m].s;
            size_t i = rec_of(s, x->calls[c]);
            blocking = !(s->flags[i] & (CP_CPT_NONBLOCKING | CP_CPT_FAILED));
        }
        x->analysed[c] = blocking;
        x->nanalysed += blocking;
        for (size_t m = 0; m < x->nm && blocking; m++) {
            member_sums *ms = &x->m[m];
            size_t i = rec_of(ms->s, x->calls[c]), j = site_of(ms, i);
            ms->x[j] += ms->s->exit[i] - ms->s->start[i];
            ms->analysed[j]++;
        }
    }
    return 0;
}

/* The rare long calls of a member (its tail): the duration buckets of its
 * histogram where the sample is expected to keep fewer than
 * CP_TAIL_EXPECTED calls.  A sample mostly misses them, or holds one or
 * two, so their share of the variance cannot be seen in it: it is taken
 * from the histogram, which counts every call (see estimate).  Only where
 * the member's calls of the series are one stratum (one call site, whose
 * calls the histogram counts), estimated. */
#define CP_TAIL_EXPECTED 5.0

typedef struct member_tail {
    bool on;
    double f;                        /* analysed calls / timed calls */
    bool bucket[CP_TIMING_HIST_N];   /* the tail's buckets */
} member_tail;

static uint32_t bucket_of(const cp_cpt_series *s, size_t i)
{
    double t = (s->exit[i] - s->start[i]) / s->tick;
    return cp_timing_hist_index(t > 0 && t < 1.8e19 ? (uint64_t)llround(t) : 0);
}

static void tail_of(const member_sums *ms, member_tail *tl)
{
    const cp_cpt_series *s = ms->s;
    memset(tl, 0, sizeof *tl);
    if (ms->nsites != 1 || !s->nsites || !s->hist_n || !(s->tick > 0) || !(ms->x[0] > 0) ||
        ms->analysed[0] >= ms->timed[0])
        return;
    tl->f = (double)ms->analysed[0] / (double)ms->timed[0];
    for (uint32_t k = 0; k < s->hist_n; k++) {
        uint32_t b = s->hist_lo + k;
        if (b < CP_TIMING_HIST_N && s->hist[k] && s->hist[k] != UINT32_MAX &&
            (double)s->hist[k] * tl->f < CP_TAIL_EXPECTED)
            tl->bucket[b] = tl->on = true;
    }
}

/* The tail's variance for pattern q of one member: (1 - f) f factor^2
 * times the sum over the tail's calls of their squared residual, each call
 * taken as x_b^2 (the middle of its bucket) times the mean squared
 * relative residual (e / x)^2 of the tail calls the sample kept, or, with
 * fewer than two kept, its bound max(R, 1 - R)^2 (waiting lies in [0, x]).
 * Returns the part of the buckets up to the longest kept call; *beyond,
 * that of the buckets past it (the calls no kept call is like). */
static double tail_variance(const sample_sums *x, const member_sums *ms, const member_tail *tl,
                            int q, double *beyond)
{
    *beyond = 0;
    if (!tl->on)
        return 0;
    double R = ms->yq[q] / ms->x[0], rel[CP_TIMING_HIST_N] = {0};
    unsigned kept[CP_TIMING_HIST_N] = {0};
    for (size_t c = 0; c < x->n; c++) {
        if (!x->analysed[c])
            continue;
        size_t i = rec_of(ms->s, x->calls[c]);
        double d = ms->s->exit[i] - ms->s->start[i];
        if (!(d > 0))
            continue;
        double e = (ms->sev[2 * i + q] - R * d) / d;
        uint32_t b = bucket_of(ms->s, i);
        rel[b] += e * e, kept[b]++;
    }
    double bound = R > 1 - R ? R : 1 - R, sum = 0;
    const cp_cpt_series *s = ms->s;
    for (uint32_t k = 0; k < s->hist_n; k++) {
        uint32_t b = s->hist_lo + k;
        if (b >= CP_TIMING_HIST_N || !tl->bucket[b])
            continue;
        /* the relative residual of the nearest durations the sample holds */
        double q2 = bound * bound;
        for (uint32_t d = 0; d < CP_TIMING_HIST_N; d++) {
            if (b + d < CP_TIMING_HIST_N && kept[b + d] >= 2) {
                q2 = rel[b + d] / kept[b + d];
                break;
            }
            if (d <= b && kept[b - d] >= 2) {
                q2 = rel[b - d] / kept[b - d];
                break;
            }
        }
        double lo, hi;
        cp_timing_hist_bounds(b, &lo, &hi);
        double xb = (lo + hi) / 2 * s->tick;
        *(lo * s->tick > ms->longest ? beyond : &sum) += (double)s->hist[k] * q2 * xb * xb;
    }
    double scale = (1 - tl->f) * tl->f * ms->factor[0] * ms->factor[0];
    *beyond *= scale;
    return scale * sum;
}

/* Estimate per pattern = the sum over strata of factor x the stratum's
 * sampled waiting (cp_wait_factor: the sample's waiting per second in the
 * call times the exact time, never above it in passive timing, exact where
 * the sample holds every call).  Its standard error is the ratio
 * estimator's, linearised: per analysed call c, z_c = the sum over members
 * of factor x (waiting - ratio x time) in c.  The sample takes one call per
 * block of consecutive calls, so the variance of the sum of the z_c is
 * estimated from successive differences, n (1 - 1/w) / (n - 1) times the
 * sum of (z_c - z_c-1)^2 / 2 (w: the calls each analysed call stands for):
 * what a simple random sample's formula would give for calls in no order,
 * without counting slow changes over the run (bursts, phases) that the
 * blocks already balance.  The rare long calls of each member (member_tail)
 * are left out of the z_c and their variance taken from the histogram
 * (tail_variance) instead: a sample that missed them would otherwise state
 * an error that ignores them (measured: bench/estimate_coverage.sh). */
static int estimate(cp_timing_row *r, sample_sums *x, bool bounded)
{
    /* The calls each analysed call stands for: 1 where every timed call was
     * analysed (exact), else the timed calls over the analysed ones of the
     * strata that are estimated. */
    double timed = 0, analysed = 0;
    for (size_t m = 0; m < x->nm; m++) {
        member_sums *ms = &x->m[m];
        for (size_t j = 0; j < ms->nsites; j++) {
            bool every = ms->analysed[j] >= ms->timed[j];
            double y = ms->yq[2 * j] + ms->yq[2 * j + 1]; /* every pattern */
            ms->factor[j] = cp_wait_factor(ms->x[j], y, ms->t[j], every, bounded);
            if (!every)
                timed += (double)ms->timed[j], analysed += (double)ms->analysed[j];
        }
    }
    r->wait_weight = analysed > 0 ? timed / analysed : 1;
    r->wait_unseen = 0;
    for (size_t m = 0; r->wait_weight > 1 && m < x->nm; m++)
        r->wait_unseen += x->m[m].beyond;
    double w = r->wait_weight, n = (double)x->nanalysed;
    member_tail *tails = calloc(x->nm ? x->nm : 1, sizeof *tails);
    if (!tails)
        return -1;
    for (size_t m = 0; w > 1 && m < x->nm; m++)
        tail_of(&x->m[m], &tails[m]);
    double vseen = 0;
    for (int q = 0; q < 2; q++) {
        int p = x->pats[q];
        if (p < 0)
            continue;
        double est = 0, zz = 0, vtail = 0;
        for (size_t m = 0; m < x->nm; m++) {
            member_sums *ms = &x->m[m];
            for (size_t i = 0; i < ms->s->n; i++)
                est += ms->factor[site_of(ms, i)] * ms->sev[2 * i + q];
        }
        r->wait[p] = est;
        r->wait_se[p] = 0;
        if (w <= 1 || x->nanalysed < 2)
            continue;
        double prev = 0;
        bool first = true;
        for (size_t c = 0; c < x->n; c++) {
            if (!x->analysed[c])
                continue;
            double z = 0;
            for (size_t m = 0; m < x->nm; m++) {
                member_sums *ms = &x->m[m];
                size_t i = rec_of(ms->s, x->calls[c]), j = site_of(ms, i);
                if (ms->analysed[j] >= ms->timed[j] || !(ms->x[j] > 0))
                    continue; /* exact, or nothing to estimate from */
                if (tails[m].on && tails[m].bucket[bucket_of(ms->s, i)])
                    continue; /* the tail: from the histogram */
                z += ms->factor[j] * (ms->sev[2 * i + q] -
                                      ms->yq[2 * j + q] / ms->x[j] *
                                          (ms->s->exit[i] - ms->s->start[i]));
            }
            if (!first)
                zz += (z - prev) * (z - prev) / 2;
            prev = z, first = false;
        }
        double vbeyond = 0;
        for (size_t m = 0; m < x->nm; m++) {
            double b;
            vtail += tail_variance(x, &x->m[m], &tails[m], q, &b);
            vbeyond += b;
        }
        double seen = n * (1 - 1 / w) / (n - 1) * zz + vtail;
        vseen += seen;
        r->wait_se[p] = sqrt(seen + vbeyond);
        /* Passive timing: the waiting lies in [0, time], so the error is at
         * most the distance to the farther end. */
        double far = est > r->total - est ? est : r->total - est;
        if (bounded && r->wait_se[p] > far)
            r->wait_se[p] = far;
    }
    free(tails);
    /* The time of calls longer than any kept is said beside the estimate
     * where it exceeds the error of what the sample saw. */
    if (!(r->wait_unseen > sqrt(vseen)))
        r->wait_unseen = 0;
    return 0;
}

/* The members' series of a (communicator, collective) in communicator order,
 * for the wait-state analysis: *wm (free it) and *n; *wm NULL when there is
 * nothing to analyse (an intercommunicator, one rank, a member that timed
 * nothing: no call has every rank).  -1 when memory ran out. */
int cp_reader_wait_members(const cp_profile *p, int64_t comm, const cp_cpt_series *const *by_rank,
                           cp_wait_member **wm, size_t *n)
{
    *wm = NULL;
    *n = 0;
    const cp_comm_info *ci = cp_reader_manifest_comm(p, comm);
    if (!ci || ci->remote_members.n || ci->size < 2)
        return 0; /* intercommunicators have no pattern */
    size_t size = (size_t)ci->size;
    cp_wait_member *m = calloc(size, sizeof *m);
    if (!m)
        return -1;
    for (size_t i = 0; i < size; i++) {
        int64_t w = cp_ranges_nth(&ci->members, (int64_t)i);
        const cp_cpt_series *s =
            w >= 0 && (uint64_t)w < p->timings.world_size ? by_rank[w] : NULL;
        if (!s) {
            free(m);
            return 0;
        }
        m[i] = (cp_wait_member){s->call, s->enter, s->exit, s->root, s->flags, s->n};
    }
    *wm = m;
    *n = size;
    return 0;
}

/* Each member's waiting per pattern at each of its call sites: its
 * strata's factors times their sampled waiting (estimate's sums, split by
 * site), where the file names the sites (version 4). */
static int site_waits(const cp_comm_info *ci, acc *a, const sample_sums *x)
{
    for (size_t m = 0; m < x->nm; m++) {
        const member_sums *ms = &x->m[m];
        if (!ms->s->site_path || !ms->s->site_form)
            continue;
        int64_t rank = cp_ranges_nth(&ci->members, (int64_t)m);
        for (size_t j = 0; j < ms->s->nsites; j++)
            for (int q = 0; q < 2; q++) {
                double w = ms->factor[j] * ms->yq[2 * j + q];
                if (x->pats[q] < 0 || !(w > 0))
                    continue;
                cp_site_wait *v = realloc(a->site_waits, (a->nsite_waits + 1) * sizeof *v);
                if (!v)
                    return -1;
                a->site_waits = v;
                v[a->nsite_waits++] = (cp_site_wait){.rank = rank, .path = ms->s->site_path[j],
                                                     .form = ms->s->site_form[j],
                                                     .pattern = x->pats[q], .wait = w};
            }
    }
    return 0;
}

/* The call site of member ms's kept call i as an index of ws->sites (the
 * placeholder cnode of its instances until a Cube exists), made when new;
 * -1 where the file does not name its sites (before version 4). */
static int64_t event_site(cp_reader_wait_stats *ws, const char *collective,
                          const member_sums *ms, size_t i)
{
    const cp_cpt_series *s = ms->s;
    if (!s->site_path || !s->site_form || !s->nsites)
        return -1;
    size_t j = s->site[i];
    for (size_t k = 0; k < ws->nsites; k++)
        if (ws->sites[k].path == s->site_path[j] && ws->sites[k].form == s->site_form[j] &&
            !strcmp(ws->sites[k].collective, collective))
            return (int64_t)k;
    if (cp_grow((void **)&ws->sites, &ws->capsites, ws->nsites + 1, sizeof *ws->sites, 16))
        return -1;
    cp_reader_event_site *e = &ws->sites[ws->nsites];
    snprintf(e->collective, sizeof e->collective, "%s", collective);
    e->path = s->site_path[j];
    e->form = s->site_form[j];
    return (int64_t)ws->nsites++;
}

/* Every instance into its pattern's statistics, weighted by its stratum's
 * factor (the calls of the run it stands for), and offered as one of the
 * most severe, as finalize keeps them (finalize_waits.c). */
static int instance_stats(const cp_comm_info *ci, const char *collective, sample_sums *x)
{
    for (size_t k = 0; k < x->ninst; k++) {
        const instance *in = &x->inst[k];
        const member_sums *ms = &x->m[in->m];
        if (in->p < 0 || in->p >= CP_NWAIT_PATTERNS)
            continue;
        cp_wstat_add_weighted(&x->ws->stat[in->p], in->sev, ms->factor[site_of(ms, in->i)]);
        int64_t site = event_site(x->ws, collective, ms, in->i);
        if (site < 0)
            continue;
        cp_stat_event e = {.cnode = site, .enter = ms->s->enter[in->i], .exit = ms->s->exit[in->i],
                           .duration = in->sev,
                           .rank = cp_ranges_nth(&ci->members, (int64_t)in->m)};
        cp_stat_offer_event(&x->ws->top[in->p], &e);
    }
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        x->oom |= x->ws->stat[p].oom;
    return x->oom ? -1 : 0;
}

/* Wait states of one row: every member's series, in communicator order. */
static int waits(const cp_profile *p, acc *a, cp_reader_wait_stats *ws, cp_error *err)
{
    cp_wait_member *wm;
    size_t n;
    if (cp_reader_wait_members(p, a->row.comm, a->by_rank, &wm, &n))
        return cp_error_set(err, "out of memory");
    const cp_comm_info *ci = cp_reader_manifest_comm(p, a->row.comm);
    if (!wm && ci && !ci->remote_members.n && ci->size >= 2)
        a->row.wait_unknown = true; /* a member without the series */
    if (!wm)
        return 0;
    sample_sums x = {.r = &a->row, .nm = n, .ws = ws};
    cp_wait_family_patterns(cp_wait_family(a->row.collective), x.pats);
    x.m = calloc(n, sizeof *x.m);
    int rc = x.m ? 0 : -1;
    for (size_t m = 0; m < n && rc == 0; m++) {
        const cp_cpt_series *s = NULL;
        for (size_t w = 0; w < p->timings.world_size && !s; w++)
            if (a->by_rank[w] && a->by_rank[w]->call == wm[m].call)
                s = a->by_rank[w];
        if (!s) {
            rc = -1;
            break;
        }
        rc = member_strata(&x.m[m], s);
    }
    if (rc == 0)
        rc = common_calls(wm, n, &x);
    if (rc == 0)
        rc = cp_wait_states_series(a->row.collective, n, wm, on_instance, &x);
    a->row.wait_calls = x.n;
    if (rc == 0)
        rc = analysed_time(&x);
    if (rc == 0)
        rc = estimate(&a->row, &x, !(p->timings.flags & CP_CPT_BARRIER));
    if (rc == 0)
        rc = site_waits(ci, a, &x);
    if (rc == 0 && ws)
        rc = x.oom ? -1 : instance_stats(ci, a->row.collective, &x);
    free(x.inst);
    free(x.analysed);
    for (size_t m = 0; x.m && m < n; m++)
        member_free(&x.m[m]);
    free(x.m);
    free(x.calls);
    free(wm);
    return rc ? cp_error_set(err, "out of memory") : 0;
}

static int hosts_of(const cp_cpt_file *f, cp_timings *t, cp_error *err)
{
    size_t w = (size_t)f->world_size;
    t->nranks = f->world_size;
    t->rank_node = calloc(w ? w : 1, sizeof *t->rank_node);
    if (!t->rank_node)
        return cp_error_set(err, "out of memory");
    for (size_t r = 0; r < w; r++) {
        uint32_t node = f->chunks[r].node;
        t->rank_node[r] = f->chunks[r].missing ? -1 : (int64_t)node;
        if (f->chunks[r].missing)
            continue; /* a rank that left no timings: no host known */
        if (node >= t->nhosts) {
            if (node > w)
                return cp_error_set(err, CP_FILE_TIMINGS ": rank %zu: node index %u beyond %zu ranks",
                                    r, node, w);
            char(*nh)[256] = realloc(t->hosts, (node + 1) * sizeof *nh);
            if (!nh)
                return cp_error_set(err, "out of memory");
            for (size_t i = t->nhosts; i <= node; i++)
                nh[i][0] = '\0';
            t->hosts = nh;
            t->nhosts = node + 1;
        }
        if (!t->hosts[node][0])
            snprintf(t->hosts[node], sizeof t->hosts[node], "%s", f->chunks[r].hostname);
    }
    return 0;
}

int cp_profile_timings(const cp_profile *p, cp_timings *out, cp_error *err)
{
    return cp_reader_timings_stats(p, out, NULL, err);
}

void cp_reader_wait_stats_free(cp_reader_wait_stats *ws)
{
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        cp_wstat_free(&ws->stat[p]);
    free(ws->sites);
    memset(ws, 0, sizeof *ws);
}

int cp_reader_timings_stats(const cp_profile *p, cp_timings *out, cp_reader_wait_stats *ws,
                            cp_error *err)
{
    if (ws)
        memset(ws, 0, sizeof *ws);
    memset(out, 0, sizeof *out);
    char why[1200];
    if (!p->has_timings)
        return cp_error_set(err, "%s: %s: no timings to show", p->dir,
                            cp_reader_no_timings(p, why, sizeof why));
    if (!p->has_manifest)
        return cp_error_set(err, "%s: " CP_FILE_TIMINGS " needs " CP_FILE_MANIFEST, p->dir);
    const cp_cpt_file *f = &p->timings;
    out->barrier = (f->flags & CP_CPT_BARRIER) != 0;
    acc *accs = NULL;
    size_t nacc = 0;
    int rc = hosts_of(f, out, err);
    for (uint64_t r = 0; r < f->world_size && rc == 0; r++)
        for (size_t i = 0; i < f->chunks[r].nseries && rc == 0; i++) {
            const cp_cpt_series *s = &f->chunks[r].series[i];
            acc *a = find_acc(&accs, &nacc, s, (size_t)f->world_size, err);
            rc = !a ? -1 : a->by_rank[r] ? cp_error_set(err, CP_FILE_TIMINGS ": rank %llu has two "
                                                             "series of %s on communicator %lld",
                                                        (unsigned long long)r, s->collective,
                                                        (long long)s->comm_id)
                                       : add_series(a, (int64_t)r, s, err);
        }
    for (size_t i = 0; i < nacc && rc == 0; i++) {
        acc *a = &accs[i];
        if (a->ndur) {
            qsort(a->durations, a->ndur, sizeof *a->durations, cmp_double);
            a->row.min = a->durations[0];
            a->row.max = a->durations[a->ndur - 1];
            a->row.median = cp_stat_quantile_sorted(a->durations, a->ndur, 0.5);
        }
        if (a->nhist > 0) {
            qsort(a->hist, a->nhist, sizeof *a->hist, cmp_hpoint);
            a->row.p50 = hist_quantile(a->hist, a->nhist, a->row.hist_calls, 0.5);
            a->row.p90 = hist_quantile(a->hist, a->nhist, a->row.hist_calls, 0.9);
            a->row.p99 = hist_quantile(a->hist, a->nhist, a->row.hist_calls, 0.99);
        }
        rc = waits(p, a, ws, err);
        out->naggregated += a->row.naggregated;
    }
    if (rc == 0 && nacc)
        qsort(accs, nacc, sizeof *accs, cmp_row);
    if (rc == 0 && !(out->rows = calloc(nacc ? nacc : 1, sizeof *out->rows)))
        rc = cp_error_set(err, "out of memory");
    size_t nsw = 0;
    for (size_t i = 0; i < nacc; i++)
        nsw += accs[i].nsite_waits;
    if (rc == 0 && !(out->site_waits = malloc((nsw ? nsw : 1) * sizeof *out->site_waits)))
        rc = cp_error_set(err, "out of memory");
    for (size_t i = 0; i < nacc; i++) {
        for (size_t k = 0; rc == 0 && k < accs[i].nsite_waits; k++) {
            out->site_waits[out->nsite_waits] = accs[i].site_waits[k];
            out->site_waits[out->nsite_waits++].row = out->nrows;
        }
        if (rc == 0)
            out->rows[out->nrows++] = accs[i].row;
        free(accs[i].site_waits);
        free(accs[i].by_rank);
        free(accs[i].durations);
        free(accs[i].hist);
    }
    free(accs);
    if (rc) {
        cp_timings_free(out);
        if (ws)
            cp_reader_wait_stats_free(ws);
    }
    return rc;
}

void cp_timings_free(cp_timings *t)
{
    free(t->rows);
    free(t->site_waits);
    free(t->hosts);
    free(t->rank_node);
    memset(t, 0, sizeof *t);
}
