/* timings.cpt: the parser (cpt.h; the layout is in cpt_layout.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cpt_layout.h"
#include "textio.h"
#include "file_names.h"

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

/* What only a damaged file has: a root below -1, a call site the series
 * does not have (a series without sites gives every call site 0). */
static int check_call(reader *rd, const cp_cpt_series *s, size_t i, uint32_t site, size_t at)
{
    if (s->root[i] < -1)
        return perr(rd, at,
                    "root %" PRId32 " of call %" PRIu64 " (expected -1 or a communicator rank)",
                    s->root[i], s->call[i]);
    if (site >= (s->nsites ? s->nsites : 1))
        return perr(rd, at,
                    "call %" PRIu64 " of call site %" PRIu32 " (the series has %" PRIu32
                    "): the file is corrupt",
                    s->call[i], site, s->nsites);
    if (s->site)
        s->site[i] = site;
    return 0;
}

/* Versions 1 to 4: each column in call order, little-endian. */
static int unpack_plain(reader *rd, cp_cpt_series *s, const unsigned char *raw, size_t at)
{
    size_t n = (size_t)s->n;
    const unsigned char *q = raw;
    for (size_t i = 0; i < n; i++, q += 8)
        s->call[i] = cp_load_u64(q, false);
    for (size_t i = 0; i < n; i++, q += 8)
        s->enter[i] = f64_of(cp_load_u64(q, false));
    for (size_t i = 0; i < n; i++, q += 8)
        s->start[i] = f64_of(cp_load_u64(q, false));
    for (size_t i = 0; i < n; i++, q += 8)
        s->exit[i] = f64_of(cp_load_u64(q, false));
    for (size_t i = 0; i < n; i++, q += 4)
        s->root[i] = i32_of(cp_load_u32(q, false));
    if (n > 0)
        memcpy(s->flags, q, n);
    q += n;
    for (size_t i = 0; i < n; i++, q += 4)
        if (check_call(rd, s, i, rd->major >= 3 ? cp_load_u32(q, false) : 0, at) != 0)
            return -1;
    return 0;
}

/* Version 5: differences in planes (cpt_layout.h), undone. */
static int unpack_columns(reader *rd, cp_cpt_series *s, const unsigned char *raw, size_t at)
{
    size_t n = (size_t)s->n;
    const unsigned char *call = raw, *enter = call + 8 * n, *start = enter + 8 * n,
                        *exit = start + 8 * n, *root = exit + 8 * n, *flags = root + 4 * n,
                        *site = flags + n;
    uint64_t c = 0, e = 0;
    for (size_t i = 0; i < n; i++) {
        c += cpt_planes_get(call, n, i, 8);
        e += cpt_planes_get(enter, n, i, 8);
        uint64_t b = e + cpt_planes_get(start, n, i, 8);
        s->call[i] = c;
        s->enter[i] = f64_of(e);
        s->start[i] = f64_of(b);
        s->exit[i] = f64_of(b + cpt_planes_get(exit, n, i, 8));
        s->root[i] = i32_of((uint32_t)cpt_planes_get(root, n, i, 4));
        s->flags[i] = flags[i];
        if (check_call(rd, s, i, (uint32_t)cpt_planes_get(site, n, i, 4), at) != 0)
            return -1;
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
    if (rc == 0)
        rc = rd->major >= CPT_PLANES_MAJOR ? unpack_columns(rd, s, raw, at)
                                           : unpack_plain(rd, s, raw, at);
    free(raw);
    return rc;
}

/* Version 3: the series' call sites, each its exact time and calls;
 * version 4: and its call path and form. */
static int parse_sites(reader *rd, cp_cpt_series *s)
{
    size_t at = rd->pos, each = rd->major >= 4 ? 24 : 16;
    if (get_u32(rd, &s->nsites, "the number of call sites") != 0)
        return -1;
    if (s->nsites > (rd->limit - rd->pos) / each)
        return perr(rd, at, "%" PRIu32 " call sites cannot fit in the %zu bytes left: the file "
                            "is corrupt", s->nsites, rd->limit - rd->pos);
    if (s->nsites == 0)
        return 0;
    s->site_time = malloc(s->nsites * sizeof *s->site_time);
    s->site_calls = malloc(s->nsites * sizeof *s->site_calls);
    if (rd->major >= 4) {
        s->site_path = malloc(s->nsites * sizeof *s->site_path);
        s->site_form = malloc(s->nsites * sizeof *s->site_form);
    }
    if (!s->site_time || !s->site_calls || (rd->major >= 4 && (!s->site_path || !s->site_form)))
        return perr(rd, at, "out of memory");
    for (uint32_t i = 0; i < s->nsites; i++) {
        uint64_t u;
        if (get_u64(rd, &u, "a call site's time") != 0 ||
            get_u64(rd, &s->site_calls[i], "a call site's calls") != 0 ||
            (rd->major >= 4 && (get_u32(rd, &s->site_path[i], "a call site's call path") != 0 ||
                                get_u32(rd, &s->site_form[i], "a call site's form") != 0)))
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
    cp_cpt_series_where(rd->where, sizeof rd->where, rank, index, s);
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
        return perr(rd, 0, "not a " CP_FILE_TIMINGS " file (expected the tag CPROF)");
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
