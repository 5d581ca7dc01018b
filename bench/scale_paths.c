/*
 * The scale simulator's call-path stage: finalize's own way up and down
 * (merge/callsite_stage.c, as lib/finalize/finalize_callsites.c runs
 * it over MPI) for every virtual rank, over the simulator's mailboxes: up,
 * the ranks from P - 1 down to 0, each rank's paths as a prefix tree
 * packed to its parent and merged there; rank 0 numbers the job's tree;
 * down, the ranks from 0 up, each child receiving the ids of the nodes it
 * sent.  Between the two ways every rank keeps where its children's nodes
 * went (a few dozen bytes), not its nodes.
 *
 * Every rank calls its collectives from two paths, main > solve >
 * exchange and main > solve > norm (an SPMD code: the same on all ranks);
 * every 1,000th rank also from main > checkpoint.  Rank 0 must end with 5
 * distinct nodes whatever P, and every rank's paths must come back with
 * the ids rank 0 gave them (paths_exact).
 *
 * Cost per virtual rank, as in scale_waits.c: bytes received (trees up,
 * ids down), CPU of its own work, the most it held at once (its tree, the
 * tree it received, where each of a child's nodes went), from sizes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite_stage.h"
#include "callsite_tree.h"
#include "scale_sim.h"

#define MODULE "/apps/solver"

typedef struct frame_def {
    const char *function;
    uint64_t address; /* 0: an outer frame, one node per function */
} frame_def;

/* Outermost first; the last frame called MPI (its call site's address). */
static const frame_def path_exchange[] = {{"main", 0}, {"solve", 0}, {"exchange", 0x2010}};
static const frame_def path_norm[] = {{"main", 0}, {"solve", 0}, {"norm", 0x2210}};
static const frame_def path_checkpoint[] = {{"main", 0}, {"checkpoint", 0x3010}};
#define NFRAMES(p) (sizeof p / sizeof p[0])

static int64_t add_path(cp_ptree *t, const frame_def *p, size_t n)
{
    int64_t at = -1;
    for (size_t i = 0; i < n; i++) {
        cp_callsite_node fr = {.address = p[i].address};
        snprintf(fr.module, sizeof fr.module, "%s", MODULE);
        snprintf(fr.function, sizeof fr.function, "%s", p[i].function);
        if ((at = cp_ptree_child(t, at, &fr)) < 0)
            sim_die("out of memory for a call path");
    }
    return at;
}

/* Rank r's own tree; leaf[0..2]: its paths' innermost nodes (-1: none). */
static void own_tree(int64_t r, cp_ptree *t, int64_t leaf[3])
{
    *t = (cp_ptree){.first_root = -1, .last_root = -1};
    leaf[0] = add_path(t, path_exchange, NFRAMES(path_exchange));
    leaf[1] = add_path(t, path_norm, NFRAMES(path_norm));
    leaf[2] = r % 1000 == 0 ? add_path(t, path_checkpoint, NFRAMES(path_checkpoint)) : -1;
}

/* The id rank 0 gave a path: walk the numbered tree by function. */
static int64_t id_of(const cp_manifest *m, const frame_def *p, size_t n)
{
    int64_t at = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t found = -1;
        for (size_t j = 0; j < m->ncall_tree && found < 0; j++)
            if (m->call_tree[j].parent == at && !strcmp(m->call_tree[j].function, p[i].function))
                found = (int64_t)j;
        if ((at = found) < 0)
            return -1;
    }
    return at;
}

static size_t subs_bytes(const cp_paths_rank *st)
{
    size_t n = st->nsubs * sizeof *st->subs;
    for (size_t i = 0; i < st->nsubs; i++)
        n += st->subs[i].n * sizeof(int64_t);
    return n;
}

void sim_paths(int64_t P, double *lead_recv, size_t *nodes, bool *exact)
{
    cp_paths_rank *st = calloc((size_t)P, sizeof *st);
    if (!st)
        sim_die("out of memory for the ranks' call-path state");
    sim_mailbox box = {0};
    cp_tree_io io = sim_mailbox_io(&box);
    /* Up: each rank's own tree, its children's merged in, to its parent. */
    for (int64_t r = P - 1; r >= 0; r--) {
        int64_t leaf[3];
        double t0 = sim_cpu_now();
        own_tree(r, &st[r].t, leaf);
        st[r].ok = true;
        box.self = r;
        box.received = 0;
        box.largest = 0;
        cp_paths_up(&st[r], r, P, &io);
        sim_charge(r, box.received, sim_cpu_now() - t0,
                   st[r].t.cap * sizeof(cp_pnode) + box.largest + subs_bytes(&st[r]));
        if (r == 0) {
            *lead_recv = box.received;
        } else { /* the way down needs the number of nodes, not the nodes */
            free(st[r].t.nodes);
            st[r].t = (cp_ptree){.first_root = -1, .last_root = -1};
        }
    }
    /* Down: rank 0 numbers, the ids go to every rank, each checks its own
     * paths got rank 0's ids. */
    cp_manifest m;
    memset(&m, 0, sizeof m);
    bool good = true;
    int64_t want[3] = {-1, -1, -1};
    for (int64_t r = 0; r < P; r++) {
        box.self = r;
        box.received = 0;
        double t0 = sim_cpu_now();
        good &= cp_paths_down(&st[r], r, P, &io, &m);
        sim_charge(r, box.received, sim_cpu_now() - t0,
                   st[r].nnodes * sizeof(int64_t) + subs_bytes(&st[r]));
        if (r == 0) {
            *nodes = m.ncall_tree;
            want[0] = id_of(&m, path_exchange, NFRAMES(path_exchange));
            want[1] = id_of(&m, path_norm, NFRAMES(path_norm));
            want[2] = id_of(&m, path_checkpoint, NFRAMES(path_checkpoint));
            good &= m.ncall_tree == 5 && want[0] >= 0 && want[1] >= 0 && want[2] >= 0;
        }
        /* Its own nodes come first in its tree (own_tree adds them before
         * any child's), so its paths' leaves are those of a tree of its
         * own paths alone. */
        cp_ptree mine;
        int64_t leaf[3];
        own_tree(r, &mine, leaf);
        for (int i = 0; i < 3 && st[r].ids; i++)
            if (leaf[i] >= 0 && ((size_t)leaf[i] >= st[r].nnodes || st[r].ids[leaf[i]] != want[i]))
                good = false;
        free(mine.nodes);
        cp_paths_rank_free(&st[r]);
    }
    good &= box.n == 0;
    sim_mailbox_free(&box);
    free(st);
    free(m.call_tree);
    *exact = good;
}
