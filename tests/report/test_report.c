/*
 * `collprof report` (tools/report/): the HTML of directories written with
 * the real writers, checked as text.  Every heat-map cell is an SVG <rect>
 * with data-sender / data-receiver (or data-neighbor) / data-count /
 * data-bytes: the tests compare them with the fixture's formulas.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/reader.h"
#include "reader_fixture.h"
#include "report.h"
#include "report_fixture.h"
#include "timing_fixture.h"
#include "tmpdir.h"

static report_options defaults(void)
{
    return (report_options){REPORT_DEFAULT_MAX_MATRICES, REPORT_DEFAULT_MAX_CELLS,
                            REPORT_DEFAULT_CELL_BUDGET, 0};
}

/* The report of tmpdir (malloc'ed), its length in *len. */
static char *report(const report_options *opt, report_stats *stats, size_t *len)
{
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    report_stats st;
    ck_assert_msg(report_write_report(f, &p, opt, stats ? stats : &st, &err) == 0, "%s", err.msg);
    fclose(f);
    cp_profile_free(&p);
    if (len)
        *len = n;
    return buf;
}

/* ------------------------------------------------------- reading the HTML */

typedef struct span {
    const char *b, *e;
} span;

/* <figure id="id"> ... </figure>; fails the test when absent. */
static span figure(const char *html, const char *id)
{
    char open[256];
    snprintf(open, sizeof open, "<figure id=\"%s\">", id);
    const char *b = strstr(html, open);
    ck_assert_msg(b != NULL, "no figure %s", id);
    const char *e = strstr(b, "</figure>");
    ck_assert_ptr_nonnull(e);
    return (span){b, e};
}

static bool has_figure(const char *html, const char *id)
{
    char open[256];
    snprintf(open, sizeof open, "<figure id=\"%s\">", id);
    return strstr(html, open) != NULL;
}

static bool contains(span s, const char *text)
{
    size_t n = strlen(text);
    for (const char *p = s.b; p + n <= s.e; p++)
        if (memcmp(p, text, n) == 0)
            return true;
    return false;
}

/* Value of attribute name in the tag [b, e), into out ("" when absent). */
static void attr(const char *b, const char *e, const char *name, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    size_t n = strlen(key);
    out[0] = '\0';
    for (const char *p = b; p + n <= e; p++)
        if (memcmp(p, key, n) == 0) {
            const char *v = p + n, *q = memchr(v, '"', (size_t)(e - v));
            ck_assert_ptr_nonnull(q);
            snprintf(out, size, "%.*s", (int)(q - v), v);
            return;
        }
}

/* One heat-map cell. */
typedef struct cell {
    char row[32], col[32]; /* data-sender (or data-receiver) and its column's attribute */
    int64_t count, bytes;
} cell;

/* Every <rect> with data-count of the figure, in file order.  col_attr:
 * "receiver" or "neighbor"; row_attr: "sender" or "receiver". */
static cell *cells(span fig, const char *row_attr, const char *col_attr, size_t *n)
{
    size_t cap = 1024;
    cell *v = malloc(cap * sizeof *v);
    ck_assert_ptr_nonnull(v);
    *n = 0;
    /* One pass over the figure (strstr from each cell would read the rest
     * of the page each time: quadratic under the sanitizers). */
    for (const char *p = fig.b; p < fig.e; p++) {
        if (*p != '<' || strncmp(p, "<rect ", 6) != 0)
            continue;
        const char *end = strchr(p, '>');
        char count[32], bytes[32];
        attr(p, end, "data-count", count, sizeof count);
        if (!count[0])
            continue;
        if (*n == cap)
            ck_assert_ptr_nonnull(v = realloc(v, (cap *= 2) * sizeof *v));
        cell *c = &v[(*n)++];
        attr(p, end, row_attr, c->row, sizeof c->row);
        attr(p, end, col_attr, c->col, sizeof c->col);
        attr(p, end, "data-bytes", bytes, sizeof bytes);
        ck_assert_msg(c->row[0] && c->col[0] && bytes[0], "cell without %s / %s / bytes",
                      row_attr, col_attr);
        c->count = strtoll(count, NULL, 10);
        c->bytes = strtoll(bytes, NULL, 10);
    }
    return v;
}

static const cell *find_cell(const cell *v, size_t n, const char *row, const char *col)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].row, row) == 0 && strcmp(v[i].col, col) == 0)
            return &v[i];
    return NULL;
}

/* A single-rank matrix of n x m: exactly one cell per (i, j) with
 * count(i, j) and bytes count * unit. */
static void expect_matrix(const char *html, const char *id, const char *row_attr,
                          const char *col_attr, int64_t n, int64_t m, int64_t unit,
                          int64_t (*count)(int64_t, int64_t))
{
    span fig = figure(html, id);
    size_t nc;
    cell *v = cells(fig, row_attr, col_attr, &nc);
    ck_assert_msg(nc == (size_t)(n * m), "%s: %zu cells, expected %" PRId64, id, nc, n * m);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            char r[32], c[32];
            snprintf(r, sizeof r, "%" PRId64, i);
            snprintf(c, sizeof c, "%" PRId64, j);
            const cell *x = find_cell(v, nc, r, c);
            ck_assert_msg(x != NULL, "%s: no cell %s %s", id, r, c);
            ck_assert_msg(x->count == count(i, j) && x->bytes == count(i, j) * unit,
                          "%s: cell (%s, %s) has count %" PRId64 ", bytes %" PRId64
                          ", expected %" PRId64 ", %" PRId64,
                          id, r, c, x->count, x->bytes, count(i, j), count(i, j) * unit);
        }
    free(v);
}

/* ------------------------------------------------------------ good fixture */

static int64_t good_calls01(int64_t i, int64_t j)
{
    static const int64_t m[3][3] = {{1, 2, 0}, {0, 0, 3}, {0, 0, 3}};
    return m[i][j];
}

static int64_t good_call2(int64_t i, int64_t j)
{
    return i == j ? 0 : 1;
}

static int64_t good_gatherv(int64_t i, int64_t j)
{
    return j == 0 ? i + 1 : 0; /* every rank to the root */
}

static int64_t good_alltoall(int64_t i, int64_t j)
{
    (void)i;
    (void)j;
    return 4;
}

static void write_good(void)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(fx_write(tmpdir, FX_GOOD, &err) == 0, "%s", err.msg);
}

START_TEST(self_contained)
{
    write_good();
    char *html = report(&(report_options){REPORT_DEFAULT_MAX_MATRICES, REPORT_DEFAULT_MAX_CELLS,
                                          REPORT_DEFAULT_CELL_BUDGET, 0},
                        NULL, NULL);
    ck_assert_ptr_nonnull(strstr(html, "<!DOCTYPE html>"));
    ck_assert_ptr_nonnull(strstr(html, "</html>\n"));
    /* nothing fetched: no URL, no external script, style, font or image */
    static const char *const banned[] = {"http://", "https://", "src=", "<link", "@import",
                                         "url(", "<img", "<iframe", "//cdn"};
    for (size_t i = 0; i < sizeof banned / sizeof *banned; i++)
        ck_assert_msg(strstr(html, banned[i]) == NULL, "the report contains '%s'", banned[i]);
    ck_assert_ptr_nonnull(strstr(html, "<style>"));
    ck_assert_ptr_nonnull(strstr(html, "<script>\n"));
    /* no timings.cpt: no timing section, nor a link to it */
    ck_assert_ptr_null(strstr(html, "id=\"timing\""));
    ck_assert_ptr_null(strstr(html, "#timing"));
    free(html);
    tmpdir_remove();
}
END_TEST

START_TEST(good_cells)
{
    write_good();
    report_options opt = defaults();
    report_stats st;
    char *html = report(&opt, &st, NULL);
    /* most frequent first: calls 0-1, then call 2 */
    expect_matrix(html, "m-c0-Alltoallv-send-1", "data-sender", "data-receiver", 3, 3, 8,
                  good_calls01);
    expect_matrix(html, "m-c0-Alltoallv-send-2", "data-sender", "data-receiver", 3, 3, 8,
                  good_call2);
    expect_matrix(html, "m-c0-Gatherv-send-1", "data-sender", "data-receiver", 3, 3, 4,
                  good_gatherv);
    expect_matrix(html, "m-c1-Alltoall-send-1", "data-sender", "data-receiver", 2, 2, 4,
                  good_alltoall);
    /* the receive matrices are the transposes: same pictures, not drawn */
    ck_assert(!has_figure(html, "m-c0-Alltoallv-recv-1"));
    ck_assert(!has_figure(html, "m-c0-Gatherv-recv-1"));
    ck_assert_ptr_nonnull(strstr(html, "Receive side of calls 0-2: the receive counts draw "
                                       "the same picture"));
    ck_assert_uint_eq(st.heatmaps, 4);
    ck_assert_uint_eq(st.communicators, 2);
    ck_assert_uint_eq(st.not_drawn, 0);
    /* the cell's tooltip says the same */
    span fig = figure(html, "m-c0-Alltoallv-send-1");
    ck_assert(contains(fig, "<title>sender 0, receiver 1: count 2, 16 bytes</title>"));
    ck_assert(contains(fig, "Rooted") == false);
    ck_assert(contains(figure(html, "m-c0-Gatherv-send-1"), "Rooted at rank 0"));
    /* summary table with links to the matrices */
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"#c0-Alltoallv\">Alltoallv</a>"));
    ck_assert_ptr_nonnull(strstr(html, "<h4 id=\"c0-Alltoallv\">"));
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"n\">192</td><td>2 calls (0-1)</td>"));
    /* bytes per rank: rank 0 sends 2 x (1+2) x 8 + (1+1) x 8 + 1 x 4 = 68 and
     * receives 2 x 1 x 8 + 2 x 8 + (1+2+3) x 4 = 56; both add up to the
     * summary's bytes sent of communicator 0 (192 + 24) */
    span bytes = figure(html, "bytes-c0");
    ck_assert(contains(bytes, "data-ranks=\"0\" data-sent=\"68\" data-received=\"56\""));
    ck_assert(contains(bytes, "data-ranks=\"1\" data-sent=\"72\" data-received=\"48\""));
    ck_assert(contains(bytes, "data-ranks=\"2\" data-sent=\"76\" data-received=\"112\""));
    ck_assert(contains(figure(html, "bytes-c1"), "data-ranks=\"1\" data-sent=\"128\""));
    free(html);
    tmpdir_remove();
}
END_TEST

START_TEST(max_matrices)
{
    write_good();
    report_options opt = defaults();
    opt.max_matrices = 1;
    report_stats st;
    char *html = report(&opt, &st, NULL);
    ck_assert(has_figure(html, "m-c0-Alltoallv-send-1"));
    ck_assert(!has_figure(html, "m-c0-Alltoallv-send-2"));
    ck_assert_ptr_nonnull(strstr(html, "1 more send matrix (calls 2) is not drawn"));
    ck_assert_uint_eq(st.not_drawn, 1);
    free(html);
    tmpdir_remove();
}
END_TEST

/* ----------------------------------------------------------- mixed fixture */

static int64_t bcast(int64_t i, int64_t j)
{
    return i == 2 && j != 2 ? 10 : 0; /* the root to every other rank */
}

static int64_t allreduce(int64_t i, int64_t j)
{
    (void)i;
    (void)j;
    return 5;
}

static int64_t scan(int64_t i, int64_t j)
{
    return j >= i ? 3 : 0; /* to the ranks above, itself included */
}

static int64_t exscan(int64_t i, int64_t j)
{
    return j > i ? 2 : 0;
}

static int64_t neighbors(int64_t i, int64_t j)
{
    for (int64_t k = 0; k < 4 && rfx_dest[i][k] >= 0; k++)
        if (rfx_dest[i][k] == j)
            return (i + 1) * 10 + k;
    return 0;
}

static int64_t as_given(int64_t i, int64_t k)
{
    static const int64_t rows[4][3] = {{1, 2, 0}, {3, 0, 0}, {4, 5, 6}, {0, 0, 0}};
    return rows[i][k];
}

static int64_t inter_gather(int64_t i, int64_t j)
{
    (void)i;
    return j == 0 ? 6 : 0; /* to / at the root, rank 0 */
}

START_TEST(mixed_cells)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(rfx_write_mixed(tmpdir, &err) == 0, "%s", err.msg);
    report_options opt = defaults();
    char *html = report(&opt, NULL, NULL);
    expect_matrix(html, "m-c0-Alltoallv-send-1", "data-sender", "data-receiver", 8, 8, 8,
                  rfx_mixed_count);
    expect_matrix(html, "m-c0-Bcast-send-1", "data-sender", "data-receiver", 8, 8, 4, bcast);
    expect_matrix(html, "m-c0-Allreduce-send-1", "data-sender", "data-receiver", 8, 8, 4,
                  allreduce);
    expect_matrix(html, "m-c0-Scan-send-1", "data-sender", "data-receiver", 8, 8, 4, scan);
    expect_matrix(html, "m-c0-Exscan-send-1", "data-sender", "data-receiver", 8, 8, 4, exscan);
    ck_assert(!has_figure(html, "m-c0-Scan-recv-1")); /* the same picture */
    ck_assert(!has_figure(html, "m-c0-Exscan-recv-1"));
    /* Barrier: its calls, no picture */
    ck_assert(!has_figure(html, "m-c0-Barrier-send-1"));
    ck_assert_ptr_nonnull(strstr(html, "No counts to draw: Barrier passes none. 5 calls"));
    /* neighbourhood rows through the manifest's lists: rows of 2, 1, 3, 1 counts */
    expect_matrix(html, "m-c1-Neighbor_alltoallv-send-1", "data-sender", "data-receiver", 4,
                  4, 4, neighbors);
    ck_assert(!has_figure(html, "m-c1-Neighbor_alltoallv-recv-1"));
    ck_assert(contains(figure(html, "m-c1-Neighbor_alltoallv-send-1"),
                       "placed through the manifest"));
    /* without lists: as given, columns are neighbour positions */
    expect_matrix(html, "m-c2-Neighbor_alltoallv-send-1", "data-sender", "data-neighbor", 4,
                  3, 4, as_given);
    ck_assert(contains(figure(html, "m-c2-Neighbor_alltoallv-send-1"), "<b>as given</b>"));
    /* intercommunicator Gather: the root's group receives from every remote
     * rank, the other group sends to the remote root */
    expect_matrix(html, "m-c3-Gather-recv-1", "data-sender", "data-receiver", 2, 2, 4,
                  inter_gather);
    expect_matrix(html, "m-c4-Gather-send-1", "data-sender", "data-receiver", 2, 2, 4,
                  inter_gather);
    ck_assert(contains(figure(html, "m-c3-Gather-recv-1"), "Intercommunicator"));
    free(html);
    tmpdir_remove();
}
END_TEST

START_TEST(escaping)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(rfx_write_mixed(tmpdir, &err) == 0, "%s", err.msg);
    report_options opt = defaults();
    char *html = report(&opt, NULL, NULL);
    ck_assert_ptr_null(strstr(html, RFX_JOB));
    ck_assert_ptr_null(strstr(html, "<b>\"Tom"));
    ck_assert_ptr_nonnull(
        strstr(html, "<title>collprof report: &lt;b&gt;&quot;Tom &amp; Jerry&#39;s&quot;&lt;/b&gt;"
                     "</title>"));
    ck_assert_ptr_nonnull(
        strstr(html, "<dd>&lt;b&gt;&quot;Tom &amp; Jerry&#39;s&quot;&lt;/b&gt;</dd>"));
    ck_assert_ptr_nonnull(strstr(html, "<code>a&lt;b&gt;&amp;c</code>"));
    free(html);
    tmpdir_remove();
}
END_TEST

/* ----------------------------------------------------------- 1,024 ranks */

#define LARGE 1024

static int64_t tile_sum(int64_t r0, int64_t c0, int64_t t, int variant)
{
    int64_t s = 0;
    for (int64_t i = r0; i < r0 + t && i < LARGE; i++)
        for (int64_t j = c0; j < c0 + t && j < LARGE; j++)
            s += rfx_large_count(i, j, variant);
    return s;
}

START_TEST(large_aggregated)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(rfx_write_large(tmpdir, LARGE, &err) == 0, "%s", err.msg);
    report_options opt = defaults();
    report_stats st;
    size_t len;
    char *html = report(&opt, &st, &len);
    ck_assert_msg(len < 20 * 1000 * 1000, "the 1024-rank report has %zu bytes", len);
    ck_assert_uint_eq(st.heatmaps, 4); /* Alltoallv x 2, Alltoall, Gatherv */

    /* every cell of both Alltoallv matrices: 128 x 128 tiles of 8 x 8 ranks */
    for (int variant = 0; variant < 2; variant++) {
        span fig = figure(html, variant ? "m-c0-Alltoallv-send-2" : "m-c0-Alltoallv-send-1");
        ck_assert(contains(fig, "<b>Aggregated</b>: 1024 &times; 1024 ranks drawn as 128 "
                                "&times; 128 cells"));
        size_t n;
        cell *v = cells(fig, "data-sender", "data-receiver", &n);
        ck_assert_uint_eq(n, 128 * 128);
        for (size_t k = 0; k < n; k++) {
            int64_t i = (int64_t)(k / 128) * 8, j = (int64_t)(k % 128) * 8;
            char r[48], c[48];
            snprintf(r, sizeof r, "%" PRId64 "-%" PRId64, i, i + 7);
            snprintf(c, sizeof c, "%" PRId64 "-%" PRId64, j, j + 7);
            ck_assert_str_eq(v[k].row, r);
            ck_assert_str_eq(v[k].col, c);
            int64_t want = tile_sum(i, j, 8, variant);
            ck_assert_msg(v[k].count == want && v[k].bytes == want * 8,
                          "cell %s, %s: %" PRId64 " (%" PRId64 " bytes), expected %" PRId64, r,
                          c, v[k].count, v[k].bytes, want);
        }
        free(v);
    }
    /* Alltoall: 64 per pair, 64 pairs per tile */
    span fig = figure(html, "m-c0-Alltoall-send-1");
    size_t n;
    cell *v = cells(fig, "data-sender", "data-receiver", &n);
    ck_assert_uint_eq(n, 128 * 128);
    const cell *x = find_cell(v, n, "1016-1023", "504-511");
    ck_assert(x && x->count == 64 * 64 && x->bytes == 64 * 64 * 8);
    free(v);
    /* Gatherv: only the root's column tile; rank i sends i % 10 + 1 */
    v = cells(figure(html, "m-c0-Gatherv-send-1"), "data-sender", "data-receiver", &n);
    ck_assert_uint_eq(n, 128 * 128);
    x = find_cell(v, n, "8-15", "0-7");
    ck_assert(x && x->count == 9 + 10 + 1 + 2 + 3 + 4 + 5 + 6);
    x = find_cell(v, n, "8-15", "8-15");
    ck_assert(x && x->count == 0);
    free(v);
    /* bytes per rank: 128 bars of 8 ranks, adding up to the summary */
    span bars = figure(html, "bytes-c0");
    int64_t sent0 = 0;
    for (int64_t r = 0; r < 8; r++) {
        for (int64_t j = 0; j < LARGE; j++)
            sent0 += 3 * rfx_large_count(r, j, 0) * 8 + rfx_large_count(r, j, 1) * 8;
        sent0 += 10 * 64 * 8 * LARGE + (r % 10 + 1) * 8;
    }
    char want[64];
    snprintf(want, sizeof want, "data-ranks=\"0-7\" data-sent=\"%" PRId64 "\"", sent0);
    ck_assert_msg(contains(bars, want), "no bar %s", want);
    ck_assert(contains(bars, "data-ranks=\"1016-1023\""));
    ck_assert(!contains(bars, "data-ranks=\"1024"));
    free(html);
    tmpdir_remove();
}
END_TEST

START_TEST(cell_budget)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(rfx_write_large(tmpdir, 256, &err) == 0, "%s", err.msg);
    report_options opt = defaults();
    opt.cell_budget = 20000; /* one full map, two coarser, then nothing */
    report_stats st;
    char *html = report(&opt, &st, NULL);
    ck_assert_uint_eq(st.heatmaps, 3);
    ck_assert_uint_eq(st.not_drawn, 1);
    ck_assert_uint_le(st.cells, 20000);
    ck_assert_ptr_nonnull(strstr(html, "Drawn coarser than the other maps"));
    ck_assert_ptr_nonnull(strstr(html, "is not drawn, to keep the file small"));
    free(html);
    tmpdir_remove();
}
END_TEST

/* ------------------------------------------------------------- timings */

/* exit - enter of every (rank, call) pair of a collective of the timed
 * fixture (timing_fixture.h), sorted; returns how many. */
static size_t fixture_durations(int64_t comm, const char *collective, uint64_t calls, double *v)
{
    size_t n = 0;
    for (int64_t r = 0; r < 3; r++)
        for (uint64_t k = 0; k < calls && (comm == 0 || r != 1); k++) {
            double enter, exit;
            tfx_times(comm, collective, r, k, &enter, &exit);
            v[n++] = exit - enter;
        }
    for (size_t i = 1; i < n; i++) /* insertion sort: a dozen values */
        for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            double x = v[k];
            v[k] = v[k - 1];
            v[k - 1] = x;
        }
    return n;
}

/* The table row of a collective: its numbers from the durations, then the
 * waiting columns as given. */
static void expect_row(const char *html, int64_t comm, const char *collective, uint64_t calls,
                       const char *waiting)
{
    double v[16];
    size_t n = fixture_durations(comm, collective, calls, v);
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i];
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    char want[1024];
    snprintf(want, sizeof want,
             "<tr><td class=\"n\">%" PRId64 "</td><td><a href=\"#t-c%" PRId64 "-%s\">%s</a></td>"
             "<td class=\"n\">%zu</td><td class=\"n\">0</td><td class=\"n\">%.6f</td>"
             "<td class=\"n\">%.6f</td><td class=\"n\">%.6f</td><td class=\"n\">%.6f</td>%s</tr>",
             comm, comm, collective, collective, n, total, v[0], median, v[n - 1], waiting);
    ck_assert_msg(strstr(html, want) != NULL, "no row\n%s", want);
}

/* Every bar of the histogram holds the durations in [data-lo, data-hi),
 * the bars hold them all, and each bar spans one bin of the documented
 * kind: 10^(1/5) apart (logarithmic) or `width` seconds (linear). */
static void expect_histogram(const char *html, int64_t comm, const char *collective,
                             uint64_t calls, double width)
{
    double v[16];
    size_t n = fixture_durations(comm, collective, calls, v), total = 0;
    char id[64];
    snprintf(id, sizeof id, "t-c%" PRId64 "-%s", comm, collective);
    span fig = figure(html, id);
    for (const char *p = fig.b; (p = strstr(p, "<g class=\"b\"")) && p < fig.e; p++) {
        const char *end = strchr(p, '>');
        char lo[64], hi[64], count[32];
        attr(p, end, "data-lo", lo, sizeof lo);
        attr(p, end, "data-hi", hi, sizeof hi);
        attr(p, end, "data-count", count, sizeof count);
        double l = strtod(lo, NULL), h = strtod(hi, NULL);
        size_t in = 0;
        for (size_t i = 0; i < n; i++)
            in += v[i] >= l && v[i] < h;
        ck_assert_msg(in > 0 && in == strtoull(count, NULL, 10),
                      "%s: bar %s to %s counts %s, %zu durations are in it", id, lo, hi, count,
                      in);
        if (width > 0)
            ck_assert_double_eq_tol(h - l, width, 1e-12);
        else
            ck_assert_double_eq_tol(h / l, pow(10, 0.2), 1e-12);
        total += in;
    }
    ck_assert_uint_eq(total, n);
}

START_TEST(timing_section)
{
    tmpdir_make();
    tfx t;
    tfx_build(&t);
    snprintf(t.cpt.chunks[2].hostname, sizeof t.cpt.chunks[2].hostname, "b<&>");
    cp_error err = {{0}};
    ck_assert_msg(tfx_write(tmpdir, &t, &err) == 0, "%s", err.msg);
    tfx_free(&t);
    report_options opt = defaults();
    char *html = report(&opt, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"#timing\">Time and waiting</a>"));
    ck_assert_ptr_nonnull(strstr(html, "<section id=\"timing\">\n<h2>Time and waiting</h2>"));
    /* The findings come first; rank 2 (on host "b<&>", escaped) is the one
     * the others wait for in the Alltoallv. */
    ck_assert_ptr_nonnull(strstr(html, "<nav><a href=\"#findings\">Findings</a><a href=\"#summary\">"));
    const char *findings = strstr(html, "<section id=\"findings\">");
    ck_assert_ptr_nonnull(findings);
    ck_assert(findings < strstr(html, "<section id=\"summary\">"));
    ck_assert_msg(strstr(findings, " s  waiting: communicator 0, Alltoallv: world rank 2 (host "
                                   "b&lt;&amp;&gt;) arrives last in ") != NULL,
                  "%.2000s", findings);
    ck_assert_ptr_nonnull(strstr(html, "<dd><code>a</code>: ranks 0-1</dd>"));
    ck_assert_ptr_nonnull(strstr(html, "<dd><code>b&lt;&amp;&gt;</code>: rank 2</dd>"));
    /* The table: the waiting of each series; then one row per series and
     * wait-state pattern with instances (mpi_wait_nxn, mpi_nxn_completion,
     * mpi_earlyreduce), none for the others.  Alltoallv: ranks 0 and 1
     * wait 1 s for rank 2 in each call; after rank 0's exit, rank 1 0.25 s
     * and rank 2 0.5 s.  Gatherv: the root waits 1 s for rank 2.
     * Alltoall: rank 2 from rank 0's exit, 0.0099 s down to 0.0096 s. */
    expect_row(html, 0, "Alltoallv", 3, "<td class=\"n\">8.250000</td>");
    expect_row(html, 0, "Gatherv", 1, "<td class=\"n\">1.000000</td>");
    expect_row(html, 1, "Alltoall", 4, "<td class=\"n\">0.039000</td>");
    static const char *const pattern_rows[] = {
        "<tr><td class=\"n\">0</td><td>Alltoallv</td><td><code>mpi_wait_nxn</code></td>"
        "<td class=\"n\">6</td><td class=\"n\">6.000000</td></tr>",
        "<tr><td class=\"n\">0</td><td>Alltoallv</td><td><code>mpi_nxn_completion</code></td>"
        "<td class=\"n\">6</td><td class=\"n\">2.250000</td></tr>",
        "<tr><td class=\"n\">0</td><td>Gatherv</td><td><code>mpi_earlyreduce</code></td>"
        "<td class=\"n\">1</td><td class=\"n\">1.000000</td></tr>",
        "<tr><td class=\"n\">1</td><td>Alltoall</td><td><code>mpi_nxn_completion</code></td>"
        "<td class=\"n\">4</td><td class=\"n\">0.039000</td></tr>",
    };
    for (size_t i = 0; i < sizeof pattern_rows / sizeof pattern_rows[0]; i++)
        ck_assert_msg(strstr(html, pattern_rows[i]) != NULL, "no row %s", pattern_rows[i]);
    ck_assert_ptr_null(strstr(html, "<td>Gatherv</td><td><code>mpi_wait_nxn</code>"));
    /* Alltoallv 1.5-3.25 s: within a decade, linear bins of 1.75 / 16 ->
     * 0.2 s; Alltoall 0.1-10 ms: logarithmic */
    expect_histogram(html, 0, "Alltoallv", 3, 0.2);
    expect_histogram(html, 0, "Gatherv", 1, 0.1);
    expect_histogram(html, 1, "Alltoall", 4, 0);
    /* slowest: rank 1's call 2 on host a, rank 2's (escaped host) */
    ck_assert_ptr_nonnull(strstr(html, "<tr><td class=\"n\">0</td><td>Alltoallv</td><td "
                                       "class=\"n\">2</td><td class=\"n\">1</td><td>a</td><td "
                                       "class=\"n\">3.250000</td></tr>"));
    ck_assert_ptr_nonnull(strstr(html, "<tr><td class=\"n\">0</td><td>Alltoallv</td><td "
                                       "class=\"n\">2</td><td class=\"n\">2</td><td>b&lt;&amp;"
                                       "&gt;</td><td class=\"n\">2.500000</td></tr>"));
    ck_assert_ptr_null(strstr(html, "b<&>"));
    free(html);
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, self_contained);
    tcase_add_test(tc, good_cells);
    tcase_add_test(tc, max_matrices);
    tcase_add_test(tc, mixed_cells);
    tcase_add_test(tc, escaping);
    tcase_add_test(tc, large_aggregated);
    tcase_add_test(tc, cell_budget);
    tcase_add_test(tc, timing_section);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
