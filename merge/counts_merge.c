/*
 * Blocks from the tree of all ranks (see counts_merge.h).
 *
 * The tree's sequence is walked span by span: a span is a run of calls with
 * one signature, so the work grows with the number of changes, not of
 * calls, and a cycle is walked once.  The tree keeps each distinct piece of
 * matrix once, so a piece that holds every rank is one matrix: its block.
 */
#include "counts_merge.h"

#include <stdlib.h>
#include <string.h>

#include "hash_index.h"
#include "grow.h"

/* The distinct matrices of one direction: the pieces of the tree's
 * signatures, numbered in order of their first call. */
typedef struct matrix_set {
    uint32_t *of_piece; /* per piece of the tree: its matrix, NO_MATRIX until seen */
    uint32_t *piece;    /* per matrix: its piece */
    cp_ranges *calls;
    cp_ranges *callsites; /* per matrix: the call paths that issued its calls */
    uint32_t n;
    cp_ranges all_calls;
} matrix_set;

#define NO_MATRIX (CP_INDEX_EMPTY - 1)

/* One allocation for the four arrays (the range lists first, for their
 * alignment): finalize makes two sets per communicator and collective. */
static int matrix_set_init(matrix_set *ms, uint32_t npieces)
{
    size_t n = npieces ? npieces : 1;
    memset(ms, 0, sizeof *ms);
    ms->calls = calloc(n, 2 * sizeof *ms->calls + 2 * sizeof *ms->piece);
    if (!ms->calls)
        return -1;
    ms->callsites = ms->calls + n;
    ms->of_piece = (uint32_t *)(ms->callsites + n);
    ms->piece = ms->of_piece + n;
    for (uint32_t i = 0; i < npieces; i++)
        ms->of_piece[i] = NO_MATRIX;
    return 0;
}

static void matrix_set_free(matrix_set *ms)
{
    for (uint32_t i = 0; i < ms->n; i++) {
        cp_ranges_free(&ms->calls[i]);
        cp_ranges_free(&ms->callsites[i]);
    }
    free(ms->calls); /* and the other three */
    cp_ranges_free(&ms->all_calls);
}

/* --------------------------------------------------------- block building */

/* A row of the tree in the block's units (bytes: counts x the datatype
 * size): as the tree holds it (dense, sparse or relative), or dense where
 * rows must be (neighbourhood collectives).  Values a datatype of size 0
 * makes 0 are left out of listed rows. */
typedef struct row_buf {
    int form;
    int32_t err; /* refused calls' rows stay apart */
    size_t len, n; /* n values in counts (and peers, unless dense) */
    int64_t *counts, *peers;
} row_buf;

static void fill_row(const cp_trow *t, bool bytes, bool dense_only, row_buf *rb)
{
    int64_t unit = bytes && !t->in_bytes ? t->dtsize : 1;
    rb->err = t->err;
    rb->len = (size_t)t->len;
    rb->n = 0;
    cp_trow_iter it;
    cp_trow_iter_init(&it, t);
    int64_t count;
    if (t->listed && !dense_only) {
        rb->form = t->kind == CP_TROW_RELATIVE ? CP_ROW_RELATIVE : CP_ROW_SPARSE;
        for (int64_t k = 0; k < t->n; k++) {
            int64_t peer = cp_trow_next(&it, &count);
            if (count * unit != 0) {
                rb->peers[rb->n] = peer;
                rb->counts[rb->n++] = count * unit;
            }
        }
        return;
    }
    rb->form = CP_ROW_DENSE;
    rb->n = rb->len;
    if (t->listed)
        memset(rb->counts, 0, rb->len * sizeof *rb->counts);
    for (int64_t k = 0; k < t->n; k++) {
        int64_t peer = cp_trow_next(&it, &count); /* dense: k */
        rb->counts[peer] = count * unit;
    }
}

static uint64_t hash_row(const row_buf *rb)
{
    uint64_t h = cp_hash_mix(0x3F84D5B5B5470917ull ^ (uint64_t)rb->form ^
                                 (uint64_t)(uint32_t)rb->err << 8, rb->len);
    for (size_t i = 0; i < rb->n; i++)
        h = cp_hash_mix(rb->form != CP_ROW_DENSE ? cp_hash_mix(h, (uint64_t)rb->peers[i]) : h,
                        (uint64_t)rb->counts[i]);
    return h;
}

struct row_ctx {
    const cp_block *b;
    const row_buf *rb;
};

static bool row_match(const void *ctx, uint32_t id)
{
    const struct row_ctx *c = ctx;
    const cp_row *r = &c->b->rows[id];
    const row_buf *rb = c->rb;
    if (r->form != rb->form || r->err != rb->err || r->len != rb->len ||
        cp_row_nitems(r) != rb->n)
        return false;
    return memcmp(r->counts, rb->counts, rb->n * sizeof *rb->counts) == 0 &&
           (rb->form == CP_ROW_DENSE || memcmp(r->peers, rb->peers, rb->n * sizeof *rb->peers) == 0);
}

/* A new row of b holding rb, without ranks yet. */
static int add_row(cp_block *b, size_t *cap, const row_buf *rb)
{
    if (cp_grow((void **)&b->rows, cap, b->nrows + 1, sizeof *b->rows, 4))
        return -1;
    cp_row *nr = &b->rows[b->nrows];
    memset(nr, 0, sizeof *nr);
    nr->len = rb->len;
    nr->form = rb->form;
    nr->err = rb->err;
    bool listed = rb->form != CP_ROW_DENSE;
    if (listed)
        nr->nnz = rb->n;
    nr->counts = malloc((rb->n ? rb->n : 1) * sizeof *nr->counts);
    if (listed)
        nr->peers = malloc((rb->n ? rb->n : 1) * sizeof *nr->peers);
    if (!nr->counts || (listed && !nr->peers)) {
        free(nr->counts);
        free(nr->peers);
        return -1;
    }
    memcpy(nr->counts, rb->counts, rb->n * sizeof *nr->counts);
    if (listed)
        memcpy(nr->peers, rb->peers, rb->n * sizeof *nr->peers);
    b->nrows++;
    return 0;
}

static int by_first_rank(const void *pa, const void *pb)
{
    const cp_row *a = pa, *b = pb;
    return (a->ranks.v[0].lo > b->ranks.v[0].lo) - (a->ranks.v[0].lo < b->ranks.v[0].lo);
}

/* Matrix m's block, which takes the matrix's calls and call paths (no other
 * block reads them).  take: no other block reads its piece either, whose
 * rows' values are then freed as they are read, and whose ranks move. */
static int build_block(cp_tree *t, matrix_set *ms, uint32_t m, const cp_block *tmpl, bool take,
                       cp_block *b)
{
    cp_piece *p = &t->pieces[ms->piece[m]];
    memset(b, 0, sizeof *b);
    b->comm_id = tmpl->comm_id;
    b->comm_size = tmpl->comm_size;
    memcpy(b->collective, tmpl->collective, sizeof b->collective);
    b->root = p->root;
    b->nranks = t->nranks;
    b->calls = ms->calls[m];
    b->callsites = ms->callsites[m];
    ms->calls[m] = ms->callsites[m] = (cp_ranges){0};
    if (cp_ranges_copy(&b->comm_world_ranks, &tmpl->comm_world_ranks) ||
        cp_ranges_copy(&b->all_calls, &ms->all_calls))
        return -1;

    /* Row length and units: element counts when every rank used one
     * datatype size, bytes otherwise. */
    int64_t dtsize = -1;
    bool mixed = false;
    size_t row_len = 0;
    for (uint32_t i = 0; i < p->nrows; i++) {
        const cp_trow *r = &p->rows[i];
        if ((size_t)r->len > row_len)
            row_len = (size_t)r->len;
        if ((dtsize >= 0 && r->dtsize != dtsize) || r->in_bytes)
            mixed = true;
        dtsize = r->dtsize;
    }
    b->row_len = row_len;
    b->counts_in_bytes = mixed;
    b->dtsize = mixed ? 1 : dtsize;

    bool dense_only = cp_collective_rows_vary(tmpl->collective);
    row_buf rb = {0};
    rb.counts = malloc((row_len ? row_len : 1) * sizeof *rb.counts);
    rb.peers = malloc((row_len ? row_len : 1) * sizeof *rb.peers);
    cp_index rows_ix = {0};
    size_t cap = 0;
    int rc = -1;
    if (!rb.counts || !rb.peers)
        goto out;
    /* Rows equal in the block's units are one row (two datatypes of one
     * size, say). */
    for (uint32_t i = 0; i < p->nrows; i++) {
        fill_row(&p->rows[i], mixed, dense_only, &rb);
        if (take) { /* read no more: its values go as the block grows */
            free(p->rows[i].vals);
            p->rows[i].vals = NULL;
        }
        uint64_t h = hash_row(&rb);
        struct row_ctx ctx = {b, &rb};
        uint32_t id = cp_index_find(&rows_ix, h, row_match, &ctx);
        if (id == CP_INDEX_EMPTY) {
            id = (uint32_t)b->nrows;
            if (add_row(b, &cap, &rb) || cp_index_put(&rows_ix, h, id))
                goto out;
            if (take) { /* a new row, its piece read no more: the ranks move */
                b->rows[id].ranks = p->rows[i].ranks;
                p->rows[i].ranks = (cp_ranges){0};
                continue;
            }
        }
        if (cp_ranges_union(&b->rows[id].ranks, &p->rows[i].ranks))
            goto out;
    }
    qsort(b->rows, b->nrows, sizeof *b->rows, by_first_rank);
    rc = 0;
out:
    free(rb.counts);
    free(rb.peers);
    cp_index_free(&rows_ix);
    return rc;
}

static int append_block(cp_counts_file *f, cp_block *b)
{
    cp_block *nb = realloc(f->blocks, (f->nblocks + 1) * sizeof *nb);
    if (!nb)
        return -1;
    f->blocks = nb;
    f->blocks[f->nblocks++] = *b;
    return 0;
}

/* ------------------------------------------------------------------ walk */

/* The walk over the tree's sequence. */
typedef struct merger {
    const cp_tree *t;
    matrix_set ms[2];
    cp_seq_iter it;
    uint32_t sid, prev;
    uint32_t cur[2]; /* the span's matrix per direction, NO_MATRIX: none */
    uint64_t call;   /* the span's first call */
} merger;

/* The matrix of piece p in direction d (numbered when first seen), or
 * NO_MATRIX when no rank passed a vector. */
static uint32_t matrix_of(merger *m, int d, uint32_t p)
{
    if (p == CP_PIECE_NONE || m->t->pieces[p].nrows == 0)
        return NO_MATRIX;
    matrix_set *ms = &m->ms[d];
    if (ms->of_piece[p] == NO_MATRIX) {
        ms->piece[ms->n] = p;
        ms->of_piece[p] = ms->n++;
    }
    return ms->of_piece[p];
}

/* The span at m->call: its length (UINT64_MAX once the sequence has ended;
 * 0 when memory ran out), its matrices in m->cur and its call paths added
 * to them.  Does not move on. */
static uint64_t span(merger *m)
{
    uint64_t step;
    m->sid = cp_seq_iter_peek(&m->it, &step);
    if (step == UINT64_MAX)
        return step;
    if (m->call > 0 && m->sid == m->prev)
        return step;
    const cp_tsig *s = m->sid < m->t->nsigs ? &m->t->sigs[m->sid] : NULL;
    for (int d = 0; d < 2; d++) {
        m->cur[d] = s ? matrix_of(m, d, s->piece[d]) : NO_MATRIX;
        if (m->cur[d] != NO_MATRIX && cp_ranges_union(&m->ms[d].callsites[m->cur[d]], &s->paths))
            return 0;
    }
    return step;
}

static void advance(merger *m, uint64_t step)
{
    m->prev = m->sid;
    cp_seq_iter_skip(&m->it, step);
    m->call += step;
}

/* Calls [lo, hi] moved the span's matrices. */
static int add_calls(merger *m, const uint32_t cur[2], uint64_t lo, uint64_t hi)
{
    for (int d = 0; d < 2; d++)
        if (cur[d] != NO_MATRIX &&
            (cp_ranges_add_strided(&m->ms[d].calls[cur[d]], (int64_t)lo, (int64_t)hi, 1) ||
             cp_ranges_add_range(&m->ms[d].all_calls, (int64_t)lo, (int64_t)hi)))
            return -1;
    return 0;
}

typedef struct span_rec {
    uint64_t off, len;
    uint32_t cur[2];
} span_rec;

/* `reps` repetitions of `period` calls from m->call: one repetition walked
 * span by span, then every span's calls over all repetitions at once, as
 * progressions of step `period` (one per call of the span), so that a cycle
 * costs its spans, not its calls; the iterator then skips the other
 * repetitions whole.  Spans with a run longer than the repetitions, or
 * calls recorded in one direction only, are listed call range by call range
 * (the progressions would be longer).  Returns 0, or -1 when memory ran
 * out. */
static int replicate(merger *m, uint64_t period, uint64_t reps)
{
    uint64_t start = m->call;
    span_rec *sp = NULL;
    size_t n = 0, cap = 0;
    bool dense = false;
    int rc = -1;
    while (m->call < start + period) {
        uint64_t step = span(m);
        if (step == 0 || step == UINT64_MAX)
            goto out;
        if (step > start + period - m->call)
            step = start + period - m->call; /* cannot happen: runs end with the period */
        if (n > 0 && sp[n - 1].cur[0] == m->cur[0] && sp[n - 1].cur[1] == m->cur[1]) {
            sp[n - 1].len += step;
        } else {
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                span_rec *ns = realloc(sp, nc * sizeof *ns);
                if (!ns)
                    goto out;
                sp = ns;
                cap = nc;
            }
            sp[n++] = (span_rec){.off = m->call - start, .len = step,
                                 .cur = {m->cur[0], m->cur[1]}};
        }
        dense |= (m->cur[0] == NO_MATRIX) != (m->cur[1] == NO_MATRIX) || sp[n - 1].len > reps;
        advance(m, step);
    }
    cp_seq_iter_skip_reps(&m->it, reps - 1);
    m->call = start + reps * period;
    if (dense) {
        for (uint64_t j = 0; j < reps; j++)
            for (size_t i = 0; i < n; i++) {
                uint64_t lo = start + j * period + sp[i].off;
                if (add_calls(m, sp[i].cur, lo, lo + sp[i].len - 1))
                    goto out;
            }
    } else {
        uint64_t last = start + (reps - 1) * period;
        for (size_t i = 0; i < n; i++)
            for (uint64_t o = sp[i].off; o < sp[i].off + sp[i].len; o++)
                for (int d = 0; d < 2; d++)
                    if (sp[i].cur[d] != NO_MATRIX &&
                        cp_ranges_add_strided(&m->ms[d].calls[sp[i].cur[d]],
                                              (int64_t)(start + o), (int64_t)(last + o),
                                              (int64_t)period))
                        goto out;
        /* Every call of the block has its matrices in both directions, or
         * in neither (not recorded): the recorded ones are the spans. */
        for (int d = 0; d < 2; d++) {
            bool all = true;
            for (size_t i = 0; i < n; i++)
                all &= sp[i].cur[d] != NO_MATRIX;
            if (all && cp_ranges_add_range(&m->ms[d].all_calls, (int64_t)start,
                                           (int64_t)(start + reps * period - 1)))
                goto out;
            for (size_t i = 0; !all && i < n; i++)
                for (uint64_t j = 0; sp[i].cur[d] != NO_MATRIX && j < reps; j++) {
                    uint64_t lo = start + j * period + sp[i].off;
                    if (cp_ranges_add_range(&m->ms[d].all_calls, (int64_t)lo,
                                            (int64_t)(lo + sp[i].len - 1)))
                        goto out;
                }
        }
    }
    rc = 0;
out:
    free(sp);
    return rc;
}

int cp_counts_tree_emit(cp_tree *t, const cp_block *tmpl, cp_block_sink sink, void *ctx,
                        cp_error *err)
{
    merger m = {.t = t, .cur = {NO_MATRIX, NO_MATRIX}};
    uint32_t *left = NULL; /* per piece: the blocks still to read it */
    int rc = -1;
    bool sink_failed = false;
    if (matrix_set_init(&m.ms[0], t->npieces) || matrix_set_init(&m.ms[1], t->npieces))
        goto out;
    cp_seq_iter_init(&m.it, &t->seq);
    for (;;) {
        uint64_t period, reps;
        if (cp_seq_iter_at_repetition(&m.it, &period, &reps)) {
            if (replicate(&m, period, reps))
                goto out;
            continue;
        }
        uint64_t step = span(&m);
        if (step == UINT64_MAX)
            break; /* the sequence has ended */
        if (step == 0 || add_calls(&m, m.cur, m.call, m.call + step - 1))
            goto out;
        advance(&m, step);
    }
    /* A piece may be the matrix of both directions (the same counts sent
     * and received): it is given up after its last block. */
    if (!(left = calloc(t->npieces ? t->npieces : 1, sizeof *left)))
        goto out;
    for (int d = 0; d < 2; d++)
        for (uint32_t i = 0; i < m.ms[d].n; i++)
            left[m.ms[d].piece[i]]++;
    for (int d = 0; d < 2; d++)
        for (uint32_t i = 0; i < m.ms[d].n; i++) {
            uint32_t p = m.ms[d].piece[i];
            bool last = --left[p] == 0;
            cp_block b;
            if (build_block(t, &m.ms[d], i, tmpl, last, &b)) {
                cp_block_free(&b);
                goto out;
            }
            if (last) /* before the sink: it may hold much */
                cp_tree_drop_piece(t, p);
            if (sink(ctx, d, &b, err)) { /* took b, and said why */
                sink_failed = true;
                goto out;
            }
        }
    rc = 0;
out:
    if (rc && !sink_failed)
        cp_error_set(err, "out of memory while merging the counts of %s", tmpl->collective);
    free(left);
    matrix_set_free(&m.ms[0]);
    matrix_set_free(&m.ms[1]);
    cp_tree_free(t);
    return rc;
}

/* The sink of cp_counts_tree_blocks: appended to out[d]. */
static int append_sink(void *ctx, int d, cp_block *b, cp_error *err)
{
    cp_counts_file *out = ctx;
    if (append_block(&out[d], b) == 0)
        return 0;
    cp_error_set(err, "out of memory while merging the counts of %s", b->collective);
    cp_block_free(b);
    return -1;
}

int cp_counts_tree_blocks(cp_tree *t, const cp_block *tmpl, cp_counts_file out[2],
                          cp_error *err)
{
    return cp_counts_tree_emit(t, tmpl, append_sink, out, err);
}

bool cp_counts_relative_ok(const char *collective)
{
    return !cp_collective_rows_vary(collective);
}

int cp_counts_build_tree(const cp_counts_view *const *views, int64_t lo, int64_t hi,
                         int64_t nranks, bool relative_ok, cp_tree *t)
{
    if (hi - lo == 1)
        return cp_tree_leaf(t, views[lo], lo, nranks, relative_ok);
    int64_t mid = lo + (hi - lo) / 2;
    cp_tree a, b;
    if (cp_counts_build_tree(views, lo, mid, nranks, relative_ok, &a))
        return -1;
    if (cp_counts_build_tree(views, mid, hi, nranks, relative_ok, &b)) {
        cp_tree_free(&a);
        return -1;
    }
    return cp_tree_merge(t, &a, &b, NULL, NULL); /* frees a and b */
}

int cp_counts_merge(const cp_counts_view *const *views, int64_t nranks, const cp_block *tmpl,
                    cp_counts_file out[2], cp_error *err)
{
    if (nranks <= 0)
        return 0;
    cp_tree t;
    if (cp_counts_build_tree(views, 0, nranks, nranks, cp_counts_relative_ok(tmpl->collective),
                             &t)) {
        cp_error_set(err, "out of memory while merging the counts of %s", tmpl->collective);
        return -1;
    }
    return cp_counts_tree_blocks(&t, tmpl, out, err); /* frees t */
}

int cp_counts_compact_rows(cp_counts_file out[2], const size_t first[2], bool dense)
{
    for (int d = 0; d < 2; d++)
        for (size_t i = first[d]; i < out[d].nblocks; i++)
            if ((dense ? cp_block_dense_rows : cp_block_compact_rows)(&out[d].blocks[i]))
                return -1;
    return 0;
}
