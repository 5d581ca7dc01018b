/*
 * Compact counts format: exact text of the writer, model -> text -> model
 * round trips, every file of other tools' dialect in shared/testdata with
 * its exact values, the dialect's quirks, gzip, every malformed case with its
 * line number, and truncation at every byte.
 */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "compact.h"
#include "mpi_names.h"
#include "ranges.h"
#include "dialect_data.h"
#include "tmpdir.h"

/* ------------------------------------------------------------- helpers */

static void set_ranges(cp_ranges *r, const char *text, bool ordered)
{
    const char *why = "";
    int rc = ordered ? cp_ranges_parse_ordered(text, strlen(text), r, &why)
                     : cp_ranges_parse(text, strlen(text), r, &why);
    ck_assert_msg(rc == 0, "bad test ranges '%s': %s", text, why);
}

/* A block; world == NULL: no world ranks. */
static cp_block mk(const char *coll, int64_t comm_id, int64_t comm_size, const char *world,
                   int64_t root, int64_t nranks, int64_t dtsize, bool bytes, const char *all,
                   const char *calls, size_t row_len)
{
    cp_block b;
    cp_block_init(&b);
    snprintf(b.collective, sizeof b.collective, "%s", coll);
    b.comm_id = comm_id;
    b.comm_size = comm_size;
    if (world)
        set_ranges(&b.comm_world_ranks, world, true);
    b.root = root;
    b.nranks = nranks;
    b.dtsize = dtsize;
    b.counts_in_bytes = bytes;
    set_ranges(&b.all_calls, all, false);
    set_ranges(&b.calls, calls, false);
    b.row_len = row_len;
    return b;
}

static void add_row(cp_block *b, const char *ranks, const int64_t *vals)
{
    b->rows = realloc(b->rows, (b->nrows + 1) * sizeof *b->rows);
    cp_row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    set_ranges(&r->ranks, ranks, false);
    if (b->row_len) {
        r->counts = malloc(b->row_len * sizeof *r->counts);
        r->len = b->row_len;
        memcpy(r->counts, vals, b->row_len * sizeof *r->counts);
    }
}

static cp_counts_file file_of(cp_block *blocks, size_t n)
{
    cp_counts_file f;
    memset(&f, 0, sizeof f);
    f.version = CP_COUNTS_FORMAT_VERSION;
    f.direction = CP_SEND;
    f.lead_rank = 0;
    f.blocks = malloc(n * sizeof *blocks);
    memcpy(f.blocks, blocks, n * sizeof *blocks);
    f.nblocks = n;
    return f;
}

/* The decompressed text of a file. */
static char *slurp(const char *path)
{
    cp_error err;
    cp_in *in = cp_in_open(path, &err);
    ck_assert_ptr_nonnull(in);
    char *data;
    size_t len;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    cp_in_close(in);
    return data;
}

/* Write f to a file (plain or gzip) and return its decompressed text. */
static char *write_text(const cp_counts_file *f, bool gzip)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt%s", tmpdir, gzip ? ".gz" : "");
    cp_error err;
    ck_assert_msg(cp_compact_write_file(path, gzip, f, &err) == 0, "%s", err.msg);
    return slurp(path);
}

/* Parse text (exactly strlen bytes, copied so that ASan sees any overread). */
static int parse_text(const char *text, size_t len, const char *name, cp_counts_file *f,
                      cp_error *err)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    cp_in *in = cp_in_open_mem(copy, len, name);
    memset(f, 0, sizeof *f);
    f->direction = CP_RECV;
    f->lead_rank = 77;
    int rc = cp_compact_parse(in, f, err);
    cp_in_close(in);
    free(copy);
    if (rc == 0) {
        /* Left as the caller set them. */
        ck_assert_int_eq(f->direction, CP_RECV);
        ck_assert_int_eq(f->lead_rank, 77);
        ck_assert_str_eq(f->path, name);
    }
    return rc;
}

/* "Alltoallv n=2 dt=4 all=0-2 calls=0,2 len=2 [0: 0 0][1: 1 1]" */
static void describe(const cp_block *b, char *out, size_t size)
{
    char *all = cp_ranges_to_string(&b->all_calls), *calls = cp_ranges_to_string(&b->calls);
    size_t n = (size_t)snprintf(out, size, "%s n=%" PRId64 " dt=%" PRId64 " all=%s calls=%s len=%zu ",
                                b->collective, b->nranks, b->dtsize, all, calls, b->row_len);
    free(all);
    free(calls);
    for (size_t i = 0; i < b->nrows && n < size; i++) {
        char *rk = cp_ranges_to_string(&b->rows[i].ranks);
        n += (size_t)snprintf(out + n, size - n, "[%s:", rk);
        free(rk);
        for (size_t j = 0; j < b->row_len && n < size; j++)
            n += (size_t)snprintf(out + n, size - n, " %" PRId64, b->rows[i].counts[j]);
        if (n < size)
            n += (size_t)snprintf(out + n, size - n, "]");
    }
}

static const int64_t v120[] = {1, 2, 0}, v003[] = {0, 0, 3};

/* The block of the format description (docs/formats.md). */
static cp_block doc_block(void)
{
    cp_block b = mk("Alltoallv", 3, 3, "0,2,4", 0, 3, 8, false, "0-2", "0-1", 3);
    add_row(&b, "0", v120);
    add_row(&b, "1-2", v003);
    return b;
}

static const char doc_text[] = "# collprof counts 1\n"
                               "# Raw counters\n"
                               "Communicator: 3 (size 3, world ranks 0,2,4)\n"
                               "Collective: Alltoallv\n"
                               "Root: 0\n"
                               "Number of ranks: 3\n"
                               "Datatype size: 8\n"
                               "Alltoallv calls 0-2\n"
                               "Count: 2 calls - 0-1\n"
                               "\n"
                               "BEGINNING DATA\n"
                               "Rank(s) 0: 1 2 0\n"
                               "Rank(s) 1-2: 0 0 3\n"
                               "END DATA\n"
                               "\n";

/* Several blocks covering every feature of the model. */
static cp_counts_file rich_file(void)
{
    cp_block b[7];
    b[0] = doc_block();
    /* Rooted, only the root has a row. */
    static const int64_t g[] = {1, 2, 3, 4};
    b[1] = mk("Gatherv", 0, 4, "0-3", 2, 4, 4, false, "0-9", "0-2,5,9", 4);
    add_row(&b[1], "2", g);
    /* Counts in bytes, non-monotonic world ranks, large values. */
    static const int64_t big[] = {INT64_MAX, 0, 4096, 1};
    b[2] = mk("Alltoallw", 7, 7, "9,7-8,0-3", -1, 7, 1, true, "0-99", "3,4,50-60", 4);
    add_row(&b[2], "0,2,4,6", big);
    add_row(&b[2], "1,3,5", g);
    /* Zero counts everywhere, multi-range rows. */
    static const int64_t z[] = {0, 0, 0, 0, 0, 0};
    static const int64_t z1[] = {0, 0, 0, 0, 0, 1};
    b[3] = mk("Alltoallv", 12, 6, "5,4,3,2,1,0", -1, 6, 8, false, "0-1000000", "1000000", 6);
    add_row(&b[3], "0-1,3,5", z);
    add_row(&b[3], "2,4", z1);
    /* row_len 0. */
    b[4] = mk("Neighbor_alltoallv", 2, 3, "3-5", -1, 3, 4, false, "0", "0", 0);
    add_row(&b[4], "0-2", NULL);
    /* No communicator named (comm_id -1), no rows. */
    b[5] = mk("Scatterv_c", -1, -1, NULL, 0, 5, 16, false, "0-4", "0-4", 0);
    /* A communicator without its world ranks. */
    static const int64_t one[] = {5};
    b[6] = mk("Alltoall", 4, 2, NULL, -1, 2, 2, false, "1,3", "1", 1);
    add_row(&b[6], "0-1", one);
    return file_of(b, 7);
}

/* --------------------------------------------------------------- writer */

/* A relative row holds offsets from its own rank, not symmetric in
 * general (a shift: each rank sends to the next and the third after it):
 * its items and values are the rank's own peers, not their mirror. */
START_TEST(relative_rows_are_offsets_from_the_rank)
{
    int64_t counts[2] = {8, 5}, offsets[2] = {1, 3};
    cp_row r = {.counts = counts, .peers = offsets, .len = 10, .form = CP_ROW_RELATIVE, .nnz = 2};
    int64_t c;
    ck_assert_int_eq(cp_row_item(&r, 2, 0, &c), 3);
    ck_assert_int_eq(c, 8);
    ck_assert_int_eq(cp_row_item(&r, 2, 1, &c), 5);
    ck_assert_int_eq(c, 5);
    ck_assert_int_eq(cp_row_value(&r, 2, 3), 8);
    ck_assert_int_eq(cp_row_value(&r, 2, 5), 5);
    ck_assert_int_eq(cp_row_value(&r, 2, 1), 0); /* the mirror peers hold nothing */
    ck_assert_int_eq(cp_row_value(&r, 4, 1), 0);
}
END_TEST

START_TEST(exact_text)
{
    tmpdir_make();
    cp_block b = doc_block();
    cp_counts_file f = file_of(&b, 1);
    char *text = write_text(&f, false);
    ck_assert_str_eq(text, doc_text);
    free(text);
    cp_counts_file_free(&f);
    tmpdir_remove();
}
END_TEST

START_TEST(exact_text_bytes_and_empty)
{
    tmpdir_make();
    cp_block b[2];
    b[0] = mk("Alltoallw", 5, 2, NULL, -1, 2, 1, true, "0-3,7", "7", 0);
    add_row(&b[0], "0", NULL);
    b[1] = mk("Gatherv", -1, -1, NULL, 1, 4, 4, false, "2", "2", 2);
    static const int64_t v[] = {10, 0};
    add_row(&b[1], "1,3", v);
    cp_counts_file f = file_of(b, 2);
    char *text = write_text(&f, false);
    ck_assert_str_eq(text, "# collprof counts 1\n"
                           "# Raw counters\n"
                           "Communicator: 5 (size 2)\n"
                           "Collective: Alltoallw\n"
                           "Number of ranks: 2\n"
                           "Datatype size: 1 (bytes)\n"
                           "Alltoallw calls 0-3,7\n"
                           "Count: 1 calls - 7\n"
                           "\n"
                           "BEGINNING DATA\n"
                           "Rank(s) 0:\n"
                           "END DATA\n"
                           "\n"
                           "# Raw counters\n"
                           "Collective: Gatherv\n"
                           "Root: 1\n"
                           "Number of ranks: 4\n"
                           "Datatype size: 4\n"
                           "Gatherv calls 2\n"
                           "Count: 1 calls - 2\n"
                           "\n"
                           "BEGINNING DATA\n"
                           "Rank(s) 1,3: 10 0\n"
                           "END DATA\n"
                           "\n");
    free(text);
    /* No blocks: the version line only. */
    cp_counts_file_free(&f);
    text = write_text(&f, false);
    ck_assert_str_eq(text, "# collprof counts 1\n");
    free(text);
    tmpdir_remove();
}
END_TEST

static void round_trip(bool gzip)
{
    tmpdir_make();
    cp_counts_file f = rich_file();
    char *text = write_text(&f, gzip);
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "rt", &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.version, 1);
    ck_assert_uint_eq(g.nblocks, f.nblocks);
    for (size_t i = 0; i < f.nblocks; i++)
        ck_assert_msg(cp_block_equal(&f.blocks[i], &g.blocks[i]), "block %zu differs", i);
    free(text);

    /* From the file itself, too. */
    char path[8192];
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt%s", tmpdir, gzip ? ".gz" : "");
    cp_counts_file h;
    memset(&h, 0, sizeof h);
    ck_assert_msg(cp_compact_parse_file(path, &h, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(h.path, path);
    ck_assert_uint_eq(h.nblocks, f.nblocks);
    for (size_t i = 0; i < f.nblocks; i++)
        ck_assert(cp_block_equal(&f.blocks[i], &h.blocks[i]));

    /* Spot checks through the model's accessors. */
    const cp_block *b2 = &h.blocks[2];
    ck_assert_int_eq(cp_block_count(b2, 4, 0), INT64_MAX);
    ck_assert_int_eq(cp_block_count(b2, 5, 3), 4);
    ck_assert_int_eq(cp_block_count(b2, 5, 4), -1);
    ck_assert_int_eq(cp_block_count(&h.blocks[1], 0, 0), -1); /* non-root: no row */
    ck_assert_ptr_eq(cp_block_row(b2, 3), &b2->rows[1]);
    ck_assert_int_eq(cp_ranges_nth(&b2->comm_world_ranks, 0), 9);
    ck_assert_int_eq(cp_ranges_index_of(&b2->comm_world_ranks, 0), 3);

    /* A change anywhere is seen by cp_block_equal. */
    h.blocks[3].rows[1].counts[5] = 2;
    ck_assert(!cp_block_equal(&f.blocks[3], &h.blocks[3]));
    h.blocks[0].root = -1;
    ck_assert(!cp_block_equal(&f.blocks[0], &h.blocks[0]));

    cp_counts_file_free(&f);
    cp_counts_file_free(&g);
    cp_counts_file_free(&h);
    ck_assert_ptr_null(h.blocks);
    tmpdir_remove();
}


/* Neighbourhood collectives: each rank's row has its own degree. */
START_TEST(neighbourhood_rows_vary)
{
    tmpdir_make();
    cp_block b = mk("Neighbor_alltoallv", 2, 3, "0-2", -1, 3, 4, false, "0-1", "0-1", 3);
    static const int64_t three[] = {1, 2, 3}, one[] = {9, 0, 0}, none[] = {0, 0, 0};
    add_row(&b, "0", three);
    add_row(&b, "1", one);
    b.rows[1].len = 1;
    add_row(&b, "2", none);
    b.rows[2].len = 0;
    cp_counts_file f = file_of(&b, 1);
    char *text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "Rank(s) 0: 1 2 3\nRank(s) 1: 9\nRank(s) 2:\nEND DATA"));
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "n.txt", &g, &err) == 0, "%s", err.msg);
    ck_assert(cp_block_equal(&f.blocks[0], &g.blocks[0]));
    ck_assert_uint_eq(g.blocks[0].row_len, 3);
    ck_assert_int_eq(cp_block_count(&g.blocks[0], 1, 0), 9);
    ck_assert_int_eq(cp_block_count(&g.blocks[0], 1, 1), -1);
    cp_counts_file_free(&g);

    /* Other collectives keep one row length per block. */
    char *bad = strdup(text);
    char *p = strstr(bad, "Neighbor_alltoallv calls");
    ck_assert_ptr_nonnull(p);
    const char *fixed = "# collprof counts 1\n# Raw counters\nCommunicator: 2 (size 3, world ranks 0-2)\n"
                        "Collective: Alltoallv\nNumber of ranks: 3\nDatatype size: 4\n"
                        "Alltoallv calls 0-1\nCount: 2 calls - 0-1\n\nBEGINNING DATA\n"
                        "Rank(s) 0: 1 2 3\nRank(s) 1: 9\nEND DATA\n";
    ck_assert_int_eq(parse_text(fixed, strlen(fixed), "a.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "a.txt:12: row has 1 counts") != NULL, "%s", err.msg);
    cp_counts_file_free(&g);
    free(bad);
    free(text);
    cp_counts_file_free(&f);
    tmpdir_remove();
}
END_TEST

START_TEST(round_trip_plain)
{
    round_trip(false);
}
END_TEST

START_TEST(round_trip_gzip)
{
    round_trip(true);
}
END_TEST

START_TEST(writer_refuses_invalid_blocks)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt", tmpdir);
    cp_error err;
    static const int64_t neg[] = {1, -1};
    struct {
        cp_block b;
        const char *why;
    } cases[7];
    cases[0].b = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0", "0", 2);
    add_row(&cases[0].b, "2", neg + 0); /* rank 2 of 2 */
    cases[0].why = "rank 2 is not below the number of ranks 2";
    cases[1].b = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0", "0", 2);
    add_row(&cases[1].b, "0", neg); /* 2 counts in a row of 2 */
    add_row(&cases[1].b, "1", neg);
    cases[1].b.rows[1].len = 1; /* then 1 */
    cases[1].why = "row 1: 1 counts in a block of rows of 2";
    cases[2].b = mk("All toall", 0, 2, "0-1", -1, 2, 4, false, "0", "0", 0);
    cases[2].why = "collective name may only hold";
    cases[3].b = mk("Alltoallv", 0, 3, "0-1", -1, 2, 4, false, "0", "0", 0);
    cases[3].why = "2 world ranks for a communicator of size 3";
    cases[4].b = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0", "1", 0);
    cases[4].why = "not all within";
    cases[5].b = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0", "0", 0);
    add_row(&cases[5].b, "0-1", NULL);
    add_row(&cases[5].b, "1", NULL);
    cases[5].why = "rank 1 is in rows 0 and 1";
    cases[6].b = mk("Alltoallv", 0, 0, NULL, -1, 2, 8, false, "0", "0", 0);
    cases[6].why = "world ranks must be distinct";
    cp_block_free(&cases[6].b);
    cases[6].b = mk("Alltoallv", 0, 3, NULL, -1, 2, 8, false, "0", "0", 0);
    cp_ranges_push(&cases[6].b.comm_world_ranks, 4);
    cp_ranges_push(&cases[6].b.comm_world_ranks, 2);
    cp_ranges_push(&cases[6].b.comm_world_ranks, 4); /* twice */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cp_block ok = doc_block();
        cp_block pair[2] = {ok, cases[i].b};
        cp_counts_file f = file_of(pair, 2);
        ck_assert_int_eq(cp_compact_write_file(path, false, &f, &err), -1);
        ck_assert_msg(strstr(err.msg, cases[i].why) != NULL, "case %zu: '%s'", i, err.msg);
        ck_assert_msg(strstr(err.msg, "block 1") != NULL, "case %zu: '%s'", i, err.msg);
        ck_assert_int_eq(tmpdir_entries(), 0); /* nothing left behind */
        cp_counts_file_free(&f);
    }
    tmpdir_remove();
}
END_TEST

/* ------------------------------------------------ other tools' dialect */

struct expected_file {
    const char *name;
    int direction;
    int64_t lead;
    const char *blocks[3];
};

/* The project's own fixtures (tests/data/dialect/): every dialect quirk. */
static const struct expected_file project_files[] = {
    {"allgatherv_steps/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Allgatherv n=3 dt=8 all=0-2 calls=0 len=3 [0-2: 1 1 1]",
      "Allgatherv n=3 dt=8 all=0-2 calls=1 len=3 [0-2: 2 2 2]",
      "Allgatherv n=3 dt=8 all=0-2 calls=2 len=3 [0-2: 3 3 3]"}},
    {"allgatherv_steps/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Allgatherv n=3 dt=8 all=0-2 calls=0 len=1 [0-2: 1]",
      "Allgatherv n=3 dt=8 all=0-2 calls=1 len=1 [0-2: 2]",
      "Allgatherv n=3 dt=8 all=0-2 calls=2 len=1 [0-2: 3]"}},
    {"alltoall_bytes/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoall n=3 dt=1 all=0-1 calls=0-1 len=1 [0: 16][1: 16][2: 16]"}},
    {"alltoall_bytes/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoall n=3 dt=1 all=0-1 calls=0-1 len=1 [0: 16][1: 16][2: 16]"}},
    {"alltoallv_types/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoallv n=2 dt=2 all=0-1 calls=0 len=2 [0: 5 1][1: 1 5]",
      "Alltoallv n=2 dt=16 all=0-1 calls=1 len=2 [0: 5 1][1: 1 5]"}},
    {"alltoallv_types/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoallv n=2 dt=2 all=0-1 calls=0 len=2 [0: 5 1][1: 1 5]",
      "Alltoallv n=2 dt=16 all=0-1 calls=1 len=2 [0: 5 1][1: 1 5]"}},
    /* Call ids per process, across communicators of sizes 3 and 6; two
     * spaces after "calls"; stray empty fields; ", " lists. */
    {"multicomm/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoallv n=3 dt=8 all=0-3 calls=0,3 len=3 [0: 0 1 1][1: 2 0 0][2: 2 1 1]",
      "Alltoallv n=6 dt=4 all=0-3 calls=1 len=6 [0,5: 1 1 1 1 1 1][1-4: 0 0 0 0 0 0]",
      "Alltoallv n=3 dt=8 all=0-3 calls=2 len=3 [0-2: 4 4 4]"}},
    {"multicomm/recv-counters.job0.rank3.txt", CP_RECV, 3,
     {"Alltoallv n=2 dt=4 all=0-2 calls=0,2 len=2 [0: 3 0][1: 5 7]"}},
    {"multicomm/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoallv n=3 dt=8 all=0-3 calls=0,3 len=3 [0: 0 2 2][1-2: 1 0 1]",
      "Alltoallv n=6 dt=4 all=0-3 calls=1 len=6 [0-5: 1 0 0 0 0 1]",
      "Alltoallv n=3 dt=8 all=0-3 calls=2 len=3 [0-2: 4 4 4]"}},
    {"multicomm/send-counters.job0.rank3.txt", CP_SEND, 3,
     {"Alltoallv n=2 dt=4 all=0-2 calls=0,2 len=2 [0: 3 5][1: 0 7]"}},
};
#define MULTICOMM_RECV0 6 /* project_files[6] */

/* The other tool's own files (CP_TESTDATA_DIR), with --other-tools. */
static const struct expected_file other_files[] = {
    {"allgatherv_c/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Allgatherv n=4 dt=4 all=0-1 calls=0 len=4 [0-3: 1 1 1 1]",
      "Allgatherv n=4 dt=4 all=0-1 calls=1 len=4 [0-3: 2 2 2 2]"}},
    {"allgatherv_c/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Allgatherv n=4 dt=4 all=0-1 calls=0 len=1 [0-3: 1]",
      "Allgatherv n=4 dt=4 all=0-1 calls=1 len=1 [0-3: 2]"}},
    {"alltoall_simple_c/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoall n=4 dt=1 all=0 calls=0 len=1 [0: 8][1: 8][2: 8][3: 8]"}},
    {"alltoall_simple_c/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoall n=4 dt=1 all=0 calls=0 len=1 [0: 8][1: 8][2: 8][3: 8]"}},
    {"alltoallv_c/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoallv n=4 dt=4 all=0 calls=0 len=4 [0: 0 0 0 0][1: 1 1 1 1][2: 2 2 2 2][3: 3 3 3 3]"}},
    {"alltoallv_c/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoallv n=4 dt=4 all=0 calls=0 len=4 [0-3: 0 1 2 3]"}},
    {"alltoallv_dt_c/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoallv n=4 dt=4 all=0-1 calls=0 len=4 [0-3: 1 1 1 1]",
      "Alltoallv n=4 dt=8 all=0-1 calls=1 len=4 [0-3: 1 1 1 1]"}},
    {"alltoallv_dt_c/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoallv n=4 dt=4 all=0-1 calls=0 len=4 [0-3: 1 1 1 1]",
      "Alltoallv n=4 dt=8 all=0-1 calls=1 len=4 [0-3: 1 1 1 1]"}},
    {"alltoallv_multicomms_c/recv-counters.job0.rank0.txt", CP_RECV, 0,
     {"Alltoallv n=2 dt=4 all=0-2 calls=0,2 len=2 [0: 0 0][1: 1 1]",
      "Alltoallv n=4 dt=4 all=0-2 calls=1 len=4 [0: 0 0 0 0][1: 1 1 1 1][2: 2 2 2 2][3: 3 3 3 3]"}},
    /* The quirk: "Alltoallv calls 0-1" but "Count: 2 calls - 0, 2". */
    {"alltoallv_multicomms_c/recv-counters.job0.rank2.txt", CP_RECV, 2,
     {"Alltoallv n=2 dt=4 all=0-1 calls=0,2 len=2 [0: 0 0][1: 1 1]"}},
    {"alltoallv_multicomms_c/send-counters.job0.rank0.txt", CP_SEND, 0,
     {"Alltoallv n=2 dt=4 all=0-2 calls=0,2 len=2 [0-1: 0 1]",
      "Alltoallv n=4 dt=4 all=0-2 calls=1 len=4 [0-3: 0 1 2 3]"}},
    {"alltoallv_multicomms_c/send-counters.job0.rank2.txt", CP_SEND, 2,
     {"Alltoallv n=2 dt=4 all=0-1 calls=0,2 len=2 [0-1: 0 1]"}},
};

/* The set under test: the project's fixtures, or the other tool's files. */
static struct {
    const char *(*path)(const char *name);
    const struct expected_file *files;
    int n;
} set = {dialect_path, project_files, sizeof project_files / sizeof *project_files};

static void check_dialect_file(const struct expected_file *e, const cp_counts_file *f)
{
    ck_assert_int_eq(f->version, 0);
    size_t want = 0;
    while (want < 3 && e->blocks[want])
        want++;
    ck_assert_msg(f->nblocks == want, "%s: %zu blocks", e->name, f->nblocks);
    for (size_t i = 0; i < want; i++) {
        const cp_block *b = &f->blocks[i];
        char got[1024];
        describe(b, got, sizeof got);
        ck_assert_msg(strcmp(got, e->blocks[i]) == 0, "%s block %zu:\n got  '%s'\n want '%s'",
                      e->name, i, got, e->blocks[i]);
        ck_assert_int_eq(b->comm_id, -1);
        ck_assert_int_eq(b->comm_size, -1);
        ck_assert_uint_eq(b->comm_world_ranks.n, 0);
        ck_assert_int_eq(b->root, -1);
        ck_assert(!b->counts_in_bytes);
    }
}

START_TEST(dialect_files_exact)
{
    char path[8192];
    cp_error err;
    for (int i = 0; i < set.n; i++) {
        const struct expected_file *e = &set.files[i];
        snprintf(path, sizeof path, "%s", set.path(e->name));
        cp_counts_file f;
        memset(&f, 0, sizeof f);
        ck_assert_msg(cp_compact_parse_file(path, &f, &err) == 0, "%s", err.msg);
        check_dialect_file(e, &f);
        int dirn = -1;
        int64_t lead = -1;
        ck_assert_int_eq(cp_compact_parse_name(path, &dirn, &lead), 0);
        ck_assert_int_eq(dirn, e->direction);
        ck_assert_int_eq(lead, e->lead);
        cp_counts_file_free(&f);
    }
}
END_TEST

START_TEST(dialect_every_file_covered)
{
    /* Every counts file in the test data has its expectations above. */
    char path[8192];
    snprintf(path, sizeof path, "%s", set.path(""));
    DIR *top = opendir(path);
    ck_assert_msg(top != NULL, "cannot open %s", path);
    int seen = 0;
    struct dirent *d;
    while ((d = readdir(top))) {
        if (d->d_name[0] == '.')
            continue;
        char sub[8704];
        snprintf(sub, sizeof sub, "%s/%s", path, d->d_name);
        DIR *s = opendir(sub);
        if (!s)
            continue;
        struct dirent *e;
        while ((e = readdir(s))) {
            if (cp_compact_parse_name(e->d_name, NULL, NULL) != 0)
                continue;
            char rel[600];
            snprintf(rel, sizeof rel, "%s/%s", d->d_name, e->d_name);
            bool known = false;
            for (int i = 0; i < set.n; i++)
                known |= strcmp(set.files[i].name, rel) == 0;
            ck_assert_msg(known, "no expectations for %s", rel);
            seen++;
        }
        closedir(s);
    }
    closedir(top);
    ck_assert_int_eq(seen, set.n);
}
END_TEST

START_TEST(dialect_multicomms_values)
{
    char path[8192];
    snprintf(path, sizeof path, "%s",
             other_tools_path("alltoallv_multicomms_c/send-counters.job0.rank0.txt"));
    cp_counts_file f;
    memset(&f, 0, sizeof f);
    cp_error err;
    ck_assert_msg(cp_compact_parse_file(path, &f, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(f.nblocks, 2);
    const cp_block *a = &f.blocks[0], *b = &f.blocks[1];
    ck_assert_str_eq(a->collective, "Alltoallv");
    ck_assert_int_eq(a->nranks, 2);
    ck_assert_int_eq(b->nranks, 4);
    ck_assert_int_eq(cp_ranges_count(&a->calls), 2);
    ck_assert(cp_ranges_contains(&a->calls, 0) && cp_ranges_contains(&a->calls, 2));
    ck_assert(!cp_ranges_contains(&a->calls, 1));
    ck_assert_int_eq(cp_ranges_count(&b->calls), 1);
    ck_assert(cp_ranges_contains(&b->calls, 1));
    ck_assert_uint_eq(a->nrows, 1);
    ck_assert_int_eq(cp_block_count(a, 1, 0), 0);
    ck_assert_int_eq(cp_block_count(a, 1, 1), 1);
    ck_assert_int_eq(cp_block_count(b, 3, 2), 2);
    ck_assert_int_eq(cp_block_count(b, 4, 0), -1);
    ck_assert_int_eq(a->dtsize, 4);
    cp_counts_file_free(&f);
}
END_TEST

/* Version 3: progressions (a cycle of three matrices: this one at every
 * third call, twice per cycle) written as "N-M/S", two-value progressions
 * as "N,M"; read back as the same set of calls. */
START_TEST(strided_calls_version_3)
{
    tmpdir_make();
    static const int64_t v12[] = {1, 2};
    cp_block b = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0-32", "32", 2);
    cp_ranges_free(&b.calls);
    ck_assert_int_eq(cp_ranges_add_strided(&b.calls, 0, 30, 3), 0);
    ck_assert_int_eq(cp_ranges_add_strided(&b.calls, 1, 31, 3), 0);
    ck_assert_int_eq(cp_ranges_add_strided(&b.calls, 32, 32, 1), 0);
    /* a single value, then the progression it starts: one item */
    ck_assert_int_eq(cp_ranges_add_strided(&b.all_calls, 0, 0, 1), -1); /* not after 0-32 */
    add_row(&b, "0-1", v12);
    cp_block c = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0-32", "2", 2);
    cp_ranges_free(&c.calls);
    ck_assert_int_eq(cp_ranges_add_strided(&c.calls, 2, 5, 3), 0); /* 2,5: one progression */
    ck_assert_uint_eq(c.calls.n, 1);
    add_row(&c, "0", v12);
    add_row(&c, "1", v12);
    cp_block pair[2] = {b, c};
    cp_counts_file f = file_of(pair, 2);
    char *text = write_text(&f, false);
    ck_assert_msg(strncmp(text, "# collprof counts 3\n", 20) == 0, "%s", text);
    ck_assert_msg(strstr(text, "Count: 23 calls - 0-30/3,1-31/3,32\n") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "Count: 2 calls - 2,5\n") != NULL, "%s", text);
    cp_counts_file back;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "s.txt", &back, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(back.version, 3);
    ck_assert_uint_eq(back.nblocks, 2);
    ck_assert(cp_block_equal(&f.blocks[0], &back.blocks[0]));
    ck_assert(cp_block_equal(&f.blocks[1], &back.blocks[1]));
    /* the reader's set: every call of the two progressions and 32 */
    const cp_ranges *calls = &back.blocks[0].calls;
    ck_assert(!cp_ranges_strided(calls));
    ck_assert_int_eq(cp_ranges_count(calls), 23);
    for (int64_t k = 0; k <= 32; k++)
        ck_assert_int_eq(cp_ranges_contains(calls, k), k % 3 != 2 || k == 32);
    cp_counts_file_free(&back);
    free(text);
    cp_counts_file_free(&f);
    tmpdir_remove();
}
END_TEST

/* What version 3 lists refuse, and where strides are not allowed. */
START_TEST(strided_calls_refused)
{
    static const struct {
        const char *count, *why;
        int version;
    } cases[] = {
        {"Count: 3 calls - 0-5/2", "M - N a multiple of S", 3},
        {"Count: 5 calls - 0-4/1", "S >= 2", 3},
        {"Count: 1 calls - 4-4/2", "N < M", 3},
        {"Count: 7 calls - 0-8/2,4-12/4", "a call listed twice", 3},
        {"Count: 50000001 calls - 0-100000000/2", "more than 16777216", 3},
        {"Count: 3 calls - 0-4/2", "unexpected character in range list", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "# collprof counts %d\n# Raw counters\nCommunicator: 0 (size 1)\n"
                 "Collective: Bcast\nNumber of ranks: 1\nDatatype size: 4\n"
                 "Bcast calls 0-100000000\n%s\nBEGINNING DATA\nRank(s) 0: 1\nEND DATA\n",
                 cases[i].version, cases[i].count);
        cp_counts_file f;
        cp_error err;
        ck_assert_int_eq(parse_text(text, strlen(text), "s.txt", &f, &err), -1);
        ck_assert_msg(strstr(err.msg, "s.txt:8: ") && strstr(err.msg, cases[i].why),
                      "case %zu: %s", i, err.msg);
    }
}
END_TEST

/* The project's multicomm fixture, value by value: per-process call ids
 * that span communicators, so each block lists only its own calls. */
START_TEST(dialect_multicomm_values)
{
    cp_counts_file f;
    memset(&f, 0, sizeof f);
    cp_error err;
    ck_assert_msg(cp_compact_parse_file(dialect_path("multicomm/send-counters.job0.rank0.txt"), &f,
                                        &err) == 0,
                  "%s", err.msg);
    ck_assert_uint_eq(f.nblocks, 3);
    const cp_block *a = &f.blocks[0], *b = &f.blocks[1];
    ck_assert_int_eq(a->nranks, 3);
    ck_assert_int_eq(b->nranks, 6);
    ck_assert_int_eq(cp_ranges_count(&a->calls), 2);
    ck_assert(cp_ranges_contains(&a->calls, 0) && cp_ranges_contains(&a->calls, 3));
    ck_assert(!cp_ranges_contains(&a->calls, 1));
    ck_assert_int_eq(cp_block_count(a, 2, 0), 1); /* "Rank(s) 1, 2: 1 0 1" */
    ck_assert_int_eq(cp_block_count(a, 0, 1), 2);
    ck_assert_int_eq(cp_block_count(b, 4, 5), 1); /* after the stray empty field */
    ck_assert_int_eq(cp_block_count(b, 4, 4), 0);
    ck_assert_int_eq(cp_block_count(b, 6, 0), -1);
    ck_assert_int_eq(a->dtsize, 8);
    ck_assert_int_eq(b->dtsize, 4);
    cp_counts_file_free(&f);
}
END_TEST

static void parse_ok(const char *text, cp_counts_file *f)
{
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "quirk.txt", f, &err) == 0, "%s", err.msg);
}

START_TEST(dialect_quirks)
{
    cp_counts_file f;
    char got[1024];

    /* Stray empty field, two spaces after "calls", trailing spaces, blank
     * lines between header lines, ", " lists, identical rows on separate
     * lines (kept as written). */
    parse_ok("# Raw counters\n"
             "\n"
             "Number of ranks: 2000 \n"
             "\n"
             "Datatype size: 4\n"
             "Alltoallv calls  0-2\n"
             "\n"
             "Count: 2 calls - 0, 2 \n"
             "\n"
             "\n"
             "BEGINNING DATA\n"
             "Rank(s) 1-5, 1024: : 0 0 0 1 \n"
             "Rank(s) 0: 0 0 0 1 \n"
             "Rank(s) 6: 7 8 9 10\n"
             "END DATA\n"
             "\n"
             "\n",
             &f);
    ck_assert_int_eq(f.version, 0);
    ck_assert_uint_eq(f.nblocks, 1);
    describe(&f.blocks[0], got, sizeof got);
    ck_assert_str_eq(got, "Alltoallv n=2000 dt=4 all=0-2 calls=0,2 len=4 "
                          "[1-5,1024: 0 0 0 1][0: 0 0 0 1][6: 7 8 9 10]");
    cp_counts_file_free(&f);

    /* CRLF line ends, no final newline, ragged blank lines. */
    parse_ok("\r\n# Raw counters\r\n\r\nNumber of ranks: 1\r\nDatatype size: 8\r\n"
             "Bcast calls 0-0\r\nCount: 1 calls - 0\r\nBEGINNING DATA\r\nRank(s) 0: 3 \r\n"
             "END DATA",
             &f);
    ck_assert_uint_eq(f.nblocks, 1);
    describe(&f.blocks[0], got, sizeof got);
    ck_assert_str_eq(got, "Bcast n=1 dt=8 all=0 calls=0 len=1 [0: 3]");
    cp_counts_file_free(&f);

    /* A row with no values (trailing space only) and a block without rows. */
    parse_ok("# Raw counters\nNumber of ranks: 2\nDatatype size: 4\nBarrier calls 0\n"
             "Count: 1 calls - 0\nBEGINNING DATA\nRank(s) 0-1: \nEND DATA\n"
             "# Raw counters\nNumber of ranks: 2\nDatatype size: 4\nBarrier calls 1\n"
             "Count: 1 calls - 1\nBEGINNING DATA\nEND DATA\n",
             &f);
    ck_assert_uint_eq(f.nblocks, 2);
    describe(&f.blocks[0], got, sizeof got);
    ck_assert_str_eq(got, "Barrier n=2 dt=4 all=0 calls=0 len=0 [0-1:]");
    describe(&f.blocks[1], got, sizeof got);
    ck_assert_str_eq(got, "Barrier n=2 dt=4 all=1 calls=1 len=0 ");
    cp_counts_file_free(&f);

    /* Empty input: no blocks. */
    parse_ok("", &f);
    ck_assert_uint_eq(f.nblocks, 0);
    ck_assert_int_eq(f.version, 0);
    parse_ok("# collprof counts 1\n", &f);
    ck_assert_uint_eq(f.nblocks, 0);
    ck_assert_int_eq(f.version, 1);
}
END_TEST

START_TEST(dialect_gzip)
{
    /* A dialect file compressed by other means than our writer. */
    tmpdir_make();
    char src[8192], path[8192];
    snprintf(src, sizeof src, "%s", dialect_path(project_files[MULTICOMM_RECV0].name));
    snprintf(path, sizeof path, "%s/recv-counters.job0.rank0.txt.gz", tmpdir);
    cp_error err;
    cp_in *in = cp_in_open(src, &err);
    ck_assert_msg(in != NULL, "%s", err.msg);
    char *data;
    size_t len;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    cp_in_close(in);
    gzFile gz = gzopen(path, "wb9");
    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzwrite(gz, data, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    free(data);

    cp_counts_file f;
    memset(&f, 0, sizeof f);
    ck_assert_msg(cp_compact_parse_file(path, &f, &err) == 0, "%s", err.msg);
    check_dialect_file(&project_files[MULTICOMM_RECV0], &f);
    int dirn;
    int64_t lead;
    ck_assert_int_eq(cp_compact_parse_name("recv-counters.job0.rank0.txt.gz", &dirn, &lead), 0);
    ck_assert_int_eq(dirn, CP_RECV);
    ck_assert_int_eq(lead, 0);
    cp_counts_file_free(&f);
    tmpdir_remove();
}
END_TEST

START_TEST(file_names)
{
    int d = -1;
    int64_t lead = -1;
    ck_assert_int_eq(cp_compact_parse_name("send-counters.rank12.txt", &d, &lead), 0);
    ck_assert_int_eq(d, CP_SEND);
    ck_assert_int_eq(lead, 12);
    ck_assert_int_eq(cp_compact_parse_name("recv-counters.rank0.txt.gz", &d, &lead), 0);
    ck_assert_int_eq(d, CP_RECV);
    ck_assert_int_eq(lead, 0);
    ck_assert_int_eq(cp_compact_parse_name("send-counters.job0.rank3.txt", &d, &lead), 0);
    ck_assert_int_eq(d, CP_SEND);
    ck_assert_int_eq(lead, 3);
    ck_assert_int_eq(cp_compact_parse_name("recv-counters.job42.rank7.txt.gz", &d, &lead), 0);
    ck_assert_int_eq(d, CP_RECV);
    ck_assert_int_eq(lead, 7);
    ck_assert_int_eq(cp_compact_parse_name("out/send-counters.rank5.txt", &d, &lead), 0);
    ck_assert_int_eq(lead, 5);
    const char *bad[] = {"send-counters.rank.txt",     "send-counters.rank1.txt.bz2",
                         "send-counters.rank1",        "sent-counters.rank1.txt",
                         "send-counters.rankx.txt",    "send-counters.job.rank1.txt",
                         "manifest.json",              "send-counters.rank1.txt.gz.tmp.99",
                         "send-counters.rank-1.txt",   "",
                         "send-counters.rank99999999999999999999.txt"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        d = 99;
        ck_assert_msg(cp_compact_parse_name(bad[i], &d, &lead) == -1, "'%s' accepted", bad[i]);
        ck_assert_int_eq(d, 99);
    }
}
END_TEST

/* ------------------------------------------------------------ malformed */

/* A valid version-1 block around which the cases are built; line numbers:
 * 1 version, 2 "# Raw counters", 3 Communicator, 4 Collective,
 * 5 Number of ranks, 6 Datatype size, 7 calls, 8 Count, 9 blank,
 * 10 BEGINNING DATA, 11 row, 12 END DATA. */
struct bad_case {
    const char *text;
    long line;
    const char *msg; /* must appear in the message */
};

#define V1 "# collprof counts 1\n# Raw counters\n"
#define COMM "Communicator: 0 (size 3, world ranks 0-2)\n"
#define HEAD3 "Collective: Alltoallv\nNumber of ranks: 3\nDatatype size: 4\n"
#define CALLS "Alltoallv calls 0-3\nCount: 2 calls - 0-1\n\nBEGINNING DATA\n"
#define D0 "# Raw counters\nNumber of ranks: 3\nDatatype size: 4\n"
#define DCALLS "Alltoallv calls 0-3\nCount: 2 calls - 0-1\nBEGINNING DATA\n"
#define V5 "# collprof counts 5\n# Raw counters\n" HEAD3 "Alltoallv calls 0-3\nCount: 2 calls - 0-1\n"
#define L3 "Row length: 3\nBEGINNING DATA\n"

static const struct bad_case bad_cases[] = {
    /* version */
    {"# collprof counts 7\n# Raw counters\n", 1,
     "counts format version 7 is newer than version 6, which this collprof reads"},
    {"# collprof counts 0\n", 1, "does not exist"},
    {"# collprof counts one\n", 1, "expected '# collprof counts <version>'"},
    {V1 COMM HEAD3 CALLS "Rank(s) 0-2: 1 2 3\nEND DATA\n# collprof counts 1\n", 13,
     "expected '# Raw counters'"},
    /* unknown and misplaced lines */
    {V1 COMM HEAD3 "Foo: 3\n", 7, "expected '<Collective> calls LIST', found 'Foo: 3'"},
    {V1 COMM "Number of ranks: 3\nCollective: Alltoallv\n", 4, "expected 'Collective: NAME'"},
    {V1 COMM "Collective: Alltoallv\nDatatype size: 4\nNumber of ranks: 3\n", 5,
     "expected 'Root: R' or 'Number of ranks: N', found 'Datatype size: 4'"},
    {V1 "Collective: Alltoallv\nCommunicator: 0 (size 3)\n", 4, "found 'Communicator: 0 (size 3)'"},
    {V1 COMM HEAD3 "Datatype size: 4\n", 7, "expected '<Collective> calls LIST'"},
    {"junk\n", 1, "expected '# Raw counters' (the start of a block), found 'junk'"},
    {V1 COMM HEAD3 CALLS "Rank(s) 0-2: 1 2 3\nEND DATA\nnot a block\n", 13,
     "expected '# Raw counters'"},
    {D0 DCALLS "Rank(s) 0-2: 1 2 3\n\nEND DATA\n", 8, "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA'"},
    /* missing BEGINNING DATA / END DATA */
    {D0 "Alltoallv calls 0-3\nCount: 2 calls - 0-1\nRank(s) 0: 1 2 3\n", 6,
     "expected 'BEGINNING DATA', found 'Rank(s) 0: 1 2 3'"},
    {D0 DCALLS "Rank(s) 0-2: 1 2 3\n" D0, 8, "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA', found '# Raw counters'"},
    {D0 DCALLS "Rank(s) 0-2: 1 2 3\nEND\n", 8, "found 'END'"},
    /* end of file inside a block */
    {D0 DCALLS "Rank(s) 0-2: 1 2 3\n", 7, "unexpected end of file inside a block (truncated file?)"},
    {D0 DCALLS "Rank(s) 0-2: 1 2 3", 7, "unexpected end of file"},
    {D0 "Alltoallv calls 0-3\n", 4, "unexpected end of file inside a block (truncated file?): "
                                    "expected 'Count: K calls - LIST'"},
    {"# Raw counters\n\n", 2, "unexpected end of file"},
    {V1, 2, "expected 'Communicator: ID (size N, world ranks LIST)' or 'Collective: NAME'"},
    /* Count */
    {D0 "Alltoallv calls 0-3\nCount: 3 calls - 0-1\n", 5, "'Count: 3 calls' but 2 calls are listed"},
    {D0 "Alltoallv calls 0-3\nCount: 1 calls - \n", 5, "found nothing"},
    {D0 "Alltoallv calls 0-3\nCount: 1 calls 0\n", 5, "expected 'Count: K calls - LIST'"},
    {D0 "Alltoallv calls 0-3\nCount: 2 calls - 0,,1\n", 5, "empty item"},
    {D0 "Alltoallv calls\n", 4, "found nothing"},
    {D0 "Alltoallv calls 3-1\n", 4, "expected N-M with N <= M"},
    {V1 COMM HEAD3 "Alltoallv calls 0-3\nCount: 2 calls - 3-4\n", 8, "not all within"},
    /* rows */
    {D0 DCALLS "Rank(s) 0: 1 2 3\nRank(s) 1: 1 2\n", 8,
     "row has 2 counts, the first row of this block has 3"},
    {D0 DCALLS "Rank(s) 0: 1 2 3\nRank(s) 1: 1 2 3 4\n", 8, "row has 4 counts"},
    {D0 DCALLS "Rank(s) 0: 1 2 3\nRank(s) 3: 1 2 3\n", 8, "rank 3 is not below 'Number of ranks: 3'"},
    {D0 DCALLS "Rank(s) 0-1: 1 2 3\nRank(s) 2: 1 2 3\nRank(s) 1: 1 2 3\nEND DATA\n", 9,
     "rank 1 is in two rows (lines 7 and 9)"},
    {D0 DCALLS "Rank(s) 0: 1 -2 3\n", 7, "count 2 of the row: negative number, found '-2'"},
    {D0 DCALLS "Rank(s) 0: 1 x 3\n", 7, "count 2 of the row: expected a non-negative integer, found 'x'"},
    {D0 DCALLS "Rank(s) 0: 1 2a 3\n", 7, "found '2a'"},
    {D0 DCALLS "Rank(s) 0: 1 2 99999999999999999999\n", 7, "count 3 of the row: number too large"},
    {D0 DCALLS "Rank(s) 0: 1 2 : 3\n", 7, "count 3 of the row"},
    {D0 DCALLS "Rank(s) 0 1 2 3\n", 7, "expected 'Rank(s) LIST: c0 c1 ...'"},
    {D0 DCALLS "Rank(s) : 1 2 3\n", 7, "ranks of 'Rank(s) LIST:': expected a range list"},
    {D0 DCALLS "Rank(s) 2-1: 1 2 3\n", 7, "expected N-M with N <= M"},
    {D0 DCALLS "Rank(s) 0,x: 1 2 3\n", 7, "ranks of 'Rank(s) LIST:'"},
    /* sparse and relative rows (version 5) */
    {V5 "BEGINNING DATA\nRank(s) 0: sparse 1=2\n", 9, "a sparse row needs 'Row length: L'"},
    {V5 L3 "Rank(s) 0: sparse 3=2\n", 10, "a peer is not below the row length"},
    {V5 L3 "Rank(s) 0: sparse 2=1 1=2\n", 10, "peers must be listed in increasing order, once"},
    {V5 L3 "Rank(s) 0: sparse 1=1 1=2\n", 10, "peers must be listed in increasing order, once"},
    {V5 L3 "Rank(s) 0: sparse 1=0\n", 10, "a listed count is 0"},
    {V5 L3 "Rank(s) 0: sparse 1:2\n", 10, "item 1 of the row: expected PEER=COUNT, found '1:2'"},
    {V5 L3 "Rank(s) 0: sparse -1=2\n", 10, "item 1 of the row: negative number"},
    {V5 L3 "Rank(s) 1-2: relative -1=2 +1=1\n", 10,
     "an offset takes a rank of the row outside 0 .. row length - 1"},
    {V5 L3 "Rank(s) 1: relative +1=1 -1=2\n", 10, "offsets must be listed in increasing order"},
    {V5 L3 "Rank(s) 1: relative +99999999999999=1\n", 10, "an offset is larger than the row length"},
    {V5 L3 "Rank(s) 1: 1 2\n", 10, "row has 2 counts, 'Row length:' says 3"},
    {V5 L3 "Rank(s) 1: dense 1 2 3\n", 10, "count 1 of the row: expected a non-negative integer"},
    {V1 COMM HEAD3 "Alltoallv calls 0-3\nCount: 2 calls - 0-1\n" L3, 9,
     "expected 'BEGINNING DATA', found 'Row length: 3'"},
    {"# collprof counts 5\n# Raw counters\nCollective: Neighbor_alltoallv\nNumber of ranks: 3\n"
     "Datatype size: 4\nNeighbor_alltoallv calls 0\nCount: 1 calls - 0\nRow length: 3\n", 8,
     "'Row length:' in a block of a neighbourhood collective"},
    /* header values */
    {V1 COMM "Collective: Alltoallv\nNumber of ranks: 3\nDatatype size: 4\nAlltoall calls 0\n", 7,
     "'Collective: Alltoallv' disagrees with 'Alltoall calls'"},
    {V1 "Communicator: 0 (size 3, world ranks 0-3)\n", 3,
     "4 world ranks listed for a communicator of size 3"},
    {V1 "Communicator: 0 (size 3, world ranks 0,1,0)\n", 3, "a value appears twice"},
    {V1 "Communicator: 0 (size 0)\n", 3, "communicator size must be at least 1"},
    {V1 "Communicator: 0 (size 3\n", 3, "expected 'Communicator: ID (size N)'"},
    {V1 "Communicator: x (size 3)\n", 3, "communicator id: expected a non-negative integer"},
    {"# Raw counters\nNumber of ranks: 0\n", 2, "'Number of ranks:' must be at least 1"},
    {"# Raw counters\nNumber of ranks: -4\n", 2, "Number of ranks:: negative number"},
    {"# Raw counters\nNumber of ranks: 4 ranks\n", 2, "expected 'Number of ranks: N'"},
    {"# Raw counters\nNumber of ranks: 4\nDatatype size: 8 (bytes)\n", 3,
     "counts in bytes need 'Datatype size: 1 (bytes)'"},
    {"# Raw counters\nNumber of ranks: 4\nDatatype size: 1 (byte)\n", 3,
     "expected 'Datatype size: D' or 'Datatype size: 1 (bytes)'"},
    {"# Raw counters\nRoot: 99999999999999999999\n", 2, "Root:: number too large"},
    {V1 COMM "Collective: All-to-all\n", 4, "a collective name holds only letters, digits and '_'"},
    {V1 COMM "Collective: Alltoallv_with_a_name_far_too_long_for_it\n", 4, "collective name longer than 31"},
    /* not text */
    {"# Raw counters\nNumber of ranks: 4\0\n", 2, "NUL byte inside a line"},
};
enum { NBAD = sizeof bad_cases / sizeof *bad_cases };

START_TEST(malformed)
{
    const struct bad_case *c = &bad_cases[_i];
    /* The NUL case holds a NUL: its length runs to the final '\n'. */
    size_t len = strlen(c->text);
    if (strstr(c->msg, "NUL"))
        len += 1 + strlen(c->text + len + 1);
    cp_counts_file f;
    cp_error err;
    memset(&err, 0, sizeof err);
    int rc = parse_text(c->text, len, "bad.txt", &f, &err);
    ck_assert_msg(rc == -1, "case %d accepted", _i);
    ck_assert_ptr_null(f.blocks);
    ck_assert_uint_eq(f.nblocks, 0);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bad.txt:%ld: ", c->line);
    ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
                  "case %d: want line %ld, got '%s'", _i, c->line, err.msg);
    ck_assert_msg(strstr(err.msg, c->msg) != NULL, "case %d: want '%s' in '%s'", _i, c->msg,
                  err.msg);
}
END_TEST

/* Call paths: version 2 and its Callsites: line only when a block has one;
 * the line round-trips; a version 1 file may not carry it. */
/* A call with a negative count (the MPI library refused it) is kept as
 * passed, in a block marked invalid (version 4); the parser takes negative
 * counts in such a block only. */
START_TEST(invalid_calls_version_4)
{
    cp_counts_file f = {.version = CP_COUNTS_FORMAT_VERSION, .direction = CP_SEND};
    f.blocks = calloc(2, sizeof *f.blocks);
    f.nblocks = 2;
    const int64_t good[] = {1, 2}, bad[] = {3, -1};
    f.blocks[0] = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0-2", "0,2", 2);
    add_row(&f.blocks[0], "0-1", good);
    f.blocks[1] = mk("Alltoallv", 0, 2, "0-1", -1, 2, 4, false, "0-2", "1", 2);
    add_row(&f.blocks[1], "0", bad);
    add_row(&f.blocks[1], "1", good);
    char *text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "# collprof counts 4\n"));
    ck_assert_ptr_nonnull(strstr(text, "Count: 1 calls - 1\nInvalid: negative count\n\n"
                                       "BEGINNING DATA\nRank(s) 0: 3 -1\n"));
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "inv.txt", &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.version, 4);
    ck_assert(!g.blocks[0].invalid);
    ck_assert(g.blocks[1].invalid);
    f.blocks[1].invalid = true; /* what the writer said */
    ck_assert(cp_block_equal(&f.blocks[0], &g.blocks[0]));
    ck_assert(cp_block_equal(&f.blocks[1], &g.blocks[1]));
    cp_counts_file_free(&g);
    free(text);
    cp_counts_file_free(&f);
    /* Without the line, a negative count is refused; version 3 does not know the line. */
    const char *plain = "# collprof counts 4\n# Raw counters\nCollective: Bcast\nNumber of ranks: 1\n"
                        "Datatype size: 4\nBcast calls 0\nCount: 1 calls - 0\n\nBEGINNING DATA\n"
                        "Rank(s) 0: -1\nEND DATA\n";
    ck_assert_int_eq(parse_text(plain, strlen(plain), "p.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "p.txt:10: count 1 of the row: negative number") != NULL, "%s",
                  err.msg);
    const char *v3 = "# collprof counts 3\n# Raw counters\nCollective: Bcast\nNumber of ranks: 1\n"
                     "Datatype size: 4\nBcast calls 0\nCount: 1 calls - 0\nInvalid: negative count\n";
    ck_assert_int_eq(parse_text(v3, strlen(v3), "v3.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "v3.txt:8: expected") != NULL, "%s", err.msg);
}
END_TEST

/* Calls the MPI library refused (version 6): the rows of the ranks that
 * were refused carry the error class, written once per class on the
 * block's "Failed:" line; the counts are kept as passed.  The line
 * round-trips, names only ranks that have rows, and a row is refused for
 * all its ranks or none. */
START_TEST(failed_calls_version_6)
{
    cp_counts_file f = {.version = CP_COUNTS_FORMAT_VERSION, .direction = CP_SEND};
    f.blocks = calloc(1, sizeof *f.blocks);
    f.nblocks = 1;
    const int64_t a[] = {1, 2, 0, 0}, b[] = {0, 0, 3, 4};
    f.blocks[0] = mk("Alltoallv", 0, 4, "0-3", -1, 4, 4, false, "0-2", "1", 4);
    add_row(&f.blocks[0], "0", a);
    add_row(&f.blocks[0], "1", a);
    add_row(&f.blocks[0], "2-3", b);
    f.blocks[0].rows[0].err = cp_error_class_parse("MPI_ERR_BUFFER", 14);
    f.blocks[0].rows[2].err = CP_ERROR_CLASS_OTHER + 77;
    char *text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "# collprof counts 6\n"));
    ck_assert_msg(strstr(text, "Count: 1 calls - 1\nFailed: MPI_ERR_BUFFER 0; MPI_ERR_CLASS_77 2-3"
                               "\n\nBEGINNING DATA\n") != NULL, "%s", text);
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "f.txt", &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.version, 6);
    ck_assert(cp_block_equal(&f.blocks[0], &g.blocks[0]));
    ck_assert(cp_block_has_failed(&g.blocks[0]));
    cp_counts_file_free(&g);
    free(text);
    cp_counts_file_free(&f);
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"Failed: MPI_ERR_NONSENSE 0", "expected an MPI error class"},
        {"Failed: MPI_ERR_BUFFER 1", "names a rank that has no row"},
        {"Failed: MPI_ERR_BUFFER 0; MPI_ERR_BUFFER 0", "names MPI_ERR_BUFFER twice"},
        {"Failed: MPI_ERR_BUFFER", "an empty list"},
        {"Failed: MPI_ERR_BUFFER 0-", "Failed: CLASS LIST"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char t[600];
        snprintf(t, sizeof t, "# collprof counts 6\n# Raw counters\nCollective: Bcast\n"
                 "Number of ranks: 2\nDatatype size: 4\nBcast calls 0\nCount: 1 calls - 0\n"
                 "%s\n\nBEGINNING DATA\nRank(s) 0: 1\nEND DATA\n", bad[i].line);
        ck_assert_int_eq(parse_text(t, strlen(t), "b.txt", &g, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "case %zu: %s", i, err.msg);
    }
    /* A row refused for some of its ranks only. */
    const char *split = "# collprof counts 6\n# Raw counters\nCollective: Bcast\n"
                        "Number of ranks: 2\nDatatype size: 4\nBcast calls 0\n"
                        "Count: 1 calls - 0\nFailed: MPI_ERR_ROOT 0\n\nBEGINNING DATA\n"
                        "Rank(s) 0-1: 1\nEND DATA\n";
    ck_assert_int_eq(parse_text(split, strlen(split), "s.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "some ranks of a row") != NULL, "%s", err.msg);
    /* Version 5 does not know the line. */
    const char *v5 = "# collprof counts 5\n# Raw counters\nCollective: Bcast\nNumber of ranks: 1\n"
                     "Datatype size: 4\nBcast calls 0\nCount: 1 calls - 0\nFailed: MPI_ERR_ROOT 0\n";
    ck_assert_int_eq(parse_text(v5, strlen(v5), "v5.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "v5.txt:8: expected") != NULL, "%s", err.msg);
}
END_TEST

/* Rows in rank space (version 5): a halo exchange on a line of ranks, each
 * sending 8 to r-1 and r+1, takes three rows whatever the number of ranks;
 * a matrix of mostly zeros lists its non-zero counts; a full one stays
 * dense.  Every count reads the same before and after, and round-trips. */
static cp_block halo_block(int64_t n)
{
    cp_block b = mk("Alltoallv", 0, n, NULL, -1, n, 4, false, "0-9", "0-9", (size_t)n);
    int64_t *v = calloc((size_t)n, sizeof *v);
    for (int64_t r = 0; r < n; r++) {
        memset(v, 0, (size_t)n * sizeof *v);
        if (r > 0)
            v[r - 1] = 8;
        if (r + 1 < n)
            v[r + 1] = 8;
        char ranks[32];
        snprintf(ranks, sizeof ranks, "%" PRId64, r);
        add_row(&b, ranks, v);
    }
    free(v);
    return b;
}

static void same_counts(const cp_block *a, const cp_block *b)
{
    for (int64_t r = 0; r < a->nranks; r++)
        for (size_t p = 0; p < a->row_len; p++)
            ck_assert_msg(cp_block_count(a, r, p) == cp_block_count(b, r, p),
                          "rank %" PRId64 " peer %zu: %" PRId64 " vs %" PRId64, r, p,
                          cp_block_count(a, r, p), cp_block_count(b, r, p));
}

START_TEST(rank_space_rows_version_5)
{
    cp_counts_file f = {.version = CP_COUNTS_FORMAT_VERSION, .direction = CP_SEND};
    f.blocks = calloc(3, sizeof *f.blocks);
    f.nblocks = 3;
    f.blocks[0] = halo_block(6);
    cp_block dense_halo = halo_block(6);
    /* Everyone sends 5 to rank 0 only: one sparse row. */
    f.blocks[1] = mk("Alltoallv", 0, 10, NULL, -1, 10, 4, false, "0-9", "0-9", 10);
    const int64_t to0[10] = {5};
    add_row(&f.blocks[1], "0-9", to0);
    /* Everyone sends to everyone: dense. */
    f.blocks[2] = mk("Alltoallv", 0, 3, NULL, -1, 3, 4, false, "0-9", "0-9", 3);
    const int64_t full[3] = {1, 2, 3};
    add_row(&f.blocks[2], "0-2", full);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(cp_block_compact_rows(&f.blocks[i]), 0);
    same_counts(&dense_halo, &f.blocks[0]);
    ck_assert_uint_eq(f.blocks[0].nrows, 3);
    ck_assert_int_eq(f.blocks[1].rows[0].form, CP_ROW_SPARSE);
    ck_assert_int_eq(cp_block_count(&f.blocks[1], 7, 0), 5);
    ck_assert_int_eq(cp_block_count(&f.blocks[1], 7, 1), 0);
    ck_assert_int_eq(f.blocks[2].rows[0].form, CP_ROW_DENSE);
    char *text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "# collprof counts 5\n"));
    ck_assert_msg(strstr(text, "Row length: 6\n\nBEGINNING DATA\nRank(s) 0: relative +1=8\n"
                               "Rank(s) 1-4: relative -1=8 +1=8\nRank(s) 5: relative -1=8\n"
                               "END DATA\n"),
                  "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "Row length: 10\n\nBEGINNING DATA\nRank(s) 0-9: sparse 0=5\n"));
    ck_assert_ptr_nonnull(strstr(text, "BEGINNING DATA\nRank(s) 0-2: 1 2 3\nEND DATA"));
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "v5.txt", &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.version, 5);
    for (size_t i = 0; i < 3; i++)
        ck_assert(cp_block_equal(&f.blocks[i], &g.blocks[i]));
    same_counts(&dense_halo, &g.blocks[0]);
    cp_counts_file_free(&g);
    free(text);
    /* 2,000 ranks: still three rows. */
    cp_block big = halo_block(2000);
    ck_assert_int_eq(cp_block_compact_rows(&big), 0);
    ck_assert_uint_eq(big.nrows, 3);
    ck_assert_int_eq(cp_block_count(&big, 1234, 1235), 8);
    ck_assert_int_eq(cp_block_count(&big, 1234, 1236), 0);
    cp_block_free(&big);
    cp_block_free(&dense_halo);
    cp_counts_file_free(&f);
}
END_TEST

START_TEST(callsites_version_2)
{
    cp_counts_file f = {.version = CP_COUNTS_FORMAT_VERSION, .direction = CP_SEND};
    f.blocks = calloc(2, sizeof *f.blocks);
    f.nblocks = 2;
    const int64_t row[] = {5};
    f.blocks[0] = mk("Allreduce", 0, 2, "0-1", -1, 2, 4, false, "0-4", "0-2", 1);
    add_row(&f.blocks[0], "0-1", row);
    set_ranges(&f.blocks[0].callsites, "3,7-8", false);
    f.blocks[1] = mk("Allreduce", 0, 2, "0-1", -1, 2, 4, false, "0-4", "3-4", 1);
    add_row(&f.blocks[1], "0-1", row);
    char *text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "# collprof counts 2\n"));
    ck_assert_ptr_nonnull(strstr(text, "Count: 3 calls - 0-2\nCallsites: 3,7-8\n\nBEGINNING DATA"));
    ck_assert_ptr_nonnull(strstr(text, "Count: 2 calls - 3-4\n\nBEGINNING DATA"));
    cp_counts_file g;
    cp_error err;
    ck_assert_msg(parse_text(text, strlen(text), "cs.txt", &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.version, 2);
    ck_assert_uint_eq(g.nblocks, 2);
    ck_assert(cp_block_equal(&f.blocks[0], &g.blocks[0]));
    ck_assert(cp_block_equal(&f.blocks[1], &g.blocks[1]));
    ck_assert_uint_eq(g.blocks[1].callsites.n, 0);
    cp_counts_file_free(&g);
    free(text);
    /* Without call paths: version 1, no Callsites: line. */
    cp_ranges_free(&f.blocks[0].callsites);
    text = write_text(&f, false);
    ck_assert_ptr_nonnull(strstr(text, "# collprof counts 1\n"));
    ck_assert_ptr_null(strstr(text, "Callsites"));
    free(text);
    cp_counts_file_free(&f);
    /* A version 1 file does not know the line; an empty list is refused. */
    const char *v1 = "# collprof counts 1\n# Raw counters\nCollective: Bcast\nNumber of ranks: 1\n"
                     "Datatype size: 4\nBcast calls 0\nCount: 1 calls - 0\nCallsites: 1\n";
    ck_assert_int_eq(parse_text(v1, strlen(v1), "v1.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "v1.txt:8: expected 'BEGINNING DATA'") != NULL, "%s", err.msg);
    const char *empty = "# collprof counts 2\n# Raw counters\nCollective: Bcast\n"
                        "Number of ranks: 1\nDatatype size: 4\nBcast calls 0\n"
                        "Count: 1 calls - 0\nCallsites:\n";
    ck_assert_int_eq(parse_text(empty, strlen(empty), "e.txt", &g, &err), -1);
    ck_assert_msg(strstr(err.msg, "e.txt:8: 'Callsites: LIST'") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(version_1_calls_within_all_calls)
{
    /* The multicomms quirk is accepted without a version line only. */
    const char *body = "# Raw counters\nCollective: Alltoallv\nNumber of ranks: 2\n"
                       "Datatype size: 4\nAlltoallv calls 0-1\nCount: 2 calls - 0, 2\n"
                       "BEGINNING DATA\nRank(s) 0-1: 0 1\nEND DATA\n";
    cp_counts_file f;
    parse_ok(body, &f);
    ck_assert_uint_eq(f.nblocks, 1);
    cp_counts_file_free(&f);
    char v1[1024];
    snprintf(v1, sizeof v1, "# collprof counts 1\n%s", body);
    cp_error err;
    ck_assert_int_eq(parse_text(v1, strlen(v1), "v1.txt", &f, &err), -1);
    ck_assert_str_eq(err.msg, "v1.txt:7: calls listed by 'Count:' are not all within the "
                              "'Alltoallv calls' list");
}
END_TEST

START_TEST(missing_file)
{
    cp_counts_file f;
    memset(&f, 0, sizeof f);
    cp_error err;
    ck_assert_int_eq(cp_compact_parse_file("no-such-tmpdir/send-counters.rank0.txt", &f, &err), -1);
    ck_assert_str_eq(err.msg,
                     "no-such-tmpdir/send-counters.rank0.txt: cannot open: No such file or directory");
}
END_TEST

/* ----------------------------------------------------------- truncation */

/* Every prefix of a valid file parses to a prefix of its complete blocks,
 * or is rejected with a message naming the input; never a crash (run it
 * under ASan: parse_text hands over an exactly-sized copy). */
static void truncate_everywhere(const char *text, const cp_counts_file *full)
{
    size_t len = strlen(text);
    size_t accepted = 0, rejected = 0;
    for (size_t off = 0; off <= len; off++) {
        cp_counts_file f;
        cp_error err;
        memset(&err, 0, sizeof err);
        if (parse_text(text, off, "cut.txt", &f, &err) == 0) {
            ck_assert_msg(f.nblocks <= full->nblocks, "offset %zu", off);
            for (size_t i = 0; i < f.nblocks; i++)
                ck_assert_msg(cp_block_equal(&f.blocks[i], &full->blocks[i]),
                              "offset %zu: block %zu differs", off, i);
            if (off == len)
                ck_assert_uint_eq(f.nblocks, full->nblocks);
            cp_counts_file_free(&f);
            accepted++;
        } else {
            ck_assert_msg(strncmp(err.msg, "cut.txt:", 8) == 0, "offset %zu: '%s'", off, err.msg);
            ck_assert_ptr_null(f.blocks);
            rejected++;
        }
    }
    ck_assert_uint_gt(accepted, 0);
    ck_assert_uint_gt(rejected, 0);
}

START_TEST(truncated_ours)
{
    tmpdir_make();
    cp_counts_file f = rich_file();
    char *text = write_text(&f, false);
    truncate_everywhere(text, &f);
    free(text);
    cp_counts_file_free(&f);
    tmpdir_remove();
}
END_TEST

START_TEST(truncated_dialect)
{
    char path[8192];
    snprintf(path, sizeof path, "%s", dialect_path(project_files[MULTICOMM_RECV0].name));
    cp_counts_file full;
    memset(&full, 0, sizeof full);
    cp_error err;
    ck_assert_msg(cp_compact_parse_file(path, &full, &err) == 0, "%s", err.msg);
    cp_in *in = cp_in_open(path, &err);
    char *data;
    size_t len;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    cp_in_close(in);
    truncate_everywhere(data, &full);
    free(data);
    cp_counts_file_free(&full);
}
END_TEST

/* The text of f's blocks spooled as a lead spools them (consecutive blocks
 * of one communicator in one spool) and written behind their heads. */
static char *spooled_text(const cp_counts_file *f)
{
    cp_compact_spool *sp = calloc(f->nblocks + 1, sizeof *sp);
    cp_compact_spool **ptr = calloc(f->nblocks + 1, sizeof *ptr);
    cp_compact_store store = {0};
    size_t n = 0;
    cp_error err;
    for (size_t i = 0; i < f->nblocks; i++) {
        const cp_block *b = &f->blocks[i];
        if (n == 0 || sp[n - 1].comm_id != b->comm_id || sp[n - 1].comm_size != b->comm_size ||
            !cp_ranges_equal(sp[n - 1].world, &b->comm_world_ranks)) {
            sp[n] = (cp_compact_spool){.store = &store, .comm_id = b->comm_id,
                                       .comm_size = b->comm_size, .world = &b->comm_world_ranks};
            ptr[n] = &sp[n];
            n++;
        }
        ck_assert_msg(cp_compact_spool_block(&sp[n - 1], b, &err) == 0, "%s", err.msg);
    }
    char path[8192];
    snprintf(path, sizeof path, "%s/spooled.txt", tmpdir);
    ck_assert_msg(cp_compact_write_spools_file(path, false, ptr, n, &err) == 0, "%s", err.msg);
    cp_compact_store_free(&store);
    free(sp);
    free(ptr);
    return slurp(path);
}

/* A lead spools each block's text as it is made and writes the file once
 * its communicators are numbered: the same bytes as the whole-file writer,
 * version line included (1 to 5 here), and an invalid block is refused. */
START_TEST(spooled_blocks_write_the_same_file)
{
    tmpdir_make();
    cp_counts_file files[4];
    cp_block doc = doc_block();
    files[0] = file_of(&doc, 1); /* version 1 */
    files[1] = rich_file();
    files[2] = (cp_counts_file){.version = CP_COUNTS_FORMAT_VERSION}; /* no block */
    cp_block v5[2] = {halo_block(6), halo_block(7)};
    ck_assert_int_eq(cp_block_compact_rows(&v5[0]), 0);
    files[3] = file_of(v5, 2);
    for (int k = 0; k < 4; k++) {
        char *whole = write_text(&files[k], false), *spooled = spooled_text(&files[k]);
        ck_assert_str_eq(spooled, whole);
        free(whole);
        free(spooled);
    }
    /* Refused, and nothing added. */
    cp_compact_store store = {0};
    cp_compact_spool sp = {.store = &store}, other = {.store = &store};
    cp_block bad = halo_block(3);
    bad.rows[2].ranks.v[0].lo = bad.rows[2].ranks.v[0].hi = 3;
    cp_error err;
    ck_assert_int_eq(cp_compact_spool_block(&sp, &bad, &err), -1);
    ck_assert_msg(strstr(err.msg, "not below the number of ranks"), "%s", err.msg);
    ck_assert_uint_eq(sp.n, 0);
    ck_assert_uint_eq(store.n, 0);
    ck_assert_uint_eq(store.text.len, 0);
    /* A communicator's blocks are one run of the store: another's between
     * them is refused (the writer would put the other's under its head). */
    cp_block good = halo_block(4);
    ck_assert_int_eq(cp_compact_spool_block(&sp, &good, &err), 0);
    ck_assert_int_eq(cp_compact_spool_block(&other, &good, &err), 0);
    size_t len = store.text.len;
    ck_assert_int_eq(cp_compact_spool_block(&sp, &good, &err), -1);
    ck_assert_msg(strstr(err.msg, "spooled apart"), "%s", err.msg);
    ck_assert_uint_eq(sp.n, 1);
    ck_assert_uint_eq(store.n, 2);
    ck_assert_uint_eq(store.text.len, len);
    cp_compact_spool none = {0};
    ck_assert_int_eq(cp_compact_spool_block(&none, &good, &err), -1);
    cp_compact_store_free(&store);
    cp_block_free(&good);
    cp_block_free(&bad);
    for (int k = 0; k < 4; k++)
        cp_counts_file_free(&files[k]);
    tmpdir_remove();
}
END_TEST

static int run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    Suite *s = suite_create("compact");
    TCase *tc = tcase_create("compact");
    tcase_set_timeout(tc, 120);
    if (other_tools_mode(argc, argv)) {
        /* Only the other tool's own files, read in place. */
        set.path = other_tools_path;
        set.files = other_files;
        set.n = sizeof other_files / sizeof *other_files;
        tcase_add_test(tc, dialect_files_exact);
        tcase_add_test(tc, dialect_every_file_covered);
        tcase_add_test(tc, dialect_multicomms_values);
        suite_add_tcase(s, tc);
        return run(s);
    }
    tcase_add_test(tc, relative_rows_are_offsets_from_the_rank);
    tcase_add_test(tc, exact_text);
    tcase_add_test(tc, exact_text_bytes_and_empty);
    tcase_add_test(tc, spooled_blocks_write_the_same_file);
    tcase_add_test(tc, round_trip_plain);
    tcase_add_test(tc, neighbourhood_rows_vary);
    tcase_add_test(tc, round_trip_gzip);
    tcase_add_test(tc, writer_refuses_invalid_blocks);
    tcase_add_test(tc, dialect_files_exact);
    tcase_add_test(tc, dialect_every_file_covered);
    tcase_add_test(tc, dialect_multicomm_values);
    tcase_add_test(tc, strided_calls_version_3);
    tcase_add_test(tc, strided_calls_refused);
    tcase_add_test(tc, dialect_quirks);
    tcase_add_test(tc, dialect_gzip);
    tcase_add_test(tc, file_names);
    tcase_add_loop_test(tc, malformed, 0, NBAD);
    tcase_add_test(tc, version_1_calls_within_all_calls);
    tcase_add_test(tc, callsites_version_2);
    tcase_add_test(tc, invalid_calls_version_4);
    tcase_add_test(tc, rank_space_rows_version_5);
    tcase_add_test(tc, failed_calls_version_6);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, truncated_ours);
    tcase_add_test(tc, truncated_dialect);
    suite_add_tcase(s, tc);
    return run(s);
}
