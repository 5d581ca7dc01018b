/*
 * timings.cpt: model -> file -> model round trips, the exact bytes of the
 * layout (a file built here by hand, byte by byte, must be identical to the
 * writer's), the runtime's way of writing (chunks encoded apart, placed at
 * an exclusive scan of their sizes, with or without padding), truncation at
 * every byte, every bit flip in the compressed payloads (CRC32) and in the
 * rest of the file, versions, every malformed case with its message, and
 * the writer's refusals.
 *
 * Nothing here assumes the host's byte order: expected bytes are built with
 * shifts and compared byte by byte.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cpt.h"
#include "tmpdir.h"

/* ------------------------------------------------------------- helpers */

/* Parse len bytes from an exactly-sized copy (so that ASan sees any
 * overread).  On failure the model must come back zeroed. */
static int parse_bytes(const unsigned char *data, size_t len, const char *name, cp_cpt_file *f,
                       cp_error *err)
{
    unsigned char *copy = malloc(len ? len : 1);
    if (len)
        memcpy(copy, data, len);
    memset(err, 0, sizeof *err);
    int rc = cp_cpt_parse_mem(copy, len, name, f, err);
    free(copy);
    if (rc != 0) {
        ck_assert_uint_eq(f->world_size, 0);
        ck_assert_ptr_null(f->chunks);
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%s: ", name);
        ck_assert_msg(strncmp(err->msg, prefix, strlen(prefix)) == 0, "message '%s'", err->msg);
    }
    return rc;
}

static void encode_ok(const cp_cpt_file *f, cp_bytes *out)
{
    cp_error err;
    memset(out, 0, sizeof *out);
    ck_assert_msg(cp_cpt_encode(f, out, &err) == 0, "%s", err.msg);
}

/* The bytes parse, as file `name`, to exactly the model f. */
static void reads_back(const unsigned char *data, size_t len, const char *name,
                       const cp_cpt_file *f)
{
    cp_cpt_file g;
    cp_error err;
    ck_assert_msg(parse_bytes(data, len, name, &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_cpt_file_equal(f, &g));
    cp_cpt_file_free(&g);
}

/* ------------------------------------------------------------- models */

/* Version 2's sample stride, tick and histogram of a series. */
static void set_hist(cp_cpt_series *s, uint64_t stride, double tick, uint32_t lo, uint32_t n,
                     const uint32_t *counts)
{
    s->stride = stride;
    s->tick = tick;
    s->hist_lo = lo;
    s->hist_n = n;
    s->hist = malloc(n * sizeof *s->hist);
    memcpy(s->hist, counts, n * sizeof *s->hist);
}

static void add_series(cp_cpt_chunk *c, int64_t comm, const char *coll, uint64_t nagg,
                       double agg_time, size_t n, const uint64_t *call, const double *enter,
                       const double *start, const double *exit, const int32_t *root,
                       const uint8_t *flags)
{
    c->series = realloc(c->series, (c->nseries + 1) * sizeof *c->series);
    cp_cpt_series *s = &c->series[c->nseries++];
    memset(s, 0, sizeof *s);
    s->comm_id = comm;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    s->naggregated = nagg;
    s->agg_time = agg_time;
    s->n = n;
    if (n == 0)
        return;
    s->call = malloc(n * sizeof *s->call);
    s->enter = malloc(n * sizeof *s->enter);
    s->start = malloc(n * sizeof *s->start);
    s->exit = malloc(n * sizeof *s->exit);
    s->root = malloc(n * sizeof *s->root);
    s->flags = malloc(n * sizeof *s->flags);
    memcpy(s->call, call, n * sizeof *call);
    memcpy(s->enter, enter, n * sizeof *enter);
    memcpy(s->start, start, n * sizeof *start);
    memcpy(s->exit, exit, n * sizeof *exit);
    memcpy(s->root, root, n * sizeof *root);
    memcpy(s->flags, flags, n * sizeof *flags);
}

static void add_coll(cp_cpt_aggregates *a, const char *coll, uint64_t calls, double mn,
                     double avg, double mx)
{
    a->colls = realloc(a->colls, (a->ncolls + 1) * sizeof *a->colls);
    cp_cpt_coll_stat *s = &a->colls[a->ncolls++];
    memset(s, 0, sizeof *s);
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    s->calls = calls;
    s->min = mn;
    s->avg = avg;
    s->max = mx;
}

static void add_slow(cp_cpt_aggregates *a, const char *coll, int64_t comm, uint64_t call,
                     int64_t rank, double duration)
{
    a->slowest = realloc(a->slowest, (a->nslowest + 1) * sizeof *a->slowest);
    cp_cpt_slow *s = &a->slowest[a->nslowest++];
    memset(s, 0, sizeof *s);
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    s->comm_id = comm;
    s->call = call;
    s->rank = rank;
    s->duration = duration;
}

/* Version 3's call sites of a series: each one's time and calls, each
 * kept call's site; version 4's path and form of each (site i: call path
 * 10 + i, form i % 2; the last one without a path). */
static void set_sites(cp_cpt_series *s, uint32_t nsites, const double *time,
                      const uint64_t *calls, const uint32_t *site)
{
    s->nsites = nsites;
    s->site_time = malloc(nsites * sizeof *s->site_time);
    s->site_calls = malloc(nsites * sizeof *s->site_calls);
    s->site = malloc((s->n ? s->n : 1) * sizeof *s->site);
    s->site_path = malloc(nsites * sizeof *s->site_path);
    s->site_form = malloc(nsites * sizeof *s->site_form);
    memcpy(s->site_time, time, nsites * sizeof *time);
    memcpy(s->site_calls, calls, nsites * sizeof *calls);
    memcpy(s->site, site, s->n * sizeof *site);
    for (uint32_t i = 0; i < nsites; i++) {
        s->site_path[i] = i + 1 < nsites ? 10 + i : UINT32_MAX;
        s->site_form[i] = i % 2;
    }
}

static cp_cpt_file new_file(uint64_t world_size, const char *mode, uint8_t flags)
{
    cp_cpt_file f;
    memset(&f, 0, sizeof f);
    f.version[0] = CP_CPT_VERSION_MAJOR;
    f.version[1] = CP_CPT_VERSION_MINOR;
    f.version[2] = CP_CPT_VERSION_PATCH;
    snprintf(f.git_hash, sizeof f.git_hash, "%s", "0123456789abcdef0123456789abcdef01234567");
    snprintf(f.mode, sizeof f.mode, "%s", mode);
    f.flags = flags;
    f.world_size = world_size;
    f.chunks = calloc(world_size, sizeof *f.chunks);
    for (uint64_t i = 0; i < world_size; i++)
        f.chunks[i].rank = (int64_t)i;
    return f;
}

static void set_host(cp_cpt_chunk *c, const char *host, int32_t core, int32_t pid, uint32_t node)
{
    snprintf(c->hostname, sizeof c->hostname, "%s", host);
    c->core = core;
    c->pid = pid;
    c->node = node;
}

/* Three ranks: rank 0 with aggregates and three series (nonblocking
 * calls, rooted calls, aggregated calls, n = 0), rank 1 without series,
 * rank 2 with odd doubles and extreme values; long hostnames. */
static cp_cpt_file rich_file(void)
{
    cp_cpt_file f = new_file(3, "MPICH 4.0", CP_CPT_TIMING | CP_CPT_BARRIER | CP_CPT_LOCATION);
    char longhost[256];
    memset(longhost, 'h', 255);
    longhost[255] = '\0';
    memcpy(longhost, "node-", 5);

    cp_cpt_chunk *c = &f.chunks[0];
    set_host(c, "node-a", 3, 4242, 0);
    c->has_aggregates = true;
    snprintf(c->agg.start_time, sizeof c->agg.start_time, "2026-11-22T04:13:35");
    snprintf(c->agg.end_time, sizeof c->agg.end_time, "2026-11-22T04:14:01");
    add_coll(&c->agg, "Alltoallv", 9, 0.001, 0.0025, 0.01);
    add_coll(&c->agg, "Bcast", 7, 1e-6, 2e-6, 3.5e-6);
    add_coll(&c->agg, "Barrier", 3, 0.0, 0.0, 0.0);
    add_slow(&c->agg, "Alltoallv", 0, 2, 2, 0.01);
    add_slow(&c->agg, "Bcast", 1, 0, 0, 3.5e-6);
    add_series(c, 0, "Ialltoallv", 0, 0.0, 3, (const uint64_t[]){0, 1, 2},
               (const double[]){0.5, 1.5, 2.5}, (const double[]){0.75, 1.75, 2.75},
               (const double[]){0.875, 1.9, 2.99}, (const int32_t[]){-1, -1, -1},
               (const uint8_t[]){CP_CPT_NONBLOCKING, CP_CPT_NONBLOCKING, 0});
    set_sites(&c->series[0], 2, (const double[]){0.5, 0.24}, (const uint64_t[]){2, 1},
              (const uint32_t[]){0, 0, 1});
    add_series(c, 1, "Bcast", 5, 0.25, 2, (const uint64_t[]){0, 1}, (const double[]){3.0, 4.0},
               (const double[]){3.0, 4.0}, (const double[]){3.1, 4.2},
               (const int32_t[]){0, 1}, (const uint8_t[]){0, 0});
    add_series(c, 0, "Barrier", 3, 1.5, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    set_hist(&c->series[1], 4, 3.8e-10, 0, 2, (const uint32_t[]){UINT32_MAX, 7});
    set_hist(&c->series[2], 1, 1e-9, 159, 1, (const uint32_t[]){3});

    set_host(&f.chunks[1], longhost, -1, 1 << 30, 1);

    c = &f.chunks[2];
    longhost[200] = '\0';
    set_host(c, longhost, 7, 99, 1);
    double nan_ = NAN, inf = INFINITY;
    add_series(c, 9223372036854775807LL, "Alltoallv_init_with_a_long_name", 0, 0.0, 5,
               (const uint64_t[]){0, 1, 1000000, UINT64_MAX - 1, UINT64_MAX},
               (const double[]){-0.0, 1e-310, nan_, inf, -inf},
               (const double[]){0.0, 1e-310, nan_, inf, -inf},
               (const double[]){1e300, 2e-310, 1.0, inf, 0.1},
               (const int32_t[]){-1, 0, 1, 2147483647, 5},
               (const uint8_t[]){0, CP_CPT_NONBLOCKING, 0xfe, 0xff, 0x80});
    add_series(c, 1, "Bcast", UINT64_MAX, 1e9, 1, (const uint64_t[]){3}, (const double[]){5.0},
               (const double[]){5.0}, (const double[]){5.5}, (const int32_t[]){0},
               (const uint8_t[]){0});
    return f;
}

/* ------------------------------------------------------------- round trip */

START_TEST(round_trip_file)
{
    tmpdir_make();
    cp_cpt_file f = rich_file();
    char path[8192];
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    cp_error err;
    ck_assert_msg(cp_cpt_write(path, &f, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(tmpdir_entries(), 1); /* no temporary file left */
    cp_cpt_file g;
    ck_assert_msg(cp_cpt_read(path, &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_cpt_file_equal(&f, &g));
    for (int64_t i = 0; i < 3; i++)
        ck_assert_int_eq(g.chunks[i].rank, i);
    ck_assert_uint_eq(g.chunks[1].nseries, 0);
    ck_assert(!g.chunks[1].has_aggregates);
    ck_assert_uint_eq(strlen(g.chunks[1].hostname), 255);
    ck_assert_uint_eq(g.chunks[0].series[2].n, 0);
    ck_assert_uint_eq(g.chunks[0].series[2].naggregated, 3);
    ck_assert(signbit(g.chunks[2].series[0].enter[0]));
    ck_assert(isnan(g.chunks[2].series[0].enter[2]));
    ck_assert_int_eq(g.chunks[2].series[0].root[3], 2147483647);
    ck_assert_uint_eq(g.chunks[2].series[0].call[4], UINT64_MAX);

    /* The equality sees a change in every kind of field. */
    g.chunks[2].series[0].exit[4] = 0.2;
    ck_assert(!cp_cpt_file_equal(&f, &g));
    g.chunks[2].series[0].exit[4] = 0.1;
    ck_assert(cp_cpt_file_equal(&f, &g));
    g.chunks[0].agg.slowest[1].rank = 1;
    ck_assert(!cp_cpt_file_equal(&f, &g));
    g.chunks[0].agg.slowest[1].rank = 0;
    g.flags ^= 1;
    ck_assert(!cp_cpt_file_equal(&f, &g));
    g.flags ^= 1;
    g.chunks[1].pid++;
    ck_assert(!cp_cpt_file_equal(&f, &g));
    cp_cpt_file_free(&g);
    ck_assert_ptr_null(g.chunks);

    /* In memory, the same bytes as in the file. */
    cp_bytes b;
    encode_ok(&f, &b);
    reads_back(b.p, b.len, "mem.cpt", &f);
    FILE *fp = fopen(path, "rb");
    unsigned char *disk = malloc(b.len + 1);
    ck_assert_uint_eq(fread(disk, 1, b.len + 1, fp), b.len);
    fclose(fp);
    ck_assert(memcmp(disk, b.p, b.len) == 0);
    free(disk);

    /* The encoders append. */
    cp_bytes c = {0};
    cp_bytes_append(&c, "xy", 2);
    ck_assert_int_eq(cp_cpt_encode(&f, &c, &err), 0);
    ck_assert_uint_eq(c.len, b.len + 2);
    ck_assert(memcmp(c.p + 2, b.p, b.len) == 0);
    cp_bytes_free(&c);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
    tmpdir_remove();
}
END_TEST

START_TEST(round_trip_limits)
{
    /* Strings at their longest, one rank, a series named with 31
     * characters, aggregates without entries. */
    char mode[512];
    for (size_t i = 0; i < 511; i++)
        mode[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
    mode[511] = '\0';
    cp_cpt_file f = new_file(1, mode, 0xff);
    memset(f.git_hash, 0, sizeof f.git_hash); /* built outside git: empty */
    cp_cpt_chunk *c = &f.chunks[0];
    memset(c->hostname, 'x', 255);
    c->has_aggregates = true;
    memset(c->agg.start_time, '1', 31);
    add_series(c, -7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcd", 0, -0.0, 1, (const uint64_t[]){0},
               (const double[]){0}, (const double[]){0}, (const double[]){0},
               (const int32_t[]){-1}, (const uint8_t[]){0});
    cp_bytes b;
    encode_ok(&f, &b);
    cp_cpt_file g;
    cp_error err;
    ck_assert_msg(parse_bytes(b.p, b.len, "limits.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_cpt_file_equal(&f, &g));
    ck_assert_str_eq(g.mode, mode);
    ck_assert_str_eq(g.git_hash, "");
    ck_assert_uint_eq(g.flags, 0xff);
    cp_cpt_file_free(&g);
    cp_bytes_free(&b);

    /* The smallest file: one rank, nothing recorded: header + 31 bytes. */
    cp_cpt_file_free(&f);
    f = new_file(1, "", 0);
    encode_ok(&f, &b);
    ck_assert_uint_eq(cp_cpt_header_size(&f), 5 + 12 + 41 + 4 + 1 + 1 + 8 + 8);
    ck_assert_uint_eq(b.len, cp_cpt_header_size(&f) + 31);
    reads_back(b.p, b.len, "min.cpt", &f);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

/* ----------------------------------------------------------- exact bytes */

static uint32_t at32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t at64(const unsigned char *p)
{
    return (uint64_t)at32(p) | (uint64_t)at32(p + 4) << 32;
}

START_TEST(header_bytes)
{
    cp_cpt_file f = rich_file();
    cp_bytes b;
    encode_ok(&f, &b);
    const unsigned char *p = b.p;
    /* Tag, versions 5.0.0 as little-endian uint32. */
    ck_assert(memcmp(p, "CPROF", 5) == 0);
    const unsigned char v[12] = {5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(memcmp(p + 5, v, 12) == 0);
    /* Git hash: 40 characters and the NUL, 41 bytes. */
    ck_assert(memcmp(p + 17, "0123456789abcdef0123456789abcdef01234567", 41) == 0);
    ck_assert_uint_eq(p[57], 0);
    /* Mode: length 10 counting the NUL, then "MPICH 4.0\0". */
    const unsigned char ml[4] = {10, 0, 0, 0};
    ck_assert(memcmp(p + 58, ml, 4) == 0);
    ck_assert(memcmp(p + 62, "MPICH 4.0", 10) == 0);
    /* Flags, world size 3 as uint64. */
    ck_assert_uint_eq(p[72], CP_CPT_TIMING | CP_CPT_BARRIER | CP_CPT_LOCATION);
    ck_assert_uint_eq(p[72], 0x1a);
    const unsigned char ws[8] = {3, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(memcmp(p + 73, ws, 8) == 0);
    /* Offset table: 3 uint64 from byte 81; the header is 105 bytes. */
    ck_assert_uint_eq(cp_cpt_header_size(&f), 105);
    const unsigned char off0[8] = {105, 0, 0, 0, 0, 0, 0, 0};
    ck_assert(memcmp(p + 81, off0, 8) == 0);
    uint64_t o1 = at64(p + 89), o2 = at64(p + 97);
    ck_assert_uint_gt(o1, 105);
    ck_assert_uint_gt(o2, o1);
    ck_assert_uint_lt(o2, b.len);
    /* Each chunk ends with END_BLOCK right before the next one. */
    ck_assert(memcmp(p + o1 - 9, "END_BLOCK", 9) == 0);
    ck_assert(memcmp(p + o2 - 9, "END_BLOCK", 9) == 0);
    ck_assert(memcmp(p + b.len - 9, "END_BLOCK", 9) == 0);

    /* Chunk of rank 0: hostname "node-a" (length 7), core 3, pid 4242
     * (0x1092), node 0, aggregates 1, start time (length 20). */
    const unsigned char c0[] = {7, 0, 0, 0, 'n', 'o', 'd', 'e', '-', 'a', 0, 3, 0, 0, 0,
                                0x92, 0x10, 0, 0, 0, 0, 0, 0, 1, 20, 0, 0, 0, '2'};
    ck_assert(memcmp(p + 105, c0, sizeof c0) == 0);
    /* Chunk of rank 1: hostname of 255 characters (length 256 = 0x100),
     * core -1, pid 2^30, node 1, no aggregates, no series. */
    const unsigned char c1a[] = {0, 1, 0, 0, 'n', 'o', 'd', 'e', '-', 'h'};
    ck_assert(memcmp(p + o1, c1a, sizeof c1a) == 0);
    const unsigned char c1b[] = {0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x40, 1, 0, 0, 0,
                                 0, 0, 0, 0, 0, 'E', 'N', 'D', '_'};
    ck_assert(memcmp(p + o1 + 4 + 255, c1b, sizeof c1b) == 0);
    ck_assert_uint_eq(o2 - o1, 4 + 256 + 12 + 1 + 4 + 9);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

/* ---------------------------------------------- a file built by hand */

/* The layout of docs/formats.md, written here byte by byte with shifts,
 * independently of the writer.  tweak selects one deliberate defect. */
typedef struct hb {
    unsigned char *p;
    size_t len, cap;
} hb;

static void hb_put(hb *h, const void *d, size_t n)
{
    if (h->len + n > h->cap) {
        h->cap = (h->len + n) * 2 + 64;
        h->p = realloc(h->p, h->cap);
    }
    if (n)
        memcpy(h->p + h->len, d, n);
    h->len += n;
}

static void hb_u8(hb *h, uint8_t v)
{
    hb_put(h, &v, 1);
}

static void hb_u32(hb *h, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    hb_put(h, x, 4);
}

static void hb_u64(hb *h, uint64_t v)
{
    hb_u32(h, (uint32_t)v);
    hb_u32(h, (uint32_t)(v >> 32));
}

static void hb_f64(hb *h, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    hb_u64(h, u);
}

static void hb_str(hb *h, const char *s)
{
    hb_u32(h, (uint32_t)strlen(s) + 1);
    hb_put(h, s, strlen(s) + 1);
}

static void hb_set64(hb *h, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        h->p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* Byte k of column value v of call i, among n calls: version 5's planes. */
static void hb_plane(hb *h, size_t at, size_t n, size_t i, uint64_t v, int width)
{
    for (int k = 0; k < width; k++)
        h->p[at + (size_t)k * n + i] = (unsigned char)(v >> (8 * k));
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Version 5's uncompressed arrays, as docs/formats.md lists them: the same
 * columns, each as differences (call from the call before, enter from the
 * enter before, start from its enter, exit from its start, all as unsigned
 * 64-bit integers modulo 2^64), stored plane by plane: byte 0 of every
 * call, then byte 1, ... */
static void hb_planes(hb *h, const cp_cpt_series *s)
{
    size_t n = (size_t)s->n, at = h->len;
    for (size_t i = 0; i < n * 41; i++)
        hb_u8(h, 0xee); /* every byte is overwritten below */
    for (size_t i = 0; i < n; i++) {
        hb_plane(h, at, n, i, s->call[i] - (i ? s->call[i - 1] : 0), 8);
        hb_plane(h, at + 8 * n, n, i, f64_bits(s->enter[i]) - (i ? f64_bits(s->enter[i - 1]) : 0), 8);
        hb_plane(h, at + 16 * n, n, i, f64_bits(s->start[i]) - f64_bits(s->enter[i]), 8);
        hb_plane(h, at + 24 * n, n, i, f64_bits(s->exit[i]) - f64_bits(s->start[i]), 8);
        hb_plane(h, at + 32 * n, n, i, (uint32_t)s->root[i], 4);
        h->p[at + 36 * n + i] = s->flags[i];
        hb_plane(h, at + 37 * n, n, i, s->nsites ? s->site[i] : 0, 4);
    }
}

/* The uncompressed arrays of a series, as docs/formats.md lists them for
 * `major`. */
static void hb_arrays(hb *h, const cp_cpt_series *s, uint32_t major)
{
    if (major >= 5) {
        hb_planes(h, s);
        return;
    }
    bool v3 = major >= 3;
    for (size_t i = 0; i < s->n; i++)
        hb_u64(h, s->call[i]);
    for (size_t i = 0; i < s->n; i++)
        hb_f64(h, s->enter[i]);
    for (size_t i = 0; i < s->n; i++)
        hb_f64(h, s->start[i]);
    for (size_t i = 0; i < s->n; i++)
        hb_f64(h, s->exit[i]);
    for (size_t i = 0; i < s->n; i++)
        hb_u32(h, (uint32_t)s->root[i]);
    hb_put(h, s->flags, s->n);
    for (size_t i = 0; v3 && i < s->n; i++) /* version 3: each call's site */
        hb_u32(h, s->nsites ? s->site[i] : 0);
}

/* zlib as the writer deflates: version 5 with run-length matches only
 * (Z_RLE), a payload of at most 1024 bytes stored (level 0, the smallest
 * memory level), a larger one at the fastest level (the writer's rule,
 * cpt_layout.h); earlier versions as compress2 did at its fastest level. */
static hb deflated(const hb *raw, uint32_t major)
{
    hb z = {0};
    uLongf n = compressBound(raw->len);
    z.p = malloc(n);
    z.cap = n;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    bool small = major >= 5 && raw->len <= 1024;
    ck_assert_int_eq(deflateInit2(&zs, small ? 0 : 1, Z_DEFLATED, 15, small ? 1 : 8,
                                  major >= 5 ? Z_RLE : Z_DEFAULT_STRATEGY),
                     Z_OK);
    zs.next_in = raw->p ? raw->p : (Bytef *)"";
    zs.avail_in = (uInt)raw->len;
    zs.next_out = z.p;
    zs.avail_out = (uInt)n;
    ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    z.len = zs.total_out;
    deflateEnd(&zs);
    return z;
}

enum tweak {
    T_NONE, T_GAP, T_TRAILING, T_MINOR, T_V1, T_V2, T_V3, T_V4, /* accepted */
    T_HIST_PAST, T_SITE_PAST, T_NSITES_HUGE, T_TAG, T_MAJOR0, T_MAJOR6, T_HASH_NOTERM, T_HASH_PAD, T_MODE_LEN0, T_MODE_LONG,
    T_MODE_NONUL, T_MODE_INNER_NUL, T_WORLD0, T_OFF0, T_OFF_CLOSE, T_OFF_BEYOND, T_OVERRUN,
    T_HOST_LONG, T_AGG_FLAG, T_SLOW_RANK, T_SLOW_NEG, T_COLL_EMPTY, T_NCOLLS_HUGE,
    T_NSERIES_HUGE, T_ULEN, T_N_HUGE, T_CLEN_PAST, T_CRC, T_STREAM_BAD, T_STREAM_CUT,
    T_STREAM_TRAILING, T_STREAM_MORE, T_STREAM_LESS, T_RATIO, T_ROOT, T_FOOTER, T_LAST_FOOTER,
    T_LAST_HOST_TRUNC, NTWEAKS
};

/* The model that the untweaked hand-made file holds. */
static cp_cpt_file hand_model(void)
{
    cp_cpt_file f = new_file(2, "MPICH 4.0", CP_CPT_TIMING | CP_CPT_BARRIER);
    cp_cpt_chunk *c = &f.chunks[0];
    set_host(c, "n0", 1, 100, 0);
    c->has_aggregates = true;
    snprintf(c->agg.start_time, sizeof c->agg.start_time, "2026-01-02T03:04:05");
    snprintf(c->agg.end_time, sizeof c->agg.end_time, "2026-01-02T03:04:06");
    add_coll(&c->agg, "Bcast", 3, 0.5, 1.0, 2.0);
    add_slow(&c->agg, "Bcast", 4, 2, 1, 2.0);
    add_series(c, 4, "Bcast", 0, 0.0, 3, (const uint64_t[]){5, 6, 7},
               (const double[]){1.0, 2.0, 3.0}, (const double[]){1.25, 2.25, 3.25},
               (const double[]){1.5, 4.0, 5.25}, (const int32_t[]){0, 0, 1},
               (const uint8_t[]){0, CP_CPT_NONBLOCKING, 0});
    set_hist(&c->series[0], 2, 1e-9, 40, 3, (const uint32_t[]){1, 0, 5});
    set_sites(&c->series[0], 2, (const double[]){1.0, 2.75}, (const uint64_t[]){2, 1},
              (const uint32_t[]){0, 1, 0});
    set_host(&f.chunks[1], "n1", -1, 101, 1);
    return f;
}

static hb hand_file(enum tweak t)
{
    cp_cpt_file m = hand_model();
    hb h = {0};
    /* header */
    hb_put(&h, t == T_TAG ? "CPROG" : "CPROF", 5);
    uint32_t major = t == T_MAJOR0 ? 0 : t == T_MAJOR6 ? 6 : t == T_V1 ? 1 : t == T_V2 ? 2 : t == T_V3 ? 3
                     : t == T_V4 ? 4 : 5;
    hb_u32(&h, major);
    hb_u32(&h, t == T_MINOR ? 7 : 0);
    hb_u32(&h, t == T_MINOR ? 3 : 0);
    char hash[41] = "0123456789abcdef0123456789abcdef01234567";
    if (t == T_HASH_NOTERM)
        hash[40] = 'z';
    if (t == T_HASH_PAD)
        memcpy(hash + 30, "\0\0\0x", 4);
    hb_put(&h, hash, 41);
    if (t == T_MODE_LEN0) {
        hb_u32(&h, 0);
    } else if (t == T_MODE_LONG) {
        char big[513];
        memset(big, 'm', 512);
        big[512] = '\0';
        hb_str(&h, big);
    } else if (t == T_MODE_NONUL) {
        hb_u32(&h, 4);
        hb_put(&h, "abcd", 4);
    } else if (t == T_MODE_INNER_NUL) {
        hb_u32(&h, 4);
        hb_put(&h, "a\0b", 4);
    } else {
        hb_str(&h, "MPICH 4.0");
    }
    hb_u8(&h, CP_CPT_TIMING | CP_CPT_BARRIER);
    hb_u64(&h, t == T_WORLD0 ? 0 : 2);
    size_t table = h.len;
    hb_u64(&h, 0);
    hb_u64(&h, 0);
    size_t off0 = h.len;

    /* chunk of rank 0 */
    const cp_cpt_chunk *c = &m.chunks[0];
    if (t == T_HOST_LONG) {
        char big[258];
        memset(big, 'h', 256);
        big[256] = '\0';
        hb_str(&h, big);
    } else {
        hb_str(&h, c->hostname);
    }
    hb_u32(&h, (uint32_t)c->core);
    hb_u32(&h, (uint32_t)c->pid);
    hb_u32(&h, c->node);
    hb_u8(&h, t == T_AGG_FLAG ? 2 : 1);
    hb_str(&h, c->agg.start_time);
    hb_str(&h, c->agg.end_time);
    hb_u32(&h, t == T_NCOLLS_HUGE ? UINT32_MAX : 1);
    hb_str(&h, "Bcast");
    hb_u64(&h, 3);
    hb_f64(&h, 0.5);
    hb_f64(&h, 1.0);
    hb_f64(&h, 2.0);
    hb_u32(&h, 1);
    hb_str(&h, "Bcast");
    hb_u64(&h, 4);
    hb_u64(&h, 2);
    hb_u64(&h, t == T_SLOW_RANK ? 2 : t == T_SLOW_NEG ? UINT64_MAX : 1);
    hb_f64(&h, 2.0);
    hb_u32(&h, t == T_NSERIES_HUGE ? UINT32_MAX : 1);
    /* its series */
    const cp_cpt_series *s = &c->series[0];
    hb raw = {0};
    bool v3 = t != T_V1 && t != T_V2;
    uint64_t cb = v3 ? 41 : 37; /* bytes per call */
    hb_arrays(&raw, s, major);
    size_t n3 = 3; /* the series' calls */
    if (t == T_SITE_PAST) /* call 7's site 0 becomes 2: beyond the series' 2 sites */
        hb_plane(&raw, raw.len - 4 * n3, n3, 2, 2, 4);
    uint64_t n = s->n;
    if (t == T_ROOT) /* root[1] = -2 (fe ff ff ff), after 4 arrays of 3 x 8 bytes */
        hb_plane(&raw, 4 * 3 * 8, n3, 1, (uint32_t)-2, 4);
    if (t == T_STREAM_MORE)
        n = 2;
    if (t == T_STREAM_LESS)
        raw.len = 2 * cb;
    if (t == T_RATIO)
        n = 1000000;
    hb z = deflated(&raw, major);
    if (t == T_STREAM_BAD)
        z.p[0] ^= 0x0f; /* not a zlib header any more */
    if (t == T_STREAM_CUT)
        z.len -= 4; /* no Adler-32 */
    if (t == T_STREAM_TRAILING)
        hb_put(&z, "abc", 3);
    hb_u64(&h, (uint64_t)s->comm_id);
    hb_str(&h, t == T_COLL_EMPTY ? "" : s->collective);
    hb_u64(&h, s->naggregated);
    hb_f64(&h, s->agg_time);
    if (t != T_V1) { /* version 2: stride, tick, histogram */
        hb_u64(&h, s->stride);
        hb_f64(&h, s->tick);
        hb_u32(&h, s->hist_lo);
        hb_u32(&h, t == T_HIST_PAST ? 200 : s->hist_n);
        for (uint32_t i = 0; i < s->hist_n; i++)
            hb_u32(&h, s->hist[i]);
    }
    if (v3) { /* version 3: the call sites */
        hb_u32(&h, t == T_NSITES_HUGE ? UINT32_MAX : s->nsites);
        for (uint32_t i = 0; i < s->nsites; i++) {
            hb_f64(&h, s->site_time[i]);
            hb_u64(&h, s->site_calls[i]);
            if (t != T_V3) { /* version 4: its call path and form */
                hb_u32(&h, s->site_path[i]);
                hb_u32(&h, s->site_form[i]);
            }
        }
    }
    hb_u64(&h, t == T_N_HUGE ? (uint64_t)1 << 62 : n);
    hb_u64(&h, t == T_ULEN ? cb * n + 1 : cb * n);
    hb_u64(&h, t == T_CLEN_PAST ? z.len + 1000 : z.len);
    uint32_t crc = (uint32_t)crc32(0, z.p, (uInt)z.len);
    hb_u32(&h, t == T_CRC ? crc ^ 0x80 : crc);
    hb_put(&h, z.p, z.len);
    free(raw.p);
    free(z.p);
    hb_put(&h, t == T_FOOTER ? "END_BLOCX" : "END_BLOCK", 9);
    if (t == T_GAP)
        hb_put(&h, "padding-padding!", 16);
    size_t off1 = h.len;

    /* chunk of rank 1 */
    c = &m.chunks[1];
    hb_str(&h, t == T_LAST_HOST_TRUNC ? "n1-with-a-hostname-of-forty-characters.." : c->hostname);
    if (t == T_LAST_HOST_TRUNC) {
        h.len -= 10; /* still 35 bytes: longer than the smallest chunk */
    } else {
        hb_u32(&h, (uint32_t)c->core);
        hb_u32(&h, (uint32_t)c->pid);
        hb_u32(&h, c->node);
        hb_u8(&h, 0);
        hb_u32(&h, 0);
        hb_put(&h, "END_BLOCK", t == T_LAST_FOOTER ? 8 : 9);
    }
    if (t == T_TRAILING)
        hb_put(&h, "\0\0\0junk", 7);

    hb_set64(&h, table, t == T_OFF0 ? off0 + 1 : off0);
    uint64_t o1 = off1;
    if (t == T_OFF_CLOSE)
        o1 = off0 + 30;
    if (t == T_OFF_BEYOND)
        o1 = h.len + 100;
    if (t == T_OVERRUN)
        o1 = off1 - 4;
    hb_set64(&h, table + 8, o1);
    cp_cpt_file_free(&m);
    return h;
}

START_TEST(hand_made_file_is_the_writers)
{
    /* The writer's bytes are exactly the documented layout: same fields,
     * same order, little-endian, zlib at level 1 (Z_BEST_SPEED). */
    cp_cpt_file m = hand_model();
    hb h = hand_file(T_NONE);
    cp_bytes b;
    encode_ok(&m, &b);
    ck_assert_uint_eq(b.len, h.len);
    for (size_t i = 0; i < h.len; i++)
        ck_assert_msg(b.p[i] == h.p[i], "byte %zu: writer 0x%02x, layout 0x%02x", i, b.p[i],
                      h.p[i]);
    cp_cpt_file g;
    cp_error err;
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_cpt_file_equal(&m, &g));
    cp_cpt_file_free(&g);

    /* Padding between chunks and bytes after the last one are skipped. */
    enum tweak ok[] = {T_GAP, T_TRAILING};
    for (size_t i = 0; i < 2; i++) {
        hb x = hand_file(ok[i]);
        ck_assert_msg(parse_bytes(x.p, x.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
        ck_assert(cp_cpt_file_equal(&m, &g));
        cp_cpt_file_free(&g);
        free(x.p);
    }
    free(h.p);
    cp_bytes_free(&b);
    cp_cpt_file_free(&m);
}
END_TEST

/* -------------------------------------------------------------- malformed */

struct bad_case {
    enum tweak t;
    const char *msg; /* must appear in the message */
};

static const struct bad_case bad_cases[] = {
    {T_TAG, "hand.cpt: header, at byte 0: not a timings.cpt file (expected the tag CPROF)"},
    {T_MAJOR0, "hand.cpt: header, at byte 5: version 0.0.0 does not exist"},
    {T_HIST_PAST, "series 0 (Bcast, communicator 4), at byte 295: histogram of buckets 40 to 240 "
                  "(expected within 0 to 160): the file is corrupt"},
    {T_MAJOR6, "hand.cpt: header, at byte 5: version 6.0.0 is newer than version 5.0.0, which "
               "this collprof reads"},
    {T_SITE_PAST, "call 7 of call site 2 (the series has 2): the file is corrupt"},
    {T_NSITES_HUGE, "4294967295 call sites cannot fit in the"},
    {T_HASH_NOTERM, "header, at byte 17: the git hash is not NUL-terminated within 41 bytes"},
    {T_HASH_PAD, "header, at byte 50: the git hash is followed by byte 0x78 (expected NUL "
                 "padding)"},
    {T_MODE_LEN0, "header, at byte 58: the mode string: length 0 (expected 1 to 512 bytes, "
                  "counting the NUL)"},
    {T_MODE_LONG, "the mode string: length 513 (expected 1 to 512 bytes"},
    {T_MODE_NONUL, "header, at byte 62: the mode string is not NUL-terminated"},
    {T_MODE_INNER_NUL, "the mode string holds a NUL byte before its end"},
    {T_WORLD0, "header, at byte 73: world size 0 (expected at least 1)"},
    {T_OFF0, "header, at byte 81: offset of rank 0 is 98, expected 97 (the size of the header)"},
    {T_OFF_CLOSE, "header, at byte 89: offset of rank 1 is 127, expected at least 128 (the "
                  "offset of rank 0 plus the 31 bytes of the smallest chunk)"},
    {T_OFF_BEYOND, "truncated: the file ends at byte"},
    {T_OVERRUN, "chunk of rank 0, at byte"},
    {T_HOST_LONG, "chunk of rank 0, at byte 97: the hostname: length 257 (expected 1 to 256 "
                  "bytes, counting the NUL)"},
    {T_AGG_FLAG, "chunk of rank 0, at byte 116: aggregates flag 2 (expected 0 or 1)"},
    {T_SLOW_RANK, "slowest instance 0: rank 2 is not a world rank (world size 2)"},
    {T_SLOW_NEG, "slowest instance 0: rank -1 is not a world rank (world size 2)"},
    {T_COLL_EMPTY, "chunk of rank 0, series 0, at byte"},
    {T_NCOLLS_HUGE, "the 4294967295 collective statistics it announces runs past the start of "
                    "the chunk of rank 1 at byte"},
    {T_NSERIES_HUGE, "the 4294967295 series it announces runs past the start of the chunk of "
                     "rank 1"},
    {T_ULEN, "chunk of rank 0, series 0 (Bcast, communicator 4), at byte"},
    {T_N_HUGE, "uncompressed length 123 does not hold 4611686018427387904 calls of 41 bytes"},
    {T_CLEN_PAST, "the compressed payload runs past the start of the chunk of rank 1"},
    {T_CRC, "chunk of rank 0, series 0 (Bcast, communicator 4), at byte"},
    {T_STREAM_BAD, "the compressed payload does not inflate (zlib: invalid or incomplete "
                   "stream): the file is corrupt"},
    {T_STREAM_CUT, "does not inflate"},
    {T_STREAM_TRAILING, "the zlib stream ends after"},
    {T_STREAM_MORE, "the compressed payload inflates to more than the 82 bytes announced"},
    {T_STREAM_LESS, "the compressed payload inflates to 82 bytes, expected 123"},
    {T_RATIO, "uncompressed length 41000000 cannot come from"},
    {T_ROOT, "root -2 of call 6 (expected -1 or a communicator rank)"},
    {T_FOOTER, "expected the footer END_BLOCK, found 'END_BLOCX': the file is corrupt"},
    {T_LAST_FOOTER, "truncated: the file ends at byte"},
    {T_LAST_HOST_TRUNC, "inside the chunk of rank 1, in the hostname"},
};
enum { NBAD = sizeof bad_cases / sizeof *bad_cases };

START_TEST(malformed)
{
    const struct bad_case *c = &bad_cases[_i];
    hb h = hand_file(c->t);
    cp_cpt_file f;
    cp_error err;
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &f, &err) == -1, "case %d accepted", _i);
    ck_assert_msg(strstr(err.msg, c->msg) != NULL, "case %d: want '%s' in '%s'", _i, c->msg,
                  err.msg);
    free(h.p);
}
END_TEST

START_TEST(malformed_details)
{
    /* Messages whose numbers depend on zlib's output: check their form. */
    cp_cpt_file f;
    cp_error err;
    hb h = hand_file(T_CRC);
    ck_assert_int_eq(parse_bytes(h.p, h.len, "hand.cpt", &f, &err), -1);
    unsigned stored, computed;
    const char *m = strstr(err.msg, "CRC32 mismatch (stored 0x");
    ck_assert_msg(m, "%s", err.msg);
    ck_assert_int_eq(sscanf(m, "CRC32 mismatch (stored 0x%x, computed 0x%x)", &stored, &computed),
                     2);
    ck_assert_uint_eq(stored ^ computed, 0x80);
    ck_assert_ptr_nonnull(strstr(err.msg, "): the file is corrupt"));
    free(h.p);

    h = hand_file(T_ULEN);
    ck_assert_int_eq(parse_bytes(h.p, h.len, "hand.cpt", &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "uncompressed length 124 does not hold 3 calls of 41 "
                                          "bytes: the file is corrupt"));
    free(h.p);

    h = hand_file(T_COLL_EMPTY);
    ck_assert_int_eq(parse_bytes(h.p, h.len, "hand.cpt", &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "the collective's name: length 1 (expected 2 to 32 "
                                          "bytes, counting the NUL)"));
    free(h.p);

    /* The chunk of rank 1 starts 4 bytes early: rank 0's footer runs into it. */
    h = hand_file(T_OVERRUN);
    ck_assert_int_eq(parse_bytes(h.p, h.len, "hand.cpt", &f, &err), -1);
    char want[256];
    size_t o1 = (size_t)at64(h.p + 89);
    snprintf(want, sizeof want,
             "hand.cpt: chunk of rank 0, at byte %zu: the footer END_BLOCK runs past the start "
             "of the chunk of rank 1 at byte %zu: the file is corrupt",
             o1 - 5, o1);
    ck_assert_str_eq(err.msg, want);
    free(h.p);

    /* An offset past the end: the file is cut inside chunk 0's extent. */
    h = hand_file(T_OFF_BEYOND);
    ck_assert_int_eq(parse_bytes(h.p, h.len, "hand.cpt", &f, &err), -1);
    snprintf(want, sizeof want,
             "hand.cpt: truncated: the file ends at byte %zu inside the chunk of rank 0 "
             "(expected at least %zu bytes)",
             h.len, h.len + 100 + 31);
    ck_assert_str_eq(err.msg, want);
    free(h.p);
}
END_TEST

/* --------------------------------------------------------------- versions */

static void set_u32_at(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

START_TEST(versions)
{
    cp_cpt_file f = rich_file();
    cp_bytes b;
    encode_ok(&f, &b);
    cp_cpt_file g;
    cp_error err;

    /* A newer major version is refused, naming both versions. */
    set_u32_at(b.p + 5, 6);
    set_u32_at(b.p + 9, 5);
    set_u32_at(b.p + 13, 1);
    ck_assert_int_eq(parse_bytes(b.p, b.len, "timings.cpt", &g, &err), -1);
    ck_assert_str_eq(err.msg, "timings.cpt: header, at byte 5: version 6.5.1 is newer than "
                              "version 5.0.0, which this collprof reads (major version 5): "
                              "upgrade collprof to read it");
    set_u32_at(b.p + 5, UINT32_MAX);
    ck_assert_int_eq(parse_bytes(b.p, b.len, "timings.cpt", &g, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "version 4294967295.5.1 is newer than version 5.0.0"));

    /* Another minor or patch of this major is read, and kept in the model;
     * written again, the file says the writer's version. */
    set_u32_at(b.p + 5, CP_CPT_VERSION_MAJOR);
    ck_assert_msg(parse_bytes(b.p, b.len, "timings.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[0], CP_CPT_VERSION_MAJOR);
    ck_assert_uint_eq(g.version[1], 5);
    ck_assert_uint_eq(g.version[2], 1);
    ck_assert(!cp_cpt_file_equal(&f, &g));
    g.version[1] = CP_CPT_VERSION_MINOR;
    g.version[2] = CP_CPT_VERSION_PATCH;
    ck_assert(cp_cpt_file_equal(&f, &g));
    g.version[1] = 9;
    cp_bytes c;
    encode_ok(&g, &c);
    ck_assert_uint_eq(at32(c.p + 5), CP_CPT_VERSION_MAJOR);
    ck_assert_uint_eq(at32(c.p + 9), CP_CPT_VERSION_MINOR);
    ck_assert_uint_eq(at32(c.p + 13), CP_CPT_VERSION_PATCH);
    cp_bytes_free(&c);
    cp_cpt_file_free(&g);

    hb h = hand_file(T_MINOR);
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[1], 7);
    ck_assert_uint_eq(g.version[2], 3);
    ck_assert_uint_eq(g.chunks[0].series[0].hist_n, 3);
    cp_cpt_file_free(&g);
    free(h.p);

    /* Version 1 (no stride, tick or histogram) is still read. */
    h = hand_file(T_V1);
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[0], 1);
    const cp_cpt_series *s = &g.chunks[0].series[0];
    ck_assert_uint_eq(s->n, 3);
    ck_assert_uint_eq(s->call[2], 7);
    ck_assert(s->stride == 0 && s->hist_n == 0 && s->hist == NULL && s->tick == 0);
    cp_cpt_file_free(&g);
    free(h.p);

    /* Version 2 (no call sites) is still read: one stratum, no site array. */
    h = hand_file(T_V2);
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[0], 2);
    s = &g.chunks[0].series[0];
    ck_assert_uint_eq(s->n, 3);
    ck_assert_uint_eq(s->hist_n, 3);
    ck_assert(s->nsites == 0 && s->site == NULL && s->site_time == NULL);
    cp_cpt_file_free(&g);
    free(h.p);

    /* Version 4 (the columns as they are, call by call) is still read: the
     * same model as version 5's planes. */
    h = hand_file(T_V4);
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[0], 4);
    g.version[0] = CP_CPT_VERSION_MAJOR;
    cp_cpt_file hm = hand_model();
    ck_assert(cp_cpt_file_equal(&hm, &g));
    cp_cpt_file_free(&hm);
    cp_cpt_file_free(&g);
    free(h.p);

    /* Version 3 (sites without their call path and form) is still read. */
    h = hand_file(T_V3);
    ck_assert_msg(parse_bytes(h.p, h.len, "hand.cpt", &g, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(g.version[0], 3);
    s = &g.chunks[0].series[0];
    ck_assert(s->nsites == 2 && s->site && s->site_time && !s->site_path && !s->site_form);
    cp_cpt_file_free(&g);
    free(h.p);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

/* ------------------------------------------------- written as the runtime does */

/* Every rank encodes its chunk; offsets are an exclusive scan of the chunk
 * sizes (each rounded up to `align`); rank 0 encodes the header; each
 * writes at its offset. */
static unsigned char *parallel_bytes(const cp_cpt_file *f, size_t align, size_t *len)
{
    uint64_t ws = f->world_size;
    cp_bytes *chunk = calloc(ws, sizeof *chunk);
    uint64_t *off = calloc(ws, sizeof *off);
    cp_error err;
    for (uint64_t r = 0; r < ws; r++)
        ck_assert_msg(cp_cpt_encode_chunk(&f->chunks[r], &chunk[r], &err) == 0, "%s", err.msg);
    uint64_t at = cp_cpt_header_size(f);
    for (uint64_t r = 0; r < ws; r++) {
        off[r] = at;
        at += (chunk[r].len + align - 1) / align * align;
    }
    cp_bytes hdr = {0};
    ck_assert_msg(cp_cpt_encode_header(f, off, &hdr, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(hdr.len, off[0]);
    unsigned char *file = malloc(at);
    memset(file, 0xa5, at); /* padding: whatever was there */
    memcpy(file, hdr.p, hdr.len);
    for (uint64_t r = 0; r < ws; r++) {
        memcpy(file + off[r], chunk[r].p, chunk[r].len);
        cp_bytes_free(&chunk[r]);
    }
    cp_bytes_free(&hdr);
    free(chunk);
    free(off);
    *len = at;
    return file;
}

START_TEST(parallel_layout)
{
    cp_cpt_file f = rich_file();
    cp_bytes serial;
    encode_ok(&f, &serial);
    size_t len;
    unsigned char *p = parallel_bytes(&f, 1, &len);
    ck_assert_uint_eq(len, serial.len);
    ck_assert(memcmp(p, serial.p, len) == 0);
    free(p);

    size_t aligns[] = {8, 64, 4096};
    for (size_t i = 0; i < 3; i++) {
        p = parallel_bytes(&f, aligns[i], &len);
        reads_back(p, len, "aligned.cpt", &f);
        free(p);
    }
    cp_bytes_free(&serial);
    cp_cpt_file_free(&f);
}
END_TEST

/* ------------------------------------------------------------- truncation */

START_TEST(truncated_everywhere)
{
    cp_cpt_file f = rich_file();
    cp_bytes b;
    encode_ok(&f, &b);
    cp_cpt_file g;
    cp_error err;
    for (size_t off = 0; off < b.len; off++) {
        ck_assert_msg(parse_bytes(b.p, off, "cut.cpt", &g, &err) == -1, "offset %zu accepted",
                      off);
        ck_assert_msg(strstr(err.msg, "cut.cpt: truncated: the file ends at byte ") == err.msg,
                      "offset %zu: '%s'", off, err.msg);
        char at[64];
        snprintf(at, sizeof at, "ends at byte %zu inside the ", off);
        ck_assert_msg(strstr(err.msg, at) != NULL, "offset %zu: '%s'", off, err.msg);
    }
    ck_assert_msg(parse_bytes(b.p, b.len, "cut.cpt", &g, &err) == 0, "%s", err.msg);
    cp_cpt_file_free(&g);

    /* The example of the documentation: the file ends in the chunk of rank 1
     * and the offset table promised a chunk of rank 2 further on. */
    uint64_t o1 = at64(b.p + 89), o2 = at64(b.p + 97);
    ck_assert_int_eq(parse_bytes(b.p, (size_t)o1 + 40, "timings.cpt", &g, &err), -1);
    char want[256];
    snprintf(want, sizeof want,
             "timings.cpt: truncated: the file ends at byte %zu inside the chunk of rank 1 "
             "(expected at least %" PRIu64 " bytes)",
             (size_t)o1 + 40, o2 + 31);
    ck_assert_str_eq(err.msg, want);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

/* -------------------------------------------------------------- bit flips */

/* Where the compressed payload of each series is: found by compressing its
 * arrays here (as the layout says) and looking for that stream. */
static size_t payload_spans(const cp_bytes *b, const cp_cpt_file *f, size_t *lo, size_t *hi,
                            size_t max)
{
    size_t k = 0;
    for (uint64_t r = 0; r < f->world_size; r++)
        for (size_t i = 0; i < f->chunks[r].nseries; i++) {
            hb raw = {0};
            hb_arrays(&raw, &f->chunks[r].series[i], CP_CPT_VERSION_MAJOR);
            hb z = deflated(&raw, CP_CPT_VERSION_MAJOR);
            size_t from = k ? hi[k - 1] : 0;
            unsigned char *at = memmem(b->p + from, b->len - from, z.p, z.len);
            ck_assert_ptr_nonnull(at);
            ck_assert_uint_lt(k, max);
            lo[k] = (size_t)(at - b->p);
            hi[k] = lo[k] + z.len;
            /* Preceded by its compressed length and CRC32. */
            ck_assert_uint_eq(at64(at - 12), z.len);
            ck_assert_uint_eq(at32(at - 4), (uint32_t)crc32(0, z.p, (uInt)z.len));
            ck_assert_uint_eq(at64(at - 20), raw.len);
            k++;
            free(raw.p);
            free(z.p);
        }
    return k;
}

/* A series of 400 calls, timed as a run times them (rising enter times, a
 * start a little after each, an exit after that, call indices a few
 * apart): its payload takes the compressing branch of the writer (more
 * than 1024 bytes), is the stream the layout documents, reads back the same,
 * and the planes make it much smaller than the arrays it holds. */
START_TEST(long_series_compresses_as_documented)
{
    enum { N = 400 };
    uint64_t call[N];
    double enter[N], start[N], exit_[N];
    int32_t root[N];
    uint8_t flags[N];
    unsigned seed = 99;
    for (size_t i = 0; i < N; i++) {
        call[i] = (i ? call[i - 1] : 0) + 1 + (uint64_t)(rand_r(&seed) % 30);
        enter[i] = 12.5 + (double)call[i] * 1.6e-6 + (rand_r(&seed) % 1000) * 1e-10;
        start[i] = enter[i] + (rand_r(&seed) % 500) * 1e-10;
        exit_[i] = start[i] + 1e-6 + (rand_r(&seed) % 3000) * 1e-10;
        root[i] = i % 7 == 0 ? 1 : -1;
        flags[i] = 0;
    }
    cp_cpt_file f = new_file(1, "MPICH 4.0", CP_CPT_TIMING);
    set_host(&f.chunks[0], "n0", 0, 7, 0);
    add_series(&f.chunks[0], 3, "Alltoallv", 0, 0.0, N, call, enter, start, exit_, root, flags);
    cp_bytes b;
    encode_ok(&f, &b);
    size_t lo[1], hi[1];
    ck_assert_uint_eq(payload_spans(&b, &f, lo, hi, 1), 1);
    ck_assert_uint_lt(hi[0] - lo[0], (size_t)N * 41 / 2);
    reads_back(b.p, b.len, "long.cpt", &f);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

START_TEST(payload_bit_flips)
{
    cp_cpt_file f = rich_file();
    cp_bytes b;
    encode_ok(&f, &b);
    size_t lo[8], hi[8];
    size_t n = payload_spans(&b, &f, lo, hi, 8);
    ck_assert_uint_eq(n, 5);
    cp_cpt_file g;
    cp_error err;
    size_t flips = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t i = lo[s]; i < hi[s]; i++)
            for (int bit = 0; bit < 8; bit++) {
                b.p[i] ^= (unsigned char)(1u << bit);
                ck_assert_msg(parse_bytes(b.p, b.len, "flip.cpt", &g, &err) == -1,
                              "flip of bit %d of byte %zu accepted", bit, i);
                ck_assert_msg(strstr(err.msg, "CRC32 mismatch (stored 0x") != NULL,
                              "byte %zu bit %d: '%s'", i, bit, err.msg);
                ck_assert_msg(strstr(err.msg, "): the file is corrupt") != NULL, "%s", err.msg);
                b.p[i] ^= (unsigned char)(1u << bit);
                flips++;
            }
    ck_assert_uint_gt(flips, 500);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

START_TEST(other_bit_flips)
{
    /* Outside the payloads a flip is rejected, or it parses into a model
     * that differs from the original (no bit is silently ignored) and that
     * the writer writes back to the same model. */
    cp_cpt_file f = rich_file();
    cp_bytes b;
    encode_ok(&f, &b);
    size_t lo[8], hi[8];
    size_t n = payload_spans(&b, &f, lo, hi, 8);
    cp_cpt_file g, h;
    cp_error err;
    size_t accepted = 0, rejected = 0, s = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (s < n && i == lo[s]) {
            i = hi[s++] - 1;
            continue;
        }
        for (int bit = 0; bit < 8; bit++) {
            b.p[i] ^= (unsigned char)(1u << bit);
            if (parse_bytes(b.p, b.len, "flip.cpt", &g, &err) != 0) {
                rejected++;
            } else {
                accepted++;
                ck_assert_msg(!cp_cpt_file_equal(&f, &g), "flip of bit %d of byte %zu ignored",
                              bit, i);
                ck_assert_uint_eq(g.world_size, f.world_size);
                cp_bytes c;
                encode_ok(&g, &c);
                ck_assert_msg(parse_bytes(c.p, c.len, "again.cpt", &h, &err) == 0, "%s",
                              err.msg);
                memcpy(h.version, g.version, sizeof h.version);
                ck_assert_msg(cp_cpt_file_equal(&g, &h), "byte %zu bit %d: round trip", i, bit);
                cp_cpt_file_free(&h);
                cp_bytes_free(&c);
                cp_cpt_file_free(&g);
            }
            b.p[i] ^= (unsigned char)(1u << bit);
        }
    }
    ck_assert_uint_gt(accepted, 1000);
    ck_assert_uint_gt(rejected, 1000);
    cp_bytes_free(&b);
    cp_cpt_file_free(&f);
}
END_TEST

/* ---------------------------------------------------------------- writer */

START_TEST(writer_refuses)
{
    cp_error err;
    cp_bytes b = {0};
    cp_bytes_append(&b, "keep", 4);
    cp_cpt_file f = rich_file();
    cp_cpt_series *s = &f.chunks[0].series[1];

#define REFUSED(expr, want)                                                                 \
    do {                                                                                    \
        memset(&err, 0, sizeof err);                                                        \
        ck_assert_int_eq((expr), -1);                                                       \
        ck_assert_msg(strstr(err.msg, (want)) != NULL, "want '%s' in '%s'", (want), err.msg); \
        ck_assert_uint_eq(b.len, 4);                                                        \
        ck_assert(!b.failed);                                                               \
        ck_assert(memcmp(b.p, "keep", 4) == 0);                                             \
    } while (0)

    s->root[1] = -2;
    REFUSED(cp_cpt_encode(&f, &b, &err),
            "timings.cpt: chunk of rank 0, series 1 (Bcast, communicator 1): root -2 of call 1 "
            "(expected -1 or a communicator rank)");
    REFUSED(cp_cpt_encode_chunk(&f.chunks[0], &b, &err), "root -2 of call 1");
    s->root[1] = 1;

    free(s->exit);
    s->exit = NULL;
    REFUSED(cp_cpt_encode(&f, &b, &err), "2 calls but an array is missing");
    s->exit = calloc(2, sizeof *s->exit);

    s->collective[0] = '\0';
    REFUSED(cp_cpt_encode(&f, &b, &err), "collective name empty or not NUL-terminated");
    memset(s->collective, 'x', sizeof s->collective);
    REFUSED(cp_cpt_encode(&f, &b, &err), "collective name empty or not NUL-terminated");
    snprintf(s->collective, sizeof s->collective, "Bcast");

    memset(f.chunks[1].hostname, 'h', sizeof f.chunks[1].hostname);
    REFUSED(cp_cpt_encode(&f, &b, &err),
            "timings.cpt: chunk of rank 1: hostname not NUL-terminated within 256 bytes");
    f.chunks[1].hostname[255] = '\0';

    f.chunks[0].agg.slowest[0].rank = 3;
    REFUSED(cp_cpt_encode(&f, &b, &err), "slowest instance 0: rank 3 is not a world rank");
    f.chunks[0].agg.slowest[0].rank = 2;
    memset(f.chunks[0].agg.end_time, '9', sizeof f.chunks[0].agg.end_time);
    REFUSED(cp_cpt_encode(&f, &b, &err), "start or end time not NUL-terminated");
    f.chunks[0].agg.end_time[31] = '\0';

    f.chunks[2].rank = 5;
    REFUSED(cp_cpt_encode(&f, &b, &err), "chunk 2 holds rank 5");
    f.chunks[2].rank = 2;

    memset(f.mode, 'm', sizeof f.mode);
    ck_assert_uint_eq(cp_cpt_header_size(&f), 0);
    REFUSED(cp_cpt_encode(&f, &b, &err), "mode string not NUL-terminated");
    f.mode[511] = '\0';
    memset(f.git_hash, 'g', sizeof f.git_hash);
    REFUSED(cp_cpt_encode(&f, &b, &err), "git hash not NUL-terminated within 41 bytes");
    f.git_hash[40] = '\0';

    /* Offsets that the parser would refuse. */
    uint64_t off[3] = {cp_cpt_header_size(&f), 0, 0};
    off[1] = off[0] + 31;
    off[2] = off[1] + 30;
    REFUSED(cp_cpt_encode_header(&f, off, &b, &err),
            "offset of rank 2 is " /* ... */);
    off[2] = off[1] + 31;
    ck_assert_int_eq(cp_cpt_encode_header(&f, off, &b, &err), 0);
    ck_assert_uint_eq(b.len, 4 + off[0]);
    b.len = 4;
    off[0]--;
    REFUSED(cp_cpt_encode_header(&f, off, &b, &err), "offset of rank 0 is");

    /* Everything right again: it encodes, after what was there. */
    ck_assert_msg(cp_cpt_encode(&f, &b, &err) == 0, "%s", err.msg);
    ck_assert_uint_gt(b.len, 4);
    cp_bytes_free(&b);

    /* A refused file leaves nothing behind. */
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    f.world_size = 0;
    ck_assert_int_eq(cp_cpt_write(path, &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_int_eq(tmpdir_entries(), 0);
    f.world_size = 3;
    tmpdir_remove();
    cp_cpt_file_free(&f);
#undef REFUSED
}
END_TEST

START_TEST(missing_file)
{
    cp_cpt_file f;
    cp_error err;
    ck_assert_int_eq(cp_cpt_read("no-such-tmpdir/timings.cpt", &f, &err), -1);
    ck_assert_str_eq(err.msg, "no-such-tmpdir/timings.cpt: cannot open: No such file or directory");
    ck_assert_ptr_null(f.chunks);

    /* Empty input, and NULL with length 0. */
    ck_assert_int_eq(cp_cpt_parse_mem(NULL, 0, "empty.cpt", &f, &err), -1);
    ck_assert_str_eq(err.msg, "empty.cpt: truncated: the file ends at byte 0 inside the header, "
                              "in the tag CPROF (expected at least 5 bytes)");
    ck_assert_int_eq(cp_cpt_parse_mem("CPR", 3, "short.cpt", &f, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "truncated"));
    ck_assert_int_eq(cp_cpt_parse_mem("# collprof counts 1\n", 20, "counts.txt", &f, &err), -1);
    ck_assert_str_eq(err.msg, "counts.txt: header, at byte 0: not a timings.cpt file (expected "
                              "the tag CPROF)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpt");
    TCase *tc = tcase_create("cpt");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, round_trip_file);
    tcase_add_test(tc, round_trip_limits);
    tcase_add_test(tc, header_bytes);
    tcase_add_test(tc, hand_made_file_is_the_writers);
    tcase_add_loop_test(tc, malformed, 0, NBAD);
    tcase_add_test(tc, malformed_details);
    tcase_add_test(tc, versions);
    tcase_add_test(tc, long_series_compresses_as_documented);
    tcase_add_test(tc, parallel_layout);
    tcase_add_test(tc, truncated_everywhere);
    tcase_add_test(tc, payload_bit_flips);
    tcase_add_test(tc, other_bit_flips);
    tcase_add_test(tc, writer_refuses);
    tcase_add_test(tc, missing_file);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
