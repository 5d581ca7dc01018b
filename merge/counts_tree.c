/* Trees of ranks' counts tables (see counts_tree.h). */
#include "counts_tree.h"

#include <stdlib.h>
#include <string.h>

void cp_tree_init(cp_tree *t, int64_t lo, int64_t hi, int64_t nranks, bool relative_ok)
{
    memset(t, 0, sizeof *t);
    t->lo = lo;
    t->hi = hi;
    t->nranks = nranks;
    t->relative_ok = relative_ok;
    cp_seq_init(&t->seq);
}

static void row_free(cp_trow *r)
{
    cp_ranges_free(&r->ranks);
    free(r->vals);
}

static void piece_free(cp_piece *p)
{
    for (uint32_t i = 0; i < p->nrows; i++)
        row_free(&p->rows[i]);
    free(p->rows);
}

/* A piece read for the last time: its rows go, the piece stays, empty. */
static void piece_drop(cp_piece *p)
{
    piece_free(p);
    p->rows = NULL;
    p->nrows = 0;
}

void cp_tree_drop_piece(cp_tree *t, uint32_t p)
{
    piece_drop(&t->pieces[p]);
}

void cp_tree_free(cp_tree *t)
{
    for (uint32_t i = 0; i < t->npieces; i++)
        piece_free(&t->pieces[i]);
    free(t->pieces);
    for (uint32_t i = 0; i < t->nsigs; i++)
        cp_ranges_free(&t->sigs[i].paths);
    free(t->sigs);
    cp_index_free(&t->piece_ix);
    cp_index_free(&t->sig_ix);
    cp_seq_free(&t->seq);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ rows */

/* The first rank of a row: a ONE row's only rank. */
static int64_t first_rank(const cp_trow *r)
{
    return r->ranks.n ? r->ranks.v[0].lo : 0;
}

/* The bytes of h's values, 8 at a time. */
static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = cp_hash_mix(h, w);
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    return cp_hash_mix(h, w ^ (uint64_t)n << 56);
}

static uint64_t head_hash(const cp_trow *r)
{
    uint64_t h = cp_hash_mix(0x6A09E667F3BCC908ull, (uint64_t)r->dtsize);
    h = cp_hash_mix(h, (uint64_t)r->in_bytes << 1 | r->listed);
    h = cp_hash_mix(h, (uint64_t)r->len);
    h = cp_hash_mix(h, (uint64_t)(uint32_t)r->err);
    return cp_hash_mix(h, (uint64_t)r->n);
}

static bool same_head(const cp_trow *a, const cp_trow *b)
{
    return a->dtsize == b->dtsize && a->in_bytes == b->in_bytes && a->len == b->len &&
           a->n == b->n && a->err == b->err && a->listed == b->listed;
}

/* The vector itself (ONE, SAME): its bytes. */
static uint64_t abs_hash(const cp_trow *r)
{
    return hash_bytes(head_hash(r), r->vals, r->nbytes);
}

static bool abs_equal(const cp_trow *a, const cp_trow *b)
{
    return same_head(a, b) && a->nbytes == b->nbytes && memcmp(a->vals, b->vals, a->nbytes) == 0;
}

/* The vector relative to its rank (ONE listed, RELATIVE): the first peer as
 * an offset from the row's rank, or as held; *tail the bytes after it (the
 * same in either reading, tree_row.h). */
static int64_t rel_first(const cp_trow *r, const uint8_t **tail)
{
    *tail = r->vals;
    if (r->n == 0)
        return 0;
    int64_t first = cp_trow_get_sv(tail);
    return r->kind == CP_TROW_RELATIVE ? first : first - first_rank(r);
}

static uint64_t rel_hash(const cp_trow *r)
{
    const uint8_t *tail;
    uint64_t h = cp_hash_mix(cp_hash_mix(head_hash(r), 0x52), (uint64_t)rel_first(r, &tail));
    return hash_bytes(h, tail, r->nbytes - (size_t)(tail - r->vals));
}

static bool rel_equal(const cp_trow *a, const cp_trow *b)
{
    const uint8_t *ta, *tb;
    if (!same_head(a, b) || rel_first(a, &ta) != rel_first(b, &tb))
        return false;
    size_t na = a->nbytes - (size_t)(ta - a->vals), nb = b->nbytes - (size_t)(tb - b->vals);
    return na == nb && memcmp(ta, tb, na) == 0;
}

/* May row r be read relative to its rank? */
static bool relative_kind(const cp_tree *t, const cp_trow *r)
{
    return t->relative_ok && r->listed && r->len == t->nranks && r->kind != CP_TROW_SAME;
}

static int row_copy(cp_trow *dst, const cp_trow *src)
{
    *dst = *src;
    dst->ranks = (cp_ranges){0};
    dst->vals = malloc(src->nbytes ? src->nbytes : 1);
    if (!dst->vals || cp_ranges_copy(&dst->ranks, &src->ranks)) {
        free(dst->vals);
        dst->vals = NULL;
        return -1;
    }
    memcpy(dst->vals, src->vals, src->nbytes);
    return 0;
}

/* Add src's ranks (all above dst's) to dst. */
static int add_ranks(cp_trow *dst, const cp_trow *src)
{
    for (size_t i = 0; i < src->ranks.n; i++)
        if (cp_ranges_add_range(&dst->ranks, src->ranks.v[i].lo, src->ranks.v[i].hi))
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- pieces */

static uint64_t piece_hash(const cp_piece *p)
{
    uint64_t h = cp_hash_mix(0xBB67AE8584CAA73Bull, (uint64_t)p->root);
    h = cp_hash_mix(h, p->root_here);
    for (uint32_t i = 0; i < p->nrows; i++) {
        const cp_trow *r = &p->rows[i];
        h = cp_hash_mix(h, (uint64_t)r->kind);
        h = cp_hash_mix(h, r->kind == CP_TROW_RELATIVE ? rel_hash(r) : abs_hash(r));
        for (size_t k = 0; k < r->ranks.n; k++)
            h = cp_hash_mix(cp_hash_mix(h, (uint64_t)r->ranks.v[k].lo), (uint64_t)r->ranks.v[k].hi);
    }
    return h;
}

static bool piece_equal(const cp_piece *a, const cp_piece *b)
{
    if (a->root != b->root || a->root_here != b->root_here || a->nrows != b->nrows)
        return false;
    for (uint32_t i = 0; i < a->nrows; i++) {
        const cp_trow *x = &a->rows[i], *y = &b->rows[i];
        if (x->kind != y->kind || !cp_ranges_equal(&x->ranks, &y->ranks) ||
            !(x->kind == CP_TROW_RELATIVE ? rel_equal(x, y) : abs_equal(x, y)))
            return false;
    }
    return true;
}

struct piece_ctx {
    const cp_tree *t;
    const cp_piece *p;
};

static bool piece_match(const void *ctx, uint32_t id)
{
    const struct piece_ctx *c = ctx;
    return piece_equal(&c->t->pieces[id], c->p);
}

/* The id of piece p in t, taking p over when new (freed when not); *id
 * CP_PIECE_NONE and -1 when memory ran out (p freed). */
static int intern_piece(cp_tree *t, cp_piece *p, uint32_t *id)
{
    p->hash = piece_hash(p);
    struct piece_ctx ctx = {t, p};
    *id = cp_index_find(&t->piece_ix, p->hash, piece_match, &ctx);
    if (*id != CP_INDEX_EMPTY) {
        piece_free(p);
        return 0;
    }
    if (t->npieces == t->cap_pieces) {
        uint32_t nc = t->cap_pieces ? 2 * t->cap_pieces : 4;
        cp_piece *np = realloc(t->pieces, nc * sizeof *np);
        if (!np)
            goto fail;
        t->pieces = np;
        t->cap_pieces = nc;
    }
    if (cp_index_put(&t->piece_ix, p->hash, t->npieces))
        goto fail;
    *id = t->npieces;
    t->pieces[t->npieces++] = *p;
    return 0;
fail:
    piece_free(p);
    *id = CP_PIECE_NONE;
    return -1;
}

/* ------------------------------------------------------------ signatures */

static uint64_t sig_hash(const uint32_t piece[2], const cp_ranges *paths)
{
    uint64_t h = cp_hash_mix(cp_hash_mix(0x3C6EF372FE94F82Bull, piece[0]), piece[1]);
    for (size_t k = 0; k < paths->n; k++)
        h = cp_hash_mix(cp_hash_mix(h, (uint64_t)paths->v[k].lo), (uint64_t)paths->v[k].hi);
    return h;
}

struct sig_ctx {
    const cp_tree *t;
    const uint32_t *piece;
    const cp_ranges *paths;
};

static bool sig_match(const void *ctx, uint32_t id)
{
    const struct sig_ctx *c = ctx;
    const cp_tsig *s = &c->t->sigs[id];
    return s->piece[0] == c->piece[0] && s->piece[1] == c->piece[1] &&
           cp_ranges_equal(&s->paths, c->paths);
}

/* The id of signature (piece, paths), taking paths over (freed when not
 * new); CP_SEQ_NONE when memory ran out. */
static uint32_t intern_sig(cp_tree *t, const uint32_t piece[2], cp_ranges *paths)
{
    uint64_t h = sig_hash(piece, paths);
    struct sig_ctx ctx = {t, piece, paths};
    uint32_t id = cp_index_find(&t->sig_ix, h, sig_match, &ctx);
    if (id != CP_INDEX_EMPTY) {
        cp_ranges_free(paths);
        return id;
    }
    if (t->nsigs == t->cap_sigs) {
        uint32_t nc = t->cap_sigs ? 2 * t->cap_sigs : 4;
        cp_tsig *ns = realloc(t->sigs, nc * sizeof *ns);
        if (!ns)
            goto fail;
        t->sigs = ns;
        t->cap_sigs = nc;
    }
    if (t->nsigs >= CP_SEQ_NONE - 1 || cp_index_put(&t->sig_ix, h, t->nsigs))
        goto fail;
    t->sigs[t->nsigs] = (cp_tsig){.piece = {piece[0], piece[1]}, .paths = *paths, .hash = h};
    return t->nsigs++;
fail:
    cp_ranges_free(paths);
    return CP_SEQ_NONE;
}

/* ------------------------------------------------------------------ leaf */

/* One rank's piece in direction d of signature s (vector id vid). */
static int leaf_piece(cp_tree *t, const cp_counts_view *v, const cp_sig *s, uint32_t vid,
                      int64_t rank, uint32_t *id)
{
    bool here = s->root == CP_ROOT_HERE;
    bool present = vid < v->nvecs;
    *id = CP_PIECE_NONE;
    if (!present && !here)
        return 0;
    cp_piece p = {.root = here ? rank : present ? s->root : -1, .root_here = here};
    if (present) {
        const cp_vec *x = &v->vecs[vid];
        p.rows = calloc(1, sizeof *p.rows);
        if (!p.rows)
            return -1;
        p.nrows = 1;
        cp_trow *r = p.rows;
        *r = (cp_trow){.kind = CP_TROW_ONE, .in_bytes = x->in_bytes, .dtsize = x->dtsize,
                       .len = x->len, .err = s->err};
        if (cp_trow_set(r, x->peers, x->counts, x->peers ? x->nnz : x->len) ||
            cp_ranges_add(&r->ranks, rank)) {
            piece_free(&p);
            return -1;
        }
    }
    return intern_piece(t, &p, id);
}

/* The next `calls` calls of the rank's sequence into the tree's, their
 * signatures renamed by map. */
static int leaf_append(cp_tree *t, const cp_counts_view *v, const uint32_t *map, cp_seq_iter *it,
                       uint64_t calls)
{
    while (calls > 0) {
        uint64_t left;
        uint32_t id = cp_seq_iter_peek(it, &left);
        bool ended = left == UINT64_MAX; /* calls counted beyond what the
                                            sequence kept: nothing recorded */
        if (left > calls)
            left = calls;
        if (cp_seq_append(&t->seq, id < v->nsigs ? map[id] : CP_SEQ_NONE, left))
            return -1;
        if (!ended)
            cp_seq_iter_skip(it, left);
        calls -= left;
    }
    return 0;
}

int cp_tree_leaf(cp_tree *t, const cp_counts_view *v, int64_t rank, int64_t nranks,
                 bool relative_ok)
{
    cp_tree_init(t, rank, rank + 1, nranks, relative_ok);
    if (!v || !v->seq)
        return 0;
    /* Signature i of the rank is signature map[i] of the tree. */
    uint32_t *map = malloc((v->nsigs ? v->nsigs : 1) * sizeof *map);
    if (!map)
        goto fail;
    for (uint32_t i = 0; i < v->nsigs; i++) {
        const cp_sig *s = &v->sigs[i];
        uint32_t piece[2];
        cp_ranges paths = {0};
        if (leaf_piece(t, v, s, s->send, rank, &piece[0]) ||
            leaf_piece(t, v, s, s->recv, rank, &piece[1]) ||
            (s->callpath != CP_SEQ_NONE && cp_ranges_add(&paths, s->callpath))) {
            cp_ranges_free(&paths);
            free(map);
            goto fail;
        }
        if (piece[0] == CP_PIECE_NONE && piece[1] == CP_PIECE_NONE) {
            map[i] = CP_SEQ_NONE; /* nothing recorded */
            cp_ranges_free(&paths);
            continue;
        }
        if ((map[i] = intern_sig(t, piece, &paths)) == CP_SEQ_NONE) {
            free(map);
            goto fail;
        }
    }
    cp_seq_iter it;
    cp_seq_iter_init(&it, v->seq);
    for (uint64_t call = 0; call < v->seq->total;) {
        /* A cycle: three repetitions appended, the rest counted (as the
         * merge does), unless the tree's sequence did not fold them. */
        uint64_t period, reps;
        if (cp_seq_iter_at_repetition(&it, &period, &reps) && reps >= 4 &&
            period * reps <= v->seq->total - call) {
            if (leaf_append(t, v, map, &it, 3 * period)) {
                free(map);
                goto fail;
            }
            call += 3 * period;
            if (cp_seq_repeat_last(&t->seq, period, reps - 3)) {
                cp_seq_iter_skip_reps(&it, reps - 3);
                call += (reps - 3) * period;
            }
            continue;
        }
        uint64_t left;
        cp_seq_iter_peek(&it, &left);
        if (left > v->seq->total - call)
            left = v->seq->total - call;
        if (leaf_append(t, v, map, &it, left)) {
            free(map);
            goto fail;
        }
        call += left;
    }
    free(map);
    if (cp_seq_finish(&t->seq))
        goto fail;
    return 0;
fail:
    cp_tree_free(t);
    return -1;
}

/* ----------------------------------------------------------------- merge */

/* The rows of a piece being built, with indexes to find the row a new one
 * joins: by its vector, and by its vector relative to its rank. */
typedef struct row_builder {
    const cp_tree *t;
    cp_piece *p;
    uint32_t cap;
    cp_index same_ix, rel_ix;
} row_builder;

struct row_ctx {
    const cp_piece *p;
    const cp_trow *r;
};

static bool same_match(const void *ctx, uint32_t id)
{
    const struct row_ctx *c = ctx;
    const cp_trow *y = &c->p->rows[id];
    return y->kind != CP_TROW_RELATIVE && abs_equal(y, c->r);
}

static bool rel_match(const void *ctx, uint32_t id)
{
    const struct row_ctx *c = ctx;
    const cp_trow *y = &c->p->rows[id];
    return y->kind != CP_TROW_SAME && y->listed && rel_equal(y, c->r);
}

/* Turn ONE row y into a relative one: its first peer becomes an offset
 * (the rest are distances, tree_row.h).  -1 when memory ran out. */
static int make_relative(cp_trow *y)
{
    const uint8_t *tail;
    int64_t off = rel_first(y, &tail);
    size_t head = (size_t)(tail - y->vals), rest = y->nbytes - head;
    size_t need = y->n ? cp_trow_uv_len(cp_trow_zigzag(off)) : 0;
    uint8_t *v = y->vals;
    if (need != head && !(v = malloc(need + rest ? need + rest : 1)))
        return -1;
    if (v != y->vals) {
        memcpy(v + need, tail, rest);
        free(y->vals);
    }
    if (y->n)
        cp_trow_put_uv(v, cp_trow_zigzag(off));
    y->vals = v;
    y->nbytes = need + rest;
    y->kind = CP_TROW_RELATIVE;
    return 0;
}

/* Place row x in the piece being built: joined to an equal row, or new:
 * copied, or taken over when `take` (x's piece is not read again: its
 * ranks and values move, x keeps none). */
static int place_row(row_builder *rb, cp_trow *x, bool take)
{
    cp_piece *p = rb->p;
    struct row_ctx ctx = {p, x};
    uint64_t hs = 0, hr = 0;
    if (x->kind != CP_TROW_RELATIVE) {
        hs = abs_hash(x);
        uint32_t id = cp_index_find(&rb->same_ix, hs, same_match, &ctx);
        if (id != CP_INDEX_EMPTY) {
            p->rows[id].kind = CP_TROW_SAME;
            return add_ranks(&p->rows[id], x);
        }
    }
    bool rel = relative_kind(rb->t, x);
    if (rel) {
        hr = rel_hash(x);
        uint32_t id = cp_index_find(&rb->rel_ix, hr, rel_match, &ctx);
        if (id != CP_INDEX_EMPTY) {
            if (p->rows[id].kind == CP_TROW_ONE && make_relative(&p->rows[id]))
                return -1;
            return add_ranks(&p->rows[id], x);
        }
    }
    if (p->nrows == rb->cap) {
        uint32_t nc = rb->cap ? 2 * rb->cap : 4;
        cp_trow *nr = realloc(p->rows, nc * sizeof *nr);
        if (!nr)
            return -1;
        p->rows = nr;
        rb->cap = nc;
    }
    if (take) {
        p->rows[p->nrows] = *x;
        x->ranks = (cp_ranges){0};
        x->vals = NULL;
    } else if (row_copy(&p->rows[p->nrows], x)) {
        return -1;
    }
    uint32_t id = p->nrows++;
    if ((x->kind != CP_TROW_RELATIVE && cp_index_put(&rb->same_ix, hs, id)) ||
        (rel && cp_index_put(&rb->rel_ix, hr, id)))
        return -1;
    return 0;
}

/* Signature pairs (a's, b's) already joined, and the joined id. */
typedef struct pair_memo {
    uint32_t *pairs; /* 3 words each: a's id, b's id, out's id */
    uint32_t n, cap;
    cp_index ix;
} pair_memo;

/* One merge: the trees, the pairs joined, and per piece of a ([0]) and of
 * b ([1]) how many joins will still read it.  The merge walks the
 * sequences twice: first counting those joins, then joining, so that a
 * piece's rows are copied while another join will read them and taken
 * over at the last (the lead of a world of a million ranks would hold both
 * halves and their merge at once otherwise). */
typedef struct merging {
    cp_tree *out, *a, *b;
    pair_memo m;
    uint32_t *left[2];
    bool counting;
    void (*probe)(void *);
    void *probe_ctx;
} merging;

/* Piece `pi` of side `side` (a: 0, b: 1) read once more: true when that was
 * its last reading. */
static bool last_read(merging *g, int side, uint32_t pi)
{
    return --g->left[side][pi] == 0;
}

/* The piece of a's piece pa and b's piece pb together, in out. */
static int join_pieces(merging *g, uint32_t pa, uint32_t pb, uint32_t *id)
{
    *id = CP_PIECE_NONE;
    if (pa == CP_PIECE_NONE && pb == CP_PIECE_NONE)
        return 0;
    cp_piece *x = pa == CP_PIECE_NONE ? NULL : &g->a->pieces[pa];
    cp_piece *y = pb == CP_PIECE_NONE ? NULL : &g->b->pieces[pb];
    bool take_x = x && last_read(g, 0, pa), take_y = y && last_read(g, 1, pb);
    cp_piece p = {.root = -1};
    /* The root as the ranks give it in order: the last that holds it
     * (intercommunicators), else the first that names one. */
    if (y && y->root_here)
        p.root = y->root, p.root_here = true;
    else if (x && x->root_here)
        p.root = x->root, p.root_here = true;
    else
        p.root = x && x->root >= 0 ? x->root : y ? y->root : -1;
    row_builder rb = {.t = g->out, .p = &p};
    int rc = 0;
    for (uint32_t i = 0; x && i < x->nrows && !rc; i++)
        rc = place_row(&rb, &x->rows[i], take_x);
    for (uint32_t i = 0; y && i < y->nrows && !rc; i++)
        rc = place_row(&rb, &y->rows[i], take_y);
    cp_index_free(&rb.same_ix);
    cp_index_free(&rb.rel_ix);
    if (g->probe)
        g->probe(g->probe_ctx);
    /* A piece read for the last time goes now (what was not taken). */
    if (take_x)
        piece_drop(x);
    if (take_y)
        piece_drop(y);
    if (rc) {
        piece_free(&p);
        return -1;
    }
    if (rb.cap > p.nrows && p.nrows) { /* the doubling's slack: kept a whole merge up */
        cp_trow *fit = realloc(p.rows, p.nrows * sizeof *fit);
        if (fit)
            p.rows = fit;
    }
    return intern_piece(g->out, &p, id);
}

struct pair_ctx {
    const pair_memo *m;
    uint32_t sa, sb;
};

static bool pair_match(const void *ctx, uint32_t id)
{
    const struct pair_ctx *c = ctx;
    return c->m->pairs[3 * id] == c->sa && c->m->pairs[3 * id + 1] == c->sb;
}

static int memo_put(pair_memo *m, uint64_t h, uint32_t sa, uint32_t sb, uint32_t id)
{
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? 2 * m->cap : 16;
        uint32_t *np = realloc(m->pairs, 3 * (size_t)nc * sizeof *np);
        if (!np)
            return -1;
        m->pairs = np;
        m->cap = nc;
    }
    if (cp_index_put(&m->ix, h, m->n))
        return -1;
    m->pairs[3 * m->n] = sa;
    m->pairs[3 * m->n + 1] = sb;
    m->pairs[3 * m->n + 2] = id;
    m->n++;
    return 0;
}

/* The signature of out for a's signature sa and b's sb (either may be
 * CP_SEQ_NONE: those ranks recorded nothing); *id CP_SEQ_NONE when neither
 * recorded anything.  When counting, the pair's pieces are counted
 * instead, once per pair.  -1 when memory ran out. */
static int join_sigs(merging *g, uint32_t sa, uint32_t sb, uint32_t *id)
{
    *id = CP_SEQ_NONE;
    if (sa >= g->a->nsigs)
        sa = CP_SEQ_NONE;
    if (sb >= g->b->nsigs)
        sb = CP_SEQ_NONE;
    if (sa == CP_SEQ_NONE && sb == CP_SEQ_NONE)
        return 0;
    uint64_t h = cp_hash_mix(cp_hash_mix(0x510E527FADE682D1ull, sa), sb);
    struct pair_ctx ctx = {&g->m, sa, sb};
    uint32_t k = cp_index_find(&g->m.ix, h, pair_match, &ctx);
    if (k != CP_INDEX_EMPTY) {
        *id = g->m.pairs[3 * k + 2];
        return 0;
    }
    const cp_tsig *xa = sa == CP_SEQ_NONE ? NULL : &g->a->sigs[sa];
    const cp_tsig *xb = sb == CP_SEQ_NONE ? NULL : &g->b->sigs[sb];
    uint32_t piece[2];
    if (g->counting) {
        for (int d = 0; d < 2; d++) {
            if (xa && xa->piece[d] != CP_PIECE_NONE)
                g->left[0][xa->piece[d]]++;
            if (xb && xb->piece[d] != CP_PIECE_NONE)
                g->left[1][xb->piece[d]]++;
        }
        return memo_put(&g->m, h, sa, sb, 0);
    }
    cp_ranges paths = {0};
    for (int d = 0; d < 2; d++)
        if (join_pieces(g, xa ? xa->piece[d] : CP_PIECE_NONE, xb ? xb->piece[d] : CP_PIECE_NONE,
                        &piece[d]))
            return -1;
    if ((xa && cp_ranges_union(&paths, &xa->paths)) || (xb && cp_ranges_union(&paths, &xb->paths))) {
        cp_ranges_free(&paths);
        return -1;
    }
    if ((*id = intern_sig(g->out, piece, &paths)) == CP_SEQ_NONE)
        return -1;
    return memo_put(&g->m, h, sa, sb, *id);
}

/* Both sequences at the start of a repetition of the same period, with at
 * least `need` repetitions left in each: then *reps is the fewer. */
static bool lockstep(const cp_seq_iter *ia, const cp_seq_iter *ib, uint64_t need,
                     uint64_t *period, uint64_t *reps)
{
    uint64_t pa, pb, ra, rb;
    if (!cp_seq_iter_at_repetition(ia, &pa, &ra) || !cp_seq_iter_at_repetition(ib, &pb, &rb) ||
        pa != pb)
        return false;
    *period = pa;
    *reps = ra < rb ? ra : rb;
    return *reps >= need;
}

/* Walk `calls` calls of both sequences (UINT64_MAX: to their ends),
 * appending the joined signatures to out (when not counting). */
static int walk(merging *g, cp_seq_iter *ia, cp_seq_iter *ib, uint64_t calls)
{
    while (calls > 0) {
        uint64_t la, lb;
        uint32_t sa = cp_seq_iter_peek(ia, &la), sb = cp_seq_iter_peek(ib, &lb);
        uint64_t step = la < lb ? la : lb;
        if (step == UINT64_MAX)
            return 0; /* both have ended */
        if (step > calls)
            step = calls;
        uint32_t id;
        if (join_sigs(g, sa, sb, &id) || (!g->counting && cp_seq_append(&g->out->seq, id, step)))
            return -1;
        cp_seq_iter_skip(ia, step);
        cp_seq_iter_skip(ib, step);
        calls -= step;
    }
    return 0;
}

/* One walk over both sequences, counting or joining. */
static int walk_all(merging *g)
{
    cp_seq_iter ia, ib;
    cp_seq_iter_init(&ia, &g->a->seq);
    cp_seq_iter_init(&ib, &g->b->seq);
    for (;;) {
        /* A cycle both go through: three repetitions walked, the rest
         * counted (the joined sequence repeats too), unless the joined
         * sequence did not fold as expected (then walked on).  The
         * repetitions hold no pair the first three did not. */
        uint64_t period, reps;
        if (lockstep(&ia, &ib, 4, &period, &reps)) {
            if (walk(g, &ia, &ib, 3 * period))
                return -1;
            if (g->counting || cp_seq_repeat_last(&g->out->seq, period, reps - 3)) {
                cp_seq_iter_skip_reps(&ia, reps - 3);
                cp_seq_iter_skip_reps(&ib, reps - 3);
            }
            continue;
        }
        uint64_t la, lb;
        cp_seq_iter_peek(&ia, &la);
        cp_seq_iter_peek(&ib, &lb);
        if (la == UINT64_MAX && lb == UINT64_MAX)
            return 0;
        /* Up to the next place where either may start a repetition. */
        if (walk(g, &ia, &ib, la < lb ? la : lb))
            return -1;
    }
}

static void memo_clear(pair_memo *m)
{
    free(m->pairs);
    cp_index_free(&m->ix);
    memset(m, 0, sizeof *m);
}

int cp_tree_merge(cp_tree *out, cp_tree *a, cp_tree *b, void (*probe)(void *), void *probe_ctx)
{
    cp_tree_init(out, a->lo, b->hi, a->nranks, a->relative_ok);
    merging g = {.out = out, .a = a, .b = b, .counting = true, .probe = probe,
                 .probe_ctx = probe_ctx};
    int rc = -1;
    if (b->lo < a->hi || a->nranks != b->nranks || a->relative_ok != b->relative_ok)
        goto out;
    g.left[0] = calloc(a->npieces ? a->npieces : 1, sizeof *g.left[0]);
    g.left[1] = calloc(b->npieces ? b->npieces : 1, sizeof *g.left[1]);
    if (!g.left[0] || !g.left[1] || walk_all(&g))
        goto out;
    memo_clear(&g.m);
    g.counting = false;
    if (walk_all(&g) == 0 && cp_seq_finish(&out->seq) == 0)
        rc = 0;
out:
    memo_clear(&g.m);
    free(g.left[0]);
    free(g.left[1]);
    cp_tree_free(a);
    cp_tree_free(b);
    if (rc)
        cp_tree_free(out);
    return rc;
}

/* --------------------------------------------------------------- packing */

/* Rows go in variable-length integers (pack.h), their values as the rows
 * hold them (tree_row.h): at the lead of a million ranks a sparse row's
 * peers and counts take 1-3 bytes each, not 8.  A set: its intervals as
 * first, length, step. */
static void put_ranges(cp_wbuf *b, const cp_ranges *r)
{
    cp_put_uv(b, r->n);
    for (size_t i = 0; i < r->n; i++) {
        cp_put_sv(b, r->v[i].lo);
        cp_put_uv(b, (uint64_t)(r->v[i].hi - r->v[i].lo));
        cp_put_uv(b, (uint64_t)r->v[i].step);
    }
}

static int get_ranges(cp_rbuf *b, cp_ranges *r, int64_t lo, int64_t hi)
{
    uint64_t n = cp_get_uv(b);
    if (!cp_rbuf_has(b, n, 3))
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        int64_t x = cp_get_sv(b);
        uint64_t d = cp_get_uv(b), su = cp_get_uv(b);
        if (b->bad || x < lo || x >= hi || d >= (uint64_t)(hi - x) || su > INT64_MAX)
            return -1;
        int64_t y = x + (int64_t)d, s = (int64_t)su;
        if (s >= 2 && (y - x) % s)
            return -1;
        if (s >= 2 ? cp_ranges_add_strided(r, x, y, s) : cp_ranges_add_range(r, x, y))
            return -1;
    }
    return 0;
}

static void put_row(cp_wbuf *b, const cp_trow *r)
{
    put_ranges(b, &r->ranks);
    cp_put_uv(b, (uint64_t)r->kind);
    cp_put_uv(b, r->in_bytes);
    cp_put_sv(b, r->err);
    cp_put_sv(b, r->dtsize);
    cp_put_sv(b, r->len);
    cp_put_sv(b, r->listed ? r->n : -1);
    cp_put(b, r->vals, r->nbytes); /* as held (tree_row.h) */
}

void cp_tree_pack(cp_wbuf *b, const cp_tree *t)
{
    cp_put_i64(b, t->lo);
    cp_put_i64(b, t->hi);
    cp_put_i64(b, t->nranks);
    cp_put_u32(b, t->relative_ok);
    cp_put_u32(b, t->npieces);
    for (uint32_t i = 0; i < t->npieces; i++) {
        const cp_piece *p = &t->pieces[i];
        cp_put_i64(b, p->root);
        cp_put_u32(b, p->root_here);
        cp_put_u32(b, p->nrows);
        for (uint32_t k = 0; k < p->nrows; k++)
            put_row(b, &p->rows[k]);
    }
    cp_put_u32(b, t->nsigs);
    for (uint32_t i = 0; i < t->nsigs; i++) {
        cp_put_u32(b, t->sigs[i].piece[0]);
        cp_put_u32(b, t->sigs[i].piece[1]);
        put_ranges(b, &t->sigs[i].paths);
    }
    const cp_seq *s = &t->seq;
    cp_put_u64(b, s->ngroups);
    for (size_t g = 0; g < s->ngroups; g++) {
        const cp_group *gr = &s->groups[g];
        cp_put_u32(b, gr->nruns);
        cp_put_u64(b, gr->reps);
        for (uint32_t k = 0; k < gr->nruns; k++) {
            cp_put_u32(b, s->runs[gr->first + k].id);
            cp_put_u64(b, s->runs[gr->first + k].len);
        }
    }
}

/* One row, checked: ranks within the tree's, peers increasing and below
 * the row's length (offsets: peers of every rank of the row), each integer
 * in its shortest form (rows compare by their bytes, tree_row.h); the
 * values are then kept as they came. */
static int get_row(cp_rbuf *b, const cp_tree *t, cp_trow *r)
{
    memset(r, 0, sizeof *r);
    if (get_ranges(b, &r->ranks, t->lo, t->hi) || r->ranks.n == 0)
        return -1;
    uint64_t kind = cp_get_uv(b), in_bytes = cp_get_uv(b);
    int64_t err = cp_get_sv(b);
    r->dtsize = cp_get_sv(b);
    r->len = cp_get_sv(b);
    int64_t nnz = cp_get_sv(b);
    if (b->bad || kind > CP_TROW_RELATIVE || in_bytes > 1 || err < INT32_MIN || err > INT32_MAX ||
        r->len < 0 || nnz < -1 || nnz > r->len || (kind == CP_TROW_RELATIVE && nnz < 0) ||
        (kind == CP_TROW_ONE && cp_ranges_count(&r->ranks) != 1))
        return -1;
    r->kind = (int16_t)kind;
    r->in_bytes = in_bytes != 0;
    r->err = (int32_t)err;
    r->listed = nnz >= 0;
    r->n = nnz >= 0 ? nnz : r->len;
    if (!cp_rbuf_has(b, (uint64_t)r->n, r->listed ? 2 : 1))
        return -1;
    int64_t lo = 0, hi = r->len;
    if (r->kind == CP_TROW_RELATIVE) { /* every rank + offset a peer */
        lo = -r->ranks.v[0].lo;
        hi = r->len - r->ranks.v[r->ranks.n - 1].hi;
    }
    size_t start = b->off, shortest = 0;
    int64_t peer = 0;
    for (int64_t k = 0; k < r->n && !b->bad; k++) {
        if (r->listed && k == 0) {
            peer = cp_get_sv(b);
            if (peer < lo || peer >= hi)
                return -1;
            shortest += cp_trow_uv_len(cp_trow_zigzag(peer));
        } else if (r->listed) { /* increasing, below hi */
            uint64_t d = cp_get_uv(b);
            if (b->bad || d >= (uint64_t)(hi - peer - 1))
                return -1;
            peer += 1 + (int64_t)d;
            shortest += cp_trow_uv_len(d);
        }
        shortest += cp_trow_uv_len(cp_trow_zigzag(cp_get_sv(b)));
    }
    if (b->bad || b->off - start != shortest || !(r->vals = malloc(shortest ? shortest : 1)))
        return -1;
    memcpy(r->vals, b->p + start, shortest);
    r->nbytes = shortest;
    return 0;
}

int cp_tree_unpack(cp_rbuf *b, cp_tree *t)
{
    int64_t lo = cp_get_i64(b), hi = cp_get_i64(b), nranks = cp_get_i64(b);
    bool rel = cp_get_u32(b) != 0;
    cp_tree_init(t, lo, hi, nranks, rel);
    if (b->bad || lo < 0 || hi <= lo || hi > nranks)
        goto bad;
    uint32_t npieces = cp_get_u32(b);
    if (!cp_rbuf_has(b, npieces, 16) || !(t->pieces = calloc(npieces ? npieces : 1, sizeof *t->pieces)))
        goto bad;
    t->cap_pieces = npieces;
    for (; t->npieces < npieces; t->npieces++) {
        cp_piece *p = &t->pieces[t->npieces];
        p->root = cp_get_i64(b);
        p->root_here = cp_get_u32(b) != 0;
        uint32_t nrows = cp_get_u32(b);
        /* a row takes 10 bytes at least (get_row) */
        if (!cp_rbuf_has(b, nrows, 10) || !(p->rows = calloc(nrows ? nrows : 1, sizeof *p->rows)))
            goto bad;
        for (; p->nrows < nrows; p->nrows++)
            if (get_row(b, t, &p->rows[p->nrows])) {
                row_free(&p->rows[p->nrows]);
                t->npieces++; /* freed with the others */
                goto bad;
            }
        p->hash = piece_hash(p);
        if (cp_index_put(&t->piece_ix, p->hash, t->npieces)) {
            t->npieces++;
            goto bad;
        }
    }
    uint32_t nsigs = cp_get_u32(b);
    /* two piece ids and a set of at least one byte */
    if (!cp_rbuf_has(b, nsigs, 9) || !(t->sigs = calloc(nsigs ? nsigs : 1, sizeof *t->sigs)))
        goto bad;
    t->cap_sigs = nsigs;
    for (; t->nsigs < nsigs; t->nsigs++) {
        cp_tsig *s = &t->sigs[t->nsigs];
        s->piece[0] = cp_get_u32(b);
        s->piece[1] = cp_get_u32(b);
        for (int d = 0; d < 2; d++)
            if (s->piece[d] != CP_PIECE_NONE && s->piece[d] >= t->npieces)
                goto bad;
        if (get_ranges(b, &s->paths, 0, INT64_MAX)) {
            t->nsigs++;
            goto bad;
        }
        s->hash = sig_hash(s->piece, &s->paths);
        if (cp_index_put(&t->sig_ix, s->hash, t->nsigs)) {
            t->nsigs++;
            goto bad;
        }
    }
    /* The sequence, group by group, as the sender held it. */
    uint64_t ngroups = cp_get_u64(b);
    cp_seq *s = &t->seq;
    if (!cp_rbuf_has(b, ngroups, 12) || !(s->groups = calloc(ngroups ? ngroups : 1, sizeof *s->groups)))
        goto bad;
    s->cap_groups = ngroups;
    for (uint64_t g = 0; g < ngroups; g++) {
        uint32_t nruns = cp_get_u32(b);
        uint64_t reps = cp_get_u64(b);
        if (reps == 0 || !cp_rbuf_has(b, nruns, 12))
            goto bad;
        cp_run *nr = realloc(s->runs, (s->nruns + nruns + 1) * sizeof *nr);
        if (!nr)
            goto bad;
        s->runs = nr;
        s->cap_runs = s->nruns + nruns + 1;
        s->groups[g] = (cp_group){.first = s->nruns, .nruns = nruns, .reps = reps};
        s->ngroups++;
        uint64_t calls = 0;
        for (uint32_t k = 0; k < nruns; k++) {
            cp_run *r = &s->runs[s->nruns++];
            r->id = cp_get_u32(b);
            r->len = cp_get_u64(b);
            if (r->len == 0 || (r->id != CP_SEQ_NONE && r->id >= t->nsigs))
                goto bad;
            calls += r->len;
        }
        s->total += calls * reps;
    }
    if (b->bad)
        goto bad;
    return 0;
bad:
    cp_tree_free(t);
    return -1;
}
