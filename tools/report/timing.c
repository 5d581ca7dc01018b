/*
 * The report's time and waiting, for a directory with timings.cpt: per
 * communicator and collective what `collprof timings` prints (the time in
 * the calls, its spread, the waiting time of each wait-state pattern: from
 * cp_profile_timings), a histogram of the durations of its (rank, call)
 * pairs (histogram.c), and the slowest calls with their rank and host.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "report.h"
#include "file_names.h"

/* More histograms than this: those of the most time are drawn. */
#define REPORT_MAX_HISTOGRAMS 64

static void fig_id(FILE *f, const cp_timing_row *r)
{
    report_printf(f, "t-c%" PRId64 "-", r->comm);
    report_id(f, r->collective);
}

/* The ranks, the first REPORT_MAX_HOSTS hosts with their ranks, the mode. */
#define REPORT_MAX_HOSTS 32
static int hosts(FILE *f, const cp_timings *t)
{
    size_t shown = t->nhosts < REPORT_MAX_HOSTS ? t->nhosts : REPORT_MAX_HOSTS;
    cp_ranges *ranks = calloc(shown ? shown : 1, sizeof *ranks);
    if (!ranks)
        return -1;
    int rc = 0;
    for (uint64_t r = 0; r < t->nranks && rc == 0; r++)
        if (t->rank_node[r] >= 0 && (size_t)t->rank_node[r] < shown)
            rc = cp_ranges_add(&ranks[t->rank_node[r]], (int64_t)r);
    report_printf(f, "<dl class=\"run\">\n<dt>ranks</dt><dd>%" PRIu64 " on %zu host%s</dd>\n",
                  t->nranks, t->nhosts, t->nhosts == 1 ? "" : "s");
    for (size_t h = 0; h < shown && rc == 0; h++) {
        char *list = report_ranges_text(&ranks[h], 60);
        report_printf(f, "<dt>host %zu</dt><dd><code>", h);
        report_textn(f, t->hosts[h], sizeof t->hosts[h]);
        report_printf(f, "</code>: rank%s %s</dd>\n", cp_ranges_count(&ranks[h]) == 1 ? "" : "s",
                      list ? list : "?");
        free(list);
    }
    if (shown < t->nhosts)
        report_printf(f, "<dt>&hellip;</dt><dd>%zu more hosts</dd>\n", t->nhosts - shown);
    report_printf(f,
                  "<dt>timing mode</dt><dd>%s</dd>\n<dt>aggregated calls</dt><dd>%" PRIu64
                  "</dd>\n</dl>\n",
                  t->barrier ? "barrier" : "passive", t->naggregated);
    if (t->barrier) {
        report_printf(f, "<p class=\"note\">");
        report_text(f, cp_reader_barrier_note);
        report_printf(f, "</p>\n");
    }
    for (size_t h = 0; h < shown; h++)
        cp_ranges_free(&ranks[h]);
    free(ranks);
    return rc;
}

static void table(FILE *f, const cp_timings *t, const bool *drawn)
{
    report_printf(f, "<table class=\"timing\">\n<tr><th class=\"n\">comm</th><th>collective</th>"
                     "<th class=\"n\">timed rank-calls</th><th class=\"n\">aggregated</th>"
                     "<th class=\"n\">time (s)</th><th class=\"n\">min (s)</th>"
                     "<th class=\"n\">median (s)</th><th class=\"n\">max (s)</th>");
    if (t->barrier)
        report_printf(f, "<th class=\"n\">late arrival (s)</th>");
    report_printf(f, "<th class=\"n\">waiting (s)</th></tr>\n");
    for (size_t i = 0; i < t->nrows; i++) {
        const cp_timing_row *r = &t->rows[i];
        report_printf(f, "<tr><td class=\"n\">%" PRId64 "</td><td>", r->comm);
        if (drawn[i]) {
            report_printf(f, "<a href=\"#");
            fig_id(f, r);
            report_printf(f, "\">");
        }
        report_text(f, r->collective);
        report_printf(f,
                      "%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>"
                      "<td class=\"n\">%.6f</td><td class=\"n\">%.6f</td><td class=\"n\">%.6f</td>"
                      "<td class=\"n\">%.6f</td>",
                      drawn[i] ? "</a>" : "", r->instances, r->naggregated, r->total, r->min,
                      r->median, r->max);
        if (t->barrier)
            report_printf(f, "<td class=\"n\">%.6f</td>", r->late);
        double waiting = 0, var = 0;
        for (int p = 0; p < CP_READER_NPATTERNS; p++) {
            waiting += r->wait[p];
            var += r->wait_se[p] * r->wait_se[p];
        }
        if (r->wait_weight > 1 && r->wait_unseen > 0) /* and what it cannot know */
            report_printf(f,
                          "<td class=\"n\" title=\"estimated from %" PRIu64 " sampled calls, each "
                          "standing for %.0f; one standard error; %.6f s of the time is in calls "
                          "longer than any the sample kept: their waiting is not known\">%.6f "
                          "±%.6f (%.6f s unknown)</td>",
                          r->wait_calls, r->wait_weight, r->wait_unseen, waiting, sqrt(var),
                          r->wait_unseen);
        else if (r->wait_weight > 1) /* a whole-run estimate from the sample */
            report_printf(f,
                          "<td class=\"n\" title=\"estimated from %" PRIu64 " sampled calls, each "
                          "standing for %.0f; one standard error\">%.6f ±%.6f</td>",
                          r->wait_calls, r->wait_weight, waiting, sqrt(var));
        else
            report_printf(f, "<td class=\"n\">%.6f</td>", waiting);
        report_printf(f, "</tr>\n");
    }
    report_printf(f, "</table>\n");
}

/* The waiting of each wait-state pattern, one row per (series, pattern)
 * with instances: as `collprof timings` prints it, and narrow at any
 * number of patterns. */
static void pattern_table(FILE *f, const cp_timings *t)
{
    bool any = false;
    for (size_t i = 0; i < t->nrows; i++)
        for (int p = 0; p < CP_READER_NPATTERNS; p++) {
            const cp_timing_row *r = &t->rows[i];
            if (!r->wait_instances[p])
                continue;
            if (!any)
                report_printf(f, "<table class=\"patterns\">\n<tr><th class=\"n\">comm</th>"
                                 "<th>collective</th><th>wait-state pattern</th>"
                                 "<th class=\"n\">instances</th><th class=\"n\">waiting (s)</th>"
                                 "</tr>\n");
            any = true;
            report_printf(f, "<tr><td class=\"n\">%" PRId64 "</td><td>", r->comm);
            report_text(f, r->collective);
            report_printf(f,
                          "</td><td><code>%s</code></td><td class=\"n\">%" PRIu64 "</td>"
                          "<td class=\"n\">%.6f</td></tr>\n",
                          cp_reader_pattern_name(p), r->wait_instances[p], r->wait[p]);
        }
    if (any)
        report_printf(f, "</table>\n");
}

/* exit - start of every timed (rank, call) pair of row r (malloc'ed; the
 * row counted them: r->instances). */
static double *durations(const cp_cpt_file *cpt, const cp_timing_row *r, size_t *n)
{
    double *v = malloc((r->instances ? r->instances : 1) * sizeof *v);
    *n = 0;
    for (uint64_t k = 0; v && k < cpt->world_size; k++)
        for (size_t i = 0; i < cpt->chunks[k].nseries; i++) {
            const cp_cpt_series *s = &cpt->chunks[k].series[i];
            if (s->comm_id != r->comm || cp_reader_collective_cmp(s->collective, r->collective))
                continue;
            for (uint64_t j = 0; j < s->n && *n < r->instances; j++)
                v[(*n)++] = s->exit[j] - s->start[j];
        }
    return v;
}

static int histogram(const report_ctx *c, const cp_timing_row *r)
{
    size_t n;
    double *v = durations(&c->p->timings, r, &n);
    report_hist h;
    if (!v || report_hist_build(&h, v, n) < 0) {
        free(v);
        return -1;
    }
    FILE *f = c->out;
    report_printf(f, "<figure id=\"");
    fig_id(f, r);
    report_printf(f, "\">\n");
    report_hist_svg(f, &h);
    char lo[32], med[32], hi[32];
    report_human_seconds(lo, sizeof lo, r->min);
    report_human_seconds(med, sizeof med, r->median);
    report_human_seconds(hi, sizeof hi, r->max);
    report_printf(f, "<p class=\"info\"></p>\n<figcaption><b>");
    report_text(f, r->collective);
    report_printf(f,
                  "</b> on communicator %" PRId64 ": %" PRIu64 " timed (rank, call) pairs, from %s "
                  "to %s, median %s. Bins: %s.</figcaption>\n</figure>\n",
                  r->comm, h.n, lo, hi, med, h.log ? "logarithmic, five per decade" : "linear");
    report_hist_free(&h);
    free(v);
    return 0;
}

/* Which rows get a histogram: all, or the REPORT_MAX_HISTOGRAMS of most time. */
static void choose(const cp_timings *t, bool *drawn)
{
    for (size_t i = 0; i < t->nrows; i++) {
        size_t more = 0; /* rows of more time, or as much and before */
        for (size_t k = 0; k < t->nrows && more < REPORT_MAX_HISTOGRAMS; k++)
            more += t->rows[k].total > t->rows[i].total ||
                    (t->rows[k].total == t->rows[i].total && k < i);
        drawn[i] = more < REPORT_MAX_HISTOGRAMS;
    }
}

static void slowest(FILE *f, const cp_timings *t)
{
    report_printf(f, "<table class=\"slowest\">\n<tr><th class=\"n\">comm</th><th>collective</th>"
                     "<th class=\"n\">call</th><th class=\"n\">rank</th><th>host</th>"
                     "<th class=\"n\">time (s)</th></tr>\n");
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t k = 0; k < t->rows[i].nslowest; k++) {
            const cp_timing_row *r = &t->rows[i];
            const cp_cpt_slow *s = &r->slowest[k];
            int64_t node = s->rank >= 0 && (uint64_t)s->rank < t->nranks ? t->rank_node[s->rank]
                                                                          : -1;
            report_printf(f, "<tr><td class=\"n\">%" PRId64 "</td><td>", r->comm);
            report_text(f, r->collective);
            report_printf(
                f, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRId64 "</td><td>",
                s->call, s->rank);
            if (node >= 0 && (size_t)node < t->nhosts)
                report_textn(f, t->hosts[node], sizeof t->hosts[node]);
            else
                report_printf(f, "?");
            report_printf(f, "</td><td class=\"n\">%.6f</td></tr>\n", s->duration);
        }
    report_printf(f, "</table>\n");
}

int report_section_timing(const report_ctx *c)
{
    FILE *f = c->out;
    cp_timings t;
    cp_error err = {{0}};
    if (cp_profile_timings(c->p, &t, &err) < 0) {
        report_printf(f, "<p class=\"note\">" CP_FILE_TIMINGS " cannot be analysed: ");
        report_text(f, err.msg);
        report_printf(f, "</p>\n");
        return 0;
    }
    bool *drawn = calloc(t.nrows ? t.nrows : 1, sizeof *drawn);
    if (!drawn) {
        cp_timings_free(&t);
        return -1;
    }
    choose(&t, drawn);
    report_printf(
        f, "<p class=\"note\">From <code>" CP_FILE_TIMINGS "</code>, as <code>collprof timings</code> "
           "prints it: every rank&#39;s time in every timed call (exit &minus; start, in "
           "seconds), and the time ranks spent waiting for others in each wait-state "
           "pattern, recomputed from their aligned enter and exit times. <i>Timed "
           "rank-calls</i> are (rank, call) pairs; <i>aggregated</i> calls (past "
           "<code>COLLPROF_TIMING_MAX_CALLS</code>) count in the time only; <i>waiting</i> "
           "sums the second table&#39;s patterns (seconds; an instance is a rank&#39;s "
           "wait in one call).</p>\n");
    int rc = hosts(f, &t);
    table(f, &t, drawn);
    pattern_table(f, &t);
    report_printf(f, "<h3>Durations</h3>\n");
    for (size_t i = 0; i < t.nrows && rc == 0; i++)
        if (drawn[i])
            rc = histogram(c, &t.rows[i]);
    if (t.nrows > REPORT_MAX_HISTOGRAMS)
        report_printf(
            f,
            "<p class=\"note\">%zu more histograms are not drawn, to keep the file "
            "small: those of the %d communicators and collectives of most time are.</p>\n",
            t.nrows - REPORT_MAX_HISTOGRAMS, REPORT_MAX_HISTOGRAMS);
    report_printf(f,
                  "<h3>Slowest calls</h3>\n<p class=\"note\">Per communicator and collective, "
                  "the %d slowest (rank, call) pairs.</p>\n",
                  CP_TIMING_SLOWEST);
    slowest(f, &t);
    free(drawn);
    cp_timings_free(&t);
    return rc;
}
