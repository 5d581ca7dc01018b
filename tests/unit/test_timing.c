/*
 * The timing collector (collectors/timing.c): which calls the sample keeps
 * (one per block by a hash of the block, nested across levels, thinned at
 * the series' share), untimed slots, the pool shared among the series and
 * its blocks coming back, and the exact aggregates.
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
    uint64_t skip = cp_timing_chosen(2, 4); /* a kept call not timed on this rank */
    feed(&t, 0, 100, (int64_t)skip, 0);
    /* 100 calls, at most 8 kept: blocks of 16 */
    ck_assert_uint_eq(t.stride, 16);
    ck_assert_uint_eq(t.level, 4);
    uint64_t n = cp_timing_kept(&t);
    ck_assert(n == 6 || n == 7); /* block 6 (calls 96-111): kept if its call came */
    ck_assert_uint_eq(n, 6 + (cp_timing_chosen(6, 4) < 100));
    for (uint64_t j = 0; j < n; j++) {
        const cp_sample_rec *r = kept(&t, j);
        uint64_t call = cp_timing_chosen(j, 4);
        ck_assert(call / 16 == j); /* one call of its own block */
        if (call == skip) {
            ck_assert(r->enter == CP_SAMPLE_UNTIMED);
            continue;
        }
        ck_assert_uint_eq(r->enter, 10 * call);
        ck_assert(r->dur == (float)(call % 7 + 1));
    }
    /* exact over the 99 timed calls */
    uint64_t time = 0, mn = 99, mx = 0;
    for (uint64_t i = 0; i < 100; i++)
        if (i != skip) {
            time += i % 7 + 1;
            mn = i % 7 + 1 < mn ? i % 7 + 1 : mn;
            mx = i % 7 + 1 > mx ? i % 7 + 1 : mx;
        }
    ck_assert_uint_eq(t.agg[0].n, 99);
    ck_assert_uint_eq(t.agg[0].time, time);
    ck_assert_uint_eq(t.agg[0].min, mn);
    ck_assert_uint_eq(t.agg[0].max, mx);
    /* one block holds the kept calls: the others went back */
    ck_assert_uint_eq(cp_timing_pool_used(), CP_TBLOCK_RECS);
    cp_timing_free(&t);
    ck_assert_uint_eq(cp_timing_pool_used(), 0);
}
END_TEST

/* The sample of a level is a subset of the sample of every lower level
 * (members whose series thinned to different levels share the coarser
 * one's calls), and it does not line up with a period: the calls kept of a
 * pattern that repeats every 16 calls are not all the same call of it. */
START_TEST(nested_and_not_periodic)
{
    for (unsigned k = 0; k < 20; k++)
        for (uint64_t b = 0; b < 1000; b++) {
            uint64_t c = cp_timing_chosen(b, k + 1);
            ck_assert(c == cp_timing_chosen(2 * b, k) || c == cp_timing_chosen(2 * b + 1, k));
            ck_assert(c >> (k + 1) == b);
        }
    unsigned seen = 0;
    for (uint64_t b = 0; b < 64; b++)
        seen |= 1u << (cp_timing_chosen(b, 4) % 16);
    ck_assert_uint_ge((unsigned)__builtin_popcount(seen), 12);
}
END_TEST

/* auto (cap 0): one busy series takes the whole pool; two share it. */
START_TEST(auto_share_of_the_pool)
{
    ck_assert_int_eq(cp_timing_start(4096, 0), 0);
    cp_timing a = {0};
    feed(&a, 0, 10000, -1, 0);
    ck_assert_uint_eq(a.level, 2); /* 2,500 blocks of 4 fit in 4,096 records */
    ck_assert_uint_eq(cp_timing_kept(&a), 2500);
    cp_timing b = {0};
    feed(&b, 0, 10000, -1, 0);
    feed(&a, 10000, 10010, -1, 0); /* the next kept call of a: down to its share */
    ck_assert_uint_le(cp_timing_kept(&a), 2048);
    ck_assert_uint_le(cp_timing_kept(&b), 2048);
    ck_assert_uint_ge(cp_timing_kept(&b), 1024);
    ck_assert_uint_le(cp_timing_pool_used(), 4096);
    cp_timing_free(&a);
    cp_timing_free(&b);
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
    /* the trim of a whole-range histogram with used buckets 7 and 20: the
     * lowest one past a multiple of 4, the highest one at it; the trimmed
     * histogram holds exactly 7 to 20 */
    cp_timing u = {0};
    u.hist = calloc(CP_TIMING_HIST_N, sizeof *u.hist);
    ck_assert_ptr_nonnull(u.hist);
    u.hist_n = CP_TIMING_HIST_N;
    u.hist[7] = u.hist[20] = 1;
    cp_timing_compact(&u);
    ck_assert_uint_eq(u.hist_lo, 7);
    ck_assert_uint_eq(u.hist_n, 14);
    ck_assert_uint_eq(u.hist[0], 1);
    ck_assert_uint_eq(u.hist[13], 1);
    cp_timing_free(&u);
}
END_TEST

/* The histogram starts as a few buckets around the first duration and
 * grows both ways to take every later one, down to bucket 0 and up to the
 * last: no duration is lost, and a series of one call holds 8 buckets. */
START_TEST(histogram_grows_to_every_duration)
{
    ck_assert_int_eq(cp_timing_start(1024, 8), 0);
    cp_timing t = {0};
    const uint64_t durs[] = {1000, 1000, 700, 40000, 1, UINT64_MAX, 3, 1200, 90};
    const size_t n = sizeof durs / sizeof *durs;
    uint64_t want[CP_TIMING_HIST_N] = {0};
    for (size_t i = 0; i < n; i++) {
        cp_timing_add(&t, NULL, 0, 0, 0, durs[i], 0);
        want[cp_timing_hist_index(durs[i])]++;
        if (i == 0) {
            ck_assert_uint_le(t.hist_n, 8);
            ck_assert_uint_le(t.hist_lo, cp_timing_hist_index(1000));
        }
        for (uint32_t k = 0; k < CP_TIMING_HIST_N; k++) {
            uint32_t j = k - t.hist_lo;
            uint64_t got = j < t.hist_n ? t.hist[j] : 0;
            ck_assert_msg(got == want[k], "after %zu calls: bucket %u holds %llu, expected %llu",
                          i + 1, k, (unsigned long long)got, (unsigned long long)want[k]);
        }
    }
    ck_assert_uint_eq(t.hist_lo, 0);
    ck_assert_uint_eq(t.hist_n, CP_TIMING_HIST_N);
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

/* Slots reserved for the calls after a kept one (what a repeated call is
 * handed by the call memo while every call is kept), given back at folds
 * that come at any call, make the same sample as slots taken call by call:
 * the same calls kept at the same levels, the same records, the same
 * blocks out of the pool. */
START_TEST(reserved_slots_are_the_calls_own)
{
    ck_assert_int_eq(cp_timing_start(4096, 40), 0);
    cp_timing ref = {0}, t = {0};
    cp_sample_rec *slot = NULL;
    uint32_t rsv = 0, handed = 0;
    uint64_t gate = 0; /* the call the next reserved slot is for */
    for (uint64_t i = 0; i < 300; i++) {
        if (rsv && (i % 11 == 5 || i == 150)) { /* a fold: what is left goes back */
            cp_timing_unreserve(&t, rsv);
            rsv = 0;
        }
        cp_sample_rec *r;
        if (rsv && i == gate) {
            r = slot++;
            rsv--;
            gate = i + 1;
            handed++;
        } else {
            if (rsv)
                cp_timing_unreserve(&t, rsv);
            r = cp_timing_slot(&t, i);
            rsv = r ? cp_timing_reserve(&t, &slot) : 0;
            gate = i + 1;
        }
        uint64_t enter = 10 * i;
        cp_timing_add(&t, r, 0, enter, enter, enter + i % 7 + 1, 0);
        feed(&ref, i, i + 1, -1, 0);
        /* after every call: the calls kept so far, at the same level */
        ck_assert_uint_eq(t.npos - rsv, ref.npos);
        ck_assert_uint_eq(t.level, ref.level);
        for (uint64_t j = 0; j < ref.npos; j++) {
            ck_assert_uint_eq(kept(&t, j)->enter, kept(&ref, j)->enter);
            ck_assert(kept(&t, j)->dur == kept(&ref, j)->dur);
        }
    }
    if (rsv)
        cp_timing_unreserve(&t, rsv);
    ck_assert_uint_gt(handed, 20); /* the first 40 calls are all kept */
    ck_assert_uint_eq(t.level, ref.level);
    ck_assert_uint_eq(t.npos, ref.npos);
    ck_assert_uint_eq(t.next, ref.next);
    ck_assert_uint_eq(t.gate, ref.gate);
    /* no block more than the slots kept need */
    uint64_t need = (ref.npos + CP_TBLOCK_RECS - 1) / CP_TBLOCK_RECS;
    cp_timing_free(&ref);
    ck_assert_uint_eq(cp_timing_pool_used(), need * CP_TBLOCK_RECS);
    cp_timing_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("timing");
    tcase_add_test(tc, thinned_by_index);
    tcase_add_test(tc, nested_and_not_periodic);
    tcase_add_test(tc, auto_share_of_the_pool);
    tcase_add_test(tc, same_calls_whatever_was_timed);
    tcase_add_test(tc, pool_runs_dry);
    tcase_add_test(tc, gaps_and_no_signature);
    tcase_add_test(tc, histogram_of_every_call);
    tcase_add_test(tc, histogram_grows_to_every_duration);
    tcase_add_test(tc, reserved_slots_are_the_calls_own);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
