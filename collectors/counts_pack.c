/* Packing of the counts tables for the lead rank (see counts_pack.h). */
#include "counts_pack.h"

#include <stdlib.h>
#include <string.h>

void cp_counts_pack(cp_wbuf *b, const cp_counts *t)
{
    cp_put_u32(b, t->nvecs);
    for (uint32_t i = 0; i < t->nvecs; i++) {
        const cp_vec *v = &t->vecs[i];
        cp_put_i64(b, v->dtsize);
        cp_put_u32(b, v->in_bytes);
        cp_put_i64(b, v->len);
        /* -1: dense, len counts; else that many (peer, count) pairs */
        cp_put_i64(b, v->peers ? v->nnz : -1);
        if (v->peers) {
            cp_put(b, v->peers, (size_t)v->nnz * sizeof *v->peers);
            cp_put(b, v->counts, (size_t)v->nnz * sizeof *v->counts);
        } else {
            cp_put(b, v->counts, (size_t)v->len * sizeof *v->counts);
        }
    }
    cp_put_u32(b, t->nsigs);
    for (uint32_t i = 0; i < t->nsigs; i++) {
        cp_put_u32(b, t->sigs[i].send);
        cp_put_u32(b, t->sigs[i].recv);
        cp_put_i64(b, t->sigs[i].root);
        cp_put_u32(b, t->sigs[i].callpath);
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

void cp_counts_unpacked_free(cp_counts_unpacked *u)
{
    for (uint32_t i = 0; i < u->nvecs; i++) {
        free(u->vecs[i].counts);
        free(u->vecs[i].peers);
    }
    free(u->vecs);
    free(u->sigs);
    cp_seq_free(&u->seq);
    memset(u, 0, sizeof *u);
}

int cp_counts_unpack(cp_rbuf *b, cp_counts_unpacked *u)
{
    memset(u, 0, sizeof *u);
    cp_seq_init(&u->seq);
    uint32_t nvecs = cp_get_u32(b);
    if (!cp_rbuf_has(b, nvecs, 28) || !(u->vecs = calloc(nvecs ? nvecs : 1, sizeof *u->vecs)))
        goto bad;
    for (uint32_t i = 0; i < nvecs; i++) {
        cp_vec *v = &u->vecs[i];
        v->dtsize = cp_get_i64(b);
        v->in_bytes = cp_get_u32(b) != 0;
        v->len = cp_get_i64(b);
        int64_t nnz = cp_get_i64(b);
        if (v->len < 0 || nnz < -1 || nnz > v->len)
            goto bad;
        /* A sparse vector: its pairs, peers increasing and below len. */
        int64_t n = nnz >= 0 ? nnz : v->len;
        if (!cp_rbuf_has(b, (uint64_t)n, (nnz >= 0 ? 2 : 1) * sizeof *v->counts))
            goto bad;
        if (!(v->counts = malloc(n ? (size_t)n * sizeof *v->counts : 1)) ||
            (nnz >= 0 && !(v->peers = malloc(n ? (size_t)n * sizeof *v->peers : 1)))) {
            free(v->counts);
            goto bad;
        }
        u->nvecs++;
        if (nnz >= 0) {
            v->nnz = nnz;
            cp_get(b, v->peers, (size_t)n * sizeof *v->peers);
            for (int64_t k = 0; k < n; k++)
                if (v->peers[k] < 0 || v->peers[k] >= v->len || (k && v->peers[k] <= v->peers[k - 1]))
                    goto bad;
        }
        cp_get(b, v->counts, (size_t)n * sizeof *v->counts);
    }
    uint32_t nsigs = cp_get_u32(b);
    if (!cp_rbuf_has(b, nsigs, 20) || !(u->sigs = calloc(nsigs ? nsigs : 1, sizeof *u->sigs)))
        goto bad;
    for (u->nsigs = 0; u->nsigs < nsigs; u->nsigs++) {
        u->sigs[u->nsigs].send = cp_get_u32(b);
        u->sigs[u->nsigs].recv = cp_get_u32(b);
        u->sigs[u->nsigs].root = cp_get_i64(b);
        u->sigs[u->nsigs].callpath = cp_get_u32(b);
    }
    /* The sequence, group by group, exactly as the rank held it. */
    uint64_t ngroups = cp_get_u64(b);
    if (!cp_rbuf_has(b, ngroups, 12))
        goto bad;
    cp_seq *s = &u->seq;
    if (!(s->groups = calloc(ngroups ? ngroups : 1, sizeof *s->groups)))
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
        uint64_t calls = 0;
        for (uint32_t k = 0; k < nruns; k++) {
            cp_run *r = &s->runs[s->nruns++];
            r->id = cp_get_u32(b);
            r->len = cp_get_u64(b);
            if (r->len == 0) /* a run is never empty; the merge relies on it */
                goto bad;
            calls += r->len;
        }
        s->total += calls * reps;
        s->ngroups++;
    }
    if (b->bad)
        goto bad;
    u->view = (cp_counts_view){u->vecs, u->nvecs, u->sigs, u->nsigs, &u->seq};
    return 0;
bad:
    cp_counts_unpacked_free(u);
    return -1;
}
