/* Call sequences: exact round trip of every appended id, and compression
 * that does not grow with the number of calls of a repeating pattern. */
#include <check.h>
#include <stdlib.h>

#include "sequence.h"

static void check_roundtrip(const uint32_t *ids, size_t n, cp_seq *s)
{
    cp_seq_init(s);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(cp_seq_append(s, ids[i], 1), 0);
    ck_assert_int_eq(cp_seq_finish(s), 0);
    ck_assert_uint_eq(s->total, n);
    uint32_t *out = cp_seq_expand(s);
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == ids[i], "call %zu: got %u, appended %u", i, out[i], ids[i]);
    free(out);
}

START_TEST(repeating_single_pattern_is_one_run)
{
    cp_seq s;
    cp_seq_init(&s);
    for (int i = 0; i < 1000000; i++)
        cp_seq_append(&s, 7, 1);
    cp_seq_finish(&s);
    ck_assert_uint_eq(s.total, 1000000);
    ck_assert_uint_eq(s.nruns, 1);
    ck_assert_uint_eq(s.runs[0].len, 1000000);
    cp_seq_free(&s);
}
END_TEST

START_TEST(alternating_pattern_folds)
{
    enum { N = 100000 };
    uint32_t *ids = malloc(N * sizeof *ids);
    for (int i = 0; i < N; i++)
        ids[i] = i % 2;
    cp_seq s;
    check_roundtrip(ids, N, &s);
    ck_assert_uint_le(s.nruns, 4);
    ck_assert_uint_le(s.ngroups, 3);
    cp_seq_free(&s);
    free(ids);
}
END_TEST

START_TEST(phase_cycle_folds)
{
    /* A A A B C C, repeated: a six-call phase of three runs. */
    static const uint32_t phase[] = {0, 0, 0, 1, 2, 2};
    enum { N = 6 * 5000 };
    uint32_t *ids = malloc(N * sizeof *ids);
    for (int i = 0; i < N; i++)
        ids[i] = phase[i % 6];
    cp_seq s;
    check_roundtrip(ids, N, &s);
    ck_assert_uint_le(s.nruns, 8);
    cp_seq_free(&s);
    free(ids);
}
END_TEST

/* Cycles through up to CP_SEQ_MAX_PERIOD patterns fold into one group,
 * whatever the number of calls; one pattern more does not. */
START_TEST(long_cycles_fold_up_to_the_bound)
{
    enum { REPS = 2000 };
    static const uint32_t periods[] = {32, CP_SEQ_MAX_PERIOD, CP_SEQ_MAX_PERIOD + 1};
    for (size_t k = 0; k < 3; k++) {
        uint32_t p = periods[k];
        size_t n = (size_t)p * REPS;
        uint32_t *ids = malloc(n * sizeof *ids);
        for (size_t i = 0; i < n; i++)
            ids[i] = (uint32_t)(i % p);
        cp_seq s;
        check_roundtrip(ids, n, &s);
        if (p <= CP_SEQ_MAX_PERIOD)
            ck_assert_msg(s.nruns <= 3 * (size_t)p, "period %u: %zu runs", p, s.nruns);
        else
            ck_assert_uint_eq(s.nruns, n);
        cp_seq_free(&s);
        free(ids);
    }
}
END_TEST

START_TEST(never_repeating_grows_per_call)
{
    enum { N = 1000 };
    uint32_t ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = (uint32_t)i;
    cp_seq s;
    check_roundtrip(ids, N, &s);
    ck_assert_uint_eq(s.nruns, N);
    cp_seq_free(&s);
}
END_TEST

START_TEST(repetition_broken_at_every_point)
{
    /* A pattern repeated, then broken at each possible offset, by the same
     * id as the one expected next, as the previous one, and by a new one. */
    static const uint32_t pat[] = {1, 1, 2, 3, 3, 3};
    for (int reps = 2; reps <= 4; reps++)
        for (int cut = 0; cut < 6; cut++)
            for (int breaker = 0; breaker < 5; breaker++) {
                uint32_t ids[64];
                size_t n = 0;
                for (int r = 0; r < reps; r++)
                    for (int i = 0; i < 6; i++)
                        ids[n++] = pat[i];
                for (int i = 0; i < cut; i++)
                    ids[n++] = pat[i];
                uint32_t b = (uint32_t)breaker; /* 0, 4: new ids; 1-3 pattern ids */
                for (int i = 0; i < 3; i++)
                    ids[n++] = b;
                ids[n++] = CP_SEQ_NONE;
                cp_seq s;
                check_roundtrip(ids, n, &s);
                cp_seq_free(&s);
            }
}
END_TEST

START_TEST(random_sequences_roundtrip)
{
    unsigned seed = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t ids[300];
        size_t n = 0;
        int alphabet = 1 + rand_r(&seed) % 4;
        while (n < 300) {
            /* Mix of runs, repeated phases and noise. */
            int kind = rand_r(&seed) % 3;
            if (kind == 0) {
                uint32_t id = rand_r(&seed) % alphabet;
                for (int len = 1 + rand_r(&seed) % 5; len > 0 && n < 300; len--)
                    ids[n++] = id;
            } else if (kind == 1 && n >= 4) {
                size_t p = 1 + rand_r(&seed) % 4;
                for (int r = rand_r(&seed) % 6; r > 0; r--)
                    for (size_t i = 0; i < p && n < 300; i++)
                        ids[n] = ids[n - p], n++;
            } else {
                ids[n++] = (rand_r(&seed) % 7 == 0) ? CP_SEQ_NONE : (uint32_t)(rand_r(&seed) % alphabet);
            }
        }
        cp_seq s;
        check_roundtrip(ids, n, &s);
        cp_seq_free(&s);
    }
}
END_TEST

/* Seeking to increasing call indexes, with strides from 1 to 40, finds each
 * call's id as the expanded sequence has it, also where it skips whole
 * repetitions (a million calls of a 32-pattern cycle). */
START_TEST(seek_finds_each_call)
{
    unsigned seed = 777;
    for (int trial = 0; trial < 300; trial++) {
        cp_seq s;
        cp_seq_init(&s);
        uint64_t p = 1 + rand_r(&seed) % 8, reps = 1 + rand_r(&seed) % 50;
        cp_seq_append(&s, CP_SEQ_NONE, rand_r(&seed) % 3);
        for (uint64_t r = 0; r < reps; r++)
            for (uint64_t i = 0; i < p; i++)
                cp_seq_append(&s, (uint32_t)i, 1 + i % 2);
        for (int i = rand_r(&seed) % 10; i > 0; i--)
            cp_seq_append(&s, (uint32_t)(rand_r(&seed) % 3), 1 + rand_r(&seed) % 3);
        cp_seq_finish(&s);
        uint32_t *ids = cp_seq_expand(&s);
        uint64_t stride = 1 + rand_r(&seed) % 40;
        cp_seq_iter it;
        cp_seq_iter_init(&it, &s);
        uint64_t at = 0;
        for (uint64_t call = rand_r(&seed) % 5; call < s.total + 3; call += stride)
            ck_assert_uint_eq(cp_seq_iter_seek(&it, &at, call),
                              call < s.total ? ids[call] : CP_SEQ_NONE);
        free(ids);
        cp_seq_free(&s);
    }
    cp_seq s;
    cp_seq_init(&s);
    for (uint32_t r = 0; r < 31250; r++)
        for (uint32_t i = 0; i < 32; i++)
            cp_seq_append(&s, i, 1);
    cp_seq_finish(&s);
    cp_seq_iter it;
    cp_seq_iter_init(&it, &s);
    uint64_t at = 0;
    ck_assert_uint_eq(cp_seq_iter_seek(&it, &at, 999999), 31);
    ck_assert_uint_eq(at, 999999);
    ck_assert_uint_eq(cp_seq_iter_seek(&it, &at, 1000000), CP_SEQ_NONE);
    cp_seq_free(&s);
    /* Two cycles of different periods in a row (each group's own period),
     * every stride from 1 to 30. */
    cp_seq_init(&s);
    for (uint32_t r = 0; r < 40; r++)
        for (uint32_t i = 0; i < 3; i++)
            cp_seq_append(&s, i, 1 + i);
    cp_seq_append(&s, 99, 5);
    for (uint32_t r = 0; r < 40; r++)
        for (uint32_t i = 0; i < 5; i++)
            cp_seq_append(&s, 10 + i, 2);
    cp_seq_finish(&s);
    ck_assert_uint_ge(s.ngroups, 2);
    uint32_t *ids = cp_seq_expand(&s);
    for (uint64_t stride = 1; stride <= 30; stride++) {
        cp_seq_iter_init(&it, &s);
        at = 0;
        for (uint64_t call = 0; call < s.total + 3; call += stride)
            ck_assert_uint_eq(cp_seq_iter_seek(&it, &at, call),
                              call < s.total ? ids[call] : CP_SEQ_NONE);
    }
    free(ids);
    cp_seq_free(&s);
}
END_TEST

START_TEST(append_counts_and_iterate_runs)
{
    cp_seq s;
    cp_seq_init(&s);
    cp_seq_append(&s, CP_SEQ_NONE, 10); /* calls before COLLPROF_START_CALL */
    for (int r = 0; r < 3; r++) {
        cp_seq_append(&s, 4, 2);
        cp_seq_append(&s, 5, 1);
    }
    cp_seq_finish(&s);
    ck_assert_uint_eq(s.total, 19);
    cp_seq_iter it;
    cp_seq_iter_init(&it, &s);
    uint64_t left;
    ck_assert_uint_eq(cp_seq_iter_peek(&it, &left), CP_SEQ_NONE);
    ck_assert_uint_eq(left, 10);
    cp_seq_iter_skip(&it, 4);
    ck_assert_uint_eq(cp_seq_iter_peek(&it, &left), CP_SEQ_NONE);
    ck_assert_uint_eq(left, 6);
    cp_seq_iter_skip(&it, 6);
    for (int r = 0; r < 3; r++) {
        ck_assert_uint_eq(cp_seq_iter_peek(&it, &left), 4);
        ck_assert_uint_eq(left, 2);
        cp_seq_iter_skip(&it, 2);
        ck_assert_uint_eq(cp_seq_iter_peek(&it, &left), 5);
        ck_assert_uint_eq(left, 1);
        cp_seq_iter_skip(&it, 1);
    }
    ck_assert_uint_eq(cp_seq_iter_peek(&it, &left), CP_SEQ_NONE);
    ck_assert_uint_eq(left, UINT64_MAX);
    cp_seq_free(&s);
}
END_TEST

/* A tail lengthens the last run as appends would, and is refused once the
 * sequence changed otherwise (another id, a fold, finish, compact, a free). */
START_TEST(tail_lengthens_until_the_sequence_changes)
{
    cp_seq s;
    cp_seq_init(&s);
    ck_assert_uint_eq(cp_seq_tail_of(&s, 3).changes, 0); /* empty: no place */
    ck_assert_int_eq(cp_seq_append(&s, 3, 1), 0);
    ck_assert_uint_eq(cp_seq_tail_of(&s, 4).changes, 0); /* not the last run's id */
    cp_seq_tail t = cp_seq_tail_of(&s, 3);
    for (int i = 0; i < 5; i++)
        ck_assert(cp_seq_tail_add(&s, &t));
    ck_assert_uint_eq(s.total, 6);
    ck_assert_int_eq(cp_seq_append(&s, 4, 1), 0);
    ck_assert(!cp_seq_tail_add(&s, &t)); /* another id came: refused */
    ck_assert_int_eq(cp_seq_append(&s, 3, 1), 0);
    t = cp_seq_tail_of(&s, 3);
    ck_assert(cp_seq_tail_add(&s, &t));
    cp_seq_compact(&s);
    ck_assert(!cp_seq_tail_add(&s, &t)); /* the runs may have moved */
    /* A cycle 4 3 4 3 ... folds: in a repetition there is no place to
     * lengthen in. */
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(cp_seq_append(&s, i % 2 ? 3 : 4, 1), 0);
    ck_assert(s.repeating);
    ck_assert_uint_eq(cp_seq_tail_of(&s, 3).changes, 0);
    ck_assert_int_eq(cp_seq_finish(&s), 0);
    uint32_t want[] = {3, 3, 3, 3, 3, 3, 4, 3, 3, 4, 3, 4, 3, 4, 3};
    ck_assert_uint_eq(s.total, sizeof want / sizeof *want);
    uint32_t *got = cp_seq_expand(&s);
    ck_assert_ptr_nonnull(got);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(got[i] == want[i], "call %zu: %u, expected %u", i, got[i], want[i]);
    free(got);
    /* A sequence freed and made again does not show the number a tail
     * holds. */
    ck_assert_int_eq(cp_seq_append(&s, 5, 1), 0);
    t = cp_seq_tail_of(&s, 5);
    uint64_t was = t.changes;
    cp_seq_free(&s);
    ck_assert_int_eq(cp_seq_append(&s, 5, 1), 0);
    ck_assert_uint_ne(s.changes, was);
    ck_assert(!cp_seq_tail_add(&s, &t));
    cp_seq_free(&s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("sequence");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, repeating_single_pattern_is_one_run);
    tcase_add_test(tc, alternating_pattern_folds);
    tcase_add_test(tc, phase_cycle_folds);
    tcase_add_test(tc, long_cycles_fold_up_to_the_bound);
    tcase_add_test(tc, never_repeating_grows_per_call);
    tcase_add_test(tc, repetition_broken_at_every_point);
    tcase_add_test(tc, random_sequences_roundtrip);
    tcase_add_test(tc, seek_finds_each_call);
    tcase_add_test(tc, append_counts_and_iterate_runs);
    tcase_add_test(tc, tail_lengthens_until_the_sequence_changes);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
