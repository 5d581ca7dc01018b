/* The job's call tree at finalize (see callsite_tree.h). */
#include "callsite_tree.h"

#include <stdlib.h>
#include <string.h>

int64_t cp_ptree_child(cp_ptree *t, int64_t parent, const cp_callsite_node *fr)
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
        cp_pnode *nn = realloc(t->nodes, cap * sizeof *nn);
        if (!nn)
            return -1;
        t->nodes = nn;
        t->cap = cap;
    }
    int64_t i = (int64_t)t->n++;
    t->nodes[i] = (cp_pnode){.parent = parent, .info = *fr, .first_child = -1, .next_sibling = -1,
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

/* The tree as sent: failed, then its nodes in creation order (parents
 * before children), each its parent's index and its frame. */
void cp_ptree_pack(cp_wbuf *b, const cp_ptree *t, bool failed)
{
    cp_put_u32(b, failed);
    cp_put_u64(b, failed ? 0 : t->n);
    for (size_t i = 0; !failed && i < t->n; i++) {
        const cp_pnode *nd = &t->nodes[i];
        cp_put_i64(b, nd->parent);
        cp_put_str(b, nd->info.module);
        cp_put_u64(b, nd->info.address);
        cp_put_str(b, nd->info.function);
    }
}

/* A child's tree merged into t; s records where its nodes went.  Returns
 * false when it failed (its own failure, malformed, or memory). */
bool cp_ptree_merge(cp_ptree *t, const char *buf, size_t len, cp_psub *s)
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
        int64_t at = cp_ptree_child(t, parent < 0 ? -1 : s->to_mine[parent], &fr);
        if (at < 0)
            return false;
        s->to_mine[s->n] = at;
    }
    return !b.bad;
}

/* Depth-first numbering, children in the order they were first seen. */
int cp_ptree_number(cp_ptree *t, cp_manifest *m)
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
        cp_pnode *nd = &t->nodes[v];
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

