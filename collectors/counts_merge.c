/*
 * Merge of the ranks' call sequences (see counts_merge.h).
 *
 * All ranks' sequences are walked together, span by span: a span is a run of
 * calls during which no rank changes signature, so the work grows with the
 * number of changes, not of calls.  Each span's tuple of per-rank vector ids
 * (plus the root) names one matrix per direction; since every rank keeps
 * only distinct vectors, equal tuples are equal matrices and vice versa.
 */
#include "counts_merge.h"

#include <stdlib.h>
#include <string.h>

#include "hash_index.h"

/* The distinct matrices of one direction. */
typedef struct matrix_set {
    int64_t nranks;
    uint32_t *keys; /* per matrix: root (as 2 words) then nranks vector ids */
    cp_ranges *calls;
    cp_ranges *callsites; /* per matrix: the call paths that issued its calls */
    uint32_t n, cap;
    cp_index index;
    cp_ranges all_calls;
} matrix_set;

#define NO_MATRIX (CP_INDEX_EMPTY - 1)
#define KEY_WORDS(ms) ((size_t)(ms)->nranks + 2)

static uint64_t hash_key(const uint32_t *key, size_t words)
{
    uint64_t h = 0x452821E638D01377ull;
    for (size_t i = 0; i < words; i++)
        h = cp_hash_mix(h, key[i]);
    return h;
}

struct key_ctx {
    const matrix_set *ms;
    const uint32_t *key;
};

static bool key_match(const void *ctx, uint32_t id)
{
    const struct key_ctx *c = ctx;
    size_t w = KEY_WORDS(c->ms);
    return memcmp(c->ms->keys + (size_t)id * w, c->key, w * sizeof *c->key) == 0;
}

/* The matrix of key, added when new; CP_INDEX_EMPTY on allocation failure. */
static uint32_t matrix_id(matrix_set *ms, const uint32_t *key)
{
    size_t w = KEY_WORDS(ms);
    uint64_t h = hash_key(key, w);
    struct key_ctx ctx = {ms, key};
    uint32_t id = cp_index_find(&ms->index, h, key_match, &ctx);
    if (id != CP_INDEX_EMPTY)
        return id;
    if (ms->n == ms->cap) {
        uint32_t ncap = ms->cap ? ms->cap * 2 : 4;
        uint32_t *nk = realloc(ms->keys, (size_t)ncap * w * sizeof *nk);
        if (!nk)
            return CP_INDEX_EMPTY;
        ms->keys = nk;
        cp_ranges *nc = realloc(ms->calls, ncap * sizeof *nc);
        if (!nc)
            return CP_INDEX_EMPTY;
        ms->calls = nc;
        cp_ranges *ns = realloc(ms->callsites, ncap * sizeof *ns);
        if (!ns)
            return CP_INDEX_EMPTY;
        ms->callsites = ns;
        ms->cap = ncap;
    }
    id = ms->n;
    if (cp_index_put(&ms->index, h, id))
        return CP_INDEX_EMPTY;
    memcpy(ms->keys + (size_t)id * w, key, w * sizeof *key);
    memset(&ms->calls[id], 0, sizeof ms->calls[id]);
    memset(&ms->callsites[id], 0, sizeof ms->callsites[id]);
    ms->n++;
    return id;
}

static void matrix_set_free(matrix_set *ms)
{
    for (uint32_t i = 0; i < ms->n; i++) {
        cp_ranges_free(&ms->calls[i]);
        cp_ranges_free(&ms->callsites[i]);
    }
    free(ms->keys);
    free(ms->calls);
    free(ms->callsites);
    cp_index_free(&ms->index);
    cp_ranges_free(&ms->all_calls);
}

/* Vector id of rank r's signature `sid` in direction d, checked against the
 * view's tables (data unpacked from other ranks is never trusted blindly).
 * The first rank with a vector gives the root; CP_ROOT_HERE (the root of an
 * intercommunicator's group) is that rank itself. */
static uint32_t vec_of(const cp_counts_view *v, int64_t r, uint32_t sid, int d, int64_t *root)
{
    if (!v || sid == CP_SEQ_NONE || sid >= v->nsigs)
        return CP_SEQ_NONE;
    const cp_sig *s = &v->sigs[sid];
    if (s->root == CP_ROOT_HERE)
        *root = r;
    uint32_t vid = d == CP_SEND ? s->send : s->recv;
    if (vid >= v->nvecs)
        return CP_SEQ_NONE;
    if (*root < 0)
        *root = s->root;
    return vid;
}

/* --------------------------------------------------------- block building */

/* The row of a rank's vector in the block's units (bytes: counts x the
 * datatype size): dense, or sparse as the vector is kept (its non-zero
 * counts), unless rows must be dense (neighbourhood collectives). */
typedef struct row_buf {
    int form;
    size_t len, n; /* n values in counts (and peers, sparse) */
    int64_t *counts, *peers;
} row_buf;

static void fill_row(const cp_vec *v, bool bytes, bool dense_only, row_buf *rb)
{
    int64_t unit = bytes ? v->dtsize : 1;
    rb->len = (size_t)v->len;
    rb->n = 0;
    if (v->peers && !dense_only) {
        rb->form = CP_ROW_SPARSE;
        for (int64_t k = 0; k < v->nnz; k++)
            if (v->counts[k] * unit != 0) { /* a datatype of size 0 moves nothing */
                rb->peers[rb->n] = v->peers[k];
                rb->counts[rb->n++] = v->counts[k] * unit;
            }
        return;
    }
    rb->form = CP_ROW_DENSE;
    rb->n = rb->len;
    if (v->peers) {
        memset(rb->counts, 0, rb->len * sizeof *rb->counts);
        for (int64_t k = 0; k < v->nnz; k++)
            rb->counts[v->peers[k]] = v->counts[k] * unit;
    } else {
        for (int64_t i = 0; i < v->len; i++)
            rb->counts[i] = v->counts[i] * unit;
    }
}

static uint64_t hash_row(const row_buf *rb)
{
    uint64_t h = cp_hash_mix(0x3F84D5B5B5470917ull ^ (uint64_t)rb->form, rb->len);
    for (size_t i = 0; i < rb->n; i++)
        h = cp_hash_mix(rb->form == CP_ROW_SPARSE ? cp_hash_mix(h, (uint64_t)rb->peers[i]) : h,
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
    if (r->form != rb->form || r->len != rb->len || cp_row_nitems(r) != rb->n)
        return false;
    return memcmp(r->counts, rb->counts, rb->n * sizeof *rb->counts) == 0 &&
           (rb->form == CP_ROW_DENSE || memcmp(r->peers, rb->peers, rb->n * sizeof *rb->peers) == 0);
}

/* A new row of b holding rb (copied), without ranks yet. */
static int add_row(cp_block *b, size_t *cap, const row_buf *rb)
{
    if (b->nrows == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        cp_row *nr = realloc(b->rows, ncap * sizeof *nr);
        if (!nr)
            return -1;
        b->rows = nr;
        *cap = ncap;
    }
    cp_row *nr = &b->rows[b->nrows];
    memset(nr, 0, sizeof *nr);
    nr->len = rb->len;
    nr->form = rb->form;
    nr->counts = malloc((rb->n ? rb->n : 1) * sizeof *nr->counts);
    if (rb->form == CP_ROW_SPARSE) {
        nr->nnz = rb->n;
        nr->peers = malloc((rb->n ? rb->n : 1) * sizeof *nr->peers);
    }
    if (!nr->counts || (rb->form == CP_ROW_SPARSE && !nr->peers)) {
        free(nr->counts);
        free(nr->peers);
        return -1;
    }
    memcpy(nr->counts, rb->counts, rb->n * sizeof *nr->counts);
    if (rb->form == CP_ROW_SPARSE)
        memcpy(nr->peers, rb->peers, rb->n * sizeof *nr->peers);
    b->nrows++;
    return 0;
}

static int build_block(const cp_counts_view *const *views, const matrix_set *ms, uint32_t m,
                       const cp_block *tmpl, cp_block *b)
{
    const uint32_t *key = ms->keys + (size_t)m * KEY_WORDS(ms);
    const uint32_t *vids = key + 2;
    memset(b, 0, sizeof *b);
    b->comm_id = tmpl->comm_id;
    b->comm_size = tmpl->comm_size;
    memcpy(b->collective, tmpl->collective, sizeof b->collective);
    b->root = (int64_t)((uint64_t)key[0] | (uint64_t)key[1] << 32);
    b->nranks = ms->nranks;
    if (cp_ranges_copy(&b->comm_world_ranks, &tmpl->comm_world_ranks) ||
        cp_ranges_copy(&b->all_calls, &ms->all_calls) || cp_ranges_copy(&b->calls, &ms->calls[m]) ||
        cp_ranges_copy(&b->callsites, &ms->callsites[m]))
        return -1;

    /* Row length and units: element counts when every rank used one
     * datatype size, bytes otherwise. */
    int64_t dtsize = -1;
    bool mixed = false;
    size_t row_len = 0;
    for (int64_t r = 0; r < ms->nranks; r++) {
        if (vids[r] == CP_SEQ_NONE)
            continue;
        const cp_vec *v = &views[r]->vecs[vids[r]];
        if ((size_t)v->len > row_len)
            row_len = (size_t)v->len;
        if ((dtsize >= 0 && v->dtsize != dtsize) || v->in_bytes)
            mixed = true;
        dtsize = v->dtsize;
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
    for (int64_t r = 0; r < ms->nranks; r++) {
        if (vids[r] == CP_SEQ_NONE)
            continue;
        fill_row(&views[r]->vecs[vids[r]], mixed, dense_only, &rb);
        uint64_t h = hash_row(&rb);
        struct row_ctx ctx = {b, &rb};
        uint32_t id = cp_index_find(&rows_ix, h, row_match, &ctx);
        if (id == CP_INDEX_EMPTY) {
            id = (uint32_t)b->nrows;
            if (add_row(b, &cap, &rb) || cp_index_put(&rows_ix, h, id))
                goto out;
        }
        if (cp_ranges_add(&b->rows[id].ranks, r))
            goto out;
    }
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

/* ------------------------------------------------------------------ merge */

/* The walk over every rank's sequence together. */
typedef struct merger {
    const cp_counts_view *const *views;
    int64_t nranks;
    matrix_set ms[2];
    cp_seq_iter *it;
    uint32_t *sids, *prev, *key;
    uint32_t cur[2]; /* the span's matrix per direction, NO_MATRIX: none */
    uint64_t call;   /* the span's first call */
} merger;

/* The span at m->call: its length (UINT64_MAX once every sequence has
 * ended; 0 when memory ran out), its matrices in m->cur and its call paths
 * added to them.  Does not move on. */
static uint64_t span(merger *m)
{
    uint64_t step = UINT64_MAX;
    for (int64_t r = 0; r < m->nranks; r++) {
        uint64_t left;
        m->sids[r] = cp_seq_iter_peek(&m->it[r], &left);
        if (left < step)
            step = left;
    }
    if (step == UINT64_MAX)
        return step;
    /* Spans end wherever any rank's run ends: often the matrix goes on. */
    if (m->call > 0 && memcmp(m->sids, m->prev, (size_t)m->nranks * sizeof *m->sids) == 0)
        return step;
    for (int d = 0; d < 2; d++) {
        int64_t root = -1;
        bool present = false;
        for (int64_t r = 0; r < m->nranks; r++) {
            m->key[2 + r] = vec_of(m->views[r], r, m->sids[r], d, &root);
            present |= m->key[2 + r] != CP_SEQ_NONE;
        }
        m->key[0] = (uint32_t)(uint64_t)root;
        m->key[1] = (uint32_t)((uint64_t)root >> 32);
        /* NO_MATRIX: no rank has a vector in this direction. */
        m->cur[d] = present ? matrix_id(&m->ms[d], m->key) : NO_MATRIX;
        if (m->cur[d] == CP_INDEX_EMPTY)
            return 0;
        /* Where the ranks made these calls (a new span: signatures
         * changed, and the path is part of the signature). */
        for (int64_t r = 0; r < m->nranks && m->cur[d] != NO_MATRIX; r++) {
            uint32_t sid = m->sids[r];
            const cp_counts_view *v = m->views[r];
            if (!v || sid == CP_SEQ_NONE || sid >= v->nsigs)
                continue;
            uint32_t path = v->sigs[sid].callpath;
            if (path != CP_SEQ_NONE && cp_ranges_add(&m->ms[d].callsites[m->cur[d]], path))
                return 0;
        }
    }
    return step;
}

static void advance(merger *m, uint64_t step)
{
    memcpy(m->prev, m->sids, (size_t)m->nranks * sizeof *m->sids);
    for (int64_t r = 0; r < m->nranks; r++)
        cp_seq_iter_skip(&m->it[r], step);
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

/* Is every rank at the start of a repetition of a group of the same period?
 * Then the next *reps repetitions move the same matrices at the same
 * offsets. */
static bool lockstep(const merger *m, uint64_t *period, uint64_t *reps)
{
    *reps = UINT64_MAX;
    for (int64_t r = 0; r < m->nranks; r++) {
        uint64_t t, left;
        if (!cp_seq_iter_at_repetition(&m->it[r], &t, &left) || (r > 0 && t != *period))
            return false;
        *period = t;
        if (left < *reps)
            *reps = left;
    }
    return m->nranks > 0 && *reps >= 2;
}

typedef struct span_rec {
    uint64_t off, len;
    uint32_t cur[2];
} span_rec;

/* `reps` repetitions of `period` calls from m->call: one repetition walked
 * span by span, then every span's calls over all repetitions at once, as
 * progressions of step `period` (one per call of the span), so that a cycle
 * costs its spans, not its calls; the iterators then skip the other
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
    for (int64_t r = 0; r < m->nranks; r++)
        cp_seq_iter_skip_reps(&m->it[r], reps - 1);
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

int cp_counts_merge(const cp_counts_view *const *views, int64_t nranks, const cp_block *tmpl,
                    cp_counts_file out[2], cp_error *err)
{
    merger m = {.views = views, .nranks = nranks,
                .ms = {{.nranks = nranks}, {.nranks = nranks}},
                .cur = {NO_MATRIX, NO_MATRIX}};
    m.it = calloc((size_t)nranks, sizeof *m.it);
    m.sids = malloc((size_t)nranks * sizeof *m.sids);
    m.prev = malloc((size_t)nranks * sizeof *m.prev);
    m.key = malloc(((size_t)nranks + 2) * sizeof *m.key);
    int rc = -1;
    if (!m.it || !m.sids || !m.prev || !m.key)
        goto out;
    static const cp_seq empty_seq;
    for (int64_t r = 0; r < nranks; r++)
        cp_seq_iter_init(&m.it[r], views[r] && views[r]->seq ? views[r]->seq : &empty_seq);

    for (;;) {
        uint64_t period, reps;
        if (lockstep(&m, &period, &reps)) {
            if (replicate(&m, period, reps))
                goto out;
            continue;
        }
        uint64_t step = span(&m);
        if (step == UINT64_MAX)
            break; /* every sequence has ended */
        if (step == 0 || add_calls(&m, m.cur, m.call, m.call + step - 1))
            goto out;
        advance(&m, step);
    }

    for (int d = 0; d < 2; d++)
        for (uint32_t i = 0; i < m.ms[d].n; i++) {
            cp_block b;
            if (build_block(views, &m.ms[d], i, tmpl, &b) || append_block(&out[d], &b)) {
                cp_block_free(&b);
                goto out;
            }
        }
    rc = 0;
out:
    if (rc)
        cp_error_set(err, "out of memory while merging the counts of %s", tmpl->collective);
    matrix_set_free(&m.ms[0]);
    matrix_set_free(&m.ms[1]);
    free(m.it);
    free(m.sids);
    free(m.prev);
    free(m.key);
    return rc;
}

int cp_counts_compact_rows(cp_counts_file out[2], const size_t first[2], bool dense)
{
    for (int d = 0; d < 2; d++)
        for (size_t i = first[d]; i < out[d].nblocks; i++)
            if ((dense ? cp_block_dense_rows : cp_block_compact_rows)(&out[d].blocks[i]))
                return -1;
    return 0;
}
