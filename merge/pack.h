/*
 * Buffers for the finalize-time messages between ranks of one job (same
 * binary, same architecture): fixed-width integers in host order.  A reader
 * never reads past its end; it sets `bad` instead.
 */
#ifndef COLLPROF_PACK_H
#define COLLPROF_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"

/* The messages' bytes go into the model's one growing buffer (bytes.h):
 * its failure rule is theirs, an allocation that fails sets `failed` and
 * later puts are ignored. */
typedef cp_bytes cp_wbuf;

/* Append len bytes (data may be NULL when len is 0).  Inline while there
 * is room: finalize and the simulator pack millions of small values. */
static inline void cp_put(cp_wbuf *b, const void *data, size_t len)
{
    if (__builtin_expect(!b->failed && len <= b->cap - b->len, 1)) {
        if (len)
            memcpy(b->p + b->len, data, len);
        b->len += len;
    } else {
        cp_bytes_append(b, data, len);
    }
}
static inline void cp_put_u32(cp_wbuf *b, uint32_t v) { cp_put(b, &v, sizeof v); }
static inline void cp_put_u64(cp_wbuf *b, uint64_t v) { cp_put(b, &v, sizeof v); }
static inline void cp_put_i64(cp_wbuf *b, int64_t v) { cp_put(b, &v, sizeof v); }
static inline void cp_wbuf_free(cp_wbuf *b)
{
    cp_bytes_free(b);
}
/* A string: its length (uint32) then its bytes. */
void cp_put_str(cp_wbuf *b, const char *s);

typedef struct cp_rbuf {
    const char *p;
    size_t len, off;
    bool bad;
} cp_rbuf;

/* Copy len bytes out, or zero them and set bad when fewer remain (inline
 * when they are there). */
void cp_get_short(cp_rbuf *b, void *out, size_t len);
static inline void cp_get(cp_rbuf *b, void *out, size_t len)
{
    if (__builtin_expect(len && !b->bad && b->len - b->off >= len, 1)) {
        memcpy(out, b->p + b->off, len);
        b->off += len;
    } else {
        cp_get_short(b, out, len);
    }
}
static inline uint32_t cp_get_u32(cp_rbuf *b) { uint32_t v; cp_get(b, &v, sizeof v); return v; }
static inline uint64_t cp_get_u64(cp_rbuf *b) { uint64_t v; cp_get(b, &v, sizeof v); return v; }
static inline int64_t cp_get_i64(cp_rbuf *b) { int64_t v; cp_get(b, &v, sizeof v); return v; }
/* Can `n` items of `size` bytes still be read?  (Guards allocations.) */
bool cp_rbuf_has(const cp_rbuf *b, uint64_t n, size_t size);
/* A string of cp_put_str into out[cap], NUL-terminated; `bad` when it does
 * not fit. */
void cp_get_str(cp_rbuf *b, char *out, size_t cap);

#endif
