/*
 * The job's sites, clocks and locations up the binomial tree
 * (merge/job_sites.c over merge/tree_reduce.c), for n ranks run
 * one by one from n - 1 down to 0 over mailboxes, as the scale simulator
 * runs them: rank 0 ends with the union of the keys, the sums and maxima,
 * and every rank's location in rank order, for any n; a rank that failed
 * makes its ancestors' results say so, never a wrong result; a malformed
 * message is refused.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sites.h"
#include "mailbox.h"

#define NCOLLS 3

static void location_of(int64_t r, cp_location *loc)
{
    memset(loc, 0, sizeof *loc);
    snprintf(loc->hostname, sizeof loc->hostname, "host-%" PRId64, r / 4);
    loc->core = (int32_t)r;
    loc->pid = (int32_t)(100 + r);
    loc->node = (uint32_t)(r / 4);
}

/* Run n ranks; rank `failing` starts failed (-1: none).  Rank 0's value
 * into *root; returns rank 0's ok. */
static bool reduce(int64_t n, int64_t failing, int64_t corrupt_from, cp_job_sites *root)
{
    tmailbox b = {.corrupt_from = corrupt_from};
    cp_tree_io io = tmailbox_io(&b);
    bool ok0 = false;
    for (int64_t r = n - 1; r >= 0; r--) {
        cp_job_sites j;
        cp_location loc;
        location_of(r, &loc);
        int64_t clock[4] = {r % 2, 0, r, r == 5 ? -5 : INT64_MIN};
        ck_assert_int_eq(cp_job_sites_init(&j, NCOLLS, r, &loc, clock), 0);
        int64_t keys[2] = {r % 3, 100 + r % 5};
        cp_job_sites_add_keys(&j, keys, 2);
        cp_coll_agg a = {.calls = 1, .time = 1.0, .min = (double)r, .max = (double)r, .any = 1};
        cp_coll_agg_add(&j.colls[r % NCOLLS], &a);
        j.naggregated = 2;
        b.self = r;
        bool ok = cp_tree_reduce_up(r, n, &io, &cp_job_sites_op, &j, r != failing);
        if (r == 0) {
            *root = j;
            ok0 = ok;
        } else {
            cp_job_sites_free(&j);
        }
    }
    ck_assert_uint_eq(tmailbox_drain(&b), 0);
    return ok0;
}

START_TEST(any_number_of_ranks)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 8, 13, 64, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int64_t n = sizes[s];
        cp_job_sites j;
        ck_assert_msg(reduce(n, -1, -1, &j), "n=%lld", (long long)n);
        /* the keys: {0, 1, 2} and {100..104}, as many as the ranks had */
        size_t want = (size_t)(n < 3 ? n : 3) + (size_t)(n < 5 ? n : 5);
        ck_assert_uint_eq(j.n, want);
        for (size_t i = 1; i < j.n; i++)
            ck_assert_int_lt(j.keys[i - 1], j.keys[i]);
        uint64_t calls = 0;
        for (int k = 0; k < NCOLLS; k++)
            calls += j.colls[k].calls;
        ck_assert_uint_eq(calls, (uint64_t)n);
        ck_assert_double_eq(j.colls[0].min, 0.0);
        ck_assert_uint_eq(j.naggregated, 2 * (uint64_t)n);
        ck_assert_int_eq(j.clock[0], n / 2);
        ck_assert_int_eq(j.clock[2], n - 1);
        ck_assert_int_eq(j.clock[3], n > 5 ? -5 : INT64_MIN);
        cp_location *loc = calloc((size_t)n, sizeof *loc);
        ck_assert(cp_job_sites_locations(&j, n, loc));
        for (int64_t r = 0; r < n; r++) {
            cp_location w;
            location_of(r, &w);
            ck_assert_str_eq(loc[r].hostname, w.hostname);
            ck_assert_int_eq(loc[r].core, w.core);
            ck_assert_int_eq(loc[r].pid, w.pid);
            ck_assert_uint_eq(loc[r].node, w.node);
        }
        ck_assert(!cp_job_sites_locations(&j, n + 1, loc)); /* not every rank's */
        /* As rank 0 keeps them: a node per rank, a name per node. */
        cp_job_hosts h;
        ck_assert(cp_job_sites_hosts(&j, n, &h));
        ck_assert_int_eq(h.nranks, n);
        ck_assert_uint_eq(h.nnodes, (uint32_t)((n + 3) / 4));
        for (int64_t r = 0; r < n; r++) {
            ck_assert_uint_eq(h.node[r], loc[r].node);
            ck_assert_str_eq(h.name[h.node[r]], loc[r].hostname);
        }
        cp_job_hosts_free(&h);
        ck_assert(!cp_job_sites_hosts(&j, n + 1, &h));
        cp_job_hosts_free(&h);
        free(loc);
        cp_job_sites_free(&j);
    }
}
END_TEST

START_TEST(a_failed_rank_is_said)
{
    cp_job_sites j;
    /* rank 6 of 13 failed: its subtree (6, 7) is missing, rank 0 says so */
    ck_assert(!reduce(13, 6, -1, &j));
    cp_location loc[13];
    ck_assert(!cp_job_sites_locations(&j, 13, loc));
    cp_job_hosts h;
    ck_assert(!cp_job_sites_hosts(&j, 13, &h));
    cp_job_hosts_free(&h);
    cp_job_sites_free(&j);
    /* a message cut short is refused, not half-read */
    ck_assert(!reduce(13, -1, 8, &j));
    ck_assert(!cp_job_sites_locations(&j, 13, loc));
    cp_job_sites_free(&j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("job_sites");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, any_number_of_ranks);
    tcase_add_test(tc, a_failed_rank_is_said);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
