/*
 * Call durations as an SVG histogram: how many (rank, call) pairs took how
 * long.
 *
 * Bin k covers [edge(k), edge(k + 1)).  When the durations span less than a
 * decade (the largest below ten times the smallest) the bins are linear:
 * edge(k) = k w, w a round width (1, 2 or 5 times a power of ten) of about
 * a sixteenth of the span.  Otherwise they are logarithmic, five per decade:
 * edge(k) = 10^(k/5) s (1, 1.58, 2.51, 3.98, 6.31, 10 ...), so that a few
 * slow calls among many fast ones stay visible.  Durations are clamped to
 * [REPORT_HIST_MIN, REPORT_HIST_MAX] (a clock that did not move gives 0); values
 * that are not numbers are left out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "report.h"

#define REPORT_HIST_MIN 1e-9
#define REPORT_HIST_MAX 1e9

/* m 10^e, rounded once (powers of ten up to 10^22 are exact doubles):
 * 15 x 0.2 is 3, not 3.0000000000000004. */
static double scaled(int64_t m, int e)
{
    return e >= 0 ? (double)m * pow(10, e) : (double)m / pow(10, -e);
}

double report_hist_edge(const report_hist *h, int64_t k)
{
    return h->log ? pow(10, (double)k / 5) : scaled(k * h->mant, h->exp10);
}

/* The bin width: 1, 2 or 5 times a power of ten, the first >= x (x > 0). */
static void nice(report_hist *h, double x)
{
    h->exp10 = (int)floor(log10(x));
    h->mant = 1;
    while (scaled(h->mant, h->exp10) < x)
        h->mant = h->mant == 1 ? 2 : h->mant == 2 ? 5 : 10;
    if (h->mant == 10) {
        h->mant = 1;
        h->exp10++;
    }
}

static double clamp(double d)
{
    return d < REPORT_HIST_MIN ? REPORT_HIST_MIN : d > REPORT_HIST_MAX ? REPORT_HIST_MAX : d;
}

/* The k with edge(k) <= d < edge(k + 1), from an estimate. */
static int64_t bin_of(const report_hist *h, double d)
{
    int64_t k = (int64_t)floor(h->log ? 5 * log10(d) : d / scaled(h->mant, h->exp10));
    while (report_hist_edge(h, k) > d)
        k--;
    while (report_hist_edge(h, k + 1) <= d)
        k++;
    return k;
}

int report_hist_build(report_hist *h, const double *v, size_t n)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    *h = (report_hist){0};
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            double d = clamp(v[i]);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            h->n++;
        }
    if (h->n == 0)
        return 0;
    h->log = hi >= 10 * lo;
    if (!h->log)
        nice(h, hi > lo ? (hi - lo) / 16 : lo / 16);
    h->first = bin_of(h, lo);
    h->nbins = (size_t)(bin_of(h, hi) - h->first + 1);
    h->count = calloc(h->nbins, sizeof *h->count);
    if (!h->count)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            h->count[bin_of(h, clamp(v[i])) - h->first]++;
    return 0;
}

void report_hist_free(report_hist *h)
{
    free(h->count);
    *h = (report_hist){0};
}

/* The x axis: a label every m-th edge, m such that labels stay 60 px
 * apart; on a log scale at whole decades when they are that far apart. */
static void x_labels(FILE *f, const report_hist *h, int left, int bw, int y)
{
    int64_t m = (60 + bw - 1) / bw;
    if (h->log && m > 1)
        m = (m + 4) / 5 * 5;
    for (int64_t k = h->first; k <= h->first + (int64_t)h->nbins; k++) {
        if (m > 1 && (h->log ? k % m : (k - h->first) % m) != 0)
            continue;
        char lab[32];
        report_human_seconds(lab, sizeof lab, report_hist_edge(h, k));
        int x = left + (int)(k - h->first) * bw;
        report_printf(f,
                      "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                      "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                      x, y, x, y + 4, x, y + 16, lab);
    }
}

/* The shortest text that reads back as v ("1.4", not "1.3999999999999999"). */
static void exact(char *buf, size_t size, double v)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void bar(FILE *f, const report_hist *h, size_t i, int x, int bw, int top, int ht,
                double scale)
{
    double lo = report_hist_edge(h, h->first + (int64_t)i);
    double hi = report_hist_edge(h, h->first + (int64_t)i + 1);
    char l[32], u[32], el[32], eu[32];
    report_human_seconds(l, sizeof l, lo);
    report_human_seconds(u, sizeof u, hi);
    exact(el, sizeof el, lo);
    exact(eu, sizeof eu, hi);
    double y = h->count[i] * scale;
    report_printf(f,
                  "<g class=\"b\" data-lo=\"%s\" data-hi=\"%s\" data-count=\"%" PRIu64 "\">"
                  "<title>%" PRIu64 " of %" PRIu64 " (rank, call) pairs took %s to %s</title>"
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"transparent\"/>"
                  "<rect class=\"s\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/></g>\n",
                  el, eu, h->count[i], h->count[i], h->n, l, u, x, top, bw, ht, x, top + ht - y,
                  bw > 2 ? bw - 1 : bw, y);
}

void report_hist_svg(FILE *f, const report_hist *h)
{
    int nb = h->nbins ? (int)h->nbins : 1;
    int bw = 720 / nb;
    bw = bw < 4 ? 4 : bw > 48 ? 48 : bw;
    int left = 64, top = 24, ht = 150, w = nb * bw;
    int width = left + w + 40 > 420 ? left + w + 40 : 420, height = top + ht + 48;
    uint64_t most = 1;
    for (size_t i = 0; i < h->nbins; i++)
        most = h->count[i] > most ? h->count[i] : most;

    report_printf(f, "<svg class=\"bars hist\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
                  width, height, width, height);
    double scale = report_value_axis(f, &(report_plot){left, top, w, ht}, (double)most,
                                     REPORT_AXIS_COUNT, NULL);
    report_printf(f,
                  "<text class=\"t\" x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
                  "text-anchor=\"middle\">(rank, call) pairs</text>\n",
                  top + ht / 2, top + ht / 2);
    for (size_t i = 0; i < h->nbins; i++)
        if (h->count[i])
            bar(f, h, i, left + (int)i * bw, bw, top, ht, scale);
    x_labels(f, h, left, bw, top + ht);
    report_printf(f,
                  "<text class=\"t\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time in the call "
                  "(%s bins)</text>\n",
                  left + w / 2, top + ht + 40, h->log ? "logarithmic" : "linear");
    report_printf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", left,
                  top + ht, left + w, top + ht);
}
