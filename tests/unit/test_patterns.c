/*
 * Patterns (tools/reader/patterns*.c): the number of other ranks each rank
 * addresses, and the classes of matrices of known shape (uniform, ring,
 * transpose-like, banded, one hot rank, concentrated, empty), for every kind
 * of row (per peer, single count, rooted, scan, neighbourhood,
 * intercommunicator), and the ranking per communicator.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"
#include "reader_fixture.h"
#include "dialect_data.h"
#include "tmpdir.h"


/* "7x1 1x0 | sparse: 12% of peers": the groups ("ranks x peers", "?" for
 * unknown peers), then the classes (send matrices). */
static const char *describe(const cp_profile *p, const cp_block *b, int direction)
{
    static char out[1024];
    cp_pattern pat;
    cp_error err = {{0}};
    ck_assert_msg(cp_pattern_analyze(p, b, direction, &pat, &err) == 0, "%s", err.msg);
    size_t len = 0;
    out[0] = '\0';
    for (size_t g = 0; g < pat.ngroups; g++) {
        if (pat.groups[g].peers == CP_PEERS_UNKNOWN)
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%" PRId64 "x?", g ? " " : "",
                                    pat.groups[g].ranks);
        else
            len += (size_t)snprintf(out + len, sizeof out - len, "%s%" PRId64 "x%" PRId64,
                                    g ? " " : "", pat.groups[g].ranks, pat.groups[g].peers);
    }
    if (direction == CP_SEND) {
        len += (size_t)snprintf(out + len, sizeof out - len, " | ");
        cp_pattern_classes_text(&pat, out + len, sizeof out - len);
    }
    cp_pattern_free(&pat);
    return out;
}

/* A block of n ranks (communicator 0), one row per rank: row[i][j] = f(i, j). */
static cp_block *matrix(cp_counts_file *f, const char *collective, int64_t n,
                        int64_t (*fn)(int64_t i, int64_t j, int64_t n))
{
    cp_block *b = fx_block(f, 0, n, NULL, collective, -1, n, 4, "0", "0", (size_t)n);
    int64_t *row = malloc((size_t)n * sizeof *row);
    for (int64_t i = 0; i < n; i++) {
        char ranks[32];
        for (int64_t j = 0; j < n; j++)
            row[j] = fn(i, j, n);
        snprintf(ranks, sizeof ranks, "%" PRId64, i);
        fx_row(b, ranks, row);
    }
    free(row);
    return b;
}

static int64_t all_ones(int64_t i, int64_t j, int64_t n)
{
    (void)i, (void)j, (void)n;
    return 1;
}
static int64_t all_but_self(int64_t i, int64_t j, int64_t n)
{
    (void)n;
    return i == j ? 0 : 5;
}
static int64_t ring(int64_t i, int64_t j, int64_t n)
{
    return j == (i + 1) % n ? 4 : 0;
}
static int64_t anti_diagonal(int64_t i, int64_t j, int64_t n)
{
    return j == n - 1 - i ? 3 : 0;
}
static int64_t band2(int64_t i, int64_t j, int64_t n)
{
    int64_t d = i > j ? i - j : j - i;
    d = d < n - d ? d : n - d;
    return d <= 2 ? 1 + d : 0;
}
static int64_t to_rank0(int64_t i, int64_t j, int64_t n)
{
    (void)i, (void)n;
    return j == 0 ? 10 : 0;
}
static int64_t to_first3(int64_t i, int64_t j, int64_t n)
{
    (void)i, (void)n;
    return j < 4 ? 100 : 0;
}
static int64_t zeros(int64_t i, int64_t j, int64_t n)
{
    (void)i, (void)j, (void)n;
    return 0;
}
static int64_t self_only(int64_t i, int64_t j, int64_t n)
{
    (void)n;
    return i == j ? 7 : 0;
}

/* ---------------------------------------------------- shapes, per peer */

START_TEST(shapes_per_peer)
{
    cp_counts_file f = {0};
    /* everyone to everyone, itself included */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, all_ones), CP_SEND),
                     "8x7 | uniform");
    /* everyone to every other rank: the own count is not looked at */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, all_but_self), CP_SEND),
                     "8x7 | uniform");
    /* ring: i sends only to i+1; cyclic distance 1 */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, ring), CP_SEND),
                     "8x1 | sparse: 14% of peers; banded: |i-j| <= 1");
    /* transpose-like: i sends to n-1-i, far from the diagonal */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, anti_diagonal), CP_SEND),
                     "8x1 | sparse: 14% of peers");
    /* stencil of half-width 2 on 16 ranks (4 other ranks each) */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 16, band2), CP_SEND),
                     "16x4 | sparse: 26% of peers; banded: |i-j| <= 2");
    /* the same stencil is not banded on 8 ranks: the band covers 5 of 8 */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, band2), CP_SEND),
                     "8x4 | -");
    /* one hot rank: everyone sends to rank 0 (rank 0 to itself) */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, to_rank0), CP_SEND),
                     "7x1 1x0 | sparse: 12% of peers; "
                     "one hot rank: rank 0 receives 100% of the bytes");
    /* the same, read as a receive matrix: rank i receives 10 from rank 0 */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 8, to_rank0), CP_RECV), "7x1 1x0");
    /* concentrated: 40 ranks send to ranks 0-3; the fewest that hold most */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 40, to_first3), CP_SEND),
                     "36x4 4x3 | sparse: 10% of peers; "
                     "concentrated: ranks 0-2 (3 of 40) receive 75% of the bytes");
    /* empty; and only counts to themselves: banded of width 0 */
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 4, zeros), CP_SEND), "4x0 | empty");
    ck_assert_str_eq(describe(NULL, matrix(&f, "Alltoallv", 4, self_only), CP_SEND),
                     "4x0 | banded: |i-j| <= 0");
    cp_counts_file_free(&f);
}
END_TEST

/* Rows shared by several ranks, as the files write them. */
START_TEST(shared_rows)
{
    cp_counts_file f = {0};
    /* alltoallv_c's send side: every rank sends j elements to rank j */
    cp_block *b = fx_block(&f, 0, 4, NULL, "Alltoallv", -1, 4, 4, "0", "0", 4);
    fx_row(b, "0-3", (const int64_t[]){0, 1, 2, 3});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "1x3 3x2 | -");
    /* one row "1 1 1 1" for ranks 0-3: uniform */
    b = fx_block(&f, 0, 4, NULL, "Alltoallv", -1, 4, 4, "0", "0", 4);
    fx_row(b, "0-3", (const int64_t[]){1, 1, 1, 1});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "4x3 | uniform");
    /* "0 1 1 1" shared by ranks 0-1: rank 1 sends nothing to rank 0 */
    b = fx_block(&f, 0, 4, NULL, "Alltoallv", -1, 4, 4, "0", "0", 4);
    fx_row(b, "0-1", (const int64_t[]){0, 1, 1, 1});
    fx_row(b, "2-3", (const int64_t[]){1, 1, 1, 1});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "3x3 1x2 | -");
    /* a lone rank's own zero is not looked at */
    b = fx_block(&f, 0, 4, NULL, "Alltoallv", -1, 4, 4, "0", "0", 4);
    fx_row(b, "0", (const int64_t[]){0, 1, 1, 1});
    fx_row(b, "1-3", (const int64_t[]){1, 1, 1, 1});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "4x3 | uniform");
    /* ranks without a row are not counted (a Gatherv receive side) */
    b = fx_block(&f, 0, 4, NULL, "Gatherv", 2, 4, 4, "0", "0", 4);
    fx_row(b, "2", (const int64_t[]){1, 2, 3, 4});
    ck_assert_str_eq(describe(NULL, b, CP_RECV), "1x3");
    cp_counts_file_free(&f);
}
END_TEST

/* ------------------------------------------------------- single counts */

START_TEST(single_counts)
{
    cp_counts_file f = {0};
    /* Alltoall: one count to every peer */
    cp_block *b = fx_block(&f, 0, 4, NULL, "Alltoall", -1, 4, 8, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){8});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "4x3 | uniform");
    ck_assert_str_eq(describe(NULL, b, CP_RECV), "4x3");
    /* different counts per rank: not uniform, rank 3 sends most */
    b = fx_block(&f, 0, 4, NULL, "Allgather", -1, 4, 1, "0", "0", 1);
    fx_row(b, "0-2", (const int64_t[]){1});
    fx_row(b, "3", (const int64_t[]){97});
    ck_assert_str_eq(describe(NULL, b, CP_SEND),
                     "4x3 | one hot rank: rank 3 sends 97% of the bytes");
    /* zero counts */
    b = fx_block(&f, 0, 4, NULL, "Alltoall", -1, 4, 8, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){0});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "4x0 | empty");
    /* Allreduce: every rank contributes to every other */
    b = fx_block(&f, 0, 3, NULL, "Allreduce", -1, 3, 8, "0", "0", 1);
    fx_row(b, "0-2", (const int64_t[]){10});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "3x2 | uniform");
    /* a million ranks in one row: linear, not quadratic */
    b = fx_block(&f, 0, 1000000, NULL, "Alltoall", -1, 1000000, 4, "0", "0", 1);
    fx_row(b, "0-999999", (const int64_t[]){2});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "1000000x999999 | uniform");
    /* Scan: to every higher rank; receive from every lower rank */
    b = fx_block(&f, 0, 4, NULL, "Scan", -1, 4, 4, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){1});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "1x3 1x2 1x1 1x0 | uniform");
    ck_assert_str_eq(describe(NULL, b, CP_RECV), "1x3 1x2 1x1 1x0");
    /* Barrier: rows of length 0 */
    b = fx_block(&f, 0, 4, NULL, "Barrier", -1, 4, 0, "0", "0", 0);
    fx_row(b, "0-3", NULL);
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "4x0 | empty");
    cp_counts_file_free(&f);
}
END_TEST

START_TEST(rooted)
{
    cp_counts_file f = {0};
    /* Gather to root 3: the others address the root, the root itself */
    cp_block *b = fx_block(&f, 0, 8, NULL, "Gather", 3, 8, 4, "0", "0", 1);
    fx_row(b, "0-7", (const int64_t[]){2});
    ck_assert_str_eq(describe(NULL, b, CP_SEND),
                     "7x1 1x0 | uniform; sparse: 12% of peers; "
                     "one hot rank: rank 3 receives 100% of the bytes");
    /* its receive side: the root receives from every other rank */
    b = fx_block(&f, 0, 8, NULL, "Gather", 3, 8, 4, "0", "0", 1);
    fx_row(b, "3", (const int64_t[]){2});
    ck_assert_str_eq(describe(NULL, b, CP_RECV), "1x7");
    /* Bcast from root 0: the root sends to all, the others receive from it */
    b = fx_block(&f, 0, 8, NULL, "Bcast", 0, 8, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){5});
    ck_assert_str_eq(describe(NULL, b, CP_SEND),
                     "1x7 | uniform; one hot rank: rank 0 sends 100% of the bytes");
    b = fx_block(&f, 0, 8, NULL, "Bcast", 0, 8, 4, "0", "0", 1);
    fx_row(b, "1-7", (const int64_t[]){5});
    ck_assert_str_eq(describe(NULL, b, CP_RECV), "7x1");
    /* Scatterv: the root's row has one count per peer (none to rank 2) */
    b = fx_block(&f, 0, 4, NULL, "Scatterv", 1, 4, 4, "0", "0", 4);
    fx_row(b, "1", (const int64_t[]){1, 1, 0, 1});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "1x2 | one hot rank: rank 1 sends 100% of the bytes");
    /* Reduce's send side, as Gather's */
    b = fx_block(&f, 0, 4, NULL, "Reduce", 0, 4, 8, "0", "0", 1);
    fx_row(b, "0-3", (const int64_t[]){3});
    ck_assert_str_eq(describe(NULL, b, CP_SEND),
                     "3x1 1x0 | uniform; sparse: 25% of peers; "
                     "one hot rank: rank 0 receives 100% of the bytes");
    cp_counts_file_free(&f);
}
END_TEST

/* A file may claim any number of ranks: refused, not overflowed. */
START_TEST(absurd_sizes)
{
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, -1, NULL, "Alltoallv", -1, INT64_MAX, 4, "0", "0", 1);
    fx_row(b, "0", (const int64_t[]){1});
    cp_pattern pat;
    cp_error err = {{0}};
    ck_assert_int_eq(cp_pattern_analyze(NULL, b, CP_SEND, &pat, &err), -1);
    ck_assert_str_eq(err.msg, "Alltoallv: out of memory for the patterns of "
                              "9223372036854775807 ranks");
    /* counts far beyond what MPI can move: capped, no overflow */
    b = fx_block(&f, 0, 3, NULL, "Alltoallv", -1, 3, INT64_MAX, "0", "0", 3);
    fx_row(b, "0-2", (const int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40, INT64_C(1) << 40});
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "3x2 | uniform");
    cp_counts_file_free(&f);
}
END_TEST

/* ------------------------------------------------ with a manifest in memory */

static cp_comm_info *one_comm(cp_profile *p, int64_t size)
{
    memset(p, 0, sizeof *p);
    p->has_manifest = true;
    p->manifest.comms = calloc(1, sizeof *p->manifest.comms);
    p->manifest.ncomms = 1;
    cp_comm_info *c = &p->manifest.comms[0];
    c->id = 0;
    c->size = size;
    cp_ranges_add_range(&c->members, 0, size - 1);
    return c;
}

static void set_list(int64_t **dst, size_t *n, const int64_t *src, size_t len)
{
    *dst = malloc((len ? len : 1) * sizeof **dst);
    memcpy(*dst, src, len * sizeof *src);
    *n = len;
}

/* 0 -> 1,2 ; 1 -> 2 ; 2 -> nothing (sources: 1 <- 0, 2 <- 0,1). */
START_TEST(neighbourhood)
{
    cp_profile p;
    cp_comm_info *c = one_comm(&p, 3);
    c->neighbors = calloc(3, sizeof *c->neighbors);
    set_list(&c->neighbors[0].destinations, &c->neighbors[0].ndestinations,
             (const int64_t[]){1, 2}, 2);
    set_list(&c->neighbors[1].destinations, &c->neighbors[1].ndestinations, (const int64_t[]){2},
             1);
    set_list(&c->neighbors[1].sources, &c->neighbors[1].nsources, (const int64_t[]){0}, 1);
    set_list(&c->neighbors[2].sources, &c->neighbors[2].nsources, (const int64_t[]){0, 1}, 2);

    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, 3, NULL, "Neighbor_alltoallv", -1, 3, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){1, 2});
    fx_row(b, "1", (const int64_t[]){2, 0});
    b->rows[1].len = 1;
    fx_row(b, "2", (const int64_t[]){0, 0});
    b->rows[2].len = 0;
    ck_assert_str_eq(describe(&p, b, CP_SEND),
                     "1x2 1x1 1x0 | one hot rank: rank 2 receives 80% of the bytes");
    /* without the neighbour lists: one peer per non-zero entry, and where
     * the bytes go is unknown */
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "1x2 1x1 1x0 | -");
    /* a single count goes to every out-neighbour */
    b = fx_block(&f, 0, 3, NULL, "Neighbor_allgather", -1, 3, 4, "0", "0", 1);
    fx_row(b, "0-2", (const int64_t[]){6});
    /* rank 2 receives 2/3 of the bytes: not more than twice its even share */
    ck_assert_str_eq(describe(&p, b, CP_SEND), "1x2 1x1 1x0 | uniform");
    ck_assert_str_eq(describe(&p, b, CP_RECV), "1x2 1x1 1x0");
    /* ... and without the lists, to an unknown number of them */
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "3x? | uniform");
    cp_counts_file_free(&f);
    cp_profile_free(&p);
}
END_TEST

/* An intercommunicator group of 2 ranks whose remote group has 2 ranks:
 * column 0 of rank 0 is remote rank 0, not itself. */
START_TEST(intercommunicator)
{
    cp_profile p;
    cp_comm_info *c = one_comm(&p, 2);
    cp_ranges_add_range(&c->remote_members, 2, 3);
    cp_counts_file f = {0};
    cp_block *b = fx_block(&f, 0, 2, NULL, "Alltoallv", -1, 2, 4, "0", "0", 2);
    fx_row(b, "0", (const int64_t[]){3, 4});
    fx_row(b, "1", (const int64_t[]){5, 0});
    ck_assert_str_eq(describe(&p, b, CP_SEND), "1x2 1x1 | -");
    /* read as an intracommunicator, the diagonal would not count */
    ck_assert_str_eq(describe(NULL, b, CP_SEND), "2x1 | -");
    /* everyone of this group gathers to remote rank 1: 2 remote peers only,
     * too few to call one of them hot */
    b = fx_block(&f, 0, 2, NULL, "Gather", 1, 2, 4, "0", "0", 1);
    fx_row(b, "0-1", (const int64_t[]){2});
    ck_assert_str_eq(describe(&p, b, CP_SEND), "2x1 | uniform");
    cp_counts_file_free(&f);
    cp_profile_free(&p);
}
END_TEST

/* -------------------------------------------------- other tools' files */

static const cp_block *find(const cp_profile *p, int64_t comm, int dir, int64_t call)
{
    const cp_block *b = cp_profile_find(p, comm, "Alltoallv", dir, call);
    ck_assert_ptr_nonnull(b);
    return b;
}

/* The project's dialect fixtures (tests/data/dialect/). */
START_TEST(dialect_patterns)
{
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(dialect_path("multicomm"), &p, &err) == 0, "%s", err.msg);
    /* ranks 0 and 1 send to 2 other ranks; rank 2's "1 0 1" is rank 0 and
     * itself: 1 other rank */
    ck_assert_str_eq(describe(&p, find(&p, 0, CP_SEND, 0), CP_SEND), "2x2 1x1 | -");
    /* every rank sends to ranks 0 and 5 only: ranks 1-4 to 2 other ranks,
     * 0 and 5 to 1; ranks 0 and 5 receive from 5 others */
    ck_assert_str_eq(describe(&p, find(&p, 1, CP_SEND, 1), CP_SEND),
                     "4x2 2x1 | sparse: 33% of peers");
    ck_assert_str_eq(describe(&p, find(&p, 1, CP_RECV, 1), CP_RECV), "2x5 4x0");
    ck_assert_str_eq(describe(&p, find(&p, 0, CP_SEND, 2), CP_SEND), "3x2 | uniform");
    cp_profile_free(&p);

    ck_assert_msg(cp_profile_load(dialect_path("alltoall_bytes"), &p, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(describe(&p, cp_profile_find(&p, 0, "Alltoall", CP_SEND, 1), CP_SEND),
                     "3x2 | uniform");
    cp_profile_free(&p);
}
END_TEST

START_TEST(testdata_patterns)
{
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(other_tools_path("alltoallv_c"), &p, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(describe(&p, find(&p, 0, CP_SEND, 0), CP_SEND), "1x3 3x2 | -");
    ck_assert_str_eq(describe(&p, find(&p, 0, CP_RECV, 0), CP_RECV), "3x3 1x0");
    cp_profile_free(&p);

    ck_assert_msg(cp_profile_load(other_tools_path("alltoallv_multicomms_c"), &p, &err) == 0, "%s",
                  err.msg);
    ck_assert_str_eq(describe(&p, find(&p, 0, CP_SEND, 0), CP_SEND), "1x1 1x0 | -");
    ck_assert_str_eq(describe(&p, find(&p, 1, CP_SEND, 1), CP_SEND), "1x3 3x2 | -");
    ck_assert_str_eq(describe(&p, find(&p, 2, CP_RECV, 0), CP_RECV), "1x1 1x0");
    cp_profile_free(&p);

    ck_assert_msg(cp_profile_load(other_tools_path("alltoall_simple_c"), &p, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(describe(&p, cp_profile_find(&p, 0, "Alltoall", CP_SEND, 0), CP_SEND),
                     "4x3 | uniform");
    cp_profile_free(&p);

    ck_assert_msg(cp_profile_load(other_tools_path("allgatherv_c"), &p, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(describe(&p, cp_profile_find(&p, 0, "Allgatherv", CP_SEND, 1), CP_SEND),
                     "4x3 | uniform");
    ck_assert_str_eq(describe(&p, cp_profile_find(&p, 0, "Allgatherv", CP_RECV, 1), CP_RECV),
                     "4x3");
    cp_profile_free(&p);
}
END_TEST

/* -------------------------------------------------------- per communicator */

START_TEST(ranking)
{
    tmpdir_make();
    cp_error err = {{0}};
    ck_assert_msg(fx_write(tmpdir, FX_GOOD, &err) == 0, "%s", err.msg);
    cp_profile p;
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    cp_comm_patterns *c;
    size_t n;
    ck_assert_msg(cp_profile_patterns(&p, &c, &n, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(n, 2);
    /* communicator 0: Alltoallv send x2, receive x2, Gatherv send, receive */
    ck_assert_int_eq(c[0].comm, 0);
    ck_assert_int_eq(c[0].size, 3);
    ck_assert_int_eq(c[0].lead, 0);
    ck_assert(!c[0].inter);
    ck_assert_int_eq(c[0].nblocks, 6);
    ck_assert_int_eq(c[0].nsend, 3);
    ck_assert_str_eq(c[0].blocks[0].b->collective, "Alltoallv");
    ck_assert_int_eq(c[0].blocks[0].direction, CP_SEND);
    ck_assert_int_eq(c[0].blocks[2].direction, CP_RECV);
    ck_assert_str_eq(c[0].blocks[4].b->collective, "Gatherv");
    /* by calls: Alltoallv 0-1 (2 calls, 144 bytes), Alltoallv 2 (48),
     * Gatherv 0 (24); by bytes the same order */
    const cp_pattern *top = &c[0].blocks[c[0].by_calls[0]];
    ck_assert_int_eq(top->calls, 2);
    ck_assert_int_eq(top->bytes, 144);
    ck_assert_int_eq(c[0].blocks[c[0].by_calls[1]].bytes, 48);
    ck_assert_int_eq(c[0].blocks[c[0].by_calls[2]].bytes, 24);
    ck_assert_int_eq(c[0].by_bytes[0], c[0].by_calls[0]);
    ck_assert_int_eq(c[0].by_bytes[2], c[0].by_calls[2]);
    ck_assert_int_eq(c[1].comm, 1);
    ck_assert_int_eq(c[1].lead, 2);
    ck_assert_int_eq(c[1].nsend, 1);
    ck_assert_int_eq(c[1].blocks[c[1].by_bytes[0]].bytes, 4 * 2 * 2 * 4 * 4);
    cp_comm_patterns_free(c, n);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* Ranked by bytes, a rarely used large matrix comes first. */
START_TEST(ranking_by_bytes_differs)
{
    cp_profile p = {0};
    p.files = calloc(1, sizeof *p.files);
    p.nfiles = 1;
    cp_counts_file *f = &p.files[0];
    f->direction = CP_SEND;
    cp_block *b = fx_block(f, 0, 2, NULL, "Alltoallv", -1, 2, 4, "0-9", "0-8", 2);
    fx_row(b, "0-1", (const int64_t[]){1, 1});
    b = fx_block(f, 0, 2, NULL, "Alltoallv", -1, 2, 4, "0-9", "9", 2);
    fx_row(b, "0-1", (const int64_t[]){1000, 1000});
    cp_comm_patterns *c;
    size_t n;
    cp_error err = {{0}};
    ck_assert_int_eq(cp_profile_patterns(&p, &c, &n, &err), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(c[0].by_calls[0], 0);
    ck_assert_int_eq(c[0].by_bytes[0], 1);
    ck_assert_int_eq(c[0].blocks[0].bytes, 9 * 2 * 2 * 4);
    ck_assert_int_eq(c[0].blocks[1].bytes, 2 * 2000 * 4);
    cp_comm_patterns_free(c, n);
    cp_profile_free(&p);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("patterns");
    TCase *tc = tcase_create("patterns");
    tcase_set_timeout(tc, 60);
    if (other_tools_mode(argc, argv)) {
        tcase_add_test(tc, testdata_patterns);
        goto run;
    }
    tcase_add_test(tc, dialect_patterns);
    tcase_add_test(tc, shapes_per_peer);
    tcase_add_test(tc, shared_rows);
    tcase_add_test(tc, single_counts);
    tcase_add_test(tc, rooted);
    tcase_add_test(tc, absurd_sizes);
    tcase_add_test(tc, neighbourhood);
    tcase_add_test(tc, intercommunicator);
    tcase_add_test(tc, ranking);
    tcase_add_test(tc, ranking_by_bytes_differs);
run:
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
