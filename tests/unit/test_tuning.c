/*
 * The MPI-free half of collprof-replay --tune (tools/replay/tuning.h).
 *
 * MPICH's algorithm names read from its control variables' descriptions:
 * tests/data/mpich/algorithm_cvars.txt holds, one "NAME|DESCRIPTION" a line,
 * every MPIR_CVAR_..._ALGORITHM of MPICH 4.0.2 exactly as MPI_T gives it
 * (the line ends removed); algorithm_names.txt the names each lists, in
 * order, as MPICH's documentation of these variables gives them ("-": the
 * intra-node ones, whose first value is not "auto", are not read).
 *
 * The numbers: a winner only beyond the rounds' spread, and a collective's
 * one setting over its patterns, on times made up for the purpose.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

static FILE *open_data(const char *name)
{
    const char *root = getenv("CP_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/mpich/%s", root ? root : ".", name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    return f;
}

/* The names as one "a,b,c" line, or "-" when the text is not read. */
static void joined(const char *desc, char *out, size_t size)
{
    char names[REPLAY_ALGO_MAX][REPLAY_ALGO_NAME];
    int n = replay_mpich_algo_names(desc, names, REPLAY_ALGO_MAX);
    snprintf(out, size, "%s", n < 0 ? "-" : "");
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? "," : "", names[i]);
    }
}

START_TEST(every_variable_of_mpich_4_0_2)
{
    FILE *cv = open_data("algorithm_cvars.txt"), *want = open_data("algorithm_names.txt");
    static char line[16384], expect[4096], got[4096];
    int lines = 0, read = 0;
    while (fgets(line, sizeof line, cv)) {
        line[strcspn(line, "\n")] = '\0';
        char *bar = strchr(line, '|');
        ck_assert_ptr_nonnull(bar);
        ck_assert_ptr_nonnull(fgets(expect, sizeof expect, want));
        expect[strcspn(expect, "\n")] = '\0';
        char *ebar = strchr(expect, '|');
        ck_assert_ptr_nonnull(ebar);
        *bar = *ebar = '\0';
        ck_assert_str_eq(line, expect);
        joined(bar + 1, got, sizeof got);
        ck_assert_msg(strcmp(got, ebar + 1) == 0, "%s: read %s, MPICH lists %s", line, got,
                      ebar + 1);
        lines++;
        read += got[0] != '-';
    }
    fclose(cv);
    fclose(want);
    ck_assert_int_eq(lines, 88);
    ck_assert_int_eq(read, 84);
}
END_TEST

/* The glue that has two readings, each way round. */
START_TEST(glued_names)
{
    char got[512];
    joined("Variable to select alltoallv algorithmauto - Internal algorithm selection (can be "
           "overridden with X)nb      - Force nonblocking algorithmscattered - Force scattered "
           "algorithm",
           got, sizeof got);
    ck_assert_str_eq(got, "auto,nb,scattered");
    joined("Variable to select x algorithmauto - Internal (x)sched_auto - Internal algorithm "
           "selection for sched-based algorithmssched_ring - Force ring algorithmsched_smp - "
           "Force smp algorithm",
           got, sizeof got);
    ck_assert_str_eq(got, "auto,sched_auto,sched_ring,sched_smp");
}
END_TEST

/* Text that cannot be read without guessing gives nothing. */
START_TEST(unreadable)
{
    char got[512];
    joined("", got, sizeof got);
    ck_assert_str_eq(got, "-");
    joined("no items at all", got, sizeof got);
    ck_assert_str_eq(got, "-");
    /* glued to a word MPICH does not end its lines with */
    joined("Variable to select x algorithmauto - Internal selectionwordnb - Force nb", got,
           sizeof got);
    ck_assert_str_eq(got, "-");
    /* a name twice */
    joined("Select algorithmauto - a (x)nb - b (y)nb - c", got, sizeof got);
    ck_assert_str_eq(got, "-");
    /* the first value is not the library's own choice */
    joined("Select (x)nb - a (y)auto - b", got, sizeof got);
    ck_assert_str_eq(got, "-");
}
END_TEST

/* A pattern's algorithms with made-up rounds: us[k * rounds + r] in
 * microseconds; a first round below 0 marks the algorithm refused. */
static void make(replay_tuned *t, const char *cvar, int nalgs, int rounds, const double *us)
{
    memset(t, 0, sizeof *t);
    snprintf(t->algos.cvar, sizeof t->algos.cvar, "%s", cvar);
    t->algos.n = nalgs;
    for (int k = 0; k < nalgs; k++) {
        snprintf(t->algos.names[k], REPLAY_ALGO_NAME, "alg%d", k);
        double v[8];
        for (int r = 0; r < rounds; r++)
            v[r] = us[k * rounds + r] * 1e-6;
        bool refused = us[k * rounds] < 0;
        replay_tune_summarise(v, refused ? 0 : rounds, &t->t[k]);
        t->t[k].refused = refused;
    }
    replay_tune_winner(t);
}

START_TEST(rounds_summarised)
{
    replay_tune_time t;
    double v[] = {3, 1, 2, 10};
    replay_tune_summarise(v, 4, &t);
    ck_assert_int_eq(t.rounds, 4);
    ck_assert(t.lo == 1 && t.hi == 10 && t.median == 2.5);
    double w[] = {5, 4, 6};
    replay_tune_summarise(w, 3, &t);
    ck_assert(t.lo == 4 && t.hi == 6 && t.median == 5);
}
END_TEST

START_TEST(winner_only_beyond_the_spread)
{
    replay_tuned t;
    /* alg1 faster in every round than alg0 in any: a winner */
    make(&t, "X", 2, 3, (const double[]){10, 11, 12, 7, 8, 9});
    ck_assert_int_eq(t.best, 1);
    ck_assert(t.clear);
    /* a faster median, but its slowest round is slower than alg0's fastest */
    make(&t, "X", 2, 3, (const double[]){10, 11, 12, 7, 8, 10.5});
    ck_assert_int_eq(t.best, 1);
    ck_assert(!t.clear);
    /* the own choice fastest */
    make(&t, "X", 3, 3, (const double[]){5, 5, 5, 7, 8, 9, 6, 6, 6});
    ck_assert_int_eq(t.best, 0);
    ck_assert(!t.clear);
    /* a refused algorithm is never the winner */
    make(&t, "X", 3, 3, (const double[]){10, 10, 10, -1, -1, -1, 9, 9, 9});
    ck_assert_int_eq(t.best, 2);
    ck_assert(t.clear);
}
END_TEST

START_TEST(one_setting_per_collective)
{
    replay_tuned a, b, other;
    /* a: alg1 saves 2 us a call, alg2 1 us; b: alg1 costs 1 us more, alg2 refused */
    make(&a, "X", 3, 3, (const double[]){10, 10, 10, 8, 8, 8, 9, 9, 9});
    make(&b, "X", 3, 3, (const double[]){5, 5, 5, 6, 6, 6, -1, -1, -1});
    make(&other, "Y", 2, 3, (const double[]){1, 1, 1, 0.5, 0.5, 0.5});
    replay_tune_use u[] = {{&a, 100, 1e-3, 4}, {&b, 100, 5e-4, 8}, {&other, 1000, 1e-3, 4}};
    /* alg1: 100 x 2 - 100 x 1 = 100 us; alg2: 100 x 1 + 0 (b left to the own
     * choice) = 100 us: a tie keeps the first */
    replay_tune_choice c = replay_tune_choose(u, 3, "X", -1);
    ck_assert_int_eq(c.k, 1);
    ck_assert(c.clear);
    ck_assert_double_eq_tol(c.saving, 100e-6, 1e-12);
    ck_assert_int_eq(c.calls, 200);
    ck_assert_double_eq_tol(c.recorded, 1.5e-3, 1e-12);
    /* many more calls of b: alg1 loses there, alg2 does not */
    u[1].calls = 1000;
    c = replay_tune_choose(u, 3, "X", -1);
    ck_assert_int_eq(c.k, 2);
    ck_assert_double_eq_tol(c.saving, 100e-6, 1e-12);
    /* per communicator size (Open MPI's rules file): a alone, b alone */
    c = replay_tune_choose(u, 3, "X", 4);
    ck_assert_int_eq(c.k, 1);
    ck_assert_int_eq(c.calls, 100);
    ck_assert_double_eq_tol(c.saving, 200e-6, 1e-12);
    c = replay_tune_choose(u, 3, "X", 8);
    ck_assert_int_eq(c.k, 0);
    ck_assert(!c.clear);
    c = replay_tune_choose(u, 3, "X", 16);
    ck_assert_int_eq(c.calls, 0);
    /* the other collective alone, its recorded time unknown */
    u[2].recorded = -1;
    c = replay_tune_choose(u, 3, "Y", -1);
    ck_assert_int_eq(c.k, 1);
    ck_assert_double_eq_tol(c.saving, 500e-6, 1e-12);
    ck_assert(c.recorded < 0);
    /* rounds that spread: the saving's lower bound below 0, no setting */
    make(&other, "Y", 2, 3, (const double[]){1, 1, 3, 0.5, 0.5, 2});
    c = replay_tune_choose(u, 3, "Y", -1);
    ck_assert_int_eq(c.k, 1);
    ck_assert(c.lo < 0 && !c.clear);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tuning");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_variable_of_mpich_4_0_2);
    tcase_add_test(tc, glued_names);
    tcase_add_test(tc, unreadable);
    tcase_add_test(tc, rounds_summarised);
    tcase_add_test(tc, winner_only_beyond_the_spread);
    tcase_add_test(tc, one_setting_per_collective);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
