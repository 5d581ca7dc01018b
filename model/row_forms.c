/*
 * The forms of a row of a count matrix (profile.h, enum cp_row_form): reading
 * values whatever the form, and choosing the form that takes the fewest
 * numbers.
 *
 * Why: a dense row holds one number per peer, so a matrix of P ranks is P^2
 * numbers even when each rank talks to a handful of neighbours.  Sparse rows
 * hold only the non-zero values; relative rows hold them as offsets from the
 * rank, so that every rank of a halo exchange shares one row whatever P is
 * (as ScalaTrace encodes stencils).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/profile.h"
#include "search.h"

size_t cp_row_nitems(const cp_row *r)
{
    return r->form == CP_ROW_DENSE ? r->len : r->nnz;
}

int64_t cp_row_item(const cp_row *r, int64_t rank, size_t i, int64_t *count)
{
    *count = r->counts[i];
    if (r->form == CP_ROW_DENSE)
        return (int64_t)i;
    return r->form == CP_ROW_RELATIVE ? rank + r->peers[i] : r->peers[i];
}

int64_t cp_row_value(const cp_row *r, int64_t rank, size_t peer)
{
    if (peer >= r->len)
        return 0;
    if (r->form == CP_ROW_DENSE)
        return r->counts[peer];
    int64_t want = r->form == CP_ROW_RELATIVE ? (int64_t)peer - rank : (int64_t)peer;
    size_t lo = cp_lower_bound_i64(r->peers, r->nnz, want);
    return lo < r->nnz && r->peers[lo] == want ? r->counts[lo] : 0;
}

int64_t cp_row_sum(const cp_row *r)
{
    int64_t sum = 0;
    for (size_t i = 0, n = cp_row_nitems(r); i < n; i++)
        sum += r->counts[i];
    return sum;
}

/* ------------------------------------------------------------- compaction */

static size_t nonzeros(const cp_row *r)
{
    if (r->form != CP_ROW_DENSE)
        return r->nnz;
    size_t n = 0;
    for (size_t j = 0; j < r->len; j++)
        n += r->counts[j] != 0;
    return n;
}

/* Numbers a row takes in the text: its rank list, then its values. */
static size_t dense_cost(const cp_row *r)
{
    return 2 * r->ranks.n + r->len;
}

static size_t sparse_cost(const cp_row *r, size_t nnz)
{
    return 2 * r->ranks.n + 1 + 2 * nnz;
}

/* Rewrite a dense row as sparse (its non-zero values). */
static int make_sparse(cp_row *r, size_t nnz)
{
    int64_t *peers = malloc((nnz ? nnz : 1) * sizeof *peers);
    int64_t *counts = malloc((nnz ? nnz : 1) * sizeof *counts);
    if (!peers || !counts) {
        free(peers);
        free(counts);
        return -1;
    }
    size_t k = 0;
    for (size_t j = 0; j < r->len; j++)
        if (r->counts[j] != 0) {
            peers[k] = (int64_t)j;
            counts[k++] = r->counts[j];
        }
    free(r->counts);
    r->counts = counts;
    r->peers = peers;
    r->nnz = nnz;
    r->form = CP_ROW_SPARSE;
    return 0;
}

/* One rank's row as offsets: pairs (offset, count) at pool[at .. at+2n). */
typedef struct rank_key {
    int64_t rank;
    size_t at, n;
} rank_key;

static const int64_t *sort_pool; /* qsort has no context argument */

static int cmp_key(const void *pa, const void *pb)
{
    const rank_key *a = pa, *b = pb;
    CP_ORDER_BY(a->n, b->n);
    int c = memcmp(sort_pool + a->at, sort_pool + b->at, 2 * a->n * sizeof *sort_pool);
    if (c)
        return c;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static bool same_key(const int64_t *pool, const rank_key *a, const rank_key *b)
{
    return a->n == b->n && memcmp(pool + a->at, pool + b->at, 2 * a->n * sizeof *pool) == 0;
}

static int cmp_first_rank(const void *pa, const void *pb)
{
    const cp_row *a = pa, *b = pb;
    return (a->ranks.v[0].lo > b->ranks.v[0].lo) - (a->ranks.v[0].lo < b->ranks.v[0].lo);
}

/* Past this many (offset, count) pairs the relative form is not tried: the
 * grouping would cost more memory than the dense rows themselves. */
#define RELATIVE_MAX_PAIRS ((size_t)1 << 26)

/* The block's rows regrouped by offsets, when that takes fewer than `budget`
 * numbers: *out (sorted by first rank) and *nout; else *out NULL.  Returns
 * -1 when memory ran out. */
static int relative_rows(const cp_block *b, size_t budget, cp_row **out, size_t *nout)
{
    *out = NULL;
    size_t npairs = 0, nkeys = 0;
    for (size_t i = 0; i < b->nrows; i++) {
        size_t ranks = (size_t)cp_ranges_count(&b->rows[i].ranks);
        nkeys += ranks;
        npairs += ranks * nonzeros(&b->rows[i]);
        if (npairs > RELATIVE_MAX_PAIRS)
            return 0;
    }
    int64_t *pool = malloc((npairs ? 2 * npairs : 1) * sizeof *pool);
    rank_key *keys = malloc((nkeys ? nkeys : 1) * sizeof *keys);
    cp_row *rows = NULL;
    size_t nrows = 0, used = 0, k = 0;
    int rc = -1;
    if (!pool || !keys)
        goto out;
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *r = &b->rows[i];
        for (size_t t = 0; t < r->ranks.n; t++)
            for (int64_t rank = r->ranks.v[t].lo; rank <= r->ranks.v[t].hi; rank++) {
                keys[k] = (rank_key){.rank = rank, .at = used, .n = 0};
                for (size_t j = 0, n = cp_row_nitems(r); j < n; j++) {
                    int64_t c, peer = cp_row_item(r, rank, j, &c);
                    if (c != 0) {
                        pool[used++] = peer - rank;
                        pool[used++] = c;
                        keys[k].n++;
                    }
                }
                k++;
            }
    }
    sort_pool = pool;
    qsort(keys, nkeys, sizeof *keys, cmp_key);
    /* The cost first: most matrices are not stencils. */
    size_t cost = 0;
    for (size_t i = 0; i < nkeys && cost < budget;) {
        size_t j = i + 1, intervals = 1;
        for (; j < nkeys && same_key(pool, &keys[i], &keys[j]); j++)
            intervals += keys[j].rank != keys[j - 1].rank + 1;
        cost += 2 * intervals + 1 + 2 * keys[i].n;
        nrows++;
        i = j;
    }
    if (cost >= budget) {
        rc = 0;
        goto out;
    }
    rows = calloc(nrows, sizeof *rows);
    if (!rows)
        goto out;
    size_t g = 0;
    for (size_t i = 0; i < nkeys; g++) {
        cp_row *r = &rows[g];
        r->form = CP_ROW_RELATIVE;
        r->len = b->row_len;
        r->nnz = keys[i].n;
        r->peers = malloc((r->nnz ? r->nnz : 1) * sizeof *r->peers);
        r->counts = malloc((r->nnz ? r->nnz : 1) * sizeof *r->counts);
        if (!r->peers || !r->counts)
            goto out;
        for (size_t q = 0; q < r->nnz; q++) {
            r->peers[q] = pool[keys[i].at + 2 * q];
            r->counts[q] = pool[keys[i].at + 2 * q + 1];
        }
        size_t j = i;
        for (; j < nkeys && same_key(pool, &keys[i], &keys[j]); j++)
            if (cp_ranges_add(&r->ranks, keys[j].rank))
                goto out;
        i = j;
    }
    qsort(rows, nrows, sizeof *rows, cmp_first_rank);
    *out = rows;
    *nout = nrows;
    rows = NULL;
    rc = 0;
out:
    if (rows)
        for (size_t i = 0; i < nrows; i++) {
            cp_ranges_free(&rows[i].ranks);
            free(rows[i].peers);
            free(rows[i].counts);
        }
    free(rows);
    free(pool);
    free(keys);
    return rc;
}

/* Row r, SPARSE, rewritten DENSE. */
static int unlist(cp_row *r)
{
    int64_t *counts = calloc(r->len ? r->len : 1, sizeof *counts);
    if (!counts)
        return -1;
    for (size_t k = 0; k < r->nnz; k++)
        counts[r->peers[k]] = r->counts[k];
    free(r->counts);
    free(r->peers);
    r->counts = counts;
    r->peers = NULL;
    r->nnz = 0;
    r->form = CP_ROW_DENSE;
    return 0;
}

int cp_block_compact_rows(cp_block *b)
{
    if (cp_collective_rows_vary(b->collective) || b->row_len <= 1)
        return 0;
    size_t cost = 0;
    bool relative = false;
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *r = &b->rows[i];
        relative |= r->form == CP_ROW_RELATIVE;
        size_t d = dense_cost(r), s = sparse_cost(r, nonzeros(r));
        cost += s < d ? s : d;
    }
    /* Offsets mean something only where peers and ranks are one space.
     * Rows that came relative (finalize's tree collapses ranks that agree
     * in their offsets) are kept; the others get the shorter of dense and
     * sparse. */
    if (!relative && b->row_len == (size_t)b->nranks) {
        cp_row *rel;
        size_t nrel = 0;
        if (relative_rows(b, cost, &rel, &nrel))
            return -1;
        if (rel) {
            for (size_t i = 0; i < b->nrows; i++) {
                cp_ranges_free(&b->rows[i].ranks);
                free(b->rows[i].counts);
                free(b->rows[i].peers);
            }
            free(b->rows);
            b->rows = rel;
            b->nrows = nrel;
            return 0;
        }
    }
    for (size_t i = 0; i < b->nrows; i++) {
        cp_row *r = &b->rows[i];
        if (r->form == CP_ROW_RELATIVE)
            continue;
        size_t nnz = nonzeros(r);
        bool shorter = sparse_cost(r, nnz) < dense_cost(r); /* a tie: dense */
        if (r->form == CP_ROW_DENSE && shorter && make_sparse(r, nnz))
            return -1; /* rows before it rewritten already: the matrix is the same */
        if (r->form == CP_ROW_SPARSE && !shorter && unlist(r))
            return -1;
    }
    return 0;
}

int cp_block_dense_rows(cp_block *b)
{
    size_t extra = 0; /* a relative row becomes one row per rank */
    for (size_t i = 0; i < b->nrows; i++)
        if (b->rows[i].form == CP_ROW_RELATIVE)
            extra += (size_t)cp_ranges_count(&b->rows[i].ranks) - 1;
    if (extra) {
        cp_row *nr = realloc(b->rows, (b->nrows + extra) * sizeof *nr);
        if (!nr)
            return -1;
        b->rows = nr;
        for (size_t i = 0, n = b->nrows; i < n; i++) {
            cp_row *r = &b->rows[i];
            if (r->form != CP_ROW_RELATIVE)
                continue;
            /* each rank of the row its own sparse row, then dense below */
            cp_ranges ranks = r->ranks;
            int64_t *offsets = r->peers, *counts = r->counts;
            size_t nnz = r->nnz;
            int32_t err = r->err;
            bool first = true;
            for (size_t t = 0; t < ranks.n; t++)
                for (int64_t rank = ranks.v[t].lo; rank <= ranks.v[t].hi; rank++) {
                    cp_row *x = first ? r : &b->rows[b->nrows++];
                    memset(x, 0, sizeof *x);
                    x->len = b->row_len;
                    x->form = CP_ROW_SPARSE;
                    x->err = err;
                    x->nnz = nnz;
                    x->peers = malloc((nnz ? nnz : 1) * sizeof *x->peers);
                    x->counts = malloc((nnz ? nnz : 1) * sizeof *x->counts);
                    if (!x->peers || !x->counts || cp_ranges_add(&x->ranks, rank))
                        return -1;
                    for (size_t k = 0; k < nnz; k++) {
                        x->peers[k] = rank + offsets[k];
                        x->counts[k] = counts[k];
                    }
                    first = false;
                }
            cp_ranges_free(&ranks);
            free(offsets);
            free(counts);
        }
        qsort(b->rows, b->nrows, sizeof *b->rows, cmp_first_rank);
    }
    for (size_t i = 0; i < b->nrows; i++)
        if (b->rows[i].form == CP_ROW_SPARSE && unlist(&b->rows[i]))
            return -1;
    return 0;
}
