/*
 * The timing collector (collectors/timing.c): which calls the sample keeps
 * (by call index alone, thinned at the cap), untimed slots, the pool's
 * bound and its blocks coming back, and the exact aggregates.
 */
#include <check.h>
#include <stdlib.h>

#include "sequence.h"
#include "timing.h"

/* Feed calls [from, to) of a series, timing all but `skip` (-1: none):
 * enter = 10 * idx ticks, duration idx % 7 + 1. */
static void feed(cp_timing *t, uint64_t from, uint64_t to, int64_t skip, uint32_t sig)
{
    for (uint64_t i = from; i < to; i++) {
        cp_sample_rec *r = cp_timing_slot(t, i);
        if ((int64_t)i == skip)
            continue;
        uint64_t enter = 10 * i;
        cp_timing_add(t, r, sig, enter, enter, enter + i % 7 + 1, 0);
    }
}

static const cp_sample_rec *kept(const cp_timing *t, uint64_t j)
{
    const cp_tblock *b = t->head;
    for (uint64_t k = j / CP_TBLOCK_RECS; k > 0; k--)
        b = b->next;
    return &b->r[j % CP_TBLOCK_RECS];
}

START_TEST(thinned_by_index)
{
    ck_assert_int_eq(cp_timing_start(1024, 8), 0);
    cp_timing t = {0};
    feed(&t, 0, 100, 32, 0);
    /* the stride doubled at calls 8, 16, 32 and 64 */
    ck_assert_uint_eq(t.stride, 16);
    ck_assert_uint_eq(cp_timing_kept(&t), 7);
    for (uint64_t j = 0; j < 7; j++) {
        const cp_sample_rec *r = kept(&t, j);
        if (j == 2) { /* call 32 was not timed on this rank */
            ck_assert(r->enter == CP_SAMPLE_UNTIMED);
            continue;
        }
        ck_assert_uint_eq(r->enter, 10 * j * 16);
        ck_assert(r->dur == (float)((j * 16) % 7 + 1));
    }
    /* exact over the 99 timed calls */
    uint64_t time = 0, mn = 99, mx = 0;
    for (uint64_t i = 0; i < 100; i++)
        if (i != 32) {
            time += i % 7 + 1;
            mn = i % 7 + 1 < mn ? i % 7 + 1 : mn;
            mx = i % 7 + 1 > mx ? i % 7 + 1 : mx;
        }
    ck_assert_uint_eq(t.agg[0].n, 99);
    ck_assert_uint_eq(t.agg[0].time, time);
    ck_assert_uint_eq(t.agg[0].min, mn);
    ck_assert_uint_eq(t.agg[0].max, mx);
    /* one block holds the 7 kept calls: the others went back */
    ck_assert_uint_eq(cp_timing_pool_used(), CP_TBLOCK_RECS);
    cp_timing_free(&t);
    ck_assert_uint_eq(cp_timing_pool_used(), 0);
}
END_TEST

/* Two series with different histories keep the same call indices once
 * they have made the same number of calls. */
START_TEST(same_calls_whatever_was_timed)
{
    ck_assert_int_eq(cp_timing_start(4096, 64), 0);
    cp_timing a = {0}, b = {0};
    feed(&a, 0, 1000, -1, 0);
    feed(&b, 0, 1000, 500, 3);
    ck_assert_uint_eq(a.stride, b.stride);
    ck_assert_uint_eq(cp_timing_kept(&a), cp_timing_kept(&b));
    ck_assert_uint_eq(a.stride, 16); /* 1000 calls, at most 64 kept */
    ck_assert_uint_eq(b.agg[3].n, 999);
    ck_assert_uint_eq(b.nagg, 4);
    cp_timing_free(&a);
    cp_timing_free(&b);
}
END_TEST

/* A pool of one block: the second series finds none and keeps nothing,
 * its calls still count in its aggregates. */
START_TEST(pool_runs_dry)
{
    ck_assert_int_eq(cp_timing_start(CP_TBLOCK_RECS, 8), 0);
    ck_assert_uint_eq(cp_timing_pool_size(), CP_TBLOCK_RECS);
    cp_timing a = {0}, b = {0};
    feed(&a, 0, 20, -1, 0);
    feed(&b, 0, 20, -1, 0);
    ck_assert_uint_eq(cp_timing_kept(&a), 5); /* 0, 4, 8, 12, 16 */
    ck_assert(!a.starved);
    ck_assert(b.starved);
    ck_assert_uint_eq(cp_timing_kept(&b), 0);
    ck_assert_uint_eq(b.agg[0].n, 20);
    cp_timing_free(&a);
    /* the block is back: a new series gets it */
    cp_timing c = {0};
    feed(&c, 0, 3, -1, 0);
    ck_assert_uint_eq(cp_timing_kept(&c), 3);
    cp_timing_free(&b);
    cp_timing_free(&c);
}
END_TEST

/* The histogram: a quarter of an octave per bucket, every timed call,
 * shrunk to its used buckets when the communicator is freed. */
START_TEST(histogram_of_every_call)
{
    ck_assert_uint_eq(cp_timing_hist_index(0), 0);
    ck_assert_uint_eq(cp_timing_hist_index(16), 0);
    ck_assert_uint_eq(cp_timing_hist_index(19), 0);
    ck_assert_uint_eq(cp_timing_hist_index(20), 1);
    ck_assert_uint_eq(cp_timing_hist_index(32), 4);
    ck_assert_uint_eq(cp_timing_hist_index(UINT64_MAX), CP_TIMING_HIST_N - 1);
    for (uint64_t d = 16; d < (UINT64_C(1) << 44); d = d * 3 / 2 + 1) {
        double lo, hi;
        cp_timing_hist_bounds(cp_timing_hist_index(d), &lo, &hi);
        ck_assert_msg(lo <= (double)d && (double)d < hi && hi <= 1.25 * lo, "%llu in [%g, %g)",
                      (unsigned long long)d, lo, hi);
    }
    ck_assert_int_eq(cp_timing_start(1024, 8), 0);
    cp_timing t = {0};
    /* 100 calls: durations i % 7 + 1 ticks, all in bucket 0 ... */
    feed(&t, 0, 100, -1, 0);
    ck_assert_ptr_nonnull(t.hist);
    ck_assert_uint_eq(t.hist[0], 100);
    /* ... and 3 of 1000 ticks (octave 9: bucket 4 * (9 - 4) + 3 = 23, [896, 1024)) */
    for (int i = 0; i < 3; i++)
        cp_timing_add(&t, NULL, 0, 0, 0, 1000, 0);
    ck_assert_uint_eq(t.hist[23], 3);
    cp_timing_compact(&t);
    ck_assert_uint_eq(t.hist_lo, 0);
    ck_assert_uint_eq(t.hist_n, 24);
    ck_assert_uint_eq(t.hist[23], 3);
    cp_timing_add(&t, NULL, 0, 0, 0, 1000, 0); /* still counted after shrinking */
    ck_assert_uint_eq(t.hist[23], 4);
    cp_timing_free(&t);
}
END_TEST

/* Slots of calls never offered (starts of persistent requests) stay
 * untimed; a call without a signature is timed in no aggregate. */
START_TEST(gaps_and_no_signature)
{
    ck_assert_int_eq(cp_timing_start(1024, 1024), 0);
    cp_timing t = {0};
    feed(&t, 0, 2, -1, CP_SEQ_NONE);
    feed(&t, 5, 6, -1, 1);
    ck_assert_uint_eq(cp_timing_kept(&t), 6);
    for (uint64_t j = 2; j < 5; j++)
        ck_assert(kept(&t, j)->enter == CP_SAMPLE_UNTIMED);
    ck_assert_uint_eq(kept(&t, 5)->enter, 50);
    ck_assert_uint_eq(t.agg[1].n, 1);
    ck_assert_uint_eq(t.agg[0].n, 0);
    cp_timing_compact(&t);
    ck_assert_uint_eq(t.nagg, 2);
    cp_timing_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("timing");
    tcase_add_test(tc, thinned_by_index);
    tcase_add_test(tc, same_calls_whatever_was_timed);
    tcase_add_test(tc, pool_runs_dry);
    tcase_add_test(tc, gaps_and_no_signature);
    tcase_add_test(tc, histogram_of_every_call);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
