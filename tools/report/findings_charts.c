/*
 * The pictures under the findings: what they say, at a glance.
 *  - each rank's time in collectives (orange) and its waiting in them (blue)
 *    (profile.cubex): the late rank is the one that waits least;
 *  - time and waiting per call site, the costliest first (call paths);
 *  - the share of the ranks' time spent in collectives over the run, from
 *    timings.cpt's sampled calls (each kept call stands for `stride`).
 * Each bar is a <g> with data- attributes and a <title>, as in the other
 * charts, so that tests and readers can check the numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MAX_BARS 256
#define TIMELINE_BINS 60
#define TOP_SITES 10

/* Vertical bars: total (light) with part (dark) from the bottom. */
typedef struct vbars {
    const char *id, *xname, *unit, *total_name, *part_name;
    size_t n;
    const double *total, *part; /* part may be NULL */
    const char *const *xlabel;  /* each bar's label (data-x and the title) */
    size_t label_every;         /* label the axis under every k-th bar */
} vbars;

static void vbars_svg(FILE *f, const vbars *b)
{
    size_t n = b->n ? b->n : 1;
    int gw = (int)(760 / n);
    gw = gw < 3 ? 3 : gw > 40 ? 40 : gw;
    int left = 70, top = 30, h = 170, w = (int)n * gw;
    int width = left + w + 20 > 420 ? left + w + 20 : 420, height = top + h + 46;
    double mx = 0;
    for (size_t i = 0; i < b->n; i++)
        mx = fmax(mx, b->total[i]);
    report_printf(
        f, "<svg id=\"%s\" class=\"bars\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
        b->id, width, height, width, height);
    report_printf(f,
                  "<rect class=\"r\" x=\"%d\" y=\"6\" width=\"12\" height=\"12\"/>"
                  "<text x=\"%d\" y=\"16\">%s</text>",
                  left, left + 16, b->total_name);
    if (b->part)
        report_printf(f,
                      "<rect class=\"s\" x=\"%d\" y=\"6\" width=\"12\" height=\"12\"/>"
                      "<text x=\"%d\" y=\"16\">%s</text>",
                      left + 150, left + 166, b->part_name);
    fputc('\n', f);
    double scale = report_value_axis(f, &(report_plot){left, top, w, h}, mx, REPORT_AXIS_REAL,
                                     b->unit);
    for (size_t i = 0; i < b->n; i++) {
        int x = left + (int)i * gw;
        double yt = b->total[i] * scale, yp = b->part ? fmin(b->part[i], b->total[i]) * scale : 0;
        report_printf(f, "<g class=\"b\" data-x=\"");
        report_text(f, b->xlabel[i]);
        report_printf(f, "\" data-total=\"%.9g\"", b->total[i]);
        if (b->part)
            report_printf(f, " data-part=\"%.9g\"", b->part[i]);
        report_printf(f, "><title>%s ", b->xname);
        report_text(f, b->xlabel[i]);
        report_printf(f, ": %s %.6g%s", b->total_name, b->total[i], b->unit);
        if (b->part)
            report_printf(f, ", %s %.6g%s", b->part_name, b->part[i], b->unit);
        report_printf(f,
                      "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                      "fill=\"transparent\"/><rect class=\"r\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
                      "height=\"%.1f\"/>",
                      x, top, gw, h, x, top + h - yt, gw - 1 > 0 ? gw - 1 : 1, yt);
        if (b->part)
            report_printf(f, "<rect class=\"s\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>",
                          x, top + h - yp, gw - 1 > 0 ? gw - 1 : 1, yp);
        report_printf(f, "</g>\n");
        if (i % (b->label_every ? b->label_every : 1) == 0) {
            report_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + gw / 2.0,
                          top + h + 14);
            report_text(f, b->xlabel[i]);
            report_printf(f, "</text>\n");
        }
    }
    report_printf(f,
                  "<text class=\"t\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n"
                  "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n",
                  left + w / 2, top + h + 36, b->xname, left, top + h, left + w, top + h);
}

/* ------------------------------------------------- waiting per rank */

static void rank_waiting(const report_ctx *c)
{
    FILE *f = c->out;
    cp_rank_time *rt;
    size_t n;
    cp_error err;
    if (cp_profile_rank_times(c->p, &rt, &n, &err) || n == 0)
        return;
    size_t t = (n + MAX_BARS - 1) / MAX_BARS, ng = (n + t - 1) / t; /* ranks per bar */
    double *tot = calloc(ng, sizeof *tot), *wt = calloc(ng, sizeof *wt);
    char (*lab)[48] = calloc(ng, sizeof *lab);
    const char **labels = calloc(ng, sizeof *labels);
    if (tot && wt && lab && labels) {
        size_t least = 0;
        for (size_t g = 0; g < ng; g++) {
            size_t lo = g * t, hi = lo + t - 1 < n - 1 ? lo + t - 1 : n - 1;
            for (size_t r = lo; r <= hi; r++) {
                tot[g] += rt[r].collectives / (double)(hi - lo + 1);
                wt[g] += rt[r].waiting / (double)(hi - lo + 1);
            }
            report_range(lab[g], sizeof lab[g], (int64_t)lo, (int64_t)hi);
            labels[g] = lab[g];
            if (wt[g] < wt[least])
                least = g;
        }
        report_printf(
            f,
            "<figure><figcaption>Each rank's time in collectives (" REPORT_BAR_R_NAME ") and "
            "its waiting in them (" REPORT_BAR_S_NAME ", drawn over it; seconds%s). The rank "
            "the others wait for waits least: here ",
            t > 1 ? "; each bar: the average over its ranks" : "");
        report_printf(f, "world rank%s %s, %.6f s.</figcaption>\n", t > 1 ? "s" : "", lab[least],
                      wt[least]);
        vbars_svg(f, &(vbars){.id = "chart-waiting", .xname = "world rank", .unit = " s",
                              .total_name = "in collectives", .part_name = "waiting", .n = ng,
                              .total = tot, .part = wt, .xlabel = labels,
                              .label_every = ng > 32 ? ng / 16 : 1});
        report_printf(f, "</figure>\n");
    }
    free(tot);
    free(wt);
    free(lab);
    free(labels);
    free(rt);
}

/* ---------------------------------------------- time per call site */

static int by_time(const void *a, const void *b)
{
    const cp_callsite_row *x = a, *y = b;
    return (x->time < y->time) - (x->time > y->time);
}

static void callsite_time(const report_ctx *c)
{
    FILE *f = c->out;
    cp_callsite_row *rows;
    size_t n;
    cp_error err;
    if (!c->p->has_manifest || c->p->manifest.ncall_tree == 0 ||
        cp_profile_callsites(c->p, false, &rows, &n, &err))
        return;
    if (n)
        qsort(rows, n, sizeof *rows, by_time);
    size_t k = n < TOP_SITES ? n : TOP_SITES;
    if (k && rows[0].time > 0 && cp_callsite_rows_lines(c->p, rows, k) == 0) {
        int left = 300, top = 24, bh = 18, w = 420, height = top + (int)k * (bh + 6) + 30;
        double mx = rows[0].time, scale = w / (mx > 0 ? mx : 1);
        report_printf(
            f,
            "<figure><figcaption>Time in the collectives per call site (" REPORT_BAR_R_NAME
            ") and the waiting in them (" REPORT_BAR_S_NAME ", drawn over it; seconds, "
            "summed over the ranks); the %zu costliest of %zu."
            "</figcaption>\n",
            k, n);
        report_printf(f,
                      "<svg id=\"chart-callsites\" class=\"bars\" width=\"%d\" height=\"%d\" "
                      "viewBox=\"0 0 %d %d\">\n",
                      left + w + 90, height, left + w + 90, height);
        for (size_t i = 0; i < k; i++) {
            const cp_callsite_row *r = &rows[i];
            char at[1100], where[1400];
            cp_callsite_where(r, false, at, sizeof at);
            snprintf(where, sizeof where, "%s %s", r->node->function[0] ? r->node->function : "?",
                     at);
            int y = top + (int)i * (bh + 6);
            report_printf(f, "<g class=\"b\" data-x=\"");
            report_text(f, where);
            report_printf(f, "\" data-path=\"%lld\" data-total=\"%.9g\" data-part=\"%.9g\"><title>",
                          (long long)r->id, r->time, r->waiting);
            report_text(f, where);
            report_printf(f, " (call path %lld; ", (long long)r->id);
            report_text(f, r->collectives);
            report_printf(f, "): %.6f s, waiting %.6f s</title>", r->time, r->waiting);
            report_printf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 13);
            report_text(f, where);
            report_printf(f,
                          "</text><rect class=\"r\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
                          "height=\"%d\"/><rect class=\"s\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
                          "height=\"%d\"/><text x=\"%.1f\" y=\"%d\">%.4g s</text></g>\n",
                          left, y, r->time * scale, bh, left, y, fmin(r->waiting, r->time) * scale,
                          bh, left + r->time * scale + 4, y + 13, r->time);
        }
        report_printf(f, "</svg>\n</figure>\n");
    }
    free(rows);
}

/* --------------------------------------- share over the run (timeline) */

static void share_timeline(const report_ctx *c)
{
    FILE *f = c->out;
    const cp_cpt_file *t = &c->p->timings;
    if (!c->p->has_timings || t->world_size == 0)
        return;
    double t0 = INFINITY, t1 = -INFINITY;
    for (uint64_t r = 0; r < t->world_size; r++)
        for (size_t i = 0; i < t->chunks[r].nseries; i++) {
            const cp_cpt_series *s = &t->chunks[r].series[i];
            for (uint64_t k = 0; k < s->n; k++) {
                t0 = fmin(t0, s->enter[k]);
                t1 = fmax(t1, s->exit[k]);
            }
        }
    if (!(t1 > t0))
        return;
    double in[TIMELINE_BINS] = {0}, share[TIMELINE_BINS];
    double bw = (t1 - t0) / TIMELINE_BINS;
    for (uint64_t r = 0; r < t->world_size; r++)
        for (size_t i = 0; i < t->chunks[r].nseries; i++) {
            const cp_cpt_series *s = &t->chunks[r].series[i];
            double weight = s->stride > 1 ? (double)s->stride : 1;
            for (uint64_t k = 0; k < s->n; k++) {
                double a = s->start[k], z = s->exit[k];
                for (int b = (int)fmax(0, floor((a - t0) / bw));
                     b < TIMELINE_BINS && t0 + b * bw < z; b++) {
                    double lo = fmax(a, t0 + b * bw), hi = fmin(z, t0 + (b + 1) * bw);
                    if (hi > lo)
                        in[b] += (hi - lo) * weight;
                }
            }
        }
    char lab[TIMELINE_BINS][24];
    const char *labels[TIMELINE_BINS];
    for (int b = 0; b < TIMELINE_BINS; b++) {
        share[b] = fmin(100, 100 * in[b] / (bw * (double)t->world_size));
        snprintf(lab[b], sizeof lab[b], "%.3g", t0 + b * bw);
        labels[b] = lab[b];
    }
    report_printf(
        f,
        "<figure><figcaption>The share of the ranks' time spent in collectives over the "
        "run (%%, all ranks together; %d intervals of %.3g s from the first timed call to "
        "the last; sampled calls stand for the calls between them).</figcaption>\n",
        TIMELINE_BINS, bw);
    vbars_svg(f, &(vbars){.id = "chart-share", .xname = "seconds from the start", .unit = "%",
                          .total_name = "in collectives", .part_name = NULL, .n = TIMELINE_BINS,
                          .total = share, .part = NULL, .xlabel = labels, .label_every = 10});
    report_printf(f, "</figure>\n");
}

void report_findings_charts(const report_ctx *c)
{
    if (!c->p->has_timings)
        return;
    rank_waiting(c);
    callsite_time(c);
    share_timeline(c);
}
