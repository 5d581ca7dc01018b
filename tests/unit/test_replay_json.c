/*
 * replay.json (collprof-replay's results): model -> file -> model round
 * trips in both modes, strings that need escaping, and bad files refused
 * with the file, line and column and what was expected.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "replay_json.h"
#include "tmpdir.h"

static cp_replay sample(void)
{
    cp_replay r = {.ranks = 4, .comm = -1, .top = 2, .top_by_bytes = true, .scale_counts = 0.5,
                   .repetitions = 3};
    snprintf(r.profile, sizeof r.profile, "out \"one\"\\two");
    snprintf(r.mpi_library, sizeof r.mpi_library, "MPICH Version:\t4.0.2");
    snprintf(r.note, sizeof r.note, "--top 2: 9 more patterns left out");
    r.patterns = calloc(3, sizeof *r.patterns);
    r.npatterns = 3;
    r.patterns[0] = (cp_replay_pattern){.comm = 0, .remote_comm = -1, .ranks = 4, .first_call = 0,
                                        .calls = 6, .bytes_per_call = 64, .n_sample = 1000,
                                        .t_min = 1.5e-6, .t_avg = 2.25e-6, .t_max = 3e-6,
                                        .projected = 1.35e-5, .has_recorded = true,
                                        .rec_instances = 24, .rec_min = 1e-6,
                                        .rec_median = 2e-6, .rec_max = 0.5, .rec_wait = 0.125};
    snprintf(r.patterns[0].collective, 32, "Alltoallv");
    r.patterns[1] = (cp_replay_pattern){.comm = 2, .remote_comm = 4, .ranks = 4, .first_call = 5,
                                        .calls = 1, .bytes_per_call = 60, .nonblocking = true,
                                        .n_sample = 7, .t_min = 1, .t_avg = 2, .t_max = 3,
                                        .projected = 2, .has_nbc = true, .t_pure = 2,
                                        .t_ovrl = 2.5, .t_cpu = 2, .overlap_percent = 75};
    snprintf(r.patterns[1].collective, 32, "Alltoallv");
    r.patterns[2] = (cp_replay_pattern){.comm = 1, .remote_comm = -1, .ranks = 2, .calls = 3,
                                        .skipped = true};
    snprintf(r.patterns[2].collective, 32, "Bcast");
    snprintf(r.patterns[2].why, 160, "rooted collectives on intercommunicators are not replayed");
    return r;
}

static void path(char *buf, size_t size)
{
    snprintf(buf, size, "%s/replay.json", tmpdir);
}

START_TEST(patterns_round_trip)
{
    cp_replay r = sample(), back;
    char p[512];
    cp_error err = {{0}};
    path(p, sizeof p);
    ck_assert_msg(cp_replay_write_file(p, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_replay_read_file(p, &back, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(back.profile, r.profile);
    ck_assert_str_eq(back.mpi_library, r.mpi_library);
    ck_assert_str_eq(back.note, r.note);
    ck_assert(!back.sequence && back.top_by_bytes && back.comm == -1 && back.top == 2);
    ck_assert(back.scale_counts == 0.5 && back.repetitions == 3 && back.ranks == 4);
    ck_assert_uint_eq(back.npatterns, 3);
    for (size_t i = 0; i < 3; i++) {
        const cp_replay_pattern *a = &r.patterns[i], *b = &back.patterns[i];
        ck_assert_str_eq(a->collective, b->collective);
        ck_assert_str_eq(a->why, b->why);
        ck_assert(a->comm == b->comm && a->remote_comm == b->remote_comm && a->ranks == b->ranks);
        ck_assert(a->first_call == b->first_call && a->calls == b->calls &&
                  a->bytes_per_call == b->bytes_per_call && a->nonblocking == b->nonblocking &&
                  a->skipped == b->skipped && a->n_sample == b->n_sample);
        /* %.9g keeps nine digits: these values are exact in it */
        ck_assert(a->t_min == b->t_min && a->t_avg == b->t_avg && a->t_max == b->t_max &&
                  a->projected == b->projected);
        ck_assert(a->has_recorded == b->has_recorded && a->rec_instances == b->rec_instances &&
                  a->rec_min == b->rec_min && a->rec_median == b->rec_median &&
                  a->rec_max == b->rec_max && a->rec_wait == b->rec_wait);
        ck_assert(a->has_nbc == b->has_nbc && a->t_pure == b->t_pure && a->t_ovrl == b->t_ovrl &&
                  a->t_cpu == b->t_cpu && a->overlap_percent == b->overlap_percent);
    }
    cp_replay_free(&r);
    cp_replay_free(&back);
}
END_TEST

START_TEST(sequence_round_trip)
{
    cp_replay r = {.ranks = 8, .sequence = true, .comm = 3, .scale_counts = 1, .seq_calls = 25,
                   .seq_seconds = 0.125, .seq_has_recorded = true, .seq_recorded = 0.25};
    snprintf(r.collective, sizeof r.collective, "Alltoallv");
    cp_replay back;
    char p[512];
    cp_error err = {{0}};
    path(p, sizeof p);
    ck_assert_msg(cp_replay_write_file(p, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_replay_read_file(p, &back, &err) == 0, "%s", err.msg);
    ck_assert(back.sequence && back.comm == 3 && back.seq_calls == 25);
    ck_assert(back.seq_seconds == 0.125 && back.seq_has_recorded && back.seq_recorded == 0.25);
    ck_assert_str_eq(back.collective, "Alltoallv");
    ck_assert_uint_eq(back.npatterns, 0);
    cp_replay_free(&back);
}
END_TEST

/* Mode tune: the algorithms of each pattern, the settings, the validation. */
START_TEST(tune_round_trip)
{
    cp_replay r = {.ranks = 2, .tune = true, .comm = -1, .scale_counts = 1, .rounds = 5,
                   .has_validation = true, .val_done = true, .val_rounds = 5, .val_calls = 111,
                   .val_own = {4e-5, 3.8e-5, 6e-5}, .val_settings = {3.5e-5, 3.4e-5, 3.9e-5},
                   .val_has_projected = true, .val_projected = 4e-6, .val_projected_lo = 1e-6,
                   .val_projected_hi = 3e-5};
    r.patterns = calloc(2, sizeof *r.patterns);
    r.npatterns = 2;
    cp_replay_pattern *p = &r.patterns[0];
    *p = (cp_replay_pattern){.remote_comm = -1, .ranks = 2, .calls = 100, .bytes_per_call = 20};
    snprintf(p->collective, 32, "Alltoallv");
    snprintf(p->tune.variable, sizeof p->tune.variable, "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM");
    snprintf(p->tune.best, sizeof p->tune.best, "scattered");
    p->tune.beyond_noise = true;
    p->tune.algos = calloc(3, sizeof *p->tune.algos);
    p->tune.nalgos = 3;
    p->tune.algos[0] = (cp_replay_algo){"auto", 0, false, 5, 4e-7, 3.75e-7, 5e-7};
    p->tune.algos[1] = (cp_replay_algo){"pairwise_sendrecv_replace", 2, true, 0, 0, 0, 0};
    p->tune.algos[2] = (cp_replay_algo){"scattered", 3, false, 5, 3e-7, 2.5e-7, 3.5e-7};
    cp_replay_pattern *q = &r.patterns[1];
    *q = (cp_replay_pattern){.comm = 1, .remote_comm = -1, .ranks = 2, .calls = 1};
    snprintf(q->collective, 32, "Bcast");
    snprintf(q->tune.why, sizeof q->tune.why, "no \"choice\" here");
    r.settings = calloc(1, sizeof *r.settings);
    r.nsettings = 1;
    r.settings[0] = (cp_replay_setting){"Alltoallv", "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM", "auto",
                                        "scattered", true, 1e-5, 5e-6, 2e-5, 100, true, 4e-5,
                                        "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=scattered"};
    cp_replay back;
    char path_[512];
    cp_error err = {{0}};
    path(path_, sizeof path_);
    ck_assert_msg(cp_replay_write_file(path_, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_replay_read_file(path_, &back, &err) == 0, "%s", err.msg);
    ck_assert(back.tune && !back.sequence && back.rounds == 5 && back.npatterns == 2);
    const cp_replay_tuned *a = &r.patterns[0].tune, *b = &back.patterns[0].tune;
    ck_assert_str_eq(b->variable, a->variable);
    ck_assert_str_eq(b->best, "scattered");
    ck_assert(b->beyond_noise && b->why[0] == '\0' && b->nalgos == 3);
    for (size_t k = 0; k < 3; k++) {
        ck_assert_str_eq(b->algos[k].name, a->algos[k].name);
        ck_assert(b->algos[k].value == a->algos[k].value &&
                  b->algos[k].refused == a->algos[k].refused &&
                  b->algos[k].rounds == a->algos[k].rounds &&
                  b->algos[k].median == a->algos[k].median &&
                  b->algos[k].fastest == a->algos[k].fastest &&
                  b->algos[k].slowest == a->algos[k].slowest);
    }
    ck_assert_str_eq(back.patterns[1].tune.why, "no \"choice\" here");
    ck_assert_uint_eq(back.patterns[1].tune.nalgos, 0);
    ck_assert_str_eq(back.patterns[1].tune.variable, "");
    ck_assert_uint_eq(back.nsettings, 1);
    const cp_replay_setting *s = &back.settings[0];
    ck_assert_str_eq(s->collective, "Alltoallv");
    ck_assert_str_eq(s->own, "auto");
    ck_assert_str_eq(s->algorithm, "scattered");
    ck_assert_str_eq(s->setting, "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=scattered");
    ck_assert(s->beyond_noise && s->saving == 1e-5 && s->saving_lo == 5e-6 &&
              s->saving_hi == 2e-5 && s->calls == 100 && s->has_recorded && s->recorded == 4e-5);
    ck_assert(back.has_validation && back.val_done && back.val_rounds == 5 &&
              back.val_calls == 111 && back.val_has_projected);
    ck_assert(back.val_own.median == 4e-5 && back.val_own.fastest == 3.8e-5 &&
              back.val_own.slowest == 6e-5 && back.val_settings.median == 3.5e-5 &&
              back.val_projected == 4e-6 && back.val_projected_lo == 1e-6 &&
              back.val_projected_hi == 3e-5);
    cp_replay_free(&back);
    /* a validation not done says why */
    r.val_done = false;
    snprintf(r.val_why, sizeof r.val_why, "no setting to check");
    ck_assert_msg(cp_replay_write_file(path_, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_replay_read_file(path_, &back, &err) == 0, "%s", err.msg);
    ck_assert(back.has_validation && !back.val_done);
    ck_assert_str_eq(back.val_why, "no setting to check");
    cp_replay_free(&back);
    for (size_t i = 0; i < r.npatterns; i++)
        free(r.patterns[i].tune.algos);
    free(r.patterns);
    free(r.settings);
}
END_TEST

/* Each bad file, and the start of the message it must give. */
static const struct {
    const char *text, *message;
} bad[] = {
    {"", "replay.json:1:1: expected a value"},
    {"[]", "replay.json:1:1: expected an object, found an array"},
    {"{\"collprof_replay\":3}", "replay.json:1:1: expected collprof_replay 2 or older, found 3"},
    {"{\"collprof_replay\":1,\"profile\":3}",
     "replay.json:1:32: expected a string for \"profile\", found a number"},
    {"{\"collprof_replay\":1,\"profile\":\"d\",\"mpi_library\":\"m\",\"ranks\":4,"
     "\"mode\":\"fast\",\"options\":{}}",
     "replay.json:1:1: expected \"mode\" patterns or sequence, found \"fast\""},
    {"{\"collprof_replay\":1,\"profile\":\"d\",\"mpi_library\":\"m\",\"ranks\":4,"
     "\"mode\":\"patterns\",\"options\":{\"comm\":null,\"collective\":\"\",\"top\":0,"
     "\"top_by\":\"time\",\"scale_counts\":1,\"repetitions\":0},\"note\":\"\","
     "\"patterns\":[{\"comm\":0}],\"sequence\":null}",
     "replay.json:1:201: expected the key \"remote_comm\" in this object"},
    /* version 1 knows no mode tune; version 2 has "tune" */
    {"{\"collprof_replay\":1,\"profile\":\"d\",\"mpi_library\":\"m\",\"ranks\":4,"
     "\"mode\":\"tune\",\"options\":{}}",
     "replay.json:1:1: expected \"mode\" patterns or sequence, found \"tune\""},
    {"{\"collprof_replay\":2,\"profile\":\"d\",\"mpi_library\":\"m\",\"ranks\":4,"
     "\"mode\":\"patterns\",\"options\":{\"comm\":null,\"collective\":\"\",\"top\":0,"
     "\"top_by\":\"time\",\"scale_counts\":1,\"repetitions\":0},\"note\":\"\","
     "\"patterns\":[],\"sequence\":null}",
     "replay.json:1:1: expected the key \"tune\" in this object"},
    {"{\"collprof_replay\":2,\"profile\":\"d\",\"mpi_library\":\"m\",\"ranks\":4,"
     "\"mode\":\"tune\",\"options\":{\"comm\":null,\"collective\":\"\",\"top\":0,"
     "\"top_by\":\"time\",\"scale_counts\":1,\"repetitions\":0},\"note\":\"\","
     "\"patterns\":[{\"comm\":0,\"remote_comm\":null,\"ranks\":2,\"collective\":\"Bcast\","
     "\"first_call\":0,\"calls\":1,\"bytes_per_call\":8,\"nonblocking\":false,"
     "\"skipped\":null,\"tune\":{\"variable\":\"V\",\"why\":null,\"algorithms\":"
     "[{\"name\":\"auto\",\"value\":0,\"refused\":false,\"rounds\":3,\"median\":null,"
     "\"fastest\":1,\"slowest\":2}],\"best\":\"auto\",\"beyond_noise\":false}}],"
     "\"sequence\":null,\"tune\":null}",
     "replay.json:1:384: expected the times of an algorithm measured in 3 rounds"},
};

START_TEST(bad_files_are_refused_with_where_and_what)
{
    char p[512];
    path(p, sizeof p);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(bad[_i].text, f);
    fclose(f);
    cp_replay r;
    cp_error err = {{0}};
    ck_assert_int_eq(cp_replay_read_file(p, &r, &err), -1);
    const char *m = strstr(err.msg, "replay.json:");
    ck_assert_msg(m && strncmp(m, bad[_i].message, strlen(bad[_i].message)) == 0,
                  "case %d: expected '%s...', got '%s'", _i, bad[_i].message, err.msg);
    ck_assert_ptr_null(r.patterns);
}
END_TEST

/* The one JSON string escaper (manifest, replay.json, export, the CLI's
 * --format json): control characters escaped, valid UTF-8 of 2, 3 and 4
 * bytes kept, every invalid byte (a lone continuation, an overlong form,
 * a surrogate, a cut sequence) as U+FFFD: the output parses as JSON and
 * gives back the valid text. */
static int put_buf(void *ctx, const char *p, size_t n)
{
    strncat(ctx, p, n);
    return 0;
}

START_TEST(json_strings_always_valid)
{
    const char in[] = "a\"b\\c\n\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
                      "\x80 \xc0\xaf \xed\xa0\x80 \xe2\x82";
    char out[512] = "";
    ck_assert_int_eq(cp_json_escape(in, sizeof in - 1, put_buf, out), 0);
    ck_assert_str_eq(out, "\"a\\\"b\\\\c\\n\\u0001 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
                          "\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
                          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\"");
    jv v;
    cp_error err = {{0}};
    ck_assert_msg(cp_json_parse(out, strlen(out), "escaped", &v, &err) == 0, "%s", err.msg);
    cp_jv_free(&v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("replay_json");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
    tcase_add_test(tc, patterns_round_trip);
    tcase_add_test(tc, json_strings_always_valid);
    tcase_add_test(tc, sequence_round_trip);
    tcase_add_test(tc, tune_round_trip);
    tcase_add_loop_test(tc, bad_files_are_refused_with_where_and_what, 0,
                        (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
