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
 * same ids.  No rank receives more than ceil(log2 P) trees.  The tree
 * itself (no MPI): collectors/callsite_tree.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "callsite_tree.h"
#include "finalize.h"
#include "pack.h"
#include "runtime.h"
#include "transport.h"

enum { TAG_PATHS_UP = 0x6372, TAG_PATHS_DOWN = 0x6373 };

/* This rank's own paths into t; leaf[i]: the innermost node of path i (-1:
 * an empty path). */
static int own_paths(cp_ptree *t, int64_t *leaf)
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
            if ((at = cp_ptree_child(t, at, &fr)) < 0)
                return -1;
        }
        leaf[i] = p->nframes ? at : -1;
    }
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
static void send_ids(fin *f, const cp_ptree *t, const cp_psub *s, bool failed, cp_wbuf *b,
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
    cp_ptree t = {.first_root = -1, .last_root = -1};
    uint32_t npaths = cp_callsite_count();
    int rounds = cp_tree_rounds(f->size), up = cp_tree_send_round(f->rank);
    int64_t *leaf = malloc((npaths ? npaths : 1) * sizeof *leaf);
    /* At most one child per round, 63 rounds: on the stack, so that no
     * failure here can keep a message from going (a rank would wait). */
    cp_psub subs[64];
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
        cp_psub s = {.rank = src};
        if (!buf || !ok || !cp_ptree_merge(&t, buf, len, &s))
            ok = false;
        subs[nsubs++] = s;
        free(buf);
    }
    int64_t *ids = NULL; /* per node of ours */
    bool down_ok = ok;
    if (up >= 0) {
        cp_wbuf *b = &bufs[64];
        cp_ptree_pack(b, &t, !ok);
        int parent = f->rank - (1 << up);
        if (b->failed) { /* a failed tree is 12 bytes */
            cp_wbuf_free(b);
            *b = (cp_wbuf){0};
            cp_ptree_pack(b, &t, true);
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
        down_ok = ok && cp_ptree_number(&t, &f->man) == 0 &&
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
