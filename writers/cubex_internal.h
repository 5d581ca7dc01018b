/*
 * What the files of profile.cubex share; cubex.h is the public side.
 *
 *   cubex_model.c   the model's functions (free, accessors, equality) and
 *                   the builder
 *   cubex_check.c   what the writer refuses (cp_cubex_check)
 *   cubex_tar.c     the ustar archive: members written to a file or to
 *                   memory, members listed from memory
 *   cubex.c         the N.index / N.data members and the entry points
 *                   (write, format, parse, read)
 *   cubex_anchor.c  anchor.xml, writer and reader (on xml.h)
 */
#ifndef COLLPROF_CUBEX_INTERNAL_H
#define COLLPROF_CUBEX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "cubex.h"
#include "textio.h"

/* ------------------------------------------------------ cubex_model.c */

/* Bytes of one metric's values (ncnodes x nlocations x 8), or 0 when that
 * overflows size_t. */
size_t cp_cube_values_bytes(const cp_cube *c);
/* The 8 bytes of values[m][cnode][loc] as stored (the metric's dtype), or 0
 * out of range. */
uint64_t cp_cube_raw_value(const cp_cube *c, size_t m, size_t cnode, size_t loc);

/* ------------------------------------------------------ cubex_check.c */

/* Check c as the writer needs it (cubex.h lists what is refused); 0, or -1
 * with err set. */
int cp_cubex_check(const cp_cube *c, cp_error *err);
/* The same; values false: everything but the values (a profile whose rows
 * come from elsewhere, cp_cubex_write_rows). */
int cp_cubex_check_meta(const cp_cube *c, bool values, cp_error *err);

/* ----------------------------------------------------- cubex_anchor.c */

/* Is key one of cp_cubex_reserved_attrs (written by collprof itself)? */
bool cp_cubex_reserved_attr(const char *key);
/* Where anchor.xml goes as it is made: whenever b holds CP_CUBEX_ANCHOR_CHUNK (cubex.h)
 * bytes or more, and at the end, flush takes them (and empties b); -1 from
 * flush stops the writing.  So the system tree of a million ranks is
 * never held whole. */
typedef struct cp_anchor_sink {
    int (*flush)(void *ctx, cp_bytes *b);
    void *ctx;
} cp_anchor_sink;
/* anchor.xml of a checked cube through b into sink; 0, or -1 (out of
 * memory, or the sink's failure).  The same cube gives the same bytes. */
int cp_cubex_anchor_write(const cp_cube *c, cp_bytes *b, const cp_anchor_sink *sink);
/* Parse anchor.xml (xml[0..len)) into out: everything but values.  Errors
 * read "<name>: anchor.xml:<line>: ...". */
int cp_cubex_anchor_parse(const char *xml, size_t len, const char *name, cp_cube *out,
                          cp_error *err);

/* ------------------------------------------------------- cubex_tar.c */

/* Where an archive goes: a file (out), or memory (mem) when out is NULL.
 * The functions return 0 or -1; a failure of memory (mem's, or the
 * caller's, who then sets it) is told apart from a write error by oom. */
typedef struct cp_tar_out {
    cp_out *out;
    cp_bytes mem;
    bool oom;
} cp_tar_out;

/* Bytes of the current member. */
int cp_tar_put(cp_tar_out *t, const void *p, size_t n);
/* The header of a member of `size` bytes (which cp_tar_put then writes,
 * followed by cp_tar_pad). */
int cp_tar_begin(cp_tar_out *t, const char *name, uint64_t size);
/* The zeros after a member of `size` bytes, up to the next 512-byte block. */
int cp_tar_pad(cp_tar_out *t, uint64_t size);
/* A whole member from memory: header, data, padding. */
int cp_tar_add(cp_tar_out *t, const char *name, const void *data, size_t n);
/* The end of the archive: two zero blocks. */
int cp_tar_end(cp_tar_out *t);

/* One member of an archive read from memory: its data is d[off..off+size). */
typedef struct cp_tar_member {
    char name[256]; /* non-printable bytes shown as '?' */
    size_t off, size;
} cp_tar_member;

/* An archive in memory, d[0..len); name starts every message. */
typedef struct cp_tar {
    const unsigned char *d;
    size_t len;
    const char *name;
    cp_error *err;
    cp_tar_member *mem; /* cp_tar_read lists them; free(mem) */
    size_t nmem, cap;
} cp_tar;

/* List every member (regular files only; ustar or GNU headers, checksums
 * checked, sizes within the archive), up to the two zero blocks that end
 * it, after which only zero blocks may follow.  0, or -1 with err set. */
int cp_tar_read(cp_tar *a);

#endif
