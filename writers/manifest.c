/*
 * manifest.json: writer and parser (docs/formats.md, "manifest.json").
 *
 * The writer emits one fixed layout (2-space indentation, keys in a fixed
 * order, one communicator per line).  The parser is a small recursive-descent
 * JSON parser that builds a tree of values (bounded nesting depth, every
 * access checked against the input length), then maps that tree onto the
 * profile model.  Errors read "<file>:<line>:<column>: expected ...", with
 * 1-based lines and 1-based byte columns.
 */
#include "manifest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "textio.h"

#define MANIFEST_FORMAT_NAME "collprof-manifest"
/* Arrays and objects nested deeper than this are refused (the manifest
 * itself needs 3 levels; unknown keys of later versions may add a few). */
#define JSON_MAX_DEPTH 64

/* ======================================================= model helpers */

void cp_neighbors_free(cp_neighbors *nb, int64_t n)
{
    for (int64_t r = 0; nb && r < n; r++) {
        free(nb[r].sources);
        free(nb[r].destinations);
    }
    free(nb);
}

static bool list_equal(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static bool neighbors_equal(const cp_comm_info *x, const cp_comm_info *y)
{
    if (!x->neighbors || !y->neighbors)
        return !x->neighbors && !y->neighbors;
    for (int64_t r = 0; r < x->size; r++) {
        const cp_neighbors *a = &x->neighbors[r], *b = &y->neighbors[r];
        if (!list_equal(a->sources, a->nsources, b->sources, b->nsources) ||
            !list_equal(a->destinations, a->ndestinations, b->destinations, b->ndestinations))
            return false;
    }
    return true;
}

static void kv_free(cp_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

void cp_manifest_free(cp_manifest *m)
{
    if (!m)
        return;
    kv_free(m->config, m->nconfig);
    kv_free(m->missing, m->nmissing);
    for (size_t i = 0; i < m->ncomms; i++) {
        cp_ranges_free(&m->comms[i].members);
        cp_ranges_free(&m->comms[i].remote_members);
        cp_neighbors_free(m->comms[i].neighbors, m->comms[i].size);
    }
    free(m->comms);
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->files);
    free(m->call_tree);
    memset(m, 0, sizeof *m);
}

/* Fixed-size string fields compared up to their size, so that a field that
 * is (wrongly) not NUL-terminated is still compared safely. */
#define FIELD_EQ(a, b, f) (strncmp((a)->f, (b)->f, sizeof (a)->f) == 0)

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool kv_equal(const cp_kv *a, size_t na, const cp_kv *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!str_eq(a[i].key, b[i].key) || !str_eq(a[i].value, b[i].value))
            return false;
    return true;
}

bool cp_manifest_equal(const cp_manifest *a, const cp_manifest *b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    if (a->format_version != b->format_version ||
        a->counts_format_version != b->counts_format_version ||
        !FIELD_EQ(a, b, collprof_version) || !FIELD_EQ(a, b, mpi_version) ||
        !FIELD_EQ(a, b, job) || !FIELD_EQ(a, b, start_time) ||
        a->world_size != b->world_size || a->partial != b->partial ||
        !FIELD_EQ(a, b, partial_reason) || !kv_equal(a->config, a->nconfig, b->config, b->nconfig) ||
        !kv_equal(a->missing, a->nmissing, b->missing, b->nmissing) ||
        a->ncomms != b->ncomms || a->nfiles != b->nfiles)
        return false;
    for (size_t i = 0; i < a->ncomms; i++) {
        const cp_comm_info *x = &a->comms[i], *y = &b->comms[i];
        if (x->id != y->id || x->size != y->size || x->lead != y->lead ||
            !cp_ranges_equal(&x->members, &y->members) ||
            !cp_ranges_equal(&x->remote_members, &y->remote_members) ||
            !neighbors_equal(x, y))
            return false;
    }
    for (size_t i = 0; i < a->nfiles; i++)
        if (!str_eq(a->files[i], b->files[i]))
            return false;
    if (a->has_clock != b->has_clock ||
        (a->has_clock &&
         (strcmp(a->clock.source, b->clock.source) || a->clock.tsc_ranks != b->clock.tsc_ranks ||
          a->clock.tsc_hz != b->clock.tsc_hz || a->clock.max_drift_ppm != b->clock.max_drift_ppm ||
          a->clock.drift_bound_ppm != b->clock.drift_bound_ppm ||
          strcmp(a->clock.note, b->clock.note))))
        return false;
    if (a->ncall_tree != b->ncall_tree)
        return false;
    for (size_t i = 0; i < a->ncall_tree; i++) {
        const cp_callsite_node *x = &a->call_tree[i], *y = &b->call_tree[i];
        if (x->parent != y->parent || x->address != y->address ||
            strcmp(x->function, y->function) || strcmp(x->module, y->module))
            return false;
    }
    return true;
}

/* ============================================================== writer */

/* Write s[0..n) as a JSON string: quotes, backslashes and control
 * characters escaped, valid UTF-8 kept as is, invalid bytes replaced by
 * U+FFFD so that the output is always valid JSON. */
static int write_json_string(cp_out *o, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0, i = 0;
    if (cp_out_write(o, "\"", 1) < 0)
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
            if (i > start && cp_out_write(o, s + start, i - start) < 0)
                return -1;
            if (cp_out_write(o, esc, strlen(esc)) < 0)
                return -1;
            i += skip;
            start = i;
        } else {
            i += skip;
        }
    }
    if (i > start && cp_out_write(o, s + start, i - start) < 0)
        return -1;
    return cp_out_write(o, "\"", 1);
}

static int write_cstr(cp_out *o, const char *s)
{
    return write_json_string(o, s ? s : "", s ? strlen(s) : 0);
}

/* A fixed-size field of the model: never read past its end. */
#define WRITE_FIELD(o, m, f) write_json_string((o), (m)->f, strnlen((m)->f, sizeof (m)->f))

/* ', "neighbors": {"sources": [[1,2],[0]], "destinations": [[...],...]}' */
static int write_lists(cp_out *o, const cp_comm_info *c, bool sources)
{
    if (cp_out_printf(o, "[") < 0)
        return -1;
    for (int64_t r = 0; r < c->size; r++) {
        const cp_neighbors *nb = &c->neighbors[r];
        const int64_t *v = sources ? nb->sources : nb->destinations;
        size_t n = sources ? nb->nsources : nb->ndestinations;
        if (cp_out_printf(o, "%s[", r ? ", " : "") < 0)
            return -1;
        for (size_t k = 0; k < n; k++)
            if (cp_out_printf(o, k ? ",%" PRId64 : "%" PRId64, v[k]) < 0)
                return -1;
        if (cp_out_printf(o, "]") < 0)
            return -1;
    }
    return cp_out_printf(o, "]");
}

static int write_neighbors(cp_out *o, const cp_comm_info *c)
{
    if (!c->neighbors)
        return 0;
    if (cp_out_printf(o, ", \"neighbors\": {\"sources\": ") < 0 || write_lists(o, c, true) < 0 ||
        cp_out_printf(o, ", \"destinations\": ") < 0 || write_lists(o, c, false) < 0)
        return -1;
    return cp_out_printf(o, "}");
}

/* ',\n  "clock": {"source": "tsc", "tsc_ranks": 4, "tsc_hz": 2894561234,
 * "max_drift_ppm": 12, "drift_bound_ppm": 5000, "note": ""}' (when timed). */
/* ",\n  "name": {"key": "value", ...}" */
static int write_kv(cp_out *o, const char *name, const cp_kv *kv, size_t n)
{
    bool ok = cp_out_printf(o, ",\n  \"%s\": {", name) >= 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = (i == 0 || cp_out_printf(o, ", ") >= 0) && write_cstr(o, kv[i].key) >= 0 &&
             cp_out_printf(o, ": ") >= 0 && write_cstr(o, kv[i].value) >= 0;
    return ok && cp_out_printf(o, "}") >= 0 ? 0 : -1;
}

static int write_clock(cp_out *o, const cp_manifest *m)
{
    if (!m->has_clock)
        return 0;
    const cp_clock_info *c = &m->clock;
    if (cp_out_printf(o, ",\n  \"clock\": {\"source\": ") < 0 || WRITE_FIELD(o, c, source) < 0 ||
        cp_out_printf(o,
                      ", \"tsc_ranks\": %" PRId64 ", \"tsc_hz\": %" PRId64
                      ", \"max_drift_ppm\": %" PRId64 ", \"drift_bound_ppm\": %" PRId64
                      ", \"note\": ",
                      c->tsc_ranks, c->tsc_hz, c->max_drift_ppm, c->drift_bound_ppm) < 0 ||
        WRITE_FIELD(o, c, note) < 0)
        return -1;
    return cp_out_printf(o, "}");
}

/* ',\n  "call_tree": [{"parent": -1, "function": "main", "module": "/app", "address": 4660}]'
 * (only when call paths were recorded; a node's id is its index). */
static int write_call_tree(cp_out *o, const cp_manifest *m)
{
    if (m->ncall_tree == 0)
        return 0;
    if (cp_out_printf(o, ",\n  \"call_tree\": [") < 0)
        return -1;
    for (size_t i = 0; i < m->ncall_tree; i++) {
        const cp_callsite_node *n = &m->call_tree[i];
        if (cp_out_printf(o, "%s\n    {\"parent\": %" PRId64 ", \"function\": ", i ? "," : "",
                          n->parent) < 0 ||
            WRITE_FIELD(o, n, function) < 0 || cp_out_printf(o, ", \"module\": ") < 0 ||
            WRITE_FIELD(o, n, module) < 0 ||
            cp_out_printf(o, ", \"address\": %" PRIu64 "}", n->address) < 0)
            return -1;
    }
    return cp_out_printf(o, "\n  ]");
}

int cp_manifest_write(cp_out *o, const cp_manifest *m, cp_error *err)
{
    int counts_version = m->counts_format_version > 0 ? m->counts_format_version
                                                      : CP_COUNTS_FORMAT_VERSION;
    bool ok = cp_out_printf(o,
                            "{\n  \"format\": \"" MANIFEST_FORMAT_NAME "\",\n"
                            "  \"format_version\": %d,\n"
                            "  \"counts_format_version\": %d,\n",
                            CP_MANIFEST_FORMAT_VERSION, counts_version) >= 0;
    ok = ok && cp_out_printf(o, "  \"collprof_version\": ") >= 0 &&
         WRITE_FIELD(o, m, collprof_version) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"mpi_version\": ") >= 0 &&
         WRITE_FIELD(o, m, mpi_version) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"job\": ") >= 0 && WRITE_FIELD(o, m, job) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"start_time\": ") >= 0 &&
         WRITE_FIELD(o, m, start_time) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"world_size\": %" PRId64 ",\n  \"partial\": %s,\n"
                                "  \"partial_reason\": ",
                             m->world_size, m->partial ? "true" : "false") >= 0 &&
         WRITE_FIELD(o, m, partial_reason) >= 0;

    ok = ok && write_kv(o, "config", m->config, m->nconfig) >= 0 && write_clock(o, m) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"communicators\": [") >= 0;
    for (size_t i = 0; ok && i < m->ncomms; i++) {
        const cp_comm_info *c = &m->comms[i];
        char *members = cp_ranges_to_string(&c->members);
        if (!members)
            return cp_error_set(err, "%s: out of memory", cp_out_path(o));
        char *remote = c->remote_members.n ? cp_ranges_to_string(&c->remote_members) : NULL;
        if (c->remote_members.n && !remote) {
            free(members);
            return cp_error_set(err, "%s: out of memory", cp_out_path(o));
        }
        ok = cp_out_printf(o,
                           "%s\n    {\"id\": %" PRId64 ", \"size\": %" PRId64
                           ", \"lead\": %" PRId64 ", \"members\": \"%s\"%s%s%s",
                           i ? "," : "", c->id, c->size, c->lead, members,
                           remote ? ", \"remote_members\": \"" : "", remote ? remote : "",
                           remote ? "\"" : "") >= 0;
        ok = ok && write_neighbors(o, c) >= 0 && cp_out_printf(o, "}") >= 0;
        free(members);
        free(remote);
    }
    ok = ok && cp_out_printf(o, "%s]", m->ncomms ? "\n  " : "") >= 0;
    ok = ok && write_call_tree(o, m) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"files\": [") >= 0;
    for (size_t i = 0; ok && i < m->nfiles; i++)
        ok = (i == 0 || cp_out_printf(o, ", ") >= 0) && write_cstr(o, m->files[i]) >= 0;
    ok = ok && cp_out_printf(o, "]") >= 0;
    if (m->nmissing)
        ok = ok && write_kv(o, "missing", m->missing, m->nmissing) >= 0;
    ok = ok && cp_out_printf(o, "\n}\n") >= 0;
    if (!ok) {
        if (cp_out_status(o, err) == 0) /* not a write error: our own formatting */
            cp_error_set(err, "%s: cannot write the manifest", cp_out_path(o));
        return -1;
    }
    return 0;
}

int cp_manifest_write_file(const char *path, bool gzip, const cp_manifest *m, cp_error *err)
{
    cp_out *o = cp_out_open(path, gzip, err);
    if (!o)
        return -1;
    if (cp_manifest_write(o, m, err) < 0) {
        cp_out_abort(o);
        return -1;
    }
    return cp_out_commit(o, err);
}

/* ============================================================ JSON tree */

typedef enum { JV_NULL, JV_BOOL, JV_INT, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jv jv;
struct jv {
    jv_type type;
    long line, col;    /* where the value starts */
    bool b;            /* JV_BOOL */
    int64_t i;         /* JV_INT */
    bool overflow;     /* JV_INT outside int64 */
    char *s;           /* JV_STR: NUL-terminated, no NUL inside */
    size_t slen;
    jv *items;         /* JV_ARR elements / JV_OBJ member values */
    jv *keys;          /* JV_OBJ member keys (JV_STR values) */
    size_t n, cap;
};

static void jv_free(jv *v)
{
    free(v->s);
    for (size_t k = 0; k < v->n; k++) {
        jv_free(&v->items[k]);
        if (v->keys)
            jv_free(&v->keys[k]);
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
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
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
        size_t cap = container->cap ? container->cap * 2 : 4;
        jv *items = realloc(container->items, cap * sizeof *items);
        if (!items)
            return cp_error_set(ps->err, "%s: out of memory", ps->name);
        container->items = items;
        if (with_key) {
            jv *keys = realloc(container->keys, cap * sizeof *keys);
            if (!keys)
                return cp_error_set(ps->err, "%s: out of memory", ps->name);
            container->keys = keys;
        }
        container->cap = cap;
    }
    memset(&container->items[container->n], 0, sizeof(jv));
    if (with_key)
        memset(&container->keys[container->n], 0, sizeof(jv));
    container->n++;
    return 0;
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
        skip_ws(ps);
        if (peek(ps) == ',') {
            ps->pos++;
            skip_ws(ps);
            continue;
        }
        if (peek(ps) == '}') {
            ps->pos++;
            return 0;
        }
        return JFAIL(ps, ps->pos, "expected ',' or '}' after an object member, found %s",
                     found(ps, fb, sizeof fb));
    }
}

static int parse_array(jparser *ps, jv *v, int depth)
{
    char fb[16];
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
        skip_ws(ps);
        if (peek(ps) == ',') {
            ps->pos++;
            skip_ws(ps);
            continue;
        }
        if (peek(ps) == ']') {
            ps->pos++;
            return 0;
        }
        return JFAIL(ps, ps->pos, "expected ',' or ']' after an array element, found %s",
                     found(ps, fb, sizeof fb));
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

/* ====================================================== tree -> model */

typedef struct jctx {
    const char *name;
    cp_error *err;
} jctx;

static int vfail(const jctx *cx, const jv *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int vfail(const jctx *cx, const jv *v, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cp_error_set(cx->err, "%s:%ld:%ld: %s", cx->name, v->line, v->col, what);
}

static const char *type_name(jv_type t)
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
static int get_member(const jctx *cx, const jv *o, const char *key, bool required,
                      const jv **out)
{
    *out = NULL;
    for (size_t k = 0; k < o->n; k++) {
        if (o->keys[k].slen == strlen(key) && memcmp(o->keys[k].s, key, o->keys[k].slen) == 0) {
            if (*out)
                return vfail(cx, &o->keys[k], "expected the key \"%s\" only once in an object",
                             key);
            *out = &o->items[k];
        }
    }
    if (!*out && required)
        return vfail(cx, o, "expected the key \"%s\" in this object", key);
    return 0;
}

static int get_int(const jctx *cx, const jv *o, const char *key, int64_t min, int64_t max,
                   int64_t *out)
{
    const jv *v;
    if (get_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_INT || v->overflow)
        return vfail(cx, v, "expected an integer for \"%s\", found %s", key,
                     v->type == JV_INT ? "an integer outside the 64-bit range" : type_name(v->type));
    if (v->i < min || v->i > max)
        return vfail(cx, v, "expected \"%s\" between %" PRId64 " and %" PRId64 ", found %" PRId64,
                     key, min, max, v->i);
    *out = v->i;
    return 0;
}

static int get_str(const jctx *cx, const jv *o, const char *key, char *dst, size_t size)
{
    const jv *v;
    if (get_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_STR)
        return vfail(cx, v, "expected a string for \"%s\", found %s", key, type_name(v->type));
    if (v->slen >= size)
        return vfail(cx, v, "expected a string of at most %zu bytes for \"%s\", found %zu bytes",
                     size - 1, key, v->slen);
    memcpy(dst, v->s, v->slen + 1);
    return 0;
}

static char *steal(jv *v)
{
    char *s = v->s;
    v->s = NULL;
    return s;
}

static int cmp_key_ptr(const void *a, const void *b)
{
    const jv *x = *(const jv *const *)a, *y = *(const jv *const *)b;
    int c = strcmp(x->s, y->s);
    if (c)
        return c;
    /* equal keys: the later one first, so that it is the one reported */
    return (x->line > y->line || (x->line == y->line && x->col > y->col)) ? -1 : 1;
}

static int to_clock(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (v->type != JV_OBJ)
        return vfail(cx, v, "expected an object for \"clock\", found %s", type_name(v->type));
    cp_clock_info *c = &m->clock;
    if (get_str(cx, v, "source", c->source, sizeof c->source) < 0 ||
        get_int(cx, v, "tsc_ranks", 0, INT64_MAX, &c->tsc_ranks) < 0 ||
        get_int(cx, v, "tsc_hz", 0, INT64_MAX, &c->tsc_hz) < 0 ||
        get_int(cx, v, "max_drift_ppm", 0, INT64_MAX, &c->max_drift_ppm) < 0 ||
        get_int(cx, v, "drift_bound_ppm", 0, INT64_MAX, &c->drift_bound_ppm) < 0 ||
        get_str(cx, v, "note", c->note, sizeof c->note) < 0)
        return -1;
    if (strcmp(c->source, "tsc") && strcmp(c->source, "monotonic") && strcmp(c->source, "mixed"))
        return vfail(cx, v, "expected \"source\" to be tsc, monotonic or mixed, found \"%s\"",
                     c->source);
    m->has_clock = true;
    return 0;
}

/* An object of strings (\"config\", \"missing\") into *out, *n. */
static int to_kv(const jctx *cx, jv *v, const char *what, cp_kv **out, size_t *n)
{
    if (v->type != JV_OBJ)
        return vfail(cx, v, "expected an object for \"%s\", found %s", what, type_name(v->type));
    if (v->n == 0)
        return 0;
    /* unique keys: sort pointers, compare neighbours */
    const jv **sorted = malloc(v->n * sizeof *sorted);
    if (!sorted)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++)
        sorted[k] = &v->keys[k];
    qsort(sorted, v->n, sizeof *sorted, cmp_key_ptr);
    for (size_t k = 1; k < v->n; k++)
        if (strcmp(sorted[k - 1]->s, sorted[k]->s) == 0) {
            const jv *dup = sorted[k - 1];
            free(sorted);
            return vfail(cx, dup, "expected the key \"%s\" only once in \"%s\"", dup->s,
                         what);
        }
    free(sorted);
    *out = calloc(v->n, sizeof **out);
    if (!*out)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        if (v->items[k].type != JV_STR)
            return vfail(cx, &v->items[k], "expected a string value for %s key \"%s\", found %s",
                         what, v->keys[k].s, type_name(v->items[k].type));
        (*out)[k].key = steal(&v->keys[k]);
        (*out)[k].value = steal(&v->items[k]);
        (*n)++;
    }
    return 0;
}

/* One of "sources"/"destinations": an array of c->size arrays of ranks. */
static int to_lists(const jctx *cx, const jv *o, const char *key, cp_comm_info *c, bool sources)
{
    const jv *a;
    if (get_member(cx, o, key, true, &a) < 0)
        return -1;
    if (a->type != JV_ARR || (int64_t)a->n != c->size)
        return vfail(cx, a, "expected an array of %" PRId64 " neighbour lists for \"%s\"",
                     c->size, key);
    for (size_t r = 0; r < a->n; r++) {
        const jv *l = &a->items[r];
        if (l->type != JV_ARR)
            return vfail(cx, l, "expected an array of ranks in \"%s\"", key);
        int64_t *v = malloc((l->n ? l->n : 1) * sizeof *v);
        if (!v)
            return cp_error_set(cx->err, "%s: out of memory", cx->name);
        cp_neighbors *nb = &c->neighbors[r];
        if (sources) {
            nb->sources = v;
            nb->nsources = l->n;
        } else {
            nb->destinations = v;
            nb->ndestinations = l->n;
        }
        for (size_t k = 0; k < l->n; k++) {
            const jv *x = &l->items[k];
            if (x->type != JV_INT || x->overflow || x->i < -1 || x->i >= c->size)
                return vfail(cx, x, "expected a rank from -1 (MPI_PROC_NULL) to %" PRId64
                                    " in \"%s\"", c->size - 1, key);
            v[k] = x->i;
        }
    }
    return 0;
}

static int to_neighbors(const jctx *cx, const jv *o, cp_comm_info *c)
{
    if (o->type != JV_OBJ)
        return vfail(cx, o, "expected an object for \"neighbors\", found %s", type_name(o->type));
    /* Both lists must hold one entry per rank: check their lengths before
     * allocating, so that the allocation is bounded by the input's length
     * and not by a "size" that the input may set to anything. */
    static const char *const keys[] = {"sources", "destinations"};
    for (size_t k = 0; k < 2; k++) {
        const jv *a;
        if (get_member(cx, o, keys[k], true, &a) < 0)
            return -1;
        if (a->type != JV_ARR || (int64_t)a->n != c->size)
            return vfail(cx, a, "expected an array of %" PRId64 " neighbour lists for \"%s\"",
                         c->size, keys[k]);
    }
    if (c->size > (int64_t)(SIZE_MAX / sizeof *c->neighbors) ||
        !(c->neighbors = calloc(c->size ? (size_t)c->size : 1, sizeof *c->neighbors)))
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    return to_lists(cx, o, "sources", c, true) < 0 || to_lists(cx, o, "destinations", c, false) < 0
               ? -1
               : 0;
}

static int to_comms(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (v->type != JV_ARR)
        return vfail(cx, v, "expected an array for \"communicators\", found %s",
                     type_name(v->type));
    if (v->n == 0)
        return 0;
    m->comms = calloc(v->n, sizeof *m->comms);
    if (!m->comms)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        const jv *o = &v->items[k], *mem;
        cp_comm_info *c = &m->comms[k];
        m->ncomms++;
        if (o->type != JV_OBJ)
            return vfail(cx, o, "expected an object for a communicator, found %s",
                         type_name(o->type));
        if (get_int(cx, o, "id", 0, INT64_MAX, &c->id) < 0 ||
            get_int(cx, o, "size", 0, INT64_MAX, &c->size) < 0 ||
            get_int(cx, o, "lead", 0, INT64_MAX, &c->lead) < 0 ||
            get_member(cx, o, "members", true, &mem) < 0)
            return -1;
        if (mem->type != JV_STR)
            return vfail(cx, mem, "expected a string for \"members\", found %s",
                         type_name(mem->type));
        const char *why = NULL;
        if (mem->slen > 0 && cp_ranges_parse_ordered(mem->s, mem->slen, &c->members, &why) < 0)
            return vfail(cx, mem, "expected a list of world ranks such as \"0-3,5\" for \"members\" (%s)",
                         why ? why : "invalid range list");
        /* Optional: intercommunicators only. */
        if (get_member(cx, o, "remote_members", false, &mem) < 0)
            return -1;
        if (mem && mem->type != JV_STR)
            return vfail(cx, mem, "expected a string for \"remote_members\", found %s",
                         type_name(mem->type));
        if (mem && mem->slen > 0 &&
            cp_ranges_parse_ordered(mem->s, mem->slen, &c->remote_members, &why) < 0)
            return vfail(cx, mem,
                         "expected a list of world ranks such as \"4-7\" for \"remote_members\" (%s)",
                         why ? why : "invalid range list");
        /* Optional: topology communicators only. */
        if (get_member(cx, o, "neighbors", false, &mem) < 0 || (mem && to_neighbors(cx, mem, c) < 0))
            return -1;
    }
    return 0;
}

static int to_files(const jctx *cx, jv *v, cp_manifest *m)
{
    if (v->type != JV_ARR)
        return vfail(cx, v, "expected an array for \"files\", found %s", type_name(v->type));
    if (v->n == 0)
        return 0;
    m->files = calloc(v->n, sizeof *m->files);
    if (!m->files)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        if (v->items[k].type != JV_STR)
            return vfail(cx, &v->items[k], "expected a file name (string) in \"files\", found %s",
                         type_name(v->items[k].type));
        m->files[k] = steal(&v->items[k]);
        m->nfiles++;
    }
    return 0;
}

static int to_call_tree(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (!v)
        return 0; /* call paths were not recorded */
    if (v->type != JV_ARR)
        return vfail(cx, v, "expected an array for \"call_tree\", found %s", type_name(v->type));
    if (v->n == 0)
        return 0;
    m->call_tree = calloc(v->n, sizeof *m->call_tree);
    if (!m->call_tree)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        const jv *o = &v->items[k];
        cp_callsite_node *n = &m->call_tree[k];
        int64_t address;
        if (o->type != JV_OBJ)
            return vfail(cx, o, "expected a call-tree node (object) in \"call_tree\", found %s",
                         type_name(o->type));
        /* Pre-order: a parent comes before its children. */
        if (get_int(cx, o, "parent", -1, (int64_t)k - 1, &n->parent) < 0 ||
            get_str(cx, o, "function", n->function, sizeof n->function) < 0 ||
            get_str(cx, o, "module", n->module, sizeof n->module) < 0 ||
            get_int(cx, o, "address", 0, INT64_MAX, &address) < 0)
            return -1;
        n->address = (uint64_t)address;
        m->ncall_tree++;
    }
    return 0;
}

static int to_manifest(const jctx *cx, jv *root, cp_manifest *m)
{
    const jv *v;
    int64_t x;
    if (root->type != JV_OBJ)
        return vfail(cx, root, "expected an object at the top level, found %s",
                     type_name(root->type));
    /* format and version first: a newer manifest may differ in everything else */
    if (get_member(cx, root, "format", true, &v) < 0)
        return -1;
    if (v->type != JV_STR || strcmp(v->s, MANIFEST_FORMAT_NAME) != 0)
        return vfail(cx, v, "expected \"format\": \"" MANIFEST_FORMAT_NAME "\"");
    if (get_member(cx, root, "format_version", true, &v) < 0)
        return -1;
    if (v->type == JV_INT && !v->overflow && v->i > CP_MANIFEST_FORMAT_VERSION)
        return vfail(cx, v,
                     "manifest format version %" PRId64
                     " is newer than version %d, which this collprof reads",
                     v->i, CP_MANIFEST_FORMAT_VERSION);
    if (get_int(cx, root, "format_version", 1, CP_MANIFEST_FORMAT_VERSION, &x) < 0)
        return -1;
    m->format_version = (int)x;
    /* From 1: version 0 is other tools' count files, which come without a
     * manifest, and the writer takes 0 for "not set" and writes the current
     * version, so a 0 read here would not survive a round trip. */
    if (get_int(cx, root, "counts_format_version", 1, 1000000, &x) < 0)
        return -1;
    m->counts_format_version = (int)x;
    if (get_str(cx, root, "collprof_version", m->collprof_version, sizeof m->collprof_version) < 0 ||
        get_str(cx, root, "mpi_version", m->mpi_version, sizeof m->mpi_version) < 0 ||
        get_str(cx, root, "job", m->job, sizeof m->job) < 0 ||
        get_str(cx, root, "start_time", m->start_time, sizeof m->start_time) < 0 ||
        get_int(cx, root, "world_size", 0, INT64_MAX, &m->world_size) < 0)
        return -1;
    if (get_member(cx, root, "partial", true, &v) < 0)
        return -1;
    if (v->type != JV_BOOL)
        return vfail(cx, v, "expected true or false for \"partial\", found %s",
                     type_name(v->type));
    m->partial = v->b;
    if (get_str(cx, root, "partial_reason", m->partial_reason, sizeof m->partial_reason) < 0)
        return -1;
    if (get_member(cx, root, "config", true, &v) < 0 ||
        to_kv(cx, (jv *)v, "config", &m->config, &m->nconfig) < 0)
        return -1;
    if (get_member(cx, root, "clock", false, &v) < 0 || (v && to_clock(cx, v, m) < 0))
        return -1;
    if (get_member(cx, root, "communicators", true, &v) < 0 || to_comms(cx, v, m) < 0)
        return -1;
    if (get_member(cx, root, "files", true, &v) < 0 || to_files(cx, (jv *)v, m) < 0)
        return -1;
    if (get_member(cx, root, "call_tree", false, &v) < 0 || to_call_tree(cx, v, m) < 0)
        return -1;
    if (get_member(cx, root, "missing", false, &v) < 0 ||
        (v && to_kv(cx, (jv *)v, "missing", &m->missing, &m->nmissing) < 0))
        return -1;
    return 0;
}

/* Parse data[0..len) (need not be NUL-terminated). */
static int manifest_parse_mem(const char *data, size_t len, const char *name, cp_manifest *m,
                              cp_error *err)
{
    jparser ps = {.p = (const unsigned char *)data, .len = len, .line = 1, .name = name, .err = err};
    jv root = {0};
    char fb[16];
    memset(m, 0, sizeof *m);
    skip_ws(&ps);
    int rc = parse_value(&ps, &root, 0);
    if (rc == 0) {
        skip_ws(&ps);
        if (ps.pos < ps.len)
            rc = JFAIL(&ps, ps.pos, "expected the end of the input after the top-level value, found %s",
                       found(&ps, fb, sizeof fb));
    }
    if (rc == 0) {
        jctx cx = {name, err};
        rc = to_manifest(&cx, &root, m);
    }
    jv_free(&root);
    if (rc < 0)
        cp_manifest_free(m);
    return rc;
}

int cp_manifest_parse(cp_in *in, cp_manifest *m, cp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    memset(m, 0, sizeof *m);
    if (cp_in_slurp(in, &data, &len, err) < 0)
        return -1;
    int rc = manifest_parse_mem(data, len, cp_in_name(in), m, err);
    free(data);
    return rc;
}

int cp_manifest_parse_file(const char *path, cp_manifest *m, cp_error *err)
{
    memset(m, 0, sizeof *m);
    cp_in *in = cp_in_open(path, err);
    if (!in)
        return -1;
    int rc = cp_manifest_parse(in, m, err);
    cp_in_close(in);
    return rc;
}
