/*
 * The report's tuning section: collprof-replay --tune's answer (its --json
 * written as replay.json in the profile directory, mode "tune";
 * docs/replay.md, "Tuning"): per collective the setting and the time it
 * would save, the check of the projection (--validate), and per pattern
 * each algorithm's time over the rounds.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "replay_json.h"
#include "report.h"

/* Seconds in the unit that shows them (the reader's, with µs). */
static void span(FILE *f, double s)
{
    char buf[48];
    report_printf(f, "%s", cp_reader_duration(s, "µs", buf, sizeof buf));
}

static void settings(FILE *f, const cp_replay *r)
{
    report_printf(f, "<table class=\"summary\">\n<tr><th>collective</th><th>control variable</th>"
                     "<th>proposed</th><th class=\"n\">projected saving</th>"
                     "<th class=\"n\">range</th><th class=\"n\">recorded calls</th>"
                     "<th class=\"n\">recorded time</th><th>setting</th></tr>\n");
    for (size_t i = 0; i < r->nsettings; i++) {
        const cp_replay_setting *s = &r->settings[i];
        report_printf(f, "<tr><td>");
        report_textn(f, s->collective, sizeof s->collective);
        report_printf(f, "</td><td>");
        report_textn(f, s->variable, sizeof s->variable);
        report_printf(f, "</td><td>");
        if (s->beyond_noise) {
            report_textn(f, s->algorithm, sizeof s->algorithm);
        } else {
            report_printf(f, "keep ");
            report_textn(f, s->own, sizeof s->own);
            report_printf(f, " (nothing faster beyond the noise)");
        }
        report_printf(f, "</td><td class=\"n\">");
        if (s->beyond_noise)
            span(f, s->saving);
        else
            report_printf(f, "-");
        report_printf(f, "</td><td class=\"n\">");
        if (s->beyond_noise) {
            span(f, s->saving_lo);
            report_printf(f, " .. ");
            span(f, s->saving_hi);
        } else {
            report_printf(f, "-");
        }
        report_printf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">", (long long)s->calls);
        if (s->has_recorded)
            span(f, s->recorded);
        else
            report_printf(f, "-");
        report_printf(f, "</td><td><code>");
        report_textn(f, s->setting, sizeof s->setting);
        report_printf(f, "</code></td></tr>\n");
    }
    report_printf(f, "</table>\n");
}

static void validation(FILE *f, const cp_replay *r)
{
    if (!r->has_validation)
        return;
    if (!r->val_done) {
        report_printf(f, "<p>Validation not done: ");
        report_textn(f, r->val_why, sizeof r->val_why);
        report_printf(f, ".</p>\n");
        return;
    }
    report_printf(f, "<p>Validation: the recorded sequence (%lld calls on the busiest rank) "
                     "replayed %lld times each way, alternately. Own choices: median ",
                  (long long)r->val_calls, (long long)r->val_rounds);
    span(f, r->val_own.median);
    report_printf(f, "; with the settings: median ");
    span(f, r->val_settings.median);
    report_printf(f, "; measured saving ");
    span(f, r->val_own.median - r->val_settings.median);
    report_printf(f, " (");
    span(f, r->val_own.fastest - r->val_settings.slowest);
    report_printf(f, " .. ");
    span(f, r->val_own.slowest - r->val_settings.fastest);
    report_printf(f, ")");
    if (r->val_has_projected) {
        report_printf(f, ", projected ");
        span(f, r->val_projected);
    }
    report_printf(f, ".</p>\n");
}

static void pattern(FILE *f, const cp_replay_pattern *p)
{
    report_printf(f, "<tr><td class=\"n\">%lld</td><td>", (long long)p->comm);
    report_textn(f, p->collective, sizeof p->collective);
    report_printf(f, "%s</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td><td>",
                  p->nonblocking ? " (non-blocking)" : "", (long long)p->calls,
                  (long long)p->bytes_per_call);
    const cp_replay_tuned *t = &p->tune;
    if (p->skipped || t->nalgos == 0) {
        report_printf(f, "%s", p->skipped ? "skipped: " : "no choice: ");
        if (p->skipped)
            report_textn(f, p->why, sizeof p->why);
        else
            report_textn(f, t->why, sizeof t->why);
        report_printf(f, "</td></tr>\n");
        return;
    }
    for (size_t k = 0; k < t->nalgos; k++) {
        const cp_replay_algo *a = &t->algos[k];
        report_printf(f, "%s", k ? "<br>" : "");
        report_textn(f, a->name, sizeof a->name);
        if (a->refused) {
            report_printf(f, ": refused");
            continue;
        }
        report_printf(f, ": %.3f µs (%.3f .. %.3f)", a->median * 1e6, a->fastest * 1e6,
                      a->slowest * 1e6);
    }
    report_printf(f, "</td><td>");
    report_textn(f, t->best, sizeof t->best);
    report_printf(f, "%s</td></tr>\n", t->beyond_noise ? " (beyond the noise)"
                                       : strcmp(t->best, t->algos[0].name) == 0
                                           ? " (the library's own)"
                                           : " (within the noise: no winner)");
}

void report_tuning(FILE *f, const cp_replay *r)
{
    report_printf(f, ": every algorithm the library offers, measured on each pattern in %lld "
                     "interleaved rounds (the slowest rank's time per call: median, and the "
                     "fastest .. slowest round); a winner only when its slowest round beats the "
                     "library's own choice's fastest. One setting per collective: the algorithm "
                     "that costs the recorded calls of all its patterns least.</p>\n",
                  (long long)r->rounds);
    settings(f, r);
    validation(f, r);
    report_printf(f, "<table class=\"summary\">\n<tr><th class=\"n\">comm</th><th>collective</th>"
                     "<th class=\"n\">calls</th><th class=\"n\">bytes/call</th>"
                     "<th>algorithms: median µs (fastest .. slowest round)</th>"
                     "<th>fastest</th></tr>\n");
    for (size_t i = 0; i < r->npatterns; i++)
        pattern(f, &r->patterns[i]);
    report_printf(f, "</table>\n");
}
