/*
 * The lexical side of XML (xml.h): escaping for a writer, and the bounded
 * pull tokenizer under the reader of anchor.xml (cubex_anchor.c).
 *
 * The tokenizer keeps one token (its tag name and attributes decoded into
 * `vals`, or its text decoded into `text`) and the line where it starts,
 * for messages.  It reads what Cube's writers emit and what a person
 * editing anchor.xml by hand may add (comments, CRLF, either quote, blanks
 * around '='), and refuses the rest of XML (DOCTYPE, CDATA, processing
 * instructions, other entities) with a message rather than guessing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textio.h"
#include "xml.h"

/* A byte that a value may not hold: control characters (tab and newline
 * included: XML readers would turn them into spaces) and DEL. */
static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7F;
}

int cp_xml_check_value(cp_xml *x, const char *s, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (is_ctl((unsigned char)s[i]))
            return CP_XML_TFAIL(x, "expected %s without control characters, found 0x%02X", what,
                                (unsigned char)s[i]);
    return 0;
}

/* ================================================================ writer */

void cp_xml_put_escaped(cp_bytes *b, const char *s, size_t n)
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
            else if (u[i] >= 0x80 && (skip = cp_utf8_len(u + i, n - i)) == 0) {
                rep = "?"; /* one '?' per invalid byte: the length is kept */
                skip = 1;
            }
        }
        if (rep) {
            cp_bytes_append(b, s + start, i - start);
            cp_bytes_append(b, rep, strlen(rep));
            start = i + skip;
        }
        i += skip;
    }
    cp_bytes_append(b, s + start, n - start);
}

/* ============================================================ tokenizer */

int cp_xml_fail_at(cp_xml *x, long line, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cp_error_set(x->err, "%s: %s:%ld: %s", x->name, x->doc, line, what);
}
/* An error at the reading position. */
#define XFAIL(x, ...) cp_xml_fail_at((x), (x)->line, __VA_ARGS__)

int cp_xml_oom(cp_xml *x)
{
    return cp_error_set(x->err, "%s: %s: out of memory", x->name, x->doc);
}

void cp_xml_init(cp_xml *x, const char *xml, size_t len, const char *name, const char *doc,
                 cp_error *err)
{
    memset(x, 0, sizeof *x);
    x->p = (const unsigned char *)xml;
    x->len = len;
    x->line = 1;
    x->name = name;
    x->doc = doc;
    x->err = err;
}

void cp_xml_free(cp_xml *x)
{
    cp_bytes_free(&x->vals);
    cp_bytes_free(&x->text);
}

static bool at(const cp_xml *x, const char *s)
{
    size_t n = strlen(s);
    return x->len - x->pos >= n && memcmp(x->p + x->pos, s, n) == 0;
}

static void skip_ws(cp_xml *x)
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

static int read_name(cp_xml *x, char out[CP_XML_MAX_NAME], const char *what)
{
    size_t n = 0;
    if (x->pos >= x->len || !name_start(x->p[x->pos]))
        return XFAIL(x, "expected %s", what);
    while (x->pos < x->len && name_char(x->p[x->pos])) {
        if (n + 1 >= CP_XML_MAX_NAME)
            return XFAIL(x, "expected %s of at most %d characters", what, CP_XML_MAX_NAME - 1);
        out[n++] = (char)x->p[x->pos++];
    }
    out[n] = '\0';
    return 0;
}

/* At "<!--": skip the comment. */
static int skip_comment(cp_xml *x)
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
    return cp_xml_fail_at(x, start, "expected --> to close the comment");
}

/* Decode character data up to a byte in `stop` (or the end of input) into
 * b, then a NUL (counted in b->len).  Entities become their characters,
 * bytes are checked: valid UTF-8, no control characters but tab, newline
 * and carriage return (whitespace between elements; values are checked
 * again where they are used). */
static int decode(cp_xml *x, cp_bytes *b, const char *stop, bool comments)
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
            cp_bytes_append(b, &ents[k].c, 1);
            if (b->failed)
                return cp_xml_oom(x);
            x->pos += strlen(ents[k].ref);
            continue;
        }
        size_t l = 1;
        if (c >= 0x80 && (l = cp_utf8_len(x->p + x->pos, x->len - x->pos)) == 0)
            return XFAIL(x, "expected UTF-8 text, found byte 0x%02X", c);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return XFAIL(x, "expected text, found control character 0x%02X", c);
        if (c == '\n')
            x->line++;
        cp_bytes_append(b, x->p + x->pos, l);
        if (b->failed)
            return cp_xml_oom(x);
        x->pos += l;
    }
    cp_bytes_append(b, "", 1);
    return b->failed ? cp_xml_oom(x) : 0;
}

/* Attributes up to '>' / "/>" (or "?>" for the XML declaration). */
static int read_attrs(cp_xml *x, bool decl)
{
    x->nattrs = 0;
    x->vals.len = 0;
    for (;;) {
        size_t before = x->pos;
        skip_ws(x);
        if (decl ? at(x, "?>") : (at(x, ">") || at(x, "/>")))
            return 0;
        if (x->pos == before)
            return XFAIL(x, "expected whitespace, '>' or '/>' after <%s", x->tname);
        if (x->nattrs == CP_XML_MAX_ATTRS)
            return XFAIL(x, "expected at most %d attributes in <%s>", CP_XML_MAX_ATTRS, x->tname);
        cp_xml_attr *a = &x->attrs[x->nattrs];
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
        a->value = x->vals.len;
        if (decode(x, &x->vals, stop, false) < 0)
            return -1;
        a->len = x->vals.len - 1 - a->value;
        if (x->pos >= x->len || x->p[x->pos] != (unsigned char)stop[0])
            return XFAIL(x, "expected %c to close the value of the attribute %s", stop[0], a->name);
        x->pos++;
        x->nattrs++;
    }
}

/* The value of the current element's attribute name, or NULL (xml.h). */
const char *cp_xml_attr_value(const cp_xml *x, const char *name, size_t *len)
{
    for (size_t k = 0; k < x->nattrs; k++)
        if (strcmp(x->attrs[k].name, name) == 0) {
            if (len)
                *len = x->attrs[k].len;
            return (const char *)x->vals.p + x->attrs[k].value;
        }
    return NULL;
}

int cp_xml_declaration(cp_xml *x)
{
    if (!at(x, "<?xml") || x->len < 6 || !strchr(" \t\r\n", x->p[5]))
        return XFAIL(x, "expected the XML declaration <?xml version=\"1.0\" "
                        "encoding=\"UTF-8\"?> at the start");
    x->pos += 5;
    snprintf(x->tname, sizeof x->tname, "?xml");
    x->tline = x->line;
    if (read_attrs(x, true) < 0)
        return -1;
    const char *v = cp_xml_attr_value(x, "version", NULL);
    const char *e = cp_xml_attr_value(x, "encoding", NULL);
    if (!v || strcmp(v, "1.0") != 0 || !e || strcmp(e, "UTF-8") != 0)
        return CP_XML_TFAIL(x, "expected version=\"1.0\" encoding=\"UTF-8\" in the XML "
                               "declaration");
    x->pos += 2;
    return 0;
}

int cp_xml_next(cp_xml *x)
{
    for (;;) {
        x->tline = x->line;
        if (x->pos >= x->len) {
            x->type = CP_XML_EOF;
            return 0;
        }
        if (x->p[x->pos] != '<' || at(x, "<!--")) {
            x->text.len = 0;
            if (decode(x, &x->text, "", true) < 0)
                return -1;
            if (x->text.len == 1) /* only a comment: look further */
                continue;
            x->type = CP_XML_TEXT;
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
            x->type = CP_XML_END;
            return 0;
        }
        x->pos++;
        if (read_name(x, x->tname, "an element name after '<'") < 0 || read_attrs(x, false) < 0)
            return -1;
        x->empty = at(x, "/>");
        x->pos += x->empty ? 2 : 1;
        x->type = CP_XML_START;
        return 0;
    }
}

/* Text of blanks only (t holds the text and its NUL). */
static bool blank(const cp_bytes *t)
{
    for (size_t i = 0; i + 1 < t->len; i++)
        if (!strchr(" \t\r\n", t->p[i]))
            return false;
    return true;
}

int cp_xml_next_tag(cp_xml *x)
{
    do {
        if (cp_xml_next(x) < 0)
            return -1;
    } while (x->type == CP_XML_TEXT && blank(&x->text));
    if (x->type == CP_XML_TEXT) {
        const char *s = (const char *)x->text.p, *t = s + strspn(s, " \t\r\n");
        int n = (int)strcspn(t, "\r\n");
        return CP_XML_TFAIL(x, "expected an element, found text \"%.*s\"", n < 40 ? n : 40, t);
    }
    return 0;
}

bool cp_xml_is_start(const cp_xml *x, const char *name)
{
    return x->type == CP_XML_START && strcmp(x->tname, name) == 0;
}

bool cp_xml_is_end(const cp_xml *x, const char *name)
{
    return x->type == CP_XML_END && strcmp(x->tname, name) == 0;
}

int cp_xml_expected(cp_xml *x, const char *what)
{
    char found[CP_XML_MAX_NAME + 32];
    if (x->type == CP_XML_START)
        snprintf(found, sizeof found, "<%s>", x->tname);
    else if (x->type == CP_XML_END)
        snprintf(found, sizeof found, "</%s>", x->tname);
    else if (x->type == CP_XML_TEXT)
        snprintf(found, sizeof found, "text");
    else
        snprintf(found, sizeof found, "the end of %s", x->doc);
    return CP_XML_TFAIL(x, "expected %s, found %s", what, found);
}
