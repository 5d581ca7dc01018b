/*
 * cp_profile_check on the files of a timed run (tools/reader/check_timing.c,
 * check_visits.c): the consistent fixture (timing_fixture.h) passes, and
 * each kind of inconsistency, made by changing one model before writing it
 * or one file after, is reported on a line of its own.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"
#include "timing_fixture.h"
#include "tmpdir.h"

/* The problems of the directory (at most 8 KiB of them), their number in *n. */
static const char *check_dir(long *n)
{
    static char out[8192];
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    memset(out, 0, sizeof out);
    FILE *f = fmemopen(out, sizeof out - 1, "w");
    ck_assert_ptr_nonnull(f);
    *n = cp_profile_check(&p, f);
    fclose(f);
    cp_profile_free(&p);
    return out;
}

static void write_dir(const tfx *t)
{
    cp_error err = {{0}};
    ck_assert_msg(tfx_write(tmpdir, t, &err) == 0, "%s", err.msg);
}

START_TEST(consistent_directory_passes)
{
    tfx t;
    tfx_build(&t);
    write_dir(&t);
    long n;
    const char *out = check_dir(&n);
    ck_assert_msg(n == 0, "%ld problems:\n%s", n, out);
    tfx_free(&t);
}
END_TEST

/* ------------------------------------------------ one change, one problem */

static uint64_t *visits(tfx *t, size_t cnode, size_t rank)
{
    return (uint64_t *)t->cube.values[0] + cnode * t->cube.nlocations + rank;
}

static void stat_pattern_unknown(tfx *t)
{
    snprintf(t->stat.patterns[0].name, sizeof t->stat.patterns[0].name, "mpi_bogus");
}

static void stat_metric_id(tfx *t)
{
    t->stat.layout = CP_STAT_LAYOUT_DOCUMENTED;
    t->stat.patterns[0].metric_id = 1;
}

static void stat_cnode(tfx *t)
{
    t->stat.patterns[0].events[0].cnode = 9;
}

static void stat_rank(tfx *t)
{
    t->stat.patterns[0].events[0].rank = 5;
}

static void cube_locations(tfx *t)
{
    t->cube.nlocations = 2;
}

static void cube_host(tfx *t)
{
    snprintf(t->cube.hosts[1].name, sizeof t->cube.hosts[1].name, "c");
}

static void cube_few_visits(tfx *t)
{
    *visits(t, 1, 0) = 2; /* rank 0 has a row in Alltoallv calls 0-2 */
}

static void cube_many_visits(tfx *t)
{
    *visits(t, 3, 1) = 1; /* rank 1 is not in communicator 1 (Alltoall) */
}

static void cpt_unknown_comm(tfx *t)
{
    t->cpt.chunks[1].series[0].comm_id = 7;
}

static void cpt_not_member(tfx *t)
{
    cp_cpt_series *s = &t->cpt.chunks[1].series[0]; /* Alltoallv calls 0-2 */
    s->comm_id = 1;
    snprintf(s->collective, sizeof s->collective, "Alltoall"); /* calls 0-3 */
}

static void cpt_call(tfx *t)
{
    t->cpt.chunks[0].series[0].call[2] = 5;
}

static void cpt_world(tfx *t)
{
    cp_cpt_chunk_free(&t->cpt.chunks[2]);
    t->cpt.world_size = 2;
}

static void stat_missing(tfx *t)
{
    t->skip_stat = true;
}

static void cube_unlisted(tfx *t)
{
    t->unlisted = "profile.cubex";
}

/* after writing: a file replaced by text that does not parse */
static void overwrite(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void cube_corrupt(tfx *t)
{
    (void)t;
    overwrite("profile.cubex", "not an archive\n");
}

static void stat_corrupt(tfx *t)
{
    (void)t;
    overwrite("profile.stat", "PatternName Count\n");
}

static const struct change {
    const char *what;
    void (*before)(tfx *t); /* on the models */
    void (*after)(tfx *t);  /* on the files */
    long problems;          /* -1: at least one */
    const char *line;       /* a line of the report (prefix) */
} changes[] = {
    {"pattern not a metric", stat_pattern_unknown, NULL, 1,
     "profile.stat: pattern mpi_bogus is not a metric of profile.cubex\n"},
    {"MetricID", stat_metric_id, NULL, 1,
     "profile.stat: pattern mpi_wait_nxn: MetricID 1, but it is metric 2 of profile.cubex\n"},
    {"instance at no cnode", stat_cnode, NULL, 1,
     "profile.stat: pattern mpi_wait_nxn: an instance at cnode 9, but profile.cubex has 4 "
     "call-tree nodes\n"},
    {"instance of no rank", stat_rank, NULL, 1,
     "profile.stat: pattern mpi_wait_nxn: an instance of rank 5, but the world has 3 ranks\n"},
    {"locations", cube_locations, NULL, -1,
     "profile.cubex: 2 locations (processes), but the world has 3 ranks (manifest.json)\n"},
    {"hosts", cube_host, NULL, 1,
     "profile.cubex, timings.cpt: world rank 2 runs on host c in profile.cubex, on b in "
     "timings.cpt (1 of 3 ranks differ)\n"},
    {"fewer visits than rows", cube_few_visits, NULL, 1,
     "profile.cubex: Alltoallv: world rank 0 has 2 visits, but a row in 3 calls of the count "
     "files (1 of 3 ranks have fewer visits than calls with a row)\n"},
    {"more visits than calls", cube_many_visits, NULL, 1,
     "profile.cubex: Alltoall: world rank 1 has 1 visit, but the count files record 0 calls "
     "on its communicators (1 of 3 ranks have more visits than recorded calls)\n"},
    {"series of no communicator", cpt_unknown_comm, NULL, 1,
     "timings.cpt: world rank 1: Alltoallv on communicator 7, which is not in the "
     "communicator table of manifest.json\n"},
    {"series of another communicator", cpt_not_member, NULL, 1,
     "timings.cpt: world rank 1: Alltoall on communicator 1, of which it is not a member\n"},
    {"call not recorded", cpt_call, NULL, 1,
     "timings.cpt: world rank 0, communicator 0, Alltoallv: call 5 is timed but not recorded "
     "in the count files (1 of 3 timed calls)\n"},
    {"world size", cpt_world, NULL, 1,
     "timings.cpt: 2 ranks, but the world has 3 ranks (manifest.json)\n"},
    {"listed, missing", stat_missing, NULL, 1,
     "manifest.json: lists profile.stat, which is not in the directory\n"},
    {"there, unlisted", cube_unlisted, NULL, 1,
     "profile.cubex: not listed in the \"files\" of manifest.json\n"},
    {"cube does not parse", NULL, cube_corrupt, 1, "profile.cubex: "},
    {"stat does not parse", NULL, stat_corrupt, 1, "profile.stat:1: expected the header line"},
};

START_TEST(each_inconsistency_reported)
{
    const struct change *c = &changes[_i];
    tfx t;
    tfx_build(&t);
    if (c->before)
        c->before(&t);
    write_dir(&t);
    if (c->after)
        c->after(&t);
    long n;
    const char *out = check_dir(&n);
    if (c->problems >= 0)
        ck_assert_msg(n == c->problems, "%s: %ld problems, expected %ld:\n%s", c->what, n,
                      c->problems, out);
    else
        ck_assert_msg(n > 0, "%s: no problem reported", c->what);
    /* the expected line, at the start of a line */
    const char *at = strstr(out, c->line);
    ck_assert_msg(at && (at == out || at[-1] == '\n'), "%s: no line \"%s\" in:\n%s", c->what,
                  c->line, out);
    ck_assert_msg(!strstr(out, tmpdir), "%s: the report names the directory:\n%s", c->what,
                  out);
    tfx_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check_timing");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
    tcase_add_test(tc, consistent_directory_passes);
    tcase_add_loop_test(tc, each_inconsistency_reported, 0,
                        (int)(sizeof changes / sizeof changes[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
