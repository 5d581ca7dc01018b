/*
 * Axes shared by the heat maps and the bar charts: rank labels spaced so
 * that they never overlap, whatever the number of ranks, and value axes in
 * round steps.
 */
#include <inttypes.h>

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

double report_value_axis(FILE *f, const report_plot *pl, int64_t top_value, bool bytes)
{
    top_value = top_value > 0 ? top_value : 1;
    int64_t step = bytes ? report_nice_bytes_step((double)top_value / 4)
                         : report_nice_step((double)top_value / 4);
    int64_t axis_max = step * (top_value / step + (top_value % step != 0));
    double scale = (double)pl->h / (double)axis_max;
    for (int64_t v = 0; v <= axis_max; v += step) {
        double y = pl->top + pl->h - v * scale;
        char lab[32];
        if (bytes)
            report_human_bytes(lab, sizeof lab, v);
        else
            report_human_count(lab, sizeof lab, v);
        report_printf(f,
                      "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                      "stroke-opacity=\".35\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                      "dominant-baseline=\"middle\">%s</text>\n",
                      pl->left - 4, y, pl->left + pl->w, y, pl->left - 7, y, lab);
        if (v > INT64_MAX - step)
            break;
    }
    return scale;
}
