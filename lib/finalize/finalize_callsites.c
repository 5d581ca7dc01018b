/*
 * Finalize, step 0: the job's call tree.  Every rank sends world rank 0 its
 * call paths, already resolved on that rank to (module, address, function);
 * rank 0 merges them into one tree (a node per frame: same caller node,
 * module and address), numbers the nodes depth-first, and sends each rank
 * the id of each of its paths (the id of the path's innermost node).  Every
 * rank then renames the paths in its signatures, so that the count files,
 * the Cube call tree and profile.stat all speak of the same ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "finalize_mail.h"
#include "runtime.h"
#include "transport.h"

typedef struct node {
    int64_t parent;       /* index into nodes, -1 for a root */
    cp_callsite_node info;
    int64_t first_child, next_sibling, last_child; /* creation order */
    int64_t id;           /* depth-first number */
} node;

typedef struct tree {
    node *nodes;
    size_t n, cap;
    int64_t first_root, last_root;
    /* Per rank: its paths' leaf nodes (indices into nodes), for the reply. */
    int64_t **leaf;
    uint32_t *nleaf;
} tree;

static void pack_paths(cp_wbuf *b)
{
    uint32_t n = cp_callsite_count();
    cp_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        const cp_callpath *p = cp_callsite_path(i);
        cp_put_u32(b, p->nframes);
        for (uint32_t k = 0; k < p->nframes; k++) {
            cp_put_str(b, p->frames[k].module);
            cp_put_u64(b, p->frames[k].address);
            cp_put_str(b, p->frames[k].function);
        }
    }
}

/* The child of parent (-1: a root) for this frame, created when new. */
static int64_t child(tree *t, int64_t parent, const cp_callsite_node *fr)
{
    int64_t c = parent < 0 ? t->first_root : t->nodes[parent].first_child;
    for (; c >= 0; c = t->nodes[c].next_sibling) {
        const cp_callsite_node *x = &t->nodes[c].info;
        if (x->address == fr->address && !strcmp(x->module, fr->module))
            return c;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        node *nn = realloc(t->nodes, cap * sizeof *nn);
        if (!nn)
            return -1;
        t->nodes = nn;
        t->cap = cap;
    }
    int64_t i = (int64_t)t->n++;
    t->nodes[i] = (node){.parent = parent, .info = *fr, .first_child = -1, .next_sibling = -1,
                         .last_child = -1, .id = -1};
    int64_t *last = parent < 0 ? &t->last_root : &t->nodes[parent].last_child;
    if (*last >= 0)
        t->nodes[*last].next_sibling = i;
    else if (parent < 0)
        t->first_root = i;
    else
        t->nodes[parent].first_child = i;
    *last = i;
    return i;
}

static void from_rank(fin *f, void *ctx, int r, cp_rbuf *b)
{
    tree *t = ctx;
    uint32_t n = cp_get_u32(b);
    if (!cp_rbuf_has(b, n, 4)) {
        b->bad = true;
        return;
    }
    t->leaf[r] = calloc(n ? n : 1, sizeof *t->leaf[r]);
    if (!t->leaf[r]) {
        cp_fin_fail(f, "out of memory while merging call paths");
        return;
    }
    t->nleaf[r] = n;
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t nf = cp_get_u32(b);
        if (nf > CP_CALLSITE_MAX_DEPTH) {
            b->bad = true;
            return;
        }
        cp_callsite_node fr[CP_CALLSITE_MAX_DEPTH];
        for (uint32_t k = 0; k < nf && !b->bad; k++) {
            memset(&fr[k], 0, sizeof fr[k]);
            cp_get_str(b, fr[k].module, sizeof fr[k].module);
            fr[k].address = cp_get_u64(b);
            cp_get_str(b, fr[k].function, sizeof fr[k].function);
        }
        /* Outermost frame first, down to the innermost: the leaf. */
        int64_t at = -1;
        for (uint32_t k = nf; k-- > 0 && !b->bad;)
            if ((at = child(t, at, &fr[k])) < 0) {
                cp_fin_fail(f, "out of memory while merging call paths");
                return;
            }
        t->leaf[r][i] = nf ? at : -1;
    }
}

/* Depth-first numbering, children in the order they were first seen. */
static int number(tree *t, cp_manifest *m)
{
    m->call_tree = calloc(t->n ? t->n : 1, sizeof *m->call_tree);
    if (!m->call_tree)
        return -1;
    int64_t *stack = malloc((t->n ? t->n : 1) * sizeof *stack), top = 0, next = 0;
    if (!stack)
        return -1;
    /* Siblings are pushed in reverse, so that the first is numbered first. */
    int64_t *tmp = malloc((t->n ? t->n : 1) * sizeof *tmp);
    if (!tmp) {
        free(stack);
        return -1;
    }
    int64_t k = 0;
    for (int64_t c = t->first_root; c >= 0; c = t->nodes[c].next_sibling)
        tmp[k++] = c;
    while (k > 0)
        stack[top++] = tmp[--k];
    while (top > 0) {
        int64_t v = stack[--top];
        node *nd = &t->nodes[v];
        nd->id = next++;
        m->call_tree[nd->id] = nd->info;
        m->call_tree[nd->id].parent = nd->parent < 0 ? -1 : t->nodes[nd->parent].id;
        for (int64_t c = nd->first_child; c >= 0; c = t->nodes[c].next_sibling)
            tmp[k++] = c;
        while (k > 0)
            stack[top++] = tmp[--k];
    }
    m->ncall_tree = t->n;
    free(tmp);
    free(stack);
    return 0;
}

/* Rename the paths in this rank's signatures: local id -> call-tree id. */
static void rename_paths(const uint32_t *map, uint32_t n)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            cp_counts *t = &c->coll[k]->counts;
            for (uint32_t s = 0; s < t->nsigs; s++) {
                uint32_t p = t->sigs[s].callpath;
                if (p != CP_SEQ_NONE)
                    t->sigs[s].callpath = p < n ? map[p] : CP_SEQ_NONE;
            }
        }
}

void cp_fin_callsites(fin *f)
{
    if (cp_rt.cfg.callsite_depth == 0)
        return; /* the same on every rank */
    tree t = {.first_root = -1, .last_root = -1};
    if (f->rank == 0) {
        t.leaf = calloc((size_t)f->size, sizeof *t.leaf);
        t.nleaf = calloc((size_t)f->size, sizeof *t.nleaf);
        if (!t.leaf || !t.nleaf)
            cp_fin_fail(f, "out of memory while merging call paths");
    }
    cp_wbuf mine = {0};
    pack_paths(&mine);
    cp_fin_gather(f, &mine, "call paths", from_rank, &t);
    cp_wbuf_free(&mine);

    /* The ids back: rank r gets one per path it sent. */
    int *counts = NULL, *displs = NULL;
    uint32_t *ids = NULL;
    if (f->rank == 0 && !f->failed && number(&t, &f->man) == 0) {
        counts = calloc((size_t)f->size, sizeof *counts);
        displs = calloc((size_t)f->size, sizeof *displs);
        size_t total = 0;
        for (int r = 0; r < f->size; r++)
            total += t.nleaf[r];
        ids = malloc((total ? total : 1) * sizeof *ids);
        for (int r = 0, at = 0; counts && displs && ids && r < f->size; r++) {
            counts[r] = (int)t.nleaf[r];
            displs[r] = at;
            for (uint32_t i = 0; i < t.nleaf[r]; i++)
                ids[at++] = t.leaf[r][i] < 0 ? CP_SEQ_NONE : (uint32_t)t.nodes[t.leaf[r][i]].id;
        }
    }
    int can = f->rank != 0 || (counts && displs && ids);
    cp_tp_bcast(&can, 1, MPI_INT, 0, f->w);
    uint32_t n = cp_callsite_count();
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    if (!can || !map) {
        cp_fin_fail(f, "out of memory while numbering call paths");
        free(map);
        map = NULL;
        n = 0;
    }
    if (can)
        cp_tp_scatterv(ids, counts, displs, MPI_UINT32_T, map ? map : (uint32_t[1]){0},
                      map ? (int)n : 0, MPI_UINT32_T, 0, f->w);
    if (map)
        rename_paths(map, n);
    free(map);
    free(ids);
    free(counts);
    free(displs);
    for (int r = 0; t.leaf && r < f->size; r++)
        free(t.leaf[r]);
    free(t.leaf);
    free(t.nleaf);
    free(t.nodes);
}
