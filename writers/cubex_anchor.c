/*
 * anchor.xml of profile.cubex (cubex.h, docs/formats.md): writer, and a
 * small bounded XML parser for the layout it writes.
 *
 * The layout follows what Cube's own writer (cubew) emits and its reader's
 * grammar (cubelib's Cube4Parser) accepts: the XML declaration, <cube
 * version="4.4">, <attr>s, <doc>, <metrics>, <program> (regions first, then
 * the nested cnodes), <system> with the system tree and, inside it,
 * <topologies>.  Values are written as element text or attribute values,
 * escaped; bytes that XML cannot carry (control characters, invalid UTF-8)
 * become '?', so that the parser, which refuses them, reads back exactly
 * what was written.
 *
 * The parser is a pull tokenizer (elements, attributes, text, the five
 * predefined entities, comments, the XML declaration) under a
 * recursive-descent reader of the fixed hierarchy.  Nothing recurses on the
 * input's nesting: cnodes, the only element that nests freely, are read in a
 * loop that follows the parent links.  Every access is checked against the
 * input length; every string is bounded by its model field.  Errors read
 * "<name>: anchor.xml:<line>: expected ..., found ...".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"

#define ANCHOR "anchor.xml"
#define CUBE_VERSION "4.4"
/* Attributes per element, and bytes of an element or attribute name. */
#define XML_MAX_ATTRS 16
#define XML_MAX_NAME 64

const char *const cp_cubex_reserved_attrs[CP_CUBEX_RESERVED_ATTRS] = {
    "CubePL Version", "Cube Version", "Cube anchor.xml syntax version"};
/* Their values: CubePL 1.1 is what Cube's readers expect of a 4.4 file. */
static const char *const reserved_values[CP_CUBEX_RESERVED_ATTRS] = {"1.1", CUBE_VERSION,
                                                                     CUBE_VERSION};

/* Length of the valid UTF-8 sequence at s[0..n), 0 when it is not one
 * (overlong forms, surrogates, values above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* A byte that a value may not hold: control characters (tab and newline
 * included: XML readers would turn them into spaces) and DEL. */
static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7F;
}

/* ================================================================ writer */

static int put(cp_cbuf *b, const char *s)
{
    return cp_cbuf_put(b, s, strlen(s));
}

static int putf(cp_cbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(cp_cbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return -1; /* only numbers and fixed words are formatted here */
    return cp_cbuf_put(b, tmp, (size_t)n);
}

/* s[0..n) escaped for text and attribute values alike. */
static int put_esc(cp_cbuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, start = 0;
    while (i < n) {
        const char *rep = NULL;
        size_t skip = 1;
        switch (u[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default:
            if (is_ctl(u[i]))
                rep = "?";
            else if (u[i] >= 0x80 && (skip = utf8_len(u + i, n - i)) == 0) {
                rep = "?"; /* one '?' per invalid byte: the length is kept */
                skip = 1;
            }
        }
        if (rep) {
            if (cp_cbuf_put(b, s + start, i - start) < 0 || put(b, rep) < 0)
                return -1;
            start = i + skip;
        }
        i += skip;
    }
    return cp_cbuf_put(b, s + start, n - start);
}

/* A fixed-size field (checked NUL-terminated by cp_cubex_check). */
#define ESC(b, f) put_esc((b), (f), strnlen((f), sizeof(f)))

/* "<tag>value</tag>\n" after indent. */
static int put_leaf(cp_cbuf *b, const char *indent, const char *tag, const char *v, size_t n)
{
    return putf(b, "%s<%s>", indent, tag) < 0 || put_esc(b, v, n) < 0 ||
                   putf(b, "</%s>\n", tag) < 0
               ? -1
               : 0;
}
#define LEAF(b, indent, tag, f) put_leaf((b), (indent), (tag), (f), strnlen((f), sizeof(f)))

static int write_metrics(const cp_cube *c, cp_cbuf *b)
{
    if (put(b, "<metrics>\n") < 0)
        return -1;
    for (size_t i = 0; i < c->nmetrics; i++) {
        const cp_cube_metric *m = &c->metrics[i];
        const char *dt = m->dtype == CP_CUBE_UINT64 ? "UINT64" : "DOUBLE";
        if (putf(b, "  <metric id=\"%zu\" type=\"EXCLUSIVE\">\n", i) < 0 ||
            LEAF(b, "    ", "disp_name", m->disp_name) < 0 ||
            LEAF(b, "    ", "uniq_name", m->uniq_name) < 0 ||
            putf(b, "    <dtype>%s</dtype>\n", dt) < 0 || LEAF(b, "    ", "uom", m->uom) < 0 ||
            put(b, "    <val></val>\n") < 0 || LEAF(b, "    ", "url", m->url) < 0 ||
            LEAF(b, "    ", "descr", m->descr) < 0 || put(b, "  </metric>\n") < 0)
            return -1;
    }
    return put(b, "</metrics>\n");
}

static int write_regions(const cp_cube *c, cp_cbuf *b)
{
    for (size_t i = 0; i < c->nregions; i++) {
        const cp_cube_region *r = &c->regions[i];
        if (putf(b, "  <region id=\"%zu\" mod=\"", i) < 0 || ESC(b, r->mod) < 0 ||
            putf(b, "\" begin=\"%" PRId64 "\" end=\"%" PRId64 "\">\n", r->begin, r->end) < 0 ||
            LEAF(b, "    ", "name", r->name) < 0 ||
            LEAF(b, "    ", "mangled_name", r->mangled_name) < 0 ||
            LEAF(b, "    ", "paradigm", r->paradigm) < 0 || LEAF(b, "    ", "role", r->role) < 0 ||
            LEAF(b, "    ", "url", r->url) < 0 || LEAF(b, "    ", "descr", r->descr) < 0 ||
            put(b, "  </region>\n") < 0)
            return -1;
    }
    return 0;
}

/* The call tree: nodes are in pre-order, so walking them in id order and
 * closing, before each node, the open nodes that are not its parent nests
 * the elements correctly.  One line per node, no indentation by depth (a
 * deep tree would otherwise cost quadratic space). */
static int write_cnodes(const cp_cube *c, cp_cbuf *b)
{
    int64_t open = -1; /* innermost open node */
    for (size_t i = 0; i < c->ncnodes; i++) {
        const cp_cube_cnode *n = &c->cnodes[i];
        for (; open != n->parent; open = c->cnodes[open].parent)
            if (put(b, "  </cnode>\n") < 0)
                return -1;
        if (putf(b, "  <cnode id=\"%zu\"", i) < 0)
            return -1;
        if (n->line != -1 && putf(b, " line=\"%" PRId64 "\"", n->line) < 0)
            return -1;
        if (n->mod[0] && (put(b, " mod=\"") < 0 || ESC(b, n->mod) < 0 || put(b, "\"") < 0))
            return -1;
        if (putf(b, " calleeId=\"%" PRId64 "\">\n", n->region) < 0)
            return -1;
        open = (int64_t)i;
    }
    for (; open != -1; open = c->cnodes[open].parent)
        if (put(b, "  </cnode>\n") < 0)
            return -1;
    return 0;
}

/* One process with its thread: location l is world rank l, so both get
 * Id l. */
static int write_process(cp_cbuf *b, size_t l)
{
    return putf(b,
                "      <locationgroup Id=\"%zu\">\n"
                "        <name>MPI Rank %zu</name>\n"
                "        <rank>%zu</rank>\n"
                "        <type>process</type>\n",
                l, l, l) < 0 ||
                   putf(b,
                        "        <location Id=\"%zu\">\n"
                        "          <name>Master thread</name>\n"
                        "          <rank>0</rank>\n"
                        "          <type>thread</type>\n"
                        "        </location>\n"
                        "      </locationgroup>\n",
                        l) < 0
               ? -1
               : 0;
}

/* machine -> one node per host -> its ranks' processes, in rank order.  The
 * ranks are sorted by host first (counting sort), so that many hosts and
 * many ranks cost their sum, not their product. */
static int write_system(const cp_cube *c, cp_cbuf *b)
{
    size_t *start = calloc(c->nhosts + 1, sizeof *start);
    size_t *order = malloc((c->nlocations ? c->nlocations : 1) * sizeof *order);
    int rc = start && order ? 0 : -1;
    for (size_t l = 0; rc == 0 && l < c->nlocations; l++)
        start[c->location_host[l] + 1]++;
    for (size_t h = 0; rc == 0 && h < c->nhosts; h++)
        start[h + 1] += start[h];
    for (size_t l = 0; rc == 0 && l < c->nlocations; l++)
        order[start[c->location_host[l]]++] = l; /* start[h] ends as the next host's start */
    if (rc == 0 && (put(b, "<system>\n  <systemtreenode Id=\"0\">\n") < 0 ||
                    LEAF(b, "    ", "name", c->machine) < 0 ||
                    put(b, "    <class>machine</class>\n") < 0))
        rc = -1;
    for (size_t h = 0, k = 0; rc == 0 && h < c->nhosts; h++) {
        if (putf(b, "    <systemtreenode Id=\"%zu\">\n", h + 1) < 0 ||
            LEAF(b, "      ", "name", c->hosts[h].name) < 0 ||
            put(b, "      <class>node</class>\n") < 0)
            rc = -1;
        for (; rc == 0 && k < start[h]; k++)
            rc = write_process(b, order[k]);
        if (rc == 0 && put(b, "    </systemtreenode>\n") < 0)
            rc = -1;
    }
    free(start);
    free(order);
    if (rc < 0)
        return -1;
    return put(b, "  </systemtreenode>\n  <topologies></topologies>\n</system>\n");
}

int cp_cubex_anchor_write(const cp_cube *c, cp_cbuf *b)
{
    if (put(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"" CUBE_VERSION
               "\">\n") < 0)
        return -1;
    for (size_t i = 0; i < CP_CUBEX_RESERVED_ATTRS; i++)
        if (putf(b, "<attr key=\"%s\" value=\"%s\"/>\n", cp_cubex_reserved_attrs[i],
                 reserved_values[i]) < 0)
            return -1;
    for (size_t i = 0; i < c->nattrs; i++) {
        const cp_kv *a = &c->attrs[i];
        if (put(b, "<attr key=\"") < 0 || put_esc(b, a->key, strlen(a->key)) < 0 ||
            put(b, "\" value=\"") < 0 || put_esc(b, a->value, strlen(a->value)) < 0 ||
            put(b, "\"/>\n") < 0)
            return -1;
    }
    if (put(b, "<doc><mirrors></mirrors></doc>\n") < 0 || write_metrics(c, b) < 0 ||
        put(b, "<program>\n") < 0 || write_regions(c, b) < 0 || write_cnodes(c, b) < 0 ||
        put(b, "</program>\n") < 0 || write_system(c, b) < 0 || put(b, "</cube>\n") < 0)
        return -1;
    return 0;
}

/* ============================================================ tokenizer */

enum tok_type { TK_EOF, TK_START, TK_END, TK_TEXT };

typedef struct xml_attr {
    char name[XML_MAX_NAME];
    size_t value; /* offset into xp.vals */
    size_t len;
} xml_attr;

typedef struct xp {
    const unsigned char *p;
    size_t len, pos;
    long line;
    const char *name; /* of the archive, for messages */
    cp_error *err;
    /* the current token */
    int type;
    long tline;
    char tname[XML_MAX_NAME]; /* TK_START / TK_END */
    bool empty;               /* TK_START of "<x/>" */
    xml_attr attrs[XML_MAX_ATTRS];
    size_t nattrs;
    cp_cbuf vals; /* decoded attribute values, each NUL-terminated */
    cp_cbuf text; /* TK_TEXT, decoded, NUL-terminated */
} xp;

static int xfail_at(xp *x, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int xfail_at(xp *x, long line, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cp_error_set(x->err, "%s: " ANCHOR ":%ld: %s", x->name, line, what);
}
#define XFAIL(x, ...) xfail_at((x), (x)->line, __VA_ARGS__)
/* An error about the current token: at the line where it starts. */
#define TFAIL(x, ...) xfail_at((x), (x)->tline, __VA_ARGS__)

static int oom(xp *x)
{
    return cp_error_set(x->err, "%s: " ANCHOR ": out of memory", x->name);
}

static bool at(const xp *x, const char *s)
{
    size_t n = strlen(s);
    return x->len - x->pos >= n && memcmp(x->p + x->pos, s, n) == 0;
}

static void skip_ws(xp *x)
{
    while (x->pos < x->len) {
        unsigned char c = x->p[x->pos];
        if (c == '\n')
            x->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
        x->pos++;
    }
}

static bool name_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static int read_name(xp *x, char out[XML_MAX_NAME], const char *what)
{
    size_t n = 0;
    if (x->pos >= x->len || !name_start(x->p[x->pos]))
        return XFAIL(x, "expected %s", what);
    while (x->pos < x->len && name_char(x->p[x->pos])) {
        if (n + 1 >= XML_MAX_NAME)
            return XFAIL(x, "expected %s of at most %d characters", what, XML_MAX_NAME - 1);
        out[n++] = (char)x->p[x->pos++];
    }
    out[n] = '\0';
    return 0;
}

/* At "<!--": skip the comment. */
static int skip_comment(xp *x)
{
    long start = x->line;
    for (x->pos += 4; x->pos < x->len; x->pos++) {
        if (x->p[x->pos] == '\n')
            x->line++;
        else if (at(x, "-->")) {
            x->pos += 3;
            return 0;
        }
    }
    return xfail_at(x, start, "expected --> to close the comment");
}

/* Decode character data up to a byte in `stop` (or the end of input) into
 * b.  Entities become their characters, bytes are checked: valid UTF-8, no
 * control characters but tab, newline and carriage return (whitespace
 * between elements; values are checked again where they are used). */
static int decode(xp *x, cp_cbuf *b, const char *stop, bool comments)
{
    static const struct {
        const char *ref;
        char c;
    } ents[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    while (x->pos < x->len) {
        unsigned char c = x->p[x->pos];
        if (c != 0 && strchr(stop, c))
            break;
        if (c == '<') { /* only when '<' is not a stop byte: text */
            if (!comments || !at(x, "<!--"))
                break;
            if (skip_comment(x) < 0)
                return -1;
            continue;
        }
        if (c == '&') {
            size_t k = 0;
            while (k < sizeof ents / sizeof ents[0] && !at(x, ents[k].ref))
                k++;
            if (k == sizeof ents / sizeof ents[0])
                return XFAIL(x, "expected one of &lt; &gt; &amp; &quot; &apos; after '&'");
            if (cp_cbuf_put(b, &ents[k].c, 1) < 0)
                return oom(x);
            x->pos += strlen(ents[k].ref);
            continue;
        }
        size_t l = 1;
        if (c >= 0x80 && (l = utf8_len(x->p + x->pos, x->len - x->pos)) == 0)
            return XFAIL(x, "expected UTF-8 text, found byte 0x%02X", c);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return XFAIL(x, "expected text, found control character 0x%02X", c);
        if (c == '\n')
            x->line++;
        if (cp_cbuf_put(b, x->p + x->pos, l) < 0)
            return oom(x);
        x->pos += l;
    }
    return cp_cbuf_put(b, "", 1) < 0 ? oom(x) : 0; /* NUL, not counted */
}

/* Attributes up to '>' / "/>" (or "?>" for the XML declaration). */
static int read_attrs(xp *x, bool decl)
{
    x->nattrs = 0;
    x->vals.n = 0;
    for (;;) {
        size_t before = x->pos;
        skip_ws(x);
        if (decl ? at(x, "?>") : (at(x, ">") || at(x, "/>")))
            return 0;
        if (x->pos == before)
            return XFAIL(x, "expected whitespace, '>' or '/>' after <%s", x->tname);
        if (x->nattrs == XML_MAX_ATTRS)
            return XFAIL(x, "expected at most %d attributes in <%s>", XML_MAX_ATTRS, x->tname);
        xml_attr *a = &x->attrs[x->nattrs];
        if (read_name(x, a->name, "an attribute name") < 0)
            return -1;
        for (size_t k = 0; k < x->nattrs; k++)
            if (strcmp(x->attrs[k].name, a->name) == 0)
                return XFAIL(x, "expected the attribute %s only once in <%s>", a->name, x->tname);
        skip_ws(x);
        if (!at(x, "="))
            return XFAIL(x, "expected '=' after the attribute name %s", a->name);
        x->pos++;
        skip_ws(x);
        if (x->pos >= x->len || (x->p[x->pos] != '"' && x->p[x->pos] != '\''))
            return XFAIL(x, "expected a quoted value for the attribute %s", a->name);
        char stop[3] = {(char)x->p[x->pos], '<', '\0'};
        x->pos++;
        a->value = x->vals.n;
        if (decode(x, &x->vals, stop, false) < 0)
            return -1;
        a->len = x->vals.n - 1 - a->value;
        if (x->pos >= x->len || x->p[x->pos] != (unsigned char)stop[0])
            return XFAIL(x, "expected %c to close the value of the attribute %s", stop[0],
                         a->name);
        x->pos++;
        x->nattrs++;
    }
}

/* The next token; comments between elements are skipped, comments inside
 * text are dropped from it. */
static int next(xp *x)
{
    for (;;) {
        x->tline = x->line;
        if (x->pos >= x->len) {
            x->type = TK_EOF;
            return 0;
        }
        if (x->p[x->pos] != '<' || at(x, "<!--")) {
            x->text.n = 0;
            if (decode(x, &x->text, "", true) < 0)
                return -1;
            if (x->text.n == 1) /* only a comment: look further */
                continue;
            x->type = TK_TEXT;
            return 0;
        }
        if (at(x, "<!") || at(x, "<?"))
            return XFAIL(x, "expected an element (DOCTYPE, CDATA and processing instructions "
                            "are not read here)");
        if (at(x, "</")) {
            x->pos += 2;
            if (read_name(x, x->tname, "an element name after '</'") < 0)
                return -1;
            skip_ws(x);
            if (!at(x, ">"))
                return XFAIL(x, "expected '>' to close </%s", x->tname);
            x->pos++;
            x->type = TK_END;
            return 0;
        }
        x->pos++;
        if (read_name(x, x->tname, "an element name after '<'") < 0 || read_attrs(x, false) < 0)
            return -1;
        x->empty = at(x, "/>");
        x->pos += x->empty ? 2 : 1;
        x->type = TK_START;
        return 0;
    }
}

static bool blank(const cp_cbuf *t)
{
    for (size_t i = 0; i + 1 < t->n; i++)
        if (!strchr(" \t\r\n", t->s[i]))
            return false;
    return true;
}

/* The next token that is not whitespace: an element tag or the end. */
static int next_tag(xp *x)
{
    do {
        if (next(x) < 0)
            return -1;
    } while (x->type == TK_TEXT && blank(&x->text));
    if (x->type == TK_TEXT) {
        const char *t = x->text.s + strspn(x->text.s, " \t\r\n");
        return TFAIL(x, "expected an element, found text \"%.*s\"", (int)strcspn(t, "\r\n") < 40
                     ? (int)strcspn(t, "\r\n") : 40, t);
    }
    return 0;
}

/* The current token, for messages. */
static const char *found(const xp *x, char *buf, size_t size)
{
    if (x->type == TK_START)
        snprintf(buf, size, "<%s>", x->tname);
    else if (x->type == TK_END)
        snprintf(buf, size, "</%s>", x->tname);
    else if (x->type == TK_TEXT)
        snprintf(buf, size, "text");
    else
        snprintf(buf, size, "the end of " ANCHOR);
    return buf;
}

static bool is_start(const xp *x, const char *name)
{
    return x->type == TK_START && strcmp(x->tname, name) == 0;
}

static bool is_end(const xp *x, const char *name)
{
    return x->type == TK_END && strcmp(x->tname, name) == 0;
}

static int expected(xp *x, const char *what)
{
    char fb[XML_MAX_NAME + 32];
    return TFAIL(x, "expected %s, found %s", what, found(x, fb, sizeof fb));
}

/* Value of attribute `name` of the current start tag, or NULL. */
static const char *attr(const xp *x, const char *name, size_t *len)
{
    for (size_t k = 0; k < x->nattrs; k++)
        if (strcmp(x->attrs[k].name, name) == 0) {
            if (len)
                *len = x->attrs[k].len;
            return x->vals.s + x->attrs[k].value;
        }
    return NULL;
}

/* A value as the model holds it: no control character.  s[0..n). */
static int check_value(xp *x, const char *s, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (is_ctl((unsigned char)s[i]))
            return TFAIL(x, "expected %s without control characters, found 0x%02X", what,
                         (unsigned char)s[i]);
    return 0;
}

static int copy_value(xp *x, char *dst, size_t size, const char *s, size_t n, const char *what)
{
    if (n >= size)
        return TFAIL(x, "expected %s of at most %zu bytes, found %zu", what, size - 1, n);
    if (check_value(x, s, n, what) < 0)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int str_attr(xp *x, const char *name, bool required, char *dst, size_t size)
{
    size_t n;
    const char *v = attr(x, name, &n);
    char what[XML_MAX_NAME + 48];
    snprintf(what, sizeof what, "the attribute %s of <%s>", name, x->tname);
    if (!v) {
        if (required)
            return TFAIL(x, "expected %s", what);
        dst[0] = '\0';
        return 0;
    }
    return copy_value(x, dst, size, v, n, what);
}

/* "-12" -> -12: an optional '-', digits, nothing else, within int64. */
static bool to_i64(const char *s, int64_t *out)
{
    bool neg = *s == '-';
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    s += neg;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (lim - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = !neg ? (int64_t)v : v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
    return true;
}

/* An integer attribute in [min, max]; absent: *out = dflt (or an error). */
static int int_attr(xp *x, const char *name, bool required, int64_t dflt, int64_t min,
                    int64_t max, int64_t *out)
{
    const char *v = attr(x, name, NULL);
    if (!v) {
        if (required)
            return TFAIL(x, "expected the attribute %s in <%s>", name, x->tname);
        *out = dflt;
        return 0;
    }
    if (!to_i64(v, out) || *out < min || *out > max)
        return TFAIL(x, "expected an integer from %" PRId64 " to %" PRId64
                        " for the attribute %s of <%s>, found \"%.40s\"",
                     min, max, name, x->tname, v);
    return 0;
}

/* The Id of a system-tree element ("Id" as Cube writes it; "id" too). */
static int id_attr(xp *x, int64_t want)
{
    int64_t id;
    const char *key = attr(x, "Id", NULL) ? "Id" : "id";
    if (int_attr(x, key, true, 0, 0, INT64_MAX, &id) < 0)
        return -1;
    if (id != want)
        return TFAIL(x, "expected <%s Id=\"%" PRId64 "\">, found Id %" PRId64, x->tname, want,
                     id);
    return 0;
}

/* At the start tag of a leaf element: its text into dst[size]. */
static int leaf(xp *x, char *dst, size_t size)
{
    char tag[XML_MAX_NAME], what[XML_MAX_NAME + 16];
    memcpy(tag, x->tname, sizeof tag);
    snprintf(what, sizeof what, "<%s>", tag);
    if (x->empty) {
        dst[0] = '\0';
        return 0;
    }
    if (next(x) < 0)
        return -1;
    size_t n = 0;
    const char *s = "";
    long line = x->tline;
    if (x->type == TK_TEXT) {
        s = x->text.s;
        n = x->text.n - 1;
        if (n >= size) /* before reading on: the message names its line */
            return xfail_at(x, line, "expected %s of at most %zu bytes, found %zu", what,
                            size - 1, n);
        if (check_value(x, s, n, what) < 0)
            return -1;
        memcpy(dst, s, n);
        dst[n] = '\0';
        if (next(x) < 0)
            return -1;
    } else {
        dst[0] = '\0';
    }
    if (!is_end(x, tag)) {
        char want[XML_MAX_NAME + 8];
        snprintf(want, sizeof want, "</%s>", tag);
        return expected(x, want);
    }
    return 0;
}

/* A leaf holding an integer (surrounding blanks allowed). */
static int int_leaf(xp *x, int64_t *out)
{
    char buf[64], tag[XML_MAX_NAME];
    memcpy(tag, x->tname, sizeof tag);
    long line = x->tline;
    if (x->empty || x->type != TK_START)
        return TFAIL(x, "expected an integer in <%s>", tag);
    if (next(x) < 0)
        return -1;
    size_t b = 0, e = x->type == TK_TEXT ? x->text.n - 1 : 0;
    if (x->type == TK_TEXT) {
        while (b < e && strchr(" \t\r\n", x->text.s[b]))
            b++;
        while (e > b && strchr(" \t\r\n", x->text.s[e - 1]))
            e--;
    }
    if (e - b >= sizeof buf || e == b)
        return xfail_at(x, line, "expected an integer in <%s>", tag);
    memcpy(buf, x->text.s + b, e - b);
    buf[e - b] = '\0';
    if (!to_i64(buf, out))
        return xfail_at(x, line, "expected an integer in <%s>, found \"%s\"", tag, buf);
    if (next(x) < 0)
        return -1;
    if (!is_end(x, tag)) {
        char want[XML_MAX_NAME + 8];
        snprintf(want, sizeof want, "</%s>", tag);
        return expected(x, want);
    }
    return 0;
}

/* ======================================================= anchor reader */

/* Leaf children of one element: each at most once, in any order. */
typedef struct field {
    const char *tag;
    char *dst;
    size_t size;
    bool seen;
    long line; /* where it was, for messages about its value */
} field;

/* The line of a field when present, else of its element. */
#define FLINE(f, elem_line) ((f).seen ? (f).line : (elem_line))

/* Read children of the element `elem` while they are fields.  Returns 0
 * after its end tag, 1 with another start tag current, -1 on error. */
static int fields(xp *x, const char *elem, field *f, size_t nf)
{
    for (;;) {
        if (next_tag(x) < 0)
            return -1;
        if (is_end(x, elem))
            return 0;
        if (x->type != TK_START)
            break;
        size_t k = 0;
        while (k < nf && strcmp(f[k].tag, x->tname) != 0)
            k++;
        if (k == nf)
            return 1;
        if (f[k].seen)
            return TFAIL(x, "expected one <%s> in <%s>", f[k].tag, elem);
        f[k].seen = true;
        f[k].line = x->tline;
        if (leaf(x, f[k].dst, f[k].size) < 0)
            return -1;
    }
    char want[XML_MAX_NAME + 8];
    snprintf(want, sizeof want, "</%s>", elem);
    return expected(x, want);
}

/* The current start tag has no content: "<x/>" or "<x>" blanks "</x>". */
static int empty_element(xp *x)
{
    char tag[XML_MAX_NAME], want[XML_MAX_NAME + 8];
    if (x->empty)
        return 0;
    memcpy(tag, x->tname, sizeof tag);
    if (next_tag(x) < 0)
        return -1;
    snprintf(want, sizeof want, "</%s>", tag);
    return is_end(x, tag) ? 0 : expected(x, want);
}

static int reserved(const char *key)
{
    for (int i = 0; i < CP_CUBEX_RESERVED_ATTRS; i++)
        if (strcmp(key, cp_cubex_reserved_attrs[i]) == 0)
            return 1;
    return 0;
}

/* <attr key="..." value="..."/> of <cube>. */
static int read_cube_attr(xp *x, cp_cube *c, size_t *cap)
{
    size_t kn = 0, vn = 0;
    const char *k = attr(x, "key", &kn), *v = attr(x, "value", &vn);
    if (!k || !v)
        return TFAIL(x, "expected the attributes key and value in <attr>");
    if (kn > CP_CUBEX_MAX_ATTR_LEN || vn > CP_CUBEX_MAX_ATTR_LEN)
        return TFAIL(x, "expected an <attr> key and value of at most %d bytes",
                     CP_CUBEX_MAX_ATTR_LEN);
    if (check_value(x, k, kn, "an <attr> key") < 0 || check_value(x, v, vn, "an <attr> value") < 0)
        return -1;
    if (!reserved(k)) {
        if (c->nattrs == *cap) {
            size_t ncap = *cap ? *cap * 2 : 8;
            cp_kv *a = realloc(c->attrs, ncap * sizeof *a);
            if (!a)
                return oom(x);
            c->attrs = a;
            *cap = ncap;
        }
        cp_kv *a = &c->attrs[c->nattrs];
        a->key = malloc(kn + 1);
        a->value = malloc(vn + 1);
        if (!a->key || !a->value) {
            free(a->key);
            free(a->value);
            return oom(x);
        }
        memcpy(a->key, k, kn + 1);
        memcpy(a->value, v, vn + 1);
        c->nattrs++;
    }
    return empty_element(x);
}

/* <doc><mirrors><murl>...</murl>*</mirrors></doc>: read, not kept. */
static int read_doc(xp *x)
{
    char url[4096];
    if (x->empty)
        return 0;
    if (next_tag(x) < 0)
        return -1;
    if (is_start(x, "mirrors")) {
        if (!x->empty)
            for (;;) {
                if (next_tag(x) < 0)
                    return -1;
                if (is_end(x, "mirrors"))
                    break;
                if (!is_start(x, "murl"))
                    return expected(x, "<murl> or </mirrors>");
                if (leaf(x, url, sizeof url) < 0)
                    return -1;
            }
        if (next_tag(x) < 0)
            return -1;
    }
    return is_end(x, "doc") ? 0 : expected(x, "<mirrors> or </doc>");
}

static int grow(xp *x, void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * size);
    if (!p)
        return oom(x);
    *arr = p;
    *cap = ncap;
    return 0;
}

static int read_metric(xp *x, cp_cube *c, size_t *cap)
{
    char type[32], dtype[16], val[256];
    int64_t id;
    if (int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0 ||
        str_attr(x, "type", true, type, sizeof type) < 0)
        return -1;
    if (id != (int64_t)c->nmetrics)
        return TFAIL(x, "expected <metric id=\"%zu\"> (metrics numbered in order), found id %" PRId64,
                     c->nmetrics, id);
    if (strcmp(type, "EXCLUSIVE") != 0)
        return TFAIL(x, "expected type=\"EXCLUSIVE\" in <metric> (the only type collprof reads), "
                        "found \"%s\"",
                     type);
    if (grow(x, (void **)&c->metrics, c->nmetrics, cap, sizeof *c->metrics) < 0)
        return -1;
    cp_cube_metric *m = &c->metrics[c->nmetrics];
    memset(m, 0, sizeof *m);
    field f[] = {{"disp_name", m->disp_name, sizeof m->disp_name, false, 0},
                 {"uniq_name", m->uniq_name, sizeof m->uniq_name, false, 0},
                 {"dtype", dtype, sizeof dtype, false, 0},
                 {"uom", m->uom, sizeof m->uom, false, 0},
                 {"val", val, sizeof val, false, 0},
                 {"url", m->url, sizeof m->url, false, 0},
                 {"descr", m->descr, sizeof m->descr, false, 0}};
    long line = x->tline;
    int rc = x->empty ? 0 : fields(x, "metric", f, sizeof f / sizeof f[0]);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return is_start(x, "metric")
                   ? TFAIL(x, "expected </metric>: nested metrics are not read (collprof keeps "
                              "a flat metric list)")
                   : expected(x, "</metric> (a <metric> holds <disp_name>, <uniq_name>, <dtype>, "
                                 "<uom>, <val>, <url> and <descr>)");
    if (!f[1].seen || !m->uniq_name[0])
        return xfail_at(x, FLINE(f[1], line), "expected a non-empty <uniq_name> in metric %zu",
                        c->nmetrics);
    if (!f[2].seen || (strcmp(dtype, "DOUBLE") != 0 && strcmp(dtype, "UINT64") != 0))
        return xfail_at(x, FLINE(f[2], line), "expected <dtype>DOUBLE</dtype> or "
                                              "<dtype>UINT64</dtype> in metric %zu",
                        c->nmetrics);
    m->dtype = dtype[0] == 'U' ? CP_CUBE_UINT64 : CP_CUBE_DOUBLE;
    for (size_t i = 0; i < c->nmetrics; i++)
        if (strcmp(c->metrics[i].uniq_name, m->uniq_name) == 0)
            return xfail_at(x, FLINE(f[1], line),
                            "expected a unique <uniq_name>: \"%s\" is also metric %zu",
                            m->uniq_name, i);
    c->nmetrics++;
    return 0;
}

static int read_region(xp *x, cp_cube *c, size_t *cap)
{
    int64_t id;
    if (int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0)
        return -1;
    if (id != (int64_t)c->nregions)
        return TFAIL(x, "expected <region id=\"%zu\"> (regions numbered in order), found id %" PRId64,
                     c->nregions, id);
    if (grow(x, (void **)&c->regions, c->nregions, cap, sizeof *c->regions) < 0)
        return -1;
    cp_cube_region *r = &c->regions[c->nregions];
    memset(r, 0, sizeof *r);
    if (str_attr(x, "mod", false, r->mod, sizeof r->mod) < 0 ||
        int_attr(x, "begin", false, -1, INT64_MIN, INT64_MAX, &r->begin) < 0 ||
        int_attr(x, "end", false, -1, INT64_MIN, INT64_MAX, &r->end) < 0)
        return -1;
    field f[] = {{"name", r->name, sizeof r->name, false, 0},
                 {"mangled_name", r->mangled_name, sizeof r->mangled_name, false, 0},
                 {"paradigm", r->paradigm, sizeof r->paradigm, false, 0},
                 {"role", r->role, sizeof r->role, false, 0},
                 {"url", r->url, sizeof r->url, false, 0},
                 {"descr", r->descr, sizeof r->descr, false, 0}};
    int rc = x->empty ? 0 : fields(x, "region", f, sizeof f / sizeof f[0]);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return expected(x, "</region> (a <region> holds <name>, <mangled_name>, <paradigm>, "
                           "<role>, <url> and <descr>)");
    /* What Cube's reader assumes of missing elements. */
    if (!f[1].seen)
        memcpy(r->mangled_name, r->name, sizeof r->name);
    if (!f[2].seen)
        snprintf(r->paradigm, sizeof r->paradigm, "unknown");
    if (!f[3].seen)
        snprintf(r->role, sizeof r->role, "unknown");
    c->nregions++;
    return 0;
}

/* The call tree, from the first <cnode> to </program>.  Nodes nest in the
 * document; their ids must count up in document order (depth-first
 * pre-order).  No recursion: `open` walks up the parent links. */
static int read_cnodes(xp *x, cp_cube *c)
{
    size_t cap = 0;
    int64_t open = -1;
    for (;;) {
        if (is_start(x, "cnode")) {
            int64_t id, callee, line;
            if (int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0 ||
                int_attr(x, "calleeId", true, 0, 0, INT64_MAX, &callee) < 0 ||
                int_attr(x, "line", false, -1, INT64_MIN, INT64_MAX, &line) < 0)
                return -1;
            if (id != (int64_t)c->ncnodes)
                return TFAIL(x, "expected <cnode id=\"%zu\"> (ids depth-first in pre-order), "
                                "found id %" PRId64,
                             c->ncnodes, id);
            if (callee >= (int64_t)c->nregions)
                return TFAIL(x, "expected a calleeId below %zu (the regions declared), found %" PRId64,
                             c->nregions, callee);
            if (grow(x, (void **)&c->cnodes, c->ncnodes, &cap, sizeof *c->cnodes) < 0)
                return -1;
            cp_cube_cnode *n = &c->cnodes[c->ncnodes];
            memset(n, 0, sizeof *n);
            n->region = callee;
            n->parent = open;
            n->line = line;
            if (str_attr(x, "mod", false, n->mod, sizeof n->mod) < 0)
                return -1;
            c->ncnodes++;
            if (!x->empty)
                open = id;
        } else if (is_end(x, "cnode") && open >= 0) {
            open = c->cnodes[open].parent;
        } else if (is_end(x, "program") && open < 0) {
            return 0;
        } else {
            return expected(x, open < 0 ? "<cnode> or </program>" : "<cnode> or </cnode>");
        }
        if (next_tag(x) < 0)
            return -1;
    }
}

static int read_program(xp *x, cp_cube *c)
{
    size_t cap = 0;
    if (x->empty)
        return TFAIL(x, "expected <region> and <cnode> elements in <program>");
    for (;;) {
        if (next_tag(x) < 0)
            return -1;
        if (!is_start(x, "region"))
            break;
        if (read_region(x, c, &cap) < 0)
            return -1;
    }
    if (c->nregions == 0)
        return expected(x, "<region>");
    if (!is_start(x, "cnode"))
        return expected(x, "<region> or <cnode>");
    return read_cnodes(x, c);
}

/* Locations as read: the system tree may list them in any order. */
typedef struct loc_seen {
    int64_t *host; /* by location id, -1: not seen */
    size_t n, cap;
} loc_seen;

/* <locationgroup Id="i"> (process of rank i) holding <location Id="i">
 * (its thread). */
static int read_process(xp *x, int64_t host, loc_seen *ls)
{
    char name[1024], type[32];
    int64_t id, rank = -1;
    const char *key = attr(x, "Id", NULL) ? "Id" : "id";
    long start = x->tline;
    if (int_attr(x, key, true, 0, 0, INT32_MAX, &id) < 0)
        return -1;
    for (int level = 0; level < 2; level++) {
        const char *elem = level ? "location" : "locationgroup";
        const char *want = level ? "thread" : "process";
        field f[] = {{"name", name, sizeof name, false, 0}, {"type", type, sizeof type, false, 0}};
        long line = x->tline;
        int rc = x->empty ? 0 : 2;
        field rk = {"rank", NULL, 0, false, 0};
        while (rc == 2) { /* fields, with <rank> holding an integer */
            rc = fields(x, elem, f, 2);
            if (rc == 1 && is_start(x, "rank")) {
                if (rk.seen)
                    return TFAIL(x, "expected one <rank> in <%s>", elem);
                rk.seen = true;
                rk.line = x->tline;
                if (int_leaf(x, &rank) < 0)
                    return -1;
                rc = 2;
            }
        }
        if (rc < 0)
            return -1;
        if (!f[1].seen || strcmp(type, want) != 0)
            return xfail_at(x, FLINE(f[1], line), "expected <type>%s</type> in <%s>", want, elem);
        if (rank != (level ? 0 : id))
            return xfail_at(x, FLINE(rk, line),
                            "expected <rank>%" PRId64 "</rank> in <%s Id=\"%" PRId64 "\">",
                            level ? (int64_t)0 : id, elem, id);
        if (level == 0) {
            if (rc == 0 || !is_start(x, "location"))
                return rc == 0 ? xfail_at(x, line, "expected a <location> in <locationgroup>")
                               : expected(x, "<location>");
            if (id_attr(x, id) < 0)
                return -1;
            rank = -1;
        } else if (rc != 0) {
            return expected(x, "</location>");
        }
    }
    if (next_tag(x) < 0)
        return -1;
    if (!is_end(x, "locationgroup"))
        return expected(x, "</locationgroup> (one location per process)");
    if ((size_t)id >= ls->cap) {
        size_t ncap = ls->cap ? ls->cap : 64;
        while (ncap <= (size_t)id)
            ncap *= 2;
        int64_t *h = realloc(ls->host, ncap * sizeof *h);
        if (!h)
            return oom(x);
        for (size_t i = ls->cap; i < ncap; i++)
            h[i] = -1;
        ls->host = h;
        ls->cap = ncap;
    }
    if (ls->host[id] >= 0)
        return xfail_at(x, start, "expected each location once, found location %" PRId64 " again",
                        id);
    ls->host[id] = host;
    ls->n++;
    return 0;
}

static int read_host(xp *x, cp_cube *c, size_t *cap, loc_seen *ls)
{
    char cls[32], descr[1024];
    if (id_attr(x, (int64_t)c->nhosts + 1) < 0 ||
        grow(x, (void **)&c->hosts, c->nhosts, cap, sizeof *c->hosts) < 0)
        return -1;
    int64_t h = (int64_t)c->nhosts;
    cp_cube_host *host = &c->hosts[c->nhosts++];
    memset(host, 0, sizeof *host);
    field f[] = {{"name", host->name, sizeof host->name, false, 0},
                 {"class", cls, sizeof cls, false, 0},
                 {"descr", descr, sizeof descr, false, 0}};
    long line = x->tline;
    int rc = x->empty ? 0 : fields(x, "systemtreenode", f, 3);
    if (rc >= 0 && (!f[1].seen || strcmp(cls, "node") != 0))
        return xfail_at(x, FLINE(f[1], line),
                        "expected <class>node</class> in a host's <systemtreenode>");
    for (; rc == 1; rc = is_end(x, "systemtreenode") ? 0 : 1) {
        if (!is_start(x, "locationgroup"))
            return expected(x, "<locationgroup> or </systemtreenode>");
        if (read_process(x, h, ls) < 0 || next_tag(x) < 0)
            return -1;
    }
    return rc;
}

static int read_system(xp *x, cp_cube *c)
{
    char cls[32], descr[1024];
    size_t cap = 0;
    loc_seen ls = {0};
    int rc = -1;
    if (x->empty || next_tag(x) < 0)
        goto out;
    if (!is_start(x, "systemtreenode")) {
        expected(x, "<systemtreenode> (the machine)");
        goto out;
    }
    if (id_attr(x, 0) < 0)
        goto out;
    field f[] = {{"name", c->machine, sizeof c->machine, false, 0},
                 {"class", cls, sizeof cls, false, 0},
                 {"descr", descr, sizeof descr, false, 0}};
    long line = x->tline;
    int r = x->empty ? 0 : fields(x, "systemtreenode", f, 3);
    if (r < 0)
        goto out;
    if (!f[1].seen || strcmp(cls, "machine") != 0) {
        xfail_at(x, FLINE(f[1], line),
                 "expected <class>machine</class> in the first <systemtreenode>");
        goto out;
    }
    for (; r == 1; r = next_tag(x) < 0 ? -1 : is_end(x, "systemtreenode") ? 0 : 1) {
        if (!is_start(x, "systemtreenode")) {
            expected(x, "<systemtreenode> (a host) or </systemtreenode>");
            goto out;
        }
        if (read_host(x, c, &cap, &ls) < 0)
            goto out;
    }
    if (r < 0 || next_tag(x) < 0)
        goto out;
    if (is_start(x, "topologies")) {
        if (empty_element(x) < 0 || next_tag(x) < 0)
            goto out;
    }
    if (!is_end(x, "system")) {
        expected(x, is_start(x, "systemtreenode") ? "</system> (one machine)"
                                                   : "<topologies></topologies> or </system>");
        goto out;
    }
    /* Location ids 0..n-1, each once (duplicates were refused). */
    for (size_t i = 0; i < ls.n; i++)
        if (ls.host[i] < 0) {
            TFAIL(x, "expected locations 0 to %zu, location %zu is missing", ls.n - 1, i);
            goto out;
        }
    if (ls.n == 0) {
        TFAIL(x, "expected at least one <location> in <system>");
        goto out;
    }
    c->location_host = ls.host;
    c->nlocations = ls.n;
    ls.host = NULL;
    rc = 0;
out:
    free(ls.host);
    return rc;
}

/* "<?xml version="1.0" encoding="UTF-8"?>" at the very start. */
static int read_declaration(xp *x)
{
    if (!at(x, "<?xml") || x->len < 6 || !strchr(" \t\r\n", x->p[5]))
        return XFAIL(x, "expected the XML declaration <?xml version=\"1.0\" "
                        "encoding=\"UTF-8\"?> at the start");
    x->pos += 5;
    snprintf(x->tname, sizeof x->tname, "?xml");
    x->tline = x->line;
    if (read_attrs(x, true) < 0)
        return -1;
    const char *v = attr(x, "version", NULL), *e = attr(x, "encoding", NULL);
    if (!v || strcmp(v, "1.0") != 0 || !e || strcmp(e, "UTF-8") != 0)
        return TFAIL(x, "expected version=\"1.0\" encoding=\"UTF-8\" in the XML declaration");
    x->pos += 2;
    return 0;
}

/* <cube version="4.N">: 4.0 to 4.4 are read; newer ones are refused. */
static int read_cube_start(xp *x)
{
    if (next_tag(x) < 0)
        return -1;
    if (!is_start(x, "cube") || x->empty)
        return expected(x, "<cube version=\"" CUBE_VERSION "\">");
    const char *v = attr(x, "version", NULL);
    if (!v)
        return TFAIL(x, "expected the attribute version in <cube>");
    if (strlen(v) != 3 || v[0] != '4' || v[1] != '.' || v[2] < '0' || v[2] > '9')
        return TFAIL(x, "expected a Cube 4 anchor (<cube version=\"4.N\">), found version \"%.20s\"",
                     v);
    if (strcmp(v, CUBE_VERSION) > 0)
        return TFAIL(x, "anchor version %s is newer than %s, which this collprof reads", v,
                     CUBE_VERSION);
    return 0;
}

static int read_anchor(xp *x, cp_cube *c)
{
    size_t attr_cap = 0, metric_cap = 0;
    if (read_declaration(x) < 0 || read_cube_start(x) < 0 || next_tag(x) < 0)
        return -1;
    for (; is_start(x, "attr"); )
        if (read_cube_attr(x, c, &attr_cap) < 0 || next_tag(x) < 0)
            return -1;
    if (is_start(x, "doc") && (read_doc(x) < 0 || next_tag(x) < 0))
        return -1;
    if (!is_start(x, "metrics"))
        return expected(x, "<attr>, <doc> or <metrics>");
    if (!x->empty)
        for (;;) {
            if (next_tag(x) < 0)
                return -1;
            if (!is_start(x, "metric"))
                break;
            if (read_metric(x, c, &metric_cap) < 0)
                return -1;
        }
    if (c->nmetrics == 0)
        return expected(x, "<metric>");
    if (!x->empty && !is_end(x, "metrics"))
        return expected(x, "<metric> or </metrics>");
    if (next_tag(x) < 0)
        return -1;
    if (!is_start(x, "program"))
        return expected(x, "<program>");
    if (read_program(x, c) < 0 || next_tag(x) < 0)
        return -1;
    if (!is_start(x, "system"))
        return expected(x, "<system>");
    if (read_system(x, c) < 0 || next_tag(x) < 0)
        return -1;
    if (!is_end(x, "cube"))
        return expected(x, "</cube>");
    if (next_tag(x) < 0)
        return -1;
    return x->type == TK_EOF ? 0 : expected(x, "the end of " ANCHOR " after </cube>");
}

int cp_cubex_anchor_parse(const char *xml, size_t len, const char *name, cp_cube *out,
                          cp_error *err)
{
    xp x = {.p = (const unsigned char *)xml, .len = len, .line = 1, .name = name, .err = err};
    int rc = read_anchor(&x, out);
    free(x.vals.s);
    free(x.text.s);
    return rc;
}
