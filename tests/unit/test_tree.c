/* The merge tree of finalize (counts_tree.h): what goes up it stays the
 * size of the distinct rows whatever the number of ranks, cycles stay
 * cycles, every count arrives exact, and a tree crosses between ranks
 * packed and unpacked unchanged; malformed ones are refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_merge.h"
#include "counts_tree.h"

/* A halo on P ranks: 8 elements to r-1, r+1, r-K, r+K (no wrap). */
#define K 32

static int64_t halo(int64_t r, int64_t p)
{
    int64_t d = p - r;
    return (d == 1 || d == -1 || d == K || d == -K) ? 8 : 0;
}

static cp_counts *halo_tables(int64_t P)
{
    cp_counts *t = calloc((size_t)P, sizeof *t);
    int *v = calloc((size_t)P, sizeof *v);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(v);
    for (int64_t r = 0; r < P; r++) {
        cp_counts_init(&t[r]);
        for (int64_t p = 0; p < P; p++)
            v[p] = (int)halo(r, p);
        cp_vec_arg a = {.present = true, .counts = v, .width = 4, .len = P, .dtsize = 8};
        for (int c = 0; c < 3; c++)
            cp_counts_record(&t[r], cp_counts_signature(&t[r], &a, &a, -1, CP_SEQ_NONE));
        cp_seq_finish(&t[r].seq);
    }
    free(v);
    return t;
}

static const cp_counts_view **views_of(cp_counts *t, int64_t P, cp_counts_view *v)
{
    const cp_counts_view **pv = calloc((size_t)P, sizeof *pv);
    for (int64_t r = 0; r < P; r++) {
        v[r] = (cp_counts_view){t[r].vecs, t[r].nvecs, t[r].sigs, t[r].nsigs, &t[r].seq};
        pv[r] = &v[r];
    }
    return pv;
}

static void tmpl_of(cp_block *tmpl, int64_t P)
{
    memset(tmpl, 0, sizeof *tmpl);
    tmpl->comm_id = 0;
    tmpl->comm_size = P;
    cp_ranges_add_range(&tmpl->comm_world_ranks, 0, P - 1);
    strcpy(tmpl->collective, "Alltoallv");
}

/* The root's tree of a halo holds a handful of rows, packs to the same
 * few hundred bytes at 256 and 4096 ranks, and its block gives every
 * rank's count to every peer. */
START_TEST(halo_tree_does_not_grow_with_ranks)
{
    size_t packed[2];
    int64_t sizes[2] = {256, 4096};
    for (int s = 0; s < 2; s++) {
        int64_t P = sizes[s];
        cp_counts *t = halo_tables(P);
        cp_counts_view *v = calloc((size_t)P, sizeof *v);
        const cp_counts_view **pv = views_of(t, P, v);
        cp_tree root;
        ck_assert_int_eq(cp_counts_build_tree(pv, 0, P, P, true, &root), 0);
        ck_assert_uint_eq(root.nsigs, 1);
        const cp_piece *pc = &root.pieces[root.sigs[0].piece[CP_SEND]];
        /* Ranks with the same offsets share a row: 0, 1..K-1, K..P-K-1,
         * P-K..P-2, P-1. */
        ck_assert_uint_eq(pc->nrows, 5);
        cp_wbuf w = {0};
        cp_tree_pack(&w, &root);
        packed[s] = w.len;
        cp_wbuf_free(&w);

        cp_block tmpl;
        tmpl_of(&tmpl, P);
        cp_counts_file out[2];
        memset(out, 0, sizeof out);
        cp_error err;
        ck_assert_int_eq(cp_counts_tree_blocks(&root, &tmpl, out, &err), 0);
        ck_assert_uint_eq(out[CP_SEND].nblocks, 1);
        const cp_block *b = &out[CP_SEND].blocks[0];
        ck_assert_int_eq(cp_ranges_count(&b->calls), 3);
        for (int64_t r = 0; r < P; r += (r < 2 * K || r > P - 2 * K) ? 1 : 97)
            for (int64_t p = 0; p < P; p++)
                ck_assert_int_eq(cp_block_count(b, r, (size_t)p), halo(r, p));
        cp_counts_file_free(&out[0]);
        cp_counts_file_free(&out[1]);
        cp_ranges_free(&tmpl.comm_world_ranks);
        cp_tree_free(&root);
        for (int64_t r = 0; r < P; r++)
            cp_counts_free(&t[r]);
        free(t);
        free(v);
        free(pv);
    }
    ck_assert_uint_lt(packed[0], 2048);
    ck_assert_uint_eq(packed[0], packed[1]);
}
END_TEST

/* A sink that keeps the directions of the blocks it is given and refuses
 * the one numbered `refuse`. */
typedef struct sink_log {
    int dirs[8];
    int n, refuse;
} sink_log;

static int log_sink(void *ctx, int d, cp_block *b, cp_error *err)
{
    sink_log *l = ctx;
    int rc = 0;
    if (l->n == l->refuse)
        rc = cp_error_set(err, "sink full at block %d", l->n);
    else
        l->dirs[l->n] = d;
    l->n++;
    cp_block_free(b);
    return rc;
}

/* The blocks go to the sink one by one, sends first, and a sink that
 * fails stops the making with its own reason (everything freed: the
 * sanitizer build checks). */
START_TEST(blocks_go_to_the_sink_one_by_one)
{
    int64_t P = 64;
    cp_counts *t = halo_tables(P);
    cp_counts_view *v = calloc((size_t)P, sizeof *v);
    const cp_counts_view **pv = views_of(t, P, v);
    cp_block tmpl;
    tmpl_of(&tmpl, P);
    for (int refuse = -1; refuse < 2; refuse++) {
        cp_tree root;
        ck_assert_int_eq(cp_counts_build_tree(pv, 0, P, P, true, &root), 0);
        sink_log l = {.refuse = refuse};
        cp_error err;
        int rc = cp_counts_tree_emit(&root, &tmpl, log_sink, &l, &err);
        if (refuse < 0) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_eq(l.n, 2);
            ck_assert_int_eq(l.dirs[0], CP_SEND);
            ck_assert_int_eq(l.dirs[1], CP_RECV);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_int_eq(l.n, refuse + 1);
            char want[64];
            snprintf(want, sizeof want, "sink full at block %d", refuse);
            ck_assert_str_eq(err.msg, want);
        }
    }
    cp_ranges_free(&tmpl.comm_world_ranks);
    for (int64_t r = 0; r < P; r++)
        cp_counts_free(&t[r]);
    free(t);
    free(v);
    free(pv);
}
END_TEST

/* Two ranks that cycle through 32 matrices 100,000 times: the joined
 * sequence is one cycle of 32 runs repeated (not 3.2 million calls), and
 * each of the 32 blocks has every 32nd call. */
START_TEST(cycles_merge_as_cycles)
{
    enum { N = 32, REPS = 100000 };
    cp_counts t[2];
    for (int r = 0; r < 2; r++) {
        cp_counts_init(&t[r]);
        int v[2];
        for (int rep = 0; rep < REPS; rep++)
            for (int i = 0; i < N; i++) {
                v[0] = i + r;
                v[1] = 2 * i;
                cp_vec_arg a = {.present = true, .counts = v, .width = 4, .len = 2, .dtsize = 4};
                cp_counts_record(&t[r], cp_counts_signature(&t[r], &a, &a, -1, CP_SEQ_NONE));
            }
        cp_seq_finish(&t[r].seq);
    }
    cp_counts_view v[2];
    const cp_counts_view **pv = views_of(t, 2, v);
    cp_tree root;
    ck_assert_int_eq(cp_counts_build_tree(pv, 0, 2, 2, true, &root), 0);
    ck_assert_uint_eq(root.seq.total, (uint64_t)N * REPS);
    ck_assert_uint_le(root.seq.nruns, 3 * N);
    cp_block tmpl;
    tmpl_of(&tmpl, 2);
    cp_counts_file out[2];
    memset(out, 0, sizeof out);
    cp_error err;
    ck_assert_int_eq(cp_counts_tree_blocks(&root, &tmpl, out, &err), 0);
    ck_assert_uint_eq(out[CP_SEND].nblocks, N);
    for (size_t i = 0; i < N; i++) {
        const cp_block *b = &out[CP_SEND].blocks[i];
        ck_assert_int_eq(cp_ranges_count(&b->calls), REPS);
        ck_assert(cp_ranges_contains(&b->calls, (int64_t)i + (int64_t)N * (REPS - 1)));
        ck_assert_int_eq(cp_block_count(b, 1, 0), (int64_t)i + 1);
    }
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
    cp_ranges_free(&tmpl.comm_world_ranks);
    cp_tree_free(&root);
    cp_counts_free(&t[0]);
    cp_counts_free(&t[1]);
    free(pv);
}
END_TEST

/* Packed and unpacked, a tree packs to the same bytes and gives the same
 * blocks; every truncation of it, and a wrong peer or signature id, is
 * refused. */
/* The rows' variable-length integers: every width round-trips, the
 * extremes included; a buffer that ends inside one, or one longer than 64
 * bits, is refused, never read past. */
START_TEST(variable_length_integers)
{
    const uint64_t u[] = {0, 1, 127, 128, 16383, 16384, (uint64_t)1 << 35, INT64_MAX, UINT64_MAX};
    const int64_t v[] = {0, -1, 1, -64, 63, -65, 1000000, INT64_MIN, INT64_MAX};
    cp_wbuf w = {0};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        cp_put_uv(&w, u[i]);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        cp_put_sv(&w, v[i]);
    ck_assert(!w.failed);
    cp_rbuf rb = {.p = (const char *)w.p, .len = w.len};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        ck_assert_uint_eq(cp_get_uv(&rb), u[i]);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ck_assert_int_eq(cp_get_sv(&rb), v[i]);
    ck_assert(!rb.bad);
    ck_assert_uint_eq(rb.off, w.len);
    ck_assert_uint_eq(cp_get_uv(&rb), 0); /* nothing left */
    ck_assert(rb.bad);
    cp_rbuf cut = {.p = (const char *)w.p, .len = 4}; /* 0, 1, 127, then half of 128 */
    cp_get_uv(&cut), cp_get_uv(&cut), cp_get_uv(&cut);
    ck_assert(!cut.bad);
    ck_assert_uint_eq(cp_get_uv(&cut), 0);
    ck_assert(cut.bad);
    const char over[11] = {'\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff',
                           '\x02', 0};
    cp_rbuf ob = {.p = over, .len = sizeof over};
    ck_assert_uint_eq(cp_get_uv(&ob), 0);
    ck_assert(ob.bad);
    cp_wbuf_free(&w);
}
END_TEST

/* A tree row holds its values in the shortest variable-length integers,
 * and gives them back as they were: listed (peers increasing, counts of
 * any sign and width) and dense. */
START_TEST(tree_rows_hold_values_short)
{
    int64_t peers[8] = {3, 4, 1000, 999999, 1LL << 40, (1LL << 40) + 1, INT64_MAX - 1, INT64_MAX};
    int64_t counts[8] = {0, -1, 1, 127, 128, -129, INT64_MIN, INT64_MAX};
    for (int listed = 0; listed < 2; listed++) {
        cp_trow r = {0};
        ck_assert_int_eq(cp_trow_set(&r, listed ? peers : NULL, counts, 8), 0);
        ck_assert(r.listed == (listed != 0));
        ck_assert_int_eq(r.n, 8);
        cp_trow_iter it;
        cp_trow_iter_init(&it, &r);
        for (int k = 0; k < 8; k++) {
            int64_t c, p = cp_trow_next(&it, &c);
            ck_assert_int_eq(p, listed ? peers[k] : k);
            ck_assert_int_eq(c, counts[k]);
        }
        ck_assert_ptr_eq(it.p, r.vals + r.nbytes); /* nothing after the last */
        free(r.vals);
    }
    /* Eight peers of a million-rank job and their small counts. */
    int64_t p8[8], c8[8];
    for (int k = 0; k < 8; k++)
        p8[k] = 100000 * (k + 1) + k, c8[k] = 100 + k;
    cp_trow r = {0};
    ck_assert_int_eq(cp_trow_set(&r, p8, c8, 8), 0);
    ck_assert_uint_eq(r.nbytes, 3 + 7 * 3 + 8 * 2);
    free(r.vals);
}
END_TEST

/* A message holding one rank's tree of one dense row of counts {5, 6},
 * the 5 written in `width` bytes (1: its shortest form). */
static void one_row_message(cp_wbuf *w, int width)
{
    cp_put_i64(w, 0); /* ranks [0, 1) of 2 */
    cp_put_i64(w, 1);
    cp_put_i64(w, 2);
    cp_put_u32(w, 1);
    cp_put_u32(w, 1); /* one piece */
    cp_put_i64(w, -1);
    cp_put_u32(w, 0);
    cp_put_u32(w, 1); /* one row */
    cp_put_uv(w, 1);  /* ranks: 0 */
    cp_put_sv(w, 0);
    cp_put_uv(w, 0);
    cp_put_uv(w, 1);
    cp_put_uv(w, CP_TROW_ONE);
    cp_put_uv(w, 0);  /* in_bytes */
    cp_put_sv(w, 0);  /* err */
    cp_put_sv(w, 4);  /* dtsize */
    cp_put_sv(w, 2);  /* len */
    cp_put_sv(w, -1); /* dense */
    for (int k = 1; k < width; k++) { /* 5 zigzagged is 10 */
        unsigned char c = k == 1 ? 10 | 0x80 : 0x80;
        cp_put(w, &c, 1);
    }
    if (width > 1)
        cp_put(w, &(unsigned char){0}, 1);
    else
        cp_put_sv(w, 5);
    cp_put_sv(w, 6);
    cp_put_u32(w, 1); /* one signature: the piece, sent */
    cp_put_u32(w, 0);
    cp_put_u32(w, CP_PIECE_NONE);
    cp_put_uv(w, 0);
    cp_put_u64(w, 1); /* its one call */
    cp_put_u32(w, 1);
    cp_put_u64(w, 1);
    cp_put_u32(w, 0);
    cp_put_u64(w, 1);
}

/* Rows compare by their bytes, so a message's integers must come in their
 * shortest form: the same value written longer is refused. */
START_TEST(tree_rows_refuse_longer_integers)
{
    for (int width = 1; width <= 3; width++) {
        cp_wbuf w = {0};
        one_row_message(&w, width);
        cp_rbuf rb = {.p = (const char *)w.p, .len = w.len};
        cp_tree t;
        int rc = cp_tree_unpack(&rb, &t);
        if (width == 1) {
            ck_assert_int_eq(rc, 0);
            cp_trow_iter it;
            cp_trow_iter_init(&it, &t.pieces[0].rows[0]);
            int64_t count;
            ck_assert_int_eq(cp_trow_next(&it, &count), 0);
            ck_assert_int_eq(count, 5);
            ck_assert_int_eq(cp_trow_next(&it, &count), 1);
            ck_assert_int_eq(count, 6);
            cp_tree_free(&t);
        } else {
            ck_assert_int_eq(rc, -1);
        }
        cp_wbuf_free(&w);
    }
}
END_TEST

START_TEST(tree_pack_roundtrip_and_malformed)
{
    enum { P = 64 };
    cp_counts *t = halo_tables(P);
    cp_counts_view v[P];
    const cp_counts_view **pv = views_of(t, P, v);
    cp_tree root, back;
    ck_assert_int_eq(cp_counts_build_tree(pv, 0, P, P, true, &root), 0);
    cp_wbuf w = {0}, w2 = {0};
    cp_tree_pack(&w, &root);
    cp_rbuf rb = {.p = (const char *)w.p, .len = w.len};
    ck_assert_int_eq(cp_tree_unpack(&rb, &back), 0);
    cp_tree_pack(&w2, &back);
    ck_assert_uint_eq(w.len, w2.len);
    ck_assert_int_eq(memcmp(w.p, w2.p, w.len), 0);
    cp_tree_free(&back);

    for (size_t cut = 0; cut < w.len; cut++) {
        cp_rbuf part = {.p = (const char *)w.p, .len = cut};
        ck_assert_msg(cp_tree_unpack(&part, &back) != 0, "cut at %zu accepted", cut);
    }
    /* The last run's id: beyond the signatures. */
    unsigned char *bad = malloc(w.len);
    memcpy(bad, w.p, w.len);
    uint32_t id = 7;
    memcpy(bad + w.len - 12, &id, sizeof id);
    cp_rbuf b1 = {.p = (char *)bad, .len = w.len};
    ck_assert_int_ne(cp_tree_unpack(&b1, &back), 0);
    free(bad);
    /* A tree that claims more ranks than its communicator has. */
    bad = malloc(w.len);
    memcpy(bad, w.p, w.len);
    int64_t hi = P + 1;
    memcpy(bad + 8, &hi, sizeof hi);
    cp_rbuf b2 = {.p = (char *)bad, .len = w.len};
    ck_assert_int_ne(cp_tree_unpack(&b2, &back), 0);
    free(bad);

    cp_wbuf_free(&w);
    cp_wbuf_free(&w2);
    cp_tree_free(&root);
    for (int r = 0; r < P; r++)
        cp_counts_free(&t[r]);
    free(t);
    free(pv);
}
END_TEST

/* Ranks that send to one peer (everyone to rank 0) share one row by
 * value, not one row per offset. */
START_TEST(same_vector_shares_a_row)
{
    enum { P = 300 };
    cp_counts t[P];
    int *v = calloc(P, sizeof *v);
    v[0] = 5;
    for (int r = 0; r < P; r++) {
        cp_counts_init(&t[r]);
        cp_vec_arg a = {.present = true, .counts = v, .width = 4, .len = P, .dtsize = 4};
        cp_counts_record(&t[r], cp_counts_signature(&t[r], &a, &a, -1, CP_SEQ_NONE));
        cp_seq_finish(&t[r].seq);
    }
    cp_counts_view vv[P];
    const cp_counts_view **pv = views_of(t, P, vv);
    cp_tree root;
    ck_assert_int_eq(cp_counts_build_tree(pv, 0, P, P, true, &root), 0);
    const cp_piece *pc = &root.pieces[root.sigs[0].piece[CP_SEND]];
    ck_assert_uint_eq(pc->nrows, 1);
    ck_assert_int_eq(pc->rows[0].kind, CP_TROW_SAME);
    ck_assert_int_eq(cp_ranges_count(&pc->rows[0].ranks), P);
    cp_tree_free(&root);
    for (int r = 0; r < P; r++)
        cp_counts_free(&t[r]);
    free(v);
    free(pv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, halo_tree_does_not_grow_with_ranks);
    tcase_add_test(tc, cycles_merge_as_cycles);
    tcase_add_test(tc, blocks_go_to_the_sink_one_by_one);
    tcase_add_test(tc, variable_length_integers);
    tcase_add_test(tc, tree_rows_hold_values_short);
    tcase_add_test(tc, tree_rows_refuse_longer_integers);
    tcase_add_test(tc, tree_pack_roundtrip_and_malformed);
    tcase_add_test(tc, same_vector_shares_a_row);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
