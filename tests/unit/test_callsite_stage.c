/*
 * The call-path stage of one rank, up and down (merge/callsite_stage.c),
 * for n ranks run one by one over mailboxes as the scale simulator runs
 * them: rank 0 ends with the job's distinct nodes, every rank's paths get
 * the ids rank 0 gave them, for any n; when a rank fails on the way up,
 * every rank learns that its ids are missing (none is left waiting, none
 * gets wrong ids); a tree cut short is refused.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite_stage.h"
#include "mailbox.h"

/* Rank r's paths: main > work (every rank), main > io (odd ranks),
 * main > r%3 (a function per residue): leaves into leaf[0..2] (-1: none). */
static void own_paths(int64_t r, cp_ptree *t, int64_t leaf[3])
{
    static const char *third[] = {"zero", "one", "two"};
    const char *fn[3] = {"work", r % 2 ? "io" : NULL, third[r % 3]};
    for (int i = 0; i < 3; i++) {
        leaf[i] = -1;
        if (!fn[i])
            continue;
        cp_callsite_node f = {0}, g = {.address = 0x100 + (uint64_t)i};
        snprintf(f.function, sizeof f.function, "main");
        snprintf(f.module, sizeof f.module, "/app");
        snprintf(g.function, sizeof g.function, "%s", fn[i]);
        snprintf(g.module, sizeof g.module, "/app");
        int64_t at = cp_ptree_child(t, -1, &f);
        leaf[i] = cp_ptree_child(t, at, &g);
        ck_assert_int_ge(leaf[i], 0);
    }
}

/* The id of main > fn in the numbered tree, -1 when absent. */
static int64_t id_of(const cp_manifest *m, const char *fn)
{
    for (size_t i = 0; i < m->ncall_tree; i++)
        if (m->call_tree[i].parent >= 0 && !strcmp(m->call_tree[i].function, fn))
            return (int64_t)i;
    return -1;
}

/* Run n ranks (rank `failing` fails its own paths; messages from
 * `corrupt_from` lose a byte).  Returns how many ranks got their ids;
 * each that did must have rank 0's. */
static int64_t run(int64_t n, int64_t failing, int64_t corrupt_from, size_t *nodes)
{
    cp_paths_rank *st = calloc((size_t)n, sizeof *st);
    int64_t (*leaf)[3] = calloc((size_t)n, sizeof *leaf);
    tmailbox b = {.corrupt_from = corrupt_from};
    cp_tree_io io = tmailbox_io(&b);
    for (int64_t r = n - 1; r >= 0; r--) {
        st[r].t = (cp_ptree){.first_root = -1, .last_root = -1};
        own_paths(r, &st[r].t, leaf[r]);
        st[r].ok = r != failing;
        b.self = r;
        cp_paths_up(&st[r], r, n, &io);
    }
    cp_manifest m;
    memset(&m, 0, sizeof m);
    int64_t with_ids = 0;
    static const char *fns[] = {"work", "io", "zero", "one", "two"};
    for (int64_t r = 0; r < n; r++) {
        b.self = r;
        bool ok = cp_paths_down(&st[r], r, n, &io, &m);
        ck_assert(ok == (st[r].ids != NULL));
        with_ids += ok;
        const char *mine[3] = {"work", r % 2 ? "io" : NULL, fns[2 + r % 3]};
        for (int i = 0; ok && i < 3; i++)
            if (mine[i])
                ck_assert_int_eq(st[r].ids[leaf[r][i]], id_of(&m, mine[i]));
    }
    *nodes = m.ncall_tree;
    ck_assert_uint_eq(tmailbox_drain(&b), 0); /* every message was asked for */
    for (int64_t r = 0; r < n; r++)
        cp_paths_rank_free(&st[r]);
    free(st);
    free(leaf);
    free(m.call_tree);
    return with_ids;
}

START_TEST(every_rank_gets_rank_0s_ids)
{
    static const int64_t sizes[] = {1, 2, 3, 5, 8, 13, 32, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t nodes;
        ck_assert_int_eq(run(sizes[s], -1, -1, &nodes), sizes[s]);
        /* main, work, io (from 2 ranks on), zero/one/two (as many as residues) */
        size_t want = 2 + (sizes[s] > 1) + (size_t)(sizes[s] < 3 ? sizes[s] : 3);
        ck_assert_uint_eq(nodes, want);
    }
}
END_TEST

START_TEST(a_failure_reaches_every_rank)
{
    size_t nodes;
    ck_assert_int_eq(run(13, 6, -1, &nodes), 0); /* rank 6's own paths failed */
    ck_assert_uint_eq(nodes, 0);
    ck_assert_int_eq(run(13, 0, -1, &nodes), 0); /* rank 0's */
    ck_assert_int_eq(run(13, -1, 9, &nodes), 0); /* rank 9's tree and ids cut short */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("callsite_stage");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, every_rank_gets_rank_0s_ids);
    tcase_add_test(tc, a_failure_reaches_every_rank);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
