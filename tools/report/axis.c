/*
 * Rank axes shared by the heat maps and the bar charts: labels spaced so
 * that they never overlap, whatever the number of ranks.
 */
#include <inttypes.h>

#include "report.h"

int64_t rp_nice_step(double x)
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

int64_t rp_nice_bytes_step(double x)
{
    double unit = 1;
    while (x / unit >= 1024 && unit < 1e18)
        unit *= 1024;
    /* 1024 would read "1.00 KiB": 1000 of a unit stays within it */
    int64_t step = rp_nice_step(x / unit);
    return (int64_t)(step * unit);
}

/* Single ranks are labelled at their middle; aggregated cells at the rank
 * where the label falls, with a tick mark (it may be inside a cell). */
void rp_axis_ticks(FILE *f, int64_t n, int64_t t, int px, bool horizontal, int at, int edge,
                   bool before)
{
    double min_gap = horizontal ? 34 : 14; /* pixels between labels */
    int64_t step = rp_nice_step(min_gap * (double)t / px);
    int s = before ? -1 : 1;
    int label = horizontal ? edge + (before ? -8 : 16) : edge - 8;
    for (int64_t r = 0; r < n; r += step) {
        double pos = at + (t == 1 ? (r + 0.5) * px : (double)r / (double)t * px);
        if (horizontal) {
            if (t > 1)
                rp_printf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                          pos, edge, pos, edge + 4 * s);
            rp_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%" PRId64 "</text>",
                      pos, label, r);
        } else {
            if (t > 1)
                rp_printf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                          edge, pos, edge - 4, pos);
            rp_printf(f,
                      "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                      "dominant-baseline=\"middle\">%" PRId64 "</text>",
                      label, pos, r);
        }
        if (r > INT64_MAX - step)
            break;
    }
    fputc('\n', f);
}
