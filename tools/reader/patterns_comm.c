/*
 * Patterns per communicator (`collprof patterns`): every matrix of the
 * communicator analysed (patterns.c), and its send matrices ranked by the
 * number of calls that moved them and by the bytes those calls asked to move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "search.h"

typedef struct rank_key {
    const cp_pattern *pat;
    size_t index;
} rank_key;

static int64_t first_call(const cp_pattern *pat)
{
    return pat->b->calls.n ? pat->b->calls.v[0].lo : INT64_MAX;
}

/* Ties go to the matrix of the earliest call, then to the order of the
 * blocks, so the ranking is the same on every machine. */
static int tie(const rank_key *x, const rank_key *y)
{
    int64_t fx = first_call(x->pat), fy = first_call(y->pat);
    CP_ORDER_BY(fx, fy);
    return (x->index > y->index) - (x->index < y->index);
}

static int desc(int64_t a, int64_t b)
{
    return a > b ? -1 : a < b;
}

/* Most calls first (then most bytes), or most bytes first (then most calls). */
static int by(const rank_key *x, const rank_key *y, bool calls_first)
{
    int calls = desc(x->pat->calls, y->pat->calls), bytes = desc(x->pat->bytes, y->pat->bytes);
    int c = calls_first ? (calls ? calls : bytes) : (bytes ? bytes : calls);
    return c ? c : tie(x, y);
}

static int cmp_calls(const void *pa, const void *pb)
{
    return by(pa, pb, true);
}

static int cmp_bytes(const void *pa, const void *pb)
{
    return by(pa, pb, false);
}

static int rank_send(cp_comm_patterns *c)
{
    size_t ns = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        ns += c->blocks[i].direction == CP_SEND;
    c->nsend = ns;
    if (ns == 0)
        return 0;
    rank_key *k = malloc(ns * sizeof *k);
    c->by_calls = malloc(ns * sizeof *c->by_calls);
    c->by_bytes = malloc(ns * sizeof *c->by_bytes);
    if (!k || !c->by_calls || !c->by_bytes) {
        free(k);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        if (c->blocks[i].direction == CP_SEND)
            k[m++] = (rank_key){&c->blocks[i], i};
    qsort(k, ns, sizeof *k, cmp_calls);
    for (size_t i = 0; i < ns; i++)
        c->by_calls[i] = k[i].index;
    qsort(k, ns, sizeof *k, cmp_bytes);
    for (size_t i = 0; i < ns; i++)
        c->by_bytes[i] = k[i].index;
    free(k);
    return 0;
}

/* Size and lead as `collprof summary` gives them. */
static void describe_comm(const cp_profile *p, const cp_reader_entry *e, cp_comm_patterns *c)
{
    const cp_block *b0 = e[0].b;
    const cp_comm_info *ci = cp_reader_manifest_comm(p, b0->comm_id);
    c->comm = b0->comm_id;
    c->size = ci ? ci->size : b0->comm_size >= 0 ? b0->comm_size : b0->nranks;
    c->lead = ci ? ci->lead
                 : b0->comm_world_ranks.n ? b0->comm_world_ranks.v[0].lo : e[0].f->lead_rank;
    c->inter = ci && ci->remote_members.n > 0;
}

static int fill_comm(const cp_profile *p, const cp_reader_entry *e, size_t n, cp_comm_patterns *c,
                     cp_error *err)
{
    describe_comm(p, e, c);
    c->blocks = calloc(n, sizeof *c->blocks);
    if (!c->blocks)
        return cp_error_set(err, "%s: out of memory", p->dir);
    for (size_t i = 0; i < n; i++) {
        if (cp_pattern_analyze(p, e[i].b, e[i].f->direction, &c->blocks[i], err) < 0)
            return -1;
        c->nblocks++;
    }
    if (rank_send(c) < 0)
        return cp_error_set(err, "%s: out of memory", p->dir);
    return 0;
}

int cp_profile_patterns(const cp_profile *p, cp_comm_patterns **out, size_t *nout, cp_error *err)
{
    *out = NULL;
    *nout = 0;
    cp_reader_entry *e;
    size_t n;
    if (cp_reader_sorted_entries(p, &e, &n) < 0)
        return cp_error_set(err, "%s: out of memory", p->dir);
    size_t ncomms = 0;
    for (size_t i = 0; i < n; i++)
        ncomms += i == 0 || e[i].b->comm_id != e[i - 1].b->comm_id;
    cp_comm_patterns *c = ncomms ? calloc(ncomms, sizeof *c) : NULL;
    if (ncomms && !c) {
        free(e);
        return cp_error_set(err, "%s: out of memory", p->dir);
    }
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].b->comm_id == e[i].b->comm_id)
            j++;
        rc = fill_comm(p, e + i, j - i, &c[k++], err);
        i = j;
    }
    free(e);
    if (rc < 0) {
        cp_comm_patterns_free(c, k);
        return -1;
    }
    *out = c;
    *nout = ncomms;
    return 0;
}

void cp_comm_patterns_free(cp_comm_patterns *c, size_t n)
{
    if (!c)
        return;
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < c[i].nblocks; b++)
            cp_pattern_free(&c[i].blocks[b]);
        free(c[i].blocks);
        free(c[i].by_calls);
        free(c[i].by_bytes);
    }
    free(c);
}
