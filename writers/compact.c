/*
 * Compact counts format: writer and parser (compact.h, docs/formats.md).
 *
 * One grammar, in one place.  A file is
 *
 *   [version line]  "# collprof counts 1"   (absent in other tools' files)
 *   block*          each:
 *     "# Raw counters"
 *     ["Communicator: ID (size S[, world ranks LIST])"]
 *     ["Collective: NAME"]                  (always written, version >= 1)
 *     ["Root: R"]
 *     "Number of ranks: N"
 *     "Datatype size: D" | "Datatype size: 1 (bytes)"
 *     "NAME calls LIST"
 *     "Count: K calls - LIST"               (version >= 3: LIST may hold
 *                                            strided items "N-M/S", ranges.h)
 *     ["Callsites: LIST"]                   (version >= 2: call-tree ids)
 *     ["Invalid: negative count"]           (version >= 4: the rows may hold
 *                                            negative counts, as passed)
 *     ["Failed: CLASS LIST[; CLASS LIST]*"] (version >= 6: the MPI library
 *                                            refused the calls of these
 *                                            ranks with that error class)
 *     ["Row length: L"]                     (version >= 5: with sparse or
 *                                            relative rows)
 *     "BEGINNING DATA"
 *     ("Rank(s) LIST: c0 c1 ..."            dense
 *      | "Rank(s) LIST: sparse P=C ..."      (version >= 5) non-zero peers
 *      | "Rank(s) LIST: relative +O=C ...")* (version >= 5) peer = rank + O
 *     "END DATA"
 *
 * Header lines come in this order; blank lines may stand between any lines
 * outside the data section.  The parser also reads other tools' dialect
 * (collective_profiler): no version line, ", " in lists, trailing spaces, a
 * stray empty field "Rank(s) 1-5: : 0 1", "NAME calls  0-2".  Every parser
 * error is "<input>:<line>: expected ..."; nothing is ever read outside the
 * line buffer that textio hands over (the parser is fuzzed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "bytes.h"
#include "mpi_names.h"
#include "ranges.h"

#define NAME_MAX_LEN (sizeof(((cp_block *)0)->collective) - 1)

/* ----------------------------------------------------------------- shared */

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Interval of some row's ranks, for the "rank in two rows" check. */
typedef struct row_span {
    int64_t lo, hi;
    size_t row;
} row_span;

static int cmp_span(const void *pa, const void *pb)
{
    const row_span *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Find two rows of b that share a rank.  Returns 0 when there are none,
 * 1 with *ra < *rb and *rank set when there are, -1 when out of memory.
 * O(n log n) in the number of intervals, whatever their order. */
static int find_shared_rank(const cp_block *b, size_t *ra, size_t *rb, int64_t *rank)
{
    size_t total = 0;
    for (size_t i = 0; i < b->nrows; i++)
        total += b->rows[i].ranks.n;
    if (total < 2)
        return 0;
    row_span *s = malloc(total * sizeof *s);
    if (!s)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < b->nrows; i++)
        for (size_t j = 0; j < b->rows[i].ranks.n; j++) {
            s[k].lo = b->rows[i].ranks.v[j].lo;
            s[k].hi = b->rows[i].ranks.v[j].hi;
            s[k].row = i;
            k++;
        }
    qsort(s, total, sizeof *s, cmp_span);
    int found = 0;
    for (size_t i = 1; i < total; i++) {
        /* Sorted by lo: some pair overlaps iff some neighbours do. */
        if (s[i].lo <= s[i - 1].hi) {
            size_t x = s[i - 1].row, y = s[i].row;
            *ra = x < y ? x : y;
            *rb = x < y ? y : x;
            *rank = s[i].lo;
            found = 1;
            break;
        }
    }
    free(s);
    return found;
}

/* A set as cp_ranges_add keeps it: sorted, disjoint, non-adjacent. */
static bool is_normal_set(const cp_ranges *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].lo < 0 || r->v[i].lo > r->v[i].hi)
            return false;
        if (i > 0 && r->v[i].lo - 1 <= r->v[i - 1].hi)
            return false;
    }
    return true;
}

/* The calls of a block as finalize's merge writes cycles (progressions,
 * cp_ranges_add_strided): items in increasing order of their first value,
 * each a well-formed progression inside one interval of the set `all`. */
static bool is_progression_list(const cp_ranges *r, const cp_ranges *all)
{
    size_t j = 0;
    for (size_t i = 0; i < r->n; i++) {
        const cp_range *x = &r->v[i];
        int64_t step = x->step > 1 ? x->step : 1;
        if (x->lo < 0 || x->lo > x->hi || (x->hi - x->lo) % step != 0 ||
            (i > 0 && x->lo <= r->v[i - 1].lo))
            return false;
        while (j < all->n && all->v[j].hi < x->lo)
            j++;
        if (j == all->n || all->v[j].lo > x->lo || all->v[j].hi < x->hi)
            return false;
    }
    return true;
}

/* Is every value of set a in set b?  Both normalised. */
static bool is_subset(const cp_ranges *a, const cp_ranges *b)
{
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && b->v[j].hi < a->v[i].lo)
            j++;
        if (j == b->n || b->v[j].lo > a->v[i].lo || b->v[j].hi < a->v[i].hi)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ writer */

/* The lines under construction: the model's byte buffer (bytes.h), written
 * out once it is large. */
typedef cp_bytes linebuf;

static void lb_put(linebuf *lb, const char *s, size_t len)
{
    cp_bytes_append(lb, s, len);
}

static void lb_puts(linebuf *lb, const char *s)
{
    lb_put(lb, s, strlen(s));
}

static void lb_i64(linebuf *lb, int64_t v)
{
    char tmp[24], *q = cp_format_i64(tmp, v);
    lb_put(lb, q, (size_t)(tmp + sizeof tmp - q));
}

/* The grammar of ranges.h (its writer's fast twin, into the line buffer). */
static void lb_ranges(linebuf *lb, const cp_ranges *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (i > 0)
            lb_put(lb, ",", 1);
        const cp_range *x = &r->v[i];
        lb_i64(lb, x->lo);
        if (x->hi != x->lo) {
            /* a progression of two values reads better as two items */
            lb_put(lb, x->step > 1 && x->hi - x->lo == x->step ? "," : "-", 1);
            lb_i64(lb, x->hi);
            if (x->step > 1 && x->hi - x->lo > x->step) {
                lb_put(lb, "/", 1);
                lb_i64(lb, x->step);
            }
        }
    }
}

/* Write what lb holds once it is large (or when forced), then empty it. */
static int lb_flush(linebuf *lb, cp_out *out, bool force, cp_error *err)
{
    if (lb->failed)
        return cp_error_set(err, "%s: cannot write: %s", out ? cp_out_path(out) : "counts",
                            strerror(ENOMEM));
    if (!out || (!force && lb->len < 64 * 1024))
        return 0; /* a spool keeps it all */
    if (cp_out_write(out, lb->p, lb->len) != 0)
        return cp_out_status(out, err);
    lb->len = 0;
    return 0;
}

/* "<path>: block <i> (<collective>): <why>", for check_block and
 * check_comm (a spool's head names no block: "communicator"). */
__attribute__((format(printf, 5, 6))) static int bad_named(cp_error *err, const char *path,
                                                          size_t index, const char *name,
                                                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = cp_error_item(err, path, "block", index, name, NAME_MAX_LEN, fmt, ap);
    va_end(ap);
    return rc;
}
#define bad_block(err, path, index, b, ...)                                                \
    bad_named(err, path, index, (b)->collective, __VA_ARGS__)

static int cmp_lo(const void *pa, const void *pb)
{
    const cp_range *a = pa, *b = pb;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* An ordered list as cp_ranges_push builds it: valid intervals, no value
 * twice (parse_ordered refuses duplicates).  -1 when out of memory.
 * O(n log n): sort a copy, then neighbours overlap iff some pair does. */
static int is_ordered_list(const cp_ranges *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].lo < 0 || r->v[i].lo > r->v[i].hi)
            return 0;
    if (r->n < 2)
        return 1;
    cp_range *s = malloc(r->n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, r->v, r->n * sizeof *s);
    qsort(s, r->n, sizeof *s, cmp_lo);
    int ok = 1;
    for (size_t i = 1; i < r->n && ok; i++)
        ok = s[i].lo > s[i - 1].hi;
    free(s);
    return ok;
}

/* What is wrong with a sparse or relative row of b, or NULL: its items in
 * increasing order of peer (offset), none zero, every peer of every rank of
 * the row below the row length; dense rows only where rows vary in length. */
static const char *row_form_problem(const cp_block *b, const cp_row *row)
{
    if (row->form == CP_ROW_DENSE)
        return NULL;
    if (row->form != CP_ROW_SPARSE && row->form != CP_ROW_RELATIVE)
        return "unknown row form";
    if (cp_collective_rows_vary(b->collective))
        return "neighbourhood collectives have dense rows only";
    if (row->len != b->row_len)
        return "a sparse or relative row addresses every peer of the block";
    if (row->len <= 1)
        return "rows of one count are dense";
    if (row->nnz > 0 && !row->peers)
        return "no peers";
    int64_t lo = 0, hi = 0;
    if (row->form == CP_ROW_RELATIVE && row->ranks.n > 0) {
        lo = row->ranks.v[0].lo;
        hi = row->ranks.v[row->ranks.n - 1].hi;
    }
    for (size_t k = 0; k < row->nnz; k++) {
        if (k > 0 && row->peers[k] <= row->peers[k - 1])
            return row->form == CP_ROW_SPARSE ? "peers must be listed in increasing order, once"
                                              : "offsets must be listed in increasing order, once";
        if (row->counts[k] == 0)
            return "a listed count is 0 (sparse and relative rows list only non-zero counts)";
        int64_t p = row->peers[k];
        if (p > (int64_t)row->len || p < -(int64_t)row->len)
            return row->form == CP_ROW_SPARSE ? "a peer is not below the row length"
                                              : "an offset is larger than the row length";
        if (row->form == CP_ROW_SPARSE ? p < 0 || (uint64_t)p >= row->len
                                       : lo + p < 0 || hi + p < 0 || (uint64_t)(hi + p) >= row->len)
            return row->form == CP_ROW_SPARSE
                       ? "a peer is not below the row length"
                       : "an offset takes a rank of the row outside 0 .. row length - 1";
    }
    return NULL;
}

/* The head's communicator: its size and world ranks as the parser reads
 * them (name: what the error names). */
static int check_comm(int64_t comm_size, const cp_ranges *w, const char *name, size_t i,
                      const char *path, cp_error *err)
{
    if (comm_size < 1)
        return bad_named(err, path, i, name,
                         "communicator size %" PRId64 " (must be at least 1)", comm_size);
    if (w->n > 0 && cp_ranges_count(w) != comm_size)
        return bad_named(err, path, i, name,
                         "%" PRId64 " world ranks for a communicator of size %" PRId64,
                         cp_ranges_count(w), comm_size);
    int ok = is_ordered_list(w);
    if (ok < 0)
        return cp_error_set(err, "%s: %s", path, strerror(ENOMEM));
    if (!ok)
        return bad_named(err, path, i, name,
                         "world ranks must be distinct non-negative values "
                         "(built with cp_ranges_push)");
    return 0;
}

/* Refuse to write a block that the parser would reject, so that a file
 * written by collprof always parses.  (What the format cannot express but
 * the parser would accept is written as well as it can be: a negative root
 * or comm_id means no Root:/Communicator: line, counts_in_bytes writes
 * "Datatype size: 1 (bytes)" whatever dtsize says.) */
static int check_block(const cp_block *b, size_t i, const char *path, cp_error *err)
{
    size_t nl = strnlen(b->collective, sizeof b->collective);
    if (nl == 0 || nl > NAME_MAX_LEN)
        return bad_block(err, path, i, b, "collective name empty or not NUL-terminated");
    for (size_t k = 0; k < nl; k++)
        if (!is_name_char(b->collective[k]))
            return bad_block(err, path, i, b,
                             "collective name may only hold letters, digits and '_'");
    if (b->comm_id >= 0 &&
        check_comm(b->comm_size, &b->comm_world_ranks, b->collective, i, path, err) != 0)
        return -1;
    if (b->nranks < 1)
        return bad_block(err, path, i, b, "number of ranks %" PRId64 " (must be at least 1)",
                         b->nranks);
    if (b->dtsize < 0 && !b->counts_in_bytes)
        return bad_block(err, path, i, b, "negative datatype size");
    if (b->all_calls.n == 0 || b->calls.n == 0)
        return bad_block(err, path, i, b, "empty call list");
    if (!is_normal_set(&b->all_calls))
        return bad_block(err, path, i, b, "call lists must be sets built with cp_ranges_add");
    if (cp_ranges_strided(&b->calls)) {
        if (!is_progression_list(&b->calls, &b->all_calls))
            return bad_block(err, path, i, b,
                             "strided calls must be progressions in increasing order within "
                             "the calls of the collective (cp_ranges_add_strided)");
    } else if (!is_normal_set(&b->calls)) {
        return bad_block(err, path, i, b, "call lists must be sets built with cp_ranges_add");
    } else if (!is_subset(&b->calls, &b->all_calls)) {
        return bad_block(err, path, i, b,
                         "calls of this matrix are not all within the calls of the collective");
    }
    for (size_t r = 0; r < b->nrows; r++) {
        const cp_ranges *rk = &b->rows[r].ranks;
        if (rk->n == 0 || !is_normal_set(rk))
            return bad_block(err, path, i, b,
                             "row %zu: ranks must be a non-empty set built with cp_ranges_add",
                             r);
        if (rk->v[rk->n - 1].hi >= b->nranks)
            return bad_block(err, path, i, b,
                             "row %zu: rank %" PRId64 " is not below the number of ranks %" PRId64,
                             r, rk->v[rk->n - 1].hi, b->nranks);
        const cp_row *row = &b->rows[r];
        if (row->len > b->row_len || (row->len != b->row_len && !cp_collective_rows_vary(b->collective)))
            return bad_block(err, path, i, b, "row %zu: %zu counts in a block of rows of %zu", r,
                             row->len, b->row_len);
        if (cp_row_nitems(row) > 0 && !row->counts)
            return bad_block(err, path, i, b, "row %zu: no counts", r);
        const char *why = row_form_problem(b, row);
        if (why)
            return bad_block(err, path, i, b, "row %zu: %s", r, why);
    }
    size_t ra, rb;
    int64_t rank;
    int shared = find_shared_rank(b, &ra, &rb, &rank);
    if (shared < 0)
        return cp_error_set(err, "%s: %s", path, strerror(ENOMEM));
    if (shared)
        return bad_block(err, path, i, b, "rank %" PRId64 " is in rows %zu and %zu", rank, ra,
                         rb);
    return 0;
}

/* A block of calls that passed a negative count: kept as passed, marked. */
static bool block_invalid(const cp_block *b)
{
    if (b->invalid)
        return true;
    for (size_t r = 0; r < b->nrows; r++)
        for (size_t j = 0, n = cp_row_nitems(&b->rows[r]); j < n; j++)
            if (b->rows[r].counts[j] < 0)
                return true;
    return false;
}

/* Has the block rows of refused calls (version 6, "Failed:")? */
static bool block_has_failed(const cp_block *b)
{
    for (size_t r = 0; r < b->nrows; r++)
        if (b->rows[r].err)
            return true;
    return false;
}

/* "Failed: MPI_ERR_BUFFER 0; MPI_ERR_ROOT 2-3": each error class once, in
 * increasing order of its code, with the ranks of its rows. */
static int put_failed(linebuf *lb, const cp_block *b)
{
    int32_t done = 0;
    lb_puts(lb, "\nFailed:");
    for (;;) {
        int32_t code = INT32_MAX;
        for (size_t r = 0; r < b->nrows; r++)
            if (b->rows[r].err > done && b->rows[r].err < code)
                code = b->rows[r].err;
        if (code == INT32_MAX)
            return 0;
        cp_ranges ranks = {0};
        for (size_t r = 0; r < b->nrows; r++)
            if (b->rows[r].err == code && cp_ranges_union(&ranks, &b->rows[r].ranks)) {
                cp_ranges_free(&ranks);
                return -1;
            }
        char name[48];
        cp_error_class_name(code, name, sizeof name);
        lb_puts(lb, done ? "; " : " ");
        lb_puts(lb, name);
        lb_puts(lb, " ");
        lb_ranges(lb, &ranks);
        cp_ranges_free(&ranks);
        done = code;
    }
}

/* Has the block a sparse or relative row (version 5, "Row length:")? */
static bool block_has_listed_rows(const cp_block *b)
{
    for (size_t r = 0; r < b->nrows; r++)
        if (b->rows[r].form != CP_ROW_DENSE)
            return true;
    return false;
}

/* "# Raw counters" and the communicator, when the block names one. */
static void write_head(linebuf *lb, int64_t comm_id, int64_t comm_size, const cp_ranges *world)
{
    lb_puts(lb, "# Raw counters\n");
    if (comm_id >= 0) {
        lb_puts(lb, "Communicator: ");
        lb_i64(lb, comm_id);
        lb_puts(lb, " (size ");
        lb_i64(lb, comm_size);
        if (world->n > 0) {
            lb_puts(lb, ", world ranks ");
            lb_ranges(lb, world);
        }
        lb_puts(lb, ")\n");
    }
}

/* The rest of the block, from "Collective:" (the same text in any version
 * that carries the block: only "Callsites:" is left out below version 2,
 * and a block with call paths needs 2).  out NULL: into lb whole (a
 * spool). */
static int write_body(cp_out *out, const cp_block *b, linebuf *lb, cp_error *err)
{
    lb_puts(lb, "Collective: ");
    lb_put(lb, b->collective, strnlen(b->collective, sizeof b->collective));
    lb_puts(lb, "\n");
    if (b->root >= 0) {
        lb_puts(lb, "Root: ");
        lb_i64(lb, b->root);
        lb_puts(lb, "\n");
    }
    lb_puts(lb, "Number of ranks: ");
    lb_i64(lb, b->nranks);
    if (b->counts_in_bytes) {
        lb_puts(lb, "\nDatatype size: 1 (bytes)\n");
    } else {
        lb_puts(lb, "\nDatatype size: ");
        lb_i64(lb, b->dtsize);
        lb_puts(lb, "\n");
    }
    lb_put(lb, b->collective, strnlen(b->collective, sizeof b->collective));
    lb_puts(lb, " calls ");
    lb_ranges(lb, &b->all_calls);
    lb_puts(lb, "\nCount: ");
    lb_i64(lb, cp_ranges_count(&b->calls));
    lb_puts(lb, " calls - ");
    lb_ranges(lb, &b->calls);
    if (b->callsites.n > 0) {
        lb_puts(lb, "\nCallsites: ");
        lb_ranges(lb, &b->callsites);
    }
    if (block_invalid(b))
        lb_puts(lb, "\nInvalid: negative count");
    if (block_has_failed(b) && put_failed(lb, b))
        return cp_error_set(err, "%s: %s", out ? cp_out_path(out) : "counts", strerror(ENOMEM));
    if (block_has_listed_rows(b)) {
        lb_puts(lb, "\nRow length: ");
        lb_i64(lb, (int64_t)b->row_len);
    }
    lb_puts(lb, "\n\nBEGINNING DATA\n");
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        lb_puts(lb, "Rank(s) ");
        lb_ranges(lb, &row->ranks);
        lb_puts(lb, ":");
        if (row->form != CP_ROW_DENSE)
            lb_puts(lb, row->form == CP_ROW_SPARSE ? " sparse" : " relative");
        for (size_t j = 0, n = cp_row_nitems(row); j < n; j++) {
            lb_put(lb, " ", 1);
            if (row->form == CP_ROW_RELATIVE && row->peers[j] >= 0)
                lb_put(lb, "+", 1);
            if (row->form != CP_ROW_DENSE) {
                lb_i64(lb, row->peers[j]);
                lb_put(lb, "=", 1);
            }
            lb_i64(lb, row->counts[j]);
        }
        lb_puts(lb, "\n");
        if (lb_flush(lb, out, false, err) != 0)
            return -1;
    }
    lb_puts(lb, "END DATA\n\n");
    return lb_flush(lb, out, false, err);
}

/* The lowest version that carries the block: 2 with call paths, 3 with
 * strided call lists (cycles), 4 with invalid calls, 5 with sparse or
 * relative rows, 6 with refused calls. */
static int block_version(const cp_block *b)
{
    if (block_has_failed(b))
        return 6;
    if (block_has_listed_rows(b))
        return 5;
    if (block_invalid(b))
        return 4;
    if (cp_ranges_strided(&b->calls))
        return 3;
    return b->callsites.n > 0 ? 2 : 1;
}

static void write_version(linebuf *lb, int version)
{
    lb_puts(lb, "# collprof counts ");
    lb_i64(lb, version);
    lb_puts(lb, "\n");
}

int cp_compact_write(cp_out *out, const cp_counts_file *f, cp_error *err)
{
    if (!out)
        return cp_error_set(err, "counts file: no output");
    for (size_t i = 0; i < f->nblocks; i++)
        if (check_block(&f->blocks[i], i, cp_out_path(out), err) != 0)
            return -1;
    /* The lowest version that carries the file. */
    int version = 1;
    for (size_t i = 0; i < f->nblocks; i++) {
        int v = block_version(&f->blocks[i]);
        version = v > version ? v : version;
    }
    linebuf lb = {0};
    write_version(&lb, version);
    int rc = 0;
    for (size_t i = 0; i < f->nblocks && rc == 0; i++) {
        const cp_block *b = &f->blocks[i];
        write_head(&lb, b->comm_id, b->comm_size, &b->comm_world_ranks);
        rc = write_body(out, b, &lb, err);
    }
    if (rc == 0)
        rc = lb_flush(&lb, out, true, err);
    cp_bytes_free(&lb);
    return rc;
}

/* Open path (gzip-compressed when gzip), write through `write`, and commit,
 * or leave nothing there: both whole-file writers. */
static int write_file(const char *path, bool gzip, int (*write)(cp_out *, const void *, cp_error *),
                      const void *what, cp_error *err)
{
    cp_out *out = cp_out_open(path, gzip, err);
    if (!out)
        return -1;
    if (write(out, what, err) != 0) {
        cp_out_abort(out);
        return -1;
    }
    return cp_out_commit(out, err);
}

static int write_counts_file(cp_out *out, const void *f, cp_error *err)
{
    return cp_compact_write(out, f, err);
}

int cp_compact_write_file(const char *path, bool gzip, const cp_counts_file *f, cp_error *err)
{
    return write_file(path, gzip, write_counts_file, f, err);
}

/* ------------------------------------------------------------ spools */

int cp_compact_spool_block(cp_compact_spool *s, const cp_block *b, cp_error *err)
{
    if (check_block(b, s->n, "counts", err) != 0)
        return -1;
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 4;
        size_t *ne = realloc(s->ends, nc * sizeof *ne);
        if (!ne)
            return cp_error_set(err, "counts: %s", strerror(ENOMEM));
        s->ends = ne;
        s->cap = nc;
    }
    size_t at = s->text.len;
    if (write_body(NULL, b, &s->text, err) != 0) {
        s->text.len = at; /* no part of a block */
        return -1;
    }
    int v = block_version(b);
    s->version = v > s->version ? v : s->version;
    s->ends[s->n++] = s->text.len;
    return 0;
}

void cp_compact_spool_free(cp_compact_spool *s)
{
    cp_bytes_free(&s->text);
    free(s->ends);
    memset(s, 0, sizeof *s);
}

int cp_compact_write_spools(cp_out *out, cp_compact_spool *const *s, size_t n, cp_error *err)
{
    const char *path = cp_out_path(out);
    int version = 1;
    for (size_t j = 0; j < n; j++) {
        if (s[j]->n > 0 && s[j]->comm_id >= 0 &&
            check_comm(s[j]->comm_size, s[j]->world, "communicator", j, path, err) != 0)
            return -1;
        version = s[j]->version > version ? s[j]->version : version;
    }
    linebuf lb = {0};
    write_version(&lb, version);
    int rc = 0;
    for (size_t j = 0; j < n && rc == 0; j++)
        for (size_t i = 0; i < s[j]->n && rc == 0; i++) {
            size_t at = i ? s[j]->ends[i - 1] : 0;
            write_head(&lb, s[j]->comm_id, s[j]->comm_size, s[j]->world);
            if ((rc = lb_flush(&lb, out, true, err)) == 0 &&
                cp_out_write(out, s[j]->text.p + at, s[j]->ends[i] - at) != 0)
                rc = cp_out_status(out, err);
        }
    if (rc == 0)
        rc = lb_flush(&lb, out, true, err);
    cp_bytes_free(&lb);
    return rc;
}

/* The spools of cp_compact_write_spools_file, with their number. */
typedef struct spools {
    cp_compact_spool *const *s;
    size_t n;
} spools;

static int write_spools_file(cp_out *out, const void *what, cp_error *err)
{
    const spools *sp = what;
    return cp_compact_write_spools(out, sp->s, sp->n, err);
}

int cp_compact_write_spools_file(const char *path, bool gzip, cp_compact_spool *const *s,
                                 size_t n, cp_error *err)
{
    return write_file(path, gzip, write_spools_file, &(spools){s, n}, err);
}

/* ------------------------------------------------------------------ parser */

/* Header lines in the order they must come; a line of kind k may follow the
 * previous header line p when k > p and no required kind lies in between. */
enum kind {
    K_START = 0, /* "# Raw counters" */
    K_COMM,
    K_COLL,
    K_ROOT,
    K_NRANKS,
    K_DTSIZE,
    K_CALLS,
    K_COUNT,
    K_CALLSITES,
    K_INVALID,
    K_FAILED,
    K_ROWLEN,
    K_BEGIN,
    K_END,     /* "END DATA" */
    K_ROW,     /* "Rank(s) ..." */
    K_VERSION, /* "# collprof ..." */
    K_BLANK,
    K_UNKNOWN,
};

static const char *const kind_text[] = {
    [K_START] = "'# Raw counters'",
    [K_COMM] = "'Communicator: ID (size N, world ranks LIST)'",
    [K_COLL] = "'Collective: NAME'",
    [K_ROOT] = "'Root: R'",
    [K_NRANKS] = "'Number of ranks: N'",
    [K_DTSIZE] = "'Datatype size: D'",
    [K_CALLS] = "'<Collective> calls LIST'",
    [K_COUNT] = "'Count: K calls - LIST'",
    [K_CALLSITES] = "'Callsites: LIST'",
    [K_INVALID] = "'Invalid: negative count'",
    [K_FAILED] = "'Failed: CLASS LIST'",
    [K_ROWLEN] = "'Row length: L'",
    [K_BEGIN] = "'BEGINNING DATA'",
};

typedef struct parser {
    cp_in *in;
    cp_error *err;
    int version;
    char *line; /* current line, trailing blanks removed, NUL-terminated */
    size_t len;
    bool pending; /* line was read but not consumed yet */
    bool row_len_given; /* the block has a "Row length:" line */
    /* The block's "Failed:" line: ranks per error class. */
    uint32_t nfail;
    int32_t fail_code[8];
    cp_ranges fail_ranks[8];
} parser;

static void fail_clear(parser *ps)
{
    for (uint32_t i = 0; i < ps->nfail; i++)
        cp_ranges_free(&ps->fail_ranks[i]);
    ps->nfail = 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "<input>:<line>: <message>". */
__attribute__((format(printf, 2, 3))) static int perr(parser *ps, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cp_error_set(ps->err, "%s:%ld: %s", cp_in_name(ps->in), cp_in_lineno(ps->in), msg);
}

/* The current line, shortened and made printable, for messages. */
static const char *shown(const parser *ps, char *buf, size_t size)
{
    size_t max = size - 4, n = 0;
    for (size_t i = 0; i < ps->len && n < max; i++) {
        unsigned char c = (unsigned char)ps->line[i];
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (ps->len > max) {
        memcpy(buf + max - 3, "...", 3);
        n = max;
    }
    buf[n] = '\0';
    return buf;
}

/* Next line: 1, 0 at end of input, -1 on error (err set). */
static int next_line(parser *ps)
{
    if (ps->pending) {
        ps->pending = false;
        return 1;
    }
    char *l;
    size_t n;
    int r = cp_in_getline(ps->in, &l, &n, ps->err);
    if (r <= 0)
        return r;
    while (n > 0 && is_space(l[n - 1]))
        n--;
    l[n] = '\0';
    ps->line = l;
    ps->len = n;
    return 1;
}

static bool starts_with(const parser *ps, const char *prefix)
{
    size_t n = strlen(prefix);
    return ps->len >= n && memcmp(ps->line, prefix, n) == 0;
}

static bool line_is(const parser *ps, const char *text)
{
    return ps->len == strlen(text) && memcmp(ps->line, text, ps->len) == 0;
}

/* Length of "NAME" when the line is "NAME calls ..." (NAME of name
 * characters, then blanks, "calls", then a blank or the end), else 0. */
static size_t calls_line_name(const parser *ps)
{
    size_t i = 0;
    while (i < ps->len && is_name_char(ps->line[i]))
        i++;
    size_t name = i;
    if (name == 0 || i >= ps->len || !is_space(ps->line[i]))
        return 0;
    while (i < ps->len && is_space(ps->line[i]))
        i++;
    if (ps->len - i < 5 || memcmp(ps->line + i, "calls", 5) != 0)
        return 0;
    i += 5;
    if (i < ps->len && !is_space(ps->line[i]))
        return 0;
    return name;
}

static enum kind classify(const parser *ps)
{
    size_t i = 0;
    while (i < ps->len && is_space(ps->line[i]))
        i++;
    if (i == ps->len)
        return K_BLANK;
    if (line_is(ps, "# Raw counters"))
        return K_START;
    if (starts_with(ps, "# collprof"))
        return K_VERSION;
    if (starts_with(ps, "Communicator:"))
        return K_COMM;
    if (starts_with(ps, "Collective:"))
        return K_COLL;
    if (starts_with(ps, "Root:"))
        return K_ROOT;
    if (starts_with(ps, "Number of ranks:"))
        return K_NRANKS;
    if (starts_with(ps, "Datatype size:"))
        return K_DTSIZE;
    if (starts_with(ps, "Count:"))
        return K_COUNT;
    if (ps->version >= 2 && starts_with(ps, "Callsites:"))
        return K_CALLSITES;
    if (ps->version >= 4 && starts_with(ps, "Invalid:"))
        return K_INVALID;
    if (ps->version >= 6 && starts_with(ps, "Failed:"))
        return K_FAILED;
    if (ps->version >= 5 && starts_with(ps, "Row length:"))
        return K_ROWLEN;
    if (line_is(ps, "BEGINNING DATA"))
        return K_BEGIN;
    if (line_is(ps, "END DATA"))
        return K_END;
    if (starts_with(ps, "Rank(s)"))
        return K_ROW;
    if (calls_line_name(ps) > 0)
        return K_CALLS;
    return K_UNKNOWN;
}

static bool kind_required(const parser *ps, enum kind k)
{
    return k == K_NRANKS || k == K_DTSIZE || k == K_CALLS || k == K_COUNT || k == K_BEGIN ||
           (k == K_COLL && ps->version >= 1);
}

/* What may come after header line kind p: "'A', 'B' or 'C'". */
static bool kind_known(const parser *ps, enum kind k)
{
    return (k != K_CALLSITES || ps->version >= 2) && (k != K_INVALID || ps->version >= 4) &&
           (k != K_ROWLEN || ps->version >= 5) && (k != K_FAILED || ps->version >= 6);
}

static const char *expected_after(const parser *ps, enum kind p, char *buf, size_t size)
{
    enum kind opts[K_BEGIN + 1];
    size_t n = 0;
    for (int k = (int)p + 1; k <= K_BEGIN; k++) {
        if (!kind_known(ps, (enum kind)k))
            continue;
        opts[n++] = (enum kind)k;
        if (kind_required(ps, (enum kind)k))
            break;
    }
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n && used < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(buf + used, size - used, "%s%s", sep, kind_text[opts[i]]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

static bool kind_allowed(const parser *ps, enum kind p, enum kind k)
{
    if (k <= p || k > K_BEGIN)
        return false;
    for (int m = (int)p + 1; m < (int)k; m++)
        if (kind_required(ps, (enum kind)m))
            return false;
    return true;
}

/* A cursor over the current line for the header grammars. */
typedef struct cursor {
    const char *s;
    size_t i, n;
} cursor;

static void cur_blanks(cursor *c)
{
    while (c->i < c->n && is_space(c->s[c->i]))
        c->i++;
}

static bool cur_lit(cursor *c, const char *lit)
{
    size_t l = strlen(lit);
    if (c->n - c->i < l || memcmp(c->s + c->i, lit, l) != 0)
        return false;
    c->i += l;
    return true;
}

/* The word lit, followed by a blank or the end of the line. */
static bool cur_word(cursor *c, const char *lit)
{
    size_t i = c->i;
    if (!cur_lit(c, lit))
        return false;
    if (c->i < c->n && !is_space(c->s[c->i])) {
        c->i = i;
        return false;
    }
    cur_blanks(c);
    return true;
}

/* A non-negative integer; *why says what went wrong. */
static bool cur_number(cursor *c, int64_t *v, const char **why)
{
    if (c->i >= c->n || !is_digit(c->s[c->i])) {
        *why = (c->i < c->n && c->s[c->i] == '-') ? "negative number"
                                                   : "expected a non-negative integer";
        return false;
    }
    int64_t x = 0;
    while (c->i < c->n && is_digit(c->s[c->i])) {
        int d = c->s[c->i] - '0';
        if (x > (INT64_MAX - d) / 10) {
            *why = "number too large (more than 9223372036854775807)";
            return false;
        }
        x = x * 10 + d;
        c->i++;
    }
    *v = x;
    return true;
}

static bool cur_end(const cursor *c)
{
    return c->i == c->n;
}

/* "Prefix: N" with nothing after N. */
static int parse_number_line(parser *ps, const char *prefix, int64_t *v)
{
    cursor c = {ps->line, strlen(prefix), ps->len};
    const char *why = "expected a non-negative integer";
    cur_blanks(&c);
    if (!cur_number(&c, v, &why))
        return perr(ps, "%s: %s", prefix, why);
    if (!cur_end(&c)) {
        char b[80];
        return perr(ps, "expected '%s N' with N a non-negative integer, found '%s'", prefix,
                    shown(ps, b, sizeof b));
    }
    return 0;
}

static int parse_comm(parser *ps, cp_block *b)
{
    char sh[80];
    const char *usage = "expected 'Communicator: ID (size N)' or "
                        "'Communicator: ID (size N, world ranks LIST)'";
    cursor c = {ps->line, strlen("Communicator:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (!cur_number(&c, &b->comm_id, &why))
        return perr(ps, "communicator id: %s", why);
    cur_blanks(&c);
    if (!cur_lit(&c, "(size"))
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    cur_blanks(&c);
    if (!cur_number(&c, &b->comm_size, &why))
        return perr(ps, "communicator size: %s", why);
    if (b->comm_size < 1)
        return perr(ps, "communicator size must be at least 1");
    cur_blanks(&c);
    if (cur_lit(&c, ")")) {
        if (!cur_end(&c))
            return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
        return 0;
    }
    if (!cur_lit(&c, ","))
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    cur_blanks(&c);
    if (!cur_lit(&c, "world ranks") || c.n == c.i || ps->line[c.n - 1] != ')')
        return perr(ps, "%s, found '%s'", usage, shown(ps, sh, sizeof sh));
    if (cp_ranges_parse_ordered(c.s + c.i, c.n - 1 - c.i, &b->comm_world_ranks, &why) != 0)
        return perr(ps, "world ranks: %s", why);
    int64_t n = cp_ranges_count(&b->comm_world_ranks);
    if (n != b->comm_size)
        return perr(ps, "%" PRId64 " world ranks listed for a communicator of size %" PRId64, n,
                    b->comm_size);
    return 0;
}

/* "Collective: NAME" or the NAME of "NAME calls": a checked name. */
static int take_name(parser *ps, const char *s, size_t n, char *out, const char *what)
{
    if (n == 0)
        return perr(ps, "%s: expected a collective name", what);
    for (size_t i = 0; i < n; i++)
        if (!is_name_char(s[i]))
            return perr(ps, "%s: a collective name holds only letters, digits and '_'", what);
    if (n > NAME_MAX_LEN)
        return perr(ps, "%s: collective name longer than %zu characters", what, NAME_MAX_LEN);
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

static int parse_coll(parser *ps, cp_block *b)
{
    cursor c = {ps->line, strlen("Collective:"), ps->len};
    cur_blanks(&c);
    return take_name(ps, c.s + c.i, c.n - c.i, b->collective, "Collective");
}

static int parse_dtsize(parser *ps, cp_block *b)
{
    char sh[80];
    cursor c = {ps->line, strlen("Datatype size:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (!cur_number(&c, &b->dtsize, &why))
        return perr(ps, "Datatype size: %s", why);
    cur_blanks(&c);
    if (cur_end(&c))
        return 0;
    if (!cur_lit(&c, "(bytes)") || !cur_end(&c))
        return perr(ps, "expected 'Datatype size: D' or 'Datatype size: 1 (bytes)', found '%s'",
                    shown(ps, sh, sizeof sh));
    if (b->dtsize != 1)
        return perr(ps, "counts in bytes need 'Datatype size: 1 (bytes)', found '%s'",
                    shown(ps, sh, sizeof sh));
    b->counts_in_bytes = true;
    return 0;
}

static int parse_calls(parser *ps, cp_block *b, bool have_coll)
{
    size_t name = calls_line_name(ps);
    char found[sizeof b->collective];
    if (take_name(ps, ps->line, name, found, "calls line") != 0)
        return -1;
    if (have_coll && strcmp(found, b->collective) != 0)
        return perr(ps, "'Collective: %s' disagrees with '%s calls'", b->collective, found);
    memcpy(b->collective, found, sizeof found);
    cursor c = {ps->line, name, ps->len};
    cur_blanks(&c);
    cur_lit(&c, "calls");
    const char *why = "";
    if (cp_ranges_parse(c.s + c.i, c.n - c.i, &b->all_calls, &why) != 0)
        return perr(ps, "'%s calls LIST': %s", found, why);
    return 0;
}

static int parse_count(parser *ps, cp_block *b)
{
    char sh[80];
    cursor c = {ps->line, strlen("Count:"), ps->len};
    const char *why = "";
    int64_t k;
    cur_blanks(&c);
    if (!cur_number(&c, &k, &why))
        return perr(ps, "Count: %s", why);
    cur_blanks(&c);
    bool ok = cur_lit(&c, "calls");
    cur_blanks(&c);
    if (!ok || !cur_lit(&c, "-"))
        return perr(ps, "expected 'Count: K calls - LIST', found '%s'", shown(ps, sh, sizeof sh));
    if ((ps->version >= 3 ? cp_ranges_parse_strided : cp_ranges_parse)(c.s + c.i, c.n - c.i,
                                                                      &b->calls, &why) != 0)
        return perr(ps, "'Count: K calls - LIST': %s", why);
    int64_t listed = cp_ranges_count(&b->calls);
    if (listed != k)
        return perr(ps, "'Count: %" PRId64 " calls' but %" PRId64 " calls are listed", k, listed);
    if (ps->version >= 1 && !is_subset(&b->calls, &b->all_calls))
        return perr(ps, "calls listed by 'Count:' are not all within the '%s calls' list",
                    b->collective);
    return 0;
}

static int parse_callsites(parser *ps, cp_block *b)
{
    cursor c = {ps->line, strlen("Callsites:"), ps->len};
    const char *why = "";
    cur_blanks(&c);
    if (cp_ranges_parse(c.s + c.i, c.n - c.i, &b->callsites, &why) != 0)
        return perr(ps, "'Callsites: LIST': %s", why);
    if (b->callsites.n == 0)
        return perr(ps, "'Callsites: LIST': the list is empty");
    return 0;
}

/* "Failed: CLASS LIST[; CLASS LIST]*" into ps->fail_*. */
static int parse_failed(parser *ps)
{
    cursor c = {ps->line, strlen("Failed:"), ps->len};
    char sh[80];
    for (;;) {
        cur_blanks(&c);
        size_t at = c.i;
        while (c.i < c.n && is_name_char(c.s[c.i]))
            c.i++;
        int code = cp_error_class_parse(c.s + at, c.i - at);
        if (code <= 0)
            return perr(ps, "'Failed: CLASS LIST': expected an MPI error class such as "
                            "MPI_ERR_BUFFER, found '%.*s'",
                        (int)(c.i - at < 40 ? c.i - at : 40), c.s + at);
        for (uint32_t i = 0; i < ps->nfail; i++)
            if (ps->fail_code[i] == code)
                return perr(ps, "'Failed:' names %.*s twice", (int)(c.i - at), c.s + at);
        if (ps->nfail == sizeof ps->fail_code / sizeof *ps->fail_code)
            return perr(ps, "'Failed:' names more than 8 error classes");
        cur_blanks(&c);
        size_t end = c.i;
        while (end < c.n && c.s[end] != ';')
            end++;
        const char *why = "";
        cp_ranges *r = &ps->fail_ranks[ps->nfail];
        *r = (cp_ranges){0};
        if (cp_ranges_parse(c.s + c.i, end - c.i, r, &why) != 0 || r->n == 0) {
            cp_ranges_free(r);
            return perr(ps, "'Failed: CLASS LIST': %s, in '%s'", r->n ? why : "an empty list",
                        shown(ps, sh, sizeof sh));
        }
        ps->fail_code[ps->nfail++] = code;
        if (end == c.n)
            return 0;
        c.i = end + 1;
    }
}

/* Each row of a refused call takes its class; every rank "Failed:" names
 * must have a row, and a row is refused for all its ranks or none. */
static int assign_failed(parser *ps, cp_block *b)
{
    for (uint32_t i = 0; i < ps->nfail; i++) {
        int64_t named = cp_ranges_count(&ps->fail_ranks[i]), rowed = 0;
        char name[48];
        cp_error_class_name(ps->fail_code[i], name, sizeof name);
        for (size_t r = 0; r < b->nrows; r++) {
            cp_row *row = &b->rows[r];
            int64_t in = 0, all = cp_ranges_count(&row->ranks);
            for (size_t t = 0; t < row->ranks.n; t++)
                for (int64_t v = row->ranks.v[t].lo; v <= row->ranks.v[t].hi && in < all; v++)
                    in += cp_ranges_contains(&ps->fail_ranks[i], v);
            if (in == 0)
                continue;
            if (in != all || row->err)
                return perr(ps, "'Failed: %s' names some ranks of a row and not the others",
                            name);
            row->err = ps->fail_code[i];
            rowed += in;
        }
        if (rowed != named)
            return perr(ps, "'Failed: %s' names a rank that has no row in the block", name);
    }
    return 0;
}

/* Growing scratch array for the values of one row. */
typedef struct values {
    int64_t *v;
    size_t n, cap;
} values;

static int values_push(values *vs, int64_t x)
{
    if (vs->n == vs->cap) {
        size_t cap = vs->cap ? vs->cap * 2 : 64;
        int64_t *v = cap > SIZE_MAX / sizeof *v ? NULL : realloc(vs->v, cap * sizeof *v);
        if (!v)
            return -1;
        vs->v = v;
        vs->cap = cap;
    }
    vs->v[vs->n++] = x;
    return 0;
}

/* Room for the rows of the block being parsed, and the line of each (for
 * the two-rows check); grows by doubling. */
typedef struct row_store {
    long *lines;
    size_t cap;
} row_store;

static int row_store_reserve(cp_block *b, row_store *st)
{
    if (b->nrows < st->cap)
        return 0;
    size_t cap = st->cap ? st->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(cp_row))
        return -1;
    cp_row *rows = realloc(b->rows, cap * sizeof *rows);
    if (!rows)
        return -1;
    b->rows = rows;
    long *lines = realloc(st->lines, cap * sizeof *lines);
    if (!lines)
        return -1;
    st->lines = lines;
    st->cap = cap;
    return 0;
}

/* "Rank(s) LIST: c0 c1 ..." into a new row of b. */
static int parse_row(parser *ps, cp_block *b, values *vs, row_store *st)
{
    char sh[80];
    size_t start = strlen("Rank(s)");
    const char *colon = memchr(ps->line + start, ':', ps->len - start);
    if (!colon)
        return perr(ps, "expected 'Rank(s) LIST: c0 c1 ...', found '%s'",
                    shown(ps, sh, sizeof sh));
    size_t ci = (size_t)(colon - ps->line);
    if (ci == start || !is_space(ps->line[start]))
        return perr(ps, "expected 'Rank(s) LIST: c0 c1 ...', found '%s'",
                    shown(ps, sh, sizeof sh));
    cp_ranges ranks = {0};
    const char *why = "";
    if (cp_ranges_parse(ps->line + start, ci - start, &ranks, &why) != 0)
        return perr(ps, "ranks of 'Rank(s) LIST:': %s", why);
    int64_t top = ranks.v[ranks.n - 1].hi;
    if (top >= b->nranks) {
        cp_ranges_free(&ranks);
        return perr(ps, "rank %" PRId64 " is not below 'Number of ranks: %" PRId64 "'", top,
                    b->nranks);
    }

    /* Values; other tools write "LIST: : c0 ..." (a stray empty field). */
    cursor c = {ps->line, ci + 1, ps->len};
    cur_blanks(&c);
    if (c.i < c.n && c.s[c.i] == ':') {
        c.i++;
        cur_blanks(&c);
    }
    int form = CP_ROW_DENSE;
    if (ps->version >= 5 && cur_word(&c, "sparse"))
        form = CP_ROW_SPARSE;
    else if (ps->version >= 5 && cur_word(&c, "relative"))
        form = CP_ROW_RELATIVE;
    if (form != CP_ROW_DENSE && !ps->row_len_given) {
        cp_ranges_free(&ranks);
        return perr(ps, "a %s row needs 'Row length: L' in the block's header",
                    form == CP_ROW_SPARSE ? "sparse" : "relative");
    }
    /* Dense: the counts; listed: pairs peer (offset), count. */
    vs->n = 0;
    while (!cur_end(&c)) {
        size_t at = c.i;
        int64_t peer = 0, x;
        bool ok = true;
        if (form != CP_ROW_DENSE) {
            bool neg = form == CP_ROW_RELATIVE && c.i < c.n && c.s[c.i] == '-';
            c.i += form == CP_ROW_RELATIVE && c.i < c.n && (c.s[c.i] == '-' || c.s[c.i] == '+');
            if (!cur_number(&c, &peer, &why)) {
                ok = false;
            } else if (!cur_lit(&c, "=")) {
                ok = false;
                why = form == CP_ROW_SPARSE ? "expected PEER=COUNT" : "expected +OFFSET=COUNT";
            }
            peer = neg ? -peer : peer;
        }
        /* negative counts only where the block says so */
        bool minus = b->invalid && c.i + 1 < c.n && c.s[c.i] == '-' && is_digit(c.s[c.i + 1]);
        c.i += ok && minus;
        ok = ok && cur_number(&c, &x, &why);
        if (minus)
            x = -x;
        if (ok && c.i < c.n && !is_space(c.s[c.i])) {
            ok = false;
            why = "expected a non-negative integer";
        }
        if (!ok) {
            size_t end = at;
            while (end < c.n && !is_space(c.s[end]) && end - at < 30)
                end++;
            cp_ranges_free(&ranks);
            return perr(ps, "%s %zu of the row: %s, found '%.*s'",
                        form == CP_ROW_DENSE ? "count" : "item",
                        (form == CP_ROW_DENSE ? vs->n : vs->n / 2) + 1, why, (int)(end - at),
                        c.s + at);
        }
        if ((form != CP_ROW_DENSE && values_push(vs, peer) != 0) || values_push(vs, x) != 0) {
            cp_ranges_free(&ranks);
            return perr(ps, "%s", strerror(ENOMEM));
        }
        cur_blanks(&c);
    }
    if (form == CP_ROW_DENSE && (b->nrows > 0 || ps->row_len_given) && vs->n != b->row_len &&
        !cp_collective_rows_vary(b->collective)) {
        cp_ranges_free(&ranks);
        return perr(ps, ps->row_len_given ? "row has %zu counts, 'Row length:' says %zu"
                                          : "row has %zu counts, the first row of this block has %zu",
                    vs->n, b->row_len);
    }

    /* Store it. */
    size_t n = form == CP_ROW_DENSE ? vs->n : vs->n / 2;
    int64_t *counts = n ? malloc(n * sizeof *counts) : NULL;
    int64_t *peers = form != CP_ROW_DENSE && n ? malloc(n * sizeof *peers) : NULL;
    if (row_store_reserve(b, st) != 0 || (n && !counts) || (form != CP_ROW_DENSE && n && !peers)) {
        free(counts);
        free(peers);
        cp_ranges_free(&ranks);
        return perr(ps, "%s", strerror(ENOMEM));
    }
    for (size_t k = 0; k < n; k++) {
        if (form == CP_ROW_DENSE) {
            counts[k] = vs->v[k];
        } else {
            peers[k] = vs->v[2 * k];
            counts[k] = vs->v[2 * k + 1];
        }
    }
    cp_row *row = &b->rows[b->nrows];
    memset(row, 0, sizeof *row);
    row->ranks = ranks;
    row->counts = counts;
    row->form = form;
    if (form == CP_ROW_DENSE) {
        row->len = n;
        if (!ps->row_len_given && (b->nrows == 0 || n > b->row_len))
            b->row_len = n;
    } else {
        row->len = b->row_len;
        row->peers = peers;
        row->nnz = n;
    }
    const char *problem = row_form_problem(b, row);
    if (problem) {
        cp_ranges_free(&row->ranks);
        free(row->counts);
        free(row->peers);
        return perr(ps, "%s", problem);
    }
    st->lines[b->nrows] = cp_in_lineno(ps->in);
    b->nrows++;
    return 0;
}

/* One block, from the line after "# Raw counters" to "END DATA". */
static int parse_block(parser *ps, cp_block *b, values *vs)
{
    char sh[80], ex[400];
    enum kind pos = K_START;
    bool have_coll = false;
    int r;
    ps->row_len_given = false;
    fail_clear(ps);

    /* Header. */
    while (pos != K_BEGIN) {
        r = next_line(ps);
        if (r < 0)
            return -1;
        if (r == 0)
            return perr(ps, "unexpected end of file inside a block (truncated file?): "
                            "expected %s", expected_after(ps, pos, ex, sizeof ex));
        enum kind k = classify(ps);
        if (k == K_BLANK)
            continue;
        if (!kind_allowed(ps, pos, k))
            return perr(ps, "expected %s, found '%s'", expected_after(ps, pos, ex, sizeof ex),
                        shown(ps, sh, sizeof sh));
        switch (k) {
        case K_COMM:
            r = parse_comm(ps, b);
            break;
        case K_COLL:
            r = parse_coll(ps, b);
            have_coll = true;
            break;
        case K_ROOT:
            r = parse_number_line(ps, "Root:", &b->root);
            break;
        case K_NRANKS:
            r = parse_number_line(ps, "Number of ranks:", &b->nranks);
            if (r == 0 && b->nranks < 1)
                r = perr(ps, "'Number of ranks:' must be at least 1");
            break;
        case K_DTSIZE:
            r = parse_dtsize(ps, b);
            break;
        case K_CALLS:
            r = parse_calls(ps, b, have_coll);
            break;
        case K_COUNT:
            r = parse_count(ps, b);
            break;
        case K_CALLSITES:
            r = parse_callsites(ps, b);
            break;
        case K_ROWLEN: {
            int64_t len;
            r = parse_number_line(ps, "Row length:", &len);
            b->row_len = (size_t)len;
            ps->row_len_given = true;
            if (r == 0 && cp_collective_rows_vary(b->collective))
                r = perr(ps, "'Row length:' in a block of a neighbourhood collective, whose rows "
                             "differ in length");
            break;
        }
        case K_FAILED:
            r = parse_failed(ps);
            break;
        case K_INVALID:
            r = line_is(ps, "Invalid: negative count")
                    ? 0
                    : perr(ps, "expected 'Invalid: negative count', found '%s'",
                           shown(ps, sh, sizeof sh));
            b->invalid = true;
            break;
        default: /* K_BEGIN */
            r = 0;
            break;
        }
        if (r != 0)
            return -1;
        pos = k;
    }

    /* Data. */
    row_store st = {NULL, 0};
    for (;;) {
        r = next_line(ps);
        if (r < 0)
            break;
        if (r == 0) {
            r = perr(ps, "unexpected end of file inside a block (truncated file?): "
                         "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA'");
            break;
        }
        enum kind k = classify(ps);
        if (k == K_END) {
            r = 0;
            break;
        }
        if (k != K_ROW) {
            r = perr(ps, "expected 'Rank(s) LIST: c0 c1 ...' or 'END DATA', found '%s'",
                     shown(ps, sh, sizeof sh));
            break;
        }
        if ((r = parse_row(ps, b, vs, &st)) != 0)
            break;
    }
    /* Without listed rows the row length is what the rows say, as in
     * earlier versions (a block without rows: 0), so that writing the block
     * again gives the same block. */
    if (r == 0 && ps->row_len_given && !block_has_listed_rows(b)) {
        b->row_len = 0;
        for (size_t i = 0; i < b->nrows; i++)
            if (b->rows[i].len > b->row_len)
                b->row_len = b->rows[i].len;
    }
    if (r == 0 && ps->nfail)
        r = assign_failed(ps, b);
    fail_clear(ps);
    if (r == 0) {
        size_t ra, rb;
        int64_t rank;
        int shared = find_shared_rank(b, &ra, &rb, &rank);
        if (shared < 0) {
            r = perr(ps, "%s", strerror(ENOMEM));
        } else if (shared) {
            long la = st.lines[ra], lb = st.lines[rb];
            r = cp_error_set(ps->err, "%s:%ld: rank %" PRId64 " is in two rows (lines %ld and %ld)",
                             cp_in_name(ps->in), lb > la ? lb : la, rank, la, lb);
        }
    }
    free(st.lines);
    return r < 0 ? -1 : 0;
}

/* The version line "# collprof counts N", when the file has one. */
static int parse_version(parser *ps)
{
    char sh[80];
    cursor c = {ps->line, 0, ps->len};
    const char *why = "";
    int64_t v;
    bool ok = cur_lit(&c, "# collprof counts") && c.i < c.n && is_space(c.s[c.i]);
    if (ok) {
        cur_blanks(&c);
        ok = cur_number(&c, &v, &why) && cur_end(&c);
    }
    if (!ok)
        return perr(ps, "expected '# collprof counts <version>', found '%s'",
                    shown(ps, sh, sizeof sh));
    if (v > CP_COUNTS_FORMAT_VERSION)
        return perr(ps,
                    "counts format version %" PRId64 " is newer than version %d, which this "
                    "collprof reads",
                    v, CP_COUNTS_FORMAT_VERSION);
    if (v < 1)
        return perr(ps, "counts format version %" PRId64 " does not exist (expected 1 to %d)", v,
                    CP_COUNTS_FORMAT_VERSION);
    ps->version = (int)v;
    return 0;
}

static int parse(cp_in *in, cp_counts_file *f, bool salvage, cp_error *err)
{
    parser ps = {.in = in, .err = err};
    values vs = {0};
    cp_block *blocks = NULL;
    size_t nblocks = 0, cap = 0;
    char sh[80];
    int r;

    f->blocks = NULL;
    f->nblocks = 0;
    snprintf(f->path, sizeof f->path, "%s", cp_in_name(in));

    r = next_line(&ps);
    if (r > 0) {
        if (classify(&ps) == K_VERSION)
            r = parse_version(&ps) == 0 ? 0 : -1;
        else
            ps.pending = true; /* no version line: other tools' dialect */
    }
    while (r >= 0) {
        r = next_line(&ps);
        if (r <= 0)
            break;
        enum kind k = classify(&ps);
        if (k == K_BLANK)
            continue;
        if (k != K_START) {
            r = perr(&ps, "expected '# Raw counters' (the start of a block), found '%s'",
                     shown(&ps, sh, sizeof sh));
            break;
        }
        if (nblocks == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            cp_block *nb = ncap > SIZE_MAX / sizeof *nb ? NULL
                                                         : realloc(blocks, ncap * sizeof *nb);
            if (!nb) {
                r = perr(&ps, "%s", strerror(ENOMEM));
                break;
            }
            blocks = nb;
            cap = ncap;
        }
        cp_block_init(&blocks[nblocks]);
        if (parse_block(&ps, &blocks[nblocks], &vs) != 0) {
            cp_block_free(&blocks[nblocks]);
            r = -1;
            break;
        }
        nblocks++;
    }
    free(vs.v);
    fail_clear(&ps);
    if (r < 0 && salvage && nblocks) { /* the whole blocks before the error */
        f->version = ps.version;
        f->blocks = blocks;
        f->nblocks = nblocks;
        return -1;
    }
    if (r < 0) {
        for (size_t i = 0; i < nblocks; i++)
            cp_block_free(&blocks[i]);
        free(blocks);
        return -1;
    }
    f->version = ps.version;
    f->blocks = blocks;
    f->nblocks = nblocks;
    return 0;
}

int cp_compact_parse(cp_in *in, cp_counts_file *f, cp_error *err)
{
    return parse(in, f, false, err);
}

int cp_compact_parse_file(const char *path, cp_counts_file *f, cp_error *err)
{
    cp_in *in = cp_in_open(path, err);
    if (!in)
        return -1;
    int rc = parse(in, f, false, err);
    cp_in_close(in);
    return rc;
}

int cp_compact_salvage_file(const char *path, cp_counts_file *f, cp_error *err)
{
    memset(f, 0, sizeof *f);
    cp_in *in = cp_in_open(path, err);
    if (!in)
        return -1;
    int rc = parse(in, f, true, err);
    cp_in_close(in);
    return rc;
}

/* ------------------------------------------------------------- file names */

/* Digits at *p (at least one, no overflow) into *v. */
static bool name_number(const char **p, int64_t *v)
{
    const char *s = *p;
    int64_t x = 0;
    if (!is_digit(*s))
        return false;
    while (is_digit(*s)) {
        int d = *s - '0';
        if (x > (INT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        s++;
    }
    *p = s;
    *v = x;
    return true;
}

int cp_compact_parse_name(const char *basename, int *direction, int64_t *lead)
{
    const char *s = strrchr(basename, '/');
    s = s ? s + 1 : basename;
    int dir;
    if (strncmp(s, "send-counters.", 14) == 0)
        dir = CP_SEND;
    else if (strncmp(s, "recv-counters.", 14) == 0)
        dir = CP_RECV;
    else
        return -1;
    s += 14;
    int64_t job, rank;
    if (strncmp(s, "job", 3) == 0) { /* other tools: send-counters.job0.rank0.txt */
        s += 3;
        if (!name_number(&s, &job) || *s != '.')
            return -1;
        s++;
    }
    if (strncmp(s, "rank", 4) != 0)
        return -1;
    s += 4;
    if (!name_number(&s, &rank))
        return -1;
    if (strcmp(s, ".txt") != 0 && strcmp(s, ".txt.gz") != 0)
        return -1;
    if (direction)
        *direction = dir;
    if (lead)
        *lead = rank;
    return 0;
}
