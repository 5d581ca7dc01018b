/* timings.cpt: the writer (cpt.h; the layout is in cpt_layout.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cpt_layout.h"
#include "textio.h"

static void put_u8(cp_bytes *b, uint8_t v)
{
    cp_bytes_append(b, &v, 1);
}

/* Signed values are written as their two's complement bits (conversion to
 * unsigned is exact in C), doubles as their IEEE-754 bits. */
static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* A string checked by str_ok: length with the NUL, bytes, NUL. */
static void put_str(cp_bytes *b, const char *s)
{
    size_t n = strlen(s) + 1;
    cp_bytes_le32(b, (uint32_t)n);
    cp_bytes_append(b, s, n);
}

/* ----------------------------------------------------------------- writer */

/* Is s NUL-terminated within cap bytes, with at least min characters?  The
 * parser's rule for every string of the file. */
static bool str_ok(const char *s, size_t cap, size_t min)
{
    size_t n = strnlen(s, cap);
    return n < cap && n >= min;
}

/* Where a fault is: the header (label), a chunk, or one of its series
 * (series NULL: the chunk itself).  Formatted only when a fault is reported: 10,000 series formatted
 * twice each for nothing were 5 % of a churned job's finalize (measured). */
typedef struct spot {
    const char *label;
    int64_t rank;
    size_t index;
    const cp_cpt_series *series;
} spot;

static const spot HEADER = {"header", 0, 0, NULL};

__attribute__((format(printf, 4, 5))) static int bad_model(cp_error *err, const char *name,
                                                          const spot *at, const char *fmt,
                                                          ...)
{
    char why[512], where[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (at->label)
        snprintf(where, sizeof where, "%s", at->label);
    else if (at->series)
        cp_cpt_series_where(where, sizeof where, at->rank, at->index, at->series);
    else
        snprintf(where, sizeof where, "chunk of rank %" PRId64, at->rank);
    return cp_error_set(err, "%s: %s: %s", name, where, why);
}

static int check_series(const cp_cpt_series *s, const char *name, const spot *where,
                        cp_error *err)
{
    if (!str_ok(s->collective, sizeof s->collective, 1))
        return bad_model(err, name, where, "collective name empty or not NUL-terminated");
    if (s->n > 0 &&
        (!s->call || !s->enter || !s->start || !s->exit || !s->root || !s->flags))
        return bad_model(err, name, where, "%" PRIu64 " calls but an array is missing", s->n);
    if (s->n > SIZE_MAX / CALL_BYTES || s->n * CALL_BYTES > (uLong)-1)
        return bad_model(err, name, where, "%" PRIu64 " calls: too many for one series", s->n);
    if (s->hist_lo > CP_CPT_HIST_BUCKETS || s->hist_n > CP_CPT_HIST_BUCKETS - s->hist_lo ||
        (s->hist_n > 0 && !s->hist))
        return bad_model(err, name, where,
                         "histogram of buckets %" PRIu32 " to %" PRIu32 " (expected within 0 to %d)",
                         s->hist_lo, s->hist_lo + s->hist_n, CP_CPT_HIST_BUCKETS);
    for (size_t i = 0; i < s->n; i++)
        if (s->root[i] < -1)
            return bad_model(err, name, where,
                             "root %" PRId32 " of call %" PRIu64
                             " (expected -1 or a communicator rank)",
                             s->root[i], s->call[i]);
    if (s->nsites > 0 && (!s->site_time || !s->site_calls || (s->n > 0 && !s->site)))
        return bad_model(err, name, where, "%" PRIu32 " call sites but an array is missing",
                         s->nsites);
    for (size_t i = 0; s->nsites > 0 && i < s->n; i++)
        if (s->site[i] >= s->nsites)
            return bad_model(err, name, where,
                             "call %" PRIu64 " of site %" PRIu32 " (expected below %" PRIu32 ")",
                             s->call[i], s->site[i], s->nsites);
    return 0;
}

/* world_size 0: not known here (cp_cpt_encode_chunk alone). */
static int check_chunk(const cp_cpt_chunk *c, uint64_t world_size, const char *name,
                       cp_error *err)
{
    const spot *where = &(spot){NULL, c->rank, 0, NULL};
    if (!str_ok(c->hostname, sizeof c->hostname, 0))
        return bad_model(err, name, where, "hostname not NUL-terminated within %zu bytes",
                         sizeof c->hostname);
    if (c->nseries > UINT32_MAX || (c->nseries > 0 && !c->series))
        return bad_model(err, name, where, "%zu series: too many, or no array", c->nseries);
    if (c->has_aggregates) {
        const cp_cpt_aggregates *a = &c->agg;
        if (!str_ok(a->start_time, sizeof a->start_time, 0) ||
            !str_ok(a->end_time, sizeof a->end_time, 0))
            return bad_model(err, name, where, "aggregates: start or end time not NUL-terminated");
        if (a->ncolls > UINT32_MAX || a->nslowest > UINT32_MAX ||
            (a->ncolls > 0 && !a->colls) || (a->nslowest > 0 && !a->slowest))
            return bad_model(err, name, where, "aggregates: too many entries, or no array");
        for (size_t i = 0; i < a->ncolls; i++)
            if (!str_ok(a->colls[i].collective, sizeof a->colls[i].collective, 1))
                return bad_model(err, name, where,
                                 "aggregates: collective %zu: name empty or not NUL-terminated",
                                 i);
        for (size_t i = 0; i < a->nslowest; i++) {
            const cp_cpt_slow *s = &a->slowest[i];
            if (!str_ok(s->collective, sizeof s->collective, 1))
                return bad_model(err, name, where,
                                 "aggregates: slowest instance %zu: collective name empty or "
                                 "not NUL-terminated",
                                 i);
            if (s->rank < 0 || (world_size > 0 && (uint64_t)s->rank >= world_size))
                return bad_model(err, name, where,
                                 "aggregates: slowest instance %zu: rank %" PRId64
                                 " is not a world rank",
                                 i, s->rank);
        }
    }
    for (size_t i = 0; i < c->nseries; i++) {
        if (check_series(&c->series[i], name, &(spot){NULL, c->rank, i, &c->series[i]}, err) != 0)
            return -1;
    }
    return 0;
}

/* Deflate with run-length matches only (Z_RLE): the planes' repeats are
 * runs, and deflate's search for longer-distance matches found nothing more
 * in them (its stream 2 % larger) at twice the time.  A chunk's streams are made once and
 * reset for each series (a new stream allocates and clears 256 KiB: 10,000
 * one-call series spent most of their encoding there), the small one, which
 * stores, for payloads of a few calls (cpt_layout.h). */
typedef struct deflater {
    z_stream z[2]; /* small, large */
    bool ready[2];
} deflater;

/* The stream for a payload of slen bytes, made once per chunk, reset for
 * each series. */
static z_stream *deflater_for(deflater *d, uLong slen, int *zr)
{
    int which = slen > CPT_SMALL_PAYLOAD;
    z_stream *z = &d->z[which];
    if (!d->ready[which]) {
        memset(z, 0, sizeof *z);
        *zr = deflateInit2(z, cpt_level(slen), Z_DEFLATED, 15, cpt_mem_level(slen), Z_RLE);
        if (*zr != Z_OK)
            return NULL;
        d->ready[which] = true;
    } else if ((*zr = deflateReset(z)) != Z_OK) {
        return NULL;
    }
    return z;
}

static void deflater_end(deflater *d)
{
    for (int i = 0; i < 2; i++)
        if (d->ready[i])
            deflateEnd(&d->z[i]);
}

/* The payload's columns, version 5's way (cpt_layout.h): differences in
 * byte planes, 41 n bytes.  Value i of column col, before its planes. */
enum { COL_CALL, COL_ENTER, COL_START, COL_EXIT, COL_ROOT, COL_FLAGS, COL_SITE, NCOLS };
static const int col_width[NCOLS] = {8, 8, 8, 8, 4, 1, 4};
_Static_assert(8 + 8 + 8 + 8 + 4 + 1 + 4 == CALL_BYTES, "the columns make a call's bytes");

static uint64_t column_value(const cp_cpt_series *s, int col, size_t i)
{
    switch (col) {
    case COL_CALL:
        return s->call[i] - (i ? s->call[i - 1] : 0);
    case COL_ENTER:
        return bits_of(s->enter[i]) - (i ? bits_of(s->enter[i - 1]) : 0);
    case COL_START:
        return bits_of(s->start[i]) - bits_of(s->enter[i]);
    case COL_EXIT:
        return bits_of(s->exit[i]) - bits_of(s->start[i]);
    case COL_ROOT:
        return (uint32_t)s->root[i];
    case COL_FLAGS:
        return s->flags[i];
    default:
        return s->nsites ? s->site[i] : 0;
    }
}

/* The planes are made one at a time into a small buffer and deflated as
 * they come: the payload's 41 bytes a call are never in memory at once.
 * At finalize they were fresh memory, written once and read once: a
 * memory line every 1.5 kept calls, where the application's work evicts
 * the caches (docs/performance.md).  zlib's output does not depend on
 * how its input is cut. */
#define PLANE_BUF 1024
static int deflate_planes(const cp_cpt_series *s, deflater *d, Bytef *dest, uLongf *dlen)
{
    size_t n = (size_t)s->n;
    int zr;
    z_stream *z = deflater_for(d, (uLong)(n * CALL_BYTES), &zr);
    if (!z)
        return zr;
    unsigned char buf[PLANE_BUF];
    size_t used = 0;
    z->next_out = dest;
    z->avail_out = *dlen;
    for (int col = 0; col < NCOLS; col++)
        for (int k = 0; k < col_width[col]; k++)
            for (size_t i = 0; i < n; i++) {
                buf[used++] = (unsigned char)(column_value(s, col, i) >> (8 * k));
                if (used < PLANE_BUF)
                    continue;
                z->next_in = buf;
                z->avail_in = (uInt)used;
                if ((zr = deflate(z, Z_NO_FLUSH)) != Z_OK)
                    return zr;
                used = 0;
            }
    z->next_in = buf;
    z->avail_in = (uInt)used;
    zr = deflate(z, Z_FINISH);
    *dlen = z->total_out;
    return zr == Z_STREAM_END ? Z_OK : zr == Z_OK ? Z_BUF_ERROR : zr;
}

/* One series: the fixed fields, then the compressed arrays, which zlib
 * writes straight into out behind the room kept for the fields (whose size
 * is known before the compressed length is). */
static int encode_series(const cp_cpt_series *s, const char *name, const spot *where,
                         cp_bytes *out, deflater *dz, cp_error *err)
{
    size_t raw_len = (size_t)s->n * CALL_BYTES;
    size_t fixed = 8 + 4 + strlen(s->collective) + 1 + 8 + 8 + (8 + 8 + 4 + 4 + 4 * (size_t)s->hist_n) +
                   (4 + 24 * (size_t)s->nsites) + 8 + 8 + 8 + 4;
    uLong bound = compressBound((uLong)raw_len);
    if (bound > SIZE_MAX - fixed || !cp_bytes_reserve(out, fixed + bound))
        return bad_model(err, name, where, "%s", strerror(ENOMEM));
    uLongf clen = bound;
    unsigned char *payload = out->p + out->len + fixed;
    int zr = deflate_planes(s, dz, payload, &clen);
    if (zr != Z_OK)
        return bad_model(err, name, where, "zlib cannot compress the arrays (%s)", zError(zr));
    uint32_t crc = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), payload, clen);

    /* The fields fill exactly the `fixed` bytes reserved above. */
    cp_bytes_le64(out, (uint64_t)s->comm_id);
    put_str(out, s->collective);
    cp_bytes_le64(out, s->naggregated);
    cp_bytes_le64(out, bits_of(s->agg_time));
    cp_bytes_le64(out, s->stride);
    cp_bytes_le64(out, bits_of(s->tick));
    cp_bytes_le32(out, s->hist_lo);
    cp_bytes_le32(out, s->hist_n);
    for (uint32_t i = 0; i < s->hist_n; i++)
        cp_bytes_le32(out, s->hist[i]);
    cp_bytes_le32(out, s->nsites);
    for (uint32_t i = 0; i < s->nsites; i++) {
        cp_bytes_le64(out, bits_of(s->site_time[i]));
        cp_bytes_le64(out, s->site_calls[i]);
        /* a model without them: no path known, the form not told */
        cp_bytes_le32(out, s->site_path ? s->site_path[i] : UINT32_MAX);
        cp_bytes_le32(out, s->site_form ? s->site_form[i] : 0);
    }
    cp_bytes_le64(out, s->n);
    cp_bytes_le64(out, (uint64_t)raw_len);
    cp_bytes_le64(out, (uint64_t)clen);
    cp_bytes_le32(out, crc);
    out->len += clen;
    return 0;
}

static int encode_chunk(const cp_cpt_chunk *c, uint64_t world_size, const char *name,
                        cp_bytes *out, cp_error *err)
{
    if (check_chunk(c, world_size, name, err) != 0)
        return -1;
    size_t start = out->len;
    bool failed = out->failed;
    put_str(out, c->hostname);
    cp_bytes_le32(out, (uint32_t)c->core);
    cp_bytes_le32(out, (uint32_t)c->pid);
    cp_bytes_le32(out, c->node);
    put_u8(out, c->has_aggregates ? 1 : 0);
    if (c->has_aggregates) {
        const cp_cpt_aggregates *a = &c->agg;
        put_str(out, a->start_time);
        put_str(out, a->end_time);
        cp_bytes_le32(out, (uint32_t)a->ncolls);
        for (size_t i = 0; i < a->ncolls; i++) {
            put_str(out, a->colls[i].collective);
            cp_bytes_le64(out, a->colls[i].calls);
            cp_bytes_le64(out, bits_of(a->colls[i].min));
            cp_bytes_le64(out, bits_of(a->colls[i].avg));
            cp_bytes_le64(out, bits_of(a->colls[i].max));
        }
        cp_bytes_le32(out, (uint32_t)a->nslowest);
        for (size_t i = 0; i < a->nslowest; i++) {
            put_str(out, a->slowest[i].collective);
            cp_bytes_le64(out, (uint64_t)a->slowest[i].comm_id);
            cp_bytes_le64(out, a->slowest[i].call);
            cp_bytes_le64(out, (uint64_t)a->slowest[i].rank);
            cp_bytes_le64(out, bits_of(a->slowest[i].duration));
        }
    }
    cp_bytes_le32(out, (uint32_t)c->nseries);
    deflater dz = {0};
    int rc = 0;
    for (size_t i = 0; i < c->nseries && rc == 0; i++) {
        rc = encode_series(&c->series[i], name, &(spot){NULL, c->rank, i, &c->series[i]}, out, &dz,
                           err);
    }
    deflater_end(&dz);
    cp_bytes_append(out, FOOTER, FOOTER_LEN);
    if (rc == 0 && out->failed)
        rc = cp_error_set(err, "%s: chunk of rank %" PRId64 ": %s", name, c->rank,
                          strerror(ENOMEM));
    if (rc != 0) {
        out->len = start;
        out->failed = failed;
    }
    return rc;
}

int cp_cpt_encode_chunk(const cp_cpt_chunk *c, cp_bytes *out, cp_error *err)
{
    return encode_chunk(c, 0, DEFAULT_NAME, out, err);
}

size_t cp_cpt_header_size(const cp_cpt_file *f)
{
    size_t ml = strnlen(f->mode, sizeof f->mode);
    if (ml == sizeof f->mode)
        return 0;
    size_t fixed = TAG_LEN + 3 * 4 + HASH_LEN + 4 + ml + 1 + 1 + 8;
    if (f->world_size > (SIZE_MAX - fixed) / 8)
        return 0;
    return fixed + 8 * (size_t)f->world_size;
}

static int encode_header(const cp_cpt_file *f, const uint64_t *offsets, const char *name,
                         cp_bytes *out, cp_error *err)
{
    size_t hsize = cp_cpt_header_size(f);
    if (!str_ok(f->git_hash, sizeof f->git_hash, 0))
        return bad_model(err, name, &HEADER, "git hash not NUL-terminated within %d bytes",
                         HASH_LEN);
    if (hsize == 0)
        return bad_model(err, name, &HEADER,
                         "mode string not NUL-terminated within %zu bytes, or world size %" PRIu64
                         " too large",
                         sizeof f->mode, f->world_size);
    if (f->world_size == 0)
        return bad_model(err, name, &HEADER, "world size 0 (expected at least 1)");
    if (!offsets || offsets[0] != hsize)
        return bad_model(err, name, &HEADER,
                         "offset of rank 0 is %" PRIu64 ", expected %zu (the size of the header)",
                         offsets ? offsets[0] : 0, hsize);
    for (uint64_t i = 1; i < f->world_size; i++)
        if (offsets[i] <= offsets[i - 1] || offsets[i] - offsets[i - 1] < MIN_CHUNK)
            return bad_model(err, name, &HEADER,
                             "offset of rank %" PRIu64 " is %" PRIu64
                             ", expected at least %d bytes past the offset of rank %" PRIu64
                             " (%" PRIu64 ")",
                             i, offsets[i], MIN_CHUNK, i - 1, offsets[i - 1]);
    size_t start = out->len;
    bool failed = out->failed;
    unsigned char hash[HASH_LEN] = {0}; /* NUL-padded: no stray bytes in the file */
    memcpy(hash, f->git_hash, strlen(f->git_hash));
    cp_bytes_append(out, TAG, TAG_LEN);
    cp_bytes_le32(out, CP_CPT_VERSION_MAJOR);
    cp_bytes_le32(out, CP_CPT_VERSION_MINOR);
    cp_bytes_le32(out, CP_CPT_VERSION_PATCH);
    cp_bytes_append(out, hash, HASH_LEN);
    put_str(out, f->mode);
    put_u8(out, f->flags);
    cp_bytes_le64(out, f->world_size);
    for (uint64_t i = 0; i < f->world_size; i++)
        cp_bytes_le64(out, offsets[i]);
    if (out->failed) {
        out->len = start;
        out->failed = failed;
        return bad_model(err, name, &HEADER, "%s", strerror(ENOMEM));
    }
    return 0;
}

int cp_cpt_encode_header(const cp_cpt_file *f, const uint64_t *offsets, cp_bytes *out,
                         cp_error *err)
{
    return encode_header(f, offsets, DEFAULT_NAME, out, err);
}

/* Serially, as the runtime does in parallel: room for the header, the
 * chunks one after another (their offsets are an exclusive scan of their
 * sizes), then the header written into its room. */
static int encode_file(const cp_cpt_file *f, const char *name, cp_bytes *out, cp_error *err)
{
    size_t hsize = cp_cpt_header_size(f);
    if (f->world_size == 0 || hsize == 0 || !f->chunks)
        return bad_model(err, name, &HEADER,
                         "world size %" PRIu64 ", no chunks, or mode string not NUL-terminated",
                         f->world_size);
    for (uint64_t i = 0; i < f->world_size; i++)
        if (f->chunks[i].rank < 0 || (uint64_t)f->chunks[i].rank != i)
            return bad_model(err, name, &(spot){"chunks", 0, 0, NULL},
                             "chunk %" PRIu64 " holds rank %" PRId64 " (chunk i is rank i's)", i,
                             f->chunks[i].rank);
    uint64_t *offsets = malloc((size_t)f->world_size * sizeof *offsets);
    if (!offsets)
        return bad_model(err, name, &HEADER, "%s", strerror(ENOMEM));
    size_t start = out->len;
    bool failed = out->failed;
    int rc = 0;
    if (!cp_bytes_reserve(out, hsize))
        rc = bad_model(err, name, &HEADER, "%s", strerror(ENOMEM));
    else
        out->len += hsize;
    for (uint64_t i = 0; i < f->world_size && rc == 0; i++) {
        offsets[i] = (uint64_t)(out->len - start);
        rc = encode_chunk(&f->chunks[i], f->world_size, name, out, err);
    }
    cp_bytes hdr = {0};
    if (rc == 0)
        rc = encode_header(f, offsets, name, &hdr, err);
    if (rc == 0)
        memcpy(out->p + start, hdr.p, hsize);
    cp_bytes_free(&hdr);
    free(offsets);
    if (rc != 0) {
        out->len = start;
        out->failed = failed;
    }
    return rc;
}

int cp_cpt_encode(const cp_cpt_file *f, cp_bytes *out, cp_error *err)
{
    return encode_file(f, DEFAULT_NAME, out, err);
}

int cp_cpt_write(const char *path, const cp_cpt_file *f, cp_error *err)
{
    cp_bytes b = {0};
    if (encode_file(f, path, &b, err) != 0)
        return -1;
    cp_out *out = cp_out_open(path, false, err);
    if (!out) {
        cp_bytes_free(&b);
        return -1;
    }
    int rc = cp_out_write(out, b.p, b.len);
    cp_bytes_free(&b);
    if (rc != 0) {
        cp_out_status(out, err);
        cp_out_abort(out);
        return -1;
    }
    return cp_out_commit(out, err);
}
