/*
 * Buffers for the finalize-time messages between ranks of one job (same
 * binary, same architecture): fixed-width integers in host order, and
 * variable-length ones for bulk.  A reader
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

/* How many of an array's n pointers are set: the count that comes before
 * the entries of a sparse table (CP_PUT_NPRESENT for an array in scope). */
static inline void cp_put_npresent(cp_wbuf *b, const void *const *v, size_t n)
{
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += v[i] != NULL;
    cp_put_u32(b, k);
}
#define CP_PUT_NPRESENT(b, array)                                                          \
    cp_put_npresent(b, (const void *const *)(array), sizeof(array) / sizeof((array)[0]))
static inline void cp_put_u64(cp_wbuf *b, uint64_t v) { cp_put(b, &v, sizeof v); }
static inline void cp_put_i64(cp_wbuf *b, int64_t v) { cp_put(b, &v, sizeof v); }
static inline void cp_wbuf_free(cp_wbuf *b)
{
    cp_bytes_free(b);
}
/* A string: its length (uint32) then its bytes. */
void cp_put_str(cp_wbuf *b, const char *s);

/* Variable-length integers (7 bits a byte, the high bit: more follow), for
 * the bulk of a message that is mostly small numbers (count rows: peers
 * and counts of a million-rank job take 1-3 bytes, not 8).  Signed ones
 * zigzag first, so that small negatives stay short. */
static inline void cp_put_uv(cp_wbuf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        t[n++] = (unsigned char)(v | 0x80);
    t[n++] = (unsigned char)v;
    cp_put(b, t, n);
}
static inline void cp_put_sv(cp_wbuf *b, int64_t v)
{
    cp_put_uv(b, ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

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
/* A variable-length integer of cp_put_uv / cp_put_sv; 0 and `bad` when
 * the buffer ends inside it or it runs past 10 bytes. */
static inline uint64_t cp_get_uv(cp_rbuf *b)
{
    uint64_t v = 0;
    for (int shift = 0; shift <= 63 && !b->bad && b->off < b->len; shift += 7) {
        unsigned char c = (unsigned char)b->p[b->off++];
        if (shift == 63 && c > 1)
            break; /* past 64 bits */
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    b->bad = true;
    return 0;
}
static inline int64_t cp_get_sv(cp_rbuf *b)
{
    uint64_t u = cp_get_uv(b);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}
/* Can `n` items of `size` bytes still be read?  (Guards allocations.) */
bool cp_rbuf_has(const cp_rbuf *b, uint64_t n, size_t size);
/* A string of cp_put_str into out[cap], NUL-terminated; `bad` when it does
 * not fit. */
void cp_get_str(cp_rbuf *b, char *out, size_t cap);

#endif
