/*
 * Counts collector tables: distinct vectors, distinct signatures, and the
 * call sequence (see counts.h).
 */
#include "counts.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY CP_INDEX_EMPTY

void cp_counts_init(cp_counts *t)
{
    memset(t, 0, sizeof *t);
    t->last_sig = CP_SEQ_NONE;
    cp_seq_init(&t->seq);
}

void cp_counts_free(cp_counts *t)
{
    for (uint32_t i = 0; i < t->nvecs; i++) {
        free(t->vecs[i].counts);
        free(t->vecs[i].peers);
    }
    free(t->vecs);
    free(t->sigs);
    free(t->failed);
    cp_index_free(&t->vec_index);
    cp_index_free(&t->sig_index);
    cp_seq_free(&t->seq);
    cp_counts_init(t);
}

/* ------------------------------------------------------------------ hash */

static inline int64_t arg_count(const cp_vec_arg *a, int64_t i)
{
    if (!a->counts)
        return a->single;
    if (a->width == 4)
        return ((const int *)a->counts)[i];
    return ((const int64_t *)a->counts)[i];
}

static uint64_t hash_arg(const cp_vec_arg *a)
{
    uint64_t h = cp_hash_mix(0x243F6A8885A308D3ull ^ a->in_bytes, (uint64_t)a->dtsize);
    h = cp_hash_mix(h, (uint64_t)a->len);
    if (a->nz_peers) { /* by the non-zeros, in O(nnz) */
        h = cp_hash_mix(h, 0x6E6F6E7A65726F73ull);
        for (int64_t k = 0; k < a->nnz; k++)
            h = cp_hash_mix(cp_hash_mix(h, (uint64_t)a->nz_peers[k]), (uint64_t)a->nz_counts[k]);
        return h;
    }
    if (!a->counts)
        return cp_hash_mix(h, (uint64_t)a->single);
    if (a->width == 4) {
        const int *c = a->counts;
        for (int64_t i = 0; i < a->len; i++)
            h = cp_hash_mix(h, (uint64_t)(int64_t)c[i]);
    } else {
        const int64_t *c = a->counts;
        for (int64_t i = 0; i < a->len; i++)
            h = cp_hash_mix(h, (uint64_t)c[i]);
    }
    return h;
}

/* A sparse vector against the dense counts an application passed. */
static bool sparse_matches(const cp_vec *v, const cp_vec_arg *a)
{
    int64_t k = 0;
    for (int64_t i = 0; i < a->len; i++) {
        int64_t c = arg_count(a, i);
        if (k < v->nnz && v->peers[k] == i) {
            if (v->counts[k++] != c)
                return false;
        } else if (c != 0) {
            return false;
        }
    }
    return true;
}

/* A vector against counts given by their non-zeros. */
static bool nz_matches(const cp_vec *v, const cp_vec_arg *a)
{
    if (v->peers)
        return v->nnz == a->nnz &&
               memcmp(v->peers, a->nz_peers, (size_t)a->nnz * sizeof *v->peers) == 0 &&
               memcmp(v->counts, a->nz_counts, (size_t)a->nnz * sizeof *v->counts) == 0;
    int64_t k = 0; /* kept dense: at least half its counts are non-zero */
    for (int64_t i = 0; i < v->len; i++) {
        int64_t c = k < a->nnz && a->nz_peers[k] == i ? a->nz_counts[k++] : 0;
        if (v->counts[i] != c)
            return false;
    }
    return k == a->nnz;
}

bool cp_vec_matches(const cp_vec *v, const cp_vec_arg *a)
{
    if (a->nz_peers)
        return nz_matches(v, a);
    if (v->peers)
        return sparse_matches(v, a);
    return memcmp(v->counts, a->counts, (size_t)a->len * sizeof(int64_t)) == 0;
}

/* --------------------------------------------------------------- vectors */

struct vec_ctx {
    const cp_counts *t;
    const cp_vec_arg *a;
};

static bool vec_match_cb(const void *ctx, uint32_t id)
{
    const struct vec_ctx *c = ctx;
    return cp_vec_is(&c->t->vecs[id], c->a);
}

/* The id of vector a in *id (CP_SEQ_NONE when a is absent), added when new.
 * Returns 0, or -1 when memory ran out. */
static int vector_id(cp_counts *t, const cp_vec_arg *a, uint32_t *id)
{
    *id = CP_SEQ_NONE;
    if (!a->present)
        return 0;
    uint64_t h = hash_arg(a);
    struct vec_ctx ctx = {t, a};
    *id = cp_index_find(&t->vec_index, h, vec_match_cb, &ctx);
    if (*id != EMPTY)
        return 0;
    size_t cap = t->cap_vecs; /* 32 bits in the table: ids are */
    if (cp_grow((void **)&t->vecs, &cap, (size_t)t->nvecs + 1, sizeof *t->vecs, 2) ||
        cap > UINT32_MAX)
        return -1;
    t->cap_vecs = (uint32_t)cap;
    /* A new vector (not the common case): kept sparse when mostly zeros. */
    int64_t nnz = a->nz_peers ? a->nnz : 0;
    for (int64_t i = 0; a->counts && i < a->len; i++)
        nnz += arg_count(a, i) != 0;
    bool sparse = (a->counts || a->nz_peers) && cp_vec_sparse(a->len, nnz);
    int64_t n = sparse ? nnz : a->len;
    int64_t *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    int64_t *peers = sparse ? malloc((size_t)(n > 0 ? n : 1) * sizeof *peers) : NULL;
    if (!copy || (sparse && !peers)) {
        free(copy);
        free(peers);
        return -1;
    }
    if (a->nz_peers && sparse) {
        memcpy(peers, a->nz_peers, (size_t)nnz * sizeof *peers);
        memcpy(copy, a->nz_counts, (size_t)nnz * sizeof *copy);
    } else if (a->nz_peers) {
        for (int64_t i = 0, k = 0; i < a->len; i++)
            copy[i] = k < nnz && a->nz_peers[k] == i ? a->nz_counts[k++] : 0;
    } else {
        for (int64_t i = 0, k = 0; i < a->len; i++) {
            int64_t c = arg_count(a, i);
            if (!sparse) {
                copy[i] = c;
            } else if (c != 0) {
                peers[k] = i;
                copy[k++] = c;
            }
        }
    }
    if (cp_index_put(&t->vec_index, h, t->nvecs)) {
        free(copy);
        free(peers);
        return -1;
    }
    *id = t->nvecs;
    t->vecs[t->nvecs++] = (cp_vec){.hash = h, .in_bytes = a->in_bytes, .dtsize = a->dtsize,
                                   .len = a->len, .counts = copy, .peers = peers,
                                   .nnz = sparse ? nnz : 0};
    return 0;
}

/* ------------------------------------------------------------ signatures */

static uint64_t hash_sig(const cp_sig *s)
{
    return cp_hash_mix(
        cp_hash_mix(cp_hash_mix(cp_hash_mix(0x13198A2E03707344ull, s->send), s->recv),
                    (uint64_t)s->root),
        (uint64_t)s->callpath << 8 | s->form) ^ (uint64_t)(uint32_t)s->err * 0x9E3779B97F4A7C15ull;
}

struct sig_ctx {
    const cp_counts *t;
    const cp_sig *s;
};

static bool sig_match_cb(const void *ctx, uint32_t id)
{
    const struct sig_ctx *c = ctx;
    const cp_sig *a = &c->t->sigs[id];
    return a->send == c->s->send && a->recv == c->s->recv && a->root == c->s->root &&
           a->callpath == c->s->callpath && a->form == c->s->form && a->err == c->s->err;
}

/* The id of signature *s, added when new (its `next` hint empty);
 * CP_SEQ_NONE when memory ran out. */
static uint32_t intern_sig(cp_counts *t, cp_sig *s)
{
    uint64_t h = hash_sig(s);
    struct sig_ctx ctx = {t, s};
    uint32_t id = cp_index_find(&t->sig_index, h, sig_match_cb, &ctx);
    if (id != EMPTY)
        return id;
    size_t cap = t->cap_sigs;
    if (cp_grow((void **)&t->sigs, &cap, (size_t)t->nsigs + 1, sizeof *t->sigs, 2) ||
        cap > UINT32_MAX)
        return CP_SEQ_NONE;
    t->cap_sigs = (uint32_t)cap;
    if (cp_index_put(&t->sig_index, h, t->nsigs))
        return CP_SEQ_NONE;
    s->next = CP_SEQ_NONE;
    t->sigs[t->nsigs] = *s;
    return t->nsigs++;
}

uint32_t cp_counts_signature_other(cp_counts *t, const cp_vec_arg *send,
                                   const cp_vec_arg *recv, int64_t root, uint32_t callpath,
                                   int form)
{
    if (t->partial)
        return CP_SEQ_NONE;
    uint32_t hint = t->last_sig == CP_SEQ_NONE ? CP_SEQ_NONE : t->sigs[t->last_sig].next;
    if (cp_sig_is(t, hint, send, recv, root, callpath, form)) {
        t->last_sig = hint;
        return hint;
    }
    cp_sig s = {.root = root, .callpath = callpath, .form = (uint8_t)form};
    if (vector_id(t, send, &s.send) || vector_id(t, recv, &s.recv))
        goto oom;
    uint32_t id = intern_sig(t, &s);
    if (id == CP_SEQ_NONE)
        goto oom;
    if (t->last_sig != CP_SEQ_NONE)
        t->sigs[t->last_sig].next = id;
    t->last_sig = id;
    return id;
oom:
    t->partial = true;
    return CP_SEQ_NONE;
}

/* Shrink *p to n elements of size elem (n > 0); keep it as it is when
 * realloc fails (nothing is lost, only the room stays). */
static void shrink(void *p, uint32_t n, uint32_t *cap, size_t elem)
{
    void **pp = p;
    if (n == 0 || n >= *cap)
        return;
    void *np = realloc(*pp, n * elem);
    if (np) {
        *pp = np;
        *cap = n;
    }
}

void cp_counts_compact(cp_counts *t)
{
    shrink(&t->vecs, t->nvecs, &t->cap_vecs, sizeof *t->vecs);
    shrink(&t->sigs, t->nsigs, &t->cap_sigs, sizeof *t->sigs);
    cp_seq_compact(&t->seq);
}

uint64_t cp_counts_record_append(cp_counts *t, uint32_t sig)
{
    uint64_t idx = t->ncalls++;
    if (cp_seq_append(&t->seq, sig, 1))
        t->partial = true;
    return idx;
}

/* ------------------------------------------------------- refused calls */

/* The signature of a refused call: sig's, with the error class.  The hot
 * path's hints (last_sig, next) are left as they were. */
static uint32_t failed_sig(cp_counts *t, uint32_t sig, int32_t err)
{
    if (sig >= t->nsigs)
        return CP_SEQ_NONE;
    cp_sig s = t->sigs[sig];
    s.err = err;
    return intern_sig(t, &s);
}

void cp_counts_failed(cp_counts *t, uint64_t idx, uint32_t sig, int32_t err)
{
    if (sig == CP_SEQ_NONE || t->partial)
        return; /* not recorded: nothing to mark */
    uint32_t f = failed_sig(t, sig, err);
    if (f == CP_SEQ_NONE) {
        t->partial = true;
        return;
    }
    if (t->nfailed) { /* a loop that fails the same way: one run */
        cp_failed_run *r = &t->failed[t->nfailed - 1];
        if (r->sig == f && idx > r->last && (r->first == r->last || idx - r->last == r->step)) {
            r->step = idx - r->last;
            r->last = idx;
            return;
        }
    }
    if (t->nfailed == t->cap_failed) {
        uint32_t ncap = t->cap_failed ? 2 * t->cap_failed : 4;
        cp_failed_run *nr;
        if (ncap > CP_FAILED_RUNS_MAX || !(nr = realloc(t->failed, ncap * sizeof *nr))) {
            t->partial = true; /* the calls after it are not recorded */
            return;
        }
        t->failed = nr;
        t->cap_failed = ncap;
    }
    t->failed[t->nfailed++] = (cp_failed_run){idx, idx, 1, f};
}

int cp_counts_settle(cp_counts *t)
{
    if (cp_seq_finish(&t->seq))
        return -1;
    if (!t->nfailed)
        return 0;
    /* Copy the sequence, each refused call with its failed signature. */
    cp_seq out;
    cp_seq_init(&out);
    cp_seq_iter it;
    cp_seq_iter_init(&it, &t->seq);
    uint32_t r = 0;
    uint64_t next = t->failed[0].first, call = 0;
    int rc = 0;
    while (call < t->seq.total && rc == 0) {
        uint64_t left;
        uint32_t id = cp_seq_iter_peek(&it, &left);
        if (left > t->seq.total - call)
            left = t->seq.total - call;
        if (r < t->nfailed && next < call + left) {
            if (next > call) {
                left = next - call;
                rc = cp_seq_append(&out, id, left);
            } else {
                left = 1;
                rc = cp_seq_append(&out, t->failed[r].sig, 1);
                if (next == t->failed[r].last) {
                    if (++r < t->nfailed)
                        next = t->failed[r].first;
                } else {
                    next += t->failed[r].step;
                }
            }
        } else {
            rc = cp_seq_append(&out, id, left);
        }
        cp_seq_iter_skip(&it, left);
        call += left;
    }
    if (rc || cp_seq_finish(&out)) {
        cp_seq_free(&out);
        return -1;
    }
    uint64_t changes = t->seq.changes;
    cp_seq_free(&t->seq);
    t->seq = out;
    t->seq.changes = changes + 1; /* tails of the sequence it replaces: refused */
    t->nfailed = 0; /* settled: a second settle changes nothing */
    return 0;
}
