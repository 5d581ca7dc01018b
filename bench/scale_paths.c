/*
 * The scale simulator's call-path stage: the real functions of finalize
 * (collectors/callsite_tree.c) for every virtual rank, in the order of the
 * world's binomial tree (lib/finalize/finalize_callsites.c): each rank's
 * paths as a prefix tree, packed up to its parent, merged there; rank 0
 * numbers the job's tree; the ids go back down, each child receiving the
 * ids of the nodes it sent.
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

typedef struct psim {
    int64_t P;
    double lead_recv;
    bool exact;
    int64_t want[3]; /* rank 0's ids of the three paths */
} psim;

/* Rank r holding [r, r + span): its tree merged with its children's (each
 * child's subtree first).  subs: where each child's nodes went (kept when
 * not NULL, one per round).  account: charge the work. */
static void up(psim *x, int64_t r, int64_t span, cp_ptree *t, cp_psub *subs, int *nsubs,
               bool account)
{
    double t0 = sim_cpu_now();
    int64_t leaf[3];
    own_tree(r, t, leaf);
    double cpu = sim_cpu_now() - t0;
    int k = 0;
    size_t held_subs = 0;
    for (int64_t step = 1; step < span && r + step < x->P; step *= 2, k++) {
        cp_ptree ct;
        up(x, r + step, step, &ct, NULL, NULL, account);
        t0 = sim_cpu_now();
        cp_wbuf b = {0};
        cp_ptree_pack(&b, &ct, false);
        double pack = sim_cpu_now() - t0;
        free(ct.nodes);
        t0 = sim_cpu_now();
        cp_psub s = {.rank = (int)(r + step)};
        if (b.failed || !cp_ptree_merge(t, b.p, b.len, &s))
            sim_die("cannot merge a call tree");
        cpu += sim_cpu_now() - t0;
        held_subs += s.n * sizeof(int64_t);
        if (account) {
            sim_charge(r + step, 0, pack, 0);
            sim_charge(r, (double)b.len, 0, t->n * sizeof(cp_pnode) + b.len + held_subs);
            if (r == 0)
                x->lead_recv += (double)b.len;
        }
        cp_wbuf_free(&b);
        if (subs)
            subs[k] = s;
        else
            free(s.to_mine);
    }
    if (nsubs)
        *nsubs = k;
    if (account)
        sim_charge(r, 0, cpu, 0);
}

/* Rank r got the ids of its tree's nodes (ids[i]: node i's). */
static void down(psim *x, int64_t r, int64_t span, const int64_t *ids, size_t nids)
{
    cp_ptree t;
    cp_psub subs[64];
    int nk;
    up(x, r, span, &t, subs, &nk, false); /* what r held after the way up */
    if (t.n != nids)
        x->exact = false;
    /* Its own paths got the ids rank 0 gave them (its own nodes come
     * first in its tree: own_tree adds them before any child's). */
    int64_t leaf[3];
    cp_ptree mine;
    own_tree(r, &mine, leaf);
    for (int i = 0; i < 3; i++)
        if (leaf[i] >= 0 && ((size_t)leaf[i] >= nids || ids[leaf[i]] != x->want[i]))
            x->exact = false;
    free(mine.nodes);
    sim_charge(r, (double)nids * sizeof(int64_t), 0, t.n * sizeof(cp_pnode));
    for (int k = nk - 1; k >= 0; k--) {
        double t0 = sim_cpu_now();
        int64_t *cids = malloc((subs[k].n ? subs[k].n : 1) * sizeof *cids);
        if (!cids)
            sim_die("out of memory");
        for (uint64_t i = 0; i < subs[k].n; i++)
            cids[i] = ids[subs[k].to_mine[i]];
        sim_charge(r, 0, sim_cpu_now() - t0, 0);
        down(x, r + ((int64_t)1 << k), (int64_t)1 << k, cids, subs[k].n);
        free(cids);
        free(subs[k].to_mine);
    }
    free(t.nodes);
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

void sim_paths(int64_t P, double *lead_recv, size_t *nodes, bool *exact)
{
    psim x = {.P = P, .exact = true};
    int64_t span = 1;
    while (span < P)
        span *= 2;
    cp_ptree t;
    up(&x, 0, span, &t, NULL, NULL, true);
    cp_manifest m;
    memset(&m, 0, sizeof m);
    double t0 = sim_cpu_now();
    if (cp_ptree_number(&t, &m))
        sim_die("out of memory numbering");
    sim_charge(0, 0, sim_cpu_now() - t0, 0);
    *nodes = m.ncall_tree;
    x.want[0] = id_of(&m, path_exchange, NFRAMES(path_exchange));
    x.want[1] = id_of(&m, path_norm, NFRAMES(path_norm));
    x.want[2] = id_of(&m, path_checkpoint, NFRAMES(path_checkpoint));
    if (m.ncall_tree != 5 || x.want[0] < 0 || x.want[1] < 0 || x.want[2] < 0)
        x.exact = false;
    int64_t *ids = malloc((t.n ? t.n : 1) * sizeof *ids);
    if (!ids)
        sim_die("out of memory");
    for (size_t i = 0; i < t.n; i++)
        ids[i] = t.nodes[i].id;
    down(&x, 0, span, ids, t.n);
    free(ids);
    free(t.nodes);
    free(m.call_tree);
    *lead_recv = x.lead_recv;
    *exact = x.exact;
}
