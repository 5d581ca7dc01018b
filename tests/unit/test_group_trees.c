/*
 * Many groups' trees at once (merge/group_trees.c), for ranks run one
 * by one over mailboxes as the scale simulator runs them: every rank is in
 * the world, its row and its column of an s x s grid, all moving together.
 * Each group's first member ends with the sum of its members, every member
 * gets back what its parent sent it; a failed member's group is marked
 * failed at the top (and its data still arrive when the op sends partial
 * values); a message cut short is refused and reported, and no rank is
 * left waiting.  Then the two ops finalize moves this way: count tables
 * (merge/counts_stage.c) reach the lead with every rank's counts, and
 * wait-state lists (merge/wait_stage.c) come down to every member
 * equal to the one-process reduction (cp_wait_tree_local).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "counts_merge.h"
#include "counts_stage.h"
#include "group_trees.h"
#include "mailbox.h"
#include "sample_cols.h"
#include "wait_stage.h"

/* A holding's tree and calls of collective k (NULL: none). */
static cp_tree *tree_of(const cp_holding *h, uint32_t k)
{
    const cp_hold_coll *e = cp_holding_at(h, k);
    return e ? e->tree : NULL;
}

static cp_calls_said *said_of(const cp_holding *h, uint32_t k)
{
    const cp_hold_coll *e = cp_holding_at(h, k);
    return e ? e->said : NULL;
}

/* Members m of a group: world rank first + m * stride. */
typedef struct line {
    int64_t first, stride, n;
} line;

static int64_t world_of(const void *members, int64_t m)
{
    const line *l = members;
    return l->first + m * l->stride;
}

/* ------------------------------------------------------------ a sum op */

typedef struct sum {
    int64_t sum, count, down;
    bool has_down;
} sum;

static void sum_pack(void *value, int round, cp_wbuf *b)
{
    (void)round;
    const sum *s = value;
    cp_put_i64(b, s->sum);
    cp_put_i64(b, s->count);
}

static int sum_merge(void *value, int round, cp_rbuf *rb)
{
    (void)round;
    sum *s = value;
    int64_t a = cp_get_i64(rb), c = cp_get_i64(rb);
    if (rb->bad || rb->off != rb->len)
        return CP_GROUP_MALFORMED;
    s->sum += a;
    s->count += c;
    return CP_GROUP_OK;
}

/* Down: the top's sum, times 64, plus the round of the child it is for. */
static void down_pack(void *value, int round, cp_wbuf *b)
{
    const sum *s = value;
    cp_put_i64(b, s->down * 64 + round);
}

static int down_merge(void *value, int round, cp_rbuf *rb)
{
    (void)round;
    sum *s = value;
    int64_t v = cp_get_i64(rb);
    if (rb->bad)
        return CP_GROUP_MALFORMED;
    s->down = v / 64;
    s->has_down = v % 64 == round;
    return CP_GROUP_OK;
}

static const cp_group_op sum_up = {sum_pack, sum_merge, true};
static const cp_group_op sum_up_whole = {sum_pack, sum_merge, false};
static const cp_group_op sum_down = {down_pack, down_merge, false};

/* The grid's groups of each rank: world, row, column. */
typedef struct grid {
    int64_t s, P;
    line world, *rows, *cols;
    cp_groups *g;   /* per rank */
    sum (*v)[3];    /* per rank, per group */
    cp_groups_report *rep;
} grid;

static void grid_make(grid *G, int64_t s, int64_t failing)
{
    G->s = s;
    G->P = s * s;
    G->world = (line){0, 1, G->P};
    G->rows = calloc((size_t)s, sizeof *G->rows);
    G->cols = calloc((size_t)s, sizeof *G->cols);
    G->g = calloc((size_t)G->P, sizeof *G->g);
    G->v = calloc((size_t)G->P, sizeof *G->v);
    G->rep = calloc((size_t)G->P, sizeof *G->rep);
    for (int64_t i = 0; i < s; i++) {
        G->rows[i] = (line){i * s, 1, s};
        G->cols[i] = (line){i, s, s};
    }
    for (int64_t r = 0; r < G->P; r++) {
        cp_groups *g = &G->g[r];
        *g = (cp_groups){.v = calloc(3, sizeof(cp_membership)), .n = 3, .world_of = world_of};
        const line *ls[3] = {&G->world, &G->rows[r / s], &G->cols[r % s]};
        int64_t at[3] = {r, r % s, r / s};
        uint64_t keys[3] = {1, 100 + (uint64_t)(r / s), 200 + (uint64_t)(r % s)};
        for (int k = 0; k < 3; k++) {
            G->v[r][k] = (sum){.sum = r, .count = 1};
            g->v[k] = (cp_membership){.key = {keys[k], 7, 0}, .size = ls[k]->n, .rank = at[k],
                                      .members = ls[k], .value = &G->v[r][k],
                                      .failed = k == 0 && r == failing};
        }
        cp_groups_index(g);
        G->rep[r] = CP_GROUPS_REPORT_INIT;
    }
}

static void grid_run(grid *G, const cp_group_op *up, int64_t corrupt_from)
{
    tmailbox b = {.corrupt_from = corrupt_from};
    cp_tree_io io = tmailbox_io(&b);
    for (int64_t r = G->P - 1; r >= 0; r--) { /* children have higher ranks */
        b.self = r;
        cp_groups_up(&G->g[r], &io, up, &G->rep[r]);
    }
    ck_assert_uint_eq(tmailbox_drain(&b), 0); /* every message was asked for */
    for (int64_t r = 0; r < G->P; r++)
        for (int k = 0; k < 3; k++)
            if (G->g[r].v[k].rank == 0)
                G->v[r][k].down = G->v[r][k].sum;
    for (int64_t r = 0; r < G->P; r++) {
        b.self = r;
        cp_groups_down(&G->g[r], &io, &sum_down, &G->rep[r]);
    }
    ck_assert_uint_eq(tmailbox_drain(&b), 0);
}

static void grid_free(grid *G)
{
    for (int64_t r = 0; r < G->P; r++) {
        cp_groups_free_index(&G->g[r]);
        free(G->g[r].v);
    }
    free(G->g);
    free(G->v);
    free(G->rep);
    free(G->rows);
    free(G->cols);
}

/* Sum of the world ranks of a line's members. */
static int64_t line_sum(const line *l)
{
    int64_t t = 0;
    for (int64_t m = 0; m < l->n; m++)
        t += world_of(l, m);
    return t;
}

START_TEST(sums_up_and_down_every_group)
{
    for (int64_t s = 1; s <= 6; s++) {
        grid G;
        grid_make(&G, s, -1);
        grid_run(&G, &sum_up, -1);
        for (int64_t r = 0; r < G.P; r++) {
            ck_assert_int_eq(G.rep[r].malformed_from, -1);
            ck_assert(!G.rep[r].out_of_memory);
            const line *ls[3] = {&G.world, &G.rows[r / s], &G.cols[r % s]};
            for (int k = 0; k < 3; k++) {
                const cp_membership *m = &G.g[r].v[k];
                ck_assert(!m->failed);
                if (m->rank == 0) {
                    ck_assert_int_eq(G.v[r][k].sum, line_sum(ls[k]));
                    ck_assert_int_eq(G.v[r][k].count, ls[k]->n);
                } else { /* came down with its own round */
                    ck_assert(G.v[r][k].has_down);
                    ck_assert_int_eq(G.v[r][k].down, line_sum(ls[k]));
                }
            }
        }
        grid_free(&G);
    }
}
END_TEST

/* A failed member: its world group fails at the top and below it on the
 * way down; rows and columns are untouched.  Partial: its sum still
 * arrives; whole: what a failed member holds does not go on, so the top
 * misses the subtree of rank 6's ancestor below it (ranks 4 to 7). */
START_TEST(a_failed_member_is_reported_not_waited_for)
{
    for (int partial = 0; partial < 2; partial++) {
        grid G;
        grid_make(&G, 5, 6); /* rank 6: under rank 4, under rank 0 */
        grid_run(&G, partial ? &sum_up : &sum_up_whole, -1);
        ck_assert(G.g[0].v[0].failed);
        ck_assert_int_eq(G.v[0][0].sum, line_sum(&G.world) - (partial ? 0 : 4 + 5 + 6 + 7));
        for (int64_t r = 1; r < G.P; r++) {
            ck_assert(G.g[r].v[0].failed); /* nothing good came down */
            ck_assert(!G.v[r][0].has_down);
            ck_assert(!G.g[r].v[1].failed && !G.g[r].v[2].failed);
        }
        grid_free(&G);
    }
}
END_TEST

/* Every message from rank 3 is cut short: its parents refuse it and say
 * whose it was; nothing is left unread, no rank waits. */
START_TEST(a_message_cut_short_is_refused)
{
    grid G;
    grid_make(&G, 4, -1);
    grid_run(&G, &sum_up, 3);
    /* Rank 3's parents: world 2, row 2 (row 0: members 0..3), column 0
     * (rank 3 is member 0 of column 3: no parent there). */
    ck_assert_int_eq(G.rep[2].malformed_from, 3);
    ck_assert(G.g[2].v[0].failed && G.g[2].v[1].failed);
    ck_assert(G.g[0].v[0].failed);  /* and above them */
    ck_assert(!G.g[0].v[2].failed); /* column 0 never heard from rank 3 */
    ck_assert_int_eq(G.rep[5].malformed_from, -1);
    grid_free(&G);
}
END_TEST

/* Many groups between the same two ranks travel as one batch per round:
 * 1,000 communicators of ranks 0 and 1 (10,000 churned duplicates at
 * finalize) cost one message up and one down, each group's value whole. */
START_TEST(many_groups_one_message_per_peer_and_round)
{
    enum { NG = 1000 };
    static cp_membership mem[2][NG];
    static sum val[2][NG];
    line l = {0, 1, 2};
    cp_groups g[2];
    memset(mem, 0, sizeof mem);
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < NG; k++) {
            mem[r][k] = (cp_membership){.key = {(uint64_t)k + 1, 0, 0}, .size = 2, .rank = r,
                                        .members = &l, .value = &val[r][k]};
            val[r][k] = (sum){.sum = 10 * k + r, .count = 1};
        }
        g[r] = (cp_groups){.v = mem[r], .n = NG, .world_of = world_of};
        cp_groups_index(&g[r]);
    }
    tmailbox box = {.corrupt_from = -1};
    cp_tree_io io = tmailbox_io(&box);
    cp_groups_report rep[2] = {CP_GROUPS_REPORT_INIT, CP_GROUPS_REPORT_INIT};
    box.self = 1;
    cp_groups_up(&g[1], &io, &sum_up, &rep[1]);
    ck_assert_uint_eq(box.n, 1); /* one batch for the thousand groups */
    box.self = 0;
    cp_groups_up(&g[0], &io, &sum_up, &rep[0]);
    for (int k = 0; k < NG; k++) {
        ck_assert(!mem[0][k].failed);
        ck_assert_int_eq(val[0][k].sum, 20 * k + 1);
        ck_assert_int_eq(val[0][k].count, 2);
        val[0][k].down = val[0][k].sum;
    }
    cp_groups_down(&g[0], &io, &sum_down, &rep[0]);
    ck_assert_uint_eq(box.n, 1);
    box.self = 1;
    cp_groups_down(&g[1], &io, &sum_down, &rep[1]);
    for (int k = 0; k < NG; k++) {
        ck_assert(val[1][k].has_down && !mem[1][k].failed);
        ck_assert_int_eq(val[1][k].down, 20 * k + 1);
    }
    ck_assert_uint_eq(tmailbox_drain(&box), 0);
    ck_assert_int_eq(rep[0].malformed_from, -1);
    ck_assert_int_eq(rep[1].malformed_from, -1);
    cp_groups_free_index(&g[0]);
    cp_groups_free_index(&g[1]);
}
END_TEST

/* ------------------------------------------------------- count tables */

static int64_t counts_of(int64_t r, int64_t p, int64_t n)
{
    return p == (r + 1) % n ? r + 1 : p == r ? 2 : 0;
}

START_TEST(count_tables_reach_the_lead)
{
    for (int64_t n = 1; n <= 19; n += 3) {
        line world = {0, 1, n};
        cp_holding *h = calloc((size_t)n, sizeof *h);
        cp_groups *g = calloc((size_t)n, sizeof *g);
        cp_membership *m = calloc((size_t)n, sizeof *m);
        int *v = calloc((size_t)n, sizeof *v);
        tmailbox b = {.corrupt_from = -1};
        cp_tree_io io = tmailbox_io(&b);
        for (int64_t r = n - 1; r >= 0; r--) {
            cp_counts t;
            cp_counts_init(&t);
            for (int64_t p = 0; p < n; p++)
                v[p] = (int)counts_of(r, p, n);
            cp_vec_arg a = {.present = true, .counts = v, .width = 4, .len = n, .dtsize = 4};
            for (int c = 0; c < 2; c++)
                cp_counts_record(&t, cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE));
            cp_seq_finish(&t.seq);
            cp_counts_view view = {t.vecs, t.nvecs, t.sigs, t.nsigs, &t.seq};
            cp_holding_init(&h[r], r, n);
            cp_holding_leaf(&h[r], 3, &view, true);
            cp_counts_free(&t);
            m[r] = (cp_membership){.key = {42, 0, 0}, .size = n, .rank = r, .members = &world,
                                   .value = &h[r]};
            g[r] = (cp_groups){.v = &m[r], .n = 1, .world_of = world_of};
            cp_groups_index(&g[r]);
            cp_groups_report rep = CP_GROUPS_REPORT_INIT;
            b.self = r;
            cp_groups_up(&g[r], &io, &cp_holding_up_op, &rep);
            ck_assert_int_eq(rep.malformed_from, -1);
            cp_groups_free_index(&g[r]);
            if (r)
                ck_assert_ptr_null(tree_of(&h[r], 3)); /* sent: let go */
        }
        ck_assert_uint_eq(tmailbox_drain(&b), 0);
        ck_assert(!m[0].failed && !h[0].failed);
        ck_assert_int_eq(h[0].lo, 0);
        ck_assert_int_eq(h[0].hi, n);
        ck_assert_ptr_nonnull(tree_of(&h[0], 3));
        ck_assert_ptr_nonnull(said_of(&h[0], 3)); /* every member made 2 calls */
        ck_assert(cp_said_agreed(said_of(&h[0], 3)));
        ck_assert_uint_eq(said_of(&h[0], 3)->max, 2);
        cp_block tmpl;
        memset(&tmpl, 0, sizeof tmpl);
        tmpl.comm_size = n;
        cp_ranges_add_range(&tmpl.comm_world_ranks, 0, n - 1);
        strcpy(tmpl.collective, "Alltoallv");
        cp_counts_file out[2];
        memset(out, 0, sizeof out);
        cp_error err;
        ck_assert_int_eq(cp_counts_tree_blocks(tree_of(&h[0], 3), &tmpl, out, &err), 0);
        ck_assert_uint_eq(out[0].nblocks, 1);
        for (int64_t r = 0; r < n; r++)
            for (int64_t p = 0; p < n; p++)
                ck_assert_int_eq(cp_block_count(&out[0].blocks[0], r, (size_t)p),
                                 counts_of(r, p, n));
        cp_counts_file_free(&out[0]);
        cp_counts_file_free(&out[1]);
        cp_ranges_free(&tmpl.comm_world_ranks);
        cp_holding_clear(&h[0]);
        free(h);
        free(g);
        free(m);
        free(v);
    }
}
END_TEST

/* -------------------------------------------------- wait-state lists */

START_TEST(wait_lists_come_down_as_the_local_reduction)
{
    for (int64_t n = 2; n <= 23; n += 7) {
        line world = {0, 1, n};
        enum { CALLS = 5 };
        cp_wseries *w = calloc((size_t)n, sizeof *w);
        cp_membership *m = calloc((size_t)n, sizeof *m);
        cp_groups *g = calloc((size_t)n, sizeof *g);
        cp_wlist *own = calloc((size_t)n, sizeof *own), *local = calloc((size_t)n, sizeof *local);
        tmailbox b = {.corrupt_from = -1};
        cp_tree_io io = tmailbox_io(&b);
        for (int64_t r = 0; r < n; r++) {
            cp_timing_rec recs[CALLS];
            for (int j = 0; j < CALLS; j++) {
                double e = j + 0.001 * (double)((r * 7 + j * 3) % 11);
                recs[j] = (cp_timing_rec){.call = (uint64_t)j, .root = -1, .enter = e,
                                          .start = e, .exit = j + 0.5 + 0.001 * (double)(r % 5)};
            }
            cp_sample cols = cols_of(recs, CALLS);
            ck_assert_int_eq(cp_wseries_start(&w[r], &cols.cols, CALLS, r), 0);
            cp_sample_free(&cols);
            ck_assert_int_eq(cp_wlist_copy(&own[r], &w[r].own), 0);
            m[r] = (cp_membership){.key = {9, 1, 4}, .size = n, .rank = r, .members = &world,
                                   .value = &w[r]};
            g[r] = (cp_groups){.v = &m[r], .n = 1, .world_of = world_of};
        }
        ck_assert_int_eq(cp_wait_tree_local((size_t)n, own, local), 0);
        cp_groups_report rep = CP_GROUPS_REPORT_INIT;
        for (int64_t r = n - 1; r >= 0; r--) {
            b.self = r;
            cp_groups_up(&g[r], &io, &cp_wseries_up_op, &rep);
        }
        ck_assert_int_eq(cp_wseries_top(&w[0], n), 0);
        for (int64_t r = 0; r < n; r++) {
            b.self = r;
            cp_groups_down(&g[r], &io, &cp_wseries_down_op, &rep);
        }
        ck_assert_uint_eq(tmailbox_drain(&b), 0);
        ck_assert_int_eq(rep.malformed_from, -1);
        for (int64_t r = 0; r < n; r++) {
            ck_assert(w[r].have_down && !m[r].failed);
            ck_assert_uint_eq(w[r].down.n, local[r].n);
            ck_assert_uint_eq(w[r].down.n, CALLS);
            ck_assert_mem_eq(w[r].down.v, local[r].v, local[r].n * sizeof(cp_wcall));
            cp_wseries_free(&w[r]);
            cp_wlist_free(&own[r]);
            cp_wlist_free(&local[r]);
        }
        free(w);
        free(m);
        free(g);
        free(own);
        free(local);
    }
}
END_TEST

/* -------------------------------------------- members that disagree */

/* A collective one member called and its peers never did, another that
 * some members called once more than the others: the count tables still
 * reach the lead (nobody waits), which names who made how many calls. */
START_TEST(the_lead_names_members_that_disagree)
{
    enum { N = 11 };
    line world = {0, 1, N};
    cp_holding h[N];
    cp_membership m[N];
    cp_groups g[N];
    tmailbox b = {.corrupt_from = -1};
    cp_tree_io io = tmailbox_io(&b);
    int v[N] = {0};
    for (int64_t r = N - 1; r >= 0; r--) {
        cp_holding_init(&h[r], r, N);
        cp_vec_arg a = {.present = true, .counts = v, .width = 4, .len = N, .dtsize = 4};
        /* collective 2: rank 4 alone, once; collective 5: 3 calls on ranks 0-6 and 9, 4 on 7-8
         * and 10 */
        for (int k = 2; k <= 5; k += 3) {
            int calls = k == 2 ? (r == 4) : (r == 7 || r == 8 || r == 10) ? 4 : 3;
            if (!calls)
                continue;
            cp_counts t;
            cp_counts_init(&t);
            for (int c = 0; c < calls; c++)
                cp_counts_record(&t, cp_counts_signature(&t, &a, &a, -1, CP_SEQ_NONE));
            cp_seq_finish(&t.seq);
            cp_counts_view view = {t.vecs, t.nvecs, t.sigs, t.nsigs, &t.seq};
            cp_holding_leaf(&h[r], (uint32_t)k, &view, true);
            cp_counts_free(&t);
        }
        m[r] = (cp_membership){.key = {7, 0, 0}, .size = N, .rank = r, .members = &world,
                               .value = &h[r]};
        g[r] = (cp_groups){.v = &m[r], .n = 1, .world_of = world_of};
        cp_groups_report rep = CP_GROUPS_REPORT_INIT;
        b.self = r;
        cp_groups_up(&g[r], &io, &cp_holding_up_op, &rep);
        ck_assert_int_eq(rep.malformed_from, -1);
    }
    ck_assert_uint_eq(tmailbox_drain(&b), 0);
    ck_assert(!h[0].failed);
    char text[400];
    ck_assert(!cp_said_agreed(said_of(&h[0], 2)));
    cp_said_text(said_of(&h[0], 2), text, sizeof text);
    ck_assert_str_eq(text, "rank 4: 1, ranks 0-3,5-10: 0");
    ck_assert(!cp_said_agreed(said_of(&h[0], 5)));
    cp_said_text(said_of(&h[0], 5), text, sizeof text);
    ck_assert_str_eq(text, "ranks 7-8,10: 4, ranks 0-6,9: 3");
    for (int r = 0; r < N; r++)
        cp_holding_clear(&h[r]);
}
END_TEST

/* The wait-state stage carries a communicator's series together: a series
 * that one member made and the others did not, or made a different number
 * of times, does not come down (and nobody waits for it); the series all
 * members agree on comes down as the one-process reduction has it. */
START_TEST(wait_series_members_disagree_on_are_left_out)
{
    for (int64_t n = 2; n <= 12; n += 5) {
        line world = {0, 1, n};
        enum { CALLS = 4 };
        cp_wcomm *w = calloc((size_t)n, sizeof *w);
        cp_membership *m = calloc((size_t)n, sizeof *m);
        cp_groups *g = calloc((size_t)n, sizeof *g);
        cp_wlist *own = calloc((size_t)n, sizeof *own), *local = calloc((size_t)n, sizeof *local);
        tmailbox b = {.corrupt_from = -1};
        cp_tree_io io = tmailbox_io(&b);
        for (int64_t r = 0; r < n; r++) {
            cp_timing_rec recs[CALLS];
            for (int j = 0; j < CALLS; j++) {
                double e = j + 0.001 * (double)((r * 5 + j) % 7);
                recs[j] = (cp_timing_rec){.call = (uint64_t)j, .root = -1, .enter = e,
                                          .start = e, .exit = j + 0.5};
            }
            cp_wcomm_init(&w[r]);
            /* agreed; the members' samples at levels 0, 1, 2, 0, ... */
            cp_sample cols = cols_of(recs, CALLS);
            ck_assert_int_eq(cp_wcomm_add(&w[r], 1, CALLS, &cols.cols, CALLS, r, (uint32_t)(r % 3)), 0);
            ck_assert_int_eq(cp_wlist_copy(&own[r], &cp_wcomm_series(&w[r], 1)->own), 0);
            if (r == n - 1) /* only the last member */
                ck_assert_int_eq(cp_wcomm_add(&w[r], 3, 1, &cols.cols, 1, r, 0), 0);
            if (r == 0) /* only the lead: its children bring none of it up */
                ck_assert_int_eq(cp_wcomm_add(&w[r], 4, 2, &cols.cols, 2, r, 0), 0);
            /* every member but the first makes one call more */
            ck_assert_int_eq(cp_wcomm_add(&w[r], 6, r ? 2 : 1, &cols.cols, r ? 2 : 1, r, 0), 0);
            cp_sample_free(&cols);
            m[r] = (cp_membership){.key = {5, 1, 0}, .size = n, .rank = r, .members = &world,
                                   .value = &w[r]};
            g[r] = (cp_groups){.v = &m[r], .n = 1, .world_of = world_of};
        }
        ck_assert_int_eq(cp_wait_tree_local((size_t)n, own, local), 0);
        cp_groups_report rep = CP_GROUPS_REPORT_INIT;
        for (int64_t r = n - 1; r >= 0; r--) {
            b.self = r;
            cp_groups_up(&g[r], &io, &cp_wcomm_up_op, &rep);
        }
        uint32_t left_out = 0;
        cp_wcomm_top(&w[0], n, &left_out);
        ck_assert_uint_eq(left_out, 1u << 3 | 1u << 4 | 1u << 6);
        for (int64_t r = 0; r < n; r++) {
            b.self = r;
            cp_groups_down(&g[r], &io, &cp_wcomm_down_op, &rep);
        }
        ck_assert_uint_eq(tmailbox_drain(&b), 0);
        ck_assert_int_eq(rep.malformed_from, -1);
        for (int64_t r = 0; r < n; r++) {
            ck_assert(!m[r].failed);
            ck_assert(cp_wcomm_down(&w[r], 1));
            ck_assert(!cp_wcomm_down(&w[r], 3) && !cp_wcomm_down(&w[r], 4) &&
                      !cp_wcomm_down(&w[r], 6));
            /* each call of the list stands for the coarsest member's block */
            ck_assert(cp_wcomm_weight(&w[r], 1) == (n >= 3 ? 4.0 : 2.0));
            ck_assert_uint_eq(cp_wcomm_series(&w[r], 1)->down.n, local[r].n);
            ck_assert_mem_eq(cp_wcomm_series(&w[r], 1)->down.v, local[r].v, local[r].n * sizeof(cp_wcall));
            cp_wcomm_free(&w[r]);
            cp_wlist_free(&own[r]);
            cp_wlist_free(&local[r]);
        }
        free(w);
        free(m);
        free(g);
        free(own);
        free(local);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("group_trees");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, sums_up_and_down_every_group);
    tcase_add_test(tc, a_failed_member_is_reported_not_waited_for);
    tcase_add_test(tc, a_message_cut_short_is_refused);
    tcase_add_test(tc, many_groups_one_message_per_peer_and_round);
    tcase_add_test(tc, count_tables_reach_the_lead);
    tcase_add_test(tc, wait_lists_come_down_as_the_local_reduction);
    tcase_add_test(tc, the_lead_names_members_that_disagree);
    tcase_add_test(tc, wait_series_members_disagree_on_are_left_out);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
