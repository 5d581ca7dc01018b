/*
 * The call sites of profile.cubex's MPI cnodes (writers/cubex_callsites.h):
 * written as "collprof call sites" attributes, they come back the same
 * through the archive, long lists in several attributes each short enough
 * for Cube; a file without them says so; malformed values are refused with
 * the attribute named.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "cubex_callsites.h"

/* A cube of one host, 2 locations, one metric, one user and one MPI region:
 * the root and n MPI cnodes below it. */
static void small_cube(cp_cube *c, size_t n)
{
    ck_assert_int_eq(cp_cube_init(c, 2), 0);
    cp_cube_metric m;
    memset(&m, 0, sizeof m);
    strcpy(m.uniq_name, "visits");
    strcpy(m.disp_name, "Visits");
    strcpy(m.uom, "occ");
    m.dtype = CP_CUBE_UINT64;
    ck_assert_int_eq(cp_cube_add_metric(c, &m), 0);
    cp_cube_region r;
    memset(&r, 0, sizeof r);
    r.begin = r.end = -1;
    strcpy(r.name, "main");
    strcpy(r.paradigm, "user");
    ck_assert_int_eq(cp_cube_add_region(c, &r), 0);
    strcpy(r.name, "MPI_Alltoallv");
    strcpy(r.paradigm, "mpi");
    ck_assert_int_eq(cp_cube_add_region(c, &r), 1);
    ck_assert_int_eq(cp_cube_add_host(c, "node"), 0);
    for (size_t l = 0; l < 2; l++)
        ck_assert_int_eq(cp_cube_set_location_host(c, l, 0), 0);
    ck_assert_int_eq(cp_cube_tree_add(c, -1, 0, -1, NULL), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_ge(cp_cube_tree_add(c, 0, 1, -1, NULL), 1);
    ck_assert_int_eq(cp_cube_tree_finish(c, NULL), 0);
}

/* Write c to memory and parse it back into *back. */
static void through_archive(const cp_cube *c, cp_cube *back)
{
    void *data;
    size_t len;
    cp_error err;
    ck_assert_msg(cp_cubex_format(c, &data, &len, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_cubex_parse_mem(data, len, "profile.cubex", back, &err) == 0, "%s", err.msg);
    free(data);
}

START_TEST(round_trip)
{
    cp_cube c, back;
    small_cube(&c, 5);
    int64_t cn[] = {1, 3, 4}, site[] = {7, 0, 7};
    ck_assert_int_eq(cp_cube_put_callsites(&c, cn, site, 3), 0);
    ck_assert_str_eq(c.attrs[c.nattrs - 1].key, "collprof call sites");
    ck_assert_str_eq(c.attrs[c.nattrs - 1].value, "1=7 3=0 4=7");
    through_archive(&c, &back);
    int64_t got[6];
    cp_error err;
    ck_assert_int_eq(cp_cube_get_callsites(&back, got, &err), 1);
    int64_t want[6] = {-1, 7, -1, 0, 7, -1};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(got[i], want[i]);
    cp_cube_free(&c);
    cp_cube_free(&back);
}
END_TEST

/* 30,000 call sites: several attributes, each within Cube's limit, read
 * back in order. */
START_TEST(long_lists_continue)
{
    enum { N = 30000 };
    cp_cube c, back;
    small_cube(&c, N);
    int64_t *cn = malloc(N * sizeof *cn), *site = malloc(N * sizeof *site);
    for (int64_t i = 0; i < N; i++) {
        cn[i] = i + 1;
        site[i] = 1000000 + (i * 7919) % N;
    }
    ck_assert_int_eq(cp_cube_put_callsites(&c, cn, site, N), 0);
    size_t chunks = 0;
    for (size_t i = 0; i < c.nattrs; i++)
        if (!strncmp(c.attrs[i].key, CP_CUBE_CALLSITES_KEY, strlen(CP_CUBE_CALLSITES_KEY))) {
            chunks++;
            ck_assert_uint_le(strlen(c.attrs[i].value), CP_CUBE_CALLSITES_CHUNK);
            ck_assert(c.attrs[i].value[0] != ' ');
        }
    ck_assert_uint_ge(chunks, 6); /* ~14 bytes a pair, 60,000 a chunk */
    char last[64];
    snprintf(last, sizeof last, "collprof call sites %zu", chunks);
    ck_assert_str_eq(c.attrs[c.nattrs - 1].key, last);
    through_archive(&c, &back);
    int64_t *got = malloc((N + 1) * sizeof *got);
    cp_error err;
    ck_assert_int_eq(cp_cube_get_callsites(&back, got, &err), 1);
    ck_assert_int_eq(got[0], -1);
    for (int64_t i = 0; i < N; i++)
        ck_assert_int_eq(got[i + 1], site[i]);
    free(cn);
    free(site);
    free(got);
    cp_cube_free(&c);
    cp_cube_free(&back);
}
END_TEST

START_TEST(absent)
{
    cp_cube c;
    small_cube(&c, 2);
    int64_t got[3] = {5, 5, 5};
    cp_error err;
    ck_assert_int_eq(cp_cube_get_callsites(&c, got, &err), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(got[i], -1);
    cp_cube_free(&c);
}
END_TEST

static void refused_value(const char *value, const char *says)
{
    cp_cube c;
    small_cube(&c, 3);
    ck_assert_int_eq(cp_cube_add_attr(&c, CP_CUBE_CALLSITES_KEY, value), 0);
    int64_t got[4];
    cp_error err;
    ck_assert_int_eq(cp_cube_get_callsites(&c, got, &err), -1);
    ck_assert_msg(strstr(err.msg, "attribute \"collprof call sites\"") && strstr(err.msg, says),
                  "value \"%s\": %s", value, err.msg);
    cp_cube_free(&c);
}

START_TEST(refused)
{
    refused_value("1=2 x=3", "expected cnode=call-site pairs");
    refused_value("1=", "expected a call-tree id");
    refused_value("1=2,2=3", "expected a call-tree id");
    refused_value("1=-2", "expected a call-tree id");
    refused_value("4=0", "cnode 4 is not in the call tree");
    refused_value("2=0 1=0", "cnode 1 is not after the one before");
    refused_value("2=0 2=1", "cnode 2 is not after the one before");
    cp_cube c;
    small_cube(&c, 3);
    int64_t cn[] = {2, 1}, site[] = {0, 0};
    errno = 0;
    ck_assert_int_eq(cp_cube_put_callsites(&c, cn, site, 2), -1);
    ck_assert_int_eq(errno, EINVAL);
    int64_t neg[] = {-1};
    ck_assert_int_eq(cp_cube_put_callsites(&c, cn, neg, 1), -1);
    cp_cube_free(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cubex_callsites");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, long_lists_continue);
    tcase_add_test(tc, absent);
    tcase_add_test(tc, refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
