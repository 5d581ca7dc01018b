/*
 * collprof timings DIR: what the collectives cost and who waited for whom,
 * from timings.cpt - per communicator and collective the time and its
 * spread, the waiting time of each wait-state pattern, the slowest calls
 * and their ranks, and the hosts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranges.h"
#include "table.h"
#include "file_names.h"

static int print_hosts(const cp_timings *t)
{
    printf("hosts:\n");
    for (size_t h = 0; h < t->nhosts; h++) {
        cp_ranges ranks = {0};
        for (uint64_t r = 0; r < t->nranks; r++)
            if (t->rank_node[r] == (int64_t)h && cp_ranges_add(&ranks, (int64_t)r))
                return -1;
        char *list = cp_ranges_to_string(&ranks);
        cp_ranges_free(&ranks);
        if (!list)
            return -1;
        printf("  %zu %s: rank%s %s\n", h, t->hosts[h], strchr(list, ',') || strchr(list, '-')
                                                           ? "s" : "", list);
        free(list);
    }
    /* Ranks of merged partial profiles that left no timings. */
    cp_ranges none = {0};
    for (uint64_t r = 0; r < t->nranks; r++)
        if (t->rank_node[r] < 0 && cp_ranges_add(&none, (int64_t)r))
            return -1;
    char *list = none.n ? cp_ranges_to_string(&none) : NULL;
    cp_ranges_free(&none);
    if (list)
        printf("  ?: rank%s %s: no timed calls in this profile (a rank's partial profile read "
               "alone, or ranks that left none)\n",
               strchr(list, ',') || strchr(list, '-') ? "s" : "", list);
    free(list);
    return 0;
}

static int time_table(const cp_timings *t)
{
    static const char *const headers[] = {"comm", "collective", "timed rank-calls", "aggregated",
                                          "time (s)", "min (s)", "median (s)", "max (s)",
                                          "waiting (s)", "late arrival (s)"};
    static const bool right[] = {true, false, true, true, true, true, true, true, true, true};
    size_t ncols = t->barrier ? 10 : 9;
    cli_table *tb = cli_table_new(ncols, headers, right);
    int ok = tb != NULL;
    for (size_t i = 0; ok && i < t->nrows; i++) {
        const cp_timing_row *r = &t->rows[i];
        double wait = 0, var = 0;
        for (int p = 0; p < CP_READER_NPATTERNS; p++) {
            wait += r->wait[p];
            var += r->wait_se[p] * r->wait_se[p];
        }
        ok = cli_table_cell(tb, "%" PRId64, r->comm) == 0 &&
             cli_table_cell(tb, "%s", r->collective) == 0 &&
             cli_table_cell(tb, "%" PRIu64, r->instances) == 0 &&
             cli_table_cell(tb, "%" PRIu64, r->naggregated) == 0 &&
             cli_table_cell(tb, "%.6f", r->total) == 0 &&
             cli_table_cell(tb, "%.6f", r->min) == 0 &&
             cli_table_cell(tb, "%.6f", r->median) == 0 &&
             cli_table_cell(tb, "%.6f", r->max) == 0 &&
             (r->wait_unknown      ? cli_table_cell(tb, "-")
              : r->wait_weight > 1 ? cli_table_cell(tb, "%.6f ±%.6f", wait, sqrt(var))
                                 : cli_table_cell(tb, "%.6f", wait)) == 0 &&
             (!t->barrier || cli_table_cell(tb, "%.6f", r->late) == 0);
    }
    ok = cli_table_done(tb, ok) == 0;
    for (size_t i = 0; ok && i < t->nrows; i++)
        if (t->rows[i].wait_unknown) {
            printf("waiting -: a member of the communicator left no timed calls of the series "
                   "(a partial profile of some ranks): its waiting is not known\n");
            break;
        }
    return ok ? 0 : -1;
}

/* Every timed call, from the histograms: only when the file has them. */
static int quantile_table(const cp_timings *t)
{
    static const char *const headers[] = {"comm", "collective", "rank-calls", "p50 (us)",
                                          "p90 (us)", "p99 (us)"};
    static const bool right[] = {true, false, true, true, true, true};
    cli_table *tb = cli_table_new(6, headers, right);
    int ok = tb != NULL;
    for (size_t i = 0; ok && i < t->nrows; i++) {
        const cp_timing_row *r = &t->rows[i];
        if (r->hist_calls == 0)
            continue;
        ok = cli_table_cell(tb, "%" PRId64, r->comm) == 0 &&
             cli_table_cell(tb, "%s", r->collective) == 0 &&
             cli_table_cell(tb, "%" PRIu64, r->hist_calls) == 0 &&
             cli_table_cell(tb, "%.3f", r->p50 * 1e6) == 0 &&
             cli_table_cell(tb, "%.3f", r->p90 * 1e6) == 0 &&
             cli_table_cell(tb, "%.3f", r->p99 * 1e6) == 0;
    }
    return cli_table_done(tb, ok);
}

static int wait_table(const cp_timings *t)
{
    static const char *const headers[] = {"comm", "collective", "pattern", "instances",
                                          "waiting (s)"};
    static const bool right[] = {true, false, false, true, true};
    cli_table *tb = cli_table_new(5, headers, right);
    int ok = tb != NULL, rows = 0;
    for (size_t i = 0; ok && i < t->nrows; i++)
        for (int p = 0; ok && p < CP_READER_NPATTERNS; p++) {
            const cp_timing_row *r = &t->rows[i];
            if (!r->wait_instances[p])
                continue;
            rows++;
            ok = cli_table_cell(tb, "%" PRId64, r->comm) == 0 &&
                 cli_table_cell(tb, "%s", r->collective) == 0 &&
                 cli_table_cell(tb, "%s", cp_reader_pattern_name(p)) == 0 &&
                 cli_table_cell(tb, "%" PRIu64, r->wait_instances[p]) == 0 &&
                 (r->wait_weight > 1
                      ? cli_table_cell(tb, "%.6f ±%.6f (sample: %.6f)", r->wait[p], r->wait_se[p],
                                       r->wait_sampled[p])
                      : cli_table_cell(tb, "%.6f", r->wait[p])) == 0;
        }
    if (ok && rows)
        cli_table_print(tb, stdout);
    else if (ok)
        printf("no waiting time found\n");
    cli_table_free(tb);
    /* What an estimate cannot know, where it matters beside its error. */
    for (size_t i = 0; ok && i < t->nrows; i++) {
        const cp_timing_row *r = &t->rows[i];
        if (r->wait_unseen > 0) /* the reader keeps it only where it matters */
            printf("comm %" PRId64 " %s: %.6f s of the time in the calls is in calls longer than "
                   "any the sample kept: their waiting is not known (the estimate's error counts "
                   "them by their durations alone)\n",
                   r->comm, r->collective, r->wait_unseen);
    }
    return ok ? 0 : -1;
}

static int slow_table(const cp_timings *t)
{
    static const char *const headers[] = {"comm", "collective", "call", "rank", "host",
                                          "time (s)"};
    static const bool right[] = {true, false, true, true, false, true};
    cli_table *tb = cli_table_new(6, headers, right);
    int ok = tb != NULL;
    for (size_t i = 0; ok && i < t->nrows; i++)
        for (size_t k = 0; ok && k < t->rows[i].nslowest; k++) {
            const cp_timing_row *r = &t->rows[i];
            const cp_cpt_slow *c = &r->slowest[k];
            int64_t node = (uint64_t)c->rank < t->nranks ? t->rank_node[c->rank] : -1;
            ok = cli_table_cell(tb, "%" PRId64, r->comm) == 0 &&
                 cli_table_cell(tb, "%s", r->collective) == 0 &&
                 cli_table_cell(tb, "%" PRIu64, c->call) == 0 &&
                 cli_table_cell(tb, "%" PRId64, c->rank) == 0 &&
                 cli_table_cell(tb, "%s", node >= 0 ? t->hosts[node] : "?") == 0 &&
                 cli_table_cell(tb, "%.6f", c->duration) == 0;
        }
    return cli_table_done(tb, ok);
}

int cli_timings_read(cp_profile *p)
{
    cp_timings t;
    cp_error err;
    if (cp_profile_timings(p, &t, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    printf(CP_FILE_TIMINGS ": %" PRIu64 " ranks on %zu host%s, timing mode %s\n", t.nranks, t.nhosts,
           t.nhosts == 1 ? "" : "s", t.barrier ? "barrier" : "passive");
    if (t.barrier)
        printf("%s\n", cp_reader_barrier_note);
    if (t.naggregated)
        printf("%" PRIu64 " calls were timed in aggregate only (not in the timing sample): "
               "in the totals, not in min/median/max\n",
               t.naggregated);
    bool hist = false;
    for (size_t i = 0; i < t.nrows; i++)
        hist |= t.rows[i].hist_calls > 0;
    int ok = print_hosts(&t) == 0;
    printf("\ntime per communicator and collective:\n");
    ok = ok && time_table(&t) == 0;
    if (hist) {
        printf("\ntime per call over the whole run (every timed call, log-scale histogram: "
               "within 12.5%%):\n");
        ok = ok && quantile_table(&t) == 0;
    }
    printf("\nwaiting time per pattern:\n");
    ok = ok && wait_table(&t) == 0;
    printf("\nslowest calls:\n");
    ok = ok && slow_table(&t) == 0;
    if (!ok)
        fprintf(stderr, "collprof: out of memory\n");
    cp_timings_free(&t);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}
