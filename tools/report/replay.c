/*
 * The report's replay section: the results of collprof-replay (its --json
 * written as replay.json in the profile directory; docs/replay.md), beside
 * the recorded times of the same patterns.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "replay_json.h"
#include "report.h"

static void path_of(const report_ctx *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s/replay.json", c->p->dir);
}

bool report_has_replay(const report_ctx *c)
{
    char path[4200];
    struct stat st;
    path_of(c, path, sizeof path);
    return stat(path, &st) == 0;
}

static void us(FILE *f, double s)
{
    report_printf(f, "<td class=\"n\">%.2f</td>", s * 1e6);
}

static void patterns(FILE *f, const cp_replay *r)
{
    report_printf(
        f, "<table class=\"summary\">\n<tr><th class=\"n\">comm</th><th class=\"n\">ranks</th>"
           "<th>collective</th><th class=\"n\">first call</th><th class=\"n\">calls</th>"
           "<th class=\"n\">bytes/call</th><th class=\"n\">n_sample</th>"
           "<th class=\"n\">t_min µs</th><th class=\"n\">t_avg µs</th>"
           "<th class=\"n\">t_max µs</th><th class=\"n\">projected s</th>"
           "<th class=\"n\">recorded median µs</th><th class=\"n\">replayed / recorded</th>"
           "<th class=\"n\">overlap %%</th></tr>\n");
    for (size_t i = 0; i < r->npatterns; i++) {
        const cp_replay_pattern *p = &r->patterns[i];
        report_printf(f, "<tr><td class=\"n\">%lld", (long long)p->comm);
        if (p->remote_comm >= 0)
            report_printf(f, "/%lld", (long long)p->remote_comm);
        report_printf(f, "</td><td class=\"n\">%lld</td><td>", (long long)p->ranks);
        report_textn(f, p->collective, sizeof p->collective);
        report_printf(f,
                      "%s</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                      "<td class=\"n\">%lld</td>",
                      p->nonblocking ? " (non-blocking)" : "", (long long)p->first_call,
                      (long long)p->calls, (long long)p->bytes_per_call);
        if (p->skipped) {
            report_printf(f, "<td colspan=\"8\">skipped: ");
            report_textn(f, p->why, sizeof p->why);
            report_printf(f, "</td></tr>\n");
            continue;
        }
        report_printf(f, "<td class=\"n\">%lld</td>", (long long)p->n_sample);
        us(f, p->t_min);
        us(f, p->t_avg);
        us(f, p->t_max);
        report_printf(f, "<td class=\"n\">%.6f</td>", p->projected);
        if (p->has_recorded) {
            us(f, p->rec_median);
            report_printf(f, "<td class=\"n\">%.2f</td>",
                          p->rec_median > 0 ? p->t_avg / p->rec_median : 0);
        } else {
            report_printf(f, "<td class=\"n\">-</td><td class=\"n\">-</td>");
        }
        if (p->has_nbc)
            report_printf(f, "<td class=\"n\">%.1f</td>", p->overlap_percent);
        else
            report_printf(f, "<td class=\"n\">-</td>");
        report_printf(f, "</tr>\n");
    }
    report_printf(f, "</table>\n");
}

int report_section_replay(const report_ctx *c)
{
    FILE *f = c->out;
    char path[4200];
    path_of(c, path, sizeof path);
    cp_replay r;
    cp_error err = {{0}};
    if (cp_replay_read_file(path, &r, &err) < 0) {
        fprintf(stderr, "collprof report: %s (the replay section says so)\n", err.msg);
        report_printf(f, "<p class=\"note\">replay.json could not be read: ");
        report_text(f, err.msg);
        report_printf(f, "</p>\n");
        return 0;
    }
    report_printf(f, "<p class=\"note\">collprof-replay on %lld ranks, ", (long long)r.ranks);
    report_textn(f, r.mpi_library, sizeof r.mpi_library);
    if (r.tune) {
        report_tuning(f, &r);
    } else if (r.sequence) {
        report_printf(f,
                      ": every recorded call in the recorded order.</p>\n<p>%lld calls replayed "
                      "(the busiest rank) in %.6f s (the slowest rank)",
                      (long long)r.seq_calls, r.seq_seconds);
        if (r.seq_has_recorded)
            report_printf(f,
                          "; the run spent %.6f s in them (the rank with the most): replayed / "
                          "recorded %.2f",
                          r.seq_recorded, r.seq_recorded > 0 ? r.seq_seconds / r.seq_recorded : 0);
        report_printf(f, ".</p>\n");
    } else {
        report_printf(f,
                      ": each distinct matrix timed as the Intel MPI Benchmarks time a collective "
                      "(n_sample repetitions; microseconds per call over the ranks); projected = "
                      "calls × t_avg.");
        if (r.note[0]) {
            report_printf(f, " ");
            report_textn(f, r.note, sizeof r.note);
        }
        report_printf(f, "</p>\n");
        patterns(f, &r);
    }
    cp_replay_free(&r);
    return 0;
}
