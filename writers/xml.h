/*
 * A small bounded XML reader, and escaping for an XML writer: what
 * profile.cubex needs for anchor.xml (cubex_anchor.c), no more.
 *
 * The tokenizer (xml.c) pulls one token at a time: a start tag with its
 * attributes, an end tag, text, or the end of the input.  It decodes the five
 * predefined entities, skips comments, refuses DOCTYPE, CDATA and processing
 * instructions, checks that text is UTF-8 without control characters (tab,
 * newline and carriage return aside), and reads the XML declaration.  The
 * reading helpers (xml_read.c) take typed values from the current element:
 * attributes, integers, leaf elements, a set of leaf children.
 *
 * Nothing recurses on the input's nesting and every access is checked
 * against the input's length: the caller follows the document's hierarchy
 * itself.  Every error reads "<name>: <doc>:<line>: expected ..., found ...";
 * the functions return 0, or -1 with that message in err.
 */
#ifndef COLLPROF_XML_H
#define COLLPROF_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "collprof/profile.h"

/* Attributes per element, and bytes of an element or attribute name. */
#define CP_XML_MAX_ATTRS 16
#define CP_XML_MAX_NAME 64

enum cp_xml_token { CP_XML_EOF, CP_XML_START, CP_XML_END, CP_XML_TEXT };

typedef struct cp_xml_attr {
    char name[CP_XML_MAX_NAME];
    size_t value; /* offset into cp_xml.vals */
    size_t len;
} cp_xml_attr;

typedef struct cp_xml {
    const unsigned char *p;
    size_t len, pos;
    long line;
    const char *name; /* the input (e.g. the archive), for messages */
    const char *doc;  /* the document in it (e.g. "anchor.xml") */
    cp_error *err;
    /* the current token */
    int type;
    long tline;
    char tname[CP_XML_MAX_NAME]; /* CP_XML_START / CP_XML_END */
    bool empty;                  /* CP_XML_START of "<x/>" */
    cp_xml_attr attrs[CP_XML_MAX_ATTRS];
    size_t nattrs;
    cp_bytes vals; /* decoded attribute values, each NUL-terminated */
    cp_bytes text; /* CP_XML_TEXT, decoded, NUL-terminated */
} cp_xml;

/* ------------------------------------------------------------ writing */

/* s[0..n) escaped for text and attribute values alike (&amp; &lt; &gt;
 * &quot; &apos;).  Bytes that XML cannot carry (control characters, tab and
 * newline included, DEL, invalid UTF-8) become one '?' each, so that what
 * the reader refuses is never written and the length is kept. */
void cp_xml_put_escaped(cp_bytes *b, const char *s, size_t n);

/* ---------------------------------------------------------- tokenizer */

/* Read xml[0..len); name and doc start every message.  Before the first
 * token, cp_xml_declaration may read the XML declaration. */
void cp_xml_init(cp_xml *x, const char *xml, size_t len, const char *name, const char *doc,
                 cp_error *err);
void cp_xml_free(cp_xml *x);

/* `<?xml version="1.0" encoding="UTF-8"?>` at the very start. */
int cp_xml_declaration(cp_xml *x);
/* The next token; comments between elements are skipped, comments inside
 * text are dropped from it. */
int cp_xml_next(cp_xml *x);
/* The next token that is not whitespace: an element tag or the end (text
 * is an error). */
int cp_xml_next_tag(cp_xml *x);

bool cp_xml_is_start(const cp_xml *x, const char *name);
bool cp_xml_is_end(const cp_xml *x, const char *name);

/* An error at a line: "<name>: <doc>:<line>: <message>". */
int cp_xml_fail_at(cp_xml *x, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error about the current token: at the line where it starts. */
#define CP_XML_TFAIL(x, ...) cp_xml_fail_at((x), (x)->tline, __VA_ARGS__)
/* "expected <what>, found <the current token>". */
int cp_xml_expected(cp_xml *x, const char *what);
/* "<name>: <doc>: out of memory". */
int cp_xml_oom(cp_xml *x);

/* ---------------------------------------------------- reading values */

/* Value of attribute `name` of the current start tag (NUL-terminated, its
 * length in *len when len is not NULL), or NULL. */
const char *cp_xml_attr_value(const cp_xml *x, const char *name, size_t *len);
/* A value as a model holds it: no control character.  s[0..n). */
int cp_xml_check_value(cp_xml *x, const char *s, size_t n, const char *what);
/* Attribute into dst[size] (checked as above); absent: "" or an error. */
int cp_xml_str_attr(cp_xml *x, const char *name, bool required, char *dst, size_t size);
/* An integer attribute in [min, max]; absent: *out = dflt (or an error). */
int cp_xml_int_attr(cp_xml *x, const char *name, bool required, int64_t dflt, int64_t min,
                    int64_t max, int64_t *out);
/* At the start tag of a leaf element: its text into dst[size], through its
 * end tag. */
int cp_xml_leaf(cp_xml *x, char *dst, size_t size);
/* A leaf holding an integer (surrounding blanks allowed). */
int cp_xml_int_leaf(cp_xml *x, int64_t *out);
/* The current start tag has no content: "<x/>" or "<x>" blanks "</x>". */
int cp_xml_empty_element(cp_xml *x);

/* Leaf children of one element: each at most once, in any order. */
typedef struct cp_xml_field {
    const char *tag;
    char *dst;
    size_t size;
    bool seen;
    long line; /* where it was, for messages about its value */
} cp_xml_field;
/* The line of a field when present, else of its element. */
#define CP_XML_FLINE(f, elem_line) ((f).seen ? (f).line : (elem_line))
/* Read children of the element `elem` while they are fields.  Returns 0
 * after its end tag, 1 with another start tag current, -1 on error. */
int cp_xml_fields(cp_xml *x, const char *elem, cp_xml_field *f, size_t nf);

/* Room for element n of *arr (capacity *cap, doubled from 16). */
int cp_xml_grow(cp_xml *x, void **arr, size_t n, size_t *cap, size_t size);

#endif
