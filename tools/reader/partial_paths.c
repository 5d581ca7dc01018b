/*
 * The call paths of ranks' partial profiles, merged (partials.c calls it):
 * each rank numbered its own call tree (its manifest's call_tree, its
 * count files' Callsites, its profile.cubex), as finalize numbers the
 * job's.  Here the trees become one, a node per (caller, module, address,
 * function) as finalize's merge makes it, numbered depth-first, children
 * in rank order of first sight; every rank's Callsites are renamed to it;
 * and the ranks' profile.cubex files (one location each) become one Cube
 * profile of the job in memory, its cnodes merged by (caller, region, call
 * site) and each rank's values in its own location, for `callsites`, the
 * findings and `collprof complete` (which writes it out for Cube).  A rank
 * without a profile.cubex has an empty location, said as damage.
 */
#include <inttypes.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "cubex_build.h"
#include "cubex_callsites.h"
#include "mpi_names.h"
#include "file_names.h"
#include "reader_internal.h"
#include "stat.h"
#include "wait_stats.h"

/* ------------------------------------------------------------ call trees */

/* The merged tree as it grows: nodes in order of first sight, each with
 * its children in that order. */
typedef struct mtree {
    cp_callsite_node *v;
    int64_t *first_child, *next_sibling, *last_child, *id;
    size_t n, cap;
    int64_t first_root, last_root;
} mtree;

static int grow(mtree *t)
{
    if (t->n < t->cap)
        return 0;
    size_t cap = t->cap ? 2 * t->cap : 64;
    cp_callsite_node *v = realloc(t->v, cap * sizeof *v);
    if (v)
        t->v = v;
    int64_t **arrays[] = {&t->first_child, &t->next_sibling, &t->last_child, &t->id};
    for (size_t i = 0; v && i < sizeof arrays / sizeof *arrays; i++) {
        int64_t *a = realloc(*arrays[i], cap * sizeof *a);
        if (!a)
            return -1;
        *arrays[i] = a;
    }
    if (!v)
        return -1;
    t->cap = cap;
    return 0;
}

/* The node of frame x below parent (-1: outermost), made when new. */
static int64_t child(mtree *t, int64_t parent, const cp_callsite_node *x)
{
    for (int64_t c = parent < 0 ? t->first_root : t->first_child[parent]; c >= 0;
         c = t->next_sibling[c])
        if (t->v[c].address == x->address && !strcmp(t->v[c].module, x->module) &&
            !strcmp(t->v[c].function, x->function))
            return c;
    if (grow(t))
        return -1;
    int64_t i = (int64_t)t->n++;
    t->v[i] = *x;
    t->v[i].parent = parent;
    t->first_child[i] = t->next_sibling[i] = t->last_child[i] = -1;
    int64_t *last = parent < 0 ? &t->last_root : &t->last_child[parent];
    if (*last >= 0)
        t->next_sibling[*last] = i;
    else if (parent < 0)
        t->first_root = i;
    else
        t->first_child[parent] = i;
    *last = i;
    return i;
}

/* Depth-first pre-order numbering into m's call tree (parent < index). */
static int number(mtree *t, cp_manifest *m)
{
    m->call_tree = calloc(t->n ? t->n : 1, sizeof *m->call_tree);
    int64_t *stack = malloc((t->n ? t->n : 1) * sizeof *stack), top = 0, next = 0;
    if (!m->call_tree || !stack) {
        free(stack);
        return -1;
    }
    int64_t c = t->first_root;
    while (c >= 0 || top > 0) {
        if (c < 0)
            c = t->next_sibling[stack[--top]];
        if (c < 0)
            continue;
        t->id[c] = next++;
        m->call_tree[t->id[c]] = t->v[c];
        m->call_tree[t->id[c]].parent = t->v[c].parent < 0 ? -1 : t->id[t->v[c].parent];
        stack[top++] = c;
        c = t->first_child[c];
    }
    m->ncall_tree = t->n;
    free(stack);
    return 0;
}

/* A rank's Callsites as the job's ids. */
static int rename_blocks(cp_profile *part, const int64_t *map, size_t n)
{
    for (size_t f = 0; f < part->nfiles; f++)
        for (size_t b = 0; b < part->files[f].nblocks; b++) {
            cp_ranges *s = &part->files[f].blocks[b].callsites, to = {0};
            for (int64_t i = 0, k = cp_ranges_count(s); i < k; i++) {
                int64_t v = cp_ranges_nth(s, i);
                if (v >= 0 && (size_t)v < n && cp_ranges_add(&to, map[v])) {
                    cp_ranges_free(&to);
                    return -1;
                }
            }
            cp_ranges_free(s);
            *s = to;
        }
    return 0;
}

int cp_reader_merge_partial_trees(cp_profile *p, cp_profile *const *parts, size_t nparts,
                                  int64_t **maps)
{
    mtree t = {.first_root = -1, .last_root = -1};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nparts; i++) {
        const cp_manifest *m = &parts[i]->manifest;
        maps[i] = malloc((m->ncall_tree ? m->ncall_tree : 1) * sizeof *maps[i]);
        for (size_t k = 0; maps[i] && k < m->ncall_tree; k++) {
            int64_t up = m->call_tree[k].parent;
            /* parent < index: the parent's node is known */
            maps[i][k] = child(&t, up >= 0 && (size_t)up < k ? maps[i][up] : -1, &m->call_tree[k]);
            if (maps[i][k] < 0) {
                rc = -1;
                break;
            }
        }
        rc = rc || !maps[i] ? -1 : 0;
        for (size_t k = 0; rc == 0 && k < m->nmodules; k++) {
            bool seen = false;
            for (size_t j = 0; j < p->manifest.nmodules && !seen; j++)
                seen = !strcmp(p->manifest.modules[j].key, m->modules[k].key);
            if (!seen && cp_kv_add(&p->manifest.modules, &p->manifest.nmodules,
                                   m->modules[k].key, m->modules[k].value))
                rc = -1;
        }
    }
    if (rc == 0 && t.n)
        rc = number(&t, &p->manifest);
    for (size_t i = 0; rc == 0 && i < nparts; i++) {
        size_t n = parts[i]->manifest.ncall_tree;
        for (size_t k = 0; k < n; k++)
            maps[i][k] = t.id[maps[i][k]];
        rc = rename_blocks(parts[i], maps[i], n);
    }
    free(t.v);
    free(t.first_child);
    free(t.next_sibling);
    free(t.last_child);
    free(t.id);
    return rc;
}

/* ------------------------------------------------------------ Cube files */

/* The merged cube as it grows: its cnodes' (parent handle, region, call
 * site), searched linearly among a parent's children (a call tree has tens
 * of nodes, not thousands). */
typedef struct mcube {
    cp_cube c;
    struct mnode {
        int64_t parent, region, site;
    } *nodes;
    size_t n, cap;
} mcube;

static int64_t region_of(cp_cube *c, const cp_cube_region *r)
{
    for (size_t i = 0; i < c->nregions; i++)
        if (!strcmp(c->regions[i].name, r->name) && !strcmp(c->regions[i].mod, r->mod) &&
            !strcmp(c->regions[i].paradigm, r->paradigm))
            return (int64_t)i;
    return cp_cube_add_region(c, r);
}

static int64_t cnode_of(mcube *x, int64_t parent, int64_t region, int64_t site,
                        const cp_cube_cnode *from)
{
    for (size_t i = 0; i < x->n; i++)
        if (x->nodes[i].parent == parent && x->nodes[i].region == region &&
            x->nodes[i].site == site)
            return (int64_t)i;
    if (x->n == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        struct mnode *v = realloc(x->nodes, cap * sizeof *v);
        if (!v)
            return -1;
        x->nodes = v;
        x->cap = cap;
    }
    int64_t h = cp_cube_tree_add(&x->c, parent, region, from->line, from->mod);
    if (h != (int64_t)x->n)
        return -1;
    x->nodes[x->n++] = (struct mnode){parent, region, site};
    return h;
}

/* The metrics of one rank's file are the first's (the same settings). */
static bool same_metrics(const cp_cube *a, const cp_cube *b)
{
    if (a->nmetrics != b->nmetrics)
        return false;
    for (size_t m = 0; m < a->nmetrics; m++)
        if (strcmp(a->metrics[m].uniq_name, b->metrics[m].uniq_name) ||
            a->metrics[m].dtype != b->metrics[m].dtype)
            return false;
    return true;
}

/* One rank's cnodes into the merged tree: handle[i] for its cnode i. */
static int add_tree(mcube *x, const cp_profile *part, const cp_cube *c, const int64_t *map,
                    int64_t *handle, cp_error *err)
{
    int64_t *site_of = cp_cube_callsite_of(part, c, err);
    if (!site_of)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->ncnodes; i++) {
        const cp_cube_cnode *n = &c->cnodes[i];
        int64_t region = region_of(&x->c, &c->regions[n->region]);
        int64_t site = site_of[i] >= 0 ? map[site_of[i]] : -1;
        /* depth-first pre-order: the parent's handle is known */
        int64_t parent = n->parent >= 0 && (size_t)n->parent < i ? handle[n->parent] : -1;
        if (region < 0 || (handle[i] = cnode_of(x, parent, region, site, n)) < 0)
            rc = cp_error_set(err, "out of memory");
    }
    free(site_of);
    return rc;
}

/* One rank's values at its location, metric by name (the job's file has
 * the wait states too). */
static void add_values(cp_cube *to, const cp_cube *c, const int64_t *handle, const int64_t *id,
                       size_t loc)
{
    for (size_t m = 0; m < c->nmetrics; m++) {
        int64_t tm = cp_cube_find_metric(to, c->metrics[m].uniq_name);
        if (tm < 0 || to->metrics[tm].dtype != c->metrics[m].dtype)
            continue;
        for (size_t i = 0; i < c->ncnodes; i++) {
            size_t at = (size_t)id[handle[i]];
            if (c->metrics[m].dtype == CP_CUBE_UINT64)
                cp_cube_add_u64(to, (size_t)tm, at, loc, cp_cube_get_u64(c, m, i, 0));
            else
                cp_cube_add_double(to, (size_t)tm, at, loc, cp_cube_get_double(c, m, i, 0));
        }
    }
}

/* The MPI cnode of a call of `collective` in `form` from call site `site`
 * (-1: no path, below the root), or -1. */
static int64_t mpi_cnode(const mcube *x, const char *collective, uint32_t form, int64_t site)
{
    char fn[64];
    cp_mpi_function_name(collective, (int)form, fn, sizeof fn);
    for (size_t h = 0; h < x->n; h++) {
        const char *name = x->c.regions[x->nodes[h].region].name;
        bool same = !strcmp(name, fn) || (!strncmp(name, "MPIX_", 5) && !strcmp(name + 5, fn + 4));
        if (same && x->nodes[h].site == site && (site >= 0 || x->nodes[h].parent == 0))
            return (int64_t)h;
    }
    return -1;
}

/* An instance's site (an index of ws->sites) as the joined Cube's cnode. */
typedef struct stat_ctx {
    const mcube *x;
    const cp_reader_wait_stats *ws;
    const int64_t *id;
} stat_ctx;

static int64_t event_cnode(const void *vctx, int64_t site)
{
    const stat_ctx *k = vctx;
    const cp_reader_event_site *at = &k->ws->sites[site];
    int64_t h = mpi_cnode(k->x, at->collective, at->form,
                          at->path == UINT32_MAX ? -1 : (int64_t)at->path);
    return h < 0 ? -1 : k->id[h];
}

/* The wait states' statistics as finalize writes them into profile.stat,
 * in the layout COLLPROF_STAT_LAYOUT chose. */
static int build_stat(const mcube *x, const cp_profile *p, const cp_reader_wait_stats *ws,
                      const int64_t *id, cp_stat_file *st)
{
    const char *layout = cp_reader_setting(p, "COLLPROF_STAT_LAYOUT");
    int64_t metric_id[CP_NWAIT_PATTERNS];
    for (int k = 0; k < CP_NWAIT_PATTERNS; k++)
        metric_id[k] = cp_cube_find_metric(&x->c, cp_wait_metrics[k].uniq_name);
    stat_ctx k = {x, ws, id};
    return cp_wstat_file(st, layout && !strcasecmp(layout, "documented"), ws->stat, ws->top,
                         metric_id, event_cnode, &k);
}

/* The waiting per rank and call site, found in the ranks' timed calls
 * (their files hold none: it needs every member's calls), and the wait
 * states' statistics (p's profile.stat).  Sites the files do not have are
 * counted into *lost. */
static int add_site_waits(mcube *x, cp_profile *p, const int64_t *id, size_t *lost)
{
    cp_timings t;
    cp_reader_wait_stats ws;
    cp_error e;
    if (cp_reader_timings_stats(p, &t, &ws, &e))
        return 0; /* no timings: said by summary and timings themselves */
    for (size_t i = 0; i < t.nsite_waits; i++) {
        const cp_site_wait *w = &t.site_waits[i];
        int64_t h = mpi_cnode(x, t.rows[w->row].collective, w->form,
                              w->path == UINT32_MAX ? -1 : (int64_t)w->path);
        int64_t m = cp_cube_find_metric(&x->c, cp_reader_pattern_name(w->pattern));
        if (h < 0 || m < 0 || w->rank < 0 || (size_t)w->rank >= x->c.nlocations)
            (*lost)++;
        else
            cp_cube_add_double(&x->c, (size_t)m, (size_t)id[h], (size_t)w->rank, w->wait);
    }
    cp_stat_file st;
    int rc = build_stat(x, p, &ws, id, &st) == 0 && cp_reader_cache_set_stat(p, &st) == 0 ? 0 : -1;
    cp_stat_file_free(&st);
    cp_reader_wait_stats_free(&ws);
    cp_timings_free(&t);
    return rc;
}

/* Hosts as the ranks' files name them; "unknown" where a rank left none. */
static int add_hosts(cp_cube *to, const cp_cube *const *cubes, const int64_t *ranks, size_t n)
{
    int64_t unknown = -1;
    for (size_t l = 0; l < to->nlocations; l++)
        to->location_host[l] = -1;
    for (size_t i = 0; i < n; i++) {
        if (!cubes[i] || ranks[i] < 0 || (size_t)ranks[i] >= to->nlocations)
            continue;
        const char *name = cubes[i]->nhosts ? cubes[i]->hosts[cubes[i]->location_host[0]].name
                                            : "unknown";
        int64_t h = -1;
        for (size_t k = 0; k < to->nhosts && h < 0; k++)
            if (!strcmp(to->hosts[k].name, name))
                h = (int64_t)k;
        if (h < 0 && (h = cp_cube_add_host(to, name)) < 0)
            return -1;
        to->location_host[ranks[i]] = h;
    }
    for (size_t l = 0; l < to->nlocations; l++)
        if (to->location_host[l] < 0) {
            if (unknown < 0 && (unknown = cp_cube_add_host(to, "unknown (no partial profile)")) < 0)
                return -1;
            to->location_host[l] = unknown;
        }
    return 0;
}

/* The attributes of the first rank's file but its rank's and the call
 * sites' (made again for the merged tree), and what the profile is. */
static int add_attrs(cp_cube *to, const cp_cube *c, const char *what)
{
    for (size_t i = 0; i < c->nattrs; i++)
        if (strcmp(c->attrs[i].key, "partial profile of rank") &&
            strncmp(c->attrs[i].key, CP_CUBE_CALLSITES_KEY, strlen(CP_CUBE_CALLSITES_KEY)) &&
            cp_cube_add_attr(to, c->attrs[i].key, c->attrs[i].value))
            return -1;
    return cp_cube_add_attr(to, "partial profile", what);
}

/* (cnode, call site) pairs of the merged tree. */
static int add_callsites(mcube *x, const int64_t *id)
{
    int64_t *cn = malloc((x->n ? x->n : 1) * sizeof *cn);
    int64_t *site = malloc((x->n ? x->n : 1) * sizeof *site);
    size_t k = 0;
    for (size_t h = 0; cn && site && h < x->n; h++)
        if (x->nodes[h].site >= 0) {
            cn[k] = id[h];
            site[k++] = x->nodes[h].site;
        }
    int rc = cn && site ? cp_cube_put_callsites_any_order(&x->c, cn, site, k) : -1;
    free(cn);
    free(site);
    return rc;
}

int cp_reader_merge_partial_cubes(cp_profile *p, cp_profile *const *parts, const int64_t *ranks,
                                  size_t nparts, int64_t *const *maps)
{
    mcube x;
    memset(&x, 0, sizeof x);
    cp_cube *cubes = calloc(nparts ? nparts : 1, sizeof *cubes);
    const cp_cube **have = calloc(nparts ? nparts : 1, sizeof *have);
    int64_t **handles = calloc(nparts ? nparts : 1, sizeof *handles), *id = NULL;
    int rc = cubes && have && handles ? 0 : -1;
    const cp_cube *first = NULL;
    for (size_t i = 0; rc == 0 && i < nparts; i++) {
        bool listed = false; /* written (else its manifest's missing says why) */
        for (size_t k = 0; k < parts[i]->manifest.nfiles && !listed; k++)
            listed = !strcmp(parts[i]->manifest.files[k], CP_FILE_CUBE);
        if (!listed)
            continue;
        char path[sizeof parts[i]->dir + 32], name[64];
        snprintf(path, sizeof path, "%s/" CP_FILE_CUBE, parts[i]->dir);
        snprintf(name, sizeof name, CP_FILE_PARTIAL "%" PRId64 "/" CP_FILE_CUBE, ranks[i]);
        cp_error e;
        if (cp_cubex_read(path, &cubes[i], &e)) {
            cp_reader_damage(p, name, "%s: this rank's calls are missing from the call sites",
                             e.msg);
            continue;
        }
        if (cubes[i].nlocations != 1 || cubes[i].first_rank != ranks[i]) {
            cp_reader_damage(p, name, "holds %zu locations from rank %" PRId64 ", expected rank %"
                             PRId64 "'s alone: left out of the call sites",
                             cubes[i].nlocations, cubes[i].first_rank, ranks[i]);
            continue;
        }
        if (first && !same_metrics(first, &cubes[i])) {
            cp_reader_damage(p, name, "its metrics are not those of the other ranks' files: "
                                      "left out of the call sites");
            continue;
        }
        /* The metrics as finalize makes them, the wait states too. */
        bool timing = cp_cube_find_metric(&cubes[i], "time") >= 0,
             barrier = cp_cube_find_metric(&cubes[i], "late_arrival") >= 0;
        int64_t metric[CP_CM_SLOTS];
        if (!first && (cp_cube_init(&x.c, (size_t)p->manifest.world_size) ||
                       add_attrs(&x.c, &cubes[i], p->manifest.partial_reason) ||
                       cp_cube_build_metrics(&x.c, timing, barrier, timing, metric)))
            rc = -1;
        if (rc == 0 && !(handles[i] = malloc((cubes[i].ncnodes ? cubes[i].ncnodes : 1) *
                                             sizeof *handles[i])))
            rc = -1;
        cp_error te;
        if (rc == 0 && add_tree(&x, parts[i], &cubes[i], maps[i], handles[i], &te)) {
            cp_reader_damage(p, name, "%s: this rank's calls are missing from the call sites",
                             te.msg);
            free(handles[i]);
            handles[i] = NULL;
            continue;
        }
        snprintf(x.c.machine, sizeof x.c.machine, "%s", cubes[i].machine);
        have[i] = &cubes[i];
        first = first ? first : &cubes[i];
    }
    if (rc == 0 && first) {
        id = malloc((x.n ? x.n : 1) * sizeof *id);
        rc = id && add_hosts(&x.c, have, ranks, nparts) == 0 && cp_cube_tree_finish(&x.c, id) == 0
                 ? 0
                 : -1;
        for (size_t i = 0; rc == 0 && i < nparts; i++)
            if (have[i])
                add_values(&x.c, have[i], handles[i], id, (size_t)ranks[i]);
        size_t lost = 0;
        if (rc == 0 && cp_cube_find_metric(&x.c, "time") >= 0)
            rc = add_site_waits(&x, p, id, &lost);
        if (lost)
            cp_reader_damage(p, CP_FILE_TIMINGS, "the waiting of %zu (rank, call site, pattern)s "
                                                 "is at call sites the ranks' " CP_FILE_CUBE
                                                 " files do not have: not in the call sites",
                             lost);
        if (rc == 0)
            rc = add_callsites(&x, id);
        if (rc == 0)
            rc = cp_reader_cache_set_cube(p, &x.c);
    }
    for (size_t i = 0; cubes && i < nparts; i++) {
        cp_cube_free(&cubes[i]);
        if (handles)
            free(handles[i]);
    }
    if (rc || !first)
        cp_cube_free(&x.c);
    free(x.nodes);
    free(id);
    free(cubes);
    free(have);
    free(handles);
    return rc;
}

int cp_reader_place_own_cube(cp_profile *p)
{
    int64_t rank = cp_reader_own_partial_rank(p);
    size_t n = p->manifest.ncall_tree;
    if (rank < 0 || rank >= p->manifest.world_size)
        return 0;
    int64_t *same = malloc((n ? n : 1) * sizeof *same); /* its own ids are the profile's */
    for (size_t i = 0; same && i < n; i++)
        same[i] = (int64_t)i;
    int rc = same ? cp_reader_merge_partial_cubes(p, &p, &rank, 1, &same) : -1;
    free(same);
    return rc;
}
