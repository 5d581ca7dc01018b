/*
 * Typed values of the current element (xml.h), on top of the tokenizer of
 * xml.c: attributes as strings or integers in a range, leaf elements, a set
 * of leaf children in any order.  Every value is bounded by the size of the
 * field it goes to and checked for control characters before it is kept,
 * and every message names the element and the line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xml.h"
#include "grow.h"

static int copy_value(cp_xml *x, char *dst, size_t size, const char *s, size_t n, const char *what)
{
    if (n >= size)
        return CP_XML_TFAIL(x, "expected %s of at most %zu bytes, found %zu", what, size - 1, n);
    if (cp_xml_check_value(x, s, n, what) < 0)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

int cp_xml_str_attr(cp_xml *x, const char *name, bool required, char *dst, size_t size)
{
    size_t n;
    const char *v = cp_xml_attr_value(x, name, &n);
    char what[CP_XML_MAX_NAME + 48];
    snprintf(what, sizeof what, "the attribute %s of <%s>", name, x->tname);
    if (!v) {
        if (required)
            return CP_XML_TFAIL(x, "expected %s", what);
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

int cp_xml_int_attr(cp_xml *x, const char *name, bool required, int64_t dflt, int64_t min,
                    int64_t max, int64_t *out)
{
    const char *v = cp_xml_attr_value(x, name, NULL);
    if (!v) {
        if (required)
            return CP_XML_TFAIL(x, "expected the attribute %s in <%s>", name, x->tname);
        *out = dflt;
        return 0;
    }
    if (!to_i64(v, out) || *out < min || *out > max)
        return CP_XML_TFAIL(x,
                            "expected an integer from %" PRId64 " to %" PRId64
                            " for the attribute %s of <%s>, found \"%.40s\"",
                            min, max, name, x->tname, v);
    return 0;
}

/* After a leaf's content: its end tag `tag`. */
static int end_of(cp_xml *x, const char *tag)
{
    if (cp_xml_is_end(x, tag))
        return 0;
    char want[CP_XML_MAX_NAME + 8];
    snprintf(want, sizeof want, "</%s>", tag);
    return cp_xml_expected(x, want);
}

int cp_xml_leaf(cp_xml *x, char *dst, size_t size)
{
    char tag[CP_XML_MAX_NAME], what[CP_XML_MAX_NAME + 16];
    memcpy(tag, x->tname, sizeof tag);
    snprintf(what, sizeof what, "<%s>", tag);
    if (x->empty) {
        dst[0] = '\0';
        return 0;
    }
    if (cp_xml_next(x) < 0)
        return -1;
    long line = x->tline;
    if (x->type == CP_XML_TEXT) {
        const char *s = (const char *)x->text.p;
        size_t n = x->text.len - 1;
        if (n >= size) /* before reading on: the message names its line */
            return cp_xml_fail_at(x, line, "expected %s of at most %zu bytes, found %zu", what,
                                  size - 1, n);
        if (cp_xml_check_value(x, s, n, what) < 0)
            return -1;
        memcpy(dst, s, n);
        dst[n] = '\0';
        if (cp_xml_next(x) < 0)
            return -1;
    } else {
        dst[0] = '\0';
    }
    return end_of(x, tag);
}

int cp_xml_int_leaf(cp_xml *x, int64_t *out)
{
    char buf[64], tag[CP_XML_MAX_NAME];
    memcpy(tag, x->tname, sizeof tag);
    long line = x->tline;
    if (x->empty || x->type != CP_XML_START)
        return CP_XML_TFAIL(x, "expected an integer in <%s>", tag);
    if (cp_xml_next(x) < 0)
        return -1;
    const char *t = (const char *)x->text.p;
    size_t b = 0, e = x->type == CP_XML_TEXT ? x->text.len - 1 : 0;
    if (x->type == CP_XML_TEXT) {
        while (b < e && strchr(" \t\r\n", t[b]))
            b++;
        while (e > b && strchr(" \t\r\n", t[e - 1]))
            e--;
    }
    if (e - b >= sizeof buf || e == b)
        return cp_xml_fail_at(x, line, "expected an integer in <%s>", tag);
    memcpy(buf, t + b, e - b);
    buf[e - b] = '\0';
    if (!to_i64(buf, out))
        return cp_xml_fail_at(x, line, "expected an integer in <%s>, found \"%s\"", tag, buf);
    if (cp_xml_next(x) < 0)
        return -1;
    return end_of(x, tag);
}

int cp_xml_empty_element(cp_xml *x)
{
    char tag[CP_XML_MAX_NAME];
    if (x->empty)
        return 0;
    memcpy(tag, x->tname, sizeof tag);
    if (cp_xml_next_tag(x) < 0)
        return -1;
    return end_of(x, tag);
}

int cp_xml_fields(cp_xml *x, const char *elem, cp_xml_field *f, size_t nf)
{
    for (;;) {
        if (cp_xml_next_tag(x) < 0)
            return -1;
        if (cp_xml_is_end(x, elem))
            return 0;
        if (x->type != CP_XML_START)
            break;
        size_t k = 0;
        while (k < nf && strcmp(f[k].tag, x->tname) != 0)
            k++;
        if (k == nf)
            return 1;
        if (f[k].seen)
            return CP_XML_TFAIL(x, "expected one <%s> in <%s>", f[k].tag, elem);
        f[k].seen = true;
        f[k].line = x->tline;
        if (cp_xml_leaf(x, f[k].dst, f[k].size) < 0)
            return -1;
    }
    char want[CP_XML_MAX_NAME + 8];
    snprintf(want, sizeof want, "</%s>", elem);
    return cp_xml_expected(x, want);
}

int cp_xml_grow(cp_xml *x, void **arr, size_t n, size_t *cap, size_t size)
{
    return cp_grow(arr, cap, n + 1, size, 16) == 0 ? 0 : cp_xml_oom(x);
}
