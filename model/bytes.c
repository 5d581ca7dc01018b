/*
 * cp_bytes (bytes.h): a growing byte buffer whose failure is sticky, and
 * fixed byte-order integers, shared by the binary and text writers.
 */
#include "bytes.h"
#include "grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cp_bytes_reserve(cp_bytes *b, size_t n)
{
    if (b->failed)
        return false;
    if (n <= b->cap - b->len)
        return true;
    if (n > SIZE_MAX - b->len || cp_grow((void **)&b->p, &b->cap, b->len + n, 1, 256)) {
        b->failed = true;
        return false;
    }
    return true;
}

void cp_bytes_append(cp_bytes *b, const void *data, size_t n)
{
    if (n == 0 || !cp_bytes_reserve(b, n))
        return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

void cp_bytes_printf(cp_bytes *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    /* the text and its NUL; the NUL is then dropped from len */
    if (w < 0 || !cp_bytes_reserve(b, (size_t)w + 1)) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)w + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)w;
}

void cp_bytes_le32(cp_bytes *b, uint32_t v)
{
    unsigned char x[4];
    cp_store_le32(x, v);
    cp_bytes_append(b, x, sizeof x);
}

void cp_bytes_le64(cp_bytes *b, uint64_t v)
{
    unsigned char x[8];
    cp_store_le64(x, v);
    cp_bytes_append(b, x, sizeof x);
}

void cp_bytes_free(cp_bytes *b)
{
    if (!b)
        return;
    free(b->p);
    memset(b, 0, sizeof *b);
}

void cp_store_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void cp_store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t cp_load_u32(const unsigned char *p, bool big)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[big ? 3 - i : i] << (8 * i);
    return v;
}

uint64_t cp_load_u64(const unsigned char *p, bool big)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}
