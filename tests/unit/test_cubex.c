/*
 * profile.cubex: the builder (call tree added out of order, renumbered
 * depth-first), write -> parse -> equal through a file and through memory,
 * the raw archive byte by byte (ustar blocks, member names, index and data
 * layouts, anchor.xml's elements), escaping, what the writer refuses, every
 * malformed archive with its message, truncation at every byte, big-endian
 * members, the compressed ZCUBEX.DATA variant, and anchor.xml written by
 * hand in other ways than ours (comments, CRLF, quotes, empty elements).
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cubex.h"
#include "tmpdir.h"

/* ------------------------------------------------------------- helpers */

static cp_cube_metric metric(const char *uniq, const char *disp, cp_cube_dtype dt, const char *uom)
{
    cp_cube_metric m;
    memset(&m, 0, sizeof m);
    snprintf(m.uniq_name, sizeof m.uniq_name, "%s", uniq);
    snprintf(m.disp_name, sizeof m.disp_name, "%s", disp);
    m.dtype = dt;
    snprintf(m.uom, sizeof m.uom, "%s", uom);
    snprintf(m.url, sizeof m.url, "https://example.org/metrics#%s", uniq);
    snprintf(m.descr, sizeof m.descr, "%s of the collective", disp);
    return m;
}

static cp_cube_region region(const char *name, const char *paradigm, const char *role,
                             const char *mod, int64_t begin, int64_t end)
{
    cp_cube_region r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.mangled_name, sizeof r.mangled_name, "%s", name);
    snprintf(r.paradigm, sizeof r.paradigm, "%s", paradigm);
    snprintf(r.role, sizeof r.role, "%s", role);
    snprintf(r.mod, sizeof r.mod, "%s", mod);
    r.begin = begin;
    r.end = end;
    return r;
}

enum { M_VISITS, M_TIME, M_BYTES, M_WAIT };
#define NLOC 4
#define NHANDLES 8
#define TWO53P1 9007199254740993ull /* 2^53 + 1: not a double */

/* The handles of the rich cube, in the order they were added, and the ids
 * depth-first pre-order gives them:
 *   h0 main            -> 0     roots in the order added: main, then init
 *     h1 a (line 10)   -> 1     children in the order added: a, b
 *       h3 a1          -> 2     h3 added after b: a grandchild before a child
 *       h5 a2          -> 3
 *     h2 b             -> 4
 *       h4 b1          -> 5
 *   h6 init            -> 6
 *     h7 init1         -> 7 */
static const int64_t want_ids[NHANDLES] = {0, 1, 4, 2, 5, 3, 6, 7};

/* 4 ranks on 2 hosts (0,2 on the first: not contiguous), 4 metrics: visits
 * (sparse), time (sparse, with -0.0 and tiny values), bytes (dense, with
 * 2^53+1 and UINT64_MAX), a wait state that is all zeros. */
static void rich_cube(cp_cube *c, int64_t *ids)
{
    ck_assert_int_eq(cp_cube_init(c, NLOC), 0);
    snprintf(c->machine, sizeof c->machine, "cluster \"alpha\" <test>");
    ck_assert_int_eq(cp_cube_add_attr(c, "Creator", "collprof 0.1.0"), 0);
    ck_assert_int_eq(cp_cube_add_attr(c, "escape", "<a & \"b\" 'c'>"), 0);
    cp_cube_metric m = metric("visits", "Visits", CP_CUBE_UINT64, "occ");
    ck_assert_int_eq(cp_cube_add_metric(c, &m), M_VISITS);
    m = metric("time", "Time", CP_CUBE_DOUBLE, "sec");
    ck_assert_int_eq(cp_cube_add_metric(c, &m), M_TIME);
    m = metric("bytes_sent", "Bytes sent", CP_CUBE_UINT64, "bytes");
    ck_assert_int_eq(cp_cube_add_metric(c, &m), M_BYTES);
    m = metric("mpi_wait_nxn", "Wait at N x N", CP_CUBE_DOUBLE, "sec");
    ck_assert_int_eq(cp_cube_add_metric(c, &m), M_WAIT);
    cp_cube_region r = region("main", "user", "function", "app.c", 3, 40);
    ck_assert_int_eq(cp_cube_add_region(c, &r), 0);
    r = region("MPI_Alltoallv", "mpi", "collective", "", -1, -1);
    ck_assert_int_eq(cp_cube_add_region(c, &r), 1);
    r = region("MPI_Bcast", "mpi", "collective", "", -1, -1);
    ck_assert_int_eq(cp_cube_add_region(c, &r), 2);
    r = region("solve<T>&\"x\"", "user", "function", "tmpdir/a b&c.cpp", 7, 9);
    snprintf(r.mangled_name, sizeof r.mangled_name, "_Z5solveIT_E");
    snprintf(r.descr, sizeof r.descr, "it's <here>");
    ck_assert_int_eq(cp_cube_add_region(c, &r), 3);
    ck_assert_int_eq(cp_cube_add_host(c, "node-a&1"), 0);
    ck_assert_int_eq(cp_cube_add_host(c, "node-b"), 1);
    for (size_t l = 0; l < NLOC; l++)
        ck_assert_int_eq(cp_cube_set_location_host(c, l, (int64_t)(l % 2)), 0);

    ck_assert_int_eq(cp_cube_tree_add(c, -1, 0, -1, NULL), 0);        /* h0 main */
    ck_assert_int_eq(cp_cube_tree_add(c, 0, 3, 10, "app.c"), 1);      /* h1 a */
    ck_assert_int_eq(cp_cube_tree_add(c, 0, 3, 20, "app.c"), 2);      /* h2 b */
    ck_assert_int_eq(cp_cube_tree_add(c, 1, 1, 11, "a<1>.c"), 3);     /* h3 a1 */
    ck_assert_int_eq(cp_cube_tree_add(c, 2, 2, -1, ""), 4);           /* h4 b1 */
    ck_assert_int_eq(cp_cube_tree_add(c, 1, 2, 12, "app.c"), 5);      /* h5 a2 */
    ck_assert_int_eq(cp_cube_tree_add(c, -1, 0, -1, "init.c"), 6);    /* h6 init */
    ck_assert_int_eq(cp_cube_tree_add(c, 6, 1, 5, NULL), 7);          /* h7 init1 */
    ck_assert_int_eq(cp_cube_tree_finish(c, ids), 0);

    /* visits: the collectives' nodes only (ids 2, 3, 5, 7) */
    for (size_t l = 0; l < NLOC; l++) {
        cp_cube_add_u64(c, M_VISITS, (size_t)ids[3], l, 3);
        cp_cube_add_u64(c, M_VISITS, (size_t)ids[5], l, 1 + l);
        cp_cube_add_u64(c, M_VISITS, (size_t)ids[4], l, 2);
    }
    cp_cube_add_u64(c, M_VISITS, (size_t)ids[7], 2, 1);
    cp_cube_add_u64(c, M_VISITS, (size_t)ids[7], 2, 1); /* adds up: 2 */
    /* time: -0.0 alone makes a row (bits, not value) */
    cp_cube_add_double(c, M_TIME, (size_t)ids[3], 0, 0.1);
    cp_cube_add_double(c, M_TIME, (size_t)ids[3], 3, 1e-300);
    cp_cube_add_double(c, M_TIME, (size_t)ids[4], 1, 3.5);
    ((double *)c->values[M_TIME])[ids[0] * NLOC + 2] = -0.0; /* 0.0 + -0.0 is 0.0 */
    /* bytes: every node has a non-zero value */
    for (size_t h = 0; h < NHANDLES; h++)
        cp_cube_add_u64(c, M_BYTES, (size_t)ids[h], h % NLOC, 1000 * (h + 1));
    cp_cube_add_u64(c, M_BYTES, (size_t)ids[3], 1, TWO53P1);
    cp_cube_add_u64(c, M_BYTES, (size_t)ids[5], 3, UINT64_MAX);
}

/* The archive of c in memory. */
static unsigned char *format(const cp_cube *c, size_t *len)
{
    void *data;
    cp_error err;
    ck_assert_msg(cp_cubex_format(c, &data, len, &err) == 0, "%s", err.msg);
    return data;
}

/* Parse exactly len bytes (copied, so that ASan sees any overread). */
static int parse(const void *data, size_t len, const char *name, cp_cube *out, cp_error *err)
{
    void *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    memset(err, 0, sizeof *err);
    int rc = cp_cubex_parse_mem(copy, len, name, out, err);
    free(copy);
    if (rc != 0) {
        cp_cube empty;
        memset(&empty, 0, sizeof empty);
        ck_assert_msg(memcmp(out, &empty, sizeof empty) == 0, "model left after '%s'", err->msg);
    }
    return rc;
}

/* data[0..len) parses, as `name`, to a cube equal to c. */
static void assert_reads_as(const void *data, size_t len, const char *name, const cp_cube *c)
{
    cp_cube d;
    cp_error err;
    ck_assert_msg(parse(data, len, name, &d, &err) == 0, "%s: %s", name, err.msg);
    ck_assert_msg(cp_cube_equal(c, &d), "%s: not the cube written", name);
    cp_cube_free(&d);
}

/* ------------------------------------------------------ a small tar kit */

typedef struct tmember {
    char name[100];
    unsigned char *data;
    size_t len;
} tmember;

typedef struct tarball {
    tmember m[32];
    size_t n;
} tarball;

static unsigned octal_field(const unsigned char *f, size_t n)
{
    unsigned v = 0;
    for (size_t i = 0; i < n && f[i] >= '0' && f[i] <= '7'; i++)
        v = v * 8 + (unsigned)(f[i] - '0');
    return v;
}

/* The members of a valid archive (as our writer makes them). */
static tarball untar(const unsigned char *a, size_t len)
{
    tarball t;
    memset(&t, 0, sizeof t);
    size_t off = 0;
    while (off + 512 <= len && a[off]) {
        tmember *m = &t.m[t.n++];
        snprintf(m->name, sizeof m->name, "%s", (const char *)a + off);
        m->len = octal_field(a + off + 124, 12);
        m->data = malloc(m->len + 1);
        memcpy(m->data, a + off + 512, m->len);
        off += 512 + (m->len + 511) / 512 * 512;
    }
    return t;
}

static void tar_free(tarball *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->m[i].data);
    t->n = 0;
}

static tmember *member(tarball *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->m[i].name, name) == 0)
            return &t->m[i];
    ck_abort_msg("no member %s", name);
    return NULL;
}

static void set_member(tarball *t, const char *name, const void *data, size_t len)
{
    tmember *m = member(t, name);
    free(m->data);
    m->data = malloc(len + 1);
    memcpy(m->data, data, len);
    m->len = len;
}

static void drop_member(tarball *t, const char *name)
{
    tmember *m = member(t, name);
    free(m->data);
    *m = t->m[--t->n];
}

static void add_member(tarball *t, const char *name, const void *data, size_t len)
{
    tmember *m = &t->m[t->n++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->data = malloc(len + 1);
    memcpy(m->data, data, len);
    m->len = len;
}

/* A ustar archive of the members, independent of the writer's code. */
static unsigned char *tar(const tarball *t, size_t *len)
{
    size_t total = 1024;
    for (size_t i = 0; i < t->n; i++)
        total += 512 + (t->m[i].len + 511) / 512 * 512;
    unsigned char *a = calloc(total, 1);
    size_t off = 0;
    for (size_t i = 0; i < t->n; i++) {
        unsigned char *h = a + off;
        memcpy(h, t->m[i].name, strlen(t->m[i].name));
        sprintf((char *)h + 100, "0000644");
        sprintf((char *)h + 108, "0001750");
        sprintf((char *)h + 116, "0001750");
        sprintf((char *)h + 124, "%011o", (unsigned)t->m[i].len);
        sprintf((char *)h + 136, "%011o", 1700000000u);
        h[156] = '0';
        memcpy(h + 257, "ustar\0" "00", 8);
        memset(h + 148, ' ', 8);
        unsigned sum = 0;
        for (int k = 0; k < 512; k++)
            sum += h[k];
        sprintf((char *)h + 148, "%06o", sum);
        memcpy(a + off + 512, t->m[i].data, t->m[i].len);
        off += 512 + (t->m[i].len + 511) / 512 * 512;
    }
    *len = total;
    return a;
}

/* The archive with one member replaced (text). */
static unsigned char *with_anchor(const unsigned char *a, size_t len, const char *xml,
                                  size_t *out_len)
{
    tarball t = untar(a, len);
    set_member(&t, "anchor.xml", xml, strlen(xml));
    unsigned char *b = tar(&t, out_len);
    tar_free(&t);
    return b;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* -------------------------------------------------------------- builder */

START_TEST(builder_renumbers_depth_first)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    for (size_t h = 0; h < NHANDLES; h++)
        ck_assert_int_eq(ids[h], want_ids[h]);
    /* id -> parent id, region */
    static const int64_t parent[NHANDLES] = {-1, 0, 1, 1, 0, 4, -1, 6};
    static const int64_t reg[NHANDLES] = {0, 3, 1, 2, 3, 2, 0, 1};
    ck_assert_uint_eq(c.ncnodes, NHANDLES);
    for (size_t i = 0; i < NHANDLES; i++) {
        ck_assert_int_eq(c.cnodes[i].parent, parent[i]);
        ck_assert_int_eq(c.cnodes[i].region, reg[i]);
    }
    ck_assert_int_eq(c.cnodes[2].line, 11);
    ck_assert_str_eq(c.cnodes[2].mod, "a<1>.c");
    ck_assert_str_eq(c.cnodes[6].mod, "init.c");
    ck_assert_int_eq(c.cnodes[0].line, -1);
    /* values landed on the renumbered nodes */
    ck_assert_uint_eq(cp_cube_get_u64(&c, M_VISITS, 7, 2), 2);
    ck_assert_uint_eq(cp_cube_get_u64(&c, M_VISITS, 3, 3), 4);
    ck_assert_uint_eq(cp_cube_get_u64(&c, M_BYTES, 2, 1), TWO53P1);
    ck_assert(cp_cube_get_double(&c, M_TIME, 2, 0) == 0.1);
    /* accessors across dtypes */
    ck_assert(cp_cube_get_double(&c, M_VISITS, 3, 3) == 4.0);
    ck_assert_uint_eq(cp_cube_get_u64(&c, M_TIME, 5, 1), 3);
    ck_assert_int_eq(cp_cube_find_metric(&c, "bytes_sent"), M_BYTES);
    ck_assert_int_eq(cp_cube_find_metric(&c, "nope"), -1);
    /* the wrong dtype and out-of-range indices are ignored */
    cp_cube_add_double(&c, M_VISITS, 0, 0, 1.0);
    cp_cube_add_u64(&c, M_TIME, 0, 0, 1);
    cp_cube_add_u64(&c, M_VISITS, 99, 0, 1);
    cp_cube_add_u64(&c, 99, 0, 0, 1);
    ck_assert_uint_eq(cp_cube_get_u64(&c, M_VISITS, 0, 0), 0);
    /* the tree is closed; metrics still come with values */
    ck_assert_int_eq(cp_cube_tree_add(&c, -1, 0, -1, NULL), -1);
    ck_assert_int_eq(cp_cube_tree_finish(&c, NULL), -1);
    cp_cube_metric m = metric("late", "Late", CP_CUBE_DOUBLE, "sec");
    ck_assert_int_eq(cp_cube_add_metric(&c, &m), 4);
    cp_cube_add_double(&c, 4, 7, 3, 2.5);
    ck_assert(cp_cube_get_double(&c, 4, 7, 3) == 2.5);
    /* refused: duplicate or empty name, unknown dtype, unknown parent/region/host */
    ck_assert_int_eq(cp_cube_add_metric(&c, &m), -1);
    m.uniq_name[0] = '\0';
    ck_assert_int_eq(cp_cube_add_metric(&c, &m), -1);
    m = metric("odd", "Odd", (cp_cube_dtype)7, "x");
    ck_assert_int_eq(cp_cube_add_metric(&c, &m), -1);
    ck_assert_int_eq(cp_cube_set_location_host(&c, NLOC, 0), -1);
    ck_assert_int_eq(cp_cube_set_location_host(&c, 0, 2), -1);
    cp_cube d;
    ck_assert_int_eq(cp_cube_init(&d, 1), 0);
    cp_cube_region r = region("main", "user", "function", "", -1, -1);
    cp_cube_add_region(&d, &r);
    ck_assert_int_eq(cp_cube_tree_add(&d, 0, 0, -1, NULL), -1);  /* no such parent */
    ck_assert_int_eq(cp_cube_tree_add(&d, -1, 1, -1, NULL), -1); /* no such region */
    ck_assert_int_eq(cp_cube_tree_finish(&d, NULL), 0);          /* an empty tree */
    cp_error err;
    void *data;
    size_t len;
    ck_assert_int_eq(cp_cubex_format(&d, &data, &len, &err), -1); /* but no metric, no cnode */
    cp_cube_free(&d);
    cp_cube_free(&c);
    cp_cube_free(&c); /* freed twice: the second is a no-op */
}
END_TEST

/* ---------------------------------------------------------- round trips */

START_TEST(round_trip_file)
{
    tmpdir_make();
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.cubex", tmpdir);
    cp_error err;
    ck_assert_msg(cp_cubex_write(path, &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(tmpdir_entries(), 1); /* no temporary file left */
    ck_assert_msg(cp_cubex_read(path, &d, &err) == 0, "%s", err.msg);
    ck_assert(cp_cube_equal(&c, &d));
    ck_assert_str_eq(d.attrs[1].value, "<a & \"b\" 'c'>");
    ck_assert_str_eq(d.regions[3].name, "solve<T>&\"x\"");
    ck_assert_str_eq(d.machine, "cluster \"alpha\" <test>");
    ck_assert_str_eq(d.hosts[0].name, "node-a&1");
    ck_assert_int_eq(d.location_host[2], 0);
    ck_assert_int_eq(d.location_host[3], 1);
    /* equality is deep */
    d.regions[3].end++;
    ck_assert(!cp_cube_equal(&c, &d));
    d.regions[3].end--;
    ((double *)d.values[M_TIME])[0] = 1.0;
    ck_assert(!cp_cube_equal(&c, &d));
    cp_cube_free(&d);
    cp_cube_free(&c);
    tmpdir_remove();
}
END_TEST

/* Rows written as they come (cp_cubex_write_rows, the runtime's way at
 * scale): from a cube that holds no values, the same file as from the
 * values; a row that cannot be had stops the writer and leaves nothing. */
static int rows_from(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    const cp_cube *c = ctx;
    for (size_t l = 0; l < c->nlocations; l++)
        memcpy(&raw[l], (const char *)c->values[m] + (cnode * c->nlocations + l) * 8, 8);
    return 0;
}

static int rows_fail(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    (void)ctx, (void)raw;
    return m == 2 && cnode == 1 ? -1 : 0;
}

START_TEST(rows_streamed)
{
    tmpdir_make();
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    /* The metadata alone: what rank 0 holds at scale. */
    cp_cube meta = c;
    meta.values = NULL;
    meta.finished = true;
    uint8_t *nonzero = calloc(c.nmetrics * c.ncnodes, 1);
    for (size_t m = 0; m < c.nmetrics; m++)
        for (size_t i = 0; i < c.ncnodes; i++)
            for (size_t l = 0; l < c.nlocations; l++) {
                uint64_t v;
                memcpy(&v, (const char *)c.values[m] + (i * c.nlocations + l) * 8, 8);
                nonzero[m * c.ncnodes + i] |= v != 0;
            }
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.cubex", tmpdir);
    cp_error err;
    ck_assert_msg(cp_cubex_write_rows(path, &meta, nonzero, rows_from, &c, &err) == 0, "%s",
                  err.msg);
    ck_assert_msg(cp_cubex_read(path, &d, &err) == 0, "%s", err.msg);
    ck_assert(cp_cube_equal(&c, &d));
    cp_cube_free(&d);
    remove(path);
    ck_assert_int_eq(cp_cubex_write_rows(path, &meta, nonzero, rows_fail, NULL, &err), -1);
    ck_assert_int_eq(tmpdir_entries(), 0);
    /* Metadata that was never finished is refused. */
    meta.finished = false;
    ck_assert_int_eq(cp_cubex_write_rows(path, &meta, nonzero, rows_from, &c, &err), -1);
    ck_assert_int_eq(tmpdir_entries(), 0);
    free(nonzero);
    cp_cube_free(&c);
    tmpdir_remove();
}
END_TEST

/* A metric tree (Time > MPI > collective > a wait pattern; Visits a root):
 * written nested in pre-order, read back the same; a parent's own value is
 * its stored (inclusive) value less its children's; a parent that is not
 * on the current path is refused. */
START_TEST(metric_tree_round_trip)
{
    cp_cube c, d;
    ck_assert_int_eq(cp_cube_init(&c, 2), 0);
    static const struct {
        const char *name, *parent;
    } tree[] = {{"visits", ""}, {"time", ""}, {"mpi", "time"}, {"mpi_collective", "mpi"},
                {"mpi_wait_nxn", "mpi_collective"}, {"mpi_nxn_completion", "mpi_collective"},
                {"bytes_sent", ""}};
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        cp_cube_metric m = {.dtype = i == 0 || i == 6 ? CP_CUBE_UINT64 : CP_CUBE_DOUBLE};
        snprintf(m.uniq_name, sizeof m.uniq_name, "%s", tree[i].name);
        snprintf(m.disp_name, sizeof m.disp_name, "%s", tree[i].name);
        snprintf(m.parent, sizeof m.parent, "%s", tree[i].parent);
        ck_assert_int_eq(cp_cube_add_metric(&c, &m), (int64_t)i);
    }
    cp_cube_metric late = {.dtype = CP_CUBE_DOUBLE};
    snprintf(late.uniq_name, sizeof late.uniq_name, "late");
    snprintf(late.parent, sizeof late.parent, "mpi"); /* mpi's subtree is closed */
    ck_assert_int_eq(cp_cube_add_metric(&c, &late), -1);
    snprintf(late.parent, sizeof late.parent, "nope");
    ck_assert_int_eq(cp_cube_add_metric(&c, &late), -1);
    int64_t host = cp_cube_add_host(&c, "node");
    cp_cube_set_location_host(&c, 0, host);
    cp_cube_set_location_host(&c, 1, host);
    cp_cube_region r = {.begin = -1, .end = -1};
    snprintf(r.name, sizeof r.name, "main");
    int64_t reg = cp_cube_add_region(&c, &r);
    int64_t h = cp_cube_tree_add(&c, -1, reg, -1, NULL), id;
    ck_assert_int_eq(cp_cube_tree_finish(&c, &id), 0);
    (void)h;
    /* stored inclusive along the metric tree, as Cube stores them */
    for (size_t l = 0; l < 2; l++) {
        cp_cube_add_double(&c, 1, (size_t)id, l, 2.875 + l); /* time */
        cp_cube_add_double(&c, 2, (size_t)id, l, 1.875 + l); /* mpi */
        cp_cube_add_double(&c, 3, (size_t)id, l, 1.875 + l); /* collective */
        cp_cube_add_double(&c, 4, (size_t)id, l, 0.5 + l);   /* waiting */
        cp_cube_add_double(&c, 5, (size_t)id, l, 0.125);     /* completion */
    }
    void *data;
    size_t len;
    cp_error err;
    ck_assert_msg(cp_cubex_format(&c, &data, &len, &err) == 0, "%s", err.msg);
    const char *anchor = memmem(data, len, "<metrics>", 9);
    ck_assert_ptr_nonnull(anchor);
    ck_assert_ptr_nonnull(strstr(anchor, "<uniq_name>mpi</uniq_name>\n      <dtype>DOUBLE</dtype>"));
    ck_assert_ptr_nonnull(strstr(anchor, "        <metric id=\"4\" type=\"EXCLUSIVE\">\n"
                                         "          <disp_name>mpi_wait_nxn</disp_name>"));
    ck_assert_msg(cp_cubex_parse_mem(data, len, "tree.cubex", &d, &err) == 0, "%s", err.msg);
    free(data);
    ck_assert(cp_cube_equal(&c, &d));
    ck_assert_str_eq(d.metrics[4].parent, "mpi_collective");
    ck_assert_str_eq(d.metrics[6].parent, "");
    /* own values: time 1 (outside MPI), mpi 0, the collective 1.25 less
     * its children's 0.625 + l, a leaf its value */
    ck_assert(cp_cube_get_excl(&d, 1, (size_t)id, 0) == 1.0);
    ck_assert(cp_cube_get_excl(&d, 2, (size_t)id, 1) == 0.0);
    ck_assert(cp_cube_get_excl(&d, 3, (size_t)id, 0) == 1.25);
    ck_assert(cp_cube_get_excl(&d, 3, (size_t)id, 1) == 1.25);
    ck_assert(cp_cube_get_excl(&d, 4, (size_t)id, 1) == 1.5);
    ck_assert(cp_cube_get_double(&d, 1, (size_t)id, 1) == 3.875);
    cp_cube_free(&d);
    cp_cube_free(&c);
}
END_TEST

START_TEST(round_trip_memory)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len;
    unsigned char *a = format(&c, &len);
    cp_error err;
    ck_assert_msg(parse(a, len, "mem.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert(cp_cube_equal(&c, &d));
    /* and once more: the parsed model writes the same archive but for the
     * headers' modification times */
    size_t len2;
    unsigned char *b = format(&d, &len2);
    ck_assert_uint_eq(len, len2);
    for (size_t off = 0; off < len; off += 512)
        if (memcmp(a + off + 257, "ustar", 5) == 0) {
            memset(a + off + 136, 0, 20); /* mtime and checksum */
            memset(b + off + 136, 0, 20);
        }
    ck_assert(memcmp(a, b, len) == 0);
    free(a);
    free(b);
    cp_cube_free(&d);
    cp_cube_free(&c);
}
END_TEST

/* One cnode, one location, every row non-zero: all indexes dense. */
START_TEST(round_trip_minimal_dense)
{
    cp_cube c;
    ck_assert_int_eq(cp_cube_init(&c, 1), 0);
    cp_cube_metric m = metric("time", "Time", CP_CUBE_DOUBLE, "sec");
    cp_cube_add_metric(&c, &m);
    cp_cube_region r = region("MPI_Barrier", "mpi", "barrier", "", -1, -1);
    cp_cube_add_region(&c, &r);
    cp_cube_add_host(&c, "h");
    cp_cube_set_location_host(&c, 0, 0);
    ck_assert_int_eq(cp_cube_tree_add(&c, -1, 0, -1, NULL), 0);
    ck_assert_int_eq(cp_cube_tree_finish(&c, NULL), 0);
    cp_cube_add_double(&c, 0, 0, 0, 2.0);
    size_t len;
    unsigned char *a = format(&c, &len);
    tarball t = untar(a, len);
    ck_assert_uint_eq(t.n, 3);
    ck_assert_uint_eq(member(&t, "0.index")->len, 18);
    ck_assert_int_eq(member(&t, "0.index")->data[17], 3);
    ck_assert_uint_eq(member(&t, "0.data")->len, 18);
    tar_free(&t);
    assert_reads_as(a, len, "min.cubex", &c);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* ------------------------------------------------------- the raw bytes */

START_TEST(archive_layout)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len;
    unsigned char *a = format(&c, &len);
    static const char *const names[] = {"anchor.xml", "0.index", "0.data", "1.index", "1.data",
                                        "2.index",    "2.data",  "3.index", "3.data"};
    ck_assert_uint_eq(len % 512, 0);
    size_t off = 0, k = 0;
    while (off < len && a[off]) {
        const unsigned char *h = a + off;
        ck_assert_uint_lt(k, 9);
        ck_assert_str_eq((const char *)h, names[k]);
        ck_assert(memcmp(h + 257, "ustar\0" "00", 8) == 0);
        ck_assert_int_eq(h[156], '0');
        unsigned sum = 0;
        for (int i = 0; i < 512; i++)
            sum += i >= 148 && i < 156 ? ' ' : h[i];
        ck_assert_uint_eq(octal_field(h + 148, 8), sum);
        size_t size = octal_field(h + 124, 12);
        /* padding to a whole block is zero */
        for (size_t i = size; i % 512; i++)
            ck_assert_int_eq(a[off + 512 + i], 0);
        off += 512 + (size + 511) / 512 * 512;
        k++;
    }
    ck_assert_uint_eq(k, 9);
    ck_assert_uint_eq(len - off, 1024); /* two zero blocks end it */
    for (size_t i = off; i < len; i++)
        ck_assert_int_eq(a[i], 0);
    free(a);
    cp_cube_free(&c);
}
END_TEST

static void check_index_head(const tmember *m, int format)
{
    ck_assert_uint_ge(m->len, 18);
    ck_assert(memcmp(m->data, "CUBEX.INDEX", 11) == 0);
    ck_assert(memcmp(m->data + 11, "\x01\x00\x00\x00", 4) == 0); /* uint32 1, little-endian */
    ck_assert(memcmp(m->data + 15, "\x00\x00", 2) == 0);         /* uint16 version 0 */
    ck_assert_int_eq(m->data[17], format);
}

START_TEST(index_and_data_bytes)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len;
    unsigned char *a = format(&c, &len);
    tarball t = untar(a, len);

    /* visits: sparse, rows of cnodes 2, 3, 5, 7 */
    tmember *ix = member(&t, "0.index"), *dt = member(&t, "0.data");
    check_index_head(ix, 1);
    static const uint32_t rows[] = {2, 3, 5, 7};
    ck_assert_uint_eq(le32(ix->data + 18), 4);
    ck_assert_uint_eq(ix->len, 22 + 4 * 4);
    for (size_t r = 0; r < 4; r++)
        ck_assert_uint_eq(le32(ix->data + 22 + 4 * r), rows[r]);
    ck_assert(memcmp(dt->data, "CUBEX.DATA", 10) == 0);
    ck_assert_uint_eq(dt->len, 10 + 4 * NLOC * 8); /* one value per location per row */
    for (size_t r = 0; r < 4; r++)
        for (size_t l = 0; l < NLOC; l++)
            ck_assert_uint_eq(le64(dt->data + 10 + (r * NLOC + l) * 8),
                              cp_cube_get_u64(&c, M_VISITS, rows[r], l));
    ck_assert_uint_eq(le64(dt->data + 10 + (1 * NLOC + 3) * 8), 4); /* cnode 3, rank 3 */

    /* time: sparse, cnode 0 is listed for its -0.0 */
    ix = member(&t, "1.index");
    dt = member(&t, "1.data");
    check_index_head(ix, 1);
    ck_assert_uint_eq(le32(ix->data + 18), 3);
    ck_assert_uint_eq(le32(ix->data + 22), 0);
    ck_assert_uint_eq(le32(ix->data + 26), 2);
    ck_assert_uint_eq(le32(ix->data + 30), 5);
    ck_assert_uint_eq(dt->len, 10 + 3 * NLOC * 8);
    ck_assert_uint_eq(le64(dt->data + 10 + 2 * 8), 0x8000000000000000ull); /* -0.0 */
    double d01 = 0.1, tiny = 1e-300;
    uint64_t b01, btiny;
    memcpy(&b01, &d01, 8);
    memcpy(&btiny, &tiny, 8);
    ck_assert_uint_eq(le64(dt->data + 10 + (NLOC + 0) * 8), b01);
    ck_assert_uint_eq(le64(dt->data + 10 + (NLOC + 3) * 8), btiny);

    /* bytes: dense, no id list, every cnode a row */
    ix = member(&t, "2.index");
    dt = member(&t, "2.data");
    check_index_head(ix, 3);
    ck_assert_uint_eq(ix->len, 18);
    ck_assert_uint_eq(dt->len, 10 + NHANDLES * NLOC * 8);
    ck_assert_uint_eq(le64(dt->data + 10 + (2 * NLOC + 1) * 8), TWO53P1);
    ck_assert_uint_eq(le64(dt->data + 10 + (3 * NLOC + 3) * 8), UINT64_MAX);

    /* wait: all zeros, an empty sparse index */
    ix = member(&t, "3.index");
    dt = member(&t, "3.data");
    check_index_head(ix, 1);
    ck_assert_uint_eq(ix->len, 22);
    ck_assert_uint_eq(le32(ix->data + 18), 0);
    ck_assert_uint_eq(dt->len, 10);

    tar_free(&t);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* The text of anchor.xml in the archive of c. */
static char *anchor_of(const cp_cube *c)
{
    size_t len;
    unsigned char *a = format(c, &len);
    tarball t = untar(a, len);
    tmember *m = member(&t, "anchor.xml");
    char *xml = (char *)m->data;
    xml[m->len] = '\0';
    m->data = NULL;
    tar_free(&t);
    free(a);
    return xml;
}

#define HAS(text, s) ck_assert_msg(strstr((text), (s)) != NULL, "anchor.xml lacks: %s", (s))

START_TEST(anchor_content)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    char *x = anchor_of(&c);
    ck_assert(strncmp(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39) == 0);
    HAS(x, "\n<cube version=\"4.4\">\n");
    HAS(x, "<attr key=\"CubePL Version\" value=\"1.1\"/>");
    HAS(x, "<attr key=\"Cube anchor.xml syntax version\" value=\"4.4\"/>");
    HAS(x, "<attr key=\"Creator\" value=\"collprof 0.1.0\"/>");
    HAS(x, "<attr key=\"escape\" value=\"&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;\"/>");
    HAS(x, "<doc><mirrors></mirrors></doc>");
    /* metrics */
    HAS(x, "<metric id=\"0\" type=\"EXCLUSIVE\">\n    <disp_name>Visits</disp_name>\n"
           "    <uniq_name>visits</uniq_name>\n    <dtype>UINT64</dtype>\n"
           "    <uom>occ</uom>\n    <val></val>\n"
           "    <url>https://example.org/metrics#visits</url>\n"
           "    <descr>Visits of the collective</descr>\n  </metric>");
    HAS(x, "<metric id=\"1\" type=\"EXCLUSIVE\">\n    <disp_name>Time</disp_name>");
    HAS(x, "<dtype>DOUBLE</dtype>");
    HAS(x, "<uniq_name>bytes_sent</uniq_name>");
    HAS(x, "<uniq_name>mpi_wait_nxn</uniq_name>");
    /* regions, escaped */
    HAS(x, "<region id=\"3\" mod=\"tmpdir/a b&amp;c.cpp\" begin=\"7\" end=\"9\">\n"
           "    <name>solve&lt;T&gt;&amp;&quot;x&quot;</name>\n"
           "    <mangled_name>_Z5solveIT_E</mangled_name>\n"
           "    <paradigm>user</paradigm>\n    <role>function</role>\n");
    HAS(x, "<descr>it&apos;s &lt;here&gt;</descr>");
    HAS(x, "<region id=\"1\" mod=\"\" begin=\"-1\" end=\"-1\">\n    <name>MPI_Alltoallv</name>");
    /* the call tree, nested, in pre-order, calleeId = region */
    HAS(x, "</region>\n"
           "  <cnode id=\"0\" calleeId=\"0\">\n"
           "  <cnode id=\"1\" line=\"10\" mod=\"app.c\" calleeId=\"3\">\n"
           "  <cnode id=\"2\" line=\"11\" mod=\"a&lt;1&gt;.c\" calleeId=\"1\">\n"
           "  </cnode>\n"
           "  <cnode id=\"3\" line=\"12\" mod=\"app.c\" calleeId=\"2\">\n"
           "  </cnode>\n"
           "  </cnode>\n"
           "  <cnode id=\"4\" line=\"20\" mod=\"app.c\" calleeId=\"3\">\n"
           "  <cnode id=\"5\" calleeId=\"2\">\n"
           "  </cnode>\n"
           "  </cnode>\n"
           "  </cnode>\n"
           "  <cnode id=\"6\" mod=\"init.c\" calleeId=\"0\">\n"
           "  <cnode id=\"7\" line=\"5\" calleeId=\"1\">\n"
           "  </cnode>\n"
           "  </cnode>\n"
           "</program>\n");
    /* system: machine -> hosts -> process per rank -> thread */
    HAS(x, "<system>\n  <systemtreenode Id=\"0\">\n"
           "    <name>cluster &quot;alpha&quot; &lt;test&gt;</name>\n"
           "    <class>machine</class>\n"
           "    <systemtreenode Id=\"1\">\n      <name>node-a&amp;1</name>\n"
           "      <class>node</class>\n"
           "      <locationgroup Id=\"0\">\n");
    HAS(x, "      <locationgroup Id=\"2\">\n"
           "        <name>MPI Rank 2</name>\n"
           "        <rank>2</rank>\n"
           "        <type>process</type>\n"
           "        <location Id=\"2\">\n"
           "          <name>Master thread</name>\n"
           "          <rank>0</rank>\n"
           "          <type>thread</type>\n"
           "        </location>\n"
           "      </locationgroup>\n"
           "    </systemtreenode>\n"
           "    <systemtreenode Id=\"2\">\n      <name>node-b</name>\n"
           "      <class>node</class>\n"
           "      <locationgroup Id=\"1\">\n");
    HAS(x, "      <locationgroup Id=\"3\">\n");
    HAS(x, "  </systemtreenode>\n  <topologies></topologies>\n</system>\n</cube>\n");
    free(x);
    cp_cube_free(&c);
}
END_TEST

/* Every rank's process and thread in the system tree, whatever the width
 * of its number (the writer builds these without printf): each block as
 * the format has it, in rank order, and the archive reads back. */
START_TEST(system_tree_of_many_ranks)
{
    enum { N = 1234 };
    cp_cube c;
    ck_assert_int_eq(cp_cube_init(&c, N), 0);
    cp_cube_metric m = metric("time", "Time", CP_CUBE_DOUBLE, "sec");
    cp_cube_add_metric(&c, &m);
    cp_cube_region r = region("MPI_Barrier", "mpi", "barrier", "", -1, -1);
    cp_cube_add_region(&c, &r);
    cp_cube_add_host(&c, "h");
    for (size_t l = 0; l < N; l++)
        cp_cube_set_location_host(&c, l, 0);
    ck_assert_int_eq(cp_cube_tree_add(&c, -1, 0, -1, NULL), 0);
    ck_assert_int_eq(cp_cube_tree_finish(&c, NULL), 0);
    cp_cube_add_double(&c, 0, 0, N - 1, 2.0);
    char *x = anchor_of(&c);
    const char *at = x;
    for (size_t l = 0; l < N; l++) {
        char want[512];
        snprintf(want, sizeof want,
                 "      <locationgroup Id=\"%zu\">\n        <name>MPI Rank %zu</name>\n"
                 "        <rank>%zu</rank>\n        <type>process</type>\n"
                 "        <location Id=\"%zu\">\n          <name>Master thread</name>\n"
                 "          <rank>0</rank>\n          <type>thread</type>\n"
                 "        </location>\n      </locationgroup>\n",
                 l, l, l, l);
        const char *hit = strstr(at, want);
        ck_assert_msg(hit != NULL, "rank %zu's process is not as the format has it", l);
        at = hit + strlen(want);
    }
    ck_assert(strncmp(at, "    </systemtreenode>\n", 22) == 0);
    free(x);
    size_t len;
    unsigned char *a = format(&c, &len);
    assert_reads_as(a, len, "many.cubex", &c);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* Bytes XML cannot carry become '?', one per byte: the length is kept. */
START_TEST(unwritable_bytes)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    snprintf(c.regions[0].name, sizeof c.regions[0].name, "a\tb\x01" "c\xff" "d\xc3\xa9\x7f");
    snprintf(c.hosts[1].name, sizeof c.hosts[1].name, "n\n1");
    size_t len;
    unsigned char *a = format(&c, &len);
    cp_error err;
    ck_assert_msg(parse(a, len, "x.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(d.regions[0].name, "a?b?c?d\xc3\xa9?");
    ck_assert_str_eq(d.hosts[1].name, "n?1");
    free(a);
    cp_cube_free(&d);
    cp_cube_free(&c);
}
END_TEST

/* ------------------------------------------------ what the writer refuses */

typedef void (*spoil_fn)(cp_cube *c);
static void no_metric(cp_cube *c) { c->nmetrics = 0; }
static void no_location(cp_cube *c) { c->nlocations = 0; }
static void not_preorder(cp_cube *c) { c->cnodes[5].parent = 1; } /* 1's subtree ended */
static void bad_region(cp_cube *c) { c->cnodes[3].region = 4; }
static void no_host(cp_cube *c) { c->location_host[1] = 2; }
static void reserved_attr(cp_cube *c) { cp_cube_add_attr(c, "CubePL Version", "2.0"); }
static void dup_metric(cp_cube *c) { snprintf(c->metrics[2].uniq_name, 64, "time"); }
static void unterminated(cp_cube *c) { memset(c->regions[1].role, 'x', sizeof c->regions[1].role); }
static void bad_dtype(cp_cube *c) { c->metrics[1].dtype = (cp_cube_dtype)5; }
static void no_values(cp_cube *c)
{
    for (size_t m = 0; m < c->nmetrics; m++)
        free(c->values[m]);
    free(c->values);
    c->values = NULL;
}
static void long_attr(cp_cube *c)
{
    char *v = malloc(CP_CUBEX_MAX_ATTR_LEN + 2);
    memset(v, 'v', CP_CUBEX_MAX_ATTR_LEN + 1);
    v[CP_CUBEX_MAX_ATTR_LEN + 1] = '\0';
    cp_cube_add_attr(c, "long", v);
    free(v);
}

static const struct {
    spoil_fn spoil;
    const char *msg;
} refused[] = {
    {no_metric, "Cube needs at least one metric, region, cnode and location (0, 4, 8, 4)"},
    {no_location, "Cube needs at least one metric, region, cnode and location (4, 4, 8, 0)"},
    {not_preorder, "cnode 5: parent 1 breaks the depth-first pre-order of the call tree"},
    {bad_region, "cnode 3: region 4 does not exist (4 regions)"},
    {no_host, "location 1: host 2 does not exist (2 hosts)"},
    {reserved_attr, "attr \"CubePL Version\" is written by collprof itself"},
    {dup_metric, "metric 2: uniq_name \"time\" is also metric 1"},
    {unterminated, "region 1: a string field has no terminating NUL"},
    {bad_dtype, "metric 1: unknown dtype 5"},
    {no_values, "no values (cp_cube_tree_finish not called?)"},
    {long_attr, "attr \"long\": key or value longer than 65536 bytes"},
};
#define NREFUSED (sizeof refused / sizeof refused[0])

START_TEST(writer_refuses)
{
    tmpdir_make();
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t nmetrics = c.nmetrics, nloc = c.nlocations;
    refused[_i].spoil(&c);
    char path[8192];
    snprintf(path, sizeof path, "%s/profile.cubex", tmpdir);
    cp_error err;
    ck_assert_int_eq(cp_cubex_write(path, &c, &err), -1);
    ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0 &&
                      strstr(err.msg, refused[_i].msg) != NULL,
                  "case %d: '%s'", _i, err.msg);
    ck_assert_int_eq(tmpdir_entries(), 0); /* nothing written */
    void *data = (void *)1;
    size_t len = 1;
    ck_assert_int_eq(cp_cubex_format(&c, &data, &len, &err), -1);
    ck_assert_ptr_null(data);
    ck_assert_msg(strstr(err.msg, refused[_i].msg) != NULL, "'%s'", err.msg);
    c.nmetrics = nmetrics;
    c.nlocations = nloc;
    cp_cube_free(&c);
    tmpdir_remove();
}
END_TEST

START_TEST(write_failure_leaves_nothing)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    cp_error err;
    ck_assert_int_eq(cp_cubex_write("no-such-tmpdir/profile.cubex", &c, &err), -1);
    ck_assert_msg(strstr(err.msg, "no-such-tmpdir/profile.cubex: cannot create temporary file") ==
                      err.msg,
                  "'%s'", err.msg);
    cp_cube_free(&c);
}
END_TEST

/* ------------------------------------------------------ malformed input */

/* The rich archive with one change; returns the new archive. */
typedef unsigned char *(*break_fn)(const unsigned char *a, size_t len, size_t *out);

static unsigned char *copy_of(const unsigned char *a, size_t len, size_t *out)
{
    unsigned char *b = malloc(len);
    memcpy(b, a, len);
    *out = len;
    return b;
}

static unsigned char *bad_checksum(const unsigned char *a, size_t len, size_t *out)
{
    unsigned char *b = copy_of(a, len, out);
    b[512 * 0 + 5] ^= 1; /* "anchor.xml" -> "anchpr.xml": its header no longer adds up */
    return b;
}

static unsigned char *rebuilt(const unsigned char *a, size_t len, size_t *out,
                              void (*change)(tarball *t))
{
    tarball t = untar(a, len);
    change(&t);
    unsigned char *b = tar(&t, out);
    tar_free(&t);
    return b;
}

static void drop_1data(tarball *t) { drop_member(t, "1.data"); }
static void drop_anchor(tarball *t) { drop_member(t, "anchor.xml"); }
static void dup_index(tarball *t)
{
    tmember *m = member(t, "0.index");
    add_member(t, "0.index", m->data, m->len);
}
static void extra_metric(tarball *t) { add_member(t, "4.index", "CUBEX.INDEX", 11); }
static void unsorted(tarball *t)
{
    unsigned char *d = member(t, "0.index")->data; /* ids 2 3 5 7 -> 2 5 3 7 */
    d[26] = 5;
    d[30] = 3;
}
static void id_too_big(tarball *t) { member(t, "0.index")->data[34] = 8; }
static void short_data(tarball *t) { member(t, "0.data")->len -= 8; }
static void bad_index_mark(tarball *t) { member(t, "1.index")->data[0] = 'X'; }
static void bad_endian(tarball *t) { member(t, "1.index")->data[11] = 2; }
static void bad_format(tarball *t) { member(t, "1.index")->data[17] = 2; }
static void count_mismatch(tarball *t) { member(t, "1.index")->data[18] = 4; }
static void dense_extra(tarball *t)
{
    unsigned char d[22] = {0};
    memcpy(d, member(t, "2.index")->data, 18);
    set_member(t, "2.index", d, sizeof d);
}
static void bad_data_mark(tarball *t) { member(t, "3.data")->data[0] = 'Q'; }
static void ignored_member(tarball *t) { add_member(t, "README", "hello", 5); }

#define R(name) \
    static unsigned char *name##_tar(const unsigned char *a, size_t len, size_t *out) \
    { return rebuilt(a, len, out, name); }
R(drop_1data)
R(drop_anchor)
R(dup_index)
R(extra_metric)
R(unsorted)
R(id_too_big)
R(short_data)
R(bad_index_mark)
R(bad_endian)
R(bad_format)
R(count_mismatch)
R(dense_extra)
R(bad_data_mark)

static unsigned char *trailing_garbage(const unsigned char *a, size_t len, size_t *out)
{
    unsigned char *b = calloc(len + 512, 1);
    memcpy(b, a, len);
    b[len + 100] = 'x';
    *out = len + 512;
    return b;
}

static unsigned char *not_ustar(const unsigned char *a, size_t len, size_t *out)
{
    unsigned char *b = copy_of(a, len, out);
    memcpy(b + 257, "ustaR", 5);
    b[148 + 5] = (unsigned char)(b[148 + 5] + 1); /* keep the checksum right: 'R' - 'r' = -32 */
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += i >= 148 && i < 156 ? ' ' : b[i];
    sprintf((char *)b + 148, "%06o", sum);
    return b;
}

static unsigned char *huge_size(const unsigned char *a, size_t len, size_t *out)
{
    unsigned char *b = copy_of(a, len, out);
    sprintf((char *)b + 124, "%011o", 07777777777u);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += i >= 148 && i < 156 ? ' ' : b[i];
    sprintf((char *)b + 148, "%06o", sum);
    return b;
}

/* Header k (0: anchor.xml) of an archive of our writer, changed by f, its
 * checksum recomputed. */
static unsigned char *patched(const unsigned char *a, size_t len, size_t *out, size_t k,
                              void (*f)(unsigned char *h))
{
    unsigned char *b = copy_of(a, len, out);
    size_t off = 0;
    for (size_t i = 0; i < k; i++)
        off += 512 + (octal_field(b + off + 124, 12) + 511) / 512 * 512;
    unsigned char *h = b + off;
    f(h);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    sprintf((char *)h + 148, "%06o", sum);
    return b;
}

static void dir_type(unsigned char *h) { h[156] = '5'; }
static void prefixed(unsigned char *h) { memcpy(h + 345, "run1", 4); }
static void bad_size(unsigned char *h) { h[130] = '9'; }
static void gnu_magic(unsigned char *h) { memcpy(h + 257, "ustar  ", 8); }
static void base256(unsigned char *h)
{
    unsigned size = octal_field(h + 124, 12);
    memset(h + 124, 0, 12);
    h[124] = 0x80;
    h[134] = (unsigned char)(size >> 8);
    h[135] = (unsigned char)size;
}
static unsigned char *dir_member(const unsigned char *a, size_t len, size_t *out)
{
    return patched(a, len, out, 1, dir_type);
}
static unsigned char *prefixed_anchor(const unsigned char *a, size_t len, size_t *out)
{
    return patched(a, len, out, 0, prefixed);
}
static unsigned char *bad_size_field(const unsigned char *a, size_t len, size_t *out)
{
    return patched(a, len, out, 2, bad_size);
}
static void dup_anchor(tarball *t)
{
    tmember *m = member(t, "anchor.xml");
    add_member(t, "anchor.xml", m->data, m->len);
}
static void short_sparse(tarball *t) { member(t, "0.index")->len = 18; }
R(dup_anchor)
R(short_sparse)

static const struct {
    break_fn make;
    const char *msg; /* after "bad.cubex: " */
} broken[] = {
    {bad_checksum, "header at offset 0: checksum "},
    {not_ustar, "header at offset 0: expected a ustar header"},
    {huge_size, "member anchor.xml: truncated (1073741823 bytes, "},
    {drop_1data_tar, "member 1.data missing (metric 1, \"time\")"},
    {drop_anchor_tar, "member anchor.xml missing"},
    {dup_index_tar, "member 0.index appears twice"},
    {extra_metric_tar, "4.index: anchor.xml has no metric 4"},
    {unsorted_tar, "0.index: cnode ids not ascending at entry 2"},
    {id_too_big_tar, "0.index: cnode id 8 at entry 3, but anchor.xml has 8 cnodes"},
    {short_data_tar, "0.data: 120 bytes of values, expected 128 (4 rows x 4 locations x 8)"},
    {bad_index_mark_tar, "1.index: expected the marker CUBEX.INDEX and a header"},
    {bad_endian_tar, "1.index: expected the endianness mark 1"},
    {bad_format_tar, "1.index: index format 2 (collprof reads 1, sparse, and 3, dense)"},
    {count_mismatch_tar, "1.index: 4 cnode ids announced, 12 bytes for them"},
    {dense_extra_tar, "2.index: 4 bytes after a dense index header"},
    {bad_data_mark_tar, "3.data: expected the marker CUBEX.DATA or ZCUBEX.DATA"},
    {trailing_garbage, "expected nothing but zero blocks after the end of the archive"},
    {dir_member, "member 0.index: type '5' is not a regular file"},
    {prefixed_anchor, "member anchor.xml missing"}, /* it is run1/anchor.xml */
    {bad_size_field, "member 0.data: expected a size"},
    {dup_anchor_tar, "member anchor.xml appears twice"},
    {short_sparse_tar, "0.index: expected the number of cnode ids"},
};
#define NBROKEN (sizeof broken / sizeof broken[0])

START_TEST(malformed_archive)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen;
    unsigned char *a = format(&c, &len);
    unsigned char *b = broken[_i].make(a, len, &blen);
    cp_error err;
    ck_assert_int_eq(parse(b, blen, "bad.cubex", &d, &err), -1);
    ck_assert_msg(strncmp(err.msg, "bad.cubex: ", 11) == 0 &&
                      strstr(err.msg + 11, broken[_i].msg) != NULL,
                  "case %d: '%s'", _i, err.msg);
    free(b);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* Members the parser does not know are ignored. */
START_TEST(unknown_member_ignored)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen;
    unsigned char *a = format(&c, &len);
    unsigned char *b = rebuilt(a, len, &blen, ignored_member);
    assert_reads_as(b, blen, "x.cubex", &c);
    free(b);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* Old GNU tar's magic and its base-256 sizes are read too. */
START_TEST(gnu_headers)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen, clen;
    unsigned char *a = format(&c, &len);
    unsigned char *b = patched(a, len, &blen, 0, gnu_magic);
    unsigned char *e = patched(b, blen, &clen, 3, base256); /* header 3 first: the walk */
    free(b);                                                 /* reads octal sizes */
    b = patched(e, clen, &blen, 0, base256);
    free(e);
    assert_reads_as(b, blen, "gnu.cubex", &c);
    free(b);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* anchor.xml: (from, to) replaced in the written text -> message. */
static const struct {
    const char *from, *to, *msg; /* msg after "bad.cubex: anchor.xml:" */
} bad_xml[] = {
    {"    <descr>it&apos;s &lt;here&gt;</descr>\n  </region>",
     "    <descr>it&apos;s &lt;here&gt;</descr>\n", "81: expected </region> (a <region> holds "},
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version=\"1.1\" encoding=\"UTF-8\"?>",
     "1: expected version=\"1.0\" encoding=\"UTF-8\" in the XML declaration"},
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "",
     "1: expected the XML declaration <?xml version=\"1.0\" encoding=\"UTF-8\"?> at the start"},
    {"<cube version=\"4.4\">", "<cube version=\"4.7\">",
     "3: anchor version 4.7 is newer than 4.4, which this collprof reads"},
    {"<cube version=\"4.4\">", "<cube version=\"3.0\">",
     "3: expected a Cube 4 anchor (<cube version=\"4.N\">), found version \"3.0\""},
    {"<name>solve&lt;T&gt;", "<name>solve&lt;T&gtx;", "74: expected one of &lt; &gt; &amp; "
                                                       "&quot; &apos; after '&'"},
    {"<cnode id=\"3\"", "<cnode id=\"4\"",
     "85: expected <cnode id=\"3\"> (ids depth-first in pre-order), found id 4"},
    {"calleeId=\"2\">\n  </cnode>\n  </cnode>", "calleeId=\"7\">\n  </cnode>\n  </cnode>",
     "85: expected a calleeId below 4 (the regions declared), found 7"},
    {"<dtype>DOUBLE</dtype>", "<dtype>FLOAT</dtype>",
     "23: expected <dtype>DOUBLE</dtype> or <dtype>UINT64</dtype> in metric 1"},
    {"type=\"EXCLUSIVE\">\n    <disp_name>Time",
     "type=\"INCLUSIVE\">\n    <disp_name>Time", "20: expected type=\"EXCLUSIVE\" in <metric>"},
    /* metric 1 nested in metric 0, which is then never closed */
    {"  </metric>\n  <metric id=\"1\"", "  <metric id=\"1\"",
     "46: expected <metric> or </metric>, found </metrics>"},
    {"<uniq_name>time</uniq_name>", "<uniq_name>visits</uniq_name>",
     "22: expected a unique <uniq_name>: \"visits\" is also metric 0"},
    {"</cube>\n", "</cube>\n<cube>", "154: expected the end of anchor.xml after </cube>, found "
                                       "<cube>"},
    {"<name>node-b</name>", "<name>node\x01</name>",
     "127: expected text, found control character 0x01"},
    {"<name>node-b</name>", "<name>node\xc0\xaf</name>", "127: expected UTF-8 text, found byte 0xC0"},
    {"<rank>2</rank>", "<rank>two</rank>", "117: expected an integer in <rank>, found \"two\""},
    {"<rank>2</rank>", "<rank>3</rank>", "117: expected <rank>2</rank> in <locationgroup Id=\"2\">"},
    {"<location Id=\"2\">", "<location Id=\"5\">", "119: expected <location Id=\"2\">, found Id 5"},
    {"<locationgroup Id=\"3\">\n        <name>MPI Rank 3</name>\n        <rank>3</rank>",
     "<locationgroup Id=\"2\">\n        <name>MPI Rank 3</name>\n        <rank>2</rank>",
     "143: expected <location Id=\"2\">, found Id 3"},
    {"<type>thread</type>", "<type>process</type>", "112: expected <type>thread</type> in "
                                                     "<location>"},
    {"<class>node</class>", "<class>rack</class>", "104: expected <class>node</class> in a "
                                                    "host's <systemtreenode>"},
    {"<topologies></topologies>", "<topologies><cart/></topologies>",
     "151: expected </topologies>, found <cart>"},
    {"  </metric>\n</metrics>", "  </metric>\n<metrics>", "47: expected <metric> or </metrics>, "
                                                          "found <metrics>"},
    {"<doc><mirrors></mirrors></doc>", "<!DOCTYPE cube>",
     "9: expected an element (DOCTYPE, CDATA and processing instructions are not read here)"},
    {"<doc><mirrors></mirrors></doc>", "<!-- unterminated", "9: expected --> to close the "
                                                            "comment"},
    {"<attr key=\"Creator\"", "<attr key=\"Creator\" key=\"x\"",
     "7: expected the attribute key only once in <attr>"},
    {"<attr key=\"Creator\"", "<attr kez=\"Creator\"",
     "7: expected the attributes key and value in <attr>"},
    {"<cnode id=\"0\" calleeId=\"0\">", "<cnode id=\"0\" calleeId=\"0\">text",
     "81: expected an element, found text \"text\""},
    {"\n  </cnode>\n</program>", "\n</program>", "96: expected <cnode> or </cnode>, found "
                                                 "</program>"},
    {"<locationgroup Id=\"1\">\n        <name>MPI Rank 1</name>\n        <rank>1</rank>\n"
     "        <type>process</type>\n        <location Id=\"1\">",
     "<locationgroup Id=\"0\">\n        <name>MPI Rank 1</name>\n        <rank>0</rank>\n"
     "        <type>process</type>\n        <location Id=\"0\">",
     "129: expected each location once, found location 0 again"},
    {"<metric id=\"1\"", "<metric id=\"2\"", "20: expected <metric id=\"1\"> (metrics numbered "
                                              "in order), found id 2"},
    {"<region id=\"2\"", "<region id=\"9\"", "65: expected <region id=\"2\"> (regions numbered "
                                              "in order), found id 9"},
    {"begin=\"7\"", "begin=\"7x\"", "73: expected an integer from -9223372036854775808 to "
                                    "9223372036854775807 for the attribute begin of <region>, "
                                    "found \"7x\""},
    {"<attr key=\"Creator\" value=\"collprof 0.1.0\"/>",
     "<attr key=\"Creator\" value=\"collprof 0.1.0\">",
     "8: expected </attr>, found <attr>"},
    {"<descr>Visits of the collective</descr>",
     "<descr>Visits of the collective</descr><descr/>", "18: expected one <descr> in <metric>"},
    {"<name>MPI_Bcast</name>",
     "<name>MPI_Bcast_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</name>",
     "66: expected <name> of at most 255 bytes, found 262"},
    {"        </location>\n      </locationgroup>\n    </systemtreenode>\n    <systemtreenode",
     "        </location>\n        <location Id=\"2\"/>\n      </locationgroup>\n"
     "    </systemtreenode>\n    <systemtreenode",
     "124: expected </locationgroup> (one location per process), found <location>"},
    {"<region id=\"2\" mod=\"\"", "<region id=2 mod=\"\"",
     "65: expected a quoted value for the attribute id"},
    {"<name>MPI_Bcast</name>", "<name>MPI_<b>Bcast</b></name>",
     "66: expected </name>, found <b>"},
    {"<mirrors></mirrors>", "<mirrors><url>x</url></mirrors>",
     "9: expected <murl> or </mirrors>, found <url>"},
};
#define NBADXML (sizeof bad_xml / sizeof bad_xml[0])

/* s with the first `from` replaced by `to`. */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    ck_assert_msg(at != NULL, "test text not found: %s", from);
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *r = malloc(n + 1);
    size_t pre = (size_t)(at - s);
    memcpy(r, s, pre);
    memcpy(r + pre, to, strlen(to));
    strcpy(r + pre + strlen(to), at + strlen(from));
    return r;
}

START_TEST(malformed_anchor)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen;
    unsigned char *a = format(&c, &len);
    char *x = anchor_of(&c);
    char *y = replace(x, bad_xml[_i].from, bad_xml[_i].to);
    unsigned char *b = with_anchor(a, len, y, &blen);
    cp_error err;
    ck_assert_int_eq(parse(b, blen, "bad.cubex", &d, &err), -1);
    const char *pre = "bad.cubex: anchor.xml:";
    ck_assert_msg(strncmp(err.msg, pre, strlen(pre)) == 0 &&
                      strstr(err.msg, bad_xml[_i].msg) == err.msg + strlen(pre),
                  "case %d: '%s'", _i, err.msg);
    free(b);
    free(y);
    free(x);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* A rank's own profile (its partial profile): its locations are world
 * ranks from first_rank on, written so (Cube shows "MPI Rank 5") and read
 * back (a location whose rank does not follow is refused: bad_xml). */
START_TEST(first_rank_round_trip)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    c.first_rank = 5;
    size_t len;
    unsigned char *a = format(&c, &len);
    char *x = anchor_of(&c);
    ck_assert_msg(strstr(x, "<name>MPI Rank 5</name>\n        <rank>5</rank>"), "%s", x);
    cp_error err;
    ck_assert_msg(parse(a, len, "own.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(d.first_rank, 5);
    ck_assert(cp_cube_equal(&c, &d));
    cp_cube_free(&d);
    free(x);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* Every proper prefix of an archive is refused, naming the input; never a
 * crash or an overread (parse hands over an exactly-sized copy). */
START_TEST(truncated_everywhere)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len;
    unsigned char *a = format(&c, &len);
    for (size_t off = 0; off < len; off++) {
        cp_error err;
        ck_assert_msg(parse(a, off, "cut.cubex", &d, &err) == -1, "offset %zu accepted", off);
        ck_assert_msg(strncmp(err.msg, "cut.cubex: ", 11) == 0, "offset %zu: '%s'", off,
                      err.msg);
    }
    cp_error err;
    ck_assert_int_eq(parse(a, len, "cut.cubex", &d, &err), 0);
    cp_cube_free(&d);
    free(a);
    cp_cube_free(&c);
}
END_TEST

START_TEST(missing_file)
{
    cp_cube d;
    cp_error err;
    ck_assert_int_eq(cp_cubex_read("no-such-tmpdir/profile.cubex", &d, &err), -1);
    ck_assert_str_eq(err.msg, "no-such-tmpdir/profile.cubex: cannot open: No such file or directory");
}
END_TEST

/* ----------------------------------------------- other writers' variants */

static void swap8(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        unsigned char t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

/* Members written on a big-endian machine: the index's mark says so. */
START_TEST(big_endian_members)
{
    cp_cube c;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen;
    unsigned char *a = format(&c, &len);
    tarball t = untar(a, len);
    for (size_t m = 0; m < 4; m++) {
        char in[16], dn[16];
        snprintf(in, sizeof in, "%zu.index", m);
        snprintf(dn, sizeof dn, "%zu.data", m);
        tmember *ix = member(&t, in), *dt = member(&t, dn);
        swap8(ix->data + 11, 4);
        swap8(ix->data + 15, 2);
        for (size_t off = 22; ix->data[17] == 1 && off + 4 <= ix->len; off += 4)
            swap8(ix->data + off, 4);
        if (ix->data[17] == 1)
            swap8(ix->data + 18, 4);
        for (size_t off = 10; off + 8 <= dt->len; off += 8)
            swap8(dt->data + off, 8);
    }
    unsigned char *b = tar(&t, &blen);
    tar_free(&t);
    assert_reads_as(b, blen, "be.cubex", &c);
    free(b);
    free(a);
    cp_cube_free(&c);
}
END_TEST

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The rows of an uncompressed N.data as ZCUBEX.DATA: "ZCUBEX.DATA", uint64
 * rows, per row (uncompressed offset, compressed offset, size), then each
 * row compress2'ed.  skip: a row left out (size 0, read as zeros). */
static unsigned char *zdata(const tmember *plain, size_t row, size_t skip, size_t *len)
{
    size_t nrows = (plain->len - 10) / row;
    size_t cap = 19 + 24 * nrows + nrows * compressBound(row);
    unsigned char *z = calloc(cap, 1);
    memcpy(z, "ZCUBEX.DATA", 11);
    put64(z + 11, nrows);
    size_t at = 0, area = 19 + 24 * nrows;
    for (size_t r = 0; r < nrows; r++) {
        if (r == skip)
            continue;
        uLongf zl = compressBound(row);
        ck_assert_int_eq(compress2(z + area + at, &zl, plain->data + 10 + r * row, row, 6), Z_OK);
        put64(z + 19 + 24 * r, r * row);
        put64(z + 19 + 24 * r + 8, at);
        put64(z + 19 + 24 * r + 16, zl);
        at += zl;
    }
    *len = area + at;
    return z;
}

START_TEST(zcubex_data)
{
    cp_cube c, d;
    int64_t ids[NHANDLES];
    rich_cube(&c, ids);
    size_t len, blen, zlen;
    unsigned char *a = format(&c, &len);
    cp_error err;

    /* every metric compressed, rows listed in reverse order of offset */
    tarball t = untar(a, len);
    for (size_t m = 0; m < 4; m++) {
        char dn[16];
        snprintf(dn, sizeof dn, "%zu.data", m);
        unsigned char *z = zdata(member(&t, dn), NLOC * 8, (size_t)-1, &zlen);
        set_member(&t, dn, z, zlen);
        free(z);
    }
    unsigned char *b = tar(&t, &blen);
    ck_assert_msg(parse(b, blen, "z.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert(cp_cube_equal(&c, &d));
    cp_cube_free(&d);
    free(b);

    /* a row left out is a row of zeros: visits of cnode 3 (row 1) */
    tar_free(&t);
    t = untar(a, len);
    unsigned char *z = zdata(member(&t, "0.data"), NLOC * 8, 1, &zlen);
    set_member(&t, "0.data", z, zlen);
    b = tar(&t, &blen);
    ck_assert_msg(parse(b, blen, "z.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert(!cp_cube_equal(&c, &d));
    memset((char *)c.values[M_VISITS] + 3 * NLOC * 8, 0, NLOC * 8);
    ck_assert(cp_cube_equal(&c, &d));
    cp_cube_free(&d);
    free(b);

    /* broken: a corrupt stream, an offset that is no row, a wrong count */
    static const char *const msgs[] = {"z.cubex: 0.data: truncated in its table of 4 rows",
                                       "z.cubex: 0.data: entry 2: corrupt zlib stream",
                                       "z.cubex: 0.data: entry 0: offset 8 is not the start of a "
                                       "row not seen before",
                                       "z.cubex: 0.data: expected the number of rows, 4",
                                       "z.cubex: 0.data: entry 3: compressed bytes outside the "
                                       "member"};
    for (int k = -1; k < 4; k++) {
        unsigned char *y = malloc(zlen);
        memcpy(y, z, zlen);
        size_t ylen = k < 0 ? 19 + 24 * 3 : zlen;
        if (k == 0)
            y[19 + 24 * 4 + le64(y + 19 + 24 * 2 + 8) + 3] ^= 0x55;
        else if (k == 1)
            put64(y + 19, 8);
        else if (k == 2)
            put64(y + 11, 5);
        else
            put64(y + 19 + 24 * 3 + 16, 1000);
        set_member(&t, "0.data", y, ylen);
        free(y);
        b = tar(&t, &blen);
        ck_assert_int_eq(parse(b, blen, "z.cubex", &d, &err), -1);
        ck_assert_str_eq(err.msg, msgs[k + 1]);
        free(b);
    }
    free(z);
    tar_free(&t);
    free(a);
    cp_cube_free(&c);
}
END_TEST

/* anchor.xml as other tools may write it: comments, CRLF, single quotes,
 * attributes in another order, empty elements, elements in another order,
 * optional ones left out, <murl>s, no <doc>, no <topologies>. */
static const char hand_anchor[] =
    "<?xml version='1.0' encoding='UTF-8' ?>\r\n"
    "<!-- written by hand -->\r\n"
    "<cube version=\"4.3\">\r\n"
    "  <attr value=\"v&amp;1\" key=\"k\"/>\r\n"
    "  <attr key=\"Cube Version\" value=\"4.8\"></attr>\r\n"
    "  <metrics title=\"Metrics\">\r\n"
    "    <metric type=\"EXCLUSIVE\" id=\"0\">\r\n"
    "      <dtype>UINT64</dtype><uniq_name>visits</uniq_name>\r\n"
    "      <disp_name>Vis<!-- inline -->its</disp_name><url/><val>VOID</val>\r\n"
    "    </metric>\r\n"
    "  </metrics>\r\n"
    "  <program>\r\n"
    "    <region end=\"-1\" id=\"0\"><name>main</name></region>\r\n"
    "    <region id=\"1\" mod=\"m.c\" begin=\"1\" end=\"2\">\r\n"
    "      <role>function</role><name>f</name><mangled_name>_f</mangled_name>\r\n"
    "      <paradigm>user</paradigm><descr/>\r\n"
    "    </region>\r\n"
    "    <cnode calleeId=\"0\" id=\"0\">\r\n"
    "      <cnode id=\"1\" calleeId=\"1\" line=\"7\"/>\r\n"
    "      <cnode id=\"2\" calleeId=\"1\" mod=\"x.c\"></cnode>\r\n"
    "    </cnode>\r\n"
    "  </program>\r\n"
    "  <system>\r\n"
    "    <systemtreenode id=\"0\"><class>machine</class><name>m</name>\r\n"
    "      <descr>the machine</descr>\r\n"
    "      <systemtreenode Id=\"1\"><name>h</name><class>node</class>\r\n"
    "        <locationgroup Id=\"1\"><type>process</type><name>P</name><rank> 1 </rank>\r\n"
    "          <location Id=\"1\"><rank>0</rank><type>thread</type><name>T</name></location>\r\n"
    "        </locationgroup>\r\n"
    "        <locationgroup Id=\"0\"><name>P</name><rank>0</rank><type>process</type>\r\n"
    "          <location Id=\"0\"><name>T</name><rank>0</rank><type>thread</type></location>\r\n"
    "        </locationgroup>\r\n"
    "      </systemtreenode>\r\n"
    "    </systemtreenode>\r\n"
    "  </system>\r\n"
    "</cube>\r\n"
    "<!-- the end -->\r\n";

START_TEST(hand_written_anchor)
{
    tarball t;
    memset(&t, 0, sizeof t);
    add_member(&t, "anchor.xml", hand_anchor, strlen(hand_anchor));
    unsigned char data[10 + 2 * 2 * 8] = "CUBEX.DATA";
    put64(data + 10, 5);  /* cnode 1, location 0 */
    put64(data + 26, 6);  /* cnode 2, location 0 */
    put64(data + 34, 7);  /* cnode 2, location 1 */
    add_member(&t, "0.data", data, sizeof data);
    unsigned char index[] = "CUBEX.INDEX\x01\0\0\0\0\0\x01\x02\0\0\0\x01\0\0\0\x02\0\0\0";
    add_member(&t, "0.index", index, sizeof index - 1);
    size_t len;
    unsigned char *a = tar(&t, &len);
    tar_free(&t);
    cp_cube d;
    cp_error err;
    ck_assert_msg(parse(a, len, "hand.cubex", &d, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(d.nattrs, 1); /* "Cube Version" is not kept */
    ck_assert_str_eq(d.attrs[0].key, "k");
    ck_assert_str_eq(d.attrs[0].value, "v&1");
    ck_assert_str_eq(d.metrics[0].disp_name, "Visits");
    ck_assert_int_eq(d.metrics[0].dtype, CP_CUBE_UINT64);
    ck_assert_str_eq(d.regions[0].mangled_name, "main"); /* defaults as in Cube */
    ck_assert_str_eq(d.regions[0].paradigm, "unknown");
    ck_assert_int_eq(d.regions[0].begin, -1);
    ck_assert_str_eq(d.regions[1].mod, "m.c");
    ck_assert_uint_eq(d.ncnodes, 3);
    ck_assert_int_eq(d.cnodes[1].parent, 0);
    ck_assert_int_eq(d.cnodes[1].line, 7);
    ck_assert_int_eq(d.cnodes[2].parent, 0);
    ck_assert_str_eq(d.cnodes[2].mod, "x.c");
    ck_assert_str_eq(d.machine, "m");
    ck_assert_uint_eq(d.nlocations, 2);
    ck_assert_uint_eq(cp_cube_get_u64(&d, 0, 1, 0), 5);
    ck_assert_uint_eq(cp_cube_get_u64(&d, 0, 2, 1), 7);
    ck_assert_uint_eq(cp_cube_get_u64(&d, 0, 0, 0), 0);
    /* written again by us and read back: the same model */
    size_t len2;
    unsigned char *b = format(&d, &len2);
    cp_cube e;
    ck_assert_msg(parse(b, len2, "again.cubex", &e, &err) == 0, "%s", err.msg);
    ck_assert(cp_cube_equal(&d, &e));
    free(b);
    cp_cube_free(&e);
    cp_cube_free(&d);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cubex");
    TCase *tc = tcase_create("cubex");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, builder_renumbers_depth_first);
    tcase_add_test(tc, round_trip_file);
    tcase_add_test(tc, rows_streamed);
    tcase_add_test(tc, metric_tree_round_trip);
    tcase_add_test(tc, round_trip_memory);
    tcase_add_test(tc, first_rank_round_trip);
    tcase_add_test(tc, round_trip_minimal_dense);
    tcase_add_test(tc, system_tree_of_many_ranks);
    tcase_add_test(tc, archive_layout);
    tcase_add_test(tc, index_and_data_bytes);
    tcase_add_test(tc, anchor_content);
    tcase_add_test(tc, unwritable_bytes);
    tcase_add_loop_test(tc, writer_refuses, 0, NREFUSED);
    tcase_add_test(tc, write_failure_leaves_nothing);
    tcase_add_loop_test(tc, malformed_archive, 0, NBROKEN);
    tcase_add_test(tc, unknown_member_ignored);
    tcase_add_test(tc, gnu_headers);
    tcase_add_loop_test(tc, malformed_anchor, 0, NBADXML);
    tcase_add_test(tc, truncated_everywhere);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, big_endian_members);
    tcase_add_test(tc, zcubex_data);
    tcase_add_test(tc, hand_written_anchor);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
