/*
 * Bytes per rank as an SVG bar chart: a sent and a received bar per rank,
 * or per group of ranks (sums) when there are more ranks than bars fit.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"

__extension__ typedef __int128 i128;

static int64_t group_sum(const int64_t *v, int64_t lo, int64_t hi)
{
    i128 s = 0;
    for (int64_t r = lo; r <= hi; r++) {
        s += v[r] > 0 ? v[r] : 0;
        if (s > INT64_MAX)
            return INT64_MAX;
    }
    return (int64_t)s;
}

void report_bars_svg(FILE *f, const report_bars *b)
{
    int64_t n = b->n > 0 ? b->n : 1;
    int64_t maxg = b->max_groups ? (int64_t)b->max_groups : 1;
    int64_t t = (n + maxg - 1) / maxg; /* ranks per bar */
    int64_t ngroups = (n + t - 1) / t;
    int gw = (int)(760 / ngroups);
    gw = gw < 3 ? 3 : gw > 40 ? 40 : gw;
    int left = 78, top = 30, h = 180, w = (int)ngroups * gw;
    int width = left + w + 20 > 420 ? left + w + 20 : 420, height = top + h + 44;

    int64_t *sent = calloc((size_t)ngroups, sizeof *sent);
    int64_t *recv = calloc((size_t)ngroups, sizeof *recv);
    if (!sent || !recv) {
        free(sent);
        free(recv);
        report_printf(f, "<p class=\"note\">(out of memory for the chart)</p>\n");
        return;
    }
    int64_t top_value = 1;
    for (int64_t g = 0; g < ngroups; g++) {
        int64_t lo = g * t, hi = lo + t - 1 < n - 1 ? lo + t - 1 : n - 1;
        sent[g] = group_sum(b->sent, lo, hi);
        recv[g] = b->received ? group_sum(b->received, lo, hi) : 0;
        top_value = sent[g] > top_value ? sent[g] : top_value;
        top_value = recv[g] > top_value ? recv[g] : top_value;
    }

    report_printf(f, "<svg class=\"bars\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                  width, height, width, height);
    report_printf(f,
                  "<rect class=\"s\" x=\"%d\" y=\"6\" width=\"12\" height=\"12\"/>"
                  "<text x=\"%d\" y=\"16\">sent</text>",
                  left, left + 16);
    if (b->received)
        report_printf(f,
                      "<rect class=\"r\" x=\"%d\" y=\"6\" width=\"12\" height=\"12\"/>"
                      "<text x=\"%d\" y=\"16\">received</text>",
                      left + 60, left + 76);
    if (t > 1)
        report_printf(f, "<text x=\"%d\" y=\"16\">(each bar: sum over %" PRId64 " ranks)</text>",
                      left + 150, t);
    fputc('\n', f);
    double scale = report_value_axis(f, &(report_plot){left, top, w, h}, (double)top_value,
                                     REPORT_AXIS_BYTES, NULL);
    report_axis_ticks(f, n, t, gw, true, left, top + h, false);
    report_printf(f, "<text class=\"t\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">rank</text>\n",
                  left + w / 2, top + h + 36);

    int bw = b->received ? (gw - 1) / 2 : gw - 1;
    bw = bw < 1 ? 1 : bw;
    for (int64_t g = 0; g < ngroups; g++) {
        int64_t lo = g * t, hi = lo + t - 1 < n - 1 ? lo + t - 1 : n - 1;
        char ranks[48], hs[32], hr[32];
        report_range(ranks, sizeof ranks, lo, hi);
        report_human_bytes(hs, sizeof hs, sent[g]);
        report_human_bytes(hr, sizeof hr, recv[g]);
        int x = left + (int)g * gw;
        double ys = sent[g] * scale, yr = recv[g] * scale;
        report_printf(f, "<g class=\"b\" data-ranks=\"%s\" data-sent=\"%" PRId64 "\"", ranks,
                      sent[g]);
        if (b->received)
            report_printf(f, " data-received=\"%" PRId64 "\"", recv[g]);
        report_printf(f, "><title>rank%s %s: sent %" PRId64 " bytes (%s)", lo == hi ? "" : "s",
                      ranks, sent[g], hs);
        if (b->received)
            report_printf(f, ", received %" PRId64 " bytes (%s)", recv[g], hr);
        /* an invisible full-height rectangle makes short bars easy to hover */
        report_printf(
            f,
            "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"transparent\"/>"
            "<rect class=\"s\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>",
            x, top, gw, h, x, top + h - ys, bw, ys);
        if (b->received)
            report_printf(f, "<rect class=\"r\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>",
                          x + bw, top + h - yr, bw, yr);
        report_printf(f, "</g>\n");
    }
    report_printf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", left,
                  top + h, left + w, top + h);
    free(sent);
    free(recv);
}
