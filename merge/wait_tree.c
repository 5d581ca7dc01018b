/* Wait states by a reduction over the members (see wait_tree.h). */
#include "wait_tree.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/profile.h"
#include "wait_states.h"

/* Calls with wait states: blocking ones that the MPI library carried out. */
static bool blocking(const cp_timing_cols *r, size_t i)
{
    return !(r->flags[i] & (CP_CPT_NONBLOCKING | CP_CPT_FAILED));
}

int cp_wlist_leaf(cp_wlist *l, const cp_timing_cols *r, size_t n, int64_t crank)
{
    l->n = 0;
    l->v = malloc((n ? n : 1) * sizeof *l->v);
    if (!l->v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!blocking(r, i) || (l->n && r->call[i] <= l->v[l->n - 1].call))
            continue; /* records are in call order; a repeat would be a bug */
        bool root = r->root[i] >= 0 && r->root[i] == crank;
        l->v[l->n++] = (cp_wcall){.call = r->call[i],
                                  .have = 1,
                                  .max_enter = r->enter[i],
                                  .min_exit = r->exit[i],
                                  .root_enter = root ? r->enter[i] : -INFINITY,
                                  .other_enter = root ? -INFINITY : r->enter[i],
                                  .before = -INFINITY};
    }
    return 0;
}

static void combine(cp_wcall *a, const cp_wcall *b)
{
    a->have += b->have;
    a->max_enter = cp_wmax(a->max_enter, b->max_enter);
    a->min_exit = cp_wmin(a->min_exit, b->min_exit);
    a->root_enter = cp_wmax(a->root_enter, b->root_enter);
    a->other_enter = cp_wmax(a->other_enter, b->other_enter);
}

/* The usual case: both hold the same calls (every member made them all),
 * combined in place. */
static bool merge_same_calls(cp_wlist *into, const cp_wlist *from)
{
    if (into->n != from->n)
        return false;
    for (size_t k = 0; k < into->n; k++)
        if (into->v[k].call != from->v[k].call)
            return false;
    for (size_t k = 0; k < into->n; k++)
        combine(&into->v[k], &from->v[k]);
    return true;
}

int cp_wlist_merge(cp_wlist *into, const cp_wlist *from)
{
    if (from->n == 0 || merge_same_calls(into, from))
        return 0;
    cp_wcall *out = malloc((into->n + from->n) * sizeof *out);
    if (!out)
        return -1;
    size_t i = 0, j = 0, n = 0;
    while (i < into->n || j < from->n) {
        if (j == from->n || (i < into->n && into->v[i].call < from->v[j].call)) {
            out[n++] = into->v[i++];
        } else if (i == into->n || from->v[j].call < into->v[i].call) {
            out[n++] = from->v[j++];
        } else {
            out[n] = into->v[i++];
            combine(&out[n++], &from->v[j++]);
        }
    }
    free(into->v);
    into->v = out;
    into->n = n;
    return 0;
}

void cp_wlist_complete(cp_wlist *l, uint64_t members)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].have == members) {
            l->v[n] = l->v[i];
            l->v[n++].before = -INFINITY;
        }
    l->n = n;
}

void cp_wlist_raise_before(cp_wlist *l, const cp_wlist *below)
{
    for (size_t i = 0, j = 0; i < l->n; i++) {
        while (j < below->n && below->v[j].call < l->v[i].call)
            j++;
        if (j < below->n && below->v[j].call == l->v[i].call)
            l->v[i].before = cp_wmax(l->v[i].before, below->v[j].max_enter);
    }
}

int cp_wlist_copy(cp_wlist *out, const cp_wlist *in)
{
    out->n = 0;
    out->v = malloc((in->n ? in->n : 1) * sizeof *out->v);
    if (!out->v)
        return -1;
    memcpy(out->v, in->v, in->n * sizeof *out->v);
    out->n = in->n;
    return 0;
}

int cp_wlist_for_child(cp_wlist *out, const cp_wlist *down, const cp_wlist *own,
                       const cp_wlist *kids, int r)
{
    if (cp_wlist_copy(out, down))
        return -1;
    cp_wlist_raise_before(out, own);
    for (int j = 0; j < r; j++)
        cp_wlist_raise_before(out, &kids[j]);
    return 0;
}

int cp_wait_tree_local(size_t n, const cp_wlist *own, cp_wlist *down)
{
    int rounds = 0;
    while (((size_t)1 << rounds) < n)
        rounds++;
    /* up[m]: what member m holds; kids[m * rounds + j]: its child of round
     * j's list (a pointer into up[]: children are done before parents). */
    cp_wlist *up = calloc(n ? n : 1, sizeof *up);
    cp_wlist *kids = calloc(n * (size_t)(rounds ? rounds : 1) + 1, sizeof *kids);
    int rc = up && kids ? 0 : -1;
    for (size_t m = 0; m < n && rc == 0; m++)
        rc = cp_wlist_copy(&up[m], &own[m]);
    /* Up: in round r, member m + 2^r merges into m (m a multiple of 2^(r+1)). */
    for (int r = 0; r < rounds && rc == 0; r++)
        for (size_t m = 0; m + ((size_t)1 << r) < n && rc == 0; m += (size_t)2 << r) {
            size_t c = m + ((size_t)1 << r);
            rc = cp_wlist_merge(&up[m], &up[c]);
            kids[m * (size_t)rounds + (size_t)r] = up[c]; /* shared, freed once below */
        }
    if (rc == 0 && n) {
        cp_wlist_complete(&up[0], n);
        rc = cp_wlist_copy(&down[0], &up[0]);
    }
    /* Down, rounds in reverse: member m of round r's parent is m - 2^r. */
    for (int r = rounds - 1; r >= 0 && rc == 0; r--)
        for (size_t m = 0; m + ((size_t)1 << r) < n && rc == 0; m += (size_t)2 << r)
            rc = cp_wlist_for_child(&down[m + ((size_t)1 << r)], &down[m], &own[m],
                                    &kids[m * (size_t)rounds], r);
    for (size_t m = 0; up && m < n; m++)
        cp_wlist_free(&up[m]);
    free(up);
    free(kids);
    return rc;
}

void cp_wlist_free(cp_wlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* The wire form of a call is its struct's bytes: call, have, the four
 * times, and going down `before` (native order, as everything cp_put
 * packs); up, the struct without its last field. */
_Static_assert(offsetof(cp_wcall, before) == 48 && sizeof(cp_wcall) == 56,
               "cp_wcall's fields are its wire form, without padding");
#define WCALL_UP offsetof(cp_wcall, before)

void cp_wlist_pack(cp_wbuf *b, const cp_wlist *l, bool down)
{
    cp_put_u64(b, l->n);
    if (down) { /* the whole array at once */
        cp_put(b, l->v, l->n * sizeof *l->v);
        return;
    }
    cp_bytes_reserve(b, l->n * WCALL_UP); /* once, not by doubling */
    for (size_t i = 0; i < l->n; i++)
        cp_put(b, &l->v[i], WCALL_UP);
}

int cp_wlist_unpack(cp_rbuf *b, cp_wlist *l, bool down)
{
    l->n = 0;
    l->v = NULL;
    uint64_t n = cp_get_u64(b);
    if (b->bad || !cp_rbuf_has(b, n, down ? sizeof(cp_wcall) : WCALL_UP)) {
        b->bad = true; /* longer than the message: not ours */
        return -1;
    }
    l->v = malloc((n ? n : 1) * sizeof *l->v);
    if (!l->v)
        return -1;
    if (down && n)
        cp_get(b, l->v, (size_t)n * sizeof *l->v);
    for (uint64_t i = 0; i < n; i++) {
        cp_wcall *c = &l->v[i];
        if (!down) {
            cp_get(b, c, WCALL_UP);
            c->before = -INFINITY;
        }
        if (i && c->call <= l->v[i - 1].call)
            b->bad = true; /* not sorted: not ours */
    }
    l->n = n;
    if (b->bad)
        cp_wlist_free(l);
    return b->bad ? -1 : 0;
}

void cp_wait_own(int family, const cp_wlist *down, const cp_timing_cols *r, size_t n,
                 int64_t crank, cp_wait_own_sink sink, void *ctx)
{
    int pats[2];
    cp_wait_family_patterns(family, pats);
    if (pats[0] < 0)
        return;
    for (size_t i = 0, j = 0; i < n; i++) {
        if (!blocking(r, i))
            continue;
        while (j < down->n && down->v[j].call < r->call[i])
            j++;
        if (j == down->n)
            break;
        const cp_wcall *c = &down->v[j];
        if (c->call != r->call[i])
            continue;
        double e = r->enter[i], x = r->exit[i], s0 = 0, s1 = 0;
        sink(ctx, CP_WAIT_ANALYSED, i, x - r->start[i]);
        bool root = r->root[i] >= 0 && r->root[i] == crank;
        switch (family) {
        case CP_FAMILY_NXN:
        case CP_FAMILY_BARRIER:
            s0 = cp_wait_until(e, c->max_enter, x);
            s1 = cp_wait_completion(e, x, c->min_exit, s0);
            break;
        case CP_FAMILY_ONE_TO_N:
            if (!root)
                s0 = cp_wait_until(e, c->root_enter, x);
            break;
        case CP_FAMILY_N_TO_ONE:
            if (root)
                s0 = cp_wait_until(e, c->other_enter, x);
            break;
        case CP_FAMILY_SCAN: s0 = cp_wait_until(e, c->before, x); break;
        default: break;
        }
        if (s0 > 0)
            sink(ctx, pats[0], i, s0);
        if (s1 > 0 && pats[1] >= 0)
            sink(ctx, pats[1], i, s1);
    }
}
