/*
 * The reader library (tools/reader/): loading directories of this collprof
 * and of other tools, finding blocks, the summary numbers and the checks.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/reader.h"
#include "manifest.h"
#include "reader_fixture.h"
#include "dialect_data.h"
#include "tmpdir.h"


static void load_ok(const char *dir, cp_profile *p)
{
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(dir, p, &err) == 0, "%s", err.msg);
}

/* Run the check; return its report (malloc'ed) and the count in *n. */
static char *check_report(const cp_profile *p, long *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(fp);
    *n = cp_profile_check(p, fp);
    fclose(fp);
    return buf;
}

static void write_fixture(enum fx_variant v)
{
    cp_error err = {{0}};
    ck_assert_msg(fx_write(tmpdir, v, &err) == 0, "%s", err.msg);
}

static void write_text(const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

/* ------------------------------- the dialect: the project's own fixtures */

START_TEST(dialect_synthetic_ids)
{
    cp_profile p;
    load_ok(dialect_path("multicomm"), &p);
    ck_assert(!p.has_manifest);
    ck_assert_int_eq(p.nfiles, 4);
    /* send before receive, then by lead rank */
    ck_assert_int_eq(p.files[0].direction, CP_SEND);
    ck_assert_int_eq(p.files[0].lead_rank, 0);
    ck_assert_int_eq(p.files[1].lead_rank, 3);
    ck_assert_int_eq(p.files[2].direction, CP_RECV);
    ck_assert_int_eq(p.files[3].lead_rank, 3);
    /* (lead 0, 3 ranks) -> 0, (lead 0, 6 ranks) -> 1, (lead 3, 2 ranks) -> 2,
     * whatever order the blocks come in */
    ck_assert_int_eq(p.files[0].nblocks, 3);
    ck_assert_int_eq(p.files[0].blocks[0].comm_id, 0);
    ck_assert_int_eq(p.files[0].blocks[1].comm_id, 1);
    ck_assert_int_eq(p.files[0].blocks[2].comm_id, 0);
    ck_assert_int_eq(p.files[1].blocks[0].comm_id, 2);
    ck_assert_int_eq(p.files[3].blocks[0].comm_id, 2);

    /* per-process call ids: communicator 0 has calls 0, 2 and 3, not 1 */
    const cp_block *b = cp_profile_find(&p, 0, "alltoallv", CP_SEND, 3);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_eq(b, cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 0));
    ck_assert_int_eq(cp_block_count(b, 0, 2), 2);
    ck_assert_int_eq(cp_block_count(b, 2, 0), 1);
    b = cp_profile_find(&p, 0, "Alltoallv", CP_RECV, 2);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 1, 2), 4);
    ck_assert_ptr_null(cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 1));
    b = cp_profile_find(&p, 1, "Alltoallv", CP_RECV, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 5, 3), 1);
    ck_assert_int_eq(cp_block_count(b, 3, 5), 0);
    b = cp_profile_find(&p, 2, "Alltoallv", CP_SEND, 2);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 1, 1), 7);

    cp_ranges calls = {0};
    ck_assert_int_eq(cp_profile_calls(&p, 0, "alltoallv", -1, &calls), 0);
    ck_assert_int_eq(cp_ranges_count(&calls), 3);
    ck_assert(!cp_ranges_contains(&calls, 1) && cp_ranges_contains(&calls, 3));
    cp_ranges_free(&calls);
    cp_profile_free(&p);
}
END_TEST

static const char *const dialect_dirs[] = {"allgatherv_steps", "alltoall_bytes",
                                           "alltoallv_types", "multicomm"};

START_TEST(dialect_checks_pass)
{
    cp_profile p;
    load_ok(dialect_path(dialect_dirs[_i]), &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s: %s", dialect_dirs[_i], report);
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(dialect_summaries)
{
    cp_profile p;
    cp_summary_row *rows;
    size_t n;
    cp_error err = {{0}};

    load_ok(dialect_path("alltoall_bytes"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(rows[0].collective, "Alltoall");
    ck_assert_int_eq(rows[0].size, 3);
    ck_assert_int_eq(rows[0].calls, 2);
    ck_assert_int_eq(rows[0].send_matrices, 1);
    /* 2 calls x 3 ranks x 16 bytes to each of 3 peers */
    ck_assert_int_eq(rows[0].bytes_sent, 2 * 3 * 16 * 3);
    ck_assert_int_eq(rows[0].top_send_calls, 2);
    free(rows);
    cp_profile_free(&p);

    load_ok(dialect_path("allgatherv_steps"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(rows[0].calls, 3);
    ck_assert_int_eq(rows[0].send_matrices, 3);
    /* call k: 3 ranks x (k+1) x 8 bytes x 3 peers */
    ck_assert_int_eq(rows[0].bytes_sent, (1 + 2 + 3) * 3 * 8 * 3);
    ck_assert(cp_ranges_contains(&rows[0].top_send->calls, 0)); /* tie: lowest call */
    free(rows);
    cp_profile_free(&p);

    load_ok(dialect_path("multicomm"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 3);
    /* (0 2 2 + 1 0 1 + 1 0 1) x 8 bytes x 2 calls + 9 x 4 x 8 bytes */
    ck_assert_int_eq(rows[0].bytes_sent, 8 * 8 * 2 + 36 * 8);
    ck_assert_int_eq(rows[0].top_send_calls, 2);
    ck_assert_int_eq(rows[1].size, 6);
    ck_assert_int_eq(rows[1].bytes_sent, 6 * 2 * 4);
    ck_assert_int_eq(rows[2].lead, 3);
    ck_assert_int_eq(rows[2].bytes_sent, 2 * (3 + 5 + 0 + 7) * 4);
    free(rows);
    cp_profile_free(&p);

    load_ok(dialect_path("alltoallv_types"), &p);
    ck_assert_int_eq(cp_profile_find(&p, 0, "alltoallv", CP_RECV, 1)->dtsize, 16);
    ck_assert_int_eq(cp_profile_find(&p, 0, "alltoallv", CP_SEND, 0)->dtsize, 2);
    cp_profile_free(&p);
}
END_TEST

/* ------------------------------- the other tool's own files (--other-tools) */

START_TEST(multicomms_synthetic_ids)
{
    cp_profile p;
    load_ok(other_tools_path("alltoallv_multicomms_c"), &p);
    ck_assert(!p.has_manifest);
    ck_assert_int_eq(p.nfiles, 4);
    /* send before receive, then by lead rank */
    ck_assert_int_eq(p.files[0].direction, CP_SEND);
    ck_assert_int_eq(p.files[0].lead_rank, 0);
    ck_assert_int_eq(p.files[1].direction, CP_SEND);
    ck_assert_int_eq(p.files[1].lead_rank, 2);
    ck_assert_int_eq(p.files[2].direction, CP_RECV);
    ck_assert_int_eq(p.files[2].lead_rank, 0);
    ck_assert_int_eq(p.files[3].direction, CP_RECV);
    ck_assert_int_eq(p.files[3].lead_rank, 2);
    ck_assert_int_eq(p.files[0].version, 0);
    /* (lead 0, 2 ranks) -> 0, (lead 0, 4 ranks) -> 1, (lead 2, 2 ranks) -> 2 */
    ck_assert_int_eq(p.files[0].nblocks, 2);
    ck_assert_int_eq(p.files[0].blocks[0].comm_id, 0);
    ck_assert_int_eq(p.files[0].blocks[1].comm_id, 1);
    ck_assert_int_eq(p.files[1].blocks[0].comm_id, 2);
    ck_assert_int_eq(p.files[2].blocks[0].comm_id, 0);
    ck_assert_int_eq(p.files[2].blocks[1].comm_id, 1);
    ck_assert_int_eq(p.files[3].blocks[0].comm_id, 2);

    const cp_block *b = cp_profile_find(&p, 0, "alltoallv", CP_SEND, 2);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_eq(b, cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 0));
    ck_assert_int_eq(b->nranks, 2);
    ck_assert_int_eq(b->dtsize, 4);
    ck_assert_int_eq(cp_block_count(b, 0, 0), 0);
    ck_assert_int_eq(cp_block_count(b, 1, 1), 1);
    ck_assert_ptr_null(cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 1));

    b = cp_profile_find(&p, 1, "ALLTOALLV", CP_SEND, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(b->nranks, 4);
    ck_assert_int_eq(cp_block_count(b, 3, 3), 3);
    ck_assert_int_eq(cp_block_count(b, 2, 1), 1);
    b = cp_profile_find(&p, 1, "Alltoallv", CP_RECV, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 3, 0), 3);
    ck_assert_int_eq(cp_block_count(b, 0, 3), 0);

    b = cp_profile_find(&p, 2, "Alltoallv", CP_RECV, 2);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_eq(b, &p.files[3].blocks[0]);
    ck_assert_int_eq(cp_block_count(b, 1, 0), 1);
    ck_assert_ptr_null(cp_profile_find(&p, 3, "Alltoallv", CP_SEND, 0));
    ck_assert_ptr_null(cp_profile_find(&p, 0, "Alltoall", CP_SEND, 0));

    cp_ranges calls = {0};
    ck_assert_int_eq(cp_profile_calls(&p, 0, "alltoallv", -1, &calls), 0);
    ck_assert_int_eq(cp_ranges_count(&calls), 2);
    ck_assert(cp_ranges_contains(&calls, 0) && cp_ranges_contains(&calls, 2));
    cp_ranges_free(&calls);

    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s", report);
    ck_assert_str_eq(report, "");
    free(report);
    cp_profile_free(&p);
}
END_TEST

static const char *const testdata_dirs[] = {"allgatherv_c", "alltoall_simple_c", "alltoallv_c",
                                            "alltoallv_dt_c", "alltoallv_multicomms_c"};

START_TEST(testdata_checks_pass)
{
    cp_profile p;
    load_ok(other_tools_path(testdata_dirs[_i]), &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s: %s", testdata_dirs[_i], report);
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(testdata_summaries)
{
    cp_profile p;
    cp_summary_row *rows;
    size_t n;
    cp_error err = {{0}};

    load_ok(other_tools_path("alltoall_simple_c"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(rows[0].comm, 0);
    ck_assert_int_eq(rows[0].size, 4);
    ck_assert_int_eq(rows[0].lead, 0);
    ck_assert_str_eq(rows[0].collective, "Alltoall");
    ck_assert_int_eq(rows[0].calls, 1);
    ck_assert_int_eq(rows[0].send_matrices, 1);
    ck_assert_int_eq(rows[0].recv_matrices, 1);
    /* 4 ranks x 8 bytes, to each of 4 peers */
    ck_assert_int_eq(rows[0].bytes_sent, 128);
    ck_assert_int_eq(rows[0].top_send_calls, 1);
    ck_assert_int_eq(cp_block_call_bytes(rows[0].top_send), 128);
    free(rows);
    cp_profile_free(&p);

    load_ok(other_tools_path("allgatherv_c"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(rows[0].collective, "Allgatherv");
    ck_assert_int_eq(rows[0].calls, 2);
    ck_assert_int_eq(rows[0].send_matrices, 2);
    ck_assert_int_eq(rows[0].recv_matrices, 2);
    /* call 0: 4 ranks x 1 x 4 bytes x 4 peers; call 1: twice that */
    ck_assert_int_eq(rows[0].bytes_sent, 64 + 128);
    ck_assert_int_eq(rows[0].top_send_calls, 1);
    ck_assert(cp_ranges_contains(&rows[0].top_send->calls, 0)); /* tie: lowest call */
    free(rows);
    cp_profile_free(&p);

    load_ok(other_tools_path("alltoallv_multicomms_c"), &p);
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &n, &err), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(rows[0].comm, 0);
    ck_assert_int_eq(rows[0].size, 2);
    ck_assert_int_eq(rows[0].lead, 0);
    ck_assert_int_eq(rows[0].calls, 2);
    ck_assert_int_eq(rows[0].bytes_sent, 2 * (2 * 1 * 4)); /* 2 calls; ranks 0-1 send 0 1 */
    ck_assert_int_eq(rows[0].top_send_calls, 2);
    ck_assert_int_eq(rows[1].comm, 1);
    ck_assert_int_eq(rows[1].size, 4);
    ck_assert_int_eq(rows[1].calls, 1);
    ck_assert_int_eq(rows[1].bytes_sent, 4 * 6 * 4);
    ck_assert_int_eq(rows[2].comm, 2);
    ck_assert_int_eq(rows[2].lead, 2);
    ck_assert_int_eq(rows[2].size, 2);
    free(rows);
    cp_profile_free(&p);

    load_ok(other_tools_path("alltoallv_dt_c"), &p);
    const cp_block *b = cp_profile_find(&p, 0, "ALLTOALLV", CP_RECV, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(b->dtsize, 8);
    ck_assert_int_eq(cp_profile_find(&p, 0, "alltoallv", CP_RECV, 0)->dtsize, 4);
    cp_profile_free(&p);
}
END_TEST

/* ------------------------------------------------- this collprof's files */

START_TEST(fixture_good)
{
    write_fixture(FX_GOOD);
    cp_profile p;
    load_ok(tmpdir, &p);
    ck_assert(p.has_manifest);
    ck_assert_int_eq(p.manifest.world_size, 3);
    ck_assert_str_eq(p.manifest.job, "test");
    ck_assert_int_eq(p.nfiles, 4);
    ck_assert_int_eq(p.files[0].version, 1);
    ck_assert_str_eq(strrchr(p.files[1].path, '/'), "/send-counters.rank2.txt");

    const cp_block *b = cp_profile_find(&p, 0, "alltoallv", CP_SEND, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 0, 1), 2);
    ck_assert_int_eq(cp_block_count(b, 2, 2), 3);
    b = cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 2);
    ck_assert_int_eq(cp_block_count(b, 0, 0), 0);
    ck_assert_ptr_null(cp_profile_find(&p, 0, "Alltoallv", CP_SEND, 3));
    b = cp_profile_find(&p, 0, "gatherv", CP_RECV, 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(b->root, 0);
    ck_assert_int_eq(cp_block_count(b, 0, 2), 3);
    ck_assert_ptr_null(cp_block_row(b, 1));
    b = cp_profile_find(&p, 1, "Alltoall", CP_RECV, 3);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_ranges_nth(&b->comm_world_ranks, 0), 2);

    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s", report);
    free(report);

    cp_summary_row *rows;
    size_t nrows;
    cp_error err = {{0}};
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &nrows, &err), 0);
    ck_assert_int_eq(nrows, 3);
    ck_assert_int_eq(rows[0].comm, 0);
    ck_assert_str_eq(rows[0].collective, "Alltoallv");
    ck_assert_int_eq(rows[0].size, 3);
    ck_assert_int_eq(rows[0].lead, 0);
    ck_assert_int_eq(rows[0].calls, 3);
    ck_assert_int_eq(rows[0].send_matrices, 2);
    ck_assert_int_eq(rows[0].recv_matrices, 2);
    ck_assert_int_eq(rows[0].bytes_sent, 2 * 9 * 8 + 6 * 8);
    ck_assert_int_eq(rows[0].top_send_calls, 2);
    ck_assert_str_eq(rows[1].collective, "Gatherv");
    ck_assert_int_eq(rows[1].calls, 1);
    ck_assert_int_eq(rows[1].bytes_sent, (1 + 2 + 3) * 4); /* rooted: no x peers */
    ck_assert_int_eq(rows[2].comm, 1);
    ck_assert_str_eq(rows[2].collective, "Alltoall");
    ck_assert_int_eq(rows[2].size, 2);
    ck_assert_int_eq(rows[2].lead, 2);
    ck_assert_int_eq(rows[2].calls, 4);
    ck_assert_int_eq(rows[2].bytes_sent, 4 * (2 * 4 * 4 * 2));
    free(rows);
    cp_profile_free(&p);
}
END_TEST

START_TEST(fixture_gzip)
{
    write_fixture(FX_GZIP);
    cp_profile p;
    load_ok(tmpdir, &p);
    ck_assert_int_eq(p.nfiles, 4);
    ck_assert_str_eq(strrchr(p.files[0].path, '/'), "/send-counters.rank0.txt.gz");
    ck_assert_int_eq(p.files[0].lead_rank, 0);
    ck_assert_int_eq(p.files[3].lead_rank, 2);
    ck_assert_int_eq(p.files[3].direction, CP_RECV);
    const cp_block *b = cp_profile_find(&p, 0, "Alltoallv", CP_RECV, 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(cp_block_count(b, 2, 1), 3);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s", report);
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(fixture_recv_altered)
{
    write_fixture(FX_RECV_ALTERED);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(report,
                     "send-counters.rank0.txt, recv-counters.rank0.txt: communicator 0, Alltoallv, "
                     "call 1: the send matrix is not the transpose of the receive matrix: rank 2 "
                     "sends 24 bytes to rank 2, which receives 16 bytes from it (1 of 9 rank pairs "
                     "differ)\n");
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(fixture_overlap)
{
    write_fixture(FX_OVERLAP);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(report,
                     "send-counters.rank0.txt: communicator 0, Alltoallv, call 1: in two blocks, "
                     "the block of calls 0-1 and the block of calls 1-2\n"
                     "send-counters.rank0.txt, recv-counters.rank0.txt: communicator 0, Alltoallv, "
                     "call 1: the send matrix is not the transpose of the receive matrix: rank 0 "
                     "sends 0 bytes to rank 0, which receives 8 bytes from it (8 of 9 rank pairs "
                     "differ)\n");
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(fixture_manifest_mismatch)
{
    write_fixture(FX_MANIFEST_MISMATCH);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_str_eq(report,
                     "send-counters.rank2.txt: communicator 1: the Communicator: line says size 2, "
                     "world ranks 2,0, manifest.json says size 2, world ranks 0,2\n"
                     "send-counters.rank2.txt: communicator 1: led by world rank 0 in "
                     "manifest.json, but found in the file of lead rank 2\n"
                     "recv-counters.rank2.txt: communicator 1: the Communicator: line says size 2, "
                     "world ranks 2,0, manifest.json says size 2, world ranks 0,2\n"
                     "recv-counters.rank2.txt: communicator 1: led by world rank 0 in "
                     "manifest.json, but found in the file of lead rank 2\n"
                     "manifest.json: lists timings.cpt, which is not in the directory\n");
    ck_assert_int_eq(n, 5);
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(fixture_syntax_error)
{
    write_fixture(FX_SYNTAX_ERROR);
    cp_profile p;
    cp_error err = {{0}};
    /* The file is named as damaged, with the parser's message; the rest is
     * read (here: nothing else). */
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), 0);
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s/send-counters.rank0.txt:5: ", tmpdir);
    ck_assert_uint_ge(p.ndamaged, 1);
    ck_assert_str_eq(p.damaged[0].key, "send-counters.rank0.txt");
    ck_assert_msg(strncmp(p.damaged[0].value, prefix, strlen(prefix)) == 0, "%s",
                  p.damaged[0].value);
    for (size_t i = 0; i < p.nfiles; i++) /* the others are read, not it */
        ck_assert_ptr_null(strstr(p.files[i].path, "send-counters.rank0.txt"));
    cp_profile_free(&p);
}
END_TEST

START_TEST(missing_calls_reported)
{
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, 2, NULL, "Allreduce", -1, 2, 8, "0-5", "0-2,4", 1);
    fx_row(b, "0-1", (const int64_t[]){10});
    cp_error err = {{0}};
    ck_assert_msg(fx_write_counts(tmpdir, "send-counters.rank0.txt", &f, false, &err) == 0, "%s",
                  err.msg);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(report, "send-counters.rank0.txt: communicator 0, Allreduce, calls 3,5: "
                             "listed in \"Allreduce calls\" but in no block\n");
    free(report);
    cp_profile_free(&p);
}
END_TEST

/* Problems that the parser lets through are found in a model built in memory. */
START_TEST(bad_rows_in_memory)
{
    cp_profile p;
    memset(&p, 0, sizeof p);
    strcpy(p.dir, "mem");
    p.files = calloc(1, sizeof *p.files);
    p.nfiles = 1;
    p.files[0].version = 1;
    p.files[0].direction = CP_SEND;
    strcpy(p.files[0].path, "mem/send-counters.rank0.txt");
    cp_block *b = fx_block(&p.files[0], 0, -1, NULL, "Bcast", -1, 2, 1, "0", "0", 1);
    fx_row(b, "0-1", (const int64_t[]){5});
    fx_row(b, "1-2", (const int64_t[]){6});
    long n;
    char *report = check_report(&p, &n);
    ck_assert_str_eq(report, "send-counters.rank0.txt: communicator 0, Bcast, call 0: rank 2 has a "
                             "row, but the number of ranks is 2\n"
                             "send-counters.rank0.txt: communicator 0, Bcast, call 0: a rank has "
                             "more than one row\n");
    ck_assert_int_eq(n, 2);
    free(report);
    cp_profile_free(&p);
}
END_TEST

/* Other tools' files next to ours: synthetic ids continue after ours. */
START_TEST(synthetic_ids_after_real_ones)
{
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 5, 1, NULL, "Barrier", -1, 1, 1, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){0});
    cp_error err = {{0}};
    ck_assert_int_eq(fx_write_counts(tmpdir, "send-counters.rank0.txt", &f, false, &err), 0);
    write_text("send-counters.job0.rank1.txt", "# Raw counters\n\nNumber of ranks: 2\n"
                                               "Datatype size: 4\nAlltoallv calls 0-0\n"
                                               "Count: 1 calls - 0\n\n\nBEGINNING DATA\n"
                                               "Rank(s) 0-1: 1 1 \nEND DATA\n");
    cp_profile p;
    load_ok(tmpdir, &p);
    ck_assert_int_eq(p.nfiles, 2);
    ck_assert_int_eq(p.files[1].lead_rank, 1);
    ck_assert_int_eq(p.files[1].blocks[0].comm_id, 6);
    ck_assert_ptr_nonnull(cp_profile_find(&p, 6, "alltoallv", CP_SEND, 0));
    cp_profile_free(&p);
}
END_TEST

START_TEST(load_errors)
{
    cp_profile p;
    cp_error err = {{0}};
    /* empty directory */
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, ": no manifest.json, no counts files") != NULL, "%s", err.msg);
    /* no directory */
    char path[4096];
    snprintf(path, sizeof path, "%s/none", tmpdir);
    ck_assert_int_eq(cp_profile_load(path, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, "none: cannot open directory: No such file or directory") != NULL,
                  "%s", err.msg);
    /* two send files of lead 0 */
    write_fixture(FX_GOOD);
    write_text("send-counters.job0.rank0.txt", "# Raw counters\n\nNumber of ranks: 1\n"
                                               "Datatype size: 4\nBcast calls 0-0\n"
                                               "Count: 1 calls - 0\n\n\nBEGINNING DATA\n"
                                               "Rank(s) 0: 1 \nEND DATA\n");
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), -1);
    ck_assert_msg(strstr(err.msg, ": two send counts files of lead rank 0: ") != NULL, "%s",
                  err.msg);
    /* a broken manifest */
    snprintf(path, sizeof path, "%s/send-counters.job0.rank0.txt", tmpdir);
    ck_assert_int_eq(unlink(path), 0);
    write_text("manifest.json", "{\"format\": \"collprof-manifest\",\n \"format_version\": 7}\n");
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), 0); /* named, the rest read */
    snprintf(path, sizeof path,
             "%s/manifest.json:2:20: manifest format version 7 is newer than version 2, which "
             "this collprof reads",
             tmpdir);
    ck_assert(!p.has_manifest);
    ck_assert_uint_ge(p.ndamaged, 1);
    ck_assert_str_eq(p.damaged[0].key, "manifest.json");
    ck_assert_msg(strncmp(p.damaged[0].value, path, strlen(path)) == 0, "%s", p.damaged[0].value);
    cp_profile_free(&p);
}
END_TEST

START_TEST(unlisted_counts_file)
{
    write_fixture(FX_GOOD);
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 2, 1, "1", "Bcast", 0, 1, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){1});
    cp_error err = {{0}};
    ck_assert_int_eq(fx_write_counts(tmpdir, "send-counters.rank1.txt", &f, false, &err), 0);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_str_eq(report, "send-counters.rank1.txt: communicator 2: not in the communicator "
                             "table of manifest.json\n"
                             "send-counters.rank1.txt: not listed in the \"files\" of "
                             "manifest.json\n");
    ck_assert_int_eq(n, 2);
    free(report);
    cp_profile_free(&p);
}
END_TEST

START_TEST(manifest_only)
{
    write_fixture(FX_GOOD);
    char path[4096];
    const char *names[] = {"send-counters.rank0.txt", "recv-counters.rank0.txt",
                           "send-counters.rank2.txt", "recv-counters.rank2.txt"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    cp_profile p;
    load_ok(tmpdir, &p);
    ck_assert(p.has_manifest);
    ck_assert_int_eq(p.nfiles, 0);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_int_eq(n, 4); /* the four listed files are gone */
    free(report);
    cp_summary_row *rows;
    size_t nrows;
    cp_error err = {{0}};
    ck_assert_int_eq(cp_profile_summarize(&p, &rows, &nrows, &err), 0);
    ck_assert_int_eq(nrows, 0);
    cp_profile_free(&p);
}
END_TEST

/* Two groups of an intercommunicator, each its own manifest entry: one
 * group's send matrix must be the transpose of the other's receive matrix. */
static void write_intercomm(int64_t altered)
{
    cp_manifest m = {0};
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    m.world_size = 3;
    snprintf(m.job, sizeof m.job, "local");
    m.comms = calloc(2, sizeof *m.comms);
    m.ncomms = 2;
    /* group A = world 0 (lead 0), group B = world 1,2 (lead 1) */
    m.comms[0] = (cp_comm_info){.id = 0, .size = 1, .lead = 0};
    cp_ranges_push(&m.comms[0].members, 0);
    cp_ranges_push(&m.comms[0].remote_members, 1);
    cp_ranges_push(&m.comms[0].remote_members, 2);
    m.comms[1] = (cp_comm_info){.id = 1, .size = 2, .lead = 1};
    cp_ranges_push(&m.comms[1].members, 1);
    cp_ranges_push(&m.comms[1].members, 2);
    cp_ranges_push(&m.comms[1].remote_members, 0);
    const char *files[] = {"manifest.json", "send-counters.rank0.txt", "recv-counters.rank0.txt",
                           "send-counters.rank1.txt", "recv-counters.rank1.txt"};
    m.files = calloc(5, sizeof *m.files);
    for (int i = 0; i < 5; i++)
        m.files[m.nfiles++] = strdup(files[i]);
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", tmpdir);
    cp_error err = {{0}};
    ck_assert_msg(cp_manifest_write_file(path, false, &m, &err) == 0, "%s", err.msg);
    cp_manifest_free(&m);

    /* A (1 rank) sends 3 and 4 to B's ranks 0 and 1; B's ranks send 5, 6 to A. */
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, 1, "0", "Alltoallv", -1, 1, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){3, 4});
    ck_assert(fx_write_counts(tmpdir, "send-counters.rank0.txt", &f, false, &err) == 0);
    b = fx_block(&f, 0, 1, "0", "Alltoallv", -1, 1, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){5, 6});
    ck_assert(fx_write_counts(tmpdir, "recv-counters.rank0.txt", &f, false, &err) == 0);
    b = fx_block(&f, 1, 2, "1-2", "Alltoallv", -1, 2, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){5});
    fx_row(b, "1", (const int64_t[]){6});
    ck_assert(fx_write_counts(tmpdir, "send-counters.rank1.txt", &f, false, &err) == 0);
    b = fx_block(&f, 1, 2, "1-2", "Alltoallv", -1, 2, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){3});
    fx_row(b, "1", (const int64_t[]){altered});
    ck_assert(fx_write_counts(tmpdir, "recv-counters.rank1.txt", &f, false, &err) == 0);
}

START_TEST(intercommunicator_groups_checked_against_each_other)
{
    write_intercomm(4);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s", report);
    free(report);
    cp_profile_free(&p);

    write_intercomm(7); /* B's rank 1 says it received 7 from A's rank 0, which sent 4 */
    load_ok(tmpdir, &p);
    report = check_report(&p, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(report,
                     "send-counters.rank0.txt, recv-counters.rank1.txt: intercommunicator 0 -> 1, "
                     "Alltoallv, call 0: the send matrix of one group is not the transpose of the "
                     "receive matrix of the other: rank 0 sends 16 bytes to remote rank 1, which "
                     "receives 28 bytes from it (1 of 2 rank pairs differ)\n");
    free(report);
    cp_profile_free(&p);
}
END_TEST

/* Bytes per call follow each collective's meaning of a single count. */
START_TEST(call_bytes_per_collective)
{
    cp_counts_file f = {0};
    /* Allreduce of 10 doubles on 4 ranks: each contributes 80 bytes once. */
    cp_block *b = fx_block(&f, 0, 4, NULL, "Allreduce", -1, 4, 8, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){10});
    ck_assert_int_eq(cp_block_call_bytes(b), 4 * 80);
    /* Bcast of 3 ints from root 1: the root's buffer, once. */
    b = fx_block(&f, 0, 4, NULL, "Bcast", 1, 4, 4, "0", "0", 1);
    fx_row(b, "1", (const int64_t[]){3});
    ck_assert_int_eq(cp_block_call_bytes(b), 12);
    /* Scatter of 2 ints to each of 4 ranks from root 0. */
    b = fx_block(&f, 0, 4, NULL, "Scatter", 0, 4, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){2});
    ck_assert_int_eq(cp_block_call_bytes(b), 4 * 8);
    /* Gather: each rank's item once, to the root. */
    b = fx_block(&f, 0, 4, NULL, "Gather", 0, 4, 4, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){2});
    ck_assert_int_eq(cp_block_call_bytes(b), 4 * 8);
    /* Reduce_scatter_block: recvcount to each peer. */
    b = fx_block(&f, 0, 4, NULL, "Reduce_scatter_block", -1, 4, 4, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){1});
    ck_assert_int_eq(cp_block_call_bytes(b), 4 * 4 * 4);
    /* Barrier: rows of length 0. */
    b = fx_block(&f, 0, 4, NULL, "Barrier", -1, 4, 0, "0", "0", 0);
    fx_row(b, "0-3", NULL);
    ck_assert_int_eq(cp_block_call_bytes(b), 0);
    cp_counts_file_free(&f);
}
END_TEST

/* Neighbourhood rows are checked through the manifest's neighbour lists:
 * 0 -> 1,2 and 1 -> 2; rank k sends k+1+edge ints on its edges. */
static void write_topology(int64_t received_by_2_from_1)
{
    cp_manifest m = {0};
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    m.world_size = 3;
    snprintf(m.job, sizeof m.job, "local");
    m.comms = calloc(1, sizeof *m.comms);
    m.ncomms = 1;
    cp_comm_info *c = &m.comms[0];
    *c = (cp_comm_info){.id = 0, .size = 3, .lead = 0};
    cp_ranges_add_range(&c->members, 0, 2);
    c->neighbors = calloc(3, sizeof *c->neighbors);
    static const int64_t d0[] = {1, 2}, d1[] = {2}, s1[] = {0}, s2[] = {0, 1};
    c->neighbors[0] = (cp_neighbors){.destinations = malloc(sizeof d0), .ndestinations = 2};
    memcpy(c->neighbors[0].destinations, d0, sizeof d0);
    c->neighbors[1] = (cp_neighbors){.destinations = malloc(sizeof d1), .ndestinations = 1,
                                     .sources = malloc(sizeof s1), .nsources = 1};
    memcpy(c->neighbors[1].destinations, d1, sizeof d1);
    memcpy(c->neighbors[1].sources, s1, sizeof s1);
    c->neighbors[2] = (cp_neighbors){.sources = malloc(sizeof s2), .nsources = 2};
    memcpy(c->neighbors[2].sources, s2, sizeof s2);
    m.files = calloc(3, sizeof *m.files);
    m.files[m.nfiles++] = strdup("manifest.json");
    m.files[m.nfiles++] = strdup("send-counters.rank0.txt");
    m.files[m.nfiles++] = strdup("recv-counters.rank0.txt");
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", tmpdir);
    cp_error err = {{0}};
    ck_assert_msg(cp_manifest_write_file(path, false, &m, &err) == 0, "%s", err.msg);
    cp_manifest_free(&m);

    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, 3, "0-2", "Neighbor_alltoallv", -1, 3, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){1, 2});
    fx_row(b, "1", (const int64_t[]){2, 0});
    b->rows[1].len = 1;
    fx_row(b, "2", (const int64_t[]){0, 0});
    b->rows[2].len = 0;
    ck_assert(fx_write_counts(tmpdir, "send-counters.rank0.txt", &f, false, &err) == 0);
    b = fx_block(&f, 0, 3, "0-2", "Neighbor_alltoallv", -1, 3, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){0, 0});
    b->rows[0].len = 0;
    fx_row(b, "1", (const int64_t[]){1, 0});
    b->rows[1].len = 1;
    fx_row(b, "2", (const int64_t[]){2, received_by_2_from_1});
    ck_assert(fx_write_counts(tmpdir, "recv-counters.rank0.txt", &f, false, &err) == 0);
}

START_TEST(neighbourhood_checked_through_topology)
{
    write_topology(2);
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_msg(n == 0, "%s", report);
    free(report);
    cp_profile_free(&p);

    write_topology(3);
    load_ok(tmpdir, &p);
    report = check_report(&p, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(report, "send-counters.rank0.txt, recv-counters.rank0.txt: communicator 0, "
                             "Neighbor_alltoallv, call 0: rank 1 sends 8 bytes to its neighbour 2, "
                             "which receives 12 bytes from it\n");
    free(report);
    cp_profile_free(&p);
}
END_TEST

/* An intercommunicator pair in the manifest but no count files: the pairing
 * has nothing to compare (the missing files are the only problems). */
START_TEST(intercommunicator_without_blocks)
{
    write_intercomm(4);
    const char *names[] = {"send-counters.rank0.txt", "recv-counters.rank0.txt",
                           "send-counters.rank1.txt", "recv-counters.rank1.txt"};
    char path[4096];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        ck_assert_int_eq(unlink(path), 0);
    }
    cp_profile p;
    load_ok(tmpdir, &p);
    long n;
    char *report = check_report(&p, &n);
    ck_assert_int_eq(n, 4);
    free(report);
    cp_profile_free(&p);
}
END_TEST

/* docs/reader.md's "Bytes sent" rule names the collectives whose single
 * count goes to each peer and those where it counts once: each name is on
 * the side the code puts it (the words match the numbers). */
static void doc_names_on_side(const char *text, const char *from, const char *to, bool per_peer,
                              int *seen)
{
    const char *a = strstr(text, from), *z = a ? strstr(a, to) : NULL;
    ck_assert_msg(a && z, "docs/reader.md: no text from '%s' to '%s'", from, to);
    for (const char *q = strchr(a, '`'); q && q < z; q = strchr(q + 1, '`')) {
        const char *e = strchr(q + 1, '`');
        char name[64];
        size_t n = e ? (size_t)(e - q - 1) : 0;
        if (!e || n == 0 || n >= sizeof name)
            break;
        memcpy(name, q + 1, n);
        name[n] = '\0';
        q = e;
        if (strchr(name, ' ') || name[0] < 'A' || name[0] > 'Z')
            continue; /* not a collective's name */
        ck_assert_msg(cp_collective_single_count_per_peer(name) == per_peer,
                      "docs/reader.md puts %s %s; the code does not", name,
                      per_peer ? "among the per-peer counts" : "among the counts taken once");
        (*seen)++;
    }
}

START_TEST(bytes_rule_as_documented)
{
    const char *root = getenv("CP_SOURCE_ROOT");
    ck_assert_msg(root != NULL, "CP_SOURCE_ROOT is not set");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/reader.md", root);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    int per_peer = 0, once = 0;
    doc_names_on_side(text, "amount *for each peer*:", "(peers:", true, &per_peer);
    doc_names_on_side(text, "contribution and counts once:", "The rule is", false, &once);
    ck_assert_int_ge(per_peer, 8);
    ck_assert_int_ge(once, 6);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("reader");
    tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
    if (other_tools_mode(argc, argv)) {
        tcase_add_test(tc, multicomms_synthetic_ids);
        tcase_add_loop_test(tc, testdata_checks_pass, 0,
                            (int)(sizeof testdata_dirs / sizeof testdata_dirs[0]));
        tcase_add_test(tc, testdata_summaries);
        goto run;
    }
    tcase_add_test(tc, dialect_synthetic_ids);
    tcase_add_loop_test(tc, dialect_checks_pass, 0,
                        (int)(sizeof dialect_dirs / sizeof dialect_dirs[0]));
    tcase_add_test(tc, dialect_summaries);
    tcase_add_test(tc, fixture_good);
    tcase_add_test(tc, fixture_gzip);
    tcase_add_test(tc, fixture_recv_altered);
    tcase_add_test(tc, fixture_overlap);
    tcase_add_test(tc, fixture_manifest_mismatch);
    tcase_add_test(tc, fixture_syntax_error);
    tcase_add_test(tc, missing_calls_reported);
    tcase_add_test(tc, bad_rows_in_memory);
    tcase_add_test(tc, synthetic_ids_after_real_ones);
    tcase_add_test(tc, load_errors);
    tcase_add_test(tc, unlisted_counts_file);
    tcase_add_test(tc, manifest_only);
    tcase_add_test(tc, intercommunicator_groups_checked_against_each_other);
    tcase_add_test(tc, call_bytes_per_collective);
    tcase_add_test(tc, neighbourhood_checked_through_topology);
    tcase_add_test(tc, intercommunicator_without_blocks);
    tcase_add_test(tc, bytes_rule_as_documented);
run:
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
