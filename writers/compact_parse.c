/* Compact counts format: the parser, both dialects (compact.h; the grammar
 * is in compact_grammar.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact_grammar.h"
#include "bytes.h"
#include "mpi_names.h"
#include "ranges.h"
#include "grow.h"

#define NAME_MAX_LEN CP_COMPACT_NAME_MAX

/* ------------------------------------------------------------------ parser */

/* Header lines in the order they must come; a line of kind k may follow the
 * previous header line p when k > p and no required kind lies in between. */
enum kind {
    K_START = 0, /* "# Raw counters" */
    K_COMM,
    K_COLL,
    K_ROOT,
    K_NRANKS,
    K_DTSIZE,
    K_CALLS,
    K_COUNT,
    K_CALLSITES,
    K_INVALID,
    K_FAILED,
    K_ROWLEN,
    K_BEGIN,
    K_END,     /* "END DATA" */
    K_ROW,     /* "Rank(s) ..." */
    K_VERSION, /* "# collprof ..." */
    K_BLANK,
    K_UNKNOWN,
};

static const char *const kind_text[] = {
    [K_START] = "'# Raw counters'",
    [K_COMM] = "'Communicator: ID (size N, world ranks LIST)'",
    [K_COLL] = "'Collective: NAME'",
    [K_ROOT] = "'Root: R'",
    [K_NRANKS] = "'Number of ranks: N'",
    [K_DTSIZE] = "'Datatype size: D'",
    [K_CALLS] = "'<Collective> calls LIST'",
    [K_COUNT] = "'Count: K calls - LIST'",
    [K_CALLSITES] = "'Callsites: LIST'",
    [K_INVALID] = "'Invalid: negative count'",
    [K_FAILED] = "'Failed: CLASS LIST'",
    [K_ROWLEN] = "'Row length: L'",
    [K_BEGIN] = "'BEGINNING DATA'",
};

typedef struct parser {
    cp_in *in;
    cp_error *err;
    int version;
    char *line; /* current line, trailing blanks removed, NUL-terminated */
    size_t len;
    bool pending; /* line was read but not consumed yet */
    bool row_len_given; /* the block has a "Row length:" line */
    /* The block's "Failed:" line: ranks per error class. */
    uint32_t nfail;
    int32_t fail_code[8];
    cp_ranges fail_ranks[8];
} parser;

static void fail_clear(parser *ps)
{
    for (uint32_t i = 0; i < ps->nfail; i++)
        cp_ranges_free(&ps->fail_ranks[i]);
    ps->nfail = 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "<input>:<line>: <message>". */
__attribute__((format(printf, 2, 3))) static int perr(parser *ps, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cp_error_set(ps->err, "%s:%ld: %s", cp_in_name(ps->in), cp_in_lineno(ps->in), msg);
}

/* The current line, shortened and made printable, for messages. */
static const char *shown(const parser *ps, char *buf, size_t size)
{
    size_t max = size - 4, n = 0;
    for (size_t i = 0; i < ps->len && n < max; i++) {
        unsigned char c = (unsigned char)ps->line[i];
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (ps->len > max) {
        memcpy(buf + max - 3, "...", 3);
        n = max;
    }
    buf[n] = '\0';
    return buf;
}

/* Next line: 1, 0 at end of input, -1 on error (err set). */
static int next_line(parser *ps)
{
    if (ps->pending) {
        ps->pending = false;
        return 1;
    }
    char *l;
    size_t n;
    int r = cp_in_getline(ps->in, &l, &n, ps->err);
    if (r <= 0)
        return r;
    while (n > 0 && is_space(l[n - 1]))
        n--;
    l[n] = '\0';
    ps->line = l;
    ps->len = n;
    return 1;
}

static bool starts_with(const parser *ps, const char *prefix)
{
    size_t n = strlen(prefix);
    return ps->len >= n && memcmp(ps->line, prefix, n) == 0;
}

static bool line_is(const parser *ps, const char *text)
{
    return ps->len == strlen(text) && memcmp(ps->line, text, ps->len) == 0;
}

/* Length of "NAME" when the line is "NAME calls ..." (NAME of name
 * characters, then blanks, "calls", then a blank or the end), else 0. */
static size_t calls_line_name(const parser *ps)
{
    size_t i = 0;
    while (i < ps->len && cp_compact_name_char(ps->line[i]))
        i++;
    size_t name = i;
    if (name == 0 || i >= ps->len || !is_space(ps->line[i]))
        return 0;
    while (i < ps->len && is_space(ps->line[i]))
        i++;
    if (ps->len - i < 5 || memcmp(ps->line + i, "calls", 5) != 0)
        return 0;
    i += 5;
    if (i < ps->len && !is_space(ps->line[i]))
        return 0;
    return name;
}

static enum kind classify(const parser *ps)
{
    size_t i = 0;
    while (i < ps->len && is_space(ps->line[i]))
        i++;
    if (i == ps->len)
        return K_BLANK;
    if (line_is(ps, "# Raw counters"))
        return K_START;
    if (starts_with(ps, "# collprof"))
        return K_VERSION;
    if (starts_with(ps, "Communicator:"))
        return K_COMM;
    if (starts_with(ps, "Collective:"))
        return K_COLL;
    if (starts_with(ps, "Root:"))
        return K_ROOT;
    if (starts_with(ps, "Number of ranks:"))
        return K_NRANKS;
    if (starts_with(ps, "Datatype size:"))
        return K_DTSIZE;
    if (starts_with(ps, "Count:"))
        return K_COUNT;
    if (ps->version >= 2 && starts_with(ps, "Callsites:"))
        return K_CALLSITES;
    if (ps->version >= 4 && starts_with(ps, "Invalid:"))
        return K_INVALID;
    if (ps->version >= 6 && starts_with(ps, "Failed:"))
        return K_FAILED;
    if (ps->version >= 5 && starts_with(ps, "Row length:"))
        return K_ROWLEN;
    if (line_is(ps, "BEGINNING DATA"))
        return K_BEGIN;
    if (line_is(ps, "END DATA"))
        return K_END;
    if (starts_with(ps, "Rank(s)"))
        return K_ROW;
    if (calls_line_name(ps) > 0)
        return K_CALLS;
    return K_UNKNOWN;
}

static bool kind_required(const parser *ps, enum kind k)
{
    return k == K_NRANKS || k == K_DTSIZE || k == K_CALLS || k == K_COUNT || k == K_BEGIN ||
           (k == K_COLL && ps->version >= 1);
}

/* What may come after header line kind p: "'A', 'B' or 'C'". */
static bool kind_known(const parser *ps, enum kind k)
{
    return (k != K_CALLSITES || ps->version >= 2) && (k != K_INVALID || ps->version >= 4) &&
           (k != K_ROWLEN || ps->version >= 5) && (k != K_FAILED || ps->version >= 6);
}

static const char *expected_after(const parser *ps, enum kind p, char *buf, size_t size)
{
    enum kind opts[K_BEGIN + 1];
    size_t n = 0;
    for (int k = (int)p + 1; k <= K_BEGIN; k++) {
        if (!kind_known(ps, (enum kind)k))
            continue;
        opts[n++] = (enum kind)k;
        if (kind_required(ps, (enum kind)k))
            break;
    }
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n && used < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + used, size - used, "%s%s", sep, kind_text[opts[i]]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

static bool kind_allowed(const parser *ps, enum kind p, enum kind k)
{
    if (k <= p || k > K_BEGIN)
        return false;
    for (int m = (int)p + 1; m < (int)k; m++)
        if (kind_required(ps, (enum kind)m))
            return false;
    return true;
}

/* A cursor over the current line for the header grammars. */
typedef struct cursor {
    const char *s;
    size_t i, n;
} cursor;

static void cur_blanks(cursor *c)
{
    while (c->i < c->n && is_space(c->s[c->i]))
        c->i++;
}

static bool cur_lit(cursor *c, const char *lit)
{
    size_t l = strlen(lit);
    if (c->n - c->i < l || memcmp(c->s + c->i, lit, l) != 0)
        return false;
    c->i += l;
    return true;
}

/* The word lit, followed by a blank or the end of the line. */
static bool cur_word(cursor *c, const char *lit)
{
    size_t i = c->i;
    if (!cur_lit(c, lit))
        return false;
    if (c->i < c->n && !is_space(c->s[c->i])) {
        c->i = i;
        return false;
    }
    cur_blanks(c);
    return true;
}

/* A non-negative integer; *why says what went wrong. */
static bool cur_number(cursor *c, int64_t *v, const char **why)
{
    if (c->i >= c->n || !is_digit(c->s[c->i])) {
        *why = (c->i < c->n && c->s[c->i] == '-') ? "negative number"
                                                   : "expected a non-negative integer";
        return false;
    }
    int64_t x = 0;
    while (c->i < c->n && is_digit(c->s[c->i])) {
        int d = c->s[c->i] - '0';
        if (x > (INT64_MAX - d) / 10) {
            *why = "number too large (more than 9223372036854775807)";
            return false;
        }
        x = x * 10 + d;
        c->i++;
    }
    *v = x;
    return true;
}

static bool cur_end(const cursor *c)
{
    return c->i == c->n;
}

/* "Prefix: N" with nothing after N. */
static int parse_number_line(parser *ps, const char *prefix, int64_t *v)
{
    cursor c = {ps->line, strlen(prefix), ps->len};
    const char *why = "expected a non-negative integer";
    cur_blanks(&c);
    if (!cur_number(&c, v, &why))
        return perr(ps, "%s: %s", prefix, why);
    if (!cur_end(&c)) {
        char b[80];
        return perr(ps, "expected '%s N' with N a non-negative integer, found '%s'", prefix,
                    shown(ps, b, sizeof b));
    }
    return 0;
}

static int parse_comm(parser *ps, cp_block *b)
{
    char sh[80];
    const char *usage = "expected 'Communicator: ID (size N)' or "
                        "'Communicator: ID (size N, world ranks LIST)'";
    cursor c = {ps->line, strlen("Communicator:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (!cur_number(&c, &b->comm_id, &why))
        return perr(ps, "communicator id: %s", why);
    cur_blanks(&c);
    if (!cur_lit(&c, "(size"))
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    cur_blanks(&c);
    if (!cur_number(&c, &b->comm_size, &why))
        return perr(ps, "communicator size: %s", why);
    if (b->comm_size < 1)
        return perr(ps, "communicator size must be at least 1");
    cur_blanks(&c);
    if (cur_lit(&c, ")")) {
        if (!cur_end(&c))
            return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
        return 0;
    }
    if (!cur_lit(&c, ","))
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    cur_blanks(&c);
    if (!cur_lit(&c, "world ranks") || c.n == c.i || ps->line[c.n - 1] != ')')
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    if (cp_ranges_parse_ordered(c.s + c.i, c.n - 1 - c.i, &b->comm_world_ranks, &why) != 0)
        return perr(ps, "world ranks: %s", why);
    int64_t n = cp_ranges_count(&b->comm_world_ranks);
    if (n != b->comm_size)
        return perr(ps, "%" PRId64 " world ranks listed for a communicator of size %" PRId64, n,
                    b->comm_size);
    return 0;
}

/* "Collective: NAME" or the NAME of "NAME calls": a checked name. */
static int take_name(parser *ps, const char *s, size_t n, char *out, const char *what)
{
    if (n == 0)
        return perr(ps, "%s: expected a collective name", what);
    for (size_t i = 0; i < n; i++)
        if (!cp_compact_name_char(s[i]))
            return perr(ps, "%s: a collective name holds only letters, digits and '_'", what);
    if (n > NAME_MAX_LEN)
        return perr(ps, "%s: collective name longer than %zu characters", what, NAME_MAX_LEN);
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

static int parse_coll(parser *ps, cp_block *b)
{
    cursor c = {ps->line, strlen("Collective:"), ps->len};
    cur_blanks(&c);
    return take_name(ps, c.s + c.i, c.n - c.i, b->collective, "Collective");
}

static int parse_dtsize(parser *ps, cp_block *b)
{
    char sh[80];
    cursor c = {ps->line, strlen("Datatype size:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (!cur_number(&c, &b->dtsize, &why))
        return perr(ps, "Datatype size: %s", why);
    cur_blanks(&c);
    if (cur_end(&c))
        return 0;
    if (!cur_lit(&c, "(bytes)") || !cur_end(&c))
        return perr(ps, "expected 'Datatype size: D' or 'Datatype size: 1 (bytes)', found '%s'",
                    shown(ps, sh, sizeof sh));
    if (b->dtsize != 1)
        return perr(ps, "counts in bytes need 'Datatype size: 1 (bytes)', found '%s'",
                    shown(ps, sh, sizeof sh));
    b->counts_in_bytes = true;
    return 0;
}

static int parse_calls(parser *ps, cp_block *b, bool have_coll)
{
    size_t name = calls_line_name(ps);
    char found[sizeof b->collective];
    if (take_name(ps, ps->line, name, found, "calls line") != 0)
        return -1;
    if (have_coll && strcmp(found, b->collective) != 0)
        return perr(ps, "'Collective: %s' disagrees with '%s calls'", b->collective, found);
    memcpy(b->collective, found, sizeof found);
    cursor c = {ps->line, name, ps->len};
    cur_blanks(&c);
    cur_lit(&c, "calls");
    const char *why = "";
    if (cp_ranges_parse(c.s + c.i, c.n - c.i, &b->all_calls, &why) != 0)
        return perr(ps, "'%s calls LIST': %s", found, why);
    return 0;
}

static int parse_count(parser *ps, cp_block *b)
{
    char sh[80];
    cursor c = {ps->line, strlen("Count:"), ps->len};
    const char *why = "";
    int64_t k;
    cur_blanks(&c);
    if (!cur_number(&c, &k, &why))
        return perr(ps, "Count: %s", why);
    cur_blanks(&c);
    bool ok = cur_lit(&c, "calls");
    cur_blanks(&c);
    if (!ok || !cur_lit(&c, "-"))
        return perr(ps, "expected 'Count: K calls - LIST', found '%s'", shown(ps, sh, sizeof sh));
    if ((ps->version >= 3 ? cp_ranges_parse_strided : cp_ranges_parse)(c.s + c.i, c.n - c.i,
                                                                      &b->calls, &why) != 0)
        return perr(ps, "'Count: K calls - LIST': %s", why);
    int64_t listed = cp_ranges_count(&b->calls);
    if (listed != k)
        return perr(ps, "'Count: %" PRId64 " calls' but %" PRId64 " calls are listed", k, listed);
    if (ps->version >= 1 && !cp_compact_subset(&b->calls, &b->all_calls))
        return perr(ps, "calls listed by 'Count:' are not all within the '%s calls' list",
                    b->collective);
    return 0;
}

static int parse_callsites(parser *ps, cp_block *b)
{
    cursor c = {ps->line, strlen("Callsites:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (cp_ranges_parse(c.s + c.i, c.n - c.i, &b->callsites, &why) != 0)
        return perr(ps, "'Callsites: LIST': %s", why);
    if (b->callsites.n == 0)
        return perr(ps, "'Callsites: LIST': the list is empty");
    return 0;
}

/* "Failed: CLASS LIST[; CLASS LIST]*" into ps->fail_*. */
static int parse_failed(parser *ps)
{
    cursor c = {ps->line, strlen("Failed:"), ps->len};
    char sh[80];
    for (;;) {
        cur_blanks(&c);
        size_t at = c.i;
        while (c.i < c.n && cp_compact_name_char(c.s[c.i]))
            c.i++;
        int code = cp_error_class_parse(c.s + at, c.i - at);
        if (code <= 0)
            return perr(ps, "'Failed: CLASS LIST': expected an MPI error class such as "
                            "MPI_ERR_BUFFER, found '%.*s'",
                        (int)(c.i - at < 40 ? c.i - at : 40), c.s + at);
        for (uint32_t i = 0; i < ps->nfail; i++)
            if (ps->fail_code[i] == code)
                return perr(ps, "'Failed:' names %.*s twice", (int)(c.i - at), c.s + at);
        if (ps->nfail == sizeof ps->fail_code / sizeof *ps->fail_code)
            return perr(ps, "'Failed:' names more than 8 error classes");
        cur_blanks(&c);
        size_t end = c.i;
        while (end < c.n && c.s[end] != ';')
            end++;
        const char *why = "";
        cp_ranges *r = &ps->fail_ranks[ps->nfail];
        *r = (cp_ranges){0};
        if (cp_ranges_parse(c.s + c.i, end - c.i, r, &why) != 0 || r->n == 0) {
            cp_ranges_free(r);
            return perr(ps, "'Failed: CLASS LIST': %s, in '%s'", r->n ? why : "an empty list",
                        shown(ps, sh, sizeof sh));
        }
        ps->fail_code[ps->nfail++] = code;
        if (end == c.n)
            return 0;
        c.i = end + 1;
    }
}

/* Each row of a refused call takes its class; every rank "Failed:" names
 * must have a row, and a row is refused for all its ranks or none. */
static int assign_failed(parser *ps, cp_block *b)
{
    for (uint32_t i = 0; i < ps->nfail; i++) {
        int64_t named = cp_ranges_count(&ps->fail_ranks[i]), rowed = 0;
        char name[48];
        cp_error_class_name(ps->fail_code[i], name, sizeof name);
        for (size_t r = 0; r < b->nrows; r++) {
            cp_row *row = &b->rows[r];
            int64_t in = 0, all = cp_ranges_count(&row->ranks);
            for (size_t t = 0; t < row->ranks.n; t++)
                for (int64_t v = row->ranks.v[t].lo; v <= row->ranks.v[t].hi && in < all; v++)
                    in += cp_ranges_contains(&ps->fail_ranks[i], v);
            if (in == 0)
                continue;
            if (in != all || row->err)
                return perr(ps, "'Failed: %s' names some ranks of a row and not the others",
                            name);
            row->err = ps->fail_code[i];
            rowed += in;
        }
        if (rowed != named)
            return perr(ps, "'Failed: %s' names a rank that has no row in the block", name);
    }
    return 0;
}

/* Growing scratch array for the values of one row. */
typedef struct values {
    int64_t *v;
    size_t n, cap;
} values;

static int values_push(values *vs, int64_t x)
{
    if (cp_grow((void **)&vs->v, &vs->cap, vs->n + 1, sizeof *vs->v, 64))
        return -1;
    vs->v[vs->n++] = x;
    return 0;
}

/* Room for the rows of the block being parsed, and the line of each (for
 * the two-rows check); grows by doubling. */
typedef struct row_store {
    long *lines;
    size_t cap;
} row_store;

static int row_store_reserve(cp_block *b, row_store *st)
{
    if (b->nrows < st->cap)
        return 0;
    /* Two arrays of one capacity: st->cap changes when both have grown. */
    size_t rcap = st->cap, lcap = st->cap;
    if (cp_grow((void **)&b->rows, &rcap, b->nrows + 1, sizeof *b->rows, 16) ||
        cp_grow((void **)&st->lines, &lcap, b->nrows + 1, sizeof *st->lines, 16))
        return -1;
    st->cap = rcap;
    return 0;
}

/* "Rank(s) LIST: c0 c1 ..." into a new row of b. */
static int parse_row(parser *ps, cp_block *b, values *vs, row_store *st)
{
    char sh[80];
    size_t start = strlen("Rank(s)");
    const char *colon = memchr(ps->line + start, ':', ps->len - start);
    if (!colon)
        return perr(ps, "expected 'Rank(s) LIST: c0 c1 ...', found '%s'",
                    shown(ps, sh, sizeof sh));
    size_t ci = (size_t)(colon - ps->line);
    if (ci == start || !is_space(ps->line[start]))
        return perr(ps, "expected 'Rank(s) LIST: c0 c1 ...', found '%s'",
                    shown(ps, sh, sizeof sh));
    cp_ranges ranks = {0};
    const char *why = "";
    if (cp_ranges_parse(ps->line + start, ci - start, &ranks, &why) != 0)
        return perr(ps, "ranks of 'Rank(s) LIST:': %s", why);
    int64_t top = ranks.v[ranks.n - 1].hi;
    if (top >= b->nranks) {
        cp_ranges_free(&ranks);
        return perr(ps, "rank %" PRId64 " is not below 'Number of ranks: %" PRId64 "'", top,
                    b->nranks);
    }

    /* Values; other tools write "LIST: : c0 ..." (a stray empty field). */
    cursor c = {ps->line, ci + 1, ps->len};
    cur_blanks(&c);
    if (c.i < c.n && c.s[c.i] == ':') {
        c.i++;
        cur_blanks(&c);
    }
    int form = CP_ROW_DENSE;
    if (ps->version >= 5 && cur_word(&c, "sparse"))
        form = CP_ROW_SPARSE;
    else if (ps->version >= 5 && cur_word(&c, "relative"))
        form = CP_ROW_RELATIVE;
    if (form != CP_ROW_DENSE && !ps->row_len_given) {
        cp_ranges_free(&ranks);
        return perr(ps, "a %s row needs 'Row length: L' in the block's header",
                    form == CP_ROW_SPARSE ? "sparse" : "relative");
    }
    /* Dense: the counts; listed: pairs peer (offset), count. */
    vs->n = 0;
    while (!cur_end(&c)) {
        size_t at = c.i;
        int64_t peer = 0, x;
        bool ok = true;
        if (form != CP_ROW_DENSE) {
            bool neg = form == CP_ROW_RELATIVE && c.i < c.n && c.s[c.i] == '-';
            c.i += form == CP_ROW_RELATIVE && c.i < c.n && (c.s[c.i] == '-' || c.s[c.i] == '+');
            if (!cur_number(&c, &peer, &why)) {
                ok = false;
            } else if (!cur_lit(&c, "=")) {
                ok = false;
                why = form == CP_ROW_SPARSE ? "expected PEER=COUNT" : "expected +OFFSET=COUNT";
            }
            peer = neg ? -peer : peer;
        }
        /* negative counts only where the block says so */
        bool minus = b->invalid && c.i + 1 < c.n && c.s[c.i] == '-' && is_digit(c.s[c.i + 1]);
        c.i += ok && minus;
        ok = ok && cur_number(&c, &x, &why);
        if (minus)
            x = -x;
        if (ok && c.i < c.n && !is_space(c.s[c.i])) {
            ok = false;
            why = "expected a non-negative integer";
        }
        if (!ok) {
            size_t end = at;
            while (end < c.n && !is_space(c.s[end]) && end - at < 30)
                end++;
            cp_ranges_free(&ranks);
            return perr(ps, "%s %zu of the row: %s, found '%.*s'",
                        form == CP_ROW_DENSE ? "count" : "item",
                        (form == CP_ROW_DENSE ? vs->n : vs->n / 2) + 1, why, (int)(end - at),
                        c.s + at);
        }
        if ((form != CP_ROW_DENSE && values_push(vs, peer) != 0) || values_push(vs, x) != 0) {
            cp_ranges_free(&ranks);
            return perr(ps, "%s", strerror(ENOMEM));
        }
        cur_blanks(&c);
    }
    if (form == CP_ROW_DENSE && (b->nrows > 0 || ps->row_len_given) && vs->n != b->row_len &&
        !cp_collective_rows_vary(b->collective)) {
        cp_ranges_free(&ranks);
        return perr(ps, ps->row_len_given ? "row has %zu counts, 'Row length:' says %zu"
                                          : "row has %zu counts, the first row of this block has %zu",
                    vs->n, b->row_len);
    }

    /* Store it. */
    size_t n = form == CP_ROW_DENSE ? vs->n : vs->n / 2;
    int64_t *counts = n ? malloc(n * sizeof *counts) : NULL;
    int64_t *peers = form != CP_ROW_DENSE && n ? malloc(n * sizeof *peers) : NULL;
    if (row_store_reserve(b, st) != 0 || (n && !counts) || (form != CP_ROW_DENSE && n && !peers)) {
        free(counts);
        free(peers);
        cp_ranges_free(&ranks);
        return perr(ps, "%s", strerror(ENOMEM));
    }
    for (size_t k = 0; k < n; k++) {
        if (form == CP_ROW_DENSE) {
            counts[k] = vs->v[k];
        } else {
            peers[k] = vs->v[2 * k];
            counts[k] = vs->v[2 * k + 1];
        }
    }
    cp_row *row = &b->rows[b->nrows];
    memset(row, 0, sizeof *row);
    row->ranks = ranks;
    row->counts = counts;
    row->form = form;
    if (form == CP_ROW_DENSE) {
        row->len = n;
        if (!ps->row_len_given && (b->nrows == 0 || n > b->row_len))
            b->row_len = n;
    } else {
        row->len = b->row_len;
        row->peers = peers;
        row->nnz = n;
    }
    const char *problem = cp_compact_row_problem(b, row);
    if (problem) {
        cp_ranges_free(&row->ranks);
        free(row->counts);
        free(row->peers);
        return perr(ps, "%s", problem);
    }
    st->lines[b->nrows] = cp_in_lineno(ps->in);
    b->nrows++;
    return 0;
}

/* One block, from the line after "# Raw counters" to "END DATA". */
static int parse_block(parser *ps, cp_block *b, values *vs)
{
    char sh[80], ex[400];
    enum kind pos = K_START;
    bool have_coll = false;
    int r;
    ps->row_len_given = false;
    fail_clear(ps);

    /* Header. */
    while (pos != K_BEGIN) {
        r = next_line(ps);
        if (r < 0)
            return -1;
        if (r == 0)
            return perr(ps, "unexpected end of file inside a block (truncated file?): "
                            "expected %s", expected_after(ps, pos, ex, sizeof ex));
        enum kind k = classify(ps);
        if (k == K_BLANK)
            continue;
        if (!kind_allowed(ps, pos, k))
            return perr(ps, "expected %s, found '%s'", expected_after(ps, pos, ex, sizeof ex),
                        shown(ps, sh, sizeof sh));
        switch (k) {
        case K_COMM:
            r = parse_comm(ps, b);
            break;
        case K_COLL:
            r = parse_coll(ps, b);
            have_coll = true;
            break;
        case K_ROOT:
            r = parse_number_line(ps, "Root:", &b->root);
            break;
        case K_NRANKS:
            r = parse_number_line(ps, "Number of ranks:", &b->nranks);
            if (r == 0 && b->nranks < 1)
                r = perr(ps, "'Number of ranks:' must be at least 1");
            break;
        case K_DTSIZE:
            r = parse_dtsize(ps, b);
            break;
        case K_CALLS:
            r = parse_calls(ps, b, have_coll);
            break;
        case K_COUNT:
            r = parse_count(ps, b);
            break;
        case K_CALLSITES:
            r = parse_callsites(ps, b);
            break;
        case K_ROWLEN: {
            int64_t len;
            r = parse_number_line(ps, "Row length:", &len);
            b->row_len = (size_t)len;
            ps->row_len_given = true;
            if (r == 0 && cp_collective_rows_vary(b->collective))
                r = perr(ps, "'Row length:' in a block of a neighbourhood collective, whose rows "
                             "differ in length");
            break;
        }
        case K_FAILED:
            r = parse_failed(ps);
            break;
        case K_INVALID:
            r = line_is(ps, "Invalid: negative count")
                    ? 0
                    : perr(ps, "expected 'Invalid: negative count', found '%s'",
                           shown(ps, sh, sizeof sh));
            b->invalid = true;
            break;
        default: /* K_BEGIN */
            r = 0;
            break;
        }
        if (r != 0)
            return -1;
        pos = k;
    }

    /* Data. */
    row_store st = {NULL, 0};
    for (;;) {
        r = next_line(ps);
        if (r < 0)
            break;
        if (r == 0) {
            r = perr(ps, "unexpected end of file inside a block (truncated file?): "
                         "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA'");
            break;
        }
        enum kind k = classify(ps);
        if (k == K_END) {
            r = 0;
            break;
        }
        if (k != K_ROW) {
            r = perr(ps, "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA', found '%s'",
                     shown(ps, sh, sizeof sh));
            break;
        }
        if ((r = parse_row(ps, b, vs, &st)) != 0)
            break;
    }
    /* Without listed rows the row length is what the rows say, as in
     * earlier versions (a block without rows: 0), so that writing the block
     * again gives the same block. */
    if (r == 0 && ps->row_len_given && !cp_compact_listed_rows(b)) {
        b->row_len = 0;
        for (size_t i = 0; i < b->nrows; i++)
            if (b->rows[i].len > b->row_len)
                b->row_len = b->rows[i].len;
    }
    if (r == 0 && ps->nfail)
        r = assign_failed(ps, b);
    fail_clear(ps);
    if (r == 0) {
        size_t ra, rb;
        int64_t rank;
        int shared = cp_compact_shared_rank(b, &ra, &rb, &rank);
        if (shared < 0) {
            r = perr(ps, "%s", strerror(ENOMEM));
        } else if (shared) {
            long la = st.lines[ra], lb = st.lines[rb];
            r = cp_error_set(ps->err, "%s:%ld: rank %" PRId64 " is in two rows (lines %ld and %ld)",
                             cp_in_name(ps->in), lb > la ? lb : la, rank, la, lb);
        }
    }
    free(st.lines);
    return r < 0 ? -1 : 0;
}

/* The version line "# collprof counts N", when the file has one. */
static int parse_version(parser *ps)
{
    char sh[80];
    cursor c = {ps->line, 0, ps->len};
    const char *why = "";
    int64_t v;
    bool ok = cur_lit(&c, "# collprof counts") && c.i < c.n && is_space(c.s[c.i]);
    if (ok) {
        cur_blanks(&c);
        ok = cur_number(&c, &v, &why) && cur_end(&c);
    }
    if (!ok)
        return perr(ps, "expected '# collprof counts <version>', found '%s'",
                    shown(ps, sh, sizeof sh));
    if (v > CP_COUNTS_FORMAT_VERSION)
        return perr(ps,
                    "counts format version %" PRId64 " is newer than version %d, which this "
                    "collprof reads",
                    v, CP_COUNTS_FORMAT_VERSION);
    if (v < 1)
        return perr(ps, "counts format version %" PRId64 " does not exist (expected 1 to %d)", v,
                    CP_COUNTS_FORMAT_VERSION);
    ps->version = (int)v;
    return 0;
}

static int parse(cp_in *in, cp_counts_file *f, bool salvage, cp_error *err)
{
    parser ps = {.in = in, .err = err};
    values vs = {0};
    cp_block *blocks = NULL;
    size_t nblocks = 0, cap = 0;
    char sh[80];
    int r;

    f->blocks = NULL;
    f->nblocks = 0;
    snprintf(f->path, sizeof f->path, "%s", cp_in_name(in));

    r = next_line(&ps);
    if (r > 0) {
        if (classify(&ps) == K_VERSION)
            r = parse_version(&ps) == 0 ? 0 : -1;
        else
            ps.pending = true; /* no version line: other tools' dialect */
    }
    while (r >= 0) {
        r = next_line(&ps);
        if (r <= 0)
            break;
        enum kind k = classify(&ps);
        if (k == K_BLANK)
            continue;
        if (k != K_START) {
            r = perr(&ps, "expected '# Raw counters' (the start of a block), found '%s'",
                     shown(&ps, sh, sizeof sh));
            break;
        }
        if (cp_grow((void **)&blocks, &cap, nblocks + 1, sizeof *blocks, 8)) {
            r = perr(&ps, "%s", strerror(ENOMEM));
            break;
        }
        cp_block_init(&blocks[nblocks]);
        if (parse_block(&ps, &blocks[nblocks], &vs) != 0) {
            cp_block_free(&blocks[nblocks]);
            r = -1;
            break;
        }
        nblocks++;
    }
    free(vs.v);
    fail_clear(&ps);
    if (r < 0 && salvage && nblocks) { /* the whole blocks before the error */
        f->version = ps.version;
        f->blocks = blocks;
        f->nblocks = nblocks;
        return -1;
    }
    if (r < 0) {
        for (size_t i = 0; i < nblocks; i++)
            cp_block_free(&blocks[i]);
        free(blocks);
        return -1;
    }
    f->version = ps.version;
    f->blocks = blocks;
    f->nblocks = nblocks;
    return 0;
}

int cp_compact_parse(cp_in *in, cp_counts_file *f, cp_error *err)
{
    return parse(in, f, false, err);
}

static int parse_whole(cp_in *in, void *f, cp_error *err)
{
    return parse(in, f, false, err);
}

static int parse_salvaged(cp_in *in, void *f, cp_error *err)
{
    return parse(in, f, true, err);
}

int cp_compact_parse_file(const char *path, cp_counts_file *f, cp_error *err)
{
    return cp_in_parse_path(path, parse_whole, f, err);
}

int cp_compact_salvage_file(const char *path, cp_counts_file *f, cp_error *err)
{
    memset(f, 0, sizeof *f);
    return cp_in_parse_path(path, parse_salvaged, f, err);
}
