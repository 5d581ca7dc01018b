/*
 * Cube statistics file profile.stat: exact text of the writer for counts 1,
 * 2-4 and >= 5 in both layouts, every line read back column by column,
 * model -> file -> model round trips, an independent reader that follows
 * CubeGUI's reading rules, the statistics (cp_stat_summarize) and the list
 * of most severe instances (cp_stat_offer_event) on known data, what the
 * writer refuses, every malformed case with its line number, and truncation
 * at every byte.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stat.h"
#include "tmpdir.h"

/* ------------------------------------------------------------- helpers */

static cp_stat_pattern *add(cp_stat_file *s, const char *name, uint64_t count, double mean,
                            double median, double min, double max, double sum, double var,
                            double q25, double q75)
{
    cp_stat_pattern *p = cp_stat_file_add(s, name);
    ck_assert_ptr_nonnull(p);
    p->count = count;
    p->mean = mean;
    p->median = median;
    p->minimum = min;
    p->maximum = max;
    p->sum = sum;
    p->variance = var;
    p->q25 = q25;
    p->q75 = q75;
    return p;
}

static void event(cp_stat_pattern *p, int64_t cnode, double enter, double exit, double dur,
                  int64_t rank)
{
    ck_assert_uint_lt(p->nevents, CP_STAT_MAX_EVENTS);
    p->events[p->nevents++] = (cp_stat_event){cnode, enter, exit, dur, rank};
}

/* The file of the exact-text tests: counts 20 (the example of DESIGN.md),
 * 1, 3, 4 and 6, with 2, 1, 3, 0 and 5 events. */
static cp_stat_file sample(int layout)
{
    cp_stat_file s = {.layout = layout};
    cp_stat_pattern *p = add(&s, "mpi_wait_nxn", 20, 0.01845, 0.006477, 0.000002, 0.065293, 0.369,
                             0.000698, 0.00004, 0.047409);
    event(p, 12, 0.32612, 0.335651, 0.065293, 1);
    event(p, 14, 0.192332, 0.192378, 0.0001, 3);
    p = add(&s, "mpi_barrier_wait", 1, 0.25, 0.25, 0.25, 0.25, 0.25, 0, 0, 0);
    event(p, 3, 1.0, 1.25, 0.25, 0);
    double v3[] = {0.1, 0.4, 0.2};
    p = cp_stat_file_add(&s, "mpi_latebroadcast");
    cp_stat_summarize(p, v3, 3);
    event(p, 7, 2.5, 2.9, 0.4, 2);
    event(p, 8, 3.5, 3.7, 0.2, 0);
    event(p, 9, 4.5, 4.6, 0.1, 1);
    double v4[] = {0.004, 0.001, 0.003, 0.002};
    p = cp_stat_file_add(&s, "mpi_earlyreduce");
    cp_stat_summarize(p, v4, 4);
    double v6[] = {0.007, 0.001, 0.003, 0.009, 0.002, 0.008};
    p = cp_stat_file_add(&s, "mpi_nxn_completion");
    cp_stat_summarize(p, v6, 6);
    event(p, 20, 10.0, 10.009, 0.009, 5);
    event(p, 21, 11.0, 11.008, 0.008, 6);
    event(p, 22, 12.0, 12.007, 0.007, 7);
    event(p, 23, 13.0, 13.003, 0.003, 8);
    event(p, 24, 14.0, 14.002, 0.002, 9);
    for (size_t i = 0; i < s.npatterns; i++)
        s.patterns[i].metric_id = (int64_t)(40 + i);
    return s;
}

static const char sample_gui[] =
    "PatternName                 Count      Mean    Median      Minimum      Maximum          "
    "Sum     Variance    Quartil25    Quartil75\n"
    "mpi_wait_nxn                   20 0.0184500 0.0064770 0.0000020000 0.0652930000 "
    "0.3690000000 0.0006980000 0.0000400000 0.0474090000\n"
    "- cnode: 12 enter: 0.3261200000 exit: 0.3356510000 duration: 0.0652930000 rank: 1\n"
    "- cnode: 14 enter: 0.1923320000 exit: 0.1923780000 duration: 0.0001000000 rank: 3\n"
    "\n"
    "mpi_barrier_wait                1 0.2500000 0.2500000 0.2500000000 0.2500000000 "
    "0.2500000000\n"
    "- cnode: 3 enter: 1.0000000000 exit: 1.2500000000 duration: 0.2500000000 rank: 0\n"
    "\n"
    "mpi_latebroadcast               3 0.2333333 0.2000000 0.1000000000 0.4000000000 "
    "0.7000000000 0.0233333333\n"
    "- cnode: 7 enter: 2.5000000000 exit: 2.9000000000 duration: 0.4000000000 rank: 2\n"
    "- cnode: 8 enter: 3.5000000000 exit: 3.7000000000 duration: 0.2000000000 rank: 0\n"
    "- cnode: 9 enter: 4.5000000000 exit: 4.6000000000 duration: 0.1000000000 rank: 1\n"
    "\n"
    "mpi_earlyreduce                 4 0.0025000 0.0025000 0.0010000000 0.0040000000 "
    "0.0100000000 0.0000016667\n"
    "\n"
    "mpi_nxn_completion              6 0.0050000 0.0050000 0.0010000000 0.0090000000 "
    "0.0300000000 0.0000116000 0.0022500000 0.0077500000\n"
    "- cnode: 20 enter: 10.0000000000 exit: 10.0090000000 duration: 0.0090000000 rank: 5\n"
    "- cnode: 21 enter: 11.0000000000 exit: 11.0080000000 duration: 0.0080000000 rank: 6\n"
    "- cnode: 22 enter: 12.0000000000 exit: 12.0070000000 duration: 0.0070000000 rank: 7\n"
    "- cnode: 23 enter: 13.0000000000 exit: 13.0030000000 duration: 0.0030000000 rank: 8\n"
    "- cnode: 24 enter: 14.0000000000 exit: 14.0020000000 duration: 0.0020000000 rank: 9\n"
    "\n";

static const char sample_doc[] =
    "PatternName               MetricID   Count      Mean    Median      Minimum      Maximum"
    "          Sum     Variance    Quartil25    Quartil75\n"
    "mpi_wait_nxn                    40      20 0.0184500 0.0064770 0.0000020000 0.0652930000 "
    "0.3690000000 0.0006980000 0.0000400000 0.0474090000\n"
    "- cnode: 12 enter: 0.3261200000 exit: 0.3356510000 duration: 0.0652930000\n"
    "- cnode: 14 enter: 0.1923320000 exit: 0.1923780000 duration: 0.0001000000\n"
    "\n"
    "mpi_barrier_wait                41       1 0.2500000 0.2500000 0.2500000000 0.2500000000 "
    "0.2500000000\n"
    "- cnode: 3 enter: 1.0000000000 exit: 1.2500000000 duration: 0.2500000000\n"
    "\n"
    "mpi_latebroadcast               42       3 0.2333333 0.2000000 0.1000000000 0.4000000000 "
    "0.7000000000 0.0233333333\n"
    "- cnode: 7 enter: 2.5000000000 exit: 2.9000000000 duration: 0.4000000000\n"
    "- cnode: 8 enter: 3.5000000000 exit: 3.7000000000 duration: 0.2000000000\n"
    "- cnode: 9 enter: 4.5000000000 exit: 4.6000000000 duration: 0.1000000000\n"
    "\n"
    "mpi_earlyreduce                 43       4 0.0025000 0.0025000 0.0010000000 0.0040000000 "
    "0.0100000000 0.0000016667\n"
    "\n"
    "mpi_nxn_completion              44       6 0.0050000 0.0050000 0.0010000000 0.0090000000 "
    "0.0300000000 0.0000116000 0.0022500000 0.0077500000\n"
    "- cnode: 20 enter: 10.0000000000 exit: 10.0090000000 duration: 0.0090000000\n"
    "- cnode: 21 enter: 11.0000000000 exit: 11.0080000000 duration: 0.0080000000\n"
    "- cnode: 22 enter: 12.0000000000 exit: 12.0070000000 duration: 0.0070000000\n"
    "- cnode: 23 enter: 13.0000000000 exit: 13.0030000000 duration: 0.0030000000\n"
    "- cnode: 24 enter: 14.0000000000 exit: 14.0020000000 duration: 0.0020000000\n"
    "\n";

/* Parse text (exactly len bytes, copied so that ASan sees any overread). */
static int parse_text(const char *text, size_t len, const char *name, cp_stat_file *s,
                      cp_error *err)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    cp_in *in = cp_in_open_mem(copy, len, name);
    ck_assert_ptr_nonnull(in);
    memset(s, 0xab, sizeof *s); /* the parser must set everything */
    int rc = cp_stat_parse(in, s, err);
    cp_in_close(in);
    free(copy);
    return rc;
}

static void parse_ok(const char *text, cp_stat_file *s)
{
    cp_error err = {{0}};
    int rc = parse_text(text, strlen(text), "ok.stat", s, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
}

/* The text of s, through the writer's file. */
static char *write_text(const cp_stat_file *s)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.stat", tmpdir);
    cp_error err;
    ck_assert_msg(cp_stat_write(path, s, &err) == 0, "%s", err.msg);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *copy = strdup(buf);
    /* the same bytes as cp_stat_format */
    char *t;
    size_t len;
    ck_assert_int_eq(cp_stat_format(s, &t, &len, &err), 0);
    ck_assert_uint_eq(len, n);
    ck_assert_str_eq(t, copy);
    free(t);
    return copy;
}

/* Line k (0-based) of text, in buf. */
static const char *line_of(const char *text, size_t k, char *buf, size_t size)
{
    const char *p = text;
    for (size_t i = 0; i < k; i++) {
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    size_t n = strcspn(p, "\n");
    ck_assert_uint_lt(n, size);
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* Split a line at blanks; returns the number of columns. */
static size_t split(char *line, char **tok, size_t max)
{
    size_t n = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " "))
        if (n < max)
            tok[n++] = t;
    return n;
}

static void assert_value(const char *tok, double v, int decimals)
{
    char want[64];
    snprintf(want, sizeof want, "%.*f", decimals, v);
    ck_assert_str_eq(tok, want);
}

/* -------------------------------------------------------- writer text */

START_TEST(exact_text_cubegui)
{
    tmpdir_make();
    cp_stat_file s = sample(CP_STAT_LAYOUT_CUBEGUI);
    char *text = write_text(&s);
    ck_assert_str_eq(text, sample_gui);
    free(text);
    cp_stat_file_free(&s);
    tmpdir_remove();
}
END_TEST

START_TEST(exact_text_documented)
{
    tmpdir_make();
    cp_stat_file s = sample(CP_STAT_LAYOUT_DOCUMENTED);
    char *text = write_text(&s);
    ck_assert_str_eq(text, sample_doc);
    free(text);
    cp_stat_file_free(&s);
    tmpdir_remove();
}
END_TEST

START_TEST(empty_file)
{
    tmpdir_make();
    cp_stat_file s = {.layout = CP_STAT_LAYOUT_CUBEGUI};
    char *text = write_text(&s);
    ck_assert_str_eq(text, "PatternName                 Count      Mean    Median      Minimum"
                           "      Maximum          Sum     Variance    Quartil25    Quartil75\n");
    cp_stat_file g;
    parse_ok(text, &g);
    ck_assert_uint_eq(g.npatterns, 0);
    ck_assert_ptr_null(g.patterns);
    ck_assert_int_eq(g.layout, CP_STAT_LAYOUT_CUBEGUI);
    free(text);
    tmpdir_remove();
}
END_TEST

/* Every pattern line has exactly the columns its count calls for, in the
 * documented order, at the documented precision; every event line the
 * eleven tokens (nine in the documented layout). */
static void check_columns(const char *text, const cp_stat_file *s)
{
    bool doc = s->layout == CP_STAT_LAYOUT_DOCUMENTED;
    size_t k = 1; /* line 0 is the header */
    char buf[1024], *tok[32];
    for (size_t i = 0; i < s->npatterns; i++) {
        const cp_stat_pattern *p = &s->patterns[i];
        size_t n = split((char *)line_of(text, k++, buf, sizeof buf), tok, 32);
        size_t want = (doc ? 8 : 7) + (p->count >= 2) + (p->count >= 5 ? 2 : 0);
        ck_assert_uint_eq(n, want);
        size_t c = 0;
        ck_assert_str_eq(tok[c++], p->name);
        if (doc)
            ck_assert_int_eq(strtoll(tok[c++], NULL, 10), p->metric_id);
        ck_assert_uint_eq(strtoull(tok[c++], NULL, 10), p->count);
        assert_value(tok[c++], p->mean, 7);
        assert_value(tok[c++], p->median, 7);
        assert_value(tok[c++], p->minimum, 10);
        assert_value(tok[c++], p->maximum, 10);
        assert_value(tok[c++], p->sum, 10);
        if (p->count >= 2)
            assert_value(tok[c++], p->variance, 10);
        if (p->count >= 5) {
            assert_value(tok[c++], p->q25, 10);
            assert_value(tok[c++], p->q75, 10);
        }
        ck_assert_uint_eq(c, n);
        for (size_t e = 0; e < p->nevents; e++) {
            const cp_stat_event *ev = &p->events[e];
            n = split((char *)line_of(text, k++, buf, sizeof buf), tok, 32);
            ck_assert_uint_eq(n, doc ? 9 : 11);
            ck_assert_str_eq(tok[0], "-");
            ck_assert_str_eq(tok[1], "cnode:");
            ck_assert_int_eq(strtoll(tok[2], NULL, 10), ev->cnode);
            ck_assert_str_eq(tok[3], "enter:");
            assert_value(tok[4], ev->enter, 10);
            ck_assert_str_eq(tok[5], "exit:");
            assert_value(tok[6], ev->exit, 10);
            ck_assert_str_eq(tok[7], "duration:");
            assert_value(tok[8], ev->duration, 10);
            if (!doc) {
                ck_assert_str_eq(tok[9], "rank:");
                ck_assert_int_eq(strtoll(tok[10], NULL, 10), ev->rank);
            }
        }
        ck_assert_str_eq(line_of(text, k++, buf, sizeof buf), "");
    }
    size_t lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    ck_assert_uint_eq(lines, k); /* nothing more */
}

START_TEST(columns_by_count)
{
    tmpdir_make();
    for (int layout = 0; layout < 2; layout++) {
        cp_stat_file s = sample(layout);
        char *text = write_text(&s);
        check_columns(text, &s);

        /* Parsed back: every value of every column. */
        cp_stat_file g;
        parse_ok(text, &g);
        ck_assert_int_eq(g.layout, layout);
        ck_assert_uint_eq(g.npatterns, s.npatterns);
        for (size_t i = 0; i < s.npatterns; i++) {
            const cp_stat_pattern *a = &s.patterns[i], *b = &g.patterns[i];
            ck_assert_str_eq(a->name, b->name);
            ck_assert_int_eq(b->metric_id, layout == CP_STAT_LAYOUT_DOCUMENTED ? a->metric_id : -1);
            ck_assert_uint_eq(a->count, b->count);
            ck_assert_double_eq_tol(a->mean, b->mean, 0.6e-7);
            ck_assert_double_eq_tol(a->median, b->median, 0.6e-7);
            ck_assert_double_eq_tol(a->minimum, b->minimum, 0.6e-10);
            ck_assert_double_eq_tol(a->maximum, b->maximum, 0.6e-10);
            ck_assert_double_eq_tol(a->sum, b->sum, 0.6e-10);
            ck_assert_double_eq_tol(a->count >= 2 ? a->variance : 0, b->variance, 0.6e-10);
            ck_assert_double_eq_tol(a->count >= 5 ? a->q25 : 0, b->q25, 0.6e-10);
            ck_assert_double_eq_tol(a->count >= 5 ? a->q75 : 0, b->q75, 0.6e-10);
            ck_assert_uint_eq(a->nevents, b->nevents);
            for (size_t e = 0; e < a->nevents; e++) {
                ck_assert_int_eq(a->events[e].cnode, b->events[e].cnode);
                ck_assert_double_eq_tol(a->events[e].enter, b->events[e].enter, 0.6e-10);
                ck_assert_double_eq_tol(a->events[e].exit, b->events[e].exit, 0.6e-10);
                ck_assert_double_eq_tol(a->events[e].duration, b->events[e].duration, 0.6e-10);
                ck_assert_int_eq(b->events[e].rank,
                                 layout == CP_STAT_LAYOUT_CUBEGUI ? a->events[e].rank : -1);
            }
        }
        ck_assert(cp_stat_file_equal(&s, &g));
        cp_stat_file_free(&g);
        free(text);
        cp_stat_file_free(&s);
    }
    tmpdir_remove();
}
END_TEST

/* Values the model holds with more digits than the file: equal after the
 * round trip at the file's precision, and the written text is stable. */
START_TEST(round_trip)
{
    tmpdir_make();
    for (int layout = 0; layout < 2; layout++) {
        cp_stat_file s = {.layout = layout};
        double v[] = {1.0 / 3, 2.0 / 7, 1e-9, 12345.678901234567, 0, 5.5e-11, 3.14159265358979};
        cp_stat_pattern *p = cp_stat_file_add(&s, "mpi_wait_nxn");
        cp_stat_summarize(p, v, sizeof v / sizeof *v);
        p->metric_id = 7;
        cp_stat_event e = {101, 0.123456789012345, 12346.0, 12345.678901234567, 3};
        cp_stat_offer_event(p, &e);
        e = (cp_stat_event){102, -1e-12, 1.0 / 3, 1.0 / 3, 0}; /* enter prints as 0 */
        cp_stat_offer_event(p, &e);
        p = cp_stat_file_add(&s, "mpi_earlyscan"); /* count 0 */
        p->metric_id = 0;
        p = cp_stat_file_add(&s,
                             "name.with:punctuation/and+more_63_characters_long_xxxxxxxxxxxxxxxx");
        ck_assert_uint_eq(strlen(p->name), 63);
        p->metric_id = 9223372036854775807;
        double w[] = {1e150, 2e150};
        cp_stat_summarize(p, w, 2);
        char *text = write_text(&s);
        cp_stat_file g;
        parse_ok(text, &g);
        ck_assert(cp_stat_file_equal(&s, &g));
        ck_assert(cp_stat_file_equal(&g, &s));
        char *again = write_text(&g);
        ck_assert_str_eq(text, again);
        free(again);
        free(text);

        /* Unequal on what the file carries... */
        g.patterns[0].mean += 1e-6;
        ck_assert(!cp_stat_file_equal(&s, &g));
        g.patterns[0].mean -= 1e-6;
        ck_assert(cp_stat_file_equal(&s, &g));
        g.patterns[0].events[1].duration += 1e-9;
        ck_assert(!cp_stat_file_equal(&s, &g));
        g.patterns[0].events[1].duration -= 1e-9;
        g.patterns[1].count = 1;
        ck_assert(!cp_stat_file_equal(&s, &g));
        g.patterns[1].count = 0;
        /* ...and equal on what it does not: digits past the precision,
         * variance and quartiles that a small count does not write, the
         * metric id / rank of the other layout. */
        g.patterns[0].mean += 1e-12;
        g.patterns[1].variance = 5;
        g.patterns[1].q25 = 5;
        if (layout == CP_STAT_LAYOUT_CUBEGUI)
            g.patterns[0].metric_id = 99;
        else
            g.patterns[0].events[0].rank = 99;
        ck_assert(cp_stat_file_equal(&s, &g));
        g.layout = !layout;
        ck_assert(!cp_stat_file_equal(&s, &g));
        cp_stat_file_free(&g);
        cp_stat_file_free(&s);
    }
    tmpdir_remove();
}
END_TEST

START_TEST(gzip_read_and_missing_file)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.stat.gz", tmpdir);
    cp_error err;
    cp_out *o = cp_out_open(path, true, &err);
    ck_assert_ptr_nonnull(o);
    cp_stat_file s = sample(CP_STAT_LAYOUT_CUBEGUI);
    ck_assert_int_eq(cp_stat_write_out(o, &s, &err), 0);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    cp_stat_file g;
    ck_assert_msg(cp_stat_read(path, &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_stat_file_equal(&s, &g));
    cp_stat_file_free(&g);
    cp_stat_file_free(&s);
    ck_assert_int_eq(cp_stat_read("no-such-tmpdir/profile.stat", &g, &err), -1);
    ck_assert_ptr_null(g.patterns);
    ck_assert_str_eq(err.msg, "no-such-tmpdir/profile.stat: cannot open: No such file or directory");
    tmpdir_remove();
}
END_TEST

/* ----------------------------------------- CubeGUI's reading rules */

/* An independent reader of the CubeGUI layout written after the rules of
 * CubeGUI's statistics plugin (a C++ stream reader), not after our parser:
 * skip the first line; then repeatedly read a name token and a count; if
 * the next non-blank character is not '-', read mean, median, minimum,
 * maximum and sum, the variance when count >= 2, both quartiles when
 * count >= 5; then while the next non-blank character is '-', read an event
 * token by token: "-", "cnode:" C, "enter:" T, "exit:" T, "duration:" D,
 * "rank:" R, and ignore the rest of its line. */
typedef struct gui_stream {
    const char *p;
    bool fail;
} gui_stream;

static void gui_ws(gui_stream *g)
{
    while (*g->p == ' ' || *g->p == '\n')
        g->p++;
}

static void gui_token(gui_stream *g, char *buf, size_t size)
{
    while (*g->p == ' ' || *g->p == '\n' || *g->p == '\t')
        g->p++;
    size_t n = 0;
    while (*g->p && *g->p != ' ' && *g->p != '\n' && *g->p != '\t') {
        if (n + 1 < size)
            buf[n++] = *g->p;
        g->p++;
    }
    buf[n] = '\0';
    if (n == 0)
        g->fail = true;
}

static double gui_double(gui_stream *g)
{
    char t[128], *end;
    gui_token(g, t, sizeof t);
    double v = strtod(t, &end);
    if (*end)
        g->fail = true;
    return v;
}

static long long gui_int(gui_stream *g)
{
    char t[128], *end;
    gui_token(g, t, sizeof t);
    long long v = strtoll(t, &end, 10);
    if (*end)
        g->fail = true;
    return v;
}

static void gui_expect(gui_stream *g, const char *word)
{
    char t[128];
    gui_token(g, t, sizeof t);
    if (strcmp(t, word) != 0)
        g->fail = true;
}

/* Read text as the GUI does into out (CubeGUI layout). */
static void gui_read(const char *text, cp_stat_file *out)
{
    memset(out, 0, sizeof *out);
    gui_stream g = {strchr(text, '\n'), false};
    ck_assert_ptr_nonnull(g.p);
    g.p++;
    gui_ws(&g);
    while (*g.p) {
        char name[128];
        gui_token(&g, name, sizeof name);
        cp_stat_pattern *p = cp_stat_file_add(out, name);
        p->count = (uint64_t)gui_int(&g);
        gui_ws(&g);
        ck_assert_msg(*g.p != '-', "pattern %s without statistics", name);
        p->mean = gui_double(&g);
        p->median = gui_double(&g);
        p->minimum = gui_double(&g);
        p->maximum = gui_double(&g);
        p->sum = gui_double(&g);
        if (p->count >= 2)
            p->variance = gui_double(&g);
        if (p->count >= 5) {
            p->q25 = gui_double(&g);
            p->q75 = gui_double(&g);
        }
        gui_ws(&g);
        while (*g.p == '-') {
            gui_expect(&g, "-");
            ck_assert_uint_lt(p->nevents, CP_STAT_MAX_EVENTS);
            cp_stat_event *e = &p->events[p->nevents++];
            gui_expect(&g, "cnode:");
            e->cnode = gui_int(&g);
            gui_expect(&g, "enter:");
            e->enter = gui_double(&g);
            gui_expect(&g, "exit:");
            e->exit = gui_double(&g);
            gui_expect(&g, "duration:");
            e->duration = gui_double(&g);
            gui_expect(&g, "rank:");
            e->rank = gui_int(&g);
            /* the rest of the line: nothing may be left on it */
            while (*g.p == ' ')
                g.p++;
            ck_assert_msg(*g.p == '\n', "pattern %s: more after the rank: '%.20s'", name, g.p);
            gui_ws(&g);
        }
        ck_assert_msg(!g.fail, "the GUI's reading rules fail in pattern %s", name);
    }
}

START_TEST(cube_gui_reading_rules)
{
    tmpdir_make();
    cp_stat_file s = sample(CP_STAT_LAYOUT_CUBEGUI);
    /* and a few more shapes: count 0, 2, 5 exactly, large values */
    cp_stat_pattern *p = add(&s, "mpi_earlyscan", 0, 0, 0, 0, 0, 0, 0, 0, 0);
    double v2[] = {0.5, 1.5};
    p = cp_stat_file_add(&s, "count_two");
    cp_stat_summarize(p, v2, 2);
    event(p, 1, 100.0, 101.5, 1.5, 12);
    event(p, 2, 100.0, 100.5, 0.5, 13);
    double v5[] = {1e6, 2e6, 3e6, 4e6, 5.5e6};
    p = cp_stat_file_add(&s, "count_five");
    cp_stat_summarize(p, v5, 5);
    event(p, 0, 0, 5.5e6, 5.5e6, 1023);
    char *text = write_text(&s);
    cp_stat_file g;
    gui_read(text, &g);
    /* every value back, without loss or shift; ranks and all */
    s.layout = g.layout = CP_STAT_LAYOUT_CUBEGUI;
    for (size_t i = 0; i < s.npatterns; i++)
        g.patterns[i].metric_id = s.patterns[i].metric_id;
    ck_assert(cp_stat_file_equal(&s, &g));
    ck_assert_uint_eq(g.patterns[5].count, 0);
    ck_assert_double_eq(g.patterns[6].variance, 0.5);
    ck_assert_double_eq(g.patterns[7].q75, 4e6);
    ck_assert_int_eq(g.patterns[7].events[0].rank, 1023);
    cp_stat_file_free(&g);
    free(text);
    cp_stat_file_free(&s);
    tmpdir_remove();
}
END_TEST

/* ----------------------------------------------------- the statistics */

START_TEST(summarize_known_data)
{
    cp_stat_pattern p;
    cp_stat_pattern_init(&p, "x");
    ck_assert_int_eq(p.metric_id, -1);
    double v[] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
    cp_stat_summarize(&p, v, 10);
    for (int i = 0; i < 10; i++)
        ck_assert_double_eq(v[i], i + 1); /* sorted in place */
    ck_assert_uint_eq(p.count, 10);
    ck_assert_double_eq(p.sum, 55);
    ck_assert_double_eq(p.mean, 5.5);
    ck_assert_double_eq(p.median, 5.5);
    ck_assert_double_eq(p.minimum, 1);
    ck_assert_double_eq(p.maximum, 10);
    ck_assert_double_eq_tol(p.variance, 9.166666666666666, 1e-12);
    ck_assert_double_eq(p.q25, 3.25);
    ck_assert_double_eq(p.q75, 7.75);
    ck_assert_str_eq(p.name, "x");
    ck_assert_uint_eq(p.nevents, 0);

    double a[] = {5, 4, 3, 2, 1};
    cp_stat_summarize(&p, a, 5);
    ck_assert_double_eq(p.median, 3);
    ck_assert_double_eq(p.variance, 2.5);
    ck_assert_double_eq(p.q25, 2);
    ck_assert_double_eq(p.q75, 4);

    double b[] = {7, 1, 3, 9, 2, 8};
    cp_stat_summarize(&p, b, 6);
    ck_assert_double_eq(p.mean, 5);
    ck_assert_double_eq(p.median, 5);
    ck_assert_double_eq_tol(p.variance, 11.6, 1e-12);
    ck_assert_double_eq(p.q25, 2.25);
    ck_assert_double_eq(p.q75, 7.75);

    /* count 2-4: variance, no quartiles */
    double c[] = {0.5, 0.1, 0.3, 0.2};
    p.q25 = p.q75 = 99;
    cp_stat_summarize(&p, c, 4);
    ck_assert_double_eq_tol(p.mean, 0.275, 1e-15);
    ck_assert_double_eq_tol(p.median, 0.25, 1e-15);
    ck_assert_double_eq_tol(p.variance, 0.029166666666666664, 1e-15);
    ck_assert_double_eq(p.q25, 0);
    ck_assert_double_eq(p.q75, 0);

    /* count 1: neither */
    double d[] = {0.75};
    cp_stat_summarize(&p, d, 1);
    ck_assert_uint_eq(p.count, 1);
    ck_assert_double_eq(p.mean, 0.75);
    ck_assert_double_eq(p.median, 0.75);
    ck_assert_double_eq(p.minimum, 0.75);
    ck_assert_double_eq(p.maximum, 0.75);
    ck_assert_double_eq(p.sum, 0.75);
    ck_assert_double_eq(p.variance, 0);

    /* count 0 */
    cp_stat_summarize(&p, NULL, 0);
    ck_assert_uint_eq(p.count, 0);
    ck_assert_double_eq(p.mean, 0);
    ck_assert_double_eq(p.maximum, 0);
    ck_assert_double_eq(p.sum, 0);

    /* a million small waits after a large one: the sum keeps its digits */
    size_t n = 1000001;
    double *many = malloc(n * sizeof *many);
    many[0] = 1e6;
    for (size_t i = 1; i < n; i++)
        many[i] = 1e-7;
    cp_stat_summarize(&p, many, n);
    ck_assert_double_eq_tol(p.sum, 1e6 + 0.1, 1e-9);
    ck_assert_double_eq(p.median, 1e-7);
    ck_assert_double_eq(p.maximum, 1e6);
    free(many);
}
END_TEST

/* ------------------------------------------ most severe instances */

static void offer(cp_stat_pattern *p, int64_t cnode, double dur, double tag)
{
    cp_stat_event e = {cnode, tag, tag + dur, dur, cnode + 100};
    cp_stat_offer_event(p, &e);
}

static void assert_events(const cp_stat_pattern *p, const int64_t *cnodes, const double *tags,
                          size_t n)
{
    ck_assert_uint_eq(p->nevents, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(p->events[i].cnode, cnodes[i]);
        ck_assert_double_eq(p->events[i].enter, tags[i]);
    }
}

START_TEST(offer_event_rules)
{
    cp_stat_pattern p;
    cp_stat_pattern_init(&p, "mpi_wait_nxn");
    offer(&p, 1, 0.5, 0);
    offer(&p, 2, 0.7, 1);
    offer(&p, 3, 0.6, 2);
    assert_events(&p, (int64_t[]){2, 3, 1}, (double[]){1, 2, 0}, 3);
    /* the same cnode: less or as severe is ignored (ties keep the earlier),
     * more severe replaces and moves up */
    offer(&p, 1, 0.4, 3);
    offer(&p, 1, 0.5, 4);
    assert_events(&p, (int64_t[]){2, 3, 1}, (double[]){1, 2, 0}, 3);
    offer(&p, 1, 0.65, 5);
    assert_events(&p, (int64_t[]){2, 1, 3}, (double[]){1, 5, 2}, 3);
    ck_assert_int_eq(p.events[1].rank, 101);
    /* ties between cnodes: the earlier first */
    offer(&p, 4, 0.6, 6);
    assert_events(&p, (int64_t[]){2, 1, 3, 4}, (double[]){1, 5, 2, 6}, 4);
    offer(&p, 5, 0.1, 7);
    assert_events(&p, (int64_t[]){2, 1, 3, 4, 5}, (double[]){1, 5, 2, 6, 7}, 5);
    /* full: as severe as the last is not taken, more severe drops the last */
    offer(&p, 6, 0.1, 8);
    assert_events(&p, (int64_t[]){2, 1, 3, 4, 5}, (double[]){1, 5, 2, 6, 7}, 5);
    offer(&p, 6, 0.9, 9);
    assert_events(&p, (int64_t[]){6, 2, 1, 3, 4}, (double[]){9, 1, 5, 2, 6}, 5);
    /* full, a listed cnode becomes more severe: no other is dropped */
    offer(&p, 4, 0.8, 10);
    assert_events(&p, (int64_t[]){6, 4, 2, 1, 3}, (double[]){9, 10, 1, 5, 2}, 5);
    /* the last's cnode again, less severe: nothing */
    offer(&p, 3, 0.59, 11);
    assert_events(&p, (int64_t[]){6, 4, 2, 1, 3}, (double[]){9, 10, 1, 5, 2}, 5);
    ck_assert_uint_eq(p.count, 0); /* nothing else changes */
}
END_TEST

/* Against a plain reference: the most severe (first on ties) instance of
 * each cnode, those ordered by severity and then by when they came, the
 * first CP_STAT_MAX_EVENTS.  Small integer severities force ties. */
START_TEST(offer_event_reference)
{
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        cp_stat_pattern p;
        cp_stat_pattern_init(&p, "x");
        enum { NC = 12, N = 150 };
        double best[NC] = {0};
        int when[NC];
        for (int c = 0; c < NC; c++)
            when[c] = -1;
        for (int t = 0; t < N; t++) {
            seed = seed * 1103515245u + 12345u;
            int c = (int)((seed >> 16) % (round % 3 == 0 ? 4 : NC));
            seed = seed * 1103515245u + 12345u;
            double d = (double)((seed >> 16) % 6);
            offer(&p, c, d, t);
            if (when[c] < 0 || d > best[c]) {
                best[c] = d;
                when[c] = t;
            }
            /* reference: selection sort by (severity desc, time asc) */
            bool used[NC] = {false};
            size_t k = 0;
            for (; k < CP_STAT_MAX_EVENTS; k++) {
                int pick = -1;
                for (int q = 0; q < NC; q++) {
                    if (when[q] < 0 || used[q])
                        continue;
                    if (pick < 0 || best[q] > best[pick] ||
                        (best[q] == best[pick] && when[q] < when[pick]))
                        pick = q;
                }
                if (pick < 0)
                    break;
                used[pick] = true;
                ck_assert_uint_gt(p.nevents, k);
                ck_assert_int_eq(p.events[k].cnode, pick);
                ck_assert_double_eq(p.events[k].duration, best[pick]);
                ck_assert_double_eq(p.events[k].enter, when[pick]);
            }
            ck_assert_uint_eq(p.nevents, k);
        }
    }
}
END_TEST

/* ------------------------------------------------- writer refusals */

START_TEST(writer_refuses)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.stat", tmpdir);
    for (int c = 0; c < 19; c++) {
        cp_stat_file s = sample(CP_STAT_LAYOUT_CUBEGUI);
        cp_stat_pattern *p = &s.patterns[2]; /* count 3, three events */
        const char *want = "";
        switch (c) {
        case 0:
            p->name[0] = '\0';
            want = "empty name";
            break;
        case 1:
            memset(p->name, 'a', sizeof p->name);
            want = "longer than 63";
            break;
        case 2:
            strcpy(p->name, "two words");
            want = "blank";
            break;
        case 3:
            strcpy(p->name, "-x");
            want = "starting with '-'";
            break;
        case 4:
            strcpy(p->name, "mpi_wait_nxn");
            want = "pattern 0 has the same name";
            break;
        case 5:
            p->mean = -0.5;
            want = "Mean -0.5";
            break;
        case 6:
            p->variance = NAN;
            want = "Variance nan";
            break;
        case 7:
            p->sum = INFINITY;
            want = "Sum inf";
            break;
        case 8:
            p->minimum = 0.5;
            want = "minimum 0.5 is larger than maximum 0.4";
            break;
        case 9:
            p->count = 2;
            want = "3 events for a count of 2";
            break;
        case 10:
            p->nevents = 6;
            p->count = 10;
            want = "6 events (at most 5)";
            break;
        case 11:
            p->events[2].duration = 0.3;
            want = "event 2 is more severe than event 1";
            break;
        case 12:
            p->events[2].cnode = 7;
            want = "events 0 and 2: cnode 7 twice";
            break;
        case 13:
            p->events[1].cnode = -1;
            want = "event 1: negative cnode";
            break;
        case 14:
            p->events[0].rank = -1;
            want = "event 0: negative rank -1 (CubeGUI layout)";
            break;
        case 15:
            p->events[0].exit = 2.0;
            want = "event 0: exit 2 before enter 2.5";
            break;
        case 16:
            p->events[2].duration = 0.05;
            want = "event 2: duration 0.05 outside";
            break;
        case 17:
            p->events[0].enter = NAN;
            want = "event 0: a time that is not finite";
            break;
        case 18:
            s.layout = CP_STAT_LAYOUT_DOCUMENTED;
            p->metric_id = -1;
            want = "negative metric id -1";
            break;
        }
        cp_error err = {{0}};
        ck_assert_msg(cp_stat_write(path, &s, &err) == -1, "case %d written", c);
        char prefix[8300];
        snprintf(prefix, sizeof prefix, "%s: pattern 2 (", path);
        ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0, "case %d: '%s'", c, err.msg);
        ck_assert_msg(strstr(err.msg, want), "case %d: want '%s' in '%s'", c, want, err.msg);
        ck_assert_int_eq(tmpdir_entries(), 0); /* nothing left behind */
        char *t = (char *)1;
        size_t len = 1;
        ck_assert_int_eq(cp_stat_format(&s, &t, &len, &err), -1);
        ck_assert_ptr_null(t);
        ck_assert(strncmp(err.msg, "stat file: pattern 2 (", 22) == 0);
        cp_stat_file_free(&s);
    }
    /* what the documented layout does not carry is not checked there */
    cp_stat_file s = sample(CP_STAT_LAYOUT_DOCUMENTED);
    s.patterns[0].events[0].rank = -1;
    cp_error err;
    ck_assert_int_eq(cp_stat_write(path, &s, &err), 0);
    s.layout = 7;
    ck_assert_int_eq(cp_stat_write(path, &s, &err), -1);
    ck_assert(strstr(err.msg, "unknown layout 7"));
    cp_stat_file_free(&s);
    tmpdir_remove();
}
END_TEST

/* ---------------------------------------------- accepted variants */

START_TEST(accepted_variants)
{
    /* Other widths, tabs, CRLF, several empty lines, blanks-only lines, more
     * decimals, exponents, a final empty line without '\n'. */
    const char *text =
        "PatternName\tCount Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75  \r\n"
        "\r\n"
        "mpi_wait_nxn 2 0.5 0.5 2.5e-1 7.5E-1 1 0.125000000000001\r\n"
        "-   cnode: 4\tenter: 1 exit: 2.0 duration: 0.75 rank: 0   \r\n"
        "- cnode: 5 enter: -0.25 exit: 1e0 duration: .25 rank: 1\r\n"
        "  \t \r\n"
        "\n"
        "mpi_barrier_wait 0 0 0 0 0 0\n"
        " ";
    cp_stat_file s;
    parse_ok(text, &s);
    ck_assert_int_eq(s.layout, CP_STAT_LAYOUT_CUBEGUI);
    ck_assert_uint_eq(s.npatterns, 2);
    const cp_stat_pattern *p = &s.patterns[0];
    ck_assert_double_eq(p->minimum, 0.25);
    ck_assert_double_eq(p->maximum, 0.75);
    ck_assert_double_eq(p->variance, 0.125000000000001);
    ck_assert_uint_eq(p->nevents, 2);
    ck_assert_double_eq(p->events[1].enter, -0.25);
    ck_assert_double_eq(p->events[1].duration, 0.25);
    ck_assert_int_eq(p->events[1].rank, 1);
    ck_assert_uint_eq(s.patterns[1].count, 0);
    ck_assert_int_eq(s.patterns[1].metric_id, -1);
    cp_stat_file_free(&s);

    /* documented layout: metric ids, rank -1 */
    parse_ok("PatternName MetricID Count Mean Median Minimum Maximum Sum Variance Quartil25 "
             "Quartil75\n"
             "mpi_latebroadcast 17 1 2 2 2 2 2\n"
             "- cnode: 0 enter: 0 exit: 2 duration: 2\n\n",
             &s);
    ck_assert_int_eq(s.layout, CP_STAT_LAYOUT_DOCUMENTED);
    ck_assert_int_eq(s.patterns[0].metric_id, 17);
    ck_assert_int_eq(s.patterns[0].events[0].rank, -1);
    cp_stat_file_free(&s);

    /* a header only, without its '\n' */
    parse_ok("PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75", &s);
    ck_assert_uint_eq(s.npatterns, 0);
}
END_TEST

/* ------------------------------------------------------------ malformed */

struct bad_case {
    const char *text;
    long line;
    const char *msg; /* must appear in the message */
};

#define HDR "PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75\n"
#define DHDR                                                                                       \
    "PatternName MetricID Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75\n"
#define P1 "mpi_wait_nxn 1 0.5 0.5 0.5 0.5 0.5\n"
#define E1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: 0\n"
#define P3 "mpi_wait_nxn 3 0.5 0.5 0.25 0.75 1.5 0.0625\n"
#define E3(c, d) "- cnode: " #c " enter: 1 exit: 2 duration: " #d " rank: 0\n"

static const struct bad_case bad_cases[] = {
    /* header */
    {"", 1,
     "expected the header line 'PatternName Count Mean Median Minimum Maximum Sum "
     "Variance Quartil25 Quartil75' or 'PatternName MetricID Count"},
    {"\n" HDR, 1, "expected the header line"},
    {"PatternName Count Mean\n", 1, "found 'PatternName Count Mean'"},
    {"PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75 X\n", 1,
     "expected the header line"},
    {"PatternName Count MetricID Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75\n", 1,
     "(documented layout)"},
    {P1 "\n", 1, "expected the header line"},
    /* the column rule */
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 0.5 0.5 0\n\n", 2,
     "pattern 'mpi_wait_nxn' with Count 1: expected 7 columns (PatternName Count Mean Median "
     "Minimum Maximum Sum), found 8"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 0.5\n\n", 2, "expected 7 columns"},
    {HDR "mpi_wait_nxn 2 0.5 0.5 0.25 0.75 1\n\n", 2,
     "with Count 2: expected 8 columns (PatternName Count Mean Median Minimum Maximum Sum "
     "Variance), found 7"},
    {HDR "mpi_wait_nxn 4 0.5 0.5 0.25 0.75 2 0.1 0.3 0.6\n\n", 2,
     "with Count 4: expected 8 columns"},
    {HDR "mpi_wait_nxn 5 0.5 0.5 0.25 0.75 2.5 0.1\n\n", 2,
     "with Count 5: expected 10 columns (PatternName Count Mean Median Minimum Maximum Sum "
     "Variance Quartil25 Quartil75), found 8"},
    {HDR "mpi_wait_nxn 5 0.5 0.5 0.25 0.75 2.5 0.1 0.3 0.6 0.9\n\n", 2, "found 11"},
    {DHDR "mpi_wait_nxn 3 1 0.5 0.5 0.5 0.5 0.5 1\n\n", 2,
     "with Count 1: expected 8 columns (PatternName MetricID Count Mean Median Minimum Maximum "
     "Sum), found 9"},
    {DHDR P1 "\n", 2,
     "pattern 'mpi_wait_nxn': Count: expected a non-negative integer, found '0.5'"},
    {HDR "mpi_wait_nxn\n\n", 2, "pattern 'mpi_wait_nxn': expected its Count after the name"},
    {DHDR "mpi_wait_nxn\n\n", 2, "expected its MetricID and Count after the name"},
    {DHDR "mpi_wait_nxn 3\n\n", 2, "expected its Count after the MetricID"},
    /* values */
    {HDR "mpi_wait_nxn 1.5 0.5 0.5 0.5 0.5 0.5\n\n", 2,
     "Count: expected a non-negative integer, found '1.5'"},
    {HDR "mpi_wait_nxn 1e1 0.5 0.5 0.5 0.5 0.5\n\n", 2, "Count: expected a non-negative integer"},
    {HDR "mpi_wait_nxn -1 0.5 0.5 0.5 0.5 0.5\n\n", 2, "Count: negative number, found '-1'"},
    {HDR "mpi_wait_nxn 18446744073709551616 0.5 0.5 0.5 0.5 0.5\n\n", 2, "Count: number too large"},
    {DHDR "mpi_wait_nxn x 1 0.5 0.5 0.5 0.5 0.5\n\n", 2,
     "MetricID: expected a non-negative integer, found 'x'"},
    {DHDR "mpi_wait_nxn -2 1 0.5 0.5 0.5 0.5 0.5\n\n", 2, "MetricID: negative number"},
    {DHDR "mpi_wait_nxn 9223372036854775808 1 0.5 0.5 0.5 0.5 0.5\n\n", 2,
     "MetricID: number too large"},
    {HDR "mpi_wait_nxn 1 abc 0.5 0.5 0.5 0.5\n\n", 2,
     "pattern 'mpi_wait_nxn': Mean: expected a non-negative number, found 'abc'"},
    {HDR "mpi_wait_nxn 1 0.5 -0.5 0.5 0.5 0.5\n\n", 2, "Median: negative value, found '-0.5'"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 0.5 -0\n\n", 2, "Sum: negative value"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 0.5 nan\n\n", 2, "Sum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 inf 0.5\n\n", 2, "Maximum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 1e999 0.5\n\n", 2, "Maximum: number out of range"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.5 0.5 0x1p1\n\n", 2, "Sum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 . 0.5 0.5\n\n", 2, "Minimum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 1e 0.5 0.5\n\n", 2, "Minimum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 +1 0.5 0.5\n\n", 2, "Minimum: expected a non-negative number"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 1,5 0.5 0.5\n\n", 2, "found '1,5'"},
    {HDR "mpi_wait_nxn 3 0.5 0.5 0.25 0.75 1.5 -1\n\n", 2, "Variance: negative value"},
    {HDR "mpi_wait_nxn 5 0.5 0.5 0.25 0.75 2.5 0.1 0.3 x\n\n", 2,
     "Quartil75: expected a non-negative number, found 'x'"},
    {HDR "mpi_wait_nxn 1 0.5 0.5 0.75 0.5 0.5\n\n", 2, "Minimum 0.75 is larger than Maximum 0.5"},
    /* names */
    {HDR "mpi_wait_nxn_with_a_name_that_is_far_too_long_for_the_model_xxxxxx 1 0.5 0.5 0.5 0.5 "
         "0.5\n\n",
     2, "pattern name longer than 63 characters"},
    {HDR "mpi_\x01wait 1 0.5 0.5 0.5 0.5 0.5\n\n", 2,
     "printable ASCII characters only, found "
     "'mpi_?wait'"},
    {HDR "mpi_w\xc3\xa4it 1 0.5 0.5 0.5 0.5 0.5\n\n", 2, "printable ASCII"},
    {HDR P1 E1 "\n" P1 E1 "\n", 5, "pattern 'mpi_wait_nxn' appears twice (lines 2 and 5)"},
    /* event lines */
    {HDR E1, 2,
     "expected a pattern line 'NAME COUNT MEAN ...' (event lines follow their "
     "pattern line directly), found '- cnode: 1"},
    {HDR P1 "\n" E1, 4, "expected a pattern line"},
    {DHDR "- cnode: 1 enter: 1 exit: 2 duration: 0.5\n", 2,
     "expected a pattern line 'NAME METRICID COUNT MEAN ...'"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5\n\n", 3,
     "expected '- cnode: C enter: T exit: T duration: D rank: R', found '- cnode: 1 enter: 1 "
     "exit: 2 duration: 0.5'"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: 0 more\n\n", 3,
     "expected '- cnode: C enter: T exit: T duration: D rank: R'"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank 0\n\n", 3, "expected '- cnode:"},
    {HDR P1 "-cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: 0 x\n\n", 3, "expected '- cnode:"},
    {HDR P1 "- cnode 1 enter: 1 exit: 2 duration: 0.5 rank: 0\n\n", 3, "expected '- cnode:"},
    {HDR P1 "- cnode: 1 exit: 1 enter: 2 duration: 0.5 rank: 0\n\n", 3, "expected '- cnode:"},
    {DHDR "mpi_wait_nxn 0 1 0.5 0.5 0.5 0.5 0.5\n" E1 "\n", 3,
     "expected '- cnode: C enter: T exit: T duration: D' (documented layout: no rank), found "
     "'rank:' (the MetricID header says: documented layout)"},
    {HDR P1 "- cnode: x enter: 1 exit: 2 duration: 0.5 rank: 0\n\n", 3,
     "cnode: expected a non-negative integer, found 'x'"},
    {HDR P1 "- cnode: -1 enter: 1 exit: 2 duration: 0.5 rank: 0\n\n", 3, "cnode: negative number"},
    {HDR P1 "- cnode: 1 enter: a exit: 2 duration: 0.5 rank: 0\n\n", 3,
     "enter: expected a number, found 'a'"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2x duration: 0.5 rank: 0\n\n", 3,
     "exit: expected a number, found '2x'"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: -0.5 rank: 0\n\n", 3,
     "duration: negative value"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: -3\n\n", 3, "rank: negative number"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: 1.0\n\n", 3,
     "rank: expected a non-negative integer, found '1.0'"},
    {HDR P1 "- cnode: 1 enter: 2 exit: 1.5 duration: 0.5 rank: 0\n\n", 3,
     "exit 1.5 is before enter 2"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.6 rank: 0\n\n", 3,
     "duration 0.6 is outside [Minimum, Maximum] of pattern 'mpi_wait_nxn'"},
    {HDR P3 E3(1, 0.2) "\n", 3, "duration 0.2 is outside"},
    {HDR P3 E3(1, 0.5) E3(1, 0.5) "\n", 4,
     "pattern 'mpi_wait_nxn': cnode 1 is listed twice (lines 3 and 4; at most one event per "
     "cnode)"},
    {HDR P3 E3(1, 0.5) E3(2, 0.75) "\n", 4,
     "events must be listed most severe first, duration 0.75 follows a smaller one"},
    {HDR P3 E3(1, 0.75) E3(2, 0.5) E3(3, 0.5) E3(4, 0.5) "\n", 6,
     "pattern 'mpi_wait_nxn': more events than its Count 3"},
    {HDR P1 E1 E3(2, 0.5) "\n", 4, "more events than its Count 1"},
    {HDR "mpi_wait_nxn 0 0 0 0 0 0\n" E1 "\n", 3, "more events than its Count 0"},
    {HDR "mpi_wait_nxn 9 0.5 0.5 0.25 0.75 1.5 0.1 0.3 0.6\n" E3(1, 0.5) E3(2, 0.5) E3(3, 0.5)
         E3(4, 0.5) E3(5, 0.5) E3(6, 0.5) "\n",
     8, "pattern 'mpi_wait_nxn': more than 5 events (the file lists the 5 most severe)"},
    /* the empty line that ends a pattern */
    {HDR P1 P1, 3,
     "expected an event line '- cnode: ...' or an empty line (the end of pattern "
     "'mpi_wait_nxn'), found 'mpi_wait_nxn 1 0.5"},
    {HDR P1 E1 "mpi_barrier_wait 1 0.5 0.5 0.5 0.5 0.5\n\n", 4, "expected an event line"},
    {HDR P1, 2,
     "unexpected end of file: pattern 'mpi_wait_nxn' is not ended by an empty line "
     "(truncated file?)"},
    {HDR P1 E1, 3, "unexpected end of file"},
    {HDR P1 "- cnode: 1 enter: 1 exit: 2 duration: 0.5 rank: 0", 3, "unexpected end of file"},
    /* not text */
    {HDR P1 "- cnode: 1\0 enter: 1 exit: 2 duration: 0.5 rank: 0\n\n", 3, "NUL byte inside a line"},
};
enum { NBAD = sizeof bad_cases / sizeof *bad_cases };

START_TEST(malformed)
{
    const struct bad_case *c = &bad_cases[_i];
    size_t len = strlen(c->text);
    if (strstr(c->msg, "NUL"))
        len += 1 + strlen(c->text + len + 1);
    cp_stat_file s;
    cp_error err;
    memset(&err, 0, sizeof err);
    int rc = parse_text(c->text, len, "bad.stat", &s, &err);
    ck_assert_msg(rc == -1, "case %d accepted", _i);
    ck_assert_ptr_null(s.patterns);
    ck_assert_uint_eq(s.npatterns, 0);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bad.stat:%ld: ", c->line);
    ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0, "case %d: want line %ld, got '%s'",
                  _i, c->line, err.msg);
    ck_assert_msg(strstr(err.msg, c->msg) != NULL, "case %d: want '%s' in '%s'", _i, c->msg,
                  err.msg);
}
END_TEST

/* ----------------------------------------------------------- truncation */

/* Every prefix of a valid file parses to its first complete patterns
 * (the empty line that ends a pattern tells a complete one), or is rejected
 * with a message naming the input; never a crash (under ASan: parse_text
 * hands over an exactly-sized copy). */
START_TEST(truncated)
{
    tmpdir_make();
    for (int layout = 0; layout < 2; layout++) {
        cp_stat_file full = sample(layout);
        char *text = write_text(&full);
        size_t len = strlen(text), accepted = 0, rejected = 0;
        for (size_t off = 0; off <= len; off++) {
            cp_stat_file s;
            cp_error err;
            memset(&err, 0, sizeof err);
            if (parse_text(text, off, "cut.stat", &s, &err) == 0) {
                ck_assert_int_eq(s.layout, layout);
                ck_assert_msg(s.npatterns <= full.npatterns, "offset %zu", off);
                cp_stat_file head = full;
                head.npatterns = s.npatterns;
                ck_assert_msg(cp_stat_file_equal(&s, &head), "offset %zu: not a prefix", off);
                /* only at the end of the header or of a pattern */
                ck_assert_msg(text[off - 1] == '\n' || off == strcspn(text, "\n"),
                              "offset %zu accepted in the middle of a line", off);
                if (off == len)
                    ck_assert_uint_eq(s.npatterns, full.npatterns);
                cp_stat_file_free(&s);
                accepted++;
            } else {
                ck_assert_msg(strncmp(err.msg, "cut.stat:", 9) == 0, "offset %zu: '%s'", off,
                              err.msg);
                ck_assert_ptr_null(s.patterns);
                rejected++;
            }
        }
        /* the header (with and without '\n') and each of the 5 patterns */
        ck_assert_uint_eq(accepted, 2 + full.npatterns);
        ck_assert_uint_gt(rejected, len / 2);
        free(text);
        cp_stat_file_free(&full);
    }
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stat");
    TCase *tc = tcase_create("stat");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, exact_text_cubegui);
    tcase_add_test(tc, exact_text_documented);
    tcase_add_test(tc, empty_file);
    tcase_add_test(tc, columns_by_count);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, gzip_read_and_missing_file);
    tcase_add_test(tc, cube_gui_reading_rules);
    tcase_add_test(tc, summarize_known_data);
    tcase_add_test(tc, offer_event_rules);
    tcase_add_test(tc, offer_event_reference);
    tcase_add_test(tc, writer_refuses);
    tcase_add_test(tc, accepted_variants);
    tcase_add_loop_test(tc, malformed, 0, NBAD);
    tcase_add_test(tc, truncated);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
