/*
 * profile.cubex (cubex.h, docs/formats.md): the N.index / N.data members of
 * every metric, and the entry points that put them into the archive
 * (cubex_tar.c) beside anchor.xml (cubex_anchor.c), or take them out.
 *
 * Layouts, as Cube's writer (cubew) writes them and its reader (cubelib)
 * reads them:
 *   N.index  "CUBEX.INDEX", uint32 1 (tells the byte order), uint16 0,
 *            uint8 format (1 sparse: uint32 n, then n ascending cnode ids;
 *            3 dense: every cnode, nothing more).
 *   N.data   "CUBEX.DATA", then per indexed cnode one row: one value per
 *            location, 8 bytes each (IEEE double or uint64), in the index's
 *            byte order.
 *   N.data   "ZCUBEX.DATA", uint64 n (the rows), n entries of three uint64
 *            (row's byte offset in the uncompressed data, offset of its zlib
 *            stream after the entries, that stream's size; size 0: a row of
 *            zeros), then the streams.  Read, never written (not every Cube
 *            installation reads it).
 * A metric's data is numbered by cnode in depth-first pre-order, which is
 * why the model keeps its cnodes in that order (cp_cube_tree_finish).
 *
 * The writer lists a row only when it holds a non-zero value (sparse), or
 * every row when all do (dense).  The parser checks everything against the
 * archive's bounds before reading, and frees what it built on any error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cubex_internal.h"

#define INDEX_MARK "CUBEX.INDEX"
#define DATA_MARK "CUBEX.DATA"
#define ZDATA_MARK "ZCUBEX.DATA"
#define INDEX_SPARSE 1
#define INDEX_DENSE 3
/* Header of an index: marker, endianness mark, version, format. */
#define INDEX_HEAD 18
/* Values the parser allocates beyond what the archive's size justifies
 * (a sparse or compressed archive is much smaller than its model). */
#define VALUES_FREE_BYTES ((uint64_t)256 << 20)
#define VALUES_PER_ARCHIVE_BYTE 4096

/* =============================================================== writer */

static bool row_nonzero(const cp_cube *c, size_t m, size_t cnode)
{
    const unsigned char *row = (const unsigned char *)c->values[m] + cnode * c->nlocations * 8;
    for (size_t i = 0; i < c->nlocations * 8; i++)
        if (row[i])
            return true;
    return false;
}

/* Where the rows come from: the model's values, or a caller's function. */
typedef struct rows_src {
    const uint8_t *nonzero;   /* [m * ncnodes + cnode]; NULL: from the values */
    cp_cubex_row_fn row;
    void *ctx;
    uint64_t *buf;            /* one row */
} rows_src;

static bool has_row(const cp_cube *c, const rows_src *src, size_t m, size_t cnode)
{
    return src->nonzero ? src->nonzero[m * c->ncnodes + cnode] != 0 : row_nonzero(c, m, cnode);
}

static int values_row(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    const cp_cube *c = ctx;
    for (size_t l = 0; l < c->nlocations; l++)
        raw[l] = cp_cube_raw_value(c, m, cnode, l);
    return 0;
}

/* N.index and N.data of metric m. */
static int put_metric(cp_tar_out *s, const cp_cube *c, size_t m, const rows_src *src)
{
    size_t nrows = 0;
    for (size_t i = 0; i < c->ncnodes; i++)
        nrows += has_row(c, src, m, i);
    bool dense = nrows == c->ncnodes;
    if (nrows > UINT32_MAX)
        return -1; /* Cube's index counts in uint32 */

    cp_bytes idx = {0};
    const unsigned char version_format[3] = {0, 0, dense ? INDEX_DENSE : INDEX_SPARSE};
    cp_bytes_append(&idx, INDEX_MARK, 11);
    cp_bytes_le32(&idx, 1);
    cp_bytes_append(&idx, version_format, 3); /* uint16 version 0, uint8 format */
    if (!dense) {
        cp_bytes_le32(&idx, (uint32_t)nrows);
        for (size_t i = 0; i < c->ncnodes; i++)
            if (has_row(c, src, m, i))
                cp_bytes_le32(&idx, (uint32_t)i);
    }
    char name[32];
    snprintf(name, sizeof name, "%zu.index", m);
    s->oom |= idx.failed;
    int rc = idx.failed ? -1 : cp_tar_add(s, name, idx.p, idx.len);
    cp_bytes_free(&idx);
    if (rc < 0)
        return -1;

    uint64_t size = 10 + (uint64_t)nrows * c->nlocations * 8;
    snprintf(name, sizeof name, "%zu.data", m);
    if (cp_tar_begin(s, name, size) < 0 || cp_tar_put(s, DATA_MARK, 10) < 0)
        return -1;
    unsigned char buf[8192];
    size_t fill = 0;
    for (size_t i = 0; i < c->ncnodes; i++) {
        if (!dense && !has_row(c, src, m, i))
            continue;
        if (src->row(src->ctx, m, i, src->buf) < 0)
            return -1;
        for (size_t l = 0; l < c->nlocations; l++) {
            cp_store_le64(buf + fill, src->buf[l]);
            if ((fill += 8) == sizeof buf) {
                if (cp_tar_put(s, buf, fill) < 0)
                    return -1;
                fill = 0;
            }
        }
    }
    if (cp_tar_put(s, buf, fill) < 0)
        return -1;
    return cp_tar_pad(s, size);
}

/* anchor.xml's bytes counted (first pass), or put into the archive (second). */
typedef struct anchor_pass {
    cp_tar_out *s;            /* NULL: count only */
    uint64_t bytes;
} anchor_pass;

static int anchor_flush(void *ctx, cp_bytes *b)
{
    anchor_pass *a = ctx;
    a->bytes += b->len;
    int rc = a->s ? cp_tar_put(a->s, b->p, b->len) : 0;
    b->len = 0;
    return rc;
}

/* anchor.xml as it is made, in two passes: the archive's header needs its
 * size first, and the system tree of a million ranks is not held whole
 * (CP_ANCHOR_CHUNK bytes at a time). */
static int emit_anchor(cp_tar_out *s, const cp_cube *c)
{
    cp_bytes b = {0};
    anchor_pass count = {NULL, 0}, put = {s, 0};
    int rc = cp_cubex_anchor_write(c, &b, &(cp_anchor_sink){anchor_flush, &count});
    if (rc == 0)
        rc = cp_tar_begin(s, "anchor.xml", count.bytes);
    if (rc == 0)
        rc = cp_cubex_anchor_write(c, &b, &(cp_anchor_sink){anchor_flush, &put});
    if (b.failed)
        s->oom = true;
    cp_bytes_free(&b);
    if (rc == 0 && put.bytes != count.bytes)
        rc = -1; /* cannot happen: the same cube gives the same bytes */
    return rc == 0 ? cp_tar_pad(s, count.bytes) : -1;
}

/* The whole archive of a checked cube. */
static int emit(cp_tar_out *s, const cp_cube *c, const rows_src *src)
{
    int rc = emit_anchor(s, c);
    for (size_t m = 0; rc == 0 && m < c->nmetrics; m++)
        rc = put_metric(s, c, m, src);
    return rc == 0 ? cp_tar_end(s) : -1;
}

/* The rows from the model's values, through the same path. */
static int emit_values(cp_tar_out *s, const cp_cube *c)
{
    rows_src src = {NULL, values_row, (void *)c,
                    malloc((c->nlocations ? c->nlocations : 1) * sizeof(uint64_t))};
    int rc = src.buf ? emit(s, c, &src) : -1;
    if (!src.buf)
        s->oom = true;
    free(src.buf);
    return rc;
}

int cp_cubex_format(const cp_cube *c, void **data, size_t *len, cp_error *err)
{
    cp_tar_out s = {0};
    *data = NULL;
    *len = 0;
    if (cp_cubex_check(c, err) < 0)
        return cp_error_set(err, "cannot write a Cube profile: %s", err ? err->msg : "");
    if (emit_values(&s, c) < 0) {
        cp_bytes_free(&s.mem);
        return cp_error_set(err, "cannot write a Cube profile: out of memory");
    }
    *data = s.mem.p;
    *len = s.mem.len;
    return 0;
}

int cp_cubex_write(const char *path, const cp_cube *c, cp_error *err)
{
    if (cp_cubex_check(c, err) < 0)
        return cp_error_set(err, "%s: %s", path, err ? err->msg : "");
    cp_tar_out s = {0};
    s.out = cp_out_open(path, false, err);
    if (!s.out)
        return -1;
    if (emit_values(&s, c) < 0) {
        if (s.oom || cp_out_status(s.out, err) == 0)
            cp_error_set(err, "%s: out of memory", path);
        cp_out_abort(s.out);
        return -1;
    }
    return cp_out_commit(s.out, err);
}

int cp_cubex_write_rows(const char *path, const cp_cube *c, const uint8_t *nonzero,
                        cp_cubex_row_fn row, void *ctx, cp_error *err)
{
    if (cp_cubex_check_meta(c, false, err) < 0)
        return cp_error_set(err, "%s: %s", path, err ? err->msg : "");
    cp_tar_out s = {0};
    rows_src src = {nonzero, row, ctx,
                    malloc((c->nlocations ? c->nlocations : 1) * sizeof(uint64_t))};
    if (!src.buf)
        return cp_error_set(err, "%s: out of memory", path);
    s.out = cp_out_open(path, false, err);
    if (!s.out) {
        free(src.buf);
        return -1;
    }
    int rc = emit(&s, c, &src);
    free(src.buf);
    if (rc < 0) {
        if (s.oom || cp_out_status(s.out, err) == 0)
            cp_error_set(err, "%s: the rows could not be had", path);
        cp_out_abort(s.out);
        return -1;
    }
    return cp_out_commit(s.out, err);
}

/* =============================================================== parser */

/* "N.index" / "N.data" -> N and the kind (0 index, 1 data); -1: neither. */
static int metric_member(const char *name, size_t *n)
{
    size_t v = 0, i = 0;
    for (; name[i] >= '0' && name[i] <= '9'; i++) {
        if (v > (SIZE_MAX - 9) / 10 || (i == 1 && name[0] == '0'))
            return -1;
        v = v * 10 + (size_t)(name[i] - '0');
    }
    if (i == 0)
        return -1;
    *n = v;
    return strcmp(name + i, ".index") == 0 ? 0 : strcmp(name + i, ".data") == 0 ? 1 : -1;
}

/* One metric's index: the cnode of each row (rows[r]), the byte order. */
typedef struct index_info {
    bool big;
    size_t nrows;
    const unsigned char *ids; /* sparse: nrows uint32; dense: NULL */
} index_info;

static size_t row_cnode(const index_info *ix, size_t r)
{
    return ix->ids ? cp_load_u32(ix->ids + 4 * r, ix->big) : r;
}

static int read_index(const cp_tar *a, const cp_tar_member *mb, const cp_cube *c,
                      index_info *ix)
{
    const unsigned char *d = a->d + mb->off;
    size_t n = mb->size;
    const char *who = mb->name;
    if (n < INDEX_HEAD || memcmp(d, INDEX_MARK, 11) != 0)
        return cp_error_set(a->err, "%s: %s: expected the marker " INDEX_MARK " and a header",
                            a->name, who);
    if (cp_load_u32(d + 11, false) == 1)
        ix->big = false;
    else if (cp_load_u32(d + 11, true) == 1)
        ix->big = true;
    else
        return cp_error_set(a->err, "%s: %s: expected the endianness mark 1", a->name, who);
    if (d[17] == INDEX_DENSE) {
        if (n != INDEX_HEAD)
            return cp_error_set(a->err, "%s: %s: %zu bytes after a dense index header", a->name,
                                who, n - INDEX_HEAD);
        ix->nrows = c->ncnodes;
        ix->ids = NULL;
        return 0;
    }
    if (d[17] != INDEX_SPARSE)
        return cp_error_set(a->err, "%s: %s: index format %u (collprof reads 1, sparse, and 3, "
                                    "dense)",
                            a->name, who, d[17]);
    if (n < INDEX_HEAD + 4)
        return cp_error_set(a->err, "%s: %s: expected the number of cnode ids", a->name, who);
    uint32_t count = cp_load_u32(d + INDEX_HEAD, ix->big);
    if ((n - INDEX_HEAD - 4) / 4 != count || (n - INDEX_HEAD - 4) % 4 != 0)
        return cp_error_set(a->err, "%s: %s: %" PRIu32 " cnode ids announced, %zu bytes for "
                                    "them",
                            a->name, who, count, n - INDEX_HEAD - 4);
    ix->ids = d + INDEX_HEAD + 4;
    ix->nrows = count;
    for (size_t r = 0; r < count; r++) {
        uint32_t id = cp_load_u32(ix->ids + 4 * r, ix->big);
        if (id >= c->ncnodes)
            return cp_error_set(a->err, "%s: %s: cnode id %" PRIu32 " at entry %zu, but "
                                        "anchor.xml has %zu cnodes",
                                a->name, who, id, r, c->ncnodes);
        if (r > 0 && id <= cp_load_u32(ix->ids + 4 * (r - 1), ix->big))
            return cp_error_set(a->err, "%s: %s: cnode ids not ascending at entry %zu", a->name,
                                who, r);
    }
    return 0;
}

/* One row of raw values (the index's byte order) into the model. */
static void store_row(cp_cube *c, size_t m, size_t cnode, const unsigned char *src, bool big)
{
    unsigned char *dst = (unsigned char *)c->values[m] + cnode * c->nlocations * 8;
    for (size_t l = 0; l < c->nlocations; l++) {
        uint64_t v = cp_load_u64(src + 8 * l, big);
        memcpy(dst + 8 * l, &v, 8);
    }
}

/* "ZCUBEX.DATA": each row a zlib stream (see the top of this file). */
static int read_zdata(const cp_tar *a, const cp_tar_member *mb, cp_cube *c, size_t m,
                      const index_info *ix)
{
    const unsigned char *d = a->d + mb->off + 11;
    size_t n = mb->size - 11, row = c->nlocations * 8;
    const char *who = mb->name;
    if (n < 8 || cp_load_u64(d, ix->big) != ix->nrows)
        return cp_error_set(a->err, "%s: %s: expected the number of rows, %zu", a->name, who,
                            ix->nrows);
    if ((n - 8) / 24 < ix->nrows)
        return cp_error_set(a->err, "%s: %s: truncated in its table of %zu rows", a->name, who,
                            ix->nrows);
    const unsigned char *tab = d + 8, *area = tab + 24 * ix->nrows;
    size_t area_len = n - 8 - 24 * ix->nrows;
    unsigned char *buf = malloc(row), *done = calloc(ix->nrows ? ix->nrows : 1, 1);
    int rc = buf && done ? 0 : cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t i = 0; rc == 0 && i < ix->nrows; i++) {
        uint64_t at_u = cp_load_u64(tab + 24 * i, ix->big),
                 at_c = cp_load_u64(tab + 24 * i + 8, ix->big),
                 size = cp_load_u64(tab + 24 * i + 16, ix->big);
        if (size == 0)
            continue; /* a row of zeros */
        uint64_t r = at_u / row;
        uLongf got = (uLongf)row;
        int z;
        if (at_u % row != 0 || r >= ix->nrows || done[r])
            rc = cp_error_set(a->err, "%s: %s: entry %zu: offset %" PRIu64 " is not the start "
                                      "of a row not seen before",
                              a->name, who, i, at_u);
        else if (at_c > area_len || size > area_len - at_c)
            rc = cp_error_set(a->err, "%s: %s: entry %zu: compressed bytes outside the member",
                              a->name, who, i);
        else if ((z = uncompress(buf, &got, area + at_c, (uLong)size)) != Z_OK || got != row)
            rc = cp_error_set(a->err, "%s: %s: entry %zu: %s", a->name, who, i,
                              z != Z_OK ? (z == Z_BUF_ERROR ? "decompresses to more than a row"
                                                            : "corrupt zlib stream")
                                        : "decompresses to less than a row");
        else {
            done[r] = 1;
            store_row(c, m, row_cnode(ix, (size_t)r), buf, ix->big);
        }
    }
    free(buf);
    free(done);
    return rc;
}

static int read_data(const cp_tar *a, const cp_tar_member *mb, cp_cube *c, size_t m,
                     const index_info *ix)
{
    const unsigned char *d = a->d + mb->off;
    size_t row = c->nlocations * 8;
    if (mb->size >= 11 && memcmp(d, ZDATA_MARK, 11) == 0)
        return read_zdata(a, mb, c, m, ix);
    if (mb->size < 10 || memcmp(d, DATA_MARK, 10) != 0)
        return cp_error_set(a->err, "%s: %s: expected the marker " DATA_MARK " or " ZDATA_MARK,
                            a->name, mb->name);
    /* nrows <= ncnodes: no overflow, the model's values have this size */
    if (mb->size - 10 != ix->nrows * row)
        return cp_error_set(a->err, "%s: %s: %zu bytes of values, expected %zu (%zu rows x %zu "
                                    "locations x 8)",
                            a->name, mb->name, mb->size - 10, ix->nrows * row, ix->nrows,
                            c->nlocations);
    for (size_t r = 0; r < ix->nrows; r++)
        store_row(c, m, row_cnode(ix, r), d + 10 + r * row, ix->big);
    return 0;
}

/* The members of every metric, found by name; the values read. */
static int read_metrics(cp_tar *a, cp_cube *c)
{
    const cp_tar_member **idx = calloc(c->nmetrics, sizeof *idx),
                        **dat = calloc(c->nmetrics, sizeof *dat);
    int rc = idx && dat ? 0 : cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t i = 0; rc == 0 && i < a->nmem; i++) {
        size_t n;
        int kind = metric_member(a->mem[i].name, &n);
        if (kind < 0)
            continue; /* not ours: ignored */
        const cp_tar_member **slot = kind ? dat : idx;
        if (n >= c->nmetrics)
            rc = cp_error_set(a->err, "%s: %s: anchor.xml has no metric %zu", a->name,
                              a->mem[i].name, n);
        else if (slot[n])
            rc = cp_error_set(a->err, "%s: member %s appears twice", a->name, a->mem[i].name);
        else
            slot[n] = &a->mem[i];
    }
    for (size_t m = 0; rc == 0 && m < c->nmetrics; m++) {
        index_info ix = {0};
        if (!idx[m] || !dat[m])
            rc = cp_error_set(a->err, "%s: member %zu.%s missing (metric %zu, \"%s\")", a->name, m,
                              idx[m] ? "data" : "index", m, c->metrics[m].uniq_name);
        else if (read_index(a, idx[m], c, &ix) == 0)
            rc = read_data(a, dat[m], c, m, &ix);
        else
            rc = -1;
    }
    free(idx);
    free(dat);
    return rc;
}

/* anchor.xml, then the values (bounded: see VALUES_PER_ARCHIVE_BYTE). */
static int read_cube(cp_tar *a, cp_cube *c)
{
    const cp_tar_member *anchor = NULL;
    for (size_t i = 0; i < a->nmem; i++)
        if (strcmp(a->mem[i].name, "anchor.xml") == 0) {
            if (anchor)
                return cp_error_set(a->err, "%s: member anchor.xml appears twice", a->name);
            anchor = &a->mem[i];
        }
    if (!anchor)
        return cp_error_set(a->err, "%s: member anchor.xml missing", a->name);
    if (cp_cubex_anchor_parse((const char *)a->d + anchor->off, anchor->size, a->name, c,
                              a->err) < 0)
        return -1;
    size_t vb = cp_cube_values_bytes(c);
    if (!vb || (uint64_t)vb > (VALUES_FREE_BYTES + VALUES_PER_ARCHIVE_BYTE * (uint64_t)a->len) /
                           c->nmetrics)
        return cp_error_set(a->err, "%s: anchor.xml: %zu cnodes x %zu locations x %zu metrics "
                                    "are more values than collprof reads from %zu bytes",
                            a->name, c->ncnodes, c->nlocations, c->nmetrics, a->len);
    if (!(c->values = calloc(c->nmetrics, sizeof *c->values)))
        return cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t m = 0; m < c->nmetrics; m++)
        if (!(c->values[m] = calloc(vb, 1)))
            return cp_error_set(a->err, "%s: out of memory for the values", a->name);
    return read_metrics(a, c);
}

int cp_cubex_parse_mem(const void *data, size_t len, const char *name, cp_cube *out,
                       cp_error *err)
{
    cp_tar a = {.d = data, .len = data ? len : 0, .name = name ? name : "<memory>", .err = err};
    memset(out, 0, sizeof *out);
    int rc = cp_tar_read(&a) == 0 && read_cube(&a, out) == 0 ? 0 : -1;
    free(a.mem);
    if (rc < 0)
        cp_cube_free(out);
    return rc;
}

int cp_cubex_read(const char *path, cp_cube *out, cp_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    if (cp_read_file(path, &data, &len, err) < 0)
        return -1;
    int rc = cp_cubex_parse_mem(data, len, path, out, err);
    free(data);
    return rc;
}
