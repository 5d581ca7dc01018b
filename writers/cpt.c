/*
 * timings.cpt: writer and parser (cpt.h, docs/formats.md).
 *
 * One layout, in one place: the encoders below and the parser after them
 * read and write the same fields in the same order, each through one helper
 * per width (u8, u32, u64; signed values and doubles go through the
 * unsigned helper of their width), byte by byte, so that the file is
 * little-endian on every host.
 *
 * The parser trusts nothing: every read is checked against the end of the
 * region it belongs to (the next chunk's offset, or the end of the file), a
 * count is checked against the bytes left before anything is allocated for
 * it, and a series' payload is checked (CRC32) before it is inflated into a
 * buffer whose size is bounded by zlib's best compression ratio.  It is
 * fuzzed (tests/fuzz/fuzz_cpt.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cpt.h"
#include "textio.h"

#define TAG "CPROF"
#define TAG_LEN 5
#define FOOTER "END_BLOCK"
#define FOOTER_LEN 9
#define HASH_LEN 41
#define DEFAULT_NAME "timings.cpt"

/* One call in a series' uncompressed payload: call u64, enter, start and
 * exit f64, root i32, flags u8; from version 3 its site u32. */
#define CALL_BYTES_V2 (8 + 8 + 8 + 8 + 4 + 1)
#define CALL_BYTES (CALL_BYTES_V2 + 4)
/* The smallest encodings, to bound counts by the bytes left: a chunk with an
 * empty hostname, no aggregates and no series; a series record without its
 * payload (collective name of one character); an aggregate entry. */
#define MIN_CHUNK (4 + 1 + 4 + 4 + 4 + 1 + 4 + FOOTER_LEN)
#define MIN_SERIES (8 + 4 + 2 + 8 + 8 + 8 + 8 + 8 + 4)
#define MIN_COLL (4 + 2 + 8 + 3 * 8)
#define MIN_SLOW (4 + 2 + 8 + 8 + 8 + 8)
/* deflate cannot do better than 1032:1 (258 bytes per 2 bits): a larger
 * uncompressed length is a lie that we refuse before allocating it. */
#define MAX_RATIO 1032

_Static_assert(MIN_CHUNK == 31, "cpt.h documents the smallest chunk as 31 bytes");

/* ------------------------------------------------------------------ model */

void cp_cpt_series_free(cp_cpt_series *s)
{
    if (!s)
        return;
    free(s->call);
    free(s->enter);
    free(s->start);
    free(s->exit);
    free(s->root);
    free(s->flags);
    free(s->hist);
    free(s->site_time);
    free(s->site_calls);
    free(s->site);
    memset(s, 0, sizeof *s);
}

void cp_cpt_chunk_free(cp_cpt_chunk *c)
{
    if (!c)
        return;
    free(c->agg.colls);
    free(c->agg.slowest);
    for (size_t i = 0; i < c->nseries; i++)
        cp_cpt_series_free(&c->series[i]);
    free(c->series);
    memset(c, 0, sizeof *c);
}

void cp_cpt_file_free(cp_cpt_file *f)
{
    if (!f)
        return;
    if (f->chunks)
        for (uint64_t i = 0; i < f->world_size; i++)
            cp_cpt_chunk_free(&f->chunks[i]);
    free(f->chunks);
    memset(f, 0, sizeof *f);
}

static bool same(const void *a, const void *b, size_t n)
{
    return n == 0 || (a && b && memcmp(a, b, n) == 0);
}

/* Strings compare up to their NUL (bounded by the array). */
#define SAME_STR(a, b) (strncmp((a), (b), sizeof(a)) == 0)
/* Doubles compare bitwise: a NaN equals itself, 0.0 differs from -0.0. */
#define SAME_F64(a, b) same(&(a), &(b), sizeof(double))

static bool series_equal(const cp_cpt_series *a, const cp_cpt_series *b)
{
    size_t n = (size_t)a->n;
    return a->comm_id == b->comm_id && SAME_STR(a->collective, b->collective) &&
           a->naggregated == b->naggregated && SAME_F64(a->agg_time, b->agg_time) &&
           a->stride == b->stride && SAME_F64(a->tick, b->tick) && a->hist_lo == b->hist_lo &&
           a->hist_n == b->hist_n && same(a->hist, b->hist, a->hist_n * sizeof *a->hist) &&
           a->n == b->n && same(a->call, b->call, n * sizeof *a->call) &&
           same(a->enter, b->enter, n * sizeof *a->enter) &&
           same(a->start, b->start, n * sizeof *a->start) &&
           same(a->exit, b->exit, n * sizeof *a->exit) &&
           same(a->root, b->root, n * sizeof *a->root) &&
           same(a->flags, b->flags, n * sizeof *a->flags) && a->nsites == b->nsites &&
           same(a->site_time, b->site_time, a->nsites * sizeof *a->site_time) &&
           same(a->site_calls, b->site_calls, a->nsites * sizeof *a->site_calls) &&
           (a->nsites == 0 || same(a->site, b->site, n * sizeof *a->site));
}

static bool agg_equal(const cp_cpt_aggregates *a, const cp_cpt_aggregates *b)
{
    if (!SAME_STR(a->start_time, b->start_time) || !SAME_STR(a->end_time, b->end_time) ||
        a->ncolls != b->ncolls || a->nslowest != b->nslowest)
        return false;
    for (size_t i = 0; i < a->ncolls; i++) {
        const cp_cpt_coll_stat *x = &a->colls[i], *y = &b->colls[i];
        if (!SAME_STR(x->collective, y->collective) || x->calls != y->calls ||
            !SAME_F64(x->min, y->min) || !SAME_F64(x->avg, y->avg) || !SAME_F64(x->max, y->max))
            return false;
    }
    for (size_t i = 0; i < a->nslowest; i++) {
        const cp_cpt_slow *x = &a->slowest[i], *y = &b->slowest[i];
        if (!SAME_STR(x->collective, y->collective) || x->comm_id != y->comm_id ||
            x->call != y->call || x->rank != y->rank || !SAME_F64(x->duration, y->duration))
            return false;
    }
    return true;
}

bool cp_cpt_chunk_equal(const cp_cpt_chunk *a, const cp_cpt_chunk *b)
{
    if (a->rank != b->rank || !SAME_STR(a->hostname, b->hostname) || a->core != b->core ||
        a->pid != b->pid || a->node != b->node || a->has_aggregates != b->has_aggregates ||
        a->nseries != b->nseries)
        return false;
    if (a->has_aggregates && !agg_equal(&a->agg, &b->agg))
        return false;
    for (size_t i = 0; i < a->nseries; i++)
        if (!series_equal(&a->series[i], &b->series[i]))
            return false;
    return true;
}

bool cp_cpt_file_equal(const cp_cpt_file *a, const cp_cpt_file *b)
{
    if (memcmp(a->version, b->version, sizeof a->version) != 0 ||
        !SAME_STR(a->git_hash, b->git_hash) || !SAME_STR(a->mode, b->mode) ||
        a->flags != b->flags || a->world_size != b->world_size)
        return false;
    if (!a->chunks || !b->chunks)
        return a->chunks == b->chunks;
    for (uint64_t i = 0; i < a->world_size; i++)
        if (!cp_cpt_chunk_equal(&a->chunks[i], &b->chunks[i]))
            return false;
    return true;
}

/* "chunk of rank 2, series 3 (Alltoallv, communicator 0)": where a series
 * is, in the messages of the writer and of the parser. */
static void series_where(char *buf, size_t cap, int64_t rank, size_t index,
                         const cp_cpt_series *s)
{
    snprintf(buf, cap, "chunk of rank %" PRId64 ", series %zu (%.*s, communicator %" PRId64 ")",
             rank, index, (int)sizeof s->collective - 1, s->collective, s->comm_id);
}

/* ---------------------------------------------------------------- buffers */

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

__attribute__((format(printf, 4, 5))) static int bad_model(cp_error *err, const char *name,
                                                          const char *where, const char *fmt,
                                                          ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return cp_error_set(err, "%s: %s: %s", name, where, why);
}

static int check_series(const cp_cpt_series *s, const char *name, const char *where,
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
    char where[160];
    snprintf(where, sizeof where, "chunk of rank %" PRId64, c->rank);
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
        series_where(where, sizeof where, c->rank, i, &c->series[i]);
        if (check_series(&c->series[i], name, where, err) != 0)
            return -1;
    }
    return 0;
}

/* One series: the fixed fields, then the compressed arrays, which zlib
 * writes straight into out behind the room kept for the fields (whose size
 * is known before the compressed length is).  raw is scratch. */
static int encode_series(const cp_cpt_series *s, const char *name, const char *where,
                         cp_bytes *out, cp_bytes *raw, cp_error *err)
{
    raw->len = 0;
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le64(raw, s->call[i]);
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le64(raw, bits_of(s->enter[i]));
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le64(raw, bits_of(s->start[i]));
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le64(raw, bits_of(s->exit[i]));
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le32(raw, (uint32_t)s->root[i]);
    cp_bytes_append(raw, s->flags, (size_t)s->n);
    for (size_t i = 0; i < s->n; i++)
        cp_bytes_le32(raw, s->nsites ? s->site[i] : 0);
    if (raw->failed)
        return bad_model(err, name, where, "%s", strerror(ENOMEM));

    size_t fixed = 8 + 4 + strlen(s->collective) + 1 + 8 + 8 + (8 + 8 + 4 + 4 + 4 * (size_t)s->hist_n) +
                   (4 + 16 * (size_t)s->nsites) + 8 + 8 + 8 + 4;
    uLong bound = compressBound((uLong)raw->len);
    if (bound > SIZE_MAX - fixed || !cp_bytes_reserve(out, fixed + bound))
        return bad_model(err, name, where, "%s", strerror(ENOMEM));
    uLongf clen = bound;
    unsigned char *payload = out->p + out->len + fixed;
    int zr = compress2(payload, &clen, raw->p ? raw->p : (const Bytef *)"", (uLong)raw->len,
                       Z_BEST_SPEED);
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
    }
    cp_bytes_le64(out, s->n);
    cp_bytes_le64(out, (uint64_t)raw->len);
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
    cp_bytes raw = {0};
    int rc = 0;
    for (size_t i = 0; i < c->nseries && rc == 0; i++) {
        char where[160];
        series_where(where, sizeof where, c->rank, i, &c->series[i]);
        rc = encode_series(&c->series[i], name, where, out, &raw, err);
    }
    cp_bytes_free(&raw);
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
        return bad_model(err, name, "header", "git hash not NUL-terminated within %d bytes",
                         HASH_LEN);
    if (hsize == 0)
        return bad_model(err, name, "header",
                         "mode string not NUL-terminated within %zu bytes, or world size %" PRIu64
                         " too large",
                         sizeof f->mode, f->world_size);
    if (f->world_size == 0)
        return bad_model(err, name, "header", "world size 0 (expected at least 1)");
    if (!offsets || offsets[0] != hsize)
        return bad_model(err, name, "header",
                         "offset of rank 0 is %" PRIu64 ", expected %zu (the size of the header)",
                         offsets ? offsets[0] : 0, hsize);
    for (uint64_t i = 1; i < f->world_size; i++)
        if (offsets[i] <= offsets[i - 1] || offsets[i] - offsets[i - 1] < MIN_CHUNK)
            return bad_model(err, name, "header",
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
        return bad_model(err, name, "header", "%s", strerror(ENOMEM));
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
        return bad_model(err, name, "header",
                         "world size %" PRIu64 ", no chunks, or mode string not NUL-terminated",
                         f->world_size);
    for (uint64_t i = 0; i < f->world_size; i++)
        if (f->chunks[i].rank < 0 || (uint64_t)f->chunks[i].rank != i)
            return bad_model(err, name, "chunks",
                             "chunk %" PRIu64 " holds rank %" PRId64 " (chunk i is rank i's)", i,
                             f->chunks[i].rank);
    uint64_t *offsets = malloc((size_t)f->world_size * sizeof *offsets);
    if (!offsets)
        return bad_model(err, name, "header", "%s", strerror(ENOMEM));
    size_t start = out->len;
    bool failed = out->failed;
    int rc = 0;
    if (!cp_bytes_reserve(out, hsize))
        rc = bad_model(err, name, "header", "%s", strerror(ENOMEM));
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

/* ----------------------------------------------------------------- parser */

typedef struct reader {
    const unsigned char *p;
    size_t len;        /* of the whole file */
    size_t pos;        /* next byte to read */
    size_t limit;      /* end of the region read now: the next chunk's offset or len */
    uint64_t next;     /* rank of the chunk at limit (when limit < len) */
    const char *name;
    char where[160];   /* "header", "chunk of rank 2", "chunk of rank 2, series 3 (...)" */
    cp_error *err;
    uint32_t major;    /* the file's major version: 1 has no histograms */
} reader;

/* "<name>: <where>, at byte <at>: <why>" */
__attribute__((format(printf, 3, 4))) static int perr(reader *rd, size_t at, const char *fmt,
                                                     ...)
{
    char why[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return cp_error_set(rd->err, "%s: %s, at byte %zu: %s", rd->name, rd->where, at, why);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Are n more bytes there, inside the current region?  If not: the file is
 * truncated (the region runs to the end of the file) or corrupt (the data
 * would run into the next chunk).  what: the item being read. */
static int need(reader *rd, uint64_t n, const char *what)
{
    if (n <= rd->limit - rd->pos)
        return 0;
    if (rd->limit == rd->len)
        return cp_error_set(rd->err,
                            "%s: truncated: the file ends at byte %zu inside the %s, in %s "
                            "(expected at least %" PRIu64 " bytes)",
                            rd->name, rd->len, rd->where, what, sat_add(rd->pos, n));
    return perr(rd, rd->pos,
                "%s runs past the start of the chunk of rank %" PRIu64
                " at byte %zu: the file is corrupt",
                what, rd->next, rd->limit);
}

/* Two's complement bits back to signed values, without relying on the
 * implementation-defined conversion of large unsigned values. */
static int32_t i32_of(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
}

static int64_t i64_of(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : (int64_t)(u - (uint64_t)INT64_MAX - 1u) + INT64_MIN;
}

static double f64_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int get_bytes(reader *rd, const unsigned char **p, uint64_t n, const char *what)
{
    if (need(rd, n, what) != 0)
        return -1;
    *p = rd->p + rd->pos;
    rd->pos += (size_t)n;
    return 0;
}

static int get_u8(reader *rd, uint8_t *v, const char *what)
{
    const unsigned char *b;
    if (get_bytes(rd, &b, 1, what) != 0)
        return -1;
    *v = b[0];
    return 0;
}

static int get_u32(reader *rd, uint32_t *v, const char *what)
{
    const unsigned char *b;
    if (get_bytes(rd, &b, 4, what) != 0)
        return -1;
    *v = cp_load_u32(b, false);
    return 0;
}

static int get_u64(reader *rd, uint64_t *v, const char *what)
{
    const unsigned char *b;
    if (get_bytes(rd, &b, 8, what) != 0)
        return -1;
    *v = cp_load_u64(b, false);
    return 0;
}

/* A string of at least min characters into dst[cap] (zeroed before). */
static int get_str(reader *rd, char *dst, size_t cap, size_t min, const char *what)
{
    size_t at = rd->pos;
    uint32_t n;
    const unsigned char *s;
    if (get_u32(rd, &n, what) != 0)
        return -1;
    if (n < min + 1 || n > cap)
        return perr(rd, at, "%s: length %" PRIu32 " (expected %zu to %zu bytes, counting the NUL)",
                    what, n, min + 1, cap);
    if (get_bytes(rd, &s, n, what) != 0)
        return -1;
    if (s[n - 1] != '\0')
        return perr(rd, at + 4, "%s is not NUL-terminated", what);
    if (memchr(s, '\0', n - 1))
        return perr(rd, at + 4, "%s holds a NUL byte before its end", what);
    memcpy(dst, s, n);
    return 0;
}

/* A count of entries of at least `min` bytes each, checked against the bytes
 * left before anything is allocated for them. */
static int get_count(reader *rd, uint32_t *n, uint64_t min, const char *what)
{
    if (get_u32(rd, n, what) != 0)
        return -1;
    char items[96];
    snprintf(items, sizeof items, "the %" PRIu32 " %s it announces", *n, what);
    return need(rd, (uint64_t)*n * min, items);
}

static void *alloc_array(reader *rd, uint64_t n, size_t size, int *rc)
{
    void *p = n > 0 && n <= SIZE_MAX / size ? calloc((size_t)n, size) : NULL;
    *rc = n > 0 && !p ? perr(rd, rd->pos, "%s", strerror(ENOMEM)) : 0;
    return p;
}

/* Bytes as text for a message: printable ASCII as is, the rest as \xNN. */
static const char *shown(char *buf, size_t cap, const unsigned char *p, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k + 5 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, p[i] >= 0x20 && p[i] < 0x7f ? "%c" : "\\x%02x",
                              p[i]);
    return buf;
}

static int parse_aggregates(reader *rd, cp_cpt_aggregates *a, uint64_t world_size)
{
    uint32_t n;
    uint64_t u;
    int rc;
    if (get_str(rd, a->start_time, sizeof a->start_time, 0, "the start time") != 0 ||
        get_str(rd, a->end_time, sizeof a->end_time, 0, "the end time") != 0)
        return -1;
    if (get_count(rd, &n, MIN_COLL, "collective statistics") != 0)
        return -1;
    a->colls = alloc_array(rd, n, sizeof *a->colls, &rc);
    if (rc != 0)
        return -1;
    a->ncolls = n;
    for (size_t i = 0; i < a->ncolls; i++) {
        cp_cpt_coll_stat *s = &a->colls[i];
        if (get_str(rd, s->collective, sizeof s->collective, 1, "a collective's name") != 0 ||
            get_u64(rd, &s->calls, "a collective's calls") != 0)
            return -1;
        double *v[] = {&s->min, &s->avg, &s->max};
        for (size_t k = 0; k < 3; k++) {
            if (get_u64(rd, &u, "a collective's times") != 0)
                return -1;
            *v[k] = f64_of(u);
        }
    }
    if (get_count(rd, &n, MIN_SLOW, "slowest instances") != 0)
        return -1;
    a->slowest = alloc_array(rd, n, sizeof *a->slowest, &rc);
    if (rc != 0)
        return -1;
    a->nslowest = n;
    for (size_t i = 0; i < a->nslowest; i++) {
        cp_cpt_slow *s = &a->slowest[i];
        if (get_str(rd, s->collective, sizeof s->collective, 1, "a slowest instance's name") != 0 ||
            get_u64(rd, &u, "a slowest instance's communicator") != 0)
            return -1;
        s->comm_id = i64_of(u);
        if (get_u64(rd, &s->call, "a slowest instance's call") != 0)
            return -1;
        size_t at = rd->pos;
        if (get_u64(rd, &u, "a slowest instance's rank") != 0)
            return -1;
        s->rank = i64_of(u);
        if (u >= world_size)
            return perr(rd, at,
                        "slowest instance %zu: rank %" PRId64
                        " is not a world rank (world size %" PRIu64 ")",
                        i, s->rank, world_size);
        if (get_u64(rd, &u, "a slowest instance's duration") != 0)
            return -1;
        s->duration = f64_of(u);
    }
    return 0;
}

/* Inflate a series' payload and spread it into its arrays. */
static int parse_payload(reader *rd, cp_cpt_series *s, const unsigned char *payload,
                         uint64_t clen, uint64_t ulen, size_t at)
{
    /* One byte more than announced: a stream that holds more fills it and
     * says so (Z_BUF_ERROR), one that is cut short does not (Z_DATA_ERROR). */
    size_t n = (size_t)s->n;
    unsigned char *raw = malloc((size_t)ulen + 1);
    if (!raw)
        return perr(rd, at, "%s", strerror(ENOMEM));
    uLongf dlen = (uLongf)ulen + 1;
    uLong slen = (uLong)clen;
    int zr = uncompress2(raw, &dlen, payload, &slen);
    int rc = 0;
    if (zr == Z_BUF_ERROR)
        rc = perr(rd, at,
                  "the compressed payload inflates to more than the %" PRIu64
                  " bytes announced: the file is corrupt",
                  ulen);
    else if (zr != Z_OK)
        rc = perr(rd, at, "the compressed payload does not inflate (zlib: %s): the file is corrupt",
                  zr == Z_DATA_ERROR ? "invalid or incomplete stream" : zError(zr));
    else if (dlen != ulen)
        rc = perr(rd, at,
                  "the compressed payload inflates to %lu bytes, expected %" PRIu64
                  ": the file is corrupt",
                  (unsigned long)dlen, ulen);
    else if (slen != clen)
        rc = perr(rd, at,
                  "the zlib stream ends after %lu of the %" PRIu64
                  " compressed bytes: the file is corrupt",
                  (unsigned long)slen, clen);
    if (rc == 0) {
        s->call = alloc_array(rd, n, sizeof *s->call, &rc);
        if (rc == 0)
            s->enter = alloc_array(rd, n, sizeof *s->enter, &rc);
        if (rc == 0)
            s->start = alloc_array(rd, n, sizeof *s->start, &rc);
        if (rc == 0)
            s->exit = alloc_array(rd, n, sizeof *s->exit, &rc);
        if (rc == 0)
            s->root = alloc_array(rd, n, sizeof *s->root, &rc);
        if (rc == 0)
            s->flags = alloc_array(rd, n, sizeof *s->flags, &rc);
        if (rc == 0 && rd->major >= 3 && s->nsites > 0)
            s->site = alloc_array(rd, n, sizeof *s->site, &rc);
    }
    if (rc == 0) {
        const unsigned char *q = raw;
        for (size_t i = 0; i < n; i++, q += 8)
            s->call[i] = cp_load_u64(q, false);
        for (size_t i = 0; i < n; i++, q += 8)
            s->enter[i] = f64_of(cp_load_u64(q, false));
        for (size_t i = 0; i < n; i++, q += 8)
            s->start[i] = f64_of(cp_load_u64(q, false));
        for (size_t i = 0; i < n; i++, q += 8)
            s->exit[i] = f64_of(cp_load_u64(q, false));
        for (size_t i = 0; i < n && rc == 0; i++, q += 4) {
            s->root[i] = i32_of(cp_load_u32(q, false));
            if (s->root[i] < -1)
                rc = perr(rd, at,
                          "root %" PRId32 " of call %" PRIu64
                          " (expected -1 or a communicator rank)",
                          s->root[i], s->call[i]);
        }
        if (rc == 0 && n > 0)
            memcpy(s->flags, q, n);
        q += n;
        for (size_t i = 0; rc == 0 && rd->major >= 3 && i < n; i++, q += 4) {
            uint32_t site = cp_load_u32(q, false);
            if (site >= (s->nsites ? s->nsites : 1))
                rc = perr(rd, at,
                          "call %" PRIu64 " of call site %" PRIu32 " (the series has %" PRIu32
                          "): the file is corrupt",
                          s->call[i], site, s->nsites);
            else if (s->site)
                s->site[i] = site;
        }
    }
    free(raw);
    return rc;
}

/* Version 3: the series' call sites, each its exact time and calls. */
static int parse_sites(reader *rd, cp_cpt_series *s)
{
    size_t at = rd->pos;
    if (get_u32(rd, &s->nsites, "the number of call sites") != 0)
        return -1;
    if (s->nsites > (rd->limit - rd->pos) / 16)
        return perr(rd, at, "%" PRIu32 " call sites cannot fit in the %zu bytes left: the file "
                            "is corrupt", s->nsites, rd->limit - rd->pos);
    if (s->nsites == 0)
        return 0;
    s->site_time = malloc(s->nsites * sizeof *s->site_time);
    s->site_calls = malloc(s->nsites * sizeof *s->site_calls);
    if (!s->site_time || !s->site_calls)
        return perr(rd, at, "out of memory");
    for (uint32_t i = 0; i < s->nsites; i++) {
        uint64_t u;
        if (get_u64(rd, &u, "a call site's time") != 0 ||
            get_u64(rd, &s->site_calls[i], "a call site's calls") != 0)
            return -1;
        s->site_time[i] = f64_of(u);
    }
    return 0;
}

static int parse_series(reader *rd, cp_cpt_series *s, int64_t rank, size_t index)
{
    uint64_t u, ulen, clen;
    uint32_t crc;
    snprintf(rd->where, sizeof rd->where, "chunk of rank %" PRId64 ", series %zu", rank, index);
    if (get_u64(rd, &u, "the communicator id") != 0)
        return -1;
    s->comm_id = i64_of(u);
    if (get_str(rd, s->collective, sizeof s->collective, 1, "the collective's name") != 0)
        return -1;
    series_where(rd->where, sizeof rd->where, rank, index, s);
    if (get_u64(rd, &s->naggregated, "the number of aggregated calls") != 0 ||
        get_u64(rd, &u, "the aggregated time") != 0)
        return -1;
    s->agg_time = f64_of(u);
    if (rd->major >= 2) {
        size_t hat = rd->pos;
        if (get_u64(rd, &s->stride, "the sample's stride") != 0 ||
            get_u64(rd, &u, "the tick") != 0 ||
            get_u32(rd, &s->hist_lo, "the histogram's first bucket") != 0 ||
            get_u32(rd, &s->hist_n, "the histogram's number of buckets") != 0)
            return -1;
        s->tick = f64_of(u);
        if (s->hist_lo > CP_CPT_HIST_BUCKETS || s->hist_n > CP_CPT_HIST_BUCKETS - s->hist_lo)
            return perr(rd, hat,
                        "histogram of buckets %" PRIu32 " to %" PRIu64
                        " (expected within 0 to %d): the file is corrupt",
                        s->hist_lo, (uint64_t)s->hist_lo + s->hist_n, CP_CPT_HIST_BUCKETS);
        if (s->hist_n > 0 && !(s->hist = malloc(s->hist_n * sizeof *s->hist)))
            return perr(rd, hat, "out of memory");
        for (uint32_t i = 0; i < s->hist_n; i++)
            if (get_u32(rd, &s->hist[i], "a histogram bucket") != 0)
                return -1;
    }
    if (rd->major >= 3 && parse_sites(rd, s) != 0)
        return -1;
    if (get_u64(rd, &u, "the number of calls") != 0)
        return -1;
    size_t call_bytes = rd->major >= 3 ? CALL_BYTES : CALL_BYTES_V2;
    size_t at = rd->pos;
    if (get_u64(rd, &ulen, "the uncompressed length") != 0 ||
        get_u64(rd, &clen, "the compressed length") != 0 ||
        get_u32(rd, &crc, "the CRC32") != 0)
        return -1;
    if (u > UINT64_MAX / call_bytes || ulen != u * call_bytes)
        return perr(rd, at,
                    "uncompressed length %" PRIu64 " does not hold %" PRIu64
                    " calls of %zu bytes: the file is corrupt",
                    ulen, u, call_bytes);
    const unsigned char *payload;
    size_t pat = rd->pos;
    if (get_bytes(rd, &payload, clen, "the compressed payload") != 0)
        return -1;
    if (ulen / MAX_RATIO > clen || ulen >= SIZE_MAX || ulen >= (uLong)-1)
        return perr(rd, at,
                    "uncompressed length %" PRIu64 " cannot come from %" PRIu64
                    " compressed bytes (zlib compresses at most %d:1): the file is corrupt",
                    ulen, clen, MAX_RATIO);
    /* Checked before inflating: zlib is not handed bytes known to be bad. */
    uint32_t computed = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), payload, (z_size_t)clen);
    if (computed != crc)
        return perr(rd, pat,
                    "CRC32 mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32
                    "): the file is corrupt",
                    crc, computed);
    s->n = u;
    return parse_payload(rd, s, payload, clen, ulen, pat);
}

static int parse_chunk(reader *rd, cp_cpt_chunk *c, uint64_t world_size)
{
    uint32_t u;
    uint8_t has;
    snprintf(rd->where, sizeof rd->where, "chunk of rank %" PRId64, c->rank);
    if (get_str(rd, c->hostname, sizeof c->hostname, 0, "the hostname") != 0 ||
        get_u32(rd, &u, "the core id") != 0)
        return -1;
    c->core = i32_of(u);
    if (get_u32(rd, &u, "the pid") != 0)
        return -1;
    c->pid = i32_of(u);
    if (get_u32(rd, &c->node, "the node index") != 0)
        return -1;
    size_t at = rd->pos;
    if (get_u8(rd, &has, "the aggregates flag") != 0)
        return -1;
    if (has > 1)
        return perr(rd, at, "aggregates flag %u (expected 0 or 1)", (unsigned)has);
    c->has_aggregates = has;
    if (c->has_aggregates && parse_aggregates(rd, &c->agg, world_size) != 0)
        return -1;
    uint32_t n;
    int rc;
    if (get_count(rd, &n, MIN_SERIES, "series") != 0)
        return -1;
    c->series = alloc_array(rd, n, sizeof *c->series, &rc);
    if (rc != 0)
        return -1;
    c->nseries = n;
    for (size_t i = 0; i < c->nseries; i++)
        if (parse_series(rd, &c->series[i], c->rank, i) != 0)
            return -1;
    snprintf(rd->where, sizeof rd->where, "chunk of rank %" PRId64, c->rank);
    const unsigned char *footer;
    char sh[64];
    at = rd->pos;
    if (get_bytes(rd, &footer, FOOTER_LEN, "the footer END_BLOCK") != 0)
        return -1;
    if (memcmp(footer, FOOTER, FOOTER_LEN) != 0)
        return perr(rd, at, "expected the footer END_BLOCK, found '%s': the file is corrupt",
                    shown(sh, sizeof sh, footer, FOOTER_LEN));
    return 0;
}

/* The header up to and including the offset table (into *offsets). */
static int parse_header(reader *rd, cp_cpt_file *f, uint64_t **offsets)
{
    const unsigned char *b;
    snprintf(rd->where, sizeof rd->where, "header");
    if (rd->len > 0 && memcmp(rd->p, TAG, rd->len < TAG_LEN ? rd->len : TAG_LEN) != 0)
        return perr(rd, 0, "not a timings.cpt file (expected the tag CPROF)");
    if (get_bytes(rd, &b, TAG_LEN, "the tag CPROF") != 0)
        return -1;
    for (size_t i = 0; i < 3; i++)
        if (get_u32(rd, &f->version[i], "the version") != 0)
            return -1;
    if (f->version[0] > CP_CPT_VERSION_MAJOR)
        return perr(rd, TAG_LEN,
                    "version %" PRIu32 ".%" PRIu32 ".%" PRIu32 " is newer than version %d.%d.%d, "
                    "which this collprof reads (major version %d): upgrade collprof to read it",
                    f->version[0], f->version[1], f->version[2], CP_CPT_VERSION_MAJOR,
                    CP_CPT_VERSION_MINOR, CP_CPT_VERSION_PATCH, CP_CPT_VERSION_MAJOR);
    if (f->version[0] < 1)
        return perr(rd, TAG_LEN,
                    "version %" PRIu32 ".%" PRIu32 ".%" PRIu32
                    " does not exist (the first version is 1.0.0)",
                    f->version[0], f->version[1], f->version[2]);
    rd->major = f->version[0];
    size_t at = rd->pos;
    if (get_bytes(rd, &b, HASH_LEN, "the git hash") != 0)
        return -1;
    size_t hl = strnlen((const char *)b, HASH_LEN);
    if (hl == HASH_LEN)
        return perr(rd, at, "the git hash is not NUL-terminated within %d bytes", HASH_LEN);
    for (size_t i = hl; i < HASH_LEN; i++)
        if (b[i] != '\0')
            return perr(rd, at + i, "the git hash is followed by byte 0x%02x (expected NUL padding)",
                        b[i]);
    memcpy(f->git_hash, b, HASH_LEN);
    if (get_str(rd, f->mode, sizeof f->mode, 0, "the mode string") != 0 ||
        get_u8(rd, &f->flags, "the flags") != 0)
        return -1;
    at = rd->pos;
    if (get_u64(rd, &f->world_size, "the world size") != 0)
        return -1;
    if (f->world_size == 0)
        return perr(rd, at, "world size 0 (expected at least 1)");
    uint64_t ws = f->world_size;
    if (need(rd, ws > UINT64_MAX / 8 ? UINT64_MAX : ws * 8, "the offset table") != 0)
        return -1;
    /* Bounded by the file's size now. */
    int rc;
    *offsets = alloc_array(rd, ws, sizeof **offsets, &rc);
    if (rc == 0)
        f->chunks = alloc_array(rd, ws, sizeof *f->chunks, &rc);
    if (rc != 0)
        return -1;
    for (uint64_t i = 0; i < ws; i++) {
        get_u64(rd, &(*offsets)[i], "the offset table"); /* cannot fail: need() above */
        f->chunks[i].rank = (int64_t)i;
    }
    return 0;
}

/* First offset = the header's size, each one past the previous by at least
 * the smallest chunk, the last chunk within the file. */
static int check_offsets(reader *rd, const uint64_t *off, uint64_t ws)
{
    size_t table = rd->pos - (size_t)ws * 8;
    if (off[0] != rd->pos)
        return perr(rd, table,
                    "offset of rank 0 is %" PRIu64 ", expected %zu (the size of the header)",
                    off[0], rd->pos);
    for (uint64_t i = 1; i < ws; i++)
        if (off[i] <= off[i - 1] || off[i] - off[i - 1] < MIN_CHUNK)
            return perr(rd, table + (size_t)i * 8,
                        "offset of rank %" PRIu64 " is %" PRIu64
                        ", expected at least %" PRIu64
                        " (the offset of rank %" PRIu64 " plus the %d bytes of the smallest chunk)",
                        i, off[i], sat_add(off[i - 1], MIN_CHUNK), i - 1, MIN_CHUNK);
    uint64_t end = sat_add(off[ws - 1], MIN_CHUNK);
    if (end > rd->len) {
        uint64_t r = 0; /* the chunk the file ends in */
        while (r + 1 < ws && off[r + 1] <= rd->len)
            r++;
        return cp_error_set(rd->err,
                            "%s: truncated: the file ends at byte %zu inside the chunk of rank "
                            "%" PRIu64 " (expected at least %" PRIu64 " bytes)",
                            rd->name, rd->len, r, end);
    }
    return 0;
}

int cp_cpt_parse_mem(const void *data, size_t len, const char *name, cp_cpt_file *out,
                     cp_error *err)
{
    reader rd = {.p = data, .len = len, .limit = len, .name = name, .err = err};
    cp_cpt_file f;
    uint64_t *off = NULL;
    memset(&f, 0, sizeof f);
    memset(out, 0, sizeof *out);
    int rc = parse_header(&rd, &f, &off);
    if (rc == 0)
        rc = check_offsets(&rd, off, f.world_size);
    for (uint64_t i = 0; i < f.world_size && rc == 0; i++) {
        rd.pos = (size_t)off[i];
        bool last = i + 1 == f.world_size;
        rd.limit = last ? len : (size_t)off[i + 1];
        rd.next = i + 1;
        rc = parse_chunk(&rd, &f.chunks[i], f.world_size);
    }
    free(off);
    if (rc != 0) {
        cp_cpt_file_free(&f);
        return -1;
    }
    *out = f;
    return 0;
}

int cp_cpt_read(const char *path, cp_cpt_file *out, cp_error *err)
{
    memset(out, 0, sizeof *out);
    char *data;
    size_t len;
    if (cp_read_file(path, &data, &len, err) != 0)
        return -1;
    int rc = cp_cpt_parse_mem(data, len, path, out, err);
    free(data);
    return rc;
}
