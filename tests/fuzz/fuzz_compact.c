/*
 * Fuzz target: the compact counts parser (writers/compact.c), both dialects.
 *
 * The input is a whole counts file, read from memory; the parser detects
 * whether it is our format or other tools' dialect by itself.  Beyond "no
 * crash, no leak, no undefined behaviour", an accepted file must satisfy
 * what the reader relies on (the invariants below), and must survive a round
 * trip: written back with cp_compact_write and parsed again, it gives equal
 * blocks.  A rejected file must be rejected with "<input>:<line>: ...".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "compact.h"
#include "fuzz_common.h"
#include "ranges.h"

#define INPUT_NAME "fuzz-input"

/* Is every value of set a in set b?  (Both normal sets.)  Through the
 * model's own union, not a copy of the parser's check. */
static bool subset(const cp_ranges *a, const cp_ranges *b)
{
    cp_ranges u = {0};
    FUZZ_CHECK(cp_ranges_copy(&u, b) == 0, "out of memory");
    for (size_t i = 0; i < a->n; i++)
        FUZZ_CHECK(cp_ranges_add_range(&u, a->v[i].lo, a->v[i].hi) == 0, "out of memory");
    bool eq = cp_ranges_equal(&u, b);
    cp_ranges_free(&u);
    return eq;
}

/* What docs/formats.md promises of every block that parses. */
static void check_block(const cp_counts_file *f, size_t bi)
{
    const cp_block *b = &f->blocks[bi];
    size_t nl = strnlen(b->collective, sizeof b->collective);
    FUZZ_CHECK(nl > 0 && nl < sizeof b->collective, "block %zu: collective name length %zu", bi,
               nl);
    FUZZ_CHECK(b->nranks >= 1, "block %zu: nranks %" PRId64, bi, b->nranks);
    FUZZ_CHECK(b->dtsize >= 0, "block %zu: dtsize %" PRId64, bi, b->dtsize);
    FUZZ_CHECK(!b->counts_in_bytes || b->dtsize == 1, "block %zu: bytes with dtsize %" PRId64,
               bi, b->dtsize);
    FUZZ_CHECK(b->root >= -1, "block %zu: root %" PRId64, bi, b->root);
    FUZZ_CHECK(fuzz_is_normal_set(&b->all_calls), "block %zu: calls line is not a set", bi);
    FUZZ_CHECK(fuzz_is_normal_set(&b->calls), "block %zu: Count: list is not a set", bi);
    if (f->version >= 1)
        FUZZ_CHECK(subset(&b->calls, &b->all_calls), "block %zu: Count: outside calls", bi);
    if (b->comm_id >= 0) {
        FUZZ_CHECK(b->comm_size >= 1, "block %zu: comm size %" PRId64, bi, b->comm_size);
        if (b->comm_world_ranks.n > 0)
            FUZZ_CHECK(cp_ranges_count(&b->comm_world_ranks) == b->comm_size,
                       "block %zu: world ranks vs size", bi);
    } else {
        FUZZ_CHECK(b->comm_size == -1 && b->comm_world_ranks.n == 0,
                   "block %zu: communicator data without an id", bi);
    }
    bool vary = cp_collective_rows_vary(b->collective);
    for (size_t r = 0; r < b->nrows; r++) {
        const cp_row *row = &b->rows[r];
        FUZZ_CHECK(fuzz_is_normal_set(&row->ranks), "block %zu row %zu: ranks not a set", bi, r);
        FUZZ_CHECK(row->ranks.v[row->ranks.n - 1].hi < b->nranks,
                   "block %zu row %zu: rank beyond nranks", bi, r);
        FUZZ_CHECK(row->len <= b->row_len && (vary || row->len == b->row_len),
                   "block %zu row %zu: len %zu, row_len %zu", bi, r, row->len, b->row_len);
        size_t n = cp_row_nitems(row);
        FUZZ_CHECK(n == 0 || row->counts, "block %zu row %zu: no counts", bi, r);
        FUZZ_CHECK(row->form == CP_ROW_DENSE || (!vary && row->len > 1 && (n == 0 || row->peers)),
                   "block %zu row %zu: a listed row where rows are dense", bi, r);
        for (size_t j = 0; row->form != CP_ROW_DENSE && j < n; j++) {
            FUZZ_CHECK(row->counts[j] != 0, "block %zu row %zu: a listed 0", bi, r);
            FUZZ_CHECK(j == 0 || row->peers[j] > row->peers[j - 1],
                       "block %zu row %zu: peers out of order", bi, r);
            /* every rank of the row reaches a peer below the row length */
            for (int e = 0; e < 2; e++) {
                int64_t rank = e ? row->ranks.v[row->ranks.n - 1].hi : row->ranks.v[0].lo;
                int64_t peer = cp_row_item(row, rank, j, &(int64_t){0});
                FUZZ_CHECK(peer >= 0 && (size_t)peer < row->len,
                           "block %zu row %zu: rank %" PRId64 " reaches peer %" PRId64, bi, r,
                           rank, peer);
            }
        }
        for (size_t j = 0; j < n; j++)
            FUZZ_CHECK(row->counts[j] >= 0 || b->invalid,
                       "block %zu row %zu: negative count outside an Invalid: block", bi, r);
    }
    /* No rank in two rows: two intervals overlap iff one's lo lies in the
     * other, so count the rows that hold each interval's lo.  Quadratic:
     * only on blocks small enough to keep the fuzzer fast. */
    size_t intervals = 0;
    for (size_t r = 0; r < b->nrows; r++)
        intervals += b->rows[r].ranks.n;
    if (intervals * b->nrows > 100000)
        return;
    for (size_t r = 0; r < b->nrows; r++)
        for (size_t k = 0; k < b->rows[r].ranks.n; k++) {
            int64_t lo = b->rows[r].ranks.v[k].lo;
            size_t holders = 0;
            for (size_t q = 0; q < b->nrows; q++)
                holders += cp_ranges_contains(&b->rows[q].ranks, lo);
            FUZZ_CHECK(holders == 1, "block %zu: rank %" PRId64 " in %zu rows", bi, lo, holders);
        }
}

/* The writer may refuse a parsed file only for what other tools' dialect
 * allows and our format does not: a Count: list outside the calls list. */
static bool writer_may_refuse(const cp_counts_file *f)
{
    if (f->version >= 1)
        return false;
    for (size_t i = 0; i < f->nblocks; i++)
        if (!subset(&f->blocks[i].calls, &f->blocks[i].all_calls))
            return true;
    return false;
}

static void round_trip(const cp_counts_file *f, size_t size)
{
    /* gzip for one input in eight: exercises the compressed writer and the
     * reader's gzip path without paying deflate on every input. */
    bool gzip = size % 8 == 0;
    cp_error err = {{0}};
    const char *path = fuzz_tmp_path("counts.txt");
    if (cp_compact_write_file(path, gzip, f, &err) != 0) {
        FUZZ_CHECK(writer_may_refuse(f), "the writer refuses a parsed file: %s", err.msg);
        return;
    }
    cp_counts_file g;
    memset(&g, 0, sizeof g);
    int rc = cp_compact_parse_file(fuzz_tmp_path("counts.txt"), &g, &err);
    FUZZ_CHECK(rc == 0, "the parser refuses what the writer wrote: %s", err.msg);
    /* The writer writes the lowest version that carries the file. */
    int want = 1;
    for (size_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i].callsites.n && want < 2)
            want = 2;
    for (size_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i].invalid)
            want = 4;
    for (size_t i = 0; i < f->nblocks; i++)
        for (size_t r = 0; r < f->blocks[i].nrows; r++)
            if (f->blocks[i].rows[r].form != CP_ROW_DENSE)
                want = 5;
    FUZZ_CHECK(g.version == want, "version %d after a round trip, expected %d", g.version, want);
    FUZZ_CHECK(g.nblocks == f->nblocks, "%zu blocks, then %zu", f->nblocks, g.nblocks);
    for (size_t i = 0; i < f->nblocks; i++)
        FUZZ_CHECK(cp_block_equal(&f->blocks[i], &g.blocks[i]),
                   "block %zu differs after a round trip", i);
    cp_counts_file_free(&g);
    fuzz_tmp_remove("counts.txt");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_in *in = cp_in_open_mem(data, size, INPUT_NAME);
    if (!in)
        return 0;
    cp_counts_file f;
    memset(&f, 0, sizeof f);
    f.lead_rank = -1;
    cp_error err = {{0}};
    int rc = cp_compact_parse(in, &f, &err);
    cp_in_close(in);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_error_names_line(&err, INPUT_NAME), "error without a line: '%s'",
                   err.msg);
        FUZZ_CHECK(f.blocks == NULL && f.nblocks == 0, "blocks left after a failure");
        return 0;
    }
    FUZZ_CHECK(f.version >= 0 && f.version <= CP_COUNTS_FORMAT_VERSION, "version %d", f.version);
    for (size_t i = 0; i < f.nblocks; i++)
        check_block(&f, i);
    round_trip(&f, size);
    cp_counts_file_free(&f);
    return 0;
}
