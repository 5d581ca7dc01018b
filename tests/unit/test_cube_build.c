/*
 * Finalize's Cube stage without MPI (writers/cubex_build.c, merge/cube_rows.c), for a few
 * ranks in one process: rank 0's metadata from the job's sites, call paths
 * and hosts (a prefix tree of functions, the MPI nodes below their call
 * sites, the hosts and every location's), every rank's column, and the
 * rows through a gatherer a batch at a time — so small a batch that every
 * row is a batch of its own — written and read back equal; a gather that
 * fails makes the write fail, not a file with wrong values.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "cube_rows.h"
#include "cubex_build.h"
#include "cubex.h"
#include "mpi_names.h"
#include "tmpdir.h"

#define P 5

/* Rank r: Alltoallv from main > a (node 1), Bcast from main > b (node 2);
 * rank 3 also Alltoallv from main (node 0). */
static size_t sites_of(int64_t r, cp_site *s)
{
    static const struct { uint32_t coll, path; } at[3] = {
        {CP_COLL_ALLTOALLV, 1}, {CP_COLL_BCAST, 2}, {CP_COLL_ALLTOALLV, 0}};
    size_t n = r == 3 ? 3 : 2;
    for (size_t i = 0; i < n; i++) {
        s[i] = (cp_site){.rank = r, .coll = at[i].coll, .form = CP_FORM_BLOCKING,
                         .path = at[i].path};
        s[i].s.visits = 10 + (uint64_t)r;
        s[i].s.bytes_sent = 100 * (uint64_t)(r + 1);
        s[i].s.time = 0.5 + 0.125 * (double)r;
        s[i].s.wait[CP_WAIT_NXN] = 0.0625 * (double)r;
    }
    return n;
}

typedef struct job {
    cp_callsite_node tree[3];
    cp_job_hosts hosts;
    int64_t keys[3];
    cp_cube c;
    int64_t metric[CP_CM_SLOTS], root;
    cp_cube_sites sc;
    cp_cube_column col[P];
    bool fail_gather;
} job;

static void make(job *j)
{
    memset(j, 0, sizeof *j);
    static const char *fn[3] = {"main", "a", "b"};
    for (int i = 0; i < 3; i++) {
        j->tree[i].parent = i ? 0 : -1;
        j->tree[i].address = 0x100 * (uint64_t)(i + 1);
        snprintf(j->tree[i].function, sizeof j->tree[i].function, "%s", fn[i]);
        snprintf(j->tree[i].module, sizeof j->tree[i].module, "/app");
    }
    static uint32_t node[P] = {0, 0, 1, 1, 1};
    static char h0[] = "alpha", h1[] = "beta";
    static char *names[2] = {h0, h1};
    j->hosts = (cp_job_hosts){.node = node, .nranks = P, .name = names, .nnodes = 2};
    cp_site s[3];
    size_t n = sites_of(3, s);
    for (size_t i = 0; i < n; i++)
        j->keys[i] = cp_site_key(s[i].coll, s[i].form, s[i].path);
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && j->keys[k - 1] > j->keys[k]; k--) {
            int64_t t = j->keys[k];
            j->keys[k] = j->keys[k - 1];
            j->keys[k - 1] = t;
        }
    const char *const attrs[][2] = {{"job", "test"}};
    cp_cube_job cj = {.keys = j->keys, .nkeys = n, .call_tree = j->tree, .ncall_tree = 3,
                      .hosts = &j->hosts, .timing = true, .program = "app", .machine = "m",
                      .attrs = attrs, .nattrs = 1};
    ck_assert_int_eq(cp_cube_build_meta(&cj, &j->c, j->metric, &j->sc, &j->root), 0);
    /* the program, main, a, b, and the MPI nodes: Alltoallv under main, a; Bcast under b */
    ck_assert_uint_eq(j->c.ncnodes, 7);
    ck_assert_uint_eq(j->c.nhosts, 2);
    for (int64_t r = 0; r < P; r++) {
        size_t cells = j->c.nmetrics * j->c.ncnodes;
        j->col[r] = (cp_cube_column){calloc(cells, 8), j->c.nmetrics, j->c.ncnodes,
                                     j->c.metrics};
        size_t m = sites_of(r, s);
        cp_cube_build_column(&j->col[r], j->metric, &j->sc, j->root, s, m, 10.0);
    }
}

static int gather(void *ctx, const size_t *cells, const uint64_t *mine, size_t n, uint64_t *all)
{
    job *j = ctx;
    for (int64_t r = 0; r < P; r++)
        for (size_t i = 0; i < n; i++)
            all[(size_t)r * n + i] = j->col[r].raw[cells[i]];
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(mine[i], j->col[0].raw[cells[i]]);
    return j->fail_gather ? -1 : 0;
}

static void unmake(job *j)
{
    for (int r = 0; r < P; r++)
        free(j->col[r].raw);
    cp_cube_sites_free(&j->sc);
    cp_cube_free(&j->c);
}

START_TEST(rows_a_batch_at_a_time_read_back_equal)
{
    job j;
    make(&j);
    size_t cells = j.c.nmetrics * j.c.ncnodes;
    uint8_t *any = calloc(cells, 1);
    for (int r = 0; r < P; r++)
        for (size_t i = 0; i < cells; i++)
            any[i] |= j.col[r].raw[i] != 0;
    cp_cube_rows x;
    /* 8 bytes x P: one row a batch */
    ck_assert_int_eq(cp_cube_rows_start(&x, j.col[0].raw, j.col[0].nmetrics, j.col[0].ncnodes, any,
                                        P, 8 * P, true, gather, &j),
                     0);
    cp_cube_rows_count(&x);
    ck_assert_uint_eq(x.per_batch, 1);
    ck_assert_uint_gt(x.rows, 10);
    char path[512];
    snprintf(path, sizeof path, "%s/profile.cubex", tmpdir);
    cp_error err;
    ck_assert_int_eq(cp_cubex_write_rows(path, &j.c, any, cp_cube_rows_next, &x, &err), 0);
    ck_assert_uint_eq(x.done, x.rows);
    cp_cube back;
    ck_assert_int_eq(cp_cubex_read(path, &back, &err), 0);
    ck_assert_uint_eq(back.ncnodes, j.c.ncnodes);
    for (size_t m = 0; m < j.c.nmetrics; m++)
        for (size_t cn = 0; cn < j.c.ncnodes; cn++)
            for (int r = 0; r < P; r++) {
                uint64_t got;
                memcpy(&got, (const char *)back.values[m] + (cn * P + (size_t)r) * 8, 8);
                ck_assert_uint_eq(got, j.col[r].raw[m * j.c.ncnodes + cn]);
            }
    /* visits at Alltoallv under a: each rank's own */
    cp_cube_free(&back);
    cp_cube_rows_free(&x);

    /* A gather that fails: the write fails. */
    j.fail_gather = true;
    ck_assert_int_eq(cp_cube_rows_start(&x, j.col[0].raw, j.col[0].nmetrics, j.col[0].ncnodes, any,
                                        P, 8 * P, true, gather, &j),
                     0);
    cp_cube_rows_count(&x);
    ck_assert_int_ne(cp_cubex_write_rows(path, &j.c, any, cp_cube_rows_next, &x, &err), 0);
    cp_cube_rows_free(&x);
    free(any);
    unmake(&j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cube_build");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
    tcase_add_test(tc, rows_a_batch_at_a_time_read_back_equal);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
