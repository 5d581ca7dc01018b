/*
 * The reader merging a run's partial profiles (tools/reader/partials.c):
 * an output directory with only partial.rank<R>/ folders, as a run that
 * ended without MPI_Finalize leaves it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collprof/reader.h"
#include "cpt.h"
#include "tmpdir.h"

static void put(const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0755);
    *slash = '/';
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

/* partial.rank<r>/manifest.json: comms is the JSON of its communicators */
static void manifest(int r, const char *job, int world, const char *start, const char *why,
                     const char *comms)
{
    char rel[64], text[2048];
    snprintf(rel, sizeof rel, "partial.rank%d/manifest.json", r);
    snprintf(text, sizeof text,
             "{\"format\": \"collprof-manifest\", \"format_version\": 1, "
             "\"counts_format_version\": 4, \"collprof_version\": \"0.1.0\", "
             "\"mpi_version\": \"test\", \"job\": \"%s\", \"start_time\": \"%s\", "
             "\"world_size\": %d, \"partial\": true, "
             "\"partial_reason\": \"%s; rank %d's own data only\", \"config\": {}, "
             "\"communicators\": [%s], \"files\": [\"manifest.json\", "
             "\"send-counters.rank%d.txt\"]}\n",
             job, start, world, why, r, comms, r);
    put(rel, text);
}

/* One block of a rank's own row. */
static void block(char *out, size_t size, int comm, const char *members, int nranks, int dt,
                  const char *all, const char *calls, int rank, const char *counts)
{
    size_t n = strlen(out);
    snprintf(out + n, size - n,
             "# Raw counters\nCommunicator: %d (size %d, world ranks %s)\nCollective: Alltoallv\n"
             "Number of ranks: %d\nDatatype size: %d\nAlltoallv calls %s\n"
             "Count: %d calls - %s\n\nBEGINNING DATA\nRank(s) %d: %s\nEND DATA\n\n",
             comm, nranks, members, nranks, dt, all,
             (int)(strchr(calls, '-') ? calls[2] - calls[0] + 1 : 1), calls, rank, counts);
}

static const char *const W = "2026-11-25T06:00:00";

/* Three ranks: 0 and 1 got SIGTERM after three calls on the world and one
 * on a duplicate (rank 1 with another numbering of its communicators, and
 * doubles in its third call), rank 2 crashed after two calls; partial.rank3
 * holds nothing readable. */
static void write_run(void)
{
    char t[4096] = "# collprof counts 1\n";
    block(t, sizeof t, 0, "0-2", 3, 4, "0-2", "0-1", 0, "1 1 1");
    block(t, sizeof t, 0, "0-2", 3, 4, "0-2", "2", 0, "2 2 2");
    block(t, sizeof t, 1, "0-2", 3, 4, "0", "0", 0, "5 5 5");
    put("partial.rank0/send-counters.rank0.txt", t);
    manifest(0, "j1", 3, W, "SIGTERM sent by process 7",
             "{\"id\": 0, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}, "
             "{\"id\": 1, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}");

    strcpy(t, "# collprof counts 1\n");
    block(t, sizeof t, 1, "0-2", 3, 4, "0-2", "0-1", 1, "3 3 3");
    block(t, sizeof t, 1, "0-2", 3, 8, "0-2", "2", 1, "3 3 3");
    block(t, sizeof t, 2, "0-2", 3, 4, "0", "0", 1, "6 6 6");
    block(t, sizeof t, 0, "1", 1, 4, "0", "0", 0, "9");
    put("partial.rank1/send-counters.rank1.txt", t);
    manifest(1, "j1", 3, "2026-11-25T06:00:01", "SIGTERM sent by process 7",
             "{\"id\": 0, \"size\": 1, \"lead\": 1, \"members\": \"1\"}, "
             "{\"id\": 1, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}, "
             "{\"id\": 2, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}");

    strcpy(t, "# collprof counts 1\n");
    block(t, sizeof t, 0, "0-2", 3, 4, "0-1", "0-1", 2, "4 4 4");
    put("partial.rank2/send-counters.rank2.txt", t);
    manifest(2, "j1", 3, W, "SIGSEGV at address (nil)",
             "{\"id\": 0, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}");
    put("partial.rank3/notes.txt", "not a profile\n");
}

static const cp_row *row_of(const cp_block *b, int64_t rank)
{
    for (size_t r = 0; r < b->nrows; r++)
        for (size_t i = 0; i < b->rows[r].ranks.n; i++)
            if (b->rows[r].ranks.v[i].lo <= rank && rank <= b->rows[r].ranks.v[i].hi)
                return &b->rows[r];
    return NULL;
}

START_TEST(merged_by_call_index)
{
    tmpdir_make();
    write_run();
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(p.npartials, 3);
    ck_assert(p.has_manifest && p.manifest.partial);
    ck_assert_str_eq(p.manifest.job, "j1");
    ck_assert_int_eq(p.manifest.world_size, 3);
    ck_assert_ptr_nonnull(strstr(p.manifest.partial_reason, "3 of 3 ranks"));
    /* the world, its duplicate, rank 1's own: largest first, in order */
    ck_assert_uint_eq(p.manifest.ncomms, 3);
    ck_assert_int_eq(p.manifest.comms[0].size, 3);
    ck_assert_int_eq(p.manifest.comms[1].size, 3);
    ck_assert_int_eq(p.manifest.comms[2].size, 1);
    ck_assert_int_eq(p.manifest.comms[2].lead, 1);

    /* calls 0-1 of the world: every rank's row */
    const cp_block *b = cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_ranges_count(&b->calls), 2);
    ck_assert_int_eq(row_of(b, 0)->counts[0], 1);
    ck_assert_int_eq(row_of(b, 1)->counts[0], 3);
    ck_assert_int_eq(row_of(b, 2)->counts[0], 4);
    ck_assert(!b->counts_in_bytes);
    /* call 2: rank 2 had stopped; ranks 0 and 1 passed ints and doubles */
    b = cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 2);
    ck_assert_ptr_nonnull(b);
    ck_assert(b->counts_in_bytes);
    ck_assert_int_eq(row_of(b, 0)->counts[2], 8);
    ck_assert_int_eq(row_of(b, 1)->counts[2], 24);
    ck_assert_ptr_null(row_of(b, 2));
    ck_assert_int_eq(cp_ranges_count(&b->all_calls), 3);
    /* the duplicate: rank 0's and rank 1's rows of its call 0 */
    b = cp_profile_find(&p, 1, "Alltoallv", CP_SEND, 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(row_of(b, 0)->counts[1], 5);
    ck_assert_int_eq(row_of(b, 1)->counts[1], 6);
    ck_assert_ptr_nonnull(cp_profile_find(&p, 2, "Alltoallv", CP_SEND, 0));

    /* why each stopped; the unreadable folder is left out and said so */
    ck_assert_uint_eq(p.nstops, 3);
    ck_assert_str_eq(p.stops[0].key, "0-1");
    ck_assert_str_eq(p.stops[0].value, "SIGTERM sent by process 7");
    ck_assert_str_eq(p.stops[1].key, "2");
    ck_assert_str_eq(p.stops[1].value, "SIGSEGV at address (nil)");
    ck_assert_str_eq(p.stops[2].key, "3");
    ck_assert_ptr_nonnull(strstr(p.stops[2].value, "left out"));
    ck_assert_uint_eq(p.absent.n, 0);

    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    long problems = cp_profile_check(&p, fp);
    fclose(fp);
    ck_assert_msg(problems == 0, "%s", buf);
    free(buf);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* folder/timings.cpt of `chunks` chunks (1: a rank's own), each with one
 * timed Alltoallv on each of the communicators ids[0..n). */
static void timings(const char *folder, unsigned chunks, const int64_t *ids, size_t n)
{
    cp_cpt_file f;
    memset(&f, 0, sizeof f);
    f.version[0] = CP_CPT_VERSION_MAJOR;
    f.flags = CP_CPT_TIMING;
    f.world_size = chunks;
    cp_cpt_chunk ch[2];
    memset(ch, 0, sizeof ch);
    cp_cpt_series s[4];
    memset(s, 0, sizeof s);
    uint64_t call = 0;
    double t[2] = {0.5, 0.75};
    int32_t root = -1;
    uint8_t flags = 0;
    for (size_t i = 0; i < n; i++) {
        s[i].comm_id = ids[i];
        strcpy(s[i].collective, "Alltoallv");
        s[i].stride = 1;
        s[i].tick = 1e-9;
        s[i].n = 1;
        s[i].call = &call, s[i].enter = &t[0], s[i].start = &t[0], s[i].exit = &t[1];
        s[i].root = &root, s[i].flags = &flags;
    }
    for (unsigned c = 0; c < chunks; c++) {
        ch[c].rank = c;
        strcpy(ch[c].hostname, "node");
        ch[c].series = s;
        ch[c].nseries = n;
    }
    f.chunks = ch;
    char path[4096];
    cp_error err;
    snprintf(path, sizeof path, "%s/%s/timings.cpt", tmpdir, folder);
    ck_assert_msg(cp_cpt_write(path, &f, &err) == 0, "%s", err.msg);
}

/* Each rank's timed calls at its place, their communicators by the
 * job-wide ids (the duplicate of the world is rank 0's 1, rank 1's 2, and
 * job-wide 1); what is not a rank's own is named and left out. */
START_TEST(timings_placed_by_job_wide_ids)
{
    tmpdir_make();
    write_run();
    timings("partial.rank0", 1, (const int64_t[]){1}, 1);
    timings("partial.rank1", 1, (const int64_t[]){2, 7}, 2); /* 7: not in its manifest */
    timings("partial.rank2", 2, (const int64_t[]){0}, 1);    /* two chunks: not a rank's own */
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    ck_assert(p.has_timings);
    ck_assert_uint_eq(p.timings.world_size, 3);
    const cp_cpt_chunk *c = p.timings.chunks;
    ck_assert(!c[0].missing && c[0].nseries == 1 && c[0].series[0].comm_id == 1);
    ck_assert(!c[1].missing && c[1].nseries == 1 && c[1].series[0].comm_id == 1);
    ck_assert_int_eq(c[1].rank, 1);
    ck_assert(c[2].missing && c[2].nseries == 0);
    bool rank1 = false, rank2 = false;
    for (size_t i = 0; i < p.ndamaged; i++) {
        rank1 |= !strcmp(p.damaged[i].key, "partial.rank1/timings.cpt") &&
                 strstr(p.damaged[i].value, "communicator 7, which its manifest.json does not "
                                            "list: left out");
        rank2 |= !strcmp(p.damaged[i].key, "partial.rank2/timings.cpt") &&
                 strstr(p.damaged[i].value, "holds 2 chunks");
    }
    ck_assert(rank1 && rank2);
    cp_profile_free(&p);

    /* rank 1's folder read alone: its chunk at its place */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/partial.rank1", tmpdir);
    timings("partial.rank1", 1, (const int64_t[]){2}, 1);
    ck_assert_msg(cp_profile_load(dir, &p, &err) == 0, "%s", err.msg);
    ck_assert(p.has_timings && p.timings.world_size == 3);
    ck_assert(p.timings.chunks[0].missing && !p.timings.chunks[1].missing);
    ck_assert(p.timings.chunks[1].nseries == 1 && p.timings.chunks[1].series[0].comm_id == 2);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* A whole profile marked partial because memory ran out on some rank is
 * not a rank's own: its timings.cpt is the world's, read as it is. */
START_TEST(whole_profile_marked_partial_keeps_its_timings)
{
    tmpdir_make();
    put("run/manifest.json",
        "{\"format\": \"collprof-manifest\", \"format_version\": 1, "
        "\"counts_format_version\": 4, \"collprof_version\": \"0.1.0\", "
        "\"mpi_version\": \"test\", \"job\": \"j1\", \"start_time\": \"2026-11-25T06:00:00\", "
        "\"world_size\": 2, \"partial\": true, \"partial_reason\": \"memory ran out on some "
        "ranks: calls after that were not recorded\", \"config\": {}, "
        "\"communicators\": [{\"id\": 0, \"size\": 2, \"lead\": 0, \"members\": \"0-1\"}], "
        "\"files\": [\"manifest.json\", \"timings.cpt\"]}\n");
    timings("run", 2, (const int64_t[]){0}, 1);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(dir, &p, &err) == 0, "%s", err.msg);
    ck_assert(p.has_timings && p.timings.world_size == 2);
    ck_assert(!p.timings.chunks[0].missing && !p.timings.chunks[1].missing);
    ck_assert_uint_eq(p.ndamaged, 0);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* A folder of another run (an earlier job, a day before) is left out; a
 * rank with no folder is absent. */
START_TEST(other_runs_left_out)
{
    tmpdir_make();
    char t[1024] = "# collprof counts 1\n";
    block(t, sizeof t, 0, "0-2", 3, 4, "0", "0", 0, "1 1 1");
    put("partial.rank0/send-counters.rank0.txt", t);
    manifest(0, "j1", 3, W, "SIGTERM sent by process 7",
             "{\"id\": 0, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}");
    strcpy(t, "# collprof counts 1\n");
    block(t, sizeof t, 0, "0-2", 3, 4, "0", "0", 1, "7 7 7");
    put("partial.rank1/send-counters.rank1.txt", t);
    manifest(1, "j1", 3, "2026-11-24T06:00:00", "exit without MPI_Finalize",
             "{\"id\": 0, \"size\": 3, \"lead\": 0, \"members\": \"0-2\"}");
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(p.npartials, 1);
    const cp_block *b = cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(row_of(b, 1));
    ck_assert_uint_eq(p.nstops, 2);
    ck_assert_ptr_nonnull(strstr(p.stops[1].value, "earlier run"));
    ck_assert_int_eq(cp_ranges_count(&p.absent), 1); /* rank 2 */
    ck_assert(cp_ranges_contains(&p.absent, 2));
    cp_profile_free(&p);
    /* nothing readable at all: a clear error */
    tmpdir_remove();
    tmpdir_make();
    put("partial.rank0/notes.txt", "x\n");
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, "none of its 1 partial profiles can be read") != NULL, "%s",
                  err.msg);
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("partials");
    TCase *tc = tcase_create("merge");
    tcase_add_test(tc, merged_by_call_index);
    tcase_add_test(tc, other_runs_left_out);
    tcase_add_test(tc, timings_placed_by_job_wide_ids);
    tcase_add_test(tc, whole_profile_marked_partial_keeps_its_timings);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
