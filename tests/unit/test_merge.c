/* The lead's merge of several ranks' tables into blocks: spans, unequal
 * sequence lengths, unrecorded calls, row grouping, bytes mode, and the
 * pack/unpack of a rank's tables as the leaf of the merge tree. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_merge.h"

/* Rank tables built the way the wrappers build them. */
typedef struct rank_t {
    cp_counts t;
} rank_t;

static void call(rank_t *r, const int *counts, int64_t len, int64_t dtsize)
{
    if (!counts) {
        cp_counts_record(&r->t, CP_SEQ_NONE);
        return;
    }
    cp_vec_arg a = {.present = true, .counts = counts, .width = 4, .len = len, .dtsize = dtsize};
    cp_counts_record(&r->t, cp_counts_signature(&r->t, &a, &a, -1, CP_SEQ_NONE));
}

static cp_counts_view view_of(rank_t *r)
{
    cp_seq_finish(&r->t.seq);
    return (cp_counts_view){r->t.vecs, r->t.nvecs, r->t.sigs, r->t.nsigs, &r->t.seq};
}

static void merge(rank_t *ranks, int n, cp_counts_file out[2])
{
    cp_counts_view v[8];
    const cp_counts_view *pv[8];
    for (int r = 0; r < n; r++) {
        v[r] = view_of(&ranks[r]);
        pv[r] = &v[r];
    }
    cp_block tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.comm_id = 7;
    tmpl.comm_size = n;
    for (int r = 0; r < n; r++)
        cp_ranges_push(&tmpl.comm_world_ranks, 10 + r);
    strcpy(tmpl.collective, "Alltoallv");
    memset(out, 0, 2 * sizeof *out);
    cp_error err;
    ck_assert_int_eq(cp_counts_merge(pv, n, &tmpl, out, &err), 0);
    cp_ranges_free(&tmpl.comm_world_ranks);
}

static void assert_ranges(const cp_ranges *r, const char *expected)
{
    /* expected as "lo-hi,lo-hi" of the normalised set */
    char buf[256] = "";
    for (size_t i = 0; i < r->n; i++) {
        char item[64];
        snprintf(item, sizeof item, i ? ",%ld-%ld" : "%ld-%ld", (long)r->v[i].lo, (long)r->v[i].hi);
        strcat(buf, item);
    }
    ck_assert_str_eq(buf, expected);
}

START_TEST(alternating_matrices_with_unequal_lengths)
{
    /* Three ranks.  Calls 0-5 alternate A/B on every rank; rank 2 stops
     * after call 3 (its sequence is shorter), rank 1 did not record call 1. */
    int a0[3] = {0, 1, 2}, b0[3] = {0, 5, 5};
    int a1[3] = {1, 0, 1}, b1[3] = {5, 0, 5};
    int a2[3] = {2, 2, 0}, b2[3] = {5, 5, 0};
    rank_t rk[3];
    for (int r = 0; r < 3; r++)
        cp_counts_init(&rk[r].t);
    for (int k = 0; k < 6; k++) {
        call(&rk[0], k % 2 ? b0 : a0, 3, 4);
        call(&rk[1], k == 1 ? NULL : k % 2 ? b1 : a1, 3, 4);
        if (k < 4)
            call(&rk[2], k % 2 ? b2 : a2, 3, 4);
    }
    cp_counts_file out[2];
    merge(rk, 3, out);
    /* Distinct send matrices: A (0,2), B without rank 1 (1), B (3),
     * A without rank 2 (4), B without rank 2 (5). */
    ck_assert_uint_eq(out[CP_SEND].nblocks, 5);
    const cp_block *b = &out[CP_SEND].blocks[0];
    ck_assert_int_eq(b->comm_id, 7);
    ck_assert_str_eq(b->collective, "Alltoallv");
    ck_assert_int_eq(b->nranks, 3);
    ck_assert_int_eq(b->dtsize, 4);
    ck_assert(!b->counts_in_bytes);
    ck_assert_uint_eq(b->row_len, 3);
    assert_ranges(&b->calls, "0-0,2-2");
    assert_ranges(&b->all_calls, "0-5");
    ck_assert_uint_eq(b->nrows, 3);
    ck_assert_int_eq(cp_block_count(b, 2, 1), 2);
    ck_assert_int_eq(cp_ranges_nth(&b->comm_world_ranks, 2), 12);
    b = &out[CP_SEND].blocks[1];
    assert_ranges(&b->calls, "1-1");
    ck_assert_ptr_null(cp_block_row(b, 1));
    ck_assert_int_eq(cp_block_count(b, 0, 1), 5);
    assert_ranges(&out[CP_SEND].blocks[2].calls, "3-3");
    b = &out[CP_SEND].blocks[3];
    assert_ranges(&b->calls, "4-4");
    ck_assert_ptr_null(cp_block_row(b, 2));
    ck_assert_int_eq(cp_block_count(b, 1, 2), 1);
    assert_ranges(&out[CP_SEND].blocks[4].calls, "5-5");
    /* Receive side: same vectors passed for both directions here. */
    ck_assert_uint_eq(out[CP_RECV].nblocks, 5);
    for (int i = 0; i < 2; i++) {
        cp_counts_file_free(&out[i]);
        cp_counts_free(&rk[i].t);
    }
    cp_counts_free(&rk[2].t);
}
END_TEST

START_TEST(identical_rows_share_a_line)
{
    int same[4] = {1, 1, 1, 1}, other[4] = {0, 2, 0, 2};
    rank_t rk[4];
    for (int r = 0; r < 4; r++) {
        cp_counts_init(&rk[r].t);
        for (int k = 0; k < 1000; k++)
            call(&rk[r], r == 2 ? other : same, 4, 8);
    }
    cp_counts_file out[2];
    merge(rk, 4, out);
    ck_assert_uint_eq(out[CP_SEND].nblocks, 1);
    const cp_block *b = &out[CP_SEND].blocks[0];
    assert_ranges(&b->calls, "0-999");
    ck_assert_uint_eq(b->nrows, 2);
    assert_ranges(&b->rows[0].ranks, "0-1,3-3");
    assert_ranges(&b->rows[1].ranks, "2-2");
    ck_assert_int_eq(b->dtsize, 8);
    for (int r = 0; r < 4; r++)
        cp_counts_free(&rk[r].t);
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
}
END_TEST

START_TEST(mixed_datatype_sizes_give_bytes)
{
    int c[2] = {3, 4};
    rank_t rk[2];
    cp_counts_init(&rk[0].t);
    cp_counts_init(&rk[1].t);
    call(&rk[0], c, 2, 4);
    call(&rk[1], c, 2, 8);
    cp_counts_file out[2];
    merge(rk, 2, out);
    const cp_block *b = &out[CP_SEND].blocks[0];
    ck_assert(b->counts_in_bytes);
    ck_assert_int_eq(b->dtsize, 1);
    ck_assert_int_eq(cp_block_count(b, 0, 1), 16);
    ck_assert_int_eq(cp_block_count(b, 1, 1), 32);
    cp_counts_free(&rk[0].t);
    cp_counts_free(&rk[1].t);
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
}
END_TEST

START_TEST(missing_rank_and_nothing_recorded)
{
    /* Rank 1 sent no tables at all; rank 0 recorded nothing (paused). */
    rank_t rk[1];
    cp_counts_init(&rk[0].t);
    for (int k = 0; k < 5; k++)
        call(&rk[0], NULL, 2, 4);
    cp_counts_view v = view_of(&rk[0]);
    const cp_counts_view *pv[2] = {&v, NULL};
    cp_block tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    strcpy(tmpl.collective, "Alltoall");
    cp_counts_file out[2];
    memset(out, 0, sizeof out);
    cp_error err;
    ck_assert_int_eq(cp_counts_merge(pv, 2, &tmpl, out, &err), 0);
    ck_assert_uint_eq(out[0].nblocks, 0);
    ck_assert_uint_eq(out[1].nblocks, 0);
    cp_counts_free(&rk[0].t);
}
END_TEST

/* Is call k in a list that may hold progressions? */
static bool has_call(const cp_ranges *r, int64_t k)
{
    for (size_t i = 0; i < r->n; i++) {
        int64_t s = r->v[i].step > 1 ? r->v[i].step : 1;
        if (k >= r->v[i].lo && k <= r->v[i].hi && (k - r->v[i].lo) % s == 0)
            return true;
    }
    return false;
}

/* Every call of the merge's output in exactly the block of pattern
 * want(call), and nowhere else; returns the number of list items. */
static size_t check_calls(const cp_counts_file *out, int64_t ncalls, int (*want)(int64_t),
                          int npatterns)
{
    size_t items = 0;
    ck_assert_uint_eq(out->nblocks, (size_t)npatterns);
    for (size_t b = 0; b < out->nblocks; b++)
        items += out->blocks[b].calls.n;
    for (int64_t k = 0; k < ncalls; k++) {
        int p = want(k), found = -1, times = 0;
        for (size_t b = 0; b < out->nblocks; b++)
            if (has_call(&out->blocks[b].calls, k)) {
                found = (int)out->blocks[b].rows[0].counts[0] - 1;
                times++;
            }
        ck_assert_msg(times == 1 && found == p, "call %ld: pattern %d in %d blocks, expected %d",
                      (long)k, found, times, p);
    }
    return items;
}

static int cycle32(int64_t k)
{
    return (int)(k % 32);
}

static int long_runs(int64_t k) /* A x 50, B x 50, three times */
{
    return (int)((k / 50) % 2);
}

static int cycle3(int64_t k) /* A B A C, ... */
{
    static const int p[] = {0, 1, 0, 2};
    return p[k % 4];
}

/* Cycles of calls become progressions: the merge costs the cycle's spans,
 * not its calls, and the lists hold an item per call of the cycle. */
START_TEST(cycles_become_progressions)
{
    static const struct {
        int (*want)(int64_t);
        int64_t ncalls;
        int npatterns;
        size_t max_items;
    } cases[] = {
        {cycle32, 32 * 1000, 32, 32},  /* one progression per pattern */
        {long_runs, 300, 2, 6},        /* runs longer than the repetitions: ranges */
        {cycle3, 4 * 500, 3, 4},       /* A twice per cycle: two interleaved progressions */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        rank_t rk[3];
        for (int r = 0; r < 3; r++) {
            cp_counts_init(&rk[r].t);
            for (int64_t k = 0; k < cases[c].ncalls; k++) {
                int v[3] = {cases[c].want(k) + 1, r, 7};
                call(&rk[r], v, 3, 4);
            }
        }
        cp_counts_file out[2];
        merge(rk, 3, out);
        size_t items = check_calls(&out[CP_SEND], cases[c].ncalls, cases[c].want,
                                   cases[c].npatterns);
        ck_assert_msg(items <= cases[c].max_items, "case %zu: %zu items", c, items);
        ck_assert_int_eq(cp_ranges_count(&out[CP_SEND].blocks[0].all_calls), cases[c].ncalls);
        for (int d = 0; d < 2; d++)
            cp_counts_file_free(&out[d]);
        for (int r = 0; r < 3; r++)
            cp_counts_free(&rk[r].t);
    }
}
END_TEST

/* A rank that did not record some calls of a cycle (paused) breaks the
 * lockstep there: still every call in its right block. */
START_TEST(cycle_broken_on_one_rank)
{
    rank_t rk[2];
    enum { N = 32 * 200 };
    for (int r = 0; r < 2; r++) {
        cp_counts_init(&rk[r].t);
        for (int64_t k = 0; k < N; k++) {
            int v[2] = {cycle32(k) + 1, r};
            call(&rk[r], r == 1 && k >= 3000 && k < 3010 ? NULL : v, 2, 4);
        }
    }
    cp_counts_file out[2];
    merge(rk, 2, out);
    /* calls 3000-3009: rank 1 has no row; a block of its own per pattern */
    size_t full = 0;
    for (size_t b = 0; b < out[CP_SEND].nblocks; b++) {
        const cp_block *blk = &out[CP_SEND].blocks[b];
        bool partial = blk->nrows == 1;
        for (int64_t k = 0; k < N; k++)
            if (has_call(&blk->calls, k))
                ck_assert_msg((k >= 3000 && k < 3010) == partial && blk->rows[0].counts[0] ==
                                  cycle32(k) + 1,
                              "call %ld in the wrong block", (long)k);
        full += !partial;
    }
    ck_assert_uint_eq(full, 32);
    ck_assert_uint_eq(out[CP_SEND].nblocks, 32 + 10);
    for (int d = 0; d < 2; d++)
        cp_counts_file_free(&out[d]);
    for (int r = 0; r < 2; r++)
        cp_counts_free(&rk[r].t);
}
END_TEST

/* The merge moves a piece's rows at its last reading and copies them
 * before: rank 0 passes one vector throughout while ranks 1-3 change
 * theirs with every call (3 patterns, each rank its own), so rank 0's
 * piece is read by three joins per direction.  Every rank's counts of
 * every call read back as passed. */
START_TEST(a_vector_read_by_several_joins_stays_whole)
{
    enum { R = 4, N = 12 };
    rank_t rk[R];
    for (int r = 0; r < R; r++) {
        cp_counts_init(&rk[r].t);
        for (int64_t k = 0; k < N; k++) {
            int v[3] = {r == 0 ? 5 : (int)(k % 3) + 1 + 10 * r, 7, r};
            call(&rk[r], v, 3, 4);
        }
    }
    cp_counts_file out[2];
    merge(rk, R, out);
    for (int d = 0; d < 2; d++) {
        ck_assert_uint_eq(out[d].nblocks, 3);
        int64_t seen = 0;
        for (size_t b = 0; b < out[d].nblocks; b++) {
            const cp_block *blk = &out[d].blocks[b];
            for (int64_t k = 0; k < N; k++) {
                if (!has_call(&blk->calls, k))
                    continue;
                seen++;
                for (int r = 0; r < R; r++) {
                    const cp_row *row = NULL;
                    for (size_t i = 0; i < blk->nrows && !row; i++)
                        if (has_call(&blk->rows[i].ranks, r))
                            row = &blk->rows[i];
                    ck_assert_ptr_nonnull(row);
                    int64_t want = r == 0 ? 5 : k % 3 + 1 + 10 * r;
                    ck_assert_int_eq(cp_row_value(row, r, 0), want);
                    ck_assert_int_eq(cp_row_value(row, r, 1), 7);
                    ck_assert_int_eq(cp_row_value(row, r, 2), r);
                }
            }
        }
        ck_assert_int_eq(seen, N);
    }
    for (int d = 0; d < 2; d++)
        cp_counts_file_free(&out[d]);
    for (int r = 0; r < R; r++)
        cp_counts_free(&rk[r].t);
}
END_TEST

/* A halo on 8 ranks (8 elements to r-1 and r+1): each rank keeps its
 * vector sparse (2 of 8 non-zero), it crosses to the lead sparse (the
 * message holds pairs, not 8 counts), and the merge collapses the inner
 * ranks 1-6 into one relative row (-1=8 +1=8) beside the two ends, sparse;
 * every count reads as passed.  With dense rows asked for, the same
 * counts, dense. */
START_TEST(sparse_vectors_to_relative_rows)
{
    enum { N = 8 };
    int v[N][N];
    rank_t rk[N];
    memset(v, 0, sizeof v);
    for (int r = 0; r < N; r++) {
        if (r > 0)
            v[r][r - 1] = 8;
        if (r + 1 < N)
            v[r][r + 1] = 8;
        cp_counts_init(&rk[r].t);
        call(&rk[r], v[r], N, 4);
        call(&rk[r], v[r], N, 4);
        ck_assert_ptr_nonnull(rk[r].t.vecs[0].peers);
        ck_assert_int_eq(rk[r].t.vecs[0].nnz, r == 0 || r == N - 1 ? 1 : 2);
        cp_counts_view cv = view_of(&rk[r]);
        cp_tree leaf, back;
        ck_assert_int_eq(cp_tree_leaf(&leaf, &cv, r, N, true), 0);
        cp_wbuf w = {0};
        cp_tree_pack(&w, &leaf);
        ck_assert_uint_lt(w.len, 300); /* pairs, not N counts per vector */
        cp_rbuf rb = {.p = (const char *)w.p, .len = w.len};
        ck_assert_int_eq(cp_tree_unpack(&rb, &back), 0);
        ck_assert_int_eq(back.pieces[0].rows[0].n, rk[r].t.vecs[0].nnz);
        cp_trow_iter it;
        cp_trow_iter_init(&it, &back.pieces[0].rows[0]);
        int64_t count;
        ck_assert_int_eq(cp_trow_next(&it, &count), rk[r].t.vecs[0].peers[0]);
        ck_assert_int_eq(count, rk[r].t.vecs[0].counts[0]);
        cp_tree_free(&leaf);
        cp_tree_free(&back);
        cp_wbuf_free(&w);
    }
    for (int dense = 0; dense < 2; dense++) {
        cp_counts_file out[2];
        merge(rk, N, out);
        ck_assert_uint_eq(out[CP_SEND].nblocks, 1);
        cp_block *b = &out[CP_SEND].blocks[0];
        ck_assert_uint_eq(b->nrows, 3);
        ck_assert_int_eq(b->rows[0].form, CP_ROW_SPARSE);
        ck_assert_int_eq(b->rows[1].form, CP_ROW_RELATIVE);
        ck_assert_int_eq(b->rows[1].ranks.v[0].lo, 1);
        ck_assert_int_eq(b->rows[1].ranks.v[0].hi, N - 2);
        ck_assert_int_eq(b->rows[2].form, CP_ROW_SPARSE);
        size_t first[2] = {0, 0};
        ck_assert_int_eq(cp_counts_compact_rows(out, first, dense), 0);
        ck_assert_uint_eq(b->nrows, dense ? N : 3);
        for (size_t i = 0; i < b->nrows; i++)
            ck_assert_int_eq(b->rows[i].form, dense ? CP_ROW_DENSE
                                              : i == 1 ? CP_ROW_RELATIVE : CP_ROW_SPARSE);
        for (int r = 0; r < N; r++)
            for (int p = 0; p < N; p++)
                ck_assert_int_eq(cp_block_count(b, r, (size_t)p), v[r][p]);
        cp_counts_file_free(&out[0]);
        cp_counts_file_free(&out[1]);
    }
    for (int r = 0; r < N; r++)
        cp_counts_free(&rk[r].t);
}
END_TEST

START_TEST(pack_unpack_roundtrip)
{
    /* Each rank's tables cross to the lead as its leaf tree, packed, and
     * merge to the same blocks as merged in place. */
    int a[2] = {1, 2}, b[2] = {3, 4};
    rank_t rk[2];
    cp_counts_init(&rk[0].t);
    cp_counts_init(&rk[1].t);
    for (int k = 0; k < 5000; k++) {
        call(&rk[0], k % 3 == 0 ? a : b, 2, 4);
        call(&rk[1], k < 2500 ? a : b, 2, 4);
    }
    cp_counts_file direct[2];
    merge(rk, 2, direct);

    cp_tree u[2];
    for (int r = 0; r < 2; r++) {
        cp_counts_view v = view_of(&rk[r]);
        cp_tree leaf;
        ck_assert_int_eq(cp_tree_leaf(&leaf, &v, r, 2, true), 0);
        cp_wbuf w = {0};
        cp_tree_pack(&w, &leaf);
        cp_tree_free(&leaf);
        ck_assert(!w.failed);
        ck_assert_uint_lt(w.len, 600); /* grows with changes, not calls */
        cp_rbuf rb = {.p = (const char *)w.p, .len = w.len};
        ck_assert_int_eq(cp_tree_unpack(&rb, &u[r]), 0);
        ck_assert_uint_eq(rb.off, w.len);
        /* A truncated buffer is refused, never read past. */
        for (size_t cut = 0; cut < w.len; cut += 7) {
            cp_tree bad;
            cp_rbuf tb = {.p = (const char *)w.p, .len = cut};
            ck_assert_int_eq(cp_tree_unpack(&tb, &bad), -1);
        }
        cp_wbuf_free(&w);
    }
    cp_tree both;
    ck_assert_int_eq(cp_tree_merge(&both, &u[0], &u[1], NULL, NULL), 0);
    cp_block tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.comm_id = 7;
    tmpl.comm_size = 2;
    cp_ranges_push(&tmpl.comm_world_ranks, 10);
    cp_ranges_push(&tmpl.comm_world_ranks, 11);
    strcpy(tmpl.collective, "Alltoallv");
    cp_counts_file via[2];
    memset(via, 0, sizeof via);
    cp_error err;
    ck_assert_int_eq(cp_counts_tree_blocks(&both, &tmpl, via, &err), 0);
    cp_tree_free(&both);
    for (int d = 0; d < 2; d++) {
        ck_assert_uint_eq(via[d].nblocks, direct[d].nblocks);
        for (size_t i = 0; i < via[d].nblocks; i++)
            ck_assert(cp_block_equal(&via[d].blocks[i], &direct[d].blocks[i]));
        cp_counts_file_free(&via[d]);
        cp_counts_file_free(&direct[d]);
        cp_tree_free(&u[d]);
        cp_counts_free(&rk[d].t);
    }
    cp_ranges_free(&tmpl.comm_world_ranks);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("merge");
    TCase *tc = tcase_create("merge");
    tcase_add_test(tc, alternating_matrices_with_unequal_lengths);
    tcase_add_test(tc, a_vector_read_by_several_joins_stays_whole);
    tcase_add_test(tc, identical_rows_share_a_line);
    tcase_add_test(tc, mixed_datatype_sizes_give_bytes);
    tcase_add_test(tc, missing_rank_and_nothing_recorded);
    tcase_add_test(tc, pack_unpack_roundtrip);
    tcase_add_test(tc, sparse_vectors_to_relative_rows);
    tcase_add_test(tc, cycles_become_progressions);
    tcase_add_test(tc, cycle_broken_on_one_rank);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
