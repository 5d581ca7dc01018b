/* Counts collector tables: distinct vectors and signatures, the last-call
 * fast path, widths, and the call sequence they feed. */
#include <check.h>
#include <stdlib.h>

#include "counts.h"

static cp_vec_arg vec(const void *counts, int width, int64_t len, int64_t dtsize)
{
    return (cp_vec_arg){.present = true, .counts = counts, .width = width, .len = len,
                        .dtsize = dtsize};
}

static cp_vec_arg single(int64_t count, int64_t dtsize)
{
    return (cp_vec_arg){.present = true, .single = count, .len = 1, .dtsize = dtsize};
}

START_TEST(same_vectors_share_one_signature)
{
    cp_counts t;
    cp_counts_init(&t);
    int a[3] = {1, 2, 3}, b[3] = {1, 2, 3};
    cp_vec_arg sa = vec(a, 4, 3, 4), sb = vec(b, 4, 3, 4);
    uint32_t s1 = cp_counts_signature(&t, &sa, &sa, -1, CP_SEQ_NONE);
    uint32_t s2 = cp_counts_signature(&t, &sb, &sb, -1, CP_SEQ_NONE); /* other array, same values */
    ck_assert_uint_eq(s1, s2);
    ck_assert_uint_eq(t.nsigs, 1);
    ck_assert_uint_eq(t.nvecs, 1); /* send and receive vectors are equal: stored once */
    cp_counts_free(&t);
}
END_TEST

START_TEST(vector_changed_in_place_is_a_new_signature)
{
    /* Applications reuse their count arrays: the fast path compares values,
     * never pointers. */
    cp_counts t;
    cp_counts_init(&t);
    int c[2] = {5, 6};
    cp_vec_arg a = vec(c, 4, 2, 4);
    uint32_t s1 = cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE);
    c[1] = 7;
    uint32_t s2 = cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE);
    ck_assert_uint_ne(s1, s2);
    c[1] = 6;
    ck_assert_uint_eq(cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE), s1);
    ck_assert_uint_eq(t.nsigs, 2);
    ck_assert_int_eq(t.vecs[t.sigs[s2].send].counts[1], 7);
    cp_counts_free(&t);
}
END_TEST

START_TEST(int_and_large_counts_are_the_same_vector)
{
    cp_counts t;
    cp_counts_init(&t);
    int small[2] = {3, 4};
    int64_t large[2] = {3, 4};
    cp_vec_arg a = vec(small, 4, 2, 8), b = vec(large, 8, 2, 8);
    ck_assert_uint_eq(cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE), cp_counts_signature(&t, &b, &b, -1, CP_SEQ_NONE));
    int64_t big[2] = {3, (int64_t)1 << 40};
    cp_vec_arg c = vec(big, 8, 2, 8);
    uint32_t s = cp_counts_signature(&t, &c, &c, -1, CP_SEQ_NONE);
    ck_assert_int_eq(t.vecs[t.sigs[s].send].counts[1], (int64_t)1 << 40);
    cp_counts_free(&t);
}
END_TEST

START_TEST(datatype_size_root_and_direction_distinguish)
{
    cp_counts t;
    cp_counts_init(&t);
    cp_vec_arg one4 = single(1, 4), one8 = single(1, 8), two4 = single(2, 4);
    cp_vec_arg none = {.present = false};
    uint32_t ids[] = {
        cp_counts_signature(&t, &one4, &one4, -1, CP_SEQ_NONE), cp_counts_signature(&t, &one8, &one8, -1, CP_SEQ_NONE),
        cp_counts_signature(&t, &one4, &two4, -1, CP_SEQ_NONE), cp_counts_signature(&t, &two4, &one4, -1, CP_SEQ_NONE),
        cp_counts_signature(&t, &one4, &one4, 0, CP_SEQ_NONE),  cp_counts_signature(&t, &one4, &none, 0, CP_SEQ_NONE),
    };
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(ids[i], ids[j]);
    ck_assert_uint_eq(t.sigs[ids[5]].recv, CP_SEQ_NONE);
    /* And each one is found again, in any order. */
    ck_assert_uint_eq(cp_counts_signature(&t, &two4, &one4, -1, CP_SEQ_NONE), ids[3]);
    ck_assert_uint_eq(cp_counts_signature(&t, &one4, &one4, -1, CP_SEQ_NONE), ids[0]);
    ck_assert_uint_eq(cp_counts_signature(&t, &one4, &none, 0, CP_SEQ_NONE), ids[5]);
    cp_counts_free(&t);
}
END_TEST

/* Counts given by their non-zeros (the scale simulator's form) keep the
 * very vectors the dense arrays of an application give: sparse when mostly
 * zeros (the same peers and counts), dense otherwise; repeated, they match
 * what the table holds and add nothing. */
START_TEST(nonzero_form_keeps_the_same_vectors)
{
    int sparse_row[10] = {0, 0, 4, 0, 0, 0, 0, 9, 0, 0};
    int dense_row[4] = {1, 0, 3, 5};
    const int64_t sp[2] = {2, 7}, sc[2] = {4, 9}, dp[3] = {0, 2, 3}, dc[3] = {1, 3, 5};
    cp_counts a, b;
    cp_counts_init(&a);
    cp_counts_init(&b);
    cp_vec_arg da = vec(sparse_row, 4, 10, 4), db = vec(dense_row, 4, 4, 4);
    cp_vec_arg na = {.present = true, .len = 10, .dtsize = 4, .nz_peers = sp, .nz_counts = sc,
                     .nnz = 2};
    cp_vec_arg nb = {.present = true, .len = 4, .dtsize = 4, .nz_peers = dp, .nz_counts = dc,
                     .nnz = 3};
    cp_counts_signature(&a, &da, &db, -1, CP_SEQ_NONE);
    for (int k = 0; k < 3; k++)
        cp_counts_signature(&b, &na, &nb, -1, CP_SEQ_NONE);
    ck_assert_uint_eq(b.nvecs, 2);
    ck_assert_uint_eq(b.nsigs, 1);
    for (uint32_t i = 0; i < 2; i++) {
        const cp_vec *x = &a.vecs[i], *y = &b.vecs[i];
        ck_assert_int_eq(x->len, y->len);
        ck_assert_int_eq(x->nnz, y->nnz);
        ck_assert_int_eq(x->peers != NULL, y->peers != NULL);
        int64_t n = x->peers ? x->nnz : x->len;
        for (int64_t k = 0; k < n; k++) {
            ck_assert_int_eq(x->counts[k], y->counts[k]);
            if (x->peers)
                ck_assert_int_eq(x->peers[k], y->peers[k]);
        }
    }
    ck_assert_ptr_nonnull(b.vecs[0].peers); /* 2 of 10: sparse */
    ck_assert_ptr_null(b.vecs[1].peers);    /* 3 of 4: dense */
    cp_counts_free(&a);
    cp_counts_free(&b);
}
END_TEST

START_TEST(many_distinct_vectors)
{
    /* Past every rehash of the index, each vector keeps its id. */
    cp_counts t;
    cp_counts_init(&t);
    enum { N = 20000 };
    int c[2];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++) {
            c[0] = i;
            c[1] = i * 7;
            cp_vec_arg a = vec(c, 4, 2, 4);
            ck_assert_uint_eq(cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE), (uint32_t)i);
        }
    ck_assert_uint_eq(t.nvecs, N);
    cp_counts_free(&t);
}
END_TEST

START_TEST(record_numbers_every_call)
{
    cp_counts t;
    cp_counts_init(&t);
    cp_vec_arg a = single(9, 4);
    uint32_t s = cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE);
    ck_assert_uint_eq(cp_counts_record(&t, CP_SEQ_NONE), 0);
    ck_assert_uint_eq(cp_counts_record(&t, s), 1);
    ck_assert_uint_eq(cp_counts_record(&t, s), 2);
    ck_assert_uint_eq(t.ncalls, 3);
    cp_seq_finish(&t.seq);
    uint32_t *ids = cp_seq_expand(&t.seq);
    ck_assert_uint_eq(ids[0], CP_SEQ_NONE);
    ck_assert_uint_eq(ids[1], s);
    ck_assert_uint_eq(ids[2], s);
    free(ids);
    cp_counts_free(&t);
}
END_TEST

/* Calls the MPI library refused keep their counts and their place, under
 * a signature of their own that carries the error class; a loop of
 * refusals in a cycle of calls is one run, and settling the sequence
 * gives each refused call its failed signature, every other call its own. */
START_TEST(refused_calls_keep_their_counts_marked_failed)
{
    cp_counts t;
    cp_counts_init(&t);
    int a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    cp_vec_arg va = {.present = true, .counts = a, .width = 4, .len = 3, .dtsize = 4};
    cp_vec_arg vb = {.present = true, .counts = b, .width = 4, .len = 3, .dtsize = 4};
    /* 1,000 calls alternating a, b; every 10th a refused with code 2 from call 100 */
    uint32_t want[1000];
    uint32_t sa = CP_SEQ_NONE, sb = CP_SEQ_NONE;
    for (int c = 0; c < 1000; c++) {
        uint32_t s = cp_counts_signature(&t, c % 2 ? &vb : &va, &va, -1, CP_SEQ_NONE);
        if (c % 2)
            sb = s;
        else
            sa = s;
        uint64_t idx = cp_counts_record(&t, s);
        want[c] = s;
        if (c >= 100 && c % 10 == 0) {
            cp_counts_failed(&t, idx, s, 2);
            want[c] = UINT32_MAX - 1; /* the failed one, checked below */
        }
    }
    ck_assert_uint_eq(t.nfailed, 1); /* one run: 100, 110, ..., 990 */
    ck_assert_uint_eq(t.nsigs, 3);
    ck_assert_int_eq(cp_counts_settle(&t), 0);
    ck_assert_uint_eq(t.seq.total, 1000);
    uint32_t *got = cp_seq_expand(&t.seq);
    uint32_t failed = CP_SEQ_NONE;
    for (uint32_t i = 0; i < t.nsigs; i++)
        if (t.sigs[i].err) {
            ck_assert_int_eq(t.sigs[i].err, 2);
            ck_assert_uint_eq(t.sigs[i].send, t.sigs[sa].send); /* the counts as passed */
            failed = i;
        }
    ck_assert_uint_ne(failed, CP_SEQ_NONE);
    for (int c = 0; c < 1000; c++)
        ck_assert_uint_eq(got[c], want[c] == UINT32_MAX - 1 ? failed : want[c]);
    free(got);
    /* the hot path still finds the plain signatures */
    ck_assert_uint_eq(cp_counts_signature(&t, &va, &va, -1, CP_SEQ_NONE), sa);
    ck_assert_uint_eq(cp_counts_signature(&t, &vb, &va, -1, CP_SEQ_NONE), sb);
    cp_counts_free(&t);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("counts");
    TCase *tc = tcase_create("tables");
    tcase_add_test(tc, same_vectors_share_one_signature);
    tcase_add_test(tc, vector_changed_in_place_is_a_new_signature);
    tcase_add_test(tc, int_and_large_counts_are_the_same_vector);
    tcase_add_test(tc, datatype_size_root_and_direction_distinguish);
    tcase_add_test(tc, many_distinct_vectors);
    tcase_add_test(tc, nonzero_form_keeps_the_same_vectors);
    tcase_add_test(tc, record_numbers_every_call);
    tcase_add_test(tc, refused_calls_keep_their_counts_marked_failed);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
