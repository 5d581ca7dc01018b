/*
 * Finalize, step 1: the job's call tree.  Every rank holds its call paths,
 * already resolved on that rank to (module, address, function), as a
 * prefix tree: below the same caller node, the frame that called MPI is
 * one node per call site (module and address), a frame further out one
 * node per function (its address 0), so that main is one node whatever
 * lines in it lead to the collectives.
 * The trees merge up the binomial tree of the world's ranks (transport.h):
 * in round k a rank whose lowest set bit is k sends its tree to rank
 * r - 2^k, which merges it node by node into its own and remembers where
 * each of the child's nodes went.  Rank 0 ends with the job's distinct
 * nodes (not one copy per rank), numbers them depth-first (children in the
 * order first seen: rank order, as the merge goes), and the ids go back
 * down the same tree: each rank sends each child the ids of the nodes that
 * child sent.  Every rank then renames the paths in its signatures, so that
 * the count files, the Cube call tree and profile.stat all speak of the
 * same ids.  No rank receives more than ceil(log2 P) trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "finalize.h"
#include "pack.h"
#include "runtime.h"
#include "transport.h"

enum { TAG_PATHS_UP = 0x6372, TAG_PATHS_DOWN = 0x6373 };

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
} tree;

/* A child's tree as received: where each of its nodes went in ours. */
typedef struct sub {
    int rank;
    int64_t *to_mine;
    uint64_t n;
} sub;

/* The child of parent (-1: a root) for this frame, created when new. */
static int64_t child(tree *t, int64_t parent, const cp_callsite_node *fr)
{
    int64_t c = parent < 0 ? t->first_root : t->nodes[parent].first_child;
    for (; c >= 0; c = t->nodes[c].next_sibling) {
        const cp_callsite_node *x = &t->nodes[c].info;
        if (x->address == fr->address && !strcmp(x->module, fr->module) &&
            !strcmp(x->function, fr->function))
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

/* This rank's own paths into t; leaf[i]: the innermost node of path i (-1:
 * an empty path). */
static int own_paths(tree *t, int64_t *leaf)
{
    for (uint32_t i = 0, n = cp_callsite_count(); i < n; i++) {
        const cp_callpath *p = cp_callsite_path(i);
        /* Outermost frame first, down to the innermost: the leaf.  A path
         * starts at the program's main (C's main, Fortran's MAIN__): the C
         * runtime's frames above it (_start, __libc_start_main, ...) say
         * nothing about the application and are dropped. */
        uint32_t top = p->nframes;
        for (uint32_t k = p->nframes; k-- > 0;)
            if (!strcmp(p->frames[k].function, "main") || !strcmp(p->frames[k].function, "MAIN__")) {
                top = k + 1;
                break;
            }
        int64_t at = -1;
        for (uint32_t k = top; k-- > 0;) {
            /* The frame that called MPI is one call site (its address);
             * a frame further out is its function: main is one node
             * whatever lines in it lead to the collectives. */
            bool by_function = k > 0 && p->frames[k].function[0];
            cp_callsite_node fr = {.address = by_function ? 0 : p->frames[k].address};
            snprintf(fr.module, sizeof fr.module, "%s", p->frames[k].module);
            snprintf(fr.function, sizeof fr.function, "%s", p->frames[k].function);
            if ((at = child(t, at, &fr)) < 0)
                return -1;
        }
        leaf[i] = p->nframes ? at : -1;
    }
    return 0;
}

/* The tree as sent: failed, then its nodes in creation order (parents
 * before children), each its parent's index and its frame. */
static void pack_tree(cp_wbuf *b, const tree *t, bool failed)
{
    cp_put_u32(b, failed);
    cp_put_u64(b, failed ? 0 : t->n);
    for (size_t i = 0; !failed && i < t->n; i++) {
        const node *nd = &t->nodes[i];
        cp_put_i64(b, nd->parent);
        cp_put_str(b, nd->info.module);
        cp_put_u64(b, nd->info.address);
        cp_put_str(b, nd->info.function);
    }
}

/* A child's tree merged into t; s records where its nodes went.  Returns
 * false when it failed (its own failure, malformed, or memory). */
static bool merge_child(tree *t, const char *buf, size_t len, sub *s)
{
    cp_rbuf b = {.p = buf, .len = len};
    bool failed = cp_get_u32(&b) != 0;
    uint64_t n = cp_get_u64(&b);
    if (b.bad || failed || !cp_rbuf_has(&b, n, 18) ||
        !(s->to_mine = malloc((n ? n : 1) * sizeof *s->to_mine)))
        return false;
    for (; s->n < n; s->n++) {
        int64_t parent = cp_get_i64(&b);
        cp_callsite_node fr = {0};
        cp_get_str(&b, fr.module, sizeof fr.module);
        fr.address = cp_get_u64(&b);
        cp_get_str(&b, fr.function, sizeof fr.function);
        if (b.bad || parent < -1 || parent >= (int64_t)s->n)
            return false;
        int64_t at = child(t, parent < 0 ? -1 : s->to_mine[parent], &fr);
        if (at < 0)
            return false;
        s->to_mine[s->n] = at;
    }
    return !b.bad;
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

/* The ids of a child's nodes, sent down to it (or, failed, none). */
static void send_ids(fin *f, const tree *t, const sub *s, bool failed, cp_wbuf *b,
                     MPI_Request *r, size_t *nr)
{
    cp_put_u32(b, failed);
    cp_put_u64(b, failed ? 0 : s->n);
    for (uint64_t i = 0; !failed && i < s->n; i++)
        cp_put_i64(b, t->nodes[s->to_mine[i]].id);
    /* Without room for the ids, a message the child reads as failed. */
    static const unsigned char failed_msg[12] = {1};
    const void *p = b->failed ? (const void *)failed_msg : b->p;
    if (cp_isend_bytes(p, b->failed ? sizeof failed_msg : b->len, s->rank, TAG_PATHS_DOWN, f->w,
                       &r[*nr]) == MPI_SUCCESS)
        (*nr)++;
}

void cp_fin_callsites(fin *f)
{
    if (cp_rt.cfg.callsite_depth == 0)
        return; /* the same on every rank */
    tree t = {.first_root = -1, .last_root = -1};
    uint32_t npaths = cp_callsite_count();
    int rounds = cp_tree_rounds(f->size), up = cp_tree_send_round(f->rank);
    int64_t *leaf = malloc((npaths ? npaths : 1) * sizeof *leaf);
    /* At most one child per round, 63 rounds: on the stack, so that no
     * failure here can keep a message from going (a rank would wait). */
    sub subs[64];
    cp_wbuf bufs[65];
    MPI_Request reqs[65];
    memset(bufs, 0, sizeof bufs);
    size_t nsubs = 0, nreqs = 0;
    bool ok = leaf && own_paths(&t, leaf) == 0;

    /* Up: the children's trees, then ours to the parent. */
    for (int k = 0; k < rounds && (up < 0 || k < up); k++) {
        if (!cp_tree_has_child(f->rank, f->size, k))
            continue;
        size_t len;
        int src = f->rank + (1 << k);
        char *buf = cp_tp_recv_message(src, TAG_PATHS_UP, f->w, NULL, &len);
        sub s = {.rank = src};
        if (!buf || !ok || !merge_child(&t, buf, len, &s))
            ok = false;
        subs[nsubs++] = s;
        free(buf);
    }
    int64_t *ids = NULL; /* per node of ours */
    bool down_ok = ok;
    if (up >= 0) {
        cp_wbuf *b = &bufs[64];
        pack_tree(b, &t, !ok);
        int parent = f->rank - (1 << up);
        if (b->failed) { /* a failed tree is 12 bytes */
            cp_wbuf_free(b);
            *b = (cp_wbuf){0};
            pack_tree(b, &t, true);
            ok = false;
        }
        if (cp_isend_bytes(b->p, b->len, parent, TAG_PATHS_UP, f->w, &reqs[nreqs]) == MPI_SUCCESS)
            nreqs++;
        /* The ids of our nodes come back from the parent. */
        size_t len;
        char *buf = cp_tp_recv_message(parent, TAG_PATHS_DOWN, f->w, NULL, &len);
        cp_rbuf rb = {.p = buf, .len = len};
        bool failed = !buf || cp_get_u32(&rb) != 0;
        uint64_t n = buf ? cp_get_u64(&rb) : 0;
        down_ok = !failed && !rb.bad && n == t.n && cp_rbuf_has(&rb, n, 8) &&
                  (ids = malloc((n ? n : 1) * sizeof *ids)) != NULL;
        for (uint64_t i = 0; down_ok && i < n; i++)
            ids[i] = cp_get_i64(&rb);
        free(buf);
    } else {
        /* Rank 0: the job's tree, numbered; the manifest's call tree. */
        down_ok = ok && number(&t, &f->man) == 0 &&
                  (ids = malloc((t.n ? t.n : 1) * sizeof *ids)) != NULL;
        for (size_t i = 0; down_ok && i < t.n; i++)
            ids[i] = t.nodes[i].id;
    }
    for (size_t i = 0; down_ok && i < t.n; i++)
        t.nodes[i].id = ids[i];

    /* Down: each child the ids of the nodes it sent. */
    for (size_t i = nsubs; i-- > 0;)
        send_ids(f, &t, &subs[i], !down_ok, &bufs[i], reqs, &nreqs);
    if (!down_ok)
        cp_fin_fail(f, "out of memory while numbering call paths");

    uint32_t *map = malloc((npaths ? npaths : 1) * sizeof *map);
    for (uint32_t i = 0; map && i < npaths; i++)
        map[i] = !down_ok || leaf[i] < 0 ? CP_SEQ_NONE : (uint32_t)t.nodes[leaf[i]].id;
    if (map)
        rename_paths(map, npaths);
    free(map);
    for (size_t i = 0; i < nreqs; i++)
        cp_tp_wait(&reqs[i], NULL);
    for (size_t i = 0; i < nsubs; i++)
        free(subs[i].to_mine);
    for (int i = 0; i < 65; i++)
        cp_wbuf_free(&bufs[i]);
    free(ids);
    free(leaf);
    free(t.nodes);
}
