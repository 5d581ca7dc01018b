/*
 * Output directories for the `collprof report` tests (report_fixture.h).
 */
#include "report_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "ranges.h"
#include "reader_fixture.h"

#define ROW(...) ((const int64_t[]){__VA_ARGS__})

const int64_t rfx_dest[4][4] = {{1, 2, -1}, {2, -1}, {3, 0, 1, -1}, {0, -1}};

int64_t rfx_mixed_count(int64_t i, int64_t j)
{
    return i == j ? 0 : i * 8 + j;
}

int64_t rfx_large_count(int64_t i, int64_t j, int variant)
{
    int64_t d = i > j ? i - j : j - i;
    if (variant == 1)
        return j == i + 1 ? 4096 : 0; /* a shift */
    if (d == 0)
        return 0;
    if (d <= 3)
        return 1000 * (4 - d); /* heavy nearest neighbours */
    if (i / 64 == j / 64)
        return 10 + (i + j) % 7; /* groups of 64 */
    if (j % 128 == 0)
        return 100; /* everyone to every 128th rank */
    return 0;
}

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static size_t ndest(int64_t i)
{
    size_t n = 0;
    while (n < 4 && rfx_dest[i][n] >= 0)
        n++;
    return n;
}

/* --------------------------------------------------------------- manifest */

static cp_comm_info *add_comm(cp_manifest *m, int64_t id, const char *members, const char *remote)
{
    m->comms = realloc(m->comms, (m->ncomms + 1) * sizeof *m->comms);
    if (!m->comms)
        abort();
    cp_comm_info *c = &m->comms[m->ncomms++];
    memset(c, 0, sizeof *c);
    const char *why;
    c->id = id;
    if (cp_ranges_parse_ordered(members, strlen(members), &c->members, &why) != 0 ||
        (remote && cp_ranges_parse_ordered(remote, strlen(remote), &c->remote_members, &why) != 0))
        abort();
    c->size = cp_ranges_count(&c->members);
    c->lead = cp_ranges_nth(&c->members, 0);
    return c;
}

static void add_file(cp_manifest *m, const char *name)
{
    m->files = realloc(m->files, (m->nfiles + 1) * sizeof *m->files);
    if (!m->files || !(m->files[m->nfiles++] = strdup(name)))
        abort();
}

static void start_manifest(cp_manifest *m, const char *job, int64_t world)
{
    memset(m, 0, sizeof *m);
    m->format_version = CP_MANIFEST_FORMAT_VERSION;
    m->counts_format_version = CP_COUNTS_FORMAT_VERSION;
    strcpy(m->collprof_version, "0.1.0");
    strcpy(m->mpi_version, "MPICH Version: 4.0.2\nMPICH Release date: unknown");
    snprintf(m->job, sizeof m->job, "%s", job);
    strcpy(m->start_time, "2026-11-22T04:13:35");
    m->world_size = world;
    add_file(m, "manifest.json");
}

static int finish_manifest(const char *dir, cp_manifest *m, cp_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    int rc = cp_manifest_write_file(path, false, m, err);
    cp_manifest_free(m);
    return rc;
}

/* ------------------------------------------------------------------ mixed */

/* comm 1's topology: sources in the order the edges were listed */
static void ring_lists(cp_comm_info *c)
{
    c->neighbors = xmalloc(4 * sizeof *c->neighbors);
    for (int64_t i = 0; i < 4; i++) {
        c->neighbors[i].destinations = xmalloc(4 * sizeof(int64_t));
        c->neighbors[i].sources = xmalloc(4 * sizeof(int64_t));
    }
    for (int64_t i = 0; i < 4; i++)
        for (size_t k = 0; k < ndest(i); k++) {
            int64_t j = rfx_dest[i][k];
            c->neighbors[i].destinations[c->neighbors[i].ndestinations++] = j;
            c->neighbors[j].sources[c->neighbors[j].nsources++] = i;
        }
}

static void mixed_comm0(cp_counts_file *s, cp_counts_file *r)
{
    for (int d = 0; d < 2; d++) {
        cp_block *b = fx_block(d ? r : s, 0, 8, "0-7", "Alltoallv", -1, 8, 8, "0-1", "0-1", 8);
        for (int64_t i = 0; i < 8; i++) {
            int64_t row[8];
            for (int64_t j = 0; j < 8; j++)
                row[j] = d ? rfx_mixed_count(j, i) : rfx_mixed_count(i, j);
            char ranks[8];
            snprintf(ranks, sizeof ranks, "%d", (int)i);
            fx_row(b, ranks, row);
        }
        b = fx_block(d ? r : s, 0, 8, "0-7", "Barrier", -1, 8, 1, "0-4", "0-4", 0);
        fx_row(b, "0-7", NULL);
        b = fx_block(d ? r : s, 0, 8, "0-7", "Bcast", 2, 8, 4, "0", "0", 1);
        fx_row(b, d ? "0-1,3-7" : "2", ROW(10));
        b = fx_block(d ? r : s, 0, 8, "0-7", "Allreduce", -1, 8, 4, "0-2", "0-2", 1);
        fx_row(b, "0-7", ROW(5));
        b = fx_block(d ? r : s, 0, 8, "0-7", "Scan", -1, 8, 4, "0-1", "0-1", 1);
        fx_row(b, "0-7", ROW(3));
        b = fx_block(d ? r : s, 0, 8, "0-7", "Exscan", -1, 8, 4, "0", "0", 1);
        fx_row(b, "0-7", ROW(2));
    }
}

/* comm 1: each edge's count, the receive rows through the same lists */
static void mixed_comm1(cp_counts_file *s, cp_counts_file *r)
{
    cp_block *sb = fx_block(s, 1, 4, "0-3", "Neighbor_alltoallv", -1, 4, 4, "0", "0", 3);
    cp_block *rb = fx_block(r, 1, 4, "0-3", "Neighbor_alltoallv", -1, 4, 4, "0", "0", 3);
    int64_t recv[4][4];
    size_t nrecv[4] = {0};
    for (int64_t i = 0; i < 4; i++) {
        int64_t row[3] = {0};
        for (size_t k = 0; k < ndest(i); k++) {
            row[k] = (i + 1) * 10 + (int64_t)k;
            int64_t j = rfx_dest[i][k];
            recv[j][nrecv[j]++] = row[k];
        }
        char ranks[8];
        snprintf(ranks, sizeof ranks, "%d", (int)i);
        fx_row(sb, ranks, row);
        sb->rows[sb->nrows - 1].len = ndest(i);
    }
    for (int64_t j = 0; j < 4; j++) {
        char ranks[8];
        snprintf(ranks, sizeof ranks, "%d", (int)j);
        int64_t row[3] = {0};
        memcpy(row, recv[j], nrecv[j] * sizeof *row);
        fx_row(rb, ranks, row);
        rb->rows[rb->nrows - 1].len = nrecv[j];
    }
}

static int mixed_files(const char *dir, cp_error *err)
{
    cp_counts_file s = {0}, r = {0};
    mixed_comm0(&s, &r);
    mixed_comm1(&s, &r);
    cp_block *b = fx_block(&r, 3, 2, "0-1", "Gather", 0, 2, 4, "0", "0", 1);
    fx_row(b, "0", ROW(6));
    if (fx_write_counts(dir, "send-counters.rank0.txt", &s, false, err) != 0 ||
        fx_write_counts(dir, "recv-counters.rank0.txt", &r, false, err) != 0)
        return -1;

    cp_counts_file g = {0};
    b = fx_block(&g, 4, 2, "2-3", "Gather", 0, 2, 4, "0", "0", 1);
    fx_row(b, "0-1", ROW(6));
    if (fx_write_counts(dir, "send-counters.rank2.txt", &g, false, err) != 0)
        return -1;

    cp_counts_file a = {0};
    b = fx_block(&a, 2, 4, "4-7", "Neighbor_alltoallv", -1, 4, 4, "0", "0", 3);
    static const int64_t rows[4][3] = {{1, 2}, {3}, {4, 5, 6}, {0}};
    static const size_t lens[4] = {2, 1, 3, 0};
    for (int i = 0; i < 4; i++) {
        char ranks[8];
        snprintf(ranks, sizeof ranks, "%d", i);
        fx_row(b, ranks, rows[i]);
        b->rows[b->nrows - 1].len = lens[i];
    }
    return fx_write_counts(dir, "send-counters.rank4.txt", &a, false, err);
}

int rfx_write_mixed(const char *dir, cp_error *err)
{
    cp_manifest m;
    start_manifest(&m, RFX_JOB, 8);
    add_comm(&m, 0, "0-7", NULL);
    ring_lists(add_comm(&m, 1, "0-3", NULL));
    add_comm(&m, 2, "4-7", NULL);
    add_comm(&m, 3, "0-1", "2-3");
    add_comm(&m, 4, "2-3", "0-1");
    m.config = xmalloc(sizeof *m.config);
    m.config[0].key = strdup("COLLPROF_OUTPUT_DIR");
    m.config[0].value = strdup("a<b>&c");
    m.nconfig = 1;
    add_file(&m, "send-counters.rank0.txt");
    add_file(&m, "recv-counters.rank0.txt");
    add_file(&m, "send-counters.rank2.txt");
    add_file(&m, "send-counters.rank4.txt");
    if (finish_manifest(dir, &m, err) != 0)
        return -1;
    return mixed_files(dir, err);
}

/* ------------------------------------------------------------------ large */

static void large_alltoallv(cp_counts_file *f, int d, int64_t n, int variant)
{
    char members[32];
    snprintf(members, sizeof members, "0-%d", (int)(n - 1));
    cp_block *b = fx_block(f, 0, n, members, "Alltoallv", -1, n, 8, "0-3",
                           variant ? "3" : "0-2", (size_t)n);
    int64_t *row = xmalloc((size_t)n * sizeof *row);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            row[j] = d ? rfx_large_count(j, i, variant) : rfx_large_count(i, j, variant);
        char ranks[24];
        snprintf(ranks, sizeof ranks, "%d", (int)i);
        fx_row(b, ranks, row);
    }
    free(row);
}

int rfx_write_large(const char *dir, int64_t n, cp_error *err)
{
    char members[32];
    snprintf(members, sizeof members, "0-%d", (int)(n - 1));
    cp_manifest m;
    start_manifest(&m, "large", n);
    add_comm(&m, 0, members, NULL);
    add_file(&m, "send-counters.rank0.txt");
    add_file(&m, "recv-counters.rank0.txt");
    if (finish_manifest(dir, &m, err) != 0)
        return -1;
    cp_counts_file f[2] = {{0}, {0}};
    int64_t *row = xmalloc((size_t)n * sizeof *row);
    for (int d = 0; d < 2; d++) {
        large_alltoallv(&f[d], d, n, 0);
        large_alltoallv(&f[d], d, n, 1);
        cp_block *b = fx_block(&f[d], 0, n, members, "Alltoall", -1, n, 8, "0-9", "0-9", 1);
        fx_row(b, members, ROW(64));
        b = fx_block(&f[d], 0, n, members, "Gatherv", 0, n, 8, "0", "0", d ? (size_t)n : 1);
        for (int64_t i = 0; i < n; i++)
            row[i] = i % 10 + 1;
        if (d) {
            fx_row(b, "0", row);
        } else {
            for (int64_t i = 0; i < n; i++) {
                char ranks[24];
                snprintf(ranks, sizeof ranks, "%d", (int)i);
                fx_row(b, ranks, &row[i]);
            }
        }
        b = fx_block(&f[d], 0, n, members, "Barrier", -1, n, 1, "0-1", "0-1", 0);
        fx_row(b, members, NULL);
    }
    free(row);
    if (fx_write_counts(dir, "send-counters.rank0.txt", &f[0], false, err) != 0) {
        cp_counts_file_free(&f[1]);
        return -1;
    }
    return fx_write_counts(dir, "recv-counters.rank0.txt", &f[1], false, err);
}
