/*
 * The JSON parser of the JSON formats (json.c): a document into a tree.
 */
#ifndef CP_JSON_H
#define CP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "textio.h"

typedef enum { JV_NULL, JV_BOOL, JV_INT, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jv jv;
struct jv {
    jv_type type;
    long line, col;    /* where the value starts */
    bool b;            /* JV_BOOL */
    int64_t i;         /* JV_INT */
    bool overflow;     /* JV_INT outside int64 */
    double d;          /* JV_INT, JV_NUM: the number as a double */
    char *s;           /* JV_STR: NUL-terminated, no NUL inside */
    size_t slen;
    jv *items;         /* JV_ARR elements / JV_OBJ member values */
    jv *keys;          /* JV_OBJ member keys (JV_STR values) */
    size_t n, cap;
};

typedef struct jctx {
    const char *name;
    cp_error *err;
} jctx;

/* Parse data[0..len) (need not be NUL-terminated) into *root: one value
 * and nothing after it.  0, or -1 with err naming name:line:column. */
int cp_json_parse(const char *data, size_t len, const char *name, jv *root, cp_error *err);
void cp_jv_free(jv *v);
/* s[0..n) as a JSON string: quotes, backslashes and control characters
 * escaped, valid UTF-8 kept, invalid bytes as U+FFFD (the output is always
 * valid JSON), handed to put(ctx, bytes, len) piece by piece (put returns
 * 0, or -1 to stop).  The one escaper of every JSON collprof writes.
 * 0, or -1 when put failed. */
typedef int (*cp_json_put)(void *ctx, const char *p, size_t n);
int cp_json_escape(const char *s, size_t n, cp_json_put put, void *ctx);
/* The same into a file being written.  0, or -1 when writing fails. */
int cp_json_write_string(cp_out *o, const char *s, size_t n);

/* Messages about value v: "name:line:column: what".  Returns -1. */
int cp_jfail(const jctx *cx, const jv *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *cp_jtype_name(jv_type t);
/* The value of key in object o; NULL (and an error when required) when
 * absent; an error when the key appears twice.  0 or -1. */
int cp_jget_member(const jctx *cx, const jv *o, const char *key, bool required, const jv **out);
/* An integer member between min and max; a string member of at most size - 1 bytes. */
int cp_jget_int(const jctx *cx, const jv *o, const char *key, int64_t min, int64_t max,
                int64_t *out);
int cp_jget_str(const jctx *cx, const jv *o, const char *key, char *dst, size_t size);
/* A number member (integer or not). */
int cp_jget_num(const jctx *cx, const jv *o, const char *key, double *out);

#endif
