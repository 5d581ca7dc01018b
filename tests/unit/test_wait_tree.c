/*
 * Wait states by reduction (merge/wait_tree.h) give every member
 * exactly the waiting times of the post-mortem walk over everyone's
 * enter/exit times (cp_wait_states_series), for every family, job sizes
 * that are and are not powers of two, members that timed different calls,
 * non-blocking calls and rooted collectives; the lists survive packing;
 * and the mergeable statistics (merge/wait_stats.h) are exact up to
 * CP_WSTAT_EXACT instances and within CP_WSTAT_ACCURACY beyond.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/profile.h"
#include "stat.h"
#include "wait_states.h"
#include "wait_stats_pack.h"
#include "sample_cols.h"
#include "wait_tree.h"

#define NCALLS 40

static const char *family_coll[] = {"Alltoallv", "Barrier", "Bcast", "Reduce", "Scan"};

/* severities[member][call][pattern slot] */
static double expect[64][NCALLS][2], got[64][NCALLS][2];
static int pat_slot[CP_NWAIT_PATTERNS];

typedef struct member_data {
    cp_timing_rec r[NCALLS];
    uint64_t call[NCALLS];
    double enter[NCALLS], exit[NCALLS];
    int32_t root[NCALLS];
    uint8_t flags[NCALLS];
    size_t n;
} member_data;

static void on_expected(void *ctx, int p, size_t m, uint64_t call, double e, double x,
                        double sev)
{
    (void)ctx, (void)e, (void)x;
    expect[m][call / 3][pat_slot[p]] = sev;
}

struct own_ctx {
    size_t m;
    const member_data *d;
};

static void on_own(void *vctx, int p, size_t i, double sev)
{
    struct own_ctx *x = vctx;
    if (p == CP_WAIT_ANALYSED)
        return;
    got[x->m][x->d->r[i].call / 3][pat_slot[p]] = sev;
}

static void one_case(const char *coll, size_t n, unsigned seed)
{
    srand(seed);
    int family = cp_wait_family(coll), pats[2];
    cp_wait_family_patterns(family, pats);
    for (int q = 0; q < 2; q++)
        if (pats[q] >= 0)
            pat_slot[pats[q]] = q;
    member_data *d = calloc(n, sizeof *d);
    cp_wlist *own = calloc(n, sizeof *own), *down = calloc(n, sizeof *down);
    ck_assert(d && own && down);
    int32_t roots[NCALLS];
    uint8_t flags[NCALLS];
    for (int c = 0; c < NCALLS; c++) {
        roots[c] = (int32_t)(rand() % (int)n);
        flags[c] = rand() % 10 == 0 ? CP_CPT_NONBLOCKING : 0;
    }
    for (size_t m = 0; m < n; m++)
        for (int c = 0; c < NCALLS; c++) {
            if (rand() % 12 == 0)
                continue; /* this member did not time it */
            double e = c * 10.0 + (rand() % 1000) / 100.0;
            double x = e + (rand() % 500) / 100.0;
            member_data *md = &d[m];
            size_t i = md->n++;
            md->call[i] = (uint64_t)c * 3;
            md->enter[i] = e;
            md->exit[i] = x;
            md->root[i] = roots[c];
            md->flags[i] = flags[c];
            md->r[i] = (cp_timing_rec){.call = md->call[i], .enter = e, .start = e, .exit = x,
                                       .root = roots[c], .flags = flags[c]};
        }
    memset(expect, 0, sizeof expect);
    memset(got, 0, sizeof got);
    cp_wait_member *wm = calloc(n, sizeof *wm);
    for (size_t m = 0; m < n; m++)
        wm[m] = (cp_wait_member){d[m].call, d[m].enter, d[m].exit, d[m].root, d[m].flags,
                                 d[m].n};
    ck_assert_int_eq(cp_wait_states_series(coll, n, wm, on_expected, NULL), 0);
    cp_sample *cols = calloc(n, sizeof *cols);
    for (size_t m = 0; m < n; m++) {
        cols[m] = cols_of(d[m].r, d[m].n);
        ck_assert_int_eq(cp_wlist_leaf(&own[m], &cols[m].cols, d[m].n, (int64_t)m), 0);
    }
    ck_assert_int_eq(cp_wait_tree_local(n, own, down), 0);
    for (size_t m = 0; m < n; m++) {
        struct own_ctx x = {m, &d[m]};
        cp_wait_own(family, &down[m], &cols[m].cols, d[m].n, (int64_t)m, on_own, &x);
    }
    for (size_t m = 0; m < n; m++)
        cp_sample_free(&cols[m]);
    free(cols);
    for (size_t m = 0; m < n; m++)
        for (int c = 0; c < NCALLS; c++)
            for (int q = 0; q < 2; q++)
                ck_assert_msg(expect[m][c][q] == got[m][c][q],
                              "%s n=%zu member %zu call %d pattern %d: %.17g expected, %.17g",
                              coll, n, m, c, q, expect[m][c][q], got[m][c][q]);
    for (size_t m = 0; m < n; m++) {
        cp_wlist_free(&own[m]);
        cp_wlist_free(&down[m]);
    }
    free(wm);
    free(own);
    free(down);
    free(d);
}

START_TEST(same_waits_as_the_walk)
{
    static const size_t sizes[] = {2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 64};
    for (size_t f = 0; f < sizeof family_coll / sizeof *family_coll; f++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (unsigned seed = 1; seed <= 3; seed++)
                one_case(family_coll[f], sizes[i], seed * 101 + (unsigned)i);
}
END_TEST

/* Somebody waits at all (the test above is not comparing zeros). */
START_TEST(waits_are_found)
{
    one_case("Alltoallv", 9, 7);
    double sum = 0;
    for (int m = 0; m < 9; m++)
        for (int c = 0; c < NCALLS; c++)
            sum += got[m][c][0] + got[m][c][1];
    ck_assert(sum > 1);
    one_case("Scan", 9, 7);
    sum = 0;
    for (int m = 0; m < 9; m++)
        for (int c = 0; c < NCALLS; c++)
            sum += got[m][c][0];
    ck_assert(sum > 1);
}
END_TEST

START_TEST(lists_pack_and_refuse_garbage)
{
    cp_timing_rec r[3] = {{.call = 1, .enter = 1, .exit = 2, .root = 0},
                          {.call = 4, .enter = 3, .exit = 5, .root = 1},
                          {.call = 9, .enter = 6, .exit = 7, .root = 0}};
    cp_wlist l, back;
    cp_sample cols = cols_of(r, 3);
    ck_assert_int_eq(cp_wlist_leaf(&l, &cols.cols, 3, 0), 0);
    cp_sample_free(&cols);
    l.v[1].before = 2.5;
    for (int down = 0; down < 2; down++) {
        cp_wbuf b = {0};
        cp_wlist_pack(&b, &l, down);
        cp_rbuf rb = {.p = (const char *)b.p, .len = b.len};
        ck_assert_int_eq(cp_wlist_unpack(&rb, &back, down), 0);
        ck_assert_uint_eq(back.n, 3);
        ck_assert(back.v[1].root_enter == -INFINITY && back.v[1].other_enter == 3);
        ck_assert(back.v[0].root_enter == 1);
        ck_assert(back.v[1].before == (down ? 2.5 : -INFINITY));
        cp_wlist_free(&back);
        /* Cut short: refused. */
        cp_rbuf cut = {.p = (const char *)b.p, .len = b.len - 1};
        ck_assert_int_eq(cp_wlist_unpack(&cut, &back, down), -1);
        /* Out of order: refused. */
        memcpy(b.p + 8 + (down ? 56 : 48), &l.v[0].call, 8);
        memcpy(b.p + 8, &l.v[1].call, 8);
        cp_rbuf bad = {.p = (const char *)b.p, .len = b.len};
        ck_assert_int_eq(cp_wlist_unpack(&bad, &back, down), -1);
        cp_wbuf_free(&b);
    }
    cp_wlist_free(&l);
}
END_TEST

/* ------------------------------------------------------------ statistics */

static double draw(void)
{
    /* Severities spread over five decades, as waits are. */
    return 1e-6 * pow(10, 5.0 * rand() / RAND_MAX);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n values in `parts` sketches merged in a tree, and packed on the way. */
static void merged(size_t n, size_t parts, double *v, cp_stat_pattern *p)
{
    cp_wstat *w = calloc(parts, sizeof *w);
    for (size_t i = 0; i < n; i++) {
        v[i] = draw();
        cp_wstat_add(&w[i % parts], v[i]);
    }
    for (size_t step = 1; step < parts; step *= 2)
        for (size_t i = 0; i + step < parts; i += 2 * step) {
            cp_wbuf b = {0};
            cp_wstat_pack(&b, &w[i + step]);
            cp_rbuf rb = {.p = (const char *)b.p, .len = b.len};
            cp_wstat x;
            ck_assert_int_eq(cp_wstat_unpack(&rb, &x), 0);
            ck_assert_uint_eq(rb.off, rb.len);
            cp_wstat_merge(&w[i], &x);
            cp_wstat_free(&x);
            cp_wbuf_free(&b);
        }
    memset(p, 0, sizeof *p);
    ck_assert_int_eq(cp_wstat_summarize(&w[0], p), 0);
    ck_assert(!w[0].binned || w[0].nbins < 3300);
    for (size_t i = 0; i < parts; i++)
        cp_wstat_free(&w[i]);
    free(w);
}

START_TEST(stats_exact_while_few)
{
    srand(5);
    size_t n = CP_WSTAT_EXACT;
    double *v = malloc(n * sizeof *v);
    cp_stat_pattern got_p, want;
    merged(n, 7, v, &got_p);
    memset(&want, 0, sizeof want);
    cp_stat_summarize(&want, v, n);
    ck_assert_uint_eq(got_p.count, n);
    ck_assert(got_p.median == want.median && got_p.q25 == want.q25 && got_p.q75 == want.q75);
    ck_assert(got_p.minimum == want.minimum && got_p.maximum == want.maximum);
    ck_assert_double_eq_tol(got_p.sum, want.sum, 1e-12 * want.sum);
    ck_assert_double_eq_tol(got_p.variance, want.variance, 1e-9 * want.variance);
    free(v);
}
END_TEST

START_TEST(stats_bounded_when_many)
{
    srand(6);
    size_t n = 200000;
    double *v = malloc(n * sizeof *v);
    cp_stat_pattern got_p, want;
    merged(n, 33, v, &got_p);
    memset(&want, 0, sizeof want);
    cp_stat_summarize(&want, v, n); /* sorts v */
    ck_assert_uint_eq(got_p.count, n);
    ck_assert(got_p.minimum == v[0] && got_p.maximum == v[n - 1]);
    ck_assert_double_eq_tol(got_p.sum, want.sum, 1e-9 * want.sum);
    ck_assert_double_eq_tol(got_p.mean, want.mean, 1e-9 * want.mean);
    ck_assert_double_eq_tol(got_p.variance, want.variance, 1e-6 * want.variance);
    double a = CP_WSTAT_ACCURACY * 1.0001;
    ck_assert_double_eq_tol(got_p.median, want.median, a * want.median);
    ck_assert_double_eq_tol(got_p.q25, want.q25, a * want.q25);
    ck_assert_double_eq_tol(got_p.q75, want.q75, a * want.q75);
    ck_assert(got_p.median != want.median); /* binned, not exact: the test sees bins */
    qsort(v, n, sizeof *v, cmp_d);
    free(v);
}
END_TEST

/* Zeros (no wait) among the values when they go into bins: their own bin,
 * below every other. */
START_TEST(stats_zeros_binned)
{
    srand(7);
    size_t n = CP_WSTAT_EXACT + 1000;
    double *v = malloc(n * sizeof *v);
    cp_wstat w = {0};
    for (size_t i = 0; i < n; i++) {
        v[i] = i % 5 < 3 ? 0 : draw();
        cp_wstat_add(&w, v[i]);
    }
    ck_assert(w.binned);
    cp_stat_pattern got_p, want;
    memset(&got_p, 0, sizeof got_p);
    memset(&want, 0, sizeof want);
    ck_assert_int_eq(cp_wstat_summarize(&w, &got_p), 0);
    cp_stat_summarize(&want, v, n);
    ck_assert_uint_eq(got_p.count, n);
    ck_assert(got_p.q25 == 0 && got_p.median == 0 && want.median == 0);
    ck_assert(got_p.minimum == 0 && got_p.maximum == want.maximum);
    double a = CP_WSTAT_ACCURACY * 1.0001;
    ck_assert_double_eq_tol(got_p.q75, want.q75, a * want.q75);
    cp_wstat_free(&w);
    free(v);
}
END_TEST

START_TEST(stats_refuse_garbage)
{
    cp_wstat w = {0};
    for (int i = 1; i <= 5000; i++)
        cp_wstat_add(&w, i * 1e-3);
    ck_assert(w.binned);
    cp_wbuf b = {0};
    cp_wstat_pack(&b, &w);
    cp_wstat x;
    cp_rbuf cut = {.p = (const char *)b.p, .len = b.len - 4};
    ck_assert_int_eq(cp_wstat_unpack(&cut, &x), -1);
    /* A count that the bins do not add up to. */
    uint64_t wrong = w.n + 1;
    memcpy(b.p, &wrong, 8);
    cp_rbuf rb = {.p = (const char *)b.p, .len = b.len};
    ck_assert_int_eq(cp_wstat_unpack(&rb, &x), -1);
    cp_wbuf_free(&b);
    cp_wstat_free(&w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wait_tree");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_waits_as_the_walk);
    tcase_add_test(tc, waits_are_found);
    tcase_add_test(tc, lists_pack_and_refuse_garbage);
    tcase_add_test(tc, stats_exact_while_few);
    tcase_add_test(tc, stats_bounded_when_many);
    tcase_add_test(tc, stats_zeros_binned);
    tcase_add_test(tc, stats_refuse_garbage);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
