/*
 * A finalize stage: the job's call tree.  Every rank holds its call paths,
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
 * itself (no MPI): merge/callsite_tree.c; a rank's way up and down
 * over any carrier (run by the scale simulator too):
 * merge/callsite_stage.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callsite.h"
#include "callsite_stage.h"
#include "callsite_tree.h"
#include "build_id.h"
#include "callsite_lines.h"
#include "finalize.h"
#include "finalize_mail.h"
#include "pack.h"
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

/* A local path id as a call-tree id (map: n of them). */
static uint32_t renamed(uint32_t p, const uint32_t *map, uint32_t n)
{
    return p == CP_SEQ_NONE ? p : p < n ? map[p] : CP_SEQ_NONE;
}

uint32_t cp_fin_path_renamed(uint32_t path, const cp_own_paths *own)
{
    return own ? renamed(path, own->map, own->n) : CP_SEQ_NONE;
}

/* Rename the paths in this rank's signatures: local id -> call-tree id. */
static void rename_paths(cp_comm *comms, const uint32_t *map, uint32_t n)
{
    for (cp_comm *c = comms; c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            cp_counts *t = &c->coll[k]->counts;
            for (uint32_t s = 0; s < t->nsigs; s++)
                t->sigs[s].callpath = renamed(t->sigs[s].callpath, map, n);
        }
}

cp_sig *cp_fin_sigs_renamed(const cp_counts *t, const cp_own_paths *own)
{
    cp_sig *v = malloc((t->nsigs ? t->nsigs : 1) * sizeof *v);
    for (uint32_t s = 0; v && s < t->nsigs; s++) {
        v[s] = t->sigs[s];
        v[s].callpath = renamed(v[s].callpath, own->map, own->n);
    }
    return v;
}

/* Rank 0: the build-id of every module of the job's call tree (manifest
 * "modules"), from the image this process runs when it has the module
 * loaded (what ran), else from the file as it is now, at the end of the
 * run.  The reader looks up lines only in a module file of that build. */
static void record_modules(cp_manifest *m)
{
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = '\0';
    for (size_t i = 0; i < m->ncall_tree; i++) {
        const char *mod = m->call_tree[i].module;
        bool seen = !mod[0] || !strcmp(mod, "?");
        for (size_t k = 0; k < m->nmodules && !seen; k++)
            seen = strcmp(m->modules[k].key, mod) == 0;
        if (seen)
            continue;
        char id[CP_BUILD_ID_MAX];
        if (cp_build_id_loaded(strcmp(mod, exe) ? mod : NULL, id, sizeof id))
            cp_build_id_of_file(mod, id, sizeof id);
        if (cp_kv_add(&m->modules, &m->nmodules, mod, id))
            return;
    }
}

int cp_fin_own_call_tree(cp_manifest *m, cp_own_paths *own)
{
    /* Paths a thread adds meanwhile are left out (renamed to none). */
    uint32_t npaths = cp_callsite_count();
    int64_t *leaf = malloc((npaths ? npaths : 1) * sizeof *leaf);
    cp_ptree t = {.first_root = -1, .last_root = -1};
    own->map = malloc((npaths ? npaths : 1) * sizeof *own->map);
    own->n = npaths;
    int rc = leaf && own->map && own_paths(&t, leaf) == 0 && cp_ptree_number(&t, m) == 0 ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < npaths; i++)
        own->map[i] = leaf[i] < 0 ? CP_SEQ_NONE : (uint32_t)t.nodes[leaf[i]].id;
    if (rc == 0)
        record_modules(m); /* the reader looks lines up in the builds that ran */
    free(t.nodes);
    free(leaf);
    if (rc) {
        free(own->map);
        *own = (cp_own_paths){0};
    }
    return rc;
}

void cp_fin_callsites(fin *f, cp_manifest *man)
{
    if (f->cfg->callsite_depth == 0)
        return; /* the same on every rank */
    uint32_t npaths = cp_callsite_count();
    int64_t *leaf = malloc((npaths ? npaths : 1) * sizeof *leaf);
    cp_paths_rank st = {.t = {.first_root = -1, .last_root = -1}};
    st.ok = leaf && own_paths(&st.t, leaf) == 0;
    cp_fin_world_io up = {.f = f, .tag = TAG_PATHS_UP, .what = "call paths"},
                    down = {.f = f, .tag = TAG_PATHS_DOWN, .what = "call-path ids"};
    cp_tree_io io_up = cp_fin_world_carrier(&up), io_down = cp_fin_world_carrier(&down);
    cp_paths_up(&st, f->rank, f->size, &io_up);
    bool down_ok = cp_paths_down(&st, f->rank, f->size, &io_down, man);
    cp_fin_world_finish(&up);
    cp_fin_world_finish(&down);
    if (!down_ok)
        cp_fin_fail(f, "out of memory while numbering call paths");
    else if (f->rank == 0) {
        record_modules(man);
        /* The lines of the run, while its modules are the builds that ran. */
        cp_callsite_lines(man->call_tree, man->ncall_tree, man->modules, man->nmodules);
    }
    uint32_t *map = malloc((npaths ? npaths : 1) * sizeof *map);
    for (uint32_t i = 0; map && i < npaths; i++)
        map[i] = !down_ok || leaf[i] < 0 ? CP_SEQ_NONE : (uint32_t)st.ids[leaf[i]];
    if (map)
        rename_paths(f->comms, map, npaths);
    free(map);
    cp_paths_rank_free(&st);
    free(leaf);
}
