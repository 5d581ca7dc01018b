/*
 * Wait-state patterns: every family on hand-computed enter/exit times, the
 * cap at the waiting rank's own exit, roots, and the walk over several
 * ranks' series that keeps only the calls every rank timed (blocking).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "wait_states.h"

static double s0[8], s1[8];

static void call(int family, size_t n, const double *enter, const double *exit, int64_t root)
{
    cp_wait_states_call(family, n, enter, exit, root, s0, s1);
}

#define EQ(a, b) ck_assert_double_eq_tol((a), (b), 1e-12)

/* The later / earlier of two stamps, as fmax and fmin: a NaN loses to a
 * number on either side; -inf ("none") loses to any stamp. */
START_TEST(wmax_and_wmin_are_fmax_and_fmin)
{
    const double v[] = {-INFINITY, -1.5, 0.0, 2.25, INFINITY, NAN};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
            double hi = cp_wmax(v[i], v[j]), lo = cp_wmin(v[i], v[j]);
            double fhi = fmax(v[i], v[j]), flo = fmin(v[i], v[j]);
            ck_assert_msg(isnan(fhi) ? isnan(hi) : hi == fhi, "max(%g, %g) = %g", v[i], v[j], hi);
            ck_assert_msg(isnan(flo) ? isnan(lo) : lo == flo, "min(%g, %g) = %g", v[i], v[j], lo);
        }
    ck_assert(cp_wmax(NAN, 3.0) == 3.0 && cp_wmax(3.0, NAN) == 3.0);
    ck_assert(cp_wmin(NAN, 3.0) == 3.0 && cp_wmin(3.0, NAN) == 3.0);
}
END_TEST

START_TEST(families_by_name)
{
    ck_assert_int_eq(cp_wait_family("Alltoallv"), CP_FAMILY_NXN);
    ck_assert_int_eq(cp_wait_family("allreduce"), CP_FAMILY_NXN);
    ck_assert_int_eq(cp_wait_family("Reduce_scatter_block"), CP_FAMILY_NXN);
    ck_assert_int_eq(cp_wait_family("Barrier"), CP_FAMILY_BARRIER);
    ck_assert_int_eq(cp_wait_family("Scatterv"), CP_FAMILY_ONE_TO_N);
    ck_assert_int_eq(cp_wait_family("Gather"), CP_FAMILY_N_TO_ONE);
    ck_assert_int_eq(cp_wait_family("Exscan"), CP_FAMILY_SCAN);
    ck_assert_int_eq(cp_wait_family("Neighbor_alltoall"), CP_FAMILY_NONE);
    int p[2];
    cp_wait_family_patterns(CP_FAMILY_NXN, p);
    ck_assert_int_eq(p[0], CP_WAIT_NXN);
    ck_assert_int_eq(p[1], CP_NXN_COMPLETION);
    cp_wait_family_patterns(CP_FAMILY_N_TO_ONE, p);
    ck_assert_int_eq(p[0], CP_EARLY_REDUCE);
    ck_assert_int_eq(p[1], -1);
    ck_assert_str_eq(cp_wait_metrics[CP_LATE_BROADCAST].uniq_name, "mpi_latebroadcast");
}
END_TEST

START_TEST(n_by_n_waits_for_the_last_and_completes_after_the_first)
{
    const double enter[] = {0, 1, 3}, exit[] = {4, 5, 6};
    call(CP_FAMILY_NXN, 3, enter, exit, -1);
    EQ(s0[0], 3);
    EQ(s0[1], 2);
    EQ(s0[2], 0); /* until rank 2 entered at 3 */
    EQ(s1[0], 0);
    EQ(s1[1], 1);
    EQ(s1[2], 2); /* after rank 0 left at 4 */
    call(CP_FAMILY_BARRIER, 3, enter, exit, -1);
    EQ(s0[0], 3);
    EQ(s0[1], 2);
    EQ(s1[2], 2);
}
END_TEST

START_TEST(a_wait_ends_at_the_waiting_ranks_exit)
{
    const double enter[] = {0, 10}, exit[] = {5, 11};
    call(CP_FAMILY_NXN, 2, enter, exit, -1);
    EQ(s0[0], 5); /* left at 5 although rank 1 came at 10 (non-synchronising) */
    EQ(s0[1], 0);
}
END_TEST

START_TEST(late_broadcast_blames_the_root)
{
    const double enter[] = {0, 2, 5}, exit[] = {9, 9, 9};
    call(CP_FAMILY_ONE_TO_N, 3, enter, exit, 1);
    EQ(s0[0], 2); /* entered before root 1 */
    EQ(s0[1], 0); /* the root itself */
    EQ(s0[2], 0); /* entered after the root */
    EQ(s1[0], 0);
}
END_TEST

START_TEST(early_reduce_is_the_roots_only)
{
    const double enter[] = {1, 3, 2}, exit[] = {9, 9, 9};
    call(CP_FAMILY_N_TO_ONE, 3, enter, exit, 0);
    EQ(s0[0], 2); /* root waited for rank 1, the last sender */
    EQ(s0[1], 0);
    EQ(s0[2], 0);
    const double late_root[] = {5, 3, 2};
    call(CP_FAMILY_N_TO_ONE, 3, late_root, exit, 0);
    EQ(s0[0], 0);
}
END_TEST

START_TEST(early_scan_waits_for_lower_ranks)
{
    const double enter[] = {5, 1, 3, 0}, exit[] = {10, 10, 10, 10};
    call(CP_FAMILY_SCAN, 4, enter, exit, -1);
    EQ(s0[0], 0);
    EQ(s0[1], 4);
    EQ(s0[2], 2);
    EQ(s0[3], 5);
}
END_TEST

START_TEST(no_pattern_cases)
{
    const double enter[] = {0, 7}, exit[] = {9, 9};
    call(CP_FAMILY_NONE, 2, enter, exit, -1);
    EQ(s0[0], 0);
    EQ(s0[1], 0);
    call(CP_FAMILY_NXN, 1, enter, exit, -1);
    EQ(s0[0], 0);
    call(CP_FAMILY_ONE_TO_N, 2, enter, exit, 2); /* root out of range */
    EQ(s0[0], 0);
    EQ(s0[1], 0);
    call(CP_FAMILY_N_TO_ONE, 2, enter, exit, -1);
    EQ(s0[0], 0);
    EQ(s0[1], 0);
}
END_TEST

/* ------------------------------------------------ series of several ranks */

typedef struct got {
    int n;
    int pattern[16];
    size_t member[16];
    uint64_t call[16];
    double sev[16];
} got;

static void sink(void *ctx, int pattern, size_t member, uint64_t call, double enter, double exit,
                 double sev)
{
    got *g = ctx;
    (void)enter, (void)exit;
    ck_assert_int_lt(g->n, 16);
    g->pattern[g->n] = pattern;
    g->member[g->n] = member;
    g->call[g->n] = call;
    g->sev[g->n++] = sev;
}

/* A wait and a completion that overlap (two nodes' clocks a little
 * apart: the first exit stamped before the last entry) are counted once:
 * the two together never exceed the call. */
START_TEST(wait_and_completion_never_exceed_the_call)
{
    const double enter[2] = {0, 1.0}, exit[2] = {2.0, 1.2}; /* rank 1 "left" before 2.0 */
    call(CP_FAMILY_NXN, 2, enter, exit, -1);
    EQ(s0[0], 1.0);          /* rank 0 waits from 0 until rank 1 enters */
    EQ(s1[0], 0.8);          /* completion 2.0 - 1.2 = 0.8, within the 2 s call less 1 s */
    const double e2[2] = {0, 1.9}, x2[2] = {2.0, 1.1}; /* skewed: 1.9 + 0.9 > 2 */
    call(CP_FAMILY_NXN, 2, e2, x2, -1);
    EQ(s0[0], 1.9);
    EQ(s1[0], 0.1);          /* capped: 2.0 - 0 - 1.9 */
    ck_assert(s0[0] + s1[0] <= x2[0] - e2[0] + 1e-12);
    EQ(cp_wait_completion(0, 2.0, 1.1, 2.5), 0); /* no room left at all */
}
END_TEST

/* The whole-run estimate of one stratum: the sample's waiting per second
 * in the call times the exact time; exact when every call was analysed;
 * nothing without sampled time; never above the time when bounded. */
START_TEST(factor_of_a_stratum)
{
    EQ(cp_wait_factor(2.0, 1.0, 10.0, false, true), 5.0);   /* 1/2 of 10 s: 5 s */
    EQ(cp_wait_factor(2.0, 1.0, 10.0, true, true), 1.0);    /* every call: exact */
    EQ(cp_wait_factor(0.0, 1.0, 10.0, false, true), 0.0);   /* no sampled time */
    EQ(cp_wait_factor(2.0, 1.0, 0.0, false, true), 0.0);    /* no time at all */
    /* Rounding made the sample's waiting exceed its time: capped at t. */
    EQ(2.5 * cp_wait_factor(2.0, 2.5, 10.0, false, true), 10.0);
    /* Barrier mode: late arrival lies outside the time, no cap. */
    EQ(cp_wait_factor(2.0, 2.5, 10.0, false, false), 5.0);
}
END_TEST

START_TEST(series_keeps_the_calls_every_rank_timed_blocking)
{
    /* Rank 0 timed calls 0 1 2 4, rank 1 calls 1 2 3 4; call 2 was
     * non-blocking on rank 1.  Rank 1 is late by 1 s in every call. */
    const uint64_t c0[] = {0, 1, 2, 4}, c1[] = {1, 2, 3, 4};
    const double e0[] = {0, 10, 20, 40}, x0[] = {2, 12, 22, 42};
    const double e1[] = {11, 21, 31, 41}, x1[] = {12, 22, 32, 42};
    const int32_t root[] = {-1, -1, -1, -1};
    const uint8_t f1[] = {0, 1, 0, 0};
    cp_wait_member m[2] = {{c0, e0, x0, root, NULL, 4}, {c1, e1, x1, root, f1, 4}};
    got g = {0};
    ck_assert_int_eq(cp_wait_states_series("Allgather", 2, m, sink, &g), 0);
    /* Calls 1 and 4: rank 0 waits 1 s (wait_nxn); nobody completes late. */
    ck_assert_int_eq(g.n, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(g.pattern[i], CP_WAIT_NXN);
        ck_assert_uint_eq(g.member[i], 0);
        EQ(g.sev[i], 1);
    }
    ck_assert_uint_eq(g.call[0], 1);
    ck_assert_uint_eq(g.call[1], 4);
    /* A collective without a pattern finds nothing. */
    got none = {0};
    ck_assert_int_eq(cp_wait_states_series("Neighbor_alltoallv", 2, m, sink, &none), 0);
    ck_assert_int_eq(none.n, 0);
}
END_TEST

START_TEST(series_uses_the_root_of_the_call)
{
    const uint64_t c[] = {0, 1};
    const double e0[] = {0, 10}, x0[] = {5, 15}, e1[] = {3, 10}, x1[] = {5, 15};
    const int32_t r[] = {1, 0};
    cp_wait_member m[2] = {{c, e0, x0, r, NULL, 2}, {c, e1, x1, r, NULL, 2}};
    got g = {0};
    ck_assert_int_eq(cp_wait_states_series("Bcast", 2, m, sink, &g), 0);
    /* Call 0, root 1 came at 3: rank 0 waited 3 s.  Call 1: together. */
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.pattern[0], CP_LATE_BROADCAST);
    ck_assert_uint_eq(g.member[0], 0);
    EQ(g.sev[0], 3);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("wait_states");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, wmax_and_wmin_are_fmax_and_fmin);
    tcase_add_test(tc, families_by_name);
    tcase_add_test(tc, n_by_n_waits_for_the_last_and_completes_after_the_first);
    tcase_add_test(tc, a_wait_ends_at_the_waiting_ranks_exit);
    tcase_add_test(tc, late_broadcast_blames_the_root);
    tcase_add_test(tc, early_reduce_is_the_roots_only);
    tcase_add_test(tc, early_scan_waits_for_lower_ranks);
    tcase_add_test(tc, no_pattern_cases);
    tcase_add_test(tc, wait_and_completion_never_exceed_the_call);
    tcase_add_test(tc, factor_of_a_stratum);
    tcase_add_test(tc, series_keeps_the_calls_every_rank_timed_blocking);
    tcase_add_test(tc, series_uses_the_root_of_the_call);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
