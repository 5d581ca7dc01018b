/*
 * The POSIX ustar archive around the members of profile.cubex
 * (cubex_internal.h).
 *
 * Written: one 512-byte header per member (a regular file, mode 0644,
 * owner 0, the time of writing), its bytes padded with zeros to a whole
 * block, and two zero blocks at the end; what Cube's writer emits and every
 * tar reads.  Read: ustar headers and GNU's ("ustar  "), a checksum summed
 * with unsigned or signed bytes (as some old tars did), sizes in octal or
 * GNU base-256, each checked against the archive's bounds before it is
 * used.  Only regular files are listed; what the members mean is cubex.c's
 * business.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cubex_internal.h"
#include "grow.h"

#define BLOCK 512

/* ================================================================ writer */

int cp_tar_put(cp_tar_out *t, const void *p, size_t n)
{
    if (t->out)
        return cp_out_write(t->out, p, n);
    cp_bytes_append(&t->mem, p, n);
    if (t->mem.failed) {
        t->oom = true;
        return -1;
    }
    return 0;
}

/* A ustar header for a regular file.  Sizes of 8 GiB and more use the
 * base-256 form of GNU tar (and of POSIX readers that follow it). */
static void tar_header(unsigned char h[BLOCK], const char *name, uint64_t size, uint64_t mtime)
{
    memset(h, 0, BLOCK);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    if (size < ((uint64_t)1 << 33)) {
        snprintf((char *)h + 124, 12, "%011" PRIo64, size);
    } else {
        h[124] = 0x80;
        for (int i = 0; i < 8; i++)
            h[135 - i] = (unsigned char)(size >> (8 * i));
    }
    snprintf((char *)h + 136, 12, "%011" PRIo64, mtime & (((uint64_t)1 << 33) - 1));
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6); /* with its NUL */
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < BLOCK; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum); /* 6 digits, NUL; the space stays */
}

int cp_tar_begin(cp_tar_out *t, const char *name, uint64_t size)
{
    unsigned char h[BLOCK];
    time_t now = time(NULL);
    tar_header(h, name, size, now > 0 ? (uint64_t)now : 0);
    return cp_tar_put(t, h, BLOCK);
}

int cp_tar_pad(cp_tar_out *t, uint64_t size)
{
    static const unsigned char zero[BLOCK];
    size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);
    return pad ? cp_tar_put(t, zero, pad) : 0;
}

int cp_tar_add(cp_tar_out *t, const char *name, const void *data, size_t n)
{
    return cp_tar_begin(t, name, n) == 0 && cp_tar_put(t, data, n) == 0 && cp_tar_pad(t, n) == 0
               ? 0
               : -1;
}

int cp_tar_end(cp_tar_out *t)
{
    static const unsigned char zero[2 * BLOCK];
    return cp_tar_put(t, zero, sizeof zero);
}

/* ================================================================ reader */

/* An octal number field: leading blanks, digits, then NULs or blanks. */
static bool octal(const unsigned char *f, size_t n, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && f[i] == ' ')
        i++;
    size_t digits = i;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 61)
            return false;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    if (i == digits)
        return false;
    for (; i < n; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return false;
    *out = v;
    return true;
}

/* The size field: octal, or GNU base-256 (0x80, then big-endian). */
static bool size_field(const unsigned char *f, uint64_t *out)
{
    if (f[0] != 0x80)
        return octal(f, 12, out);
    uint64_t v = 0;
    for (int i = 1; i < 12; i++) {
        if (v >> 55)
            return false;
        v = (v << 8) | f[i];
    }
    *out = v;
    return true;
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Check one header block at off and append its member. */
static int read_header(cp_tar *a, size_t off, size_t *next)
{
    const unsigned char *h = a->d + off;
    uint64_t stored, size;
    unsigned usum = 0;
    int ssum = 0;
    for (int i = 0; i < BLOCK; i++) {
        unsigned char b = i >= 148 && i < 156 ? ' ' : h[i];
        usum += b;
        ssum += (signed char)b; /* what some old tars computed */
    }
    if (!octal(h + 148, 8, &stored))
        return cp_error_set(a->err, "%s: header at offset %zu: expected an octal checksum",
                            a->name, off);
    if (stored != usum && (int64_t)stored != ssum)
        return cp_error_set(a->err, "%s: header at offset %zu: checksum %" PRIo64
                                    " does not match the header's bytes (%o)",
                            a->name, off, stored, usum);
    bool posix = memcmp(h + 257, "ustar", 6) == 0;
    if (!posix && memcmp(h + 257, "ustar  ", 8) != 0)
        return cp_error_set(a->err, "%s: header at offset %zu: expected a ustar header", a->name,
                            off);
    cp_tar_member m;
    size_t nl = strnlen((const char *)h, 100), pl = posix ? strnlen((const char *)h + 345, 155) : 0;
    if (pl)
        snprintf(m.name, sizeof m.name, "%.*s/%.*s", (int)pl, (const char *)h + 345, (int)nl,
                 (const char *)h);
    else
        snprintf(m.name, sizeof m.name, "%.*s", (int)nl, (const char *)h);
    for (char *p = m.name; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F)
            *p = '?'; /* names appear in messages */
    if (h[156] != '0' && h[156] != '\0')
        return cp_error_set(a->err, "%s: member %s: type '%c' is not a regular file", a->name,
                            m.name, h[156] >= 0x20 && h[156] < 0x7F ? h[156] : '?');
    if (!size_field(h + 124, &size))
        return cp_error_set(a->err, "%s: member %s: expected a size", a->name, m.name);
    size_t avail = a->len - off - BLOCK;
    if (size > avail || (BLOCK - size % BLOCK) % BLOCK > avail - size)
        return cp_error_set(a->err, "%s: member %s: truncated (%" PRIu64 " bytes, %zu left in "
                                    "the archive)",
                            a->name, m.name, size, avail);
    m.off = off + BLOCK;
    m.size = (size_t)size;
    if (cp_grow((void **)&a->mem, &a->cap, a->nmem + 1, sizeof *a->mem, 16))
        return cp_error_set(a->err, "%s: out of memory", a->name);
    a->mem[a->nmem++] = m;
    *next = m.off + m.size + (BLOCK - m.size % BLOCK) % BLOCK;
    return 0;
}

/* Every member; the archive ends with two zero blocks, and only zero
 * blocks may follow them. */
int cp_tar_read(cp_tar *a)
{
    size_t off = 0;
    for (;;) {
        if (a->len - off < BLOCK)
            return cp_error_set(a->err, "%s: truncated at offset %zu: expected %s", a->name, off,
                                off == a->len ? "a header or two zero blocks at the end"
                                              : "a whole 512-byte block");
        if (!all_zero(a->d + off, BLOCK)) {
            if (read_header(a, off, &off) < 0)
                return -1;
            continue;
        }
        if (a->len - off < 2 * BLOCK || !all_zero(a->d + off + BLOCK, BLOCK))
            return cp_error_set(a->err, "%s: offset %zu: expected a second zero block to end "
                                        "the archive",
                                a->name, off + BLOCK);
        off += 2 * BLOCK;
        if ((a->len - off) % BLOCK != 0 || !all_zero(a->d + off, a->len - off))
            return cp_error_set(a->err, "%s: offset %zu: expected nothing but zero blocks after "
                                        "the end of the archive",
                                a->name, off);
        return 0;
    }
}
