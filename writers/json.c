/*
 * JSON: the parser shared by the JSON formats (manifest.json,
 * collprof-replay's results), into a tree of values that each format's own
 * reader walks (with the helpers below, whose messages name the file, the
 * line and the column).  Writers stay beside their readers.
 */
#include "json.h"
#include "textio.h"
#include "grow.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arrays and objects nested deeper than this are refused (the manifest
 * itself needs 3 levels; unknown keys of later versions may add a few). */
#define JSON_MAX_DEPTH 64

void cp_jv_free(jv *v)
{
    free(v->s);
    for (size_t k = 0; k < v->n; k++) {
        cp_jv_free(&v->items[k]);
        if (v->keys)
            cp_jv_free(&v->keys[k]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

typedef struct jparser {
    const unsigned char *p;
    size_t len, pos;
    long line;
    size_t line_start;
    const char *name;
    cp_error *err;
} jparser;

static long jcol(const jparser *ps, size_t pos)
{
    return (long)(pos - ps->line_start) + 1;
}

static int jfail_at(const jparser *ps, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int jfail_at(const jparser *ps, long line, long col, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cp_error_set(ps->err, "%s:%ld:%ld: %s", ps->name, line, col, what);
}

#define JFAIL(ps, pos, ...) jfail_at((ps), (ps)->line, jcol((ps), (pos)), __VA_ARGS__)

static void skip_ws(jparser *ps)
{
    while (ps->pos < ps->len) {
        unsigned char c = ps->p[ps->pos];
        if (c == '\n') {
            ps->pos++;
            ps->line++;
            ps->line_start = ps->pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ps->pos++;
        } else {
            break;
        }
    }
}

static int peek(const jparser *ps)
{
    return ps->pos < ps->len ? ps->p[ps->pos] : -1;
}

/* A short printable description of the byte at pos, for messages. */
static const char *found(const jparser *ps, char *buf, size_t size)
{
    if (ps->pos >= ps->len)
        return "end of input";
    unsigned char c = ps->p[ps->pos];
    if (c >= 0x21 && c < 0x7F)
        snprintf(buf, size, "'%c'", c);
    else
        snprintf(buf, size, "byte 0x%02X", c);
    return buf;
}

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static int sbuf_put(sbuf *b, const void *data, size_t n)
{
    if (cp_grow((void **)&b->s, &b->cap, b->n + n + 1, 1, 32))
        return -1;
    memcpy(b->s + b->n, data, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

static int hex4(const jparser *ps, size_t at, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        if (at + k >= ps->len)
            return -1;
        unsigned char c = ps->p[at + k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* At '"': parse a string into v (JV_STR). */
static int parse_string(jparser *ps, jv *v)
{
    sbuf b = {0};
    v->type = JV_STR;
    v->line = ps->line;
    v->col = jcol(ps, ps->pos);
    ps->pos++; /* opening quote */
    for (;;) {
        if (ps->pos >= ps->len) {
            free(b.s);
            return JFAIL(ps, ps->pos, "expected '\"' to close the string that starts at %ld:%ld",
                         v->line, v->col);
        }
        size_t run = ps->pos;
        while (run < ps->len && ps->p[run] >= 0x20 && ps->p[run] < 0x80 && ps->p[run] != '"' &&
               ps->p[run] != '\\')
            run++;
        if (run > ps->pos) {
            if (sbuf_put(&b, ps->p + ps->pos, run - ps->pos) < 0)
                goto oom;
            ps->pos = run;
            continue;
        }
        unsigned char c = ps->p[ps->pos];
        if (c == '"') {
            ps->pos++;
            if (!b.s && sbuf_put(&b, "", 0) < 0)
                goto oom;
            v->s = b.s;
            v->slen = b.n;
            return 0;
        }
        if (c < 0x20) {
            free(b.s);
            return JFAIL(ps, ps->pos,
                         "expected an escape sequence instead of control character 0x%02X in a string",
                         c);
        }
        if (c >= 0x80) {
            size_t l = cp_utf8_len(ps->p + ps->pos, ps->len - ps->pos);
            if (l == 0) {
                free(b.s);
                return JFAIL(ps, ps->pos, "expected valid UTF-8 in a string (byte 0x%02X)", c);
            }
            if (sbuf_put(&b, ps->p + ps->pos, l) < 0)
                goto oom;
            ps->pos += l;
            continue;
        }
        /* backslash */
        size_t esc_at = ps->pos;
        if (ps->pos + 1 >= ps->len) {
            free(b.s);
            return JFAIL(ps, ps->pos + 1, "expected an escape character after '\\'");
        }
        unsigned char e = ps->p[ps->pos + 1];
        char ch = 0;
        switch (e) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': break;
        default:
            free(b.s);
            return JFAIL(ps, ps->pos + 1,
                         "expected an escape character (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        }
        if (e != 'u') {
            if (sbuf_put(&b, &ch, 1) < 0)
                goto oom;
            ps->pos += 2;
            continue;
        }
        uint32_t cp;
        if (hex4(ps, ps->pos + 2, &cp) < 0) {
            free(b.s);
            return JFAIL(ps, esc_at, "expected four hexadecimal digits after \\u");
        }
        ps->pos += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            free(b.s);
            return JFAIL(ps, esc_at, "expected a high surrogate (\\uD800-\\uDBFF) before \\u%04X",
                         (unsigned)cp);
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (ps->pos + 1 >= ps->len || ps->p[ps->pos] != '\\' || ps->p[ps->pos + 1] != 'u' ||
                hex4(ps, ps->pos + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF) {
                free(b.s);
                return JFAIL(ps, ps->pos,
                             "expected a low surrogate (\\uDC00-\\uDFFF) after \\u%04X",
                             (unsigned)cp);
            }
            ps->pos += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp == 0) {
            free(b.s);
            return JFAIL(ps, esc_at, "expected a character other than \\u0000 (NUL)");
        }
        char u8[4];
        if (sbuf_put(&b, u8, utf8_encode(cp, u8)) < 0)
            goto oom;
    }
oom:
    free(b.s);
    return cp_error_set(ps->err, "%s: out of memory", ps->name);
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(jparser *ps, jv *v)
{
    size_t start = ps->pos;
    bool neg = false;
    int64_t acc = 0;
    v->type = JV_INT;
    v->line = ps->line;
    v->col = jcol(ps, start);
    if (peek(ps) == '-') {
        neg = true;
        ps->pos++;
    }
    if (!is_digit(peek(ps)))
        return JFAIL(ps, ps->pos, "expected a digit");
    if (peek(ps) == '0' && ps->pos + 1 < ps->len && is_digit(ps->p[ps->pos + 1]))
        return JFAIL(ps, start, "expected a number without leading zeros");
    while (is_digit(peek(ps))) {
        int d = ps->p[ps->pos++] - '0';
        /* accumulate negatively so that INT64_MIN fits */
        if (!v->overflow &&
            (__builtin_mul_overflow(acc, 10, &acc) || __builtin_sub_overflow(acc, d, &acc)))
            v->overflow = true;
    }
    if (peek(ps) == '.') {
        ps->pos++;
        if (!is_digit(peek(ps)))
            return JFAIL(ps, ps->pos, "expected a digit after '.'");
        while (is_digit(peek(ps)))
            ps->pos++;
        v->type = JV_NUM;
    }
    if (peek(ps) == 'e' || peek(ps) == 'E') {
        ps->pos++;
        if (peek(ps) == '+' || peek(ps) == '-')
            ps->pos++;
        if (!is_digit(peek(ps)))
            return JFAIL(ps, ps->pos, "expected a digit in the exponent");
        while (is_digit(peek(ps)))
            ps->pos++;
        v->type = JV_NUM;
    }
    char tok[64], *big = NULL;
    size_t n = ps->pos - start;
    char *t = n < sizeof tok ? tok : (big = malloc(n + 1));
    if (!t)
        return JFAIL(ps, start, "out of memory");
    memcpy(t, ps->p + start, n);
    t[n] = '\0';
    v->d = strtod(t, NULL); /* the grammar above is strtod's, in the C locale */
    free(big);
    if (v->type == JV_INT && !v->overflow) {
        if (neg)
            v->i = acc;
        else if (acc == INT64_MIN)
            v->overflow = true;
        else
            v->i = -acc;
    }
    return 0;
}

static int parse_value(jparser *ps, jv *v, int depth);

static int push_item(jparser *ps, jv *container, bool with_key)
{
    if (container->n == container->cap) {
        size_t cap = container->cap, kcap = container->cap;
        if (cp_grow((void **)&container->items, &cap, container->n + 1, sizeof(jv), 4) ||
            (with_key && cp_grow((void **)&container->keys, &kcap, container->n + 1, sizeof(jv), 4)))
            return cp_error_set(ps->err, "%s: out of memory", ps->name);
        container->cap = cap;
    }
    memset(&container->items[container->n], 0, sizeof(jv));
    if (with_key)
        memset(&container->keys[container->n], 0, sizeof(jv));
    container->n++;
    return 0;
}

/* After an object's member or an array's element: 1 when a ',' says
 * another follows, 0 when `close` ends the list, -1 (error set) else. */
static int list_next(jparser *ps, char close, const char *what)
{
    char fb[16];
    skip_ws(ps);
    if (peek(ps) == ',') {
        ps->pos++;
        skip_ws(ps);
        return 1;
    }
    if (peek(ps) == close) {
        ps->pos++;
        return 0;
    }
    return JFAIL(ps, ps->pos, "expected ',' or '%c' after %s, found %s", close, what,
                 found(ps, fb, sizeof fb));
}

static int parse_object(jparser *ps, jv *v, int depth)
{
    char fb[16];
    v->type = JV_OBJ;
    ps->pos++; /* '{' */
    skip_ws(ps);
    if (peek(ps) == '}') {
        ps->pos++;
        return 0;
    }
    for (;;) {
        if (peek(ps) != '"')
            return JFAIL(ps, ps->pos, "expected a string key%s, found %s",
                         v->n == 0 ? " or '}'" : "", found(ps, fb, sizeof fb));
        if (push_item(ps, v, true) < 0)
            return -1;
        if (parse_string(ps, &v->keys[v->n - 1]) < 0)
            return -1;
        skip_ws(ps);
        if (peek(ps) != ':')
            return JFAIL(ps, ps->pos, "expected ':' after the key \"%s\", found %s",
                         v->keys[v->n - 1].s, found(ps, fb, sizeof fb));
        ps->pos++;
        skip_ws(ps);
        if (parse_value(ps, &v->items[v->n - 1], depth + 1) < 0)
            return -1;
        int more = list_next(ps, '}', "an object member");
        if (more <= 0)
            return more;
    }
}

static int parse_array(jparser *ps, jv *v, int depth)
{
    v->type = JV_ARR;
    ps->pos++; /* '[' */
    skip_ws(ps);
    if (peek(ps) == ']') {
        ps->pos++;
        return 0;
    }
    for (;;) {
        if (push_item(ps, v, false) < 0)
            return -1;
        if (parse_value(ps, &v->items[v->n - 1], depth + 1) < 0)
            return -1;
        int more = list_next(ps, ']', "an array element");
        if (more <= 0)
            return more;
    }
}

static bool match_word(const jparser *ps, const char *w)
{
    size_t n = strlen(w);
    return ps->len - ps->pos >= n && memcmp(ps->p + ps->pos, w, n) == 0;
}

/* At the first byte of a value (whitespace already skipped). */
static int parse_value(jparser *ps, jv *v, int depth)
{
    char fb[16];
    int c = peek(ps);
    v->line = ps->line;
    v->col = jcol(ps, ps->pos);
    if (c == '{' || c == '[') {
        if (depth >= JSON_MAX_DEPTH)
            return JFAIL(ps, ps->pos, "expected at most %d nested arrays and objects",
                         JSON_MAX_DEPTH);
        return c == '{' ? parse_object(ps, v, depth) : parse_array(ps, v, depth);
    }
    if (c == '"')
        return parse_string(ps, v);
    if (c == '-' || is_digit(c))
        return parse_number(ps, v);
    if (match_word(ps, "true") || match_word(ps, "false")) {
        v->type = JV_BOOL;
        v->b = c == 't';
        ps->pos += v->b ? 4 : 5;
        return 0;
    }
    if (match_word(ps, "null")) {
        v->type = JV_NULL;
        ps->pos += 4;
        return 0;
    }
    return JFAIL(ps, ps->pos, "expected a value (object, array, string, number, true, false or null), found %s",
                 found(ps, fb, sizeof fb));
}


int cp_json_parse(const char *data, size_t len, const char *name, jv *root, cp_error *err)
{
    jparser ps = {.p = (const unsigned char *)data, .len = len, .line = 1, .name = name, .err = err};
    char fb[16];
    memset(root, 0, sizeof *root);
    skip_ws(&ps);
    int rc = parse_value(&ps, root, 0);
    if (rc == 0) {
        skip_ws(&ps);
        if (ps.pos < ps.len)
            rc = JFAIL(&ps, ps.pos, "expected the end of the input after the top-level value, found %s",
                       found(&ps, fb, sizeof fb));
    }
    if (rc < 0)
        cp_jv_free(root);
    return rc;
}

/* ============================================================= writing */

/* The one JSON string escaper (every JSON collprof writes goes through
 * it): quotes, backslashes and control characters escaped, valid UTF-8
 * kept as is, invalid bytes replaced by U+FFFD so that the output is
 * always valid JSON.  Runs of bytes that need no escape go to put in one
 * piece. */
int cp_json_escape(const char *s, size_t n, cp_json_put put, void *ctx)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0, i = 0;
    if (put(ctx, "\"", 1) < 0)
        return -1;
    while (i < n) {
        unsigned char c = u[i];
        const char *esc = NULL;
        char buf[8];
        size_t skip = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\b')
            esc = "\\b";
        else if (c == '\f')
            esc = "\\f";
        else if (c < 0x20) {
            snprintf(buf, sizeof buf, "\\u%04x", c);
            esc = buf;
        } else if (c >= 0x80) {
            size_t l = cp_utf8_len(u + i, n - i);
            if (l == 0)
                esc = "\xEF\xBF\xBD"; /* U+FFFD */
            else
                skip = l;
        }
        if (esc) {
            if (i > start && put(ctx, s + start, i - start) < 0)
                return -1;
            if (put(ctx, esc, strlen(esc)) < 0)
                return -1;
            i += skip;
            start = i;
        } else {
            i += skip;
        }
    }
    if (i > start && put(ctx, s + start, i - start) < 0)
        return -1;
    return put(ctx, "\"", 1);
}

static int put_out(void *ctx, const char *p, size_t n)
{
    return cp_out_write(ctx, p, n) < 0 ? -1 : 0;
}

int cp_json_write_string(cp_out *o, const char *s, size_t n)
{
    return cp_json_escape(s, n, put_out, o);
}

/* ======================================================= tree helpers */

int cp_jfail(const jctx *cx, const jv *v, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cp_error_set(cx->err, "%s:%ld:%ld: %s", cx->name, v->line, v->col, what);
}

const char *cp_jtype_name(jv_type t)
{
    switch (t) {
    case JV_NULL: return "null";
    case JV_BOOL: return "a boolean";
    case JV_INT:
    case JV_NUM: return "a number";
    case JV_STR: return "a string";
    case JV_ARR: return "an array";
    case JV_OBJ: return "an object";
    }
    return "a value";
}

/* The value of key in object o; NULL (and an error when required) when
 * absent; an error when the key appears twice. */
int cp_jget_member(const jctx *cx, const jv *o, const char *key, bool required,
                      const jv **out)
{
    *out = NULL;
    for (size_t k = 0; k < o->n; k++) {
        if (o->keys[k].slen == strlen(key) && memcmp(o->keys[k].s, key, o->keys[k].slen) == 0) {
            if (*out)
                return cp_jfail(cx, &o->keys[k], "expected the key \"%s\" only once in an object",
                             key);
            *out = &o->items[k];
        }
    }
    if (!*out && required)
        return cp_jfail(cx, o, "expected the key \"%s\" in this object", key);
    return 0;
}

int cp_jget_int(const jctx *cx, const jv *o, const char *key, int64_t min, int64_t max,
                   int64_t *out)
{
    const jv *v;
    if (cp_jget_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_INT || v->overflow)
        return cp_jfail(cx, v, "expected an integer for \"%s\", found %s", key,
                     v->type == JV_INT ? "an integer outside the 64-bit range" : cp_jtype_name(v->type));
    if (v->i < min || v->i > max)
        return cp_jfail(cx, v, "expected \"%s\" between %" PRId64 " and %" PRId64 ", found %" PRId64,
                     key, min, max, v->i);
    *out = v->i;
    return 0;
}

int cp_jget_str(const jctx *cx, const jv *o, const char *key, char *dst, size_t size)
{
    const jv *v;
    if (cp_jget_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_STR)
        return cp_jfail(cx, v, "expected a string for \"%s\", found %s", key, cp_jtype_name(v->type));
    if (v->slen >= size)
        return cp_jfail(cx, v, "expected a string of at most %zu bytes for \"%s\", found %zu bytes",
                     size - 1, key, v->slen);
    memcpy(dst, v->s, v->slen + 1);
    return 0;
}

int cp_jget_num(const jctx *cx, const jv *o, const char *key, double *out)
{
    const jv *v;
    if (cp_jget_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_INT && v->type != JV_NUM)
        return cp_jfail(cx, v, "expected a number for \"%s\", found %s", key,
                        cp_jtype_name(v->type));
    *out = v->d;
    return 0;
}
