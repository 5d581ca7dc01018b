/*
 * Findings: what a performance engineer reads first (`collprof summary`'s
 * opening lines).  Each is one line with its numbers, one line per fact,
 * ranked by the time each explains (by_cost); thresholds in docs/reader.md
 * ("Findings"):
 *   waiting    for a series whose waiting is 10% or more of its time, the
 *              rank that arrives last in most calls, and how long the
 *              others waited for it: that waiting is what it explains;
 *   time       a series (communicator, collective) with 10% or more of all
 *              collective time, with its waiting; it explains its time
 *              less the waiting a late rank explains;
 *   callsite   a call path with 10% or more of all collective time or of
 *              all waiting, unless its calls are one series' (then that
 *              series' lines name it): it explains its time beyond its
 *              share of the calls;
 *   imbalance  bytes sent per rank, max / average of 1.5 or more, and
 *              ranks that never send (per-peer rows only); where timed,
 *              only when the waiting no late rank explains is 10% or more
 *              of the series' time, which is what it explains;
 *   share      each rank's share of its run (MPI_Init to MPI_Finalize) in
 *              collectives: average, the rank with the least and the most
 *              (context: after the findings that explain time);
 *   pattern    one matrix in 90% or more of 10 or more calls; an
 *              all-to-all where each rank addresses at most a tenth of
 *              the others (8 ranks or more); counts that change every call
 *              (10 calls or more);
 *   coverage   what the profile leaves out: sampled times, no timings,
 *              partial ranks, calls made but not recorded (paused, before
 *              COLLPROF_START_CALL, past COLLPROF_MAX_CALLS); last.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ranges.h"
#include "reader_internal.h"
#include "search.h"
#include "wait_states.h"
#include "file_names.h"

typedef struct list {
    cp_finding *v;
    size_t n, cap;
    bool failed;
} list;

static int tier(int kind);

/* A finding that explains time leads with the seconds it explains, so that
 * the list's order reads as its ranking ("1.470000 s  time: ..."). */
__attribute__((format(printf, 4, 5))) static void add(list *l, int kind, double cost,
                                                      const char *fmt, ...)
{
    if (l->failed)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        cp_finding *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv) {
            l->failed = true;
            return;
        }
        l->v = nv;
        l->cap = cap;
    }
    cp_finding *f = &l->v[l->n++];
    f->kind = kind;
    f->cost = cost;
    int lead = tier(kind) == 0 ? snprintf(f->text, sizeof f->text, "%.6f s  ", cost) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text + lead, sizeof f->text - (size_t)lead, fmt, ap);
    va_end(ap);
}

/* The patterns of communicator comm (entries sorted by communicator id). */
struct comm_key {
    const cp_comm_patterns *c;
    int64_t comm;
};

static bool comm_before(const void *ctx, size_t i)
{
    const struct comm_key *k = ctx;
    return k->c[i].comm < k->comm;
}

static const cp_comm_patterns *patterns_of(const cp_comm_patterns *c, size_t n, int64_t comm)
{
    struct comm_key k = {c, comm};
    size_t i = cp_lower_bound(n, comm_before, &k);
    return i < n && c[i].comm == comm ? &c[i] : NULL;
}

static double waiting(const cp_timing_row *r)
{
    double w = 0;
    for (int q = 0; r && q < CP_READER_NPATTERNS; q++)
        w += r->wait[q];
    return w;
}

/* " (estimated from 37500 sampled calls, each for 8: ±0.23 s)": what a
 * waiting time of the whole run rests on, when it was not measured whole. */
static const char *estimate_note(const cp_timing_row *r, char *out, size_t len)
{
    out[0] = '\0';
    if (!r || r->wait_weight <= 1)
        return out;
    double var = 0;
    for (int q = 0; q < CP_READER_NPATTERNS; q++)
        var += r->wait_se[q] * r->wait_se[q];
    int n = snprintf(out, len, " (estimated from %" PRIu64 " sampled calls, each standing for "
                               "%.0f: ±%.6f s, one standard error)",
                     r->wait_calls, r->wait_weight, sqrt(var));
    /* What the sample cannot know, when it matters beside that error. */
    if (n > 0 && (size_t)n < len && r->wait_unseen > 0)
        snprintf(out + n, len - (size_t)n, "; %.6f s of the time is in calls longer than any "
                 "the sample kept: their waiting is not known", r->wait_unseen);
    return out;
}

/* The rank of comm (communicator-local m, world w) that enters last most
 * often among the calls every member timed, and the others' waiting for it
 * in those calls (latest enter - own enter). */
static int last_arrival(const cp_profile *p, const cp_summary_row *s, const cp_timings *t,
                        const char *site_at, list *l, double *explained)
{
    *explained = 0;
    size_t world = (size_t)p->timings.world_size;
    const cp_cpt_series **by_rank = calloc(world ? world : 1, sizeof *by_rank);
    if (!by_rank)
        return -1;
    for (size_t r = 0; r < world; r++)
        for (size_t i = 0; i < p->timings.chunks[r].nseries; i++) {
            const cp_cpt_series *x = &p->timings.chunks[r].series[i];
            if (x->comm_id == s->comm && !cp_reader_collective_cmp(x->collective, s->collective))
                by_rank[r] = x;
        }
    cp_wait_member *wm;
    size_t n;
    int rc = cp_reader_wait_members(p, s->comm, by_rank, &wm, &n);
    free(by_rank);
    if (rc || !wm)
        return rc;
    size_t *at = calloc(n, sizeof *at);
    uint64_t *last = calloc(n, sizeof *last);
    double *owed = calloc(n, sizeof *owed);
    uint64_t calls = 0;
    if (!at || !last || !owed) {
        rc = -1;
        goto out;
    }
    /* the calls of member 0 that every member timed (calls ascend) */
    for (size_t i = 0; i < wm[0].n; i++) {
        if (!cp_reader_all_timed(wm, n, i, at))
            continue;
        size_t late = 0;
        for (size_t m = 1; m < n; m++)
            if (wm[m].enter[at[m]] > wm[late].enter[at[late]])
                late = m;
        calls++;
        last[late]++;
        for (size_t m = 0; m < n; m++)
            owed[late] += wm[late].enter[at[late]] - wm[m].enter[at[m]];
    }
    size_t top = 0;
    for (size_t m = 1; m < n; m++)
        if (last[m] > last[top])
            top = m;
    /* Over the run, when a sample: scaled as the series' waiting was
     * (its whole-run estimate over the sample's own waiting), so that the
     * two findings use the one estimate. */
    double weight = 1;
    const cp_timing_row *tr = t ? cp_reader_timing_row(t, s->comm, s->collective) : NULL;
    if (tr && tr->wait_weight > 1) {
        double sampled = 0;
        for (int q = 0; q < CP_READER_NPATTERNS; q++)
            sampled += tr->wait_sampled[q];
        weight = sampled > 0 ? waiting(tr) / sampled : 1;
    }
    if (calls > 0 && last[top] * 2 > calls) { /* a rank the others wait for, not chance */
        /* It explains the waiting it causes (over the run, when a sample). */
        double cost = owed[top] * weight;
        *explained = cost;
        const cp_comm_info *ci = cp_reader_manifest_comm(p, s->comm);
        int64_t w = ci ? cp_ranges_nth(&ci->members, (int64_t)top) : -1;
        const char *host = w >= 0 && t && (uint64_t)w < t->nranks && t->rank_node &&
                                   (size_t)t->rank_node[w] < t->nhosts
                               ? t->hosts[t->rank_node[w]]
                               : "?";
        if (weight > 1) /* a sample: say it, and what it stands for */
            add(l, CP_FINDING_WAITING, cost,
                "waiting: communicator %" PRId64 ", %s%s: world rank %" PRId64 " (host %s) "
                "arrives last in %" PRIu64 " of %" PRIu64 " sampled calls (each standing for "
                "%.0f); the others wait %.6f s for it there, about %.6f s over the run "
                "(estimated)",
                s->comm, s->collective, site_at, w, host, last[top], calls, tr->wait_weight,
                owed[top], owed[top] * weight);
        else
            add(l, CP_FINDING_WAITING, cost,
                "waiting: communicator %" PRId64 ", %s%s: world rank %" PRId64 " (host %s) "
                "arrives last in %" PRIu64 " of %" PRIu64 " timed calls; the others wait %.6f s "
                "for it there",
                s->comm, s->collective, site_at, w, host, last[top], calls, owed[top]);
    }
out:
    free(at);
    free(last);
    free(owed);
    free(wm);
    return rc;
}

/* Bytes sent per rank over the series' send matrices with a row per peer.
 * Where the series was timed, said only where it may cost time: the
 * waiting in it that no late rank explains (unexplained, 10% or more of
 * its time), which is then its cost; untimed, it costs nothing known. */
static void imbalance(const cp_profile *p, const cp_summary_row *s, list *l, bool timed,
                      double time, double unexplained)
{
    int64_t n = s->size;
    if (n < 2 || (timed && !(unexplained > 0 && unexplained >= 0.1 * time)))
        return;
    double *bytes = calloc((size_t)n, sizeof *bytes);
    bool *row = calloc((size_t)n, sizeof *row);
    if (!bytes || !row) {
        free(bytes);
        free(row);
        l->failed = true;
        return;
    }
    bool any = false;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t i = 0; p->files[f].direction == CP_SEND && i < p->files[f].nblocks; i++) {
            const cp_block *b = &p->files[f].blocks[i];
            if (b->comm_id != s->comm || cp_reader_collective_cmp(b->collective, s->collective) ||
                b->row_len <= 1 || b->invalid || b->nranks != n)
                continue;
            any = true;
            double unit = b->counts_in_bytes ? 1 : (double)b->dtsize;
            double calls = (double)cp_ranges_count(&b->calls);
            for (size_t r = 0; r < b->nrows; r++)
                for (size_t k = 0; k < b->rows[r].ranks.n; k++)
                    for (int64_t x = b->rows[r].ranks.v[k].lo; x <= b->rows[r].ranks.v[k].hi; x++) {
                        bytes[x] += (double)cp_row_sum(&b->rows[r]) * unit * calls;
                        row[x] = true;
                    }
        }
    double total = 0, max = 0;
    int64_t argmax = 0, silent = 0, with_row = 0;
    cp_ranges quiet = {0};
    for (int64_t x = 0; any && x < n; x++) {
        if (!row[x])
            continue;
        with_row++;
        total += bytes[x];
        if (bytes[x] > max) {
            max = bytes[x];
            argmax = x;
        }
        if (bytes[x] == 0) {
            silent++;
            cp_ranges_add(&quiet, x);
        }
    }
    double avg = with_row ? total / (double)with_row : 0;
    if (any && avg > 0 && max >= 1.5 * avg) {
        char *q = silent ? cp_ranges_to_string(&quiet) : NULL;
        char cost[120];
        if (timed)
            snprintf(cost, sizeof cost, "; waiting in the calls that no late rank explains: "
                                        "%.6f s", unexplained);
        else
            snprintf(cost, sizeof cost, " (not timed: what it costs is not known)");
        add(l, CP_FINDING_IMBALANCE, timed ? unexplained : 0,
            "imbalance: communicator %" PRId64 ", %s: rank %" PRId64 " sends %.1fx the average "
            "bytes%s%s%s%s",
            s->comm, s->collective, argmax, max / avg, silent ? "; ranks " : "",
            q ? q : "", silent ? " never send" : "", cost);
        free(q);
    }
    cp_ranges_free(&quiet);
    free(bytes);
    free(row);
}

static bool all_to_all(const char *coll)
{
    return strncasecmp(coll, "Alltoallv", 9) == 0 || strncasecmp(coll, "Ialltoallv", 10) == 0 ||
           strncasecmp(coll, "Alltoallw", 9) == 0 || strncasecmp(coll, "Ialltoallw", 10) == 0;
}

/* Pattern facts of one series from its send matrices. */
static void pattern_facts(const cp_comm_patterns *cp, const cp_summary_row *s, list *l,
                          double cost)
{
    if (s->calls >= 10 && s->send_matrices > 1 && s->top_send_calls * 10 >= s->calls * 9) {
        char *calls = s->top_send ? cp_ranges_to_string(&s->top_send->calls) : NULL;
        if (calls && strlen(calls) > 40)
            strcpy(calls + 37, "...");
        add(l, CP_FINDING_PATTERN, cost,
            "pattern: communicator %" PRId64 ", %s: one matrix moves %" PRId64 " of %" PRId64
            " calls (calls %s)",
            s->comm, s->collective, s->top_send_calls, s->calls, calls ? calls : "?");
        free(calls);
    }
    if (s->calls >= 10 && (int64_t)s->send_matrices == s->calls)
        add(l, CP_FINDING_PATTERN, cost,
            "pattern: communicator %" PRId64 ", %s: the counts change every call (%zu matrices "
            "in %" PRId64 " calls)",
            s->comm, s->collective, s->send_matrices, s->calls);
    if (!cp || s->size < 8 || !all_to_all(s->collective))
        return;
    int64_t most = -1;
    for (size_t i = 0; i < cp->nblocks; i++) {
        const cp_pattern *pat = &cp->blocks[i];
        if (pat->direction != CP_SEND || cp_reader_collective_cmp(pat->b->collective, s->collective))
            continue;
        for (size_t g = 0; g < pat->ngroups; g++)
            if (pat->groups[g].peers > most)
                most = pat->groups[g].peers;
    }
    int64_t few = (s->size - 1) / 10 > 1 ? (s->size - 1) / 10 : 1;
    if (most > 0 && most <= few)
        add(l, CP_FINDING_PATTERN, cost,
            "pattern: communicator %" PRId64 ", %s: each rank sends to at most %" PRId64 " of "
            "%" PRId64 " other ranks: a neighbourhood collective or point-to-point may serve",
            s->comm, s->collective, most, s->size - 1);
}

/* The share of the run in collectives, over the ranks.  Its cost is all
 * the ranks' time in collectives: more than any one series, so it leads. */
static void share(const cp_profile *p, list *l)
{
    cp_rank_time *rt;
    size_t n;
    cp_error err;
    if (cp_profile_rank_times(p, &rt, &n, &err))
        return; /* no profile.cubex or no times: the coverage findings say what is missing */
    double coll = 0, run = 0, sum = 0;
    size_t lo = 0, hi = 0, used = 0;
    for (size_t r = 0; r < n; r++) {
        if (rt[r].run <= 0)
            continue;
        double x = rt[r].collectives / rt[r].run;
        if (used == 0 || x < rt[lo].collectives / rt[lo].run)
            lo = r;
        if (used == 0 || x > rt[hi].collectives / rt[hi].run)
            hi = r;
        sum += x;
        coll += rt[r].collectives;
        run += rt[r].run;
        used++;
    }
    if (used > 0)
        add(l, CP_FINDING_SHARE, coll,
            "share: collectives take %.1f%% of the run on average over %zu ranks (%.6f s of "
            "%.6f s); least world rank %zu (host %s) %.1f%%, most world rank %zu (host %s) "
            "%.1f%%",
            100 * sum / (double)used, used, coll, run, lo, rt[lo].host,
            100 * rt[lo].collectives / rt[lo].run, hi, rt[hi].host,
            100 * rt[hi].collectives / rt[hi].run);
    free(rt);
}

/* The call sites that cost 10% or more of all collective time or waiting
 * (profiles with call paths; lines looked up for those only).  A site
 * whose calls are those of one series (its one collective, the series'
 * time within 10%) is named in that series' lines instead of a line of
 * its own: one line per fact. */
typedef struct site {
    cp_callsite_row row;
    char where[1300]; /* "exchange (app.c:46)", "? (libx.so+0x1f00)" */
    bool named;       /* in a series' line */
} site;
typedef struct sites {
    site *v;
    size_t n;
    double all_time, all_wait;
    uint64_t all_calls;
} sites;

static int sites_load(const cp_profile *p, sites *out)
{
    *out = (sites){0};
    cp_callsite_row *rows;
    size_t n;
    cp_error err;
    if (!p->has_manifest || p->manifest.ncall_tree == 0 ||
        cp_profile_callsites(p, false, &rows, &n, &err))
        return 0; /* no call paths: no call-site findings */
    /* Shares of profile.cubex's own totals, so that they add up to 100%. */
    for (size_t i = 0; i < n; i++) {
        out->all_time += rows[i].time;
        out->all_wait += rows[i].waiting;
        out->all_calls += rows[i].calls;
    }
    size_t k = 0; /* the costly ones first in rows */
    for (size_t i = 0; i < n; i++)
        if ((out->all_time > 0 && rows[i].time >= 0.1 * out->all_time) ||
            (out->all_wait > 0 && rows[i].waiting >= 0.1 * out->all_wait)) {
            cp_callsite_row t = rows[k];
            rows[k++] = rows[i];
            rows[i] = t;
        }
    if (k && (cp_callsite_rows_lines(p, rows, k) || !(out->v = calloc(k, sizeof *out->v)))) {
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        site *x = &out->v[out->n++];
        x->row = rows[i];
        const cp_callsite_row *r = &rows[i];
        const char *fn = r->node->function[0] ? r->node->function : "?";
        char where[1100];
        cp_callsite_where(r, true, where, sizeof where);
        snprintf(x->where, sizeof x->where, "%.250s (%.1000s%s)", fn, where,
                 r->source.line == CP_LINE_CHANGED ? ", module rebuilt since the run" : "");
    }
    free(rows);
    return 0;
}

/* The one call path that issued every call of the series, as its count
 * blocks list them ("Callsites:"), or -1 (none recorded, or several). */
static int64_t series_path(const cp_profile *p, const cp_summary_row *s)
{
    int64_t id = -1;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t i = 0; i < p->files[f].nblocks; i++) {
            const cp_block *b = &p->files[f].blocks[i];
            if (b->comm_id != s->comm || cp_reader_collective_cmp(b->collective, s->collective))
                continue;
            if (b->callsites.n != 1 || b->callsites.v[0].lo != b->callsites.v[0].hi ||
                (id >= 0 && b->callsites.v[0].lo != id))
                return -1;
            id = b->callsites.v[0].lo;
        }
    return id;
}

/* The notable site that issued every call of the series (its count
 * blocks say so), or NULL.  When the site's time is the series' (within
 * 10 %: its calls are essentially these), its own line would say the same
 * again: it is marked named, and left out. */
static const site *site_of_series(sites *ss, const cp_profile *p, const cp_summary_row *s,
                                  double time)
{
    int64_t path = series_path(p, s);
    for (size_t i = 0; path >= 0 && i < ss->n; i++) {
        site *x = &ss->v[i];
        if (x->row.id != path)
            continue;
        double most = x->row.time > time ? x->row.time : time;
        if (time > 0 && fabs(x->row.time - time) <= 0.1 * most)
            x->named = true;
        return x;
    }
    return NULL;
}

/* The sites not named in a series' line: each costs the time beyond its
 * fair share, its share of all rank-calls of all collective time. */
static void sites_add(const sites *ss, list *l)
{
    for (size_t i = 0; i < ss->n; i++) {
        const site *x = &ss->v[i];
        const cp_callsite_row *r = &x->row;
        if (x->named)
            continue;
        double share = ss->all_calls ? (double)r->calls / (double)ss->all_calls : 0;
        double beyond = r->time - share * ss->all_time;
        add(l, CP_FINDING_CALLSITE, beyond > 0 ? beyond : 0,
            "callsite: %s, call path %lld (%s): %.6f s in the calls, %.0f%% of all collective "
            "time in %.0f%% of the calls (%.6f s beyond that share); waiting %.6f s",
            x->where, (long long)r->id, r->collectives, r->time,
            ss->all_time > 0 ? 100 * r->time / ss->all_time : 0, 100 * share,
            beyond > 0 ? beyond : 0, r->waiting);
    }
}

/* Calls the application made but collprof did not record: their numbers
 * are missing from the count files (paused with MPI_Pcontrol(0), before
 * COLLPROF_START_CALL), and series that stopped at COLLPROF_MAX_CALLS. */
static void not_recorded(const cp_profile *p, const cp_summary_row *rows, size_t nrows, list *l)
{
    if (!p->has_manifest)
        return; /* the other tools number calls across communicators */
    int64_t gaps = 0, series = 0, capped = 0, worst = 0;
    const cp_summary_row *w = NULL;
    const char *maxc = cp_reader_setting(p, "COLLPROF_MAX_CALLS");
    int64_t max = maxc && maxc[0] >= '0' && maxc[0] <= '9' ? strtoll(maxc, NULL, 10) : -1;
    cp_ranges calls = {0};
    for (size_t i = 0; i < nrows; i++) {
        if (cp_profile_calls(p, rows[i].comm, rows[i].collective, -1, &calls) || calls.n == 0)
            continue;
        int64_t last = calls.v[0].hi;
        for (size_t k = 1; k < calls.n; k++)
            last = calls.v[k].hi > last ? calls.v[k].hi : last;
        int64_t missing = last + 1 - cp_ranges_count(&calls);
        if (missing > 0) {
            gaps += missing;
            series++;
            if (missing > worst) {
                worst = missing;
                w = &rows[i];
            }
        }
        capped += max >= 0 && cp_ranges_count(&calls) == max;
    }
    cp_ranges_free(&calls);
    if (gaps)
        add(l, CP_FINDING_COVERAGE, 0,
            "coverage: %" PRId64 " calls in %" PRId64 " series were made but not recorded "
            "(paused with MPI_Pcontrol(0), or before COLLPROF_START_CALL): their numbers are "
            "missing from the count files; the most: communicator %" PRId64 ", %s, %" PRId64
            " call%s",
            gaps, series, w->comm, w->collective, worst, worst == 1 ? "" : "s");
    if (capped)
        add(l, CP_FINDING_COVERAGE, 0,
            "coverage: %" PRId64 " series recorded COLLPROF_MAX_CALLS=%" PRId64 " calls: any "
            "later calls were not recorded",
            capped, max);
}

/* The order: first what explains time (the waiting a late rank causes, a
 * series' own time, a call site's time beyond its share, imbalance that
 * costs waiting), by the seconds explained; then the run's share in
 * collectives (context); then pattern facts; what is left out last. */
static int tier(int kind)
{
    switch (kind) {
    case CP_FINDING_SHARE:
        return 1;
    case CP_FINDING_PATTERN:
        return 2;
    case CP_FINDING_COVERAGE:
        return 3;
    default:
        return 0;
    }
}

static int by_cost(const void *x, const void *y)
{
    const cp_finding *a = x, *b = y;
    if (tier(a->kind) != tier(b->kind))
        return tier(a->kind) - tier(b->kind);
    if (a->cost != b->cost)
        return a->cost < b->cost ? 1 : -1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

int cp_profile_findings(const cp_profile *p, cp_finding **out, size_t *nout, cp_error *err)
{
    *out = NULL;
    *nout = 0;
    list l = {0};
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    cp_comm_patterns *pats = NULL;
    size_t npats = 0;
    cp_timings t;
    bool timed = false;
    if (cp_profile_summarize(p, &rows, &nrows, err) || cp_profile_patterns(p, &pats, &npats, err)) {
        free(rows);
        return -1;
    }
    cp_error terr;
    if (p->has_timings && p->has_manifest)
        timed = cp_profile_timings(p, &t, &terr) == 0;
    double all = 0;
    for (size_t i = 0; timed && i < t.nrows; i++)
        all += t.rows[i].total;
    int rc = 0;
    sites ss = {0};
    if (timed) {
        share(p, &l);
        rc = sites_load(p, &ss);
    }
    for (size_t i = 0; i < nrows && rc == 0; i++) {
        const cp_summary_row *s = &rows[i];
        const cp_timing_row *tr = timed ? cp_reader_timing_row(&t, s->comm, s->collective) : NULL;
        double time = tr ? tr->total : 0, wait = waiting(tr), explained = 0;
        /* The call site of the series' calls, named in its lines. */
        const site *x = tr ? site_of_series(&ss, p, s, time) : NULL;
        char at[1400] = "", note[320];
        if (x)
            snprintf(at, sizeof at, " at %s", x->where);
        if (tr && time > 0 && wait >= 0.1 * time)
            rc = last_arrival(p, s, &t, at, &l, &explained);
        /* The series' own time: what no late rank explains. */
        char beyond[120] = "";
        if (explained > 0)
            snprintf(beyond, sizeof beyond, " (it explains the time beyond the %.6f s of "
                                            "waiting for the late rank above)", explained);
        if (tr && all > 0 && time >= 0.1 * all)
            add(&l, CP_FINDING_TIME, time > explained ? time - explained : 0,
                "time: communicator %" PRId64 " (%" PRId64 " ranks), %s%s: %.6f s in the calls, "
                "%.0f%% of all collective time; waiting %.6f s%s%s",
                s->comm, s->size, s->collective, at, time, 100 * time / all, wait,
                estimate_note(tr, note, sizeof note), beyond);
        imbalance(p, s, &l, tr != NULL, time, wait - explained);
        pattern_facts(patterns_of(pats, npats, s->comm), s, &l, time);
    }
    sites_add(&ss, &l);
    free(ss.v);
    /* Coverage. */
    char why[1200];
    if (!p->has_timings && p->has_manifest)
        add(&l, CP_FINDING_COVERAGE, 0, "coverage: %s: no time or waiting findings",
            cp_reader_no_timings(p, why, sizeof why));
    else if (!p->has_timings)
        add(&l, CP_FINDING_COVERAGE, 0,
            "coverage: counts only (no " CP_FILE_MANIFEST ", no " CP_FILE_TIMINGS "): no time or "
            "waiting findings");
    uint64_t kept = 0, agg = 0, hist = 0;
    for (size_t i = 0; timed && i < t.nrows; i++) { /* series with histograms only */
        kept += t.rows[i].hist_calls ? t.rows[i].instances : 0;
        agg += t.rows[i].naggregated;
        hist += t.rows[i].hist_calls;
    }
    if (timed && hist > kept)
        add(&l, CP_FINDING_COVERAGE, 0,
            "coverage: %" PRIu64 " of %" PRIu64 " timed rank-calls have their own times; waiting "
            "is estimated from those, each standing for its block of calls "
            "(COLLPROF_TIMING_SAMPLE, COLLPROF_TIMING_MAX_CALLS)",
            kept, hist);
    else if (timed && agg > 0)
        add(&l, CP_FINDING_COVERAGE, 0,
            "coverage: %" PRIu64 " rank-calls have their own times, %" PRIu64 " more are in the "
            "totals only; waiting is found in the first only (COLLPROF_TIMING_MAX_CALLS)",
            kept, agg);
    not_recorded(p, rows, nrows, &l);
    if (p->npartials && timed)
        add(&l, CP_FINDING_COVERAGE, 0,
            "coverage: no MPI_Finalize: the partial profiles of %zu ranks, each exact up to its "
            "state; waiting found in the calls every member's profile holds; times aligned with "
            "the clock offsets measured at start-up", p->npartials);
    else if (p->npartials)
        add(&l, CP_FINDING_COVERAGE, 0,
            "coverage: no MPI_Finalize: the partial profiles of %zu ranks, counts only", p->npartials);
    if (timed)
        cp_timings_free(&t);
    cp_comm_patterns_free(pats, npats);
    free(rows);
    if (rc || l.failed) {
        free(l.v);
        return cp_error_set(err, "out of memory while looking for findings");
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, by_cost);
    *out = l.v;
    *nout = l.n;
    return 0;
}
