/*
 * Axes shared by the heat maps and the bar charts: rank labels spaced so
 * that they never overlap, whatever the number of ranks, and the one value
 * axis of every chart (counts, bytes, seconds, shares) in round steps.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "report.h"

int64_t report_nice_step(double x)
{
    int64_t p = 1;
    for (;;) {
        if (p >= x)
            return p;
        if (2 * p >= x)
            return 2 * p;
        if (5 * p >= x)
            return 5 * p;
        if (p > INT64_MAX / 100)
            return p * 10;
        p *= 10;
    }
}

int64_t report_nice_bytes_step(double x)
{
    double unit = 1;
    while (x / unit >= 1024 && unit < 1e18)
        unit *= 1024;
    /* 1024 would read "1.00 KiB": 1000 of a unit stays within it */
    int64_t step = report_nice_step(x / unit);
    return (int64_t)(step * unit);
}

/* Single ranks are labelled at their middle; aggregated cells at the rank
 * where the label falls, with a tick mark (it may be inside a cell). */
void report_axis_ticks(FILE *f, int64_t n, int64_t t, int px, bool horizontal, int at, int edge,
                       bool before)
{
    double min_gap = horizontal ? 34 : 14; /* pixels between labels */
    int64_t step = report_nice_step(min_gap * (double)t / px);
    int s = before ? -1 : 1;
    int label = horizontal ? edge + (before ? -8 : 16) : edge - 8;
    for (int64_t r = 0; r < n; r += step) {
        double pos = at + (t == 1 ? (r + 0.5) * px : (double)r / (double)t * px);
        if (horizontal) {
            if (t > 1)
                report_printf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                              pos, edge, pos, edge + 4 * s);
            report_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%" PRId64 "</text>",
                          pos, label, r);
        } else {
            if (t > 1)
                report_printf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                              edge, pos, edge - 4, pos);
            report_printf(f,
                          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                          "dominant-baseline=\"middle\">%" PRId64 "</text>",
                          label, pos, r);
        }
        if (r > INT64_MAX - step)
            break;
    }
    fputc('\n', f);
}

/* A round step of about x: 1, 2 or 5 times a power of ten, below 1 too. */
static double nice_real(double x)
{
    if (!(x > 0))
        return 1;
    if (x >= 1)
        return (double)report_nice_step(x);
    double p = pow(10, floor(log10(x))), m = x / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

double report_value_axis(FILE *f, const report_plot *pl, double top_value, report_axis_kind kind,
                         const char *suffix)
{
    top_value = top_value > 0 ? top_value : 1;
    double step = kind == REPORT_AXIS_BYTES ? (double)report_nice_bytes_step(top_value / 4)
                  : kind == REPORT_AXIS_COUNT ? (double)report_nice_step(top_value / 4)
                                              : nice_real(top_value / 4);
    double axis_max = step * ceil(top_value / step * (1 - 1e-12));
    if (axis_max < step)
        axis_max = step;
    double scale = (double)pl->h / axis_max;
    int nsteps = (int)lround(axis_max / step);
    for (int i = 0; i <= nsteps; i++) {
        double v = i * step, y = pl->top + pl->h - v * scale;
        char lab[64];
        if (kind == REPORT_AXIS_BYTES)
            report_human_bytes(lab, sizeof lab, (int64_t)v);
        else if (kind == REPORT_AXIS_COUNT)
            report_human_count(lab, sizeof lab, (int64_t)v);
        else
            snprintf(lab, sizeof lab, "%g%s", v, suffix ? suffix : "");
        report_printf(f,
                      "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                      "stroke-opacity=\".35\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                      "dominant-baseline=\"middle\">%s</text>\n",
                      pl->left - 4, y, pl->left + pl->w, y, pl->left - 7, y, lab);
    }
    return scale;
}
