/*
 * The formats' one growing byte buffer, and integers in a fixed byte order.
 *
 * timings.cpt encodes into a cp_bytes, profile.stat formats its text into
 * one, profile.cubex builds its members and the tokenizer of anchor.xml
 * decodes into them: one buffer with one failure rule, so that no writer
 * has to check every append.
 */
#ifndef COLLPROF_BYTES_H
#define COLLPROF_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer.  Zero-initialise it; appends that run out of memory
 * set `failed` and append nothing from then on. */
typedef struct cp_bytes {
    unsigned char *p;
    size_t len, cap;
    bool failed;
} cp_bytes;

/* Room for n more bytes at p + len (for a writer that fills them itself,
 * e.g. zlib); false, and `failed` set, when there is none. */
bool cp_bytes_reserve(cp_bytes *b, size_t n);
/* Append n bytes (n == 0 and data == NULL is allowed). */
void cp_bytes_append(cp_bytes *b, const void *data, size_t n);
/* Append formatted text.  A NUL follows the text in p (not counted in len),
 * so that a buffer filled only by this is a C string. */
void cp_bytes_printf(cp_bytes *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append v little-endian (4 / 8 bytes). */
void cp_bytes_le32(cp_bytes *b, uint32_t v);
void cp_bytes_le64(cp_bytes *b, uint64_t v);
/* Release the memory; b becomes an empty buffer (NULL is allowed). */
void cp_bytes_free(cp_bytes *b);

/* v into p[0..4) / p[0..8), little-endian. */
void cp_store_le32(unsigned char *p, uint32_t v);
void cp_store_le64(unsigned char *p, uint64_t v);
/* The integer at p[0..4) / p[0..8), big-endian when `big`, else
 * little-endian, whatever the host's byte order. */
uint32_t cp_load_u32(const unsigned char *p, bool big);
uint64_t cp_load_u64(const unsigned char *p, bool big);

#endif
