/* Compact counts format: the writer and the spools (compact.h; the grammar
 * is in compact_grammar.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact_grammar.h"
#include "bytes.h"
#include "grow.h"
#include "mpi_names.h"
#include "ranges.h"

#define NAME_MAX_LEN CP_COMPACT_NAME_MAX

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
        if (!cp_compact_name_char(b->collective[k]))
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
    } else if (!cp_compact_subset(&b->calls, &b->all_calls)) {
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
        const char *why = cp_compact_row_problem(b, row);
        if (why)
            return bad_block(err, path, i, b, "row %zu: %s", r, why);
    }
    size_t ra, rb;
    int64_t rank;
    int shared = cp_compact_shared_rank(b, &ra, &rb, &rank);
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
    if (cp_compact_listed_rows(b)) {
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
    if (cp_compact_listed_rows(b))
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

static int write_counts_file(cp_out *out, const void *f, cp_error *err)
{
    return cp_compact_write(out, f, err);
}

int cp_compact_write_file(const char *path, bool gzip, const cp_counts_file *f, cp_error *err)
{
    return cp_out_write_path(path, gzip, write_counts_file, f, err);
}

/* ------------------------------------------------------------ spools */

int cp_compact_spool_block(cp_compact_spool *s, const cp_block *b, cp_error *err)
{
    cp_compact_store *st = s->store;
    if (!st || (s->n > 0 && s->first + s->n != st->n))
        return cp_error_set(err, "counts: a communicator's blocks spooled apart (no store, or "
                                 "another's between them)");
    if (check_block(b, s->n, "counts", err) != 0)
        return -1;
    if (cp_grow((void **)&st->ends, &st->cap, st->n + 1, sizeof *st->ends, 64))
        return cp_error_set(err, "counts: %s", strerror(ENOMEM));
    size_t at = st->text.len;
    if (write_body(NULL, b, &st->text, err) != 0) {
        st->text.len = at; /* no part of a block */
        st->text.failed = false;
        return -1;
    }
    if (s->n == 0)
        s->first = st->n;
    int v = block_version(b);
    s->version = v > s->version ? v : s->version;
    st->ends[st->n++] = st->text.len;
    s->n++;
    return 0;
}

void cp_compact_store_free(cp_compact_store *st)
{
    cp_bytes_free(&st->text);
    free(st->ends);
    memset(st, 0, sizeof *st);
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
        for (size_t i = s[j]->first; i < s[j]->first + s[j]->n && rc == 0; i++) {
            const cp_compact_store *st = s[j]->store;
            size_t at = i ? st->ends[i - 1] : 0;
            write_head(&lb, s[j]->comm_id, s[j]->comm_size, s[j]->world);
            if ((rc = lb_flush(&lb, out, true, err)) == 0 &&
                cp_out_write(out, st->text.p + at, st->ends[i] - at) != 0)
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
    return cp_out_write_path(path, gzip, write_spools_file, &(spools){s, n}, err);
}
