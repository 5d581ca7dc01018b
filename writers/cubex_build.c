/* profile.cubex's trees and values, built from the model (cubex_build.h). */
#include "cubex_build.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "cubex_callsites.h"
#include "hash_index.h"
#include "mpi_names.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t cp_cube_sites_cnode(const cp_cube_sites *sc, int64_t key)
{
    const int64_t *k = sc->n ? bsearch(&key, sc->key, sc->n, sizeof *sc->key, cmp_i64) : NULL;
    return k ? sc->cnode[k - sc->key] : -1;
}

void cp_cube_sites_free(cp_cube_sites *sc)
{
    free(sc->key);
    free(sc->cnode);
    memset(sc, 0, sizeof *sc);
}

static const char *role_of(int k)
{
    switch (cp_wait_family(cp_collective_names[k])) {
    case CP_FAMILY_BARRIER: return "barrier";
    case CP_FAMILY_ONE_TO_N: return "coll_one2all";
    case CP_FAMILY_N_TO_ONE: return "coll_all2one";
    case CP_FAMILY_NXN: return "coll_all2all";
    default: return "coll_other";
    }
}

static int64_t add_metric(cp_cube *c, const char *parent, const char *uniq, const char *disp,
                          cp_cube_dtype dt, const char *uom, const char *descr)
{
    cp_cube_metric m;
    memset(&m, 0, sizeof m);
    snprintf(m.parent, sizeof m.parent, "%s", parent);
    snprintf(m.uniq_name, sizeof m.uniq_name, "%s", uniq);
    snprintf(m.disp_name, sizeof m.disp_name, "%s", disp);
    m.dtype = dt;
    snprintf(m.uom, sizeof m.uom, "%s", uom);
    snprintf(m.descr, sizeof m.descr, "%s", descr);
    return cp_cube_add_metric(c, &m);
}

static int64_t add_region(cp_cube *c, const char *name, const char *mod, const char *paradigm,
                          const char *role, const char *descr)
{
    cp_cube_region r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.mangled_name, sizeof r.mangled_name, "%s", name);
    snprintf(r.mod, sizeof r.mod, "%s", mod);
    r.begin = r.end = -1;
    snprintf(r.paradigm, sizeof r.paradigm, "%s", paradigm);
    snprintf(r.role, sizeof r.role, "%s", role);
    snprintf(r.descr, sizeof r.descr, "%s", descr);
    return cp_cube_add_region(c, &r);
}

/* Hosts of the system tree, by node index. */
static int add_hosts(const cp_cube_job *j, cp_cube *c)
{
    for (uint32_t n = 0; n < j->hosts->nnodes; n++)
        if (cp_cube_add_host(c, j->hosts->name[n] ? j->hosts->name[n] : "unknown") < 0)
            return -1;
    return 0;
}

/* The job's sites, already distinct and ascending. */
static int distinct_sites(const cp_cube_job *j, cp_cube_sites *sc)
{
    sc->key = malloc((j->nkeys ? j->nkeys : 1) * sizeof *sc->key);
    sc->cnode = malloc((j->nkeys ? j->nkeys : 1) * sizeof *sc->cnode);
    if (!sc->key || !sc->cnode)
        return -1;
    memcpy(sc->key, j->keys, j->nkeys * sizeof *sc->key);
    sc->n = j->nkeys;
    return 0;
}

/* A region per distinct function (module and name) of the call tree. */
static int64_t frame_region(cp_cube *c, const cp_callsite_node *n)
{
    char name[256];
    if (n->function[0])
        snprintf(name, sizeof name, "%s", n->function);
    else
        snprintf(name, sizeof name, "0x%" PRIx64, n->address);
    for (size_t i = 0; i < c->nregions; i++)
        if (!strcmp(c->regions[i].name, name) && !strcmp(c->regions[i].mod, n->module))
            return (int64_t)i;
    return add_region(c, name, n->module, "user", "function", "");
}

/* Siblings of one function are one node: (parent handle, region) -> the
 * handle of the first frame that made it. */
typedef struct frame_nodes {
    cp_index ix;
    const int64_t *parent, *region, *handle; /* by manifest node */
    int64_t want_parent, want_region;
} frame_nodes;

static bool same_frame(const void *ctx, uint32_t id)
{
    const frame_nodes *f = ctx;
    return f->parent[id] == f->want_parent && f->region[id] == f->want_region;
}

/* The cnode handle of manifest node i: its function's node under its
 * caller's, made on first sight.  -1 when out of memory. */
static int64_t frame_node(cp_cube *c, frame_nodes *f, size_t i)
{
    uint64_t h = cp_hash_mix(cp_hash_mix(0, (uint64_t)f->parent[i]), (uint64_t)f->region[i]);
    f->want_parent = f->parent[i];
    f->want_region = f->region[i];
    uint32_t k = cp_index_find(&f->ix, h, same_frame, f);
    if (k != CP_INDEX_EMPTY)
        return f->handle[k];
    int64_t nh = cp_cube_tree_add(c, f->parent[i], f->region[i], -1, "");
    return nh < 0 || cp_index_put(&f->ix, h, (uint32_t)i) ? -1 : nh;
}

/* Call tree: root (the program) -> one node per function on the job's call
 * paths (a prefix tree: a function calling MPI from several lines is one
 * node) -> below it one node per call site and MPI function (collective and
 * form) called there; calls without a path hang from the root.  Which call
 * site each MPI node stands for goes into the file's "collprof call sites"
 * attributes (cubex_callsites.h).  Nodes are added in any order; the
 * builder numbers them depth-first. */
static int build_tree(const cp_cube_job *j, cp_cube *c, cp_cube_sites *sc, int64_t *root)
{
    int64_t program = add_region(c, j->program, "", "user", "function",
                                 "The application");
    size_t nt = j->ncall_tree, nh = 1 + 3 * nt + sc->n;
    int64_t *handles = malloc(nh * sizeof *handles), *ids = malloc(nh * sizeof *ids);
    int64_t *sites = malloc((sc->n ? sc->n : 1) * sizeof *sites);
    frame_nodes f;
    memset(&f, 0, sizeof f);
    int rc = -1;
    if (!handles || !ids || !sites || program < 0 || nt >= CP_INDEX_EMPTY)
        goto out;
    int64_t root_h = cp_cube_tree_add(c, -1, program, -1, "");
    int64_t *frame_h = handles + 1, *fparent = frame_h + nt, *fregion = fparent + nt;
    f.parent = fparent;
    f.region = fregion;
    f.handle = frame_h;
    for (size_t i = 0; i < nt; i++) {
        const cp_callsite_node *n = &j->call_tree[i];
        fparent[i] = n->parent < 0 ? root_h : frame_h[n->parent];
        fregion[i] = frame_region(c, n);
        if (fregion[i] < 0 || (frame_h[i] = frame_node(c, &f, i)) < 0)
            goto out;
    }
    /* One region per MPI function called (a collective in one of its
     * forms), in collprof's order of collectives, then of forms. */
    bool used[CP_NCOLLECTIVES][CP_NFORMS];
    memset(used, 0, sizeof used);
    for (size_t i = 0; i < sc->n; i++)
        if (cp_site_key_coll(sc->key[i]) < CP_NCOLLECTIVES &&
            cp_site_key_form(sc->key[i]) < CP_NFORMS)
            used[cp_site_key_coll(sc->key[i])][cp_site_key_form(sc->key[i])] = true;
    int64_t coll_region[CP_NCOLLECTIVES][CP_NFORMS];
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        for (int form = 0; form < CP_NFORMS; form++) {
            coll_region[k][form] = -1;
            if (!used[k][form])
                continue;
            char fn[64], name[72];
            cp_mpi_function_name(cp_collective_names[k], form, fn, sizeof fn);
            /* MPIX_..._init where the library has only those (MPI 3.1). */
            bool ext = (form & ~CP_FORM_LARGE) == CP_FORM_PERSISTENT && j->persistent_prefix;
            snprintf(name, sizeof name, "%s%s", ext ? j->persistent_prefix : "MPI_", fn + 4);
            if ((coll_region[k][form] =
                     add_region(c, name, "MPI", "mpi", role_of(k),
                                form == CP_FORM_ANY ? "MPI collective (all forms)"
                                                    : "MPI collective")) < 0)
                goto out;
        }
    for (size_t i = 0; i < sc->n; i++) {
        uint32_t k = cp_site_key_coll(sc->key[i]), form = cp_site_key_form(sc->key[i]);
        uint32_t path = cp_site_key_path(sc->key[i]);
        int64_t parent = path < nt ? frame_h[path] : root_h;
        /* The call's file and line, as the run resolved them (the builds
         * that ran), when it could. */
        const cp_callsite_node *at = path < nt && j->call_tree[path].line > 0
                                         ? &j->call_tree[path]
                                         : NULL;
        if (k >= CP_NCOLLECTIVES || form >= CP_NFORMS || coll_region[k][form] < 0 ||
            (sc->cnode[i] = cp_cube_tree_add(c, parent, coll_region[k][form],
                                             at ? at->line : -1, at ? at->file : "")) < 0)
            goto out;
    }
    if (cp_cube_tree_finish_meta(c, ids)) /* the values come row by row */
        goto out;
    *root = ids[root_h];
    /* (cnode, call site) pairs, in path order (which merged functions
     * interleave in the tree): the attribute lists them by cnode. */
    int64_t *cn = sites, *path = handles; /* reused: the tree is numbered */
    size_t ns = 0;
    for (size_t i = 0; i < sc->n; i++) {
        sc->cnode[i] = ids[sc->cnode[i]];
        if (cp_site_key_path(sc->key[i]) < nt) {
            cn[ns] = sc->cnode[i];
            path[ns++] = cp_site_key_path(sc->key[i]);
        }
    }
    rc = cp_cube_put_callsites_any_order(c, cn, path, ns);
out:
    cp_index_free(&f.ix);
    free(handles);
    free(ids);
    free(sites);
    return rc;
}

/* Where wait-state pattern p sits in the metric tree: under the collective
 * time it is part of, or, in barrier mode, the waiting before a call (not
 * a barrier's), under collprof's barrier (late_arrival), where it happens. */
static int wait_parent(int p, bool barrier)
{
    if (p == CP_BARRIER_WAIT || p == CP_BARRIER_COMPLETION)
        return CP_CM_SYNC;
    if (barrier && p != CP_NXN_COMPLETION)
        return CP_CM_LATE;
    return CP_CM_COLL;
}

/* The wait-state metrics that sit under parent (one of CP_CM_COLL, CP_CM_SYNC,
 * CP_CM_LATE), as its children. */
static void add_waits(cp_cube *c, int64_t metric[], bool barrier, int parent, const char *name,
                      bool waits)
{
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        if (waits && wait_parent(p, barrier) == parent)
            metric[CP_CM_WAIT0 + p] = add_metric(c, name, cp_wait_metrics[p].uniq_name,
                                             cp_wait_metrics[p].disp_name, CP_CUBE_DOUBLE, "sec",
                                             cp_wait_metrics[p].descr);
}

/* ------------------------------------------------------- every rank's column */

static void col_u64(cp_cube_column *k, int64_t m, size_t cn, uint64_t v)
{
    if (m >= 0 && (size_t)m < k->nmetrics && cn < k->ncnodes &&
        k->metrics[m].dtype == CP_CUBE_UINT64)
        k->raw[(size_t)m * k->ncnodes + cn] += v;
}

static void col_double(cp_cube_column *k, int64_t m, size_t cn, double v)
{
    if (m < 0 || (size_t)m >= k->nmetrics || cn >= k->ncnodes ||
        k->metrics[m].dtype != CP_CUBE_DOUBLE)
        return;
    uint64_t *at = &k->raw[(size_t)m * k->ncnodes + cn];
    double d;
    memcpy(&d, at, sizeof d);
    d += v;
    memcpy(at, &d, sizeof d);
}

/* One site's times, inclusive along the metric tree as Cube stores them:
 * Time and MPI hold the call's time plus collprof's barrier before it
 * (late arrival, barrier mode), collective communication or synchronization
 * the call's time, late arrival collprof's barrier, each wait state what was
 * measured.  What Cube shows as a parent's own (exclusive) value is then
 * never below 0: a wait before the call (entry to the last entry) ends
 * before the call starts in barrier mode and within it otherwise, and
 * completion (after the first exit) is within the call. */
static void add_times(cp_cube_column *k, const int64_t metric[], uint32_t coll, size_t cn,
                      const cp_coll_sums *s)
{
    bool is_barrier = coll < CP_NCOLLECTIVES &&
                      cp_wait_family(cp_collective_names[coll]) == CP_FAMILY_BARRIER;
    double v[CP_CM_WAIT0] = {0};
    v[CP_CM_TIME] = v[CP_CM_MPI] = s->time + s->late;
    v[is_barrier ? CP_CM_SYNC : CP_CM_COLL] = s->time;
    v[CP_CM_LATE] = s->late;
    for (int m = CP_CM_TIME; m <= CP_CM_LATE; m++)
        col_double(k, metric[m], cn, v[m]);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        col_double(k, metric[CP_CM_WAIT0 + p], cn, s->wait[p]);
}

void cp_cube_build_column(cp_cube_column *k, const int64_t metric[CP_CM_SLOTS],
                          const cp_cube_sites *sc, int64_t root, const cp_site *mine,
                          size_t nmine, double wall)
{
    double outside = wall;
    col_u64(k, metric[CP_CM_VISITS], (size_t)root, 1);
    for (size_t i = 0; i < nmine; i++) {
        const cp_site *x = &mine[i];
        int64_t cn = cp_cube_sites_cnode(sc, cp_site_key(x->coll, x->form, x->path));
        if (cn < 0)
            continue;
        col_u64(k, metric[CP_CM_VISITS], (size_t)cn, x->s.visits);
        col_u64(k, metric[CP_CM_SENT], (size_t)cn, x->s.bytes_sent);
        col_u64(k, metric[CP_CM_RECV], (size_t)cn, x->s.bytes_recv);
        if (metric[CP_CM_TIME] >= 0)
            add_times(k, metric, x->coll, (size_t)cn, &x->s);
        outside -= x->s.time + x->s.late;
    }
    col_double(k, metric[CP_CM_TIME], (size_t)root, outside > 0 ? outside : 0);
}

/* ----------------------------------------------------- rank 0's metadata */

int cp_cube_build_metrics(cp_cube *c, bool timing, bool barrier, bool waits,
                          int64_t metric[CP_CM_SLOTS])
{
    for (int i = 0; i < CP_CM_SLOTS; i++)
        metric[i] = -1;
    /* The metric tree, as in Scalasca's reports (docs/formats.md): Time >
     * MPI > collective communication and synchronization > the wait states
     * in them; in barrier mode the waiting before a call happens in
     * collprof's barrier: Time > MPI > late arrival > those wait states.
     * Visits and bytes are roots of their own.  Added in pre-order. */
    metric[CP_CM_VISITS] = add_metric(c, "", "visits", "Visits", CP_CUBE_UINT64, "occ",
                                  "Number of calls recorded");
    if (timing) {
        metric[CP_CM_TIME] = add_metric(c, "", "time", "Time", CP_CUBE_DOUBLE, "sec",
                                    "Time of the run: at the root, outside the timed "
                                    "collectives; below, in them");
        metric[CP_CM_MPI] = add_metric(c, "time", "mpi", "MPI", CP_CUBE_DOUBLE, "sec",
                                   "Time in the timed MPI collectives");
        metric[CP_CM_COLL] = add_metric(c, "mpi", "mpi_collective", "Collective communication",
                                    CP_CUBE_DOUBLE, "sec",
                                    "Time in the MPI call of collectives other than barriers "
                                    "(after collprof's barrier in barrier mode)");
        add_waits(c, metric, barrier, CP_CM_COLL, "mpi_collective", waits);
        metric[CP_CM_SYNC] = add_metric(c, "mpi", "mpi_sync_collective", "Collective synchronization",
                                    CP_CUBE_DOUBLE, "sec", "Time in MPI_Barrier");
        add_waits(c, metric, barrier, CP_CM_SYNC, "mpi_sync_collective", waits);
        if (barrier) {
            metric[CP_CM_LATE] = add_metric(c, "mpi", "late_arrival", "Late arrival (barrier mode)",
                                        CP_CUBE_DOUBLE, "sec",
                                        "Time in the barrier collprof adds before each blocking "
                                        "call in barrier mode: waiting for the other ranks");
            add_waits(c, metric, barrier, CP_CM_LATE, "late_arrival", waits);
        }
    }
    metric[CP_CM_SENT] = add_metric(c, "", "bytes_sent", "Bytes sent", CP_CUBE_UINT64, "bytes",
                                "Bytes the rank's send counts ask to move");
    metric[CP_CM_RECV] = add_metric(c, "", "bytes_received", "Bytes received", CP_CUBE_UINT64, "bytes",
                                "Bytes the rank's receive counts ask to move");
    size_t wanted = 3 + (timing ? 4 + (waits ? CP_NWAIT_PATTERNS : 0) : 0) + (timing && barrier);
    return c->nmetrics == wanted ? 0 : -1;
}

int cp_cube_build_meta(const cp_cube_job *j, cp_cube *c, int64_t metric[CP_CM_SLOTS],
                       cp_cube_sites *sc, int64_t *root)
{
    if (cp_cube_init(c, (size_t)j->hosts->nranks) || add_hosts(j, c))
        return -1;
    snprintf(c->machine, sizeof c->machine, "%s", j->machine ? j->machine : "");
    for (size_t i = 0; i < j->nattrs; i++)
        if (cp_cube_add_attr(c, j->attrs[i][0], j->attrs[i][1]))
            return -1;
    if (cp_cube_build_metrics(c, j->timing, j->barrier, !j->no_waits, metric) ||
        distinct_sites(j, sc) ||
        build_tree(j, c, sc, root))
        return -1;
    for (int64_t i = 0; i < j->hosts->nranks; i++)
        c->location_host[i] = j->hosts->node[i];
    return 0;
}
