/*
 * A grid (grid.c) as an SVG heat map: one <rect> per cell in a nested <svg>
 * whose user units are cells (short coordinates keep a 128 x 128 picture
 * near 3 MB), rank ticks on both axes, and a legend of the log colour scale.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"
#include "search.h"

/* Colour classes of html.c: c0 (smallest) .. c8 (largest), z for zero. */
#define NCOLOURS 9

typedef struct scale {
    int64_t min, max; /* the scale's range: max is the largest cell, 0 when none */
    int nbins;
} scale;

static scale make_scale(const report_grid *g)
{
    scale s = {0, 0, 0};
    for (size_t i = 0; i < g->rows * g->cols; i++) {
        int64_t v = g->count[i];
        if (v <= 0)
            continue;
        if (!s.min || v < s.min)
            s.min = v;
        if (v > s.max)
            s.max = v;
    }
    if (s.min == s.max) {
        s.nbins = s.max ? 1 : 0; /* one value: one colour */
        return s;
    }
    /* At least a decade: 36 and 52 are close, and should look close, not
     * dark purple and yellow. */
    if (s.min > s.max / 10)
        s.min = s.max / 10 > 0 ? s.max / 10 : 1;
    if (s.max)
        s.nbins = s.max - s.min + 1 < NCOLOURS ? (int)(s.max - s.min + 1) : NCOLOURS;
    return s;
}

/* Logarithmic bins between min and max: counts spread over decades stay
 * apart, and a few large cells do not flatten everything else. */
static int bin(const scale *s, int64_t v)
{
    if (s->nbins <= 1 || v <= s->min)
        return 0;
    if (v >= s->max)
        return s->nbins - 1;
    double x = s->nbins * (log((double)v) - log((double)s->min)) /
               (log((double)s->max) - log((double)s->min));
    int k = (int)floor(x);
    return k < 0 ? 0 : k >= s->nbins ? s->nbins - 1 : k;
}

static int colour(const scale *s, int k)
{
    if (s->nbins <= 1)
        return NCOLOURS / 2; /* one value: neither small nor large */
    return (int)lround((double)k * (NCOLOURS - 1) / (s->nbins - 1));
}

/* Smallest v in [min, max] with bin(v) >= k (bin is monotonic). */
struct bin_key {
    const scale *s;
    int k;
};

static bool bin_below(const void *ctx, size_t i)
{
    const struct bin_key *b = ctx;
    return bin(b->s, b->s->min + (int64_t)i) < b->k;
}

static int64_t bin_low(const scale *s, int k)
{
    struct bin_key b = {s, k};
    return s->min + (int64_t)cp_lower_bound((size_t)(s->max - s->min), bin_below, &b);
}

static int64_t bytes_of(const report_grid *g, int64_t count)
{
    __extension__ __int128 b = (__int128)count * g->unit;
    return b > INT64_MAX ? INT64_MAX : (int64_t)b;
}

static void cells(FILE *f, const report_grid *g, const scale *s, const report_heatmap_labels *l)
{
    for (size_t i = 0; i < g->rows; i++) {
        int64_t rlo, rhi;
        report_grid_row_ranks(g, i, &rlo, &rhi);
        char rr[48];
        report_range(rr, sizeof rr, rlo, rhi);
        for (size_t j = 0; j < g->cols; j++) {
            int64_t clo, chi, v = g->count[i * g->cols + j];
            report_grid_col_ranks(g, j, &clo, &chi);
            char cr[48];
            report_range(cr, sizeof cr, clo, chi);
            char cls[8];
            if (v > 0)
                snprintf(cls, sizeof cls, "c%d", colour(s, bin(s, v)));
            else
                strcpy(cls, "z");
            int64_t bytes = bytes_of(g, v);
            report_printf(
                f,
                "<rect x=\"%zu\" y=\"%zu\" width=\"1\" height=\"1\" class=\"%s\" "
                "data-%s=\"%s\" data-%s=\"%s\" data-count=\"%" PRId64 "\" data-bytes=\"%" PRId64
                "\"><title>%s%s %s, %s%s %s: count %" PRId64 ", %" PRId64 " bytes</title></rect>\n",
                j, i, cls, l->row_attr, rr, l->col_attr, cr, v, bytes, l->row_attr,
                rlo == rhi ? "" : "s", rr, l->col_attr, clo == chi ? "" : "s", cr, v, bytes);
        }
    }
}

/* Integers fall in bin k (a bin narrower than 1 may hold none). */
static bool bin_used(const scale *s, int k, int64_t *lo, int64_t *hi)
{
    *lo = bin_low(s, k);
    *hi = k + 1 < s->nbins ? bin_low(s, k + 1) - 1 : s->max;
    return *lo <= *hi;
}

/* What legend() draws, in pixels. */
static int legend_height(const report_grid *g, const scale *s)
{
    int h = 24 + (g->tr > 1 || g->tc > 1 ? 14 : 0) + 10 + 18;
    for (int k = 0; k < s->nbins; k++) {
        int64_t lo, hi;
        h += bin_used(s, k, &lo, &hi) ? 18 : 0;
    }
    return h + 12;
}

/* Title, unit, then one swatch per used bin, largest first. */
static void legend(FILE *f, const report_grid *g, const scale *s, int x, int y)
{
    bool aggregated = g->tr > 1 || g->tc > 1;
    report_printf(f, "<text class=\"t\" x=\"%d\" y=\"%d\">count per cell</text>", x, y + 10);
    int line = y + 24;
    if (aggregated) {
        report_printf(f, "<text x=\"%d\" y=\"%d\">(sum over its ranks)</text>", x, line);
        line += 14;
    }
    if (g->unit == 1)
        report_printf(f, "<text x=\"%d\" y=\"%d\">counts in bytes</text>", x, line);
    else
        report_printf(f, "<text x=\"%d\" y=\"%d\">1 count = %" PRId64 " bytes</text>", x, line,
                      g->unit);
    line += 10;
    report_printf(f,
                  "<rect class=\"z\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"/>"
                  "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">0</text>\n",
                  x, line, x + 20, line + 7);
    line += 18;
    for (int k = s->nbins - 1; k >= 0; k--) {
        int64_t lo, hi;
        if (!bin_used(s, k, &lo, &hi))
            continue;
        char a[24], b[24];
        report_human_count(a, sizeof a, lo);
        report_human_count(b, sizeof b, hi);
        report_printf(f,
                      "<rect class=\"c%d\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"/>"
                      "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">%s%s%s</text>\n",
                      colour(s, k), x, line, x + 20, line + 7, a, lo == hi ? "" : " \xe2\x80\x93 ",
                      lo == hi ? "" : b);
        line += 18;
    }
    if (s->nbins > 1)
        report_printf(f, "<text x=\"%d\" y=\"%d\">(log scale)</text>", x, line + 8);
}

void report_heatmap_svg(FILE *f, const report_grid *g, const report_heatmap_labels *l)
{
    size_t side = g->rows > g->cols ? g->rows : g->cols;
    /* about 520 pixels, but at least 180 so that the axis titles fit */
    int px = (int)(520 / side);
    px = px < 3 ? 3 : px > 36 ? 36 : px;
    if (px * side < 180)
        px = (int)((180 + side - 1) / side);
    int w = (int)g->cols * px, h = (int)g->rows * px;
    int left = 64, top = 46, legend_x = left + w + 22, width = legend_x + 170;
    scale s = make_scale(g);

    int lh = legend_height(g, &s);
    int height = top + (h > lh ? h : lh) + 10;

    report_printf(f, "<svg class=\"hm\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width,
                  height, width, height);
    report_printf(f, "<text class=\"t\" x=\"%d\" y=\"12\" text-anchor=\"middle\">", left + w / 2);
    report_text(f, l->col_axis);
    report_printf(f, " \xe2\x86\x92</text>\n");
    /* rotated to read upwards: the arrow before the text points down */
    report_printf(f,
                  "<text class=\"t\" transform=\"translate(14 %d) rotate(-90)\" "
                  "text-anchor=\"middle\">\xe2\x86\x90 ",
                  top + h / 2);
    report_text(f, l->row_axis);
    report_printf(f, "</text>\n");
    report_axis_ticks(f, g->nreceivers, g->tc, px, true, left, top - 1, true);
    report_axis_ticks(f, g->nsenders, g->tr, px, false, top, left - 1, true);
    legend(f, g, &s, legend_x, top);
    report_printf(
        f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
        left - 1, top - 1, w + 2, h + 2);
    report_printf(f,
                  "<svg class=\"grid%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %zu %zu\" preserveAspectRatio=\"none\" "
                  "shape-rendering=\"crispEdges\">\n",
                  px >= 8 ? " fine" : "", left, top, w, h, g->cols, g->rows);
    cells(f, g, &s, l);
    report_printf(f, "</svg>\n</svg>\n");
}
