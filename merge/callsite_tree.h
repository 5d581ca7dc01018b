/*
 * The job's call tree while finalize builds it (lib/finalize/
 * finalize_callsites.c moves it between ranks; the scale simulator in bench/
 * drives the same functions for its virtual ranks): a prefix tree of frames,
 * below the same caller one node per (module, address, function); packed as
 * sent up the world's binomial tree, merged node by node into the parent's
 * tree (remembering where each of the child's nodes went, so that the ids
 * can go back down), numbered depth-first at rank 0.  No MPI here.
 */
#ifndef COLLPROF_CALLSITE_TREE_H
#define COLLPROF_CALLSITE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "collprof/profile.h"
#include "pack.h"

typedef struct cp_pnode {
    int64_t parent;       /* index into nodes, -1 for a root */
    cp_callsite_node info;
    int64_t first_child, next_sibling, last_child; /* creation order */
    int64_t id;           /* depth-first number */
} cp_pnode;

typedef struct cp_ptree {
    cp_pnode *nodes;
    size_t n, cap;
    int64_t first_root, last_root;
} cp_ptree;

/* A child's tree as received: where each of its nodes went in ours. */
typedef struct cp_psub {
    int64_t *to_mine;
    uint64_t n;
} cp_psub;

/* The child of parent (-1: a root) for this frame, created when new; -1
 * when out of memory. */
int64_t cp_ptree_child(cp_ptree *t, int64_t parent, const cp_callsite_node *fr);

/* The tree as sent: failed, then its nodes in creation order (parents
 * before children), each its parent's index and its frame. */
void cp_ptree_pack(cp_wbuf *b, const cp_ptree *t, bool failed);

/* A child's packed tree merged into t; s (zeroed by the caller) records
 * where its nodes went.  Returns false when it failed (its own failure,
 * malformed, or memory). */
bool cp_ptree_merge(cp_ptree *t, const char *buf, size_t len, cp_psub *s);

/* Depth-first numbering (children in the order first seen) into the
 * manifest's call tree.  Returns 0, or -1 when out of memory. */
int cp_ptree_number(cp_ptree *t, cp_manifest *m);

#endif
