/*
 * Cube statistics file `profile.stat`: writer and parser (stat.h,
 * docs/formats.md), and the statistics the runtime puts into it.
 *
 * One grammar, in one place.  A file is
 *
 *   header     "PatternName Count Mean Median Minimum Maximum Sum Variance
 *               Quartil25 Quartil75"           (CubeGUI layout), or the same
 *               with "MetricID" after "PatternName" (documented layout)
 *   pattern*   each:
 *     NAME [METRICID] COUNT MEAN MEDIAN MINIMUM MAXIMUM SUM
 *          [VARIANCE: COUNT >= 2] [QUARTIL25 QUARTIL75: COUNT >= 5]
 *     ("- cnode: C enter: T exit: T duration: D [rank: R]")*   at most 5
 *     ""                                         an empty line ends it
 *
 * The column rule is the one that matters: CubeGUI's statistics plugin
 * skips the first line and then reads tokens, deciding by COUNT how many
 * values follow, so a column too many or too few shifts everything after
 * it.  Its event reader takes the two tokens after the duration as
 * "rank: R"; without them it swallows the next line, hence "rank:" in every
 * event line of the CubeGUI layout.  A line starting with '-' is an event to
 * the GUI, so no statistic may be negative (the writer refuses them).
 *
 * The parser is strict (every error is "<input>:<line>: expected ...") and
 * also insists on the empty line that ends each pattern: that is what tells
 * a complete file from one cut off inside a pattern.  Nothing is read
 * outside the line buffer that textio hands over (the parser is fuzzed).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "stat.h"
#include "grow.h"

#define NAME_MAX_LEN (sizeof(((cp_stat_pattern *)0)->name) - 1)

/* The header's column names; the documented layout has "MetricID" after the
 * first. */
static const char *const columns[] = {"PatternName", "Count", "Mean",     "Median",    "Minimum",
                                      "Maximum",     "Sum",   "Variance", "Quartil25", "Quartil75"};
enum { NCOLUMNS = sizeof columns / sizeof *columns };

/* Widths of the columns as CubeGUI's example aligns them: the name left in
 * 25, the count in 7, mean and median in 9, the others in 12 (a single blank
 * between columns; wider values just push the rest right). */
#define W_NAME 25
#define W_ID 8
#define W_COUNT 7
#define W_MEAN 9
#define W_VALUE 12

/* ----------------------------------------------------------------- model */

void cp_stat_pattern_init(cp_stat_pattern *p, const char *name)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    p->metric_id = -1;
}

cp_stat_pattern *cp_stat_file_add(cp_stat_file *s, const char *name)
{
    if (s->npatterns >= SIZE_MAX / sizeof *s->patterns - 1)
        return NULL;
    cp_stat_pattern *p = realloc(s->patterns, (s->npatterns + 1) * sizeof *p);
    if (!p)
        return NULL;
    s->patterns = p;
    p = &s->patterns[s->npatterns++];
    cp_stat_pattern_init(p, name);
    return p;
}

void cp_stat_file_free(cp_stat_file *s)
{
    if (!s)
        return;
    free(s->patterns);
    s->patterns = NULL;
    s->npatterns = 0;
}

/* v printed with `decimals` decimals into buf, as the file has it: "-0.00"
 * (a tiny negative, or -0) is written "0.00", so that what is written reads
 * back to the same text. */
static const char *fmt_value(char *buf, size_t size, double v, int decimals)
{
    snprintf(buf, size, "%.*f", decimals, v);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
    return buf;
}

/* Large enough for any finite double printed with %.10f. */
#define VALUE_BUF 400

static bool same_value(double a, double b, int decimals)
{
    char x[VALUE_BUF], y[VALUE_BUF];
    return strcmp(fmt_value(x, sizeof x, a, decimals), fmt_value(y, sizeof y, b, decimals)) == 0;
}

static bool same_pattern(const cp_stat_pattern *a, const cp_stat_pattern *b, int layout)
{
    const int m = CP_STAT_MEAN_DECIMALS, d = CP_STAT_VALUE_DECIMALS;
    if (strncmp(a->name, b->name, sizeof a->name) != 0 || a->count != b->count)
        return false;
    if (layout == CP_STAT_LAYOUT_DOCUMENTED && a->metric_id != b->metric_id)
        return false;
    if (!same_value(a->mean, b->mean, m) || !same_value(a->median, b->median, m) ||
        !same_value(a->minimum, b->minimum, d) || !same_value(a->maximum, b->maximum, d) ||
        !same_value(a->sum, b->sum, d))
        return false;
    if (a->count >= 2 && !same_value(a->variance, b->variance, d))
        return false;
    if (a->count >= 5 && (!same_value(a->q25, b->q25, d) || !same_value(a->q75, b->q75, d)))
        return false;
    if (a->nevents != b->nevents)
        return false;
    for (size_t i = 0; i < a->nevents && i < CP_STAT_MAX_EVENTS; i++) {
        const cp_stat_event *x = &a->events[i], *y = &b->events[i];
        if (x->cnode != y->cnode || !same_value(x->enter, y->enter, d) ||
            !same_value(x->exit, y->exit, d) || !same_value(x->duration, y->duration, d))
            return false;
        if (layout == CP_STAT_LAYOUT_CUBEGUI && x->rank != y->rank)
            return false;
    }
    return true;
}

bool cp_stat_file_equal(const cp_stat_file *a, const cp_stat_file *b)
{
    if (a->layout != b->layout || a->npatterns != b->npatterns)
        return false;
    for (size_t i = 0; i < a->npatterns; i++)
        if (!same_pattern(&a->patterns[i], &b->patterns[i], a->layout))
            return false;
    return true;
}

/* ---------------------------------------------------------------- writer */

/* A name as the GUI reads it (one token) and as the parser takes it: 1 to
 * 63 printable ASCII characters without blanks, not starting with '-'
 * (that would be an event line). */
static const char *name_problem(const char *name, size_t size)
{
    size_t n = strnlen(name, size);
    if (n == 0)
        return "empty name";
    if (n >= size)
        return "name longer than 63 characters or not NUL-terminated";
    if (name[0] == '-')
        return "name starting with '-' (the GUI would take the line for an event)";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] <= 0x20 || (unsigned char)name[i] >= 0x7f)
            return "name with a blank or a character that is not printable ASCII";
    return NULL;
}

/* "<where>: pattern <i> (<name>): <why>", for check_pattern. */
__attribute__((format(printf, 5, 6))) static int bad_pattern(cp_error *err, const char *where,
                                                             size_t i, const cp_stat_pattern *p,
                                                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cp_error_item(err, where, "pattern", i, p->name, NAME_MAX_LEN, fmt, ap);
    va_end(ap);
    return rc;
}

/* Refuse a pattern that the parser would reject (the checks are the
 * parser's, on the same values), so that a file collprof writes always
 * reads back. */
static int check_pattern(const cp_stat_file *s, size_t i, const char *where, cp_error *err)
{
    const cp_stat_pattern *p = &s->patterns[i];
    const char *why = name_problem(p->name, sizeof p->name);
    if (why)
        return bad_pattern(err, where, i, p, "%s", why);
    for (size_t k = 0; k < i; k++)
        if (strncmp(s->patterns[k].name, p->name, sizeof p->name) == 0)
            return bad_pattern(err, where, i, p, "pattern %zu has the same name", k);
    if (s->layout == CP_STAT_LAYOUT_DOCUMENTED && p->metric_id < 0)
        return bad_pattern(err, where, i, p, "negative metric id %" PRId64 " (documented layout)",
                           p->metric_id);
    const double v[] = {p->mean, p->median,   p->minimum, p->maximum,
                        p->sum,  p->variance, p->q25,     p->q75};
    size_t nv = 5 + (p->count >= 2) + (p->count >= 5 ? 2 : 0);
    for (size_t k = 0; k < nv; k++)
        if (!isfinite(v[k]) || v[k] < 0)
            return bad_pattern(err, where, i, p,
                               "%s %g: statistics must be finite and not negative", columns[2 + k],
                               v[k]);
    if (p->minimum > p->maximum)
        return bad_pattern(err, where, i, p, "minimum %g is larger than maximum %g", p->minimum,
                           p->maximum);
    if (p->nevents > CP_STAT_MAX_EVENTS)
        return bad_pattern(err, where, i, p, "%zu events (at most %d)", p->nevents,
                           CP_STAT_MAX_EVENTS);
    if (p->nevents > p->count)
        return bad_pattern(err, where, i, p, "%zu events for a count of %" PRIu64, p->nevents,
                           p->count);
    for (size_t k = 0; k < p->nevents; k++) {
        const cp_stat_event *e = &p->events[k];
        if (e->cnode < 0)
            return bad_pattern(err, where, i, p, "event %zu: negative cnode %" PRId64, k, e->cnode);
        if (s->layout == CP_STAT_LAYOUT_CUBEGUI && e->rank < 0)
            return bad_pattern(err, where, i, p,
                               "event %zu: negative rank %" PRId64 " (CubeGUI layout)", k, e->rank);
        if (!isfinite(e->enter) || !isfinite(e->exit) || !isfinite(e->duration))
            return bad_pattern(err, where, i, p, "event %zu: a time that is not finite", k);
        if (e->exit < e->enter)
            return bad_pattern(err, where, i, p, "event %zu: exit %g before enter %g", k, e->exit,
                               e->enter);
        if (e->duration < p->minimum || e->duration > p->maximum)
            return bad_pattern(err, where, i, p,
                               "event %zu: duration %g outside [minimum, maximum]", k, e->duration);
        if (k > 0 && e->duration > p->events[k - 1].duration)
            return bad_pattern(err, where, i, p,
                               "event %zu is more severe than event %zu "
                               "(most severe first)",
                               k, k - 1);
        for (size_t j = 0; j < k; j++)
            if (p->events[j].cnode == e->cnode)
                return bad_pattern(err, where, i, p, "events %zu and %zu: cnode %" PRId64 " twice",
                                   j, k, e->cnode);
    }
    return 0;
}

/* The text goes into a cp_bytes (bytes.h), whose failure is sticky:
 * format_text checks once, at the end. */
static void put_header(cp_bytes *t, int layout)
{
    cp_bytes_printf(t, "%-*s", W_NAME, columns[0]);
    if (layout == CP_STAT_LAYOUT_DOCUMENTED)
        cp_bytes_printf(t, " %*s", W_ID, "MetricID");
    cp_bytes_printf(t, " %*s %*s %*s", W_COUNT, columns[1], W_MEAN, columns[2], W_MEAN, columns[3]);
    for (size_t k = 4; k < NCOLUMNS; k++)
        cp_bytes_printf(t, " %*s", W_VALUE, columns[k]);
    cp_bytes_printf(t, "\n");
}

static void put_pattern(cp_bytes *t, const cp_stat_pattern *p, int layout)
{
    char b[VALUE_BUF];
    const int m = CP_STAT_MEAN_DECIMALS, d = CP_STAT_VALUE_DECIMALS;
    cp_bytes_printf(t, "%-*.*s", W_NAME, (int)NAME_MAX_LEN, p->name);
    if (layout == CP_STAT_LAYOUT_DOCUMENTED)
        cp_bytes_printf(t, " %*" PRId64, W_ID, p->metric_id);
    cp_bytes_printf(t, " %*" PRIu64, W_COUNT, p->count);
    cp_bytes_printf(t, " %*s", W_MEAN, fmt_value(b, sizeof b, p->mean, m));
    cp_bytes_printf(t, " %*s", W_MEAN, fmt_value(b, sizeof b, p->median, m));
    const double v[] = {p->minimum, p->maximum, p->sum, p->variance, p->q25, p->q75};
    size_t nv = 3 + (p->count >= 2) + (p->count >= 5 ? 2 : 0);
    for (size_t k = 0; k < nv; k++)
        cp_bytes_printf(t, " %*s", W_VALUE, fmt_value(b, sizeof b, v[k], d));
    cp_bytes_printf(t, "\n");
    for (size_t k = 0; k < p->nevents; k++) {
        const cp_stat_event *e = &p->events[k];
        cp_bytes_printf(t, "- cnode: %" PRId64, e->cnode);
        cp_bytes_printf(t, " enter: %s", fmt_value(b, sizeof b, e->enter, d));
        cp_bytes_printf(t, " exit: %s", fmt_value(b, sizeof b, e->exit, d));
        cp_bytes_printf(t, " duration: %s", fmt_value(b, sizeof b, e->duration, d));
        if (layout == CP_STAT_LAYOUT_CUBEGUI)
            cp_bytes_printf(t, " rank: %" PRId64, e->rank);
        cp_bytes_printf(t, "\n");
    }
    cp_bytes_printf(t, "\n");
}

/* cp_stat_format, with `where` naming the file in messages. */
static int format_text(const cp_stat_file *s, const char *where, char **out, size_t *len,
                       cp_error *err)
{
    *out = NULL;
    *len = 0;
    if (s->layout != CP_STAT_LAYOUT_CUBEGUI && s->layout != CP_STAT_LAYOUT_DOCUMENTED)
        return cp_error_set(err, "%s: unknown layout %d", where, s->layout);
    for (size_t i = 0; i < s->npatterns; i++)
        if (check_pattern(s, i, where, err) != 0)
            return -1;
    cp_bytes t = {0};
    put_header(&t, s->layout);
    for (size_t i = 0; i < s->npatterns; i++)
        put_pattern(&t, &s->patterns[i], s->layout);
    if (t.failed) {
        cp_bytes_free(&t);
        return cp_error_set(err, "%s: %s", where, strerror(ENOMEM));
    }
    *out = (char *)t.p;
    *len = t.len;
    return 0;
}

int cp_stat_format(const cp_stat_file *s, char **out, size_t *len, cp_error *err)
{
    return format_text(s, "stat file", out, len, err);
}

int cp_stat_write_out(cp_out *out, const cp_stat_file *s, cp_error *err)
{
    if (!out)
        return cp_error_set(err, "stat file: no output");
    char *t;
    size_t n;
    if (format_text(s, cp_out_path(out), &t, &n, err) != 0)
        return -1;
    int rc = cp_out_write(out, t, n);
    free(t);
    return rc != 0 ? cp_out_status(out, err) : 0;
}

static int write_out(cp_out *out, const void *s, cp_error *err)
{
    return cp_stat_write_out(out, s, err);
}

int cp_stat_write(const char *path, const cp_stat_file *s, cp_error *err)
{
    /* Never gzip: the Cube GUI reads the file as it is. */
    return cp_out_write_path(path, false, write_out, s, err);
}

/* ---------------------------------------------------------------- parser */

/* Tokens of one line: pattern and event lines have at most 11. */
#define MAX_TOKENS 16

typedef struct parser {
    cp_in *in;
    cp_error *err;
    int layout;
    char shown[80]; /* the current line, printable, for messages */
    char *tok[MAX_TOKENS];
    size_t ntok; /* may exceed MAX_TOKENS: only the first are kept */
    long *lines; /* line of each pattern (duplicate names) */
    long ev_lines[CP_STAT_MAX_EVENTS];
} parser;

/* "<input>:<line>: <message>". */
__attribute__((format(printf, 2, 3))) static int perr(parser *ps, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    long line = cp_in_lineno(ps->in);
    return cp_error_set(ps->err, "%s:%ld: %s", cp_in_name(ps->in), line > 0 ? line : 1, msg);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Remember the line for messages, then split it into NUL-terminated tokens
 * in place. */
static void tokenize(parser *ps, char *line, size_t len)
{
    size_t max = sizeof ps->shown - 4, n = 0;
    for (size_t i = 0; i < len && n < max; i++) {
        unsigned char c = (unsigned char)line[i];
        ps->shown[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (len > max) {
        memcpy(ps->shown + max - 3, "...", 3);
        n = max;
    }
    ps->shown[n] = '\0';

    ps->ntok = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && is_blank(line[i]))
            i++;
        if (i == len)
            break;
        if (ps->ntok < MAX_TOKENS)
            ps->tok[ps->ntok] = line + i;
        ps->ntok++;
        while (i < len && !is_blank(line[i]))
            i++;
        if (i < len)
            line[i++] = '\0';
    }
}

/* A token, shortened for a message. */
static const char *short_tok(const char *t, char *buf, size_t size)
{
    size_t n = strlen(t);
    if (n < size) {
        memcpy(buf, t, n + 1);
    } else {
        memcpy(buf, t, size - 4);
        memcpy(buf + size - 4, "...", 4);
    }
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    return buf;
}

/* A non-negative integer token (no sign, digits only); *why says what went
 * wrong. */
static bool tok_u64(const char *t, uint64_t max, uint64_t *v, const char **why)
{
    if (t[0] == '-') {
        *why = "negative number";
        return false;
    }
    uint64_t x = 0;
    size_t i = 0;
    for (; is_digit(t[i]); i++) {
        unsigned d = (unsigned)(t[i] - '0');
        if (x > (max - d) / 10) {
            *why = "number too large";
            return false;
        }
        x = x * 10 + d;
    }
    if (i == 0 || t[i] != '\0') {
        *why = "expected a non-negative integer";
        return false;
    }
    *v = x;
    return true;
}

/* A decimal number: [-]digits[.digits][(e|E)[+|-]digits] (at least one
 * digit in the mantissa), finite.  No "inf", "nan", hex or '+' sign: what
 * a stream reader and any other tool read alike. */
static bool tok_real(const char *t, bool negative_ok, double *v, const char **why)
{
    size_t i = 0, digits = 0;
    if (t[i] == '-') {
        if (!negative_ok) {
            *why = "negative value";
            return false;
        }
        i++;
    }
    while (is_digit(t[i]))
        i++, digits++;
    if (t[i] == '.') {
        i++;
        while (is_digit(t[i]))
            i++, digits++;
    }
    if (digits > 0 && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (t[i] == '+' || t[i] == '-')
            i++;
        size_t e = 0;
        while (is_digit(t[i]))
            i++, e++;
        if (e == 0)
            digits = 0;
    }
    if (digits == 0 || t[i] != '\0') {
        *why = negative_ok ? "expected a number" : "expected a non-negative number";
        return false;
    }
    double x = strtod(t, NULL);
    if (!isfinite(x)) {
        *why = "number out of range";
        return false;
    }
    *v = x;
    return true;
}

/* Next line, tokenized: 1, 0 at end of input, -1 on error. */
static int next_line(parser *ps)
{
    char *l;
    size_t n;
    int r = cp_in_getline(ps->in, &l, &n, ps->err);
    if (r <= 0)
        return r;
    tokenize(ps, l, n);
    return 1;
}

static const char *header_text(int layout)
{
    return layout == CP_STAT_LAYOUT_DOCUMENTED
               ? "'PatternName MetricID Count Mean Median Minimum Maximum Sum Variance "
                 "Quartil25 Quartil75'"
               : "'PatternName Count Mean Median Minimum Maximum Sum Variance Quartil25 "
                 "Quartil75'";
}

/* The first line: the column names of either layout (blanks of any
 * width). */
static int parse_header(parser *ps)
{
    for (int layout = CP_STAT_LAYOUT_CUBEGUI; layout <= CP_STAT_LAYOUT_DOCUMENTED; layout++) {
        size_t want = NCOLUMNS + (layout == CP_STAT_LAYOUT_DOCUMENTED);
        if (ps->ntok != want)
            continue;
        size_t k = 0, c = 0;
        for (; k < want; k++) {
            const char *name =
                (layout == CP_STAT_LAYOUT_DOCUMENTED && k == 1) ? "MetricID" : columns[c++];
            if (strcmp(ps->tok[k], name) != 0)
                break;
        }
        if (k == want) {
            ps->layout = layout;
            return 0;
        }
    }
    return perr(ps,
                "expected the header line %s (CubeGUI layout) or %s (documented layout), "
                "found '%s'",
                header_text(CP_STAT_LAYOUT_CUBEGUI), header_text(CP_STAT_LAYOUT_DOCUMENTED),
                ps->shown);
}

/* "PatternName Count Mean ..." up to the columns that `count` calls for. */
static void expected_columns(const parser *ps, size_t nvals, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "PatternName%s Count",
                                   ps->layout == CP_STAT_LAYOUT_DOCUMENTED ? " MetricID" : "");
    for (size_t k = 0; k < nvals && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, " %s", columns[2 + k]);
}

/* A pattern line into p. */
static int parse_pattern(parser *ps, cp_stat_pattern *p, const cp_stat_file *s)
{
    char sh[48], ex[160];
    const char *why = "";
    const char *name = ps->tok[0];
    cp_stat_pattern_init(p, "");
    size_t nl = strlen(name);
    if (nl > NAME_MAX_LEN)
        return perr(ps, "pattern name longer than %zu characters: '%s'", NAME_MAX_LEN,
                    short_tok(name, sh, sizeof sh));
    if (name_problem(name, nl + 1))
        return perr(ps, "a pattern name holds printable ASCII characters only, found '%s'",
                    short_tok(name, sh, sizeof sh));
    memcpy(p->name, name, nl + 1);
    for (size_t k = 0; k < s->npatterns; k++)
        if (strcmp(s->patterns[k].name, p->name) == 0)
            return perr(ps, "pattern '%s' appears twice (lines %ld and %ld)", p->name, ps->lines[k],
                        cp_in_lineno(ps->in));

    size_t c = 1; /* token of the count */
    if (ps->layout == CP_STAT_LAYOUT_DOCUMENTED) {
        uint64_t id;
        if (ps->ntok < 2)
            return perr(ps, "pattern '%s': expected its MetricID and Count after the name",
                        p->name);
        if (!tok_u64(ps->tok[1], INT64_MAX, &id, &why))
            return perr(ps, "pattern '%s': MetricID: %s, found '%s'", p->name, why,
                        short_tok(ps->tok[1], sh, sizeof sh));
        p->metric_id = (int64_t)id;
        c = 2;
    }
    if (ps->ntok <= c)
        return perr(ps, "pattern '%s': expected its Count after the %s", p->name,
                    c == 1 ? "name" : "MetricID");
    if (!tok_u64(ps->tok[c], UINT64_MAX, &p->count, &why))
        return perr(ps, "pattern '%s': Count: %s, found '%s'", p->name, why,
                    short_tok(ps->tok[c], sh, sizeof sh));

    /* The column rule. */
    size_t nvals = 5 + (p->count >= 2) + (p->count >= 5 ? 2 : 0);
    if (ps->ntok != c + 1 + nvals) {
        expected_columns(ps, nvals, ex, sizeof ex);
        return perr(ps, "pattern '%s' with Count %" PRIu64 ": expected %zu columns (%s), found %zu",
                    p->name, p->count, c + 1 + nvals, ex, ps->ntok);
    }
    double *dst[] = {&p->mean, &p->median,   &p->minimum, &p->maximum,
                     &p->sum,  &p->variance, &p->q25,     &p->q75};
    for (size_t k = 0; k < nvals; k++)
        if (!tok_real(ps->tok[c + 1 + k], false, dst[k], &why))
            return perr(ps, "pattern '%s': %s: %s, found '%s'", p->name, columns[2 + k], why,
                        short_tok(ps->tok[c + 1 + k], sh, sizeof sh));
    if (p->minimum > p->maximum)
        return perr(ps, "pattern '%s': Minimum %s is larger than Maximum %s", p->name,
                    short_tok(ps->tok[c + 3], sh, sizeof sh), ps->tok[c + 4]);
    return 0;
}

/* "- cnode: C enter: T exit: T duration: D rank: R" (no rank in the
 * documented layout) appended to p. */
static int parse_event(parser *ps, cp_stat_pattern *p)
{
    char sh[48];
    const char *why = "";
    bool gui = ps->layout == CP_STAT_LAYOUT_CUBEGUI;
    const char *usage = gui ? "'- cnode: C enter: T exit: T duration: D rank: R'"
                            : "'- cnode: C enter: T exit: T duration: D' (documented layout: "
                              "no rank)";
    size_t want = gui ? 11 : 9;
    static const char *const keys[] = {
        "-", "cnode:", NULL, "enter:", NULL, "exit:", NULL, "duration:", NULL, "rank:", NULL};
    if (ps->ntok != want) {
        if (!gui && ps->ntok == 11 && strcmp(ps->tok[9], "rank:") == 0)
            return perr(ps,
                        "expected %s, found 'rank:' (the MetricID header says: documented "
                        "layout)",
                        usage);
        return perr(ps, "expected %s, found '%s'", usage, ps->shown);
    }
    for (size_t k = 0; k < want; k++)
        if (keys[k] && strcmp(ps->tok[k], keys[k]) != 0)
            return perr(ps, "expected %s, found '%s'", usage, ps->shown);
    if (p->nevents == CP_STAT_MAX_EVENTS)
        return perr(ps, "pattern '%s': more than %d events (the file lists the %d most severe)",
                    p->name, CP_STAT_MAX_EVENTS, CP_STAT_MAX_EVENTS);
    if ((uint64_t)p->nevents >= p->count)
        return perr(ps, "pattern '%s': more events than its Count %" PRIu64, p->name, p->count);

    cp_stat_event e = {.rank = -1};
    uint64_t u;
    if (!tok_u64(ps->tok[2], INT64_MAX, &u, &why))
        return perr(ps, "cnode: %s, found '%s'", why, short_tok(ps->tok[2], sh, sizeof sh));
    e.cnode = (int64_t)u;
    if (!tok_real(ps->tok[4], true, &e.enter, &why))
        return perr(ps, "enter: %s, found '%s'", why, short_tok(ps->tok[4], sh, sizeof sh));
    if (!tok_real(ps->tok[6], true, &e.exit, &why))
        return perr(ps, "exit: %s, found '%s'", why, short_tok(ps->tok[6], sh, sizeof sh));
    if (!tok_real(ps->tok[8], false, &e.duration, &why))
        return perr(ps, "duration: %s, found '%s'", why, short_tok(ps->tok[8], sh, sizeof sh));
    if (gui) {
        if (!tok_u64(ps->tok[10], INT64_MAX, &u, &why))
            return perr(ps, "rank: %s, found '%s'", why, short_tok(ps->tok[10], sh, sizeof sh));
        e.rank = (int64_t)u;
    }

    if (e.exit < e.enter)
        return perr(ps, "exit %s is before enter %s", ps->tok[6],
                    short_tok(ps->tok[4], sh, sizeof sh));
    if (e.duration < p->minimum || e.duration > p->maximum)
        return perr(ps, "duration %s is outside [Minimum, Maximum] of pattern '%s'",
                    short_tok(ps->tok[8], sh, sizeof sh), p->name);
    for (size_t k = 0; k < p->nevents; k++)
        if (p->events[k].cnode == e.cnode)
            return perr(ps,
                        "pattern '%s': cnode %" PRId64 " is listed twice (lines %ld and %ld; "
                        "at most one event per cnode)",
                        p->name, e.cnode, ps->ev_lines[k], cp_in_lineno(ps->in));
    if (p->nevents > 0 && e.duration > p->events[p->nevents - 1].duration)
        return perr(ps,
                    "pattern '%s': events must be listed most severe first, "
                    "duration %s follows a smaller one",
                    p->name, short_tok(ps->tok[8], sh, sizeof sh));
    ps->ev_lines[p->nevents] = cp_in_lineno(ps->in);
    p->events[p->nevents++] = e;
    return 0;
}

/* Room for one more pattern (and its line). */
static int reserve(parser *ps, cp_stat_file *s, size_t *cap)
{
    /* Two arrays of one capacity: *cap changes when both have grown. */
    size_t pcap = *cap, lcap = *cap;
    if (cp_grow((void **)&s->patterns, &pcap, s->npatterns + 1, sizeof *s->patterns, 8) ||
        cp_grow((void **)&ps->lines, &lcap, s->npatterns + 1, sizeof *ps->lines, 8))
        return -1;
    *cap = pcap;
    return 0;
}

int cp_stat_parse(cp_in *in, cp_stat_file *out, cp_error *err)
{
    parser ps = {.in = in, .err = err};
    cp_stat_file s = {0};
    size_t cap = 0;
    out->patterns = NULL;
    out->npatterns = 0;

    int r = next_line(&ps);
    if (r == 0)
        r = perr(&ps, "expected the header line %s or %s, found an empty file",
                 header_text(CP_STAT_LAYOUT_CUBEGUI), header_text(CP_STAT_LAYOUT_DOCUMENTED));
    else if (r > 0)
        r = parse_header(&ps);
    s.layout = ps.layout;

    /* in: a pattern line was read and its empty line not yet */
    cp_stat_pattern *open = NULL;
    while (r == 0) {
        r = next_line(&ps);
        if (r < 0)
            break;
        if (r == 0) {
            if (open)
                r = perr(&ps,
                         "unexpected end of file: pattern '%s' is not ended by an empty "
                         "line (truncated file?)",
                         open->name);
            break;
        }
        r = 0;
        if (ps.ntok == 0) {
            open = NULL; /* an empty line ends a pattern; more are allowed */
            continue;
        }
        bool event = ps.tok[0][0] == '-';
        if (open) {
            if (event)
                r = parse_event(&ps, open);
            else
                r = perr(&ps,
                         "expected an event line '- cnode: ...' or an empty line (the end "
                         "of pattern '%s'), found '%s'",
                         open->name, ps.shown);
            continue;
        }
        if (event) {
            r = perr(&ps,
                     "expected a pattern line 'NAME%s COUNT MEAN ...' (event lines follow "
                     "their pattern line directly), found '%s'",
                     s.layout == CP_STAT_LAYOUT_DOCUMENTED ? " METRICID" : "", ps.shown);
            continue;
        }
        if (reserve(&ps, &s, &cap) != 0) {
            r = perr(&ps, "%s", strerror(ENOMEM));
            continue;
        }
        r = parse_pattern(&ps, &s.patterns[s.npatterns], &s);
        if (r == 0) {
            ps.lines[s.npatterns] = cp_in_lineno(in);
            open = &s.patterns[s.npatterns++];
        }
    }
    free(ps.lines);
    if (r < 0) {
        cp_stat_file_free(&s);
        return -1;
    }
    *out = s;
    return 0;
}

static int parse_in(cp_in *in, void *out, cp_error *err)
{
    return cp_stat_parse(in, out, err);
}

int cp_stat_read(const char *path, cp_stat_file *out, cp_error *err)
{
    out->patterns = NULL;
    out->npatterns = 0;
    return cp_in_parse_path(path, parse_in, out, err);
}
