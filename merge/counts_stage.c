/* A rank's count tables of one communicator on their way to its lead
 * (counts_stage.h). */
#include "counts_stage.h"

#include <stdlib.h>
#include <string.h>

void cp_holding_init(cp_holding *h, int64_t rank, int64_t size)
{
    memset(h, 0, sizeof *h);
    h->rank = rank;
    h->size = size;
    h->lo = rank;
    h->hi = rank + 1;
}

void cp_holding_leaf(cp_holding *h, uint32_t k, const cp_counts_view *v, bool relative_ok)
{
    cp_hold_coll *e = k < CP_HOLD_COLLS && !cp_holding_at(h, k)
                          ? cp_slots_add(&h->c, k, sizeof *e)
                          : NULL;
    if (!e || !(e->tree = malloc(sizeof *e->tree))) {
        h->failed = true;
        return;
    }
    if (cp_tree_leaf(e->tree, v, h->rank, h->size, relative_ok)) {
        free(e->tree);
        e->tree = NULL;
        h->failed = true;
        return;
    }
    if (!(e->said = malloc(sizeof *e->said))) {
        h->failed = true;
        return;
    }
    cp_said_init(e->said, h->lo, h->hi, v && v->seq ? v->seq->total : 0);
}

static int64_t *copy_list(const int *v, int n)
{
    int64_t *out = malloc((n > 0 ? (size_t)n : 1) * sizeof *out);
    for (int i = 0; out && i < n; i++)
        out[i] = v[i];
    return out;
}

void cp_holding_neighbors(cp_holding *h, const int *sources, int nsources,
                          const int *destinations, int ndestinations)
{
    if (h->nb || !(h->nb = calloc(1, sizeof *h->nb))) {
        h->failed = true;
        return;
    }
    h->nnb = 1;
    cp_nb_entry *e = &h->nb[0];
    e->crank = h->rank;
    e->nb.sources = copy_list(sources, nsources);
    e->nb.destinations = copy_list(destinations, ndestinations);
    e->nb.nsources = (size_t)nsources;
    e->nb.ndestinations = (size_t)ndestinations;
    if (!e->nb.sources || !e->nb.destinations)
        h->failed = true;
}

void cp_hold_coll_clear(cp_hold_coll *e)
{
    free(e->said);
    if (e->tree) {
        cp_tree_free(e->tree);
        free(e->tree);
    }
    *e = (cp_hold_coll){NULL, NULL};
}

void cp_holding_clear(cp_holding *h)
{
    CP_SLOTS_EACH(k, &h->c)
        cp_hold_coll_clear(cp_holding_at(h, k));
    cp_slots_free(&h->c);
    for (size_t i = 0; i < h->nnb; i++) {
        free(h->nb[i].nb.sources);
        free(h->nb[i].nb.destinations);
    }
    free(h->nb);
    h->nb = NULL;
    h->nnb = 0;
}

/* ------------------------------------------------------------- messages */

static void put_list(cp_wbuf *b, const int64_t *v, size_t n)
{
    cp_put_u32(b, (uint32_t)n);
    cp_put(b, v, n * sizeof *v);
}

void cp_holding_pack(cp_wbuf *b, const cp_holding *h)
{
    cp_put_i64(b, h->lo);
    cp_put_i64(b, h->hi);
    cp_put_u32(b, h->failed);
    uint32_t n[2] = {0, 0};
    CP_SLOTS_EACH(k, &h->c)
    {
        n[0] += cp_holding_at(h, k)->tree != NULL;
        n[1] += cp_holding_at(h, k)->said != NULL;
    }
    cp_put_u32(b, n[0]);
    CP_SLOTS_EACH(k, &h->c)
        if (cp_holding_at(h, k)->tree) {
            cp_put_u32(b, (uint32_t)k);
            cp_tree_pack(b, cp_holding_at(h, k)->tree);
        }
    cp_put_u32(b, n[1]);
    CP_SLOTS_EACH(k, &h->c)
        if (cp_holding_at(h, k)->said) {
            cp_put_u32(b, (uint32_t)k);
            cp_said_pack(b, cp_holding_at(h, k)->said);
        }
    cp_put_u64(b, h->nnb);
    for (size_t i = 0; i < h->nnb; i++) {
        cp_put_i64(b, h->nb[i].crank);
        put_list(b, h->nb[i].nb.sources, h->nb[i].nb.nsources);
        put_list(b, h->nb[i].nb.destinations, h->nb[i].nb.ndestinations);
    }
}

static int get_list(cp_rbuf *b, int64_t **v, size_t *n)
{
    uint32_t len = cp_get_u32(b);
    if (!cp_rbuf_has(b, len, 8) || !(*v = malloc((len ? len : 1) * sizeof **v)))
        return -1;
    *n = len;
    cp_get(b, *v, len * sizeof **v);
    return 0;
}

int cp_holding_unpack(cp_rbuf *b, cp_holding *x)
{
    x->lo = cp_get_i64(b);
    x->hi = cp_get_i64(b);
    x->failed = cp_get_u32(b) != 0;
    uint32_t n = cp_get_u32(b);
    if (b->bad || x->lo < 0 || x->hi <= x->lo || x->hi > x->size || n > CP_HOLD_COLLS)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = cp_get_u32(b);
        cp_hold_coll *e = k < CP_HOLD_COLLS ? cp_slots_add(&x->c, k, sizeof *e) : NULL;
        if (!e || e->tree || !(e->tree = malloc(sizeof *e->tree)))
            return -1;
        if (cp_tree_unpack(b, e->tree) || e->tree->nranks != x->size) {
            free(e->tree);
            e->tree = NULL;
            return -1;
        }
    }
    n = cp_get_u32(b);
    if (b->bad || n > CP_HOLD_COLLS)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = cp_get_u32(b);
        cp_hold_coll *e = k < CP_HOLD_COLLS ? cp_slots_add(&x->c, k, sizeof *e) : NULL;
        if (!e || e->said || !(e->said = malloc(sizeof *e->said)))
            return -1;
        if (cp_said_unpack(b, e->said))
            return -1;
    }
    uint64_t nnb = cp_get_u64(b);
    if (!cp_rbuf_has(b, nnb, 16) || !(x->nb = calloc(nnb ? nnb : 1, sizeof *x->nb)))
        return -1;
    for (; x->nnb < nnb; x->nnb++) {
        cp_nb_entry *e = &x->nb[x->nnb];
        e->crank = cp_get_i64(b);
        if (e->crank < x->lo || e->crank >= x->hi ||
            get_list(b, &e->nb.sources, &e->nb.nsources) ||
            get_list(b, &e->nb.destinations, &e->nb.ndestinations)) {
            x->nnb++;
            return -1;
        }
    }
    return b->bad ? -1 : 0;
}

static void probe(const cp_holding *h)
{
    if (h->probe)
        h->probe(h->probe_ctx);
}

/* h's numbers of calls take x's ranks: a side without the collective made
 * 0 calls of it. */
static int absorb_said(cp_holding *h, const cp_holding *x)
{
    const cp_slots either = {h->c.mask | x->c.mask, NULL}; /* the collectives of both */
    CP_SLOTS_EACH(k, &either)
    {
        const cp_hold_coll *xe = cp_holding_at(x, k);
        cp_hold_coll *he = cp_holding_at(h, k);
        if (!(he && he->said) && !(xe && xe->said))
            continue;
        if (!he && !(he = cp_slots_add(&h->c, k, sizeof *he)))
            return -1;
        if (!he->said) {
            if (!(he->said = malloc(sizeof *he->said)))
                return -1;
            cp_said_init(he->said, h->lo, h->hi, 0);
        }
        cp_calls_said none;
        if (!(xe && xe->said))
            cp_said_init(&none, x->lo, x->hi, 0);
        cp_said_merge(he->said, xe && xe->said ? xe->said : &none);
    }
    return 0;
}

int cp_holding_absorb(cp_holding *h, cp_holding *x)
{
    int rc = CP_GROUP_OK;
    h->failed |= x->failed;
    if (absorb_said(h, x)) {
        h->failed = true;
        rc = CP_GROUP_NOMEM;
    }
    CP_SLOTS_EACH(k, &x->c)
    {
        cp_hold_coll *xe = cp_holding_at(x, k);
        if (!xe->tree)
            continue;
        cp_hold_coll *he = cp_holding_at(h, k);
        if (!he && !(he = cp_slots_add(&h->c, k, sizeof *he))) { /* x keeps it */
            h->failed = true;
            rc = CP_GROUP_NOMEM;
            continue;
        }
        if (!he->tree) {
            he->tree = xe->tree;
            xe->tree = NULL;
            continue;
        }
        cp_tree *m = malloc(sizeof *m);
        if (!m) { /* both trees kept as they are */
            h->failed = true;
            rc = CP_GROUP_NOMEM;
            continue;
        }
        /* The merge takes both trees (and frees what is left of them): on
         * failure h keeps none of this collective, and says it failed. */
        int merged = cp_tree_merge(m, he->tree, xe->tree, h->probe, h->probe_ctx);
        free(he->tree);
        free(xe->tree);
        he->tree = xe->tree = NULL;
        if (merged) {
            free(m);
            h->failed = true;
            rc = CP_GROUP_NOMEM;
            continue;
        }
        he->tree = m;
    }
    if (x->nnb) {
        cp_nb_entry *nn = realloc(h->nb, (h->nnb + x->nnb) * sizeof *nn);
        if (nn) {
            memcpy(nn + h->nnb, x->nb, x->nnb * sizeof *nn);
            h->nb = nn;
            h->nnb += x->nnb;
            x->nnb = 0;
        } else {
            h->failed = true;
            rc = CP_GROUP_NOMEM;
        }
    }
    if (x->hi > h->hi)
        h->hi = x->hi;
    cp_holding_clear(x);
    return rc;
}

/* ------------------------------------------------------ through the tree */

static void up_pack(void *value, int round, cp_wbuf *b)
{
    (void)round;
    cp_holding_pack(b, value);
    cp_holding_clear(value); /* sent: the parent holds it now */
}

static int up_merge(void *value, int round, cp_rbuf *rb)
{
    cp_holding *h = value, x;
    cp_holding_init(&x, h->rank + ((int64_t)1 << round), h->size);
    /* The child holds its own subtree's ranks: they start right above it. */
    if (cp_holding_unpack(rb, &x) || x.lo != h->rank + ((int64_t)1 << round)) {
        cp_holding_clear(&x);
        return CP_GROUP_MALFORMED;
    }
    probe(h); /* the child's holding unpacked beside this one */
    return cp_holding_absorb(h, &x);
}

const cp_group_op cp_holding_up_op = {up_pack, up_merge, true};
