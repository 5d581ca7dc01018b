/*
 * Finalize, step 5 (world rank 0): the Cube profile and the wait-state
 * statistics from what every rank sent (finalize_timing.c).
 *
 * Call tree: root (the program) -> one node per collective called.  The
 * builder takes nodes in any order and numbers them depth-first, so call
 * paths can be put in between later.  Metrics are exclusive: the root holds
 * each rank's time outside the timed collectives.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof_config.h"
#include "cubex.h"
#include "cubex_callsites.h"
#include "hash_index.h"
#include "finalize_timing.h"
#include "mpi_names.h"
#include "runtime.h"
#include "stat.h"
#include "transport.h"

enum { M_VISITS, M_TIME, M_MPI, M_COLL, M_SYNC, M_LATE, M_SENT, M_RECV, M_WAIT0 };

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
static int add_hosts(const cp_run_times *rt, cp_cube *c)
{
    uint32_t nnodes = 0;
    for (int64_t r = 0; r < rt->nranks; r++)
        if (rt->loc[r].node + 1 > nnodes)
            nnodes = rt->loc[r].node + 1;
    for (uint32_t n = 0; n < nnodes; n++) {
        const char *name = "unknown";
        for (int64_t r = 0; r < rt->nranks; r++)
            if (rt->loc[r].node == n) {
                name = rt->loc[r].hostname;
                break;
            }
        if (cp_cube_add_host(c, name) < 0)
            return -1;
    }
    return 0;
}

/* The cnodes of the sites: one per distinct (collective, call path), in
 * the order of cp_site_key. */
typedef struct site_cnodes {
    int64_t *key;   /* sorted */
    int64_t *cnode; /* handle, then id */
    size_t n;
} site_cnodes;

static int64_t site_cnode(const site_cnodes *sc, int64_t key)
{
    const int64_t *k = bsearch(&key, sc->key, sc->n, sizeof *sc->key, cp_fin_cmp_i64);
    return k ? sc->cnode[k - sc->key] : -1;
}

/* The job's sites, already distinct and ascending (finalize_sites.c). */
static int distinct_sites(const cp_run_times *rt, site_cnodes *sc)
{
    sc->key = malloc((rt->nkeys ? rt->nkeys : 1) * sizeof *sc->key);
    sc->cnode = malloc((rt->nkeys ? rt->nkeys : 1) * sizeof *sc->cnode);
    if (!sc->key || !sc->cnode)
        return -1;
    memcpy(sc->key, rt->keys, rt->nkeys * sizeof *sc->key);
    sc->n = rt->nkeys;
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
static int build_tree(const cp_manifest *man, cp_cube *c,
                      site_cnodes *sc, int64_t *root)
{
    int64_t program = add_region(c, program_invocation_short_name, "", "user", "function",
                                 "The application");
    size_t nt = man->ncall_tree, nh = 1 + 3 * nt + sc->n;
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
        const cp_callsite_node *n = &man->call_tree[i];
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
            bool ext = (form & ~CP_FORM_LARGE) == CP_FORM_PERSISTENT &&
                       strcmp(CP_PERSISTENT_PREFIX, "MPI_") != 0;
            snprintf(name, sizeof name, "%s%s", ext ? CP_PERSISTENT_PREFIX : "MPI_", fn + 4);
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
        if (k >= CP_NCOLLECTIVES || form >= CP_NFORMS || coll_region[k][form] < 0 ||
            (sc->cnode[i] = cp_cube_tree_add(c, parent, coll_region[k][form], -1, "")) < 0)
            goto out;
    }
    if (cp_cube_tree_finish_meta(c, ids)) /* the values come row by row */
        goto out;
    *root = ids[root_h];
    /* (cnode, call site) pairs, cnode ids ascending as the attribute
     * lists them (the sites are in path order, which merged functions
     * interleave in the tree). */
    size_t ns = 0;
    for (size_t i = 0; i < sc->n; i++) {
        sc->cnode[i] = ids[sc->cnode[i]];
        if (cp_site_key_path(sc->key[i]) < nt)
            sites[ns++] = sc->cnode[i] << 32 | cp_site_key_path(sc->key[i]);
    }
    qsort(sites, ns, sizeof *sites, cp_fin_cmp_i64);
    int64_t *cn = ids, *path = handles; /* reused: the tree is numbered */
    for (size_t i = 0; i < ns; i++) {
        cn[i] = sites[i] >> 32;
        path[i] = sites[i] & 0xffffffff;
    }
    rc = cp_cube_put_callsites(c, cn, path, ns);
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
        return M_SYNC;
    if (barrier && p != CP_NXN_COMPLETION)
        return M_LATE;
    return M_COLL;
}

/* The wait-state metrics that sit under parent (one of M_COLL, M_SYNC,
 * M_LATE), as its children. */
static void add_waits(cp_cube *c, int64_t metric[], bool barrier, int parent, const char *name)
{
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        if (wait_parent(p, barrier) == parent)
            metric[M_WAIT0 + p] = add_metric(c, name, cp_wait_metrics[p].uniq_name,
                                             cp_wait_metrics[p].disp_name, CP_CUBE_DOUBLE, "sec",
                                             cp_wait_metrics[p].descr);
}

/* One site's times, inclusive along the metric tree as Cube stores them:
 * Time and MPI hold the call's time plus collprof's barrier before it
 * (late arrival, barrier mode), collective communication or synchronization
 * the call's time, late arrival collprof's barrier, each wait state what was
 * measured.  What Cube shows as a parent's own (exclusive) value is then
 * never below 0: a wait before the call (entry to the last entry) ends
 * before the call starts in barrier mode and within it otherwise, and
 * completion (after the first exit) is within the call. */
/* One rank's values: raw[m * ncnodes + cnode], 8 bytes as metric m's
 * dtype (a double's bits); the rank's column of every row. */
typedef struct column {
    uint64_t *raw;
    size_t nmetrics, ncnodes;
    const cp_cube_metric *metrics;
} column;

static void col_u64(column *k, int64_t m, size_t cn, uint64_t v)
{
    if (m >= 0 && (size_t)m < k->nmetrics && cn < k->ncnodes &&
        k->metrics[m].dtype == CP_CUBE_UINT64)
        k->raw[(size_t)m * k->ncnodes + cn] += v;
}

static void col_double(column *k, int64_t m, size_t cn, double v)
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
static void add_times(column *k, const int64_t metric[], uint32_t coll, size_t cn,
                      const cp_coll_sums *s)
{
    bool is_barrier = coll < CP_NCOLLECTIVES &&
                      cp_wait_family(cp_collective_names[coll]) == CP_FAMILY_BARRIER;
    double v[M_WAIT0] = {0};
    v[M_TIME] = v[M_MPI] = s->time + s->late;
    v[is_barrier ? M_SYNC : M_COLL] = s->time;
    v[M_LATE] = s->late;
    for (int m = M_TIME; m <= M_LATE; m++)
        col_double(k, metric[m], cn, v[m]);
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        col_double(k, metric[M_WAIT0 + p], cn, s->wait[p]);
}

/* The metrics, the same on every rank (they depend on the configuration
 * alone).  metric[] maps the enum above to metric ids (-1: not in this
 * profile).  Returns 0, or -1 when out of memory. */
static int add_metrics(cp_cube *c, bool timing, int64_t metric[M_WAIT0 + CP_NWAIT_PATTERNS])
{
    for (int i = 0; i < M_WAIT0 + CP_NWAIT_PATTERNS; i++)
        metric[i] = -1;
    /* The metric tree, as in Scalasca's reports (docs/formats.md): Time >
     * MPI > collective communication and synchronization > the wait states
     * in them; in barrier mode the waiting before a call happens in
     * collprof's barrier: Time > MPI > late arrival > those wait states.
     * Visits and bytes are roots of their own.  Added in pre-order. */
    bool barrier = cp_rt.cfg.timing == CP_TIMING_BARRIER;
    metric[M_VISITS] = add_metric(c, "", "visits", "Visits", CP_CUBE_UINT64, "occ",
                                  "Number of calls recorded");
    if (timing) {
        metric[M_TIME] = add_metric(c, "", "time", "Time", CP_CUBE_DOUBLE, "sec",
                                    "Time of the run: at the root, outside the timed "
                                    "collectives; below, in them");
        metric[M_MPI] = add_metric(c, "time", "mpi", "MPI", CP_CUBE_DOUBLE, "sec",
                                   "Time in the timed MPI collectives");
        metric[M_COLL] = add_metric(c, "mpi", "mpi_collective", "Collective communication",
                                    CP_CUBE_DOUBLE, "sec",
                                    "Time in the MPI call of collectives other than barriers "
                                    "(after collprof's barrier in barrier mode)");
        add_waits(c, metric, barrier, M_COLL, "mpi_collective");
        metric[M_SYNC] = add_metric(c, "mpi", "mpi_sync_collective", "Collective synchronization",
                                    CP_CUBE_DOUBLE, "sec", "Time in MPI_Barrier");
        add_waits(c, metric, barrier, M_SYNC, "mpi_sync_collective");
        if (barrier) {
            metric[M_LATE] = add_metric(c, "mpi", "late_arrival", "Late arrival (barrier mode)",
                                        CP_CUBE_DOUBLE, "sec",
                                        "Time in the barrier collprof adds before each blocking "
                                        "call in barrier mode: waiting for the other ranks");
            add_waits(c, metric, barrier, M_LATE, "late_arrival");
        }
    }
    metric[M_SENT] = add_metric(c, "", "bytes_sent", "Bytes sent", CP_CUBE_UINT64, "bytes",
                                "Bytes the rank's send counts ask to move");
    metric[M_RECV] = add_metric(c, "", "bytes_received", "Bytes received", CP_CUBE_UINT64, "bytes",
                                "Bytes the rank's receive counts ask to move");
    size_t wanted = 3 + (timing ? 4 + CP_NWAIT_PATTERNS : 0) + (timing && barrier);
    return c->nmetrics == wanted ? 0 : -1;
}

/* Rank 0: everything of profile.cubex but its values. */
static int build_meta(const cp_run_times *rt, const cp_manifest *man, cp_cube *c,
                      int64_t metric[M_WAIT0 + CP_NWAIT_PATTERNS], site_cnodes *sc,
                      int64_t *root)
{
    if (cp_cube_init(c, (size_t)rt->nranks) || add_hosts(rt, c))
        return -1;
    snprintf(c->machine, sizeof c->machine, "job %.200s", cp_rt.job);
    char aggregated[32];
    snprintf(aggregated, sizeof aggregated, "%" PRIu64, rt->naggregated);
    if (cp_cube_add_attr(c, "collprof version", COLLPROF_VERSION) ||
        cp_cube_add_attr(c, "MPI library", cp_rt.mpi_version) ||
        cp_cube_add_attr(c, "job", cp_rt.job) ||
        cp_cube_add_attr(c, "start time", cp_rt.start_iso) ||
        cp_cube_add_attr(c, "timing", cp_timing_mode_name(cp_rt.cfg.timing)) ||
        cp_cube_add_attr(c, "calls timed in aggregate only", aggregated))
        return -1;
    if (add_metrics(c, rt->timing, metric) || distinct_sites(rt, sc) ||
        build_tree(man, c, sc, root))
        return -1;
    for (int64_t i = 0; i < rt->nranks; i++)
        c->location_host[i] = rt->loc[i].node;
    return 0;
}

/* Every rank: its column.  The root holds its time outside the timed
 * collectives and one visit (the run); each site its sums. */
static void fill_column(const cp_run_times *rt, column *k, const int64_t metric[],
                        const site_cnodes *sc, int64_t root)
{
    double outside = rt->wall;
    col_u64(k, metric[M_VISITS], (size_t)root, 1);
    for (size_t i = 0; i < rt->nmine; i++) {
        const cp_site *x = &rt->mine[i];
        int64_t cn = site_cnode(sc, cp_site_key(x->coll, x->form, x->path));
        if (cn < 0)
            continue;
        col_u64(k, metric[M_VISITS], (size_t)cn, x->s.visits);
        col_u64(k, metric[M_SENT], (size_t)cn, x->s.bytes_sent);
        col_u64(k, metric[M_RECV], (size_t)cn, x->s.bytes_recv);
        if (metric[M_TIME] >= 0)
            add_times(k, metric, x->coll, (size_t)cn, &x->s);
        outside -= x->s.time + x->s.late;
    }
    col_double(k, metric[M_TIME], (size_t)root, outside > 0 ? outside : 0);
}

static int build_stat(cp_run_times *rt, const int64_t metric[], const site_cnodes *sc,
                      cp_stat_file *st)
{
    memset(st, 0, sizeof *st);
    st->layout = cp_rt.cfg.stat_documented ? CP_STAT_LAYOUT_DOCUMENTED : CP_STAT_LAYOUT_CUBEGUI;
    st->patterns = calloc(CP_NWAIT_PATTERNS, sizeof *st->patterns);
    if (!st->patterns)
        return -1;
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++) {
        if (rt->stat[p].n == 0)
            continue;
        cp_stat_pattern *sp = &st->patterns[st->npatterns++];
        if (cp_wstat_summarize(&rt->stat[p], sp))
            return -1;
        snprintf(sp->name, sizeof sp->name, "%s", cp_wait_metrics[p].uniq_name);
        sp->metric_id = st->layout == CP_STAT_LAYOUT_DOCUMENTED ? metric[M_WAIT0 + p] : -1;
        sp->nevents = 0;
        for (size_t e = 0; e < rt->top[p].nevents; e++) {
            cp_stat_event ev = rt->top[p].events[e];
            ev.cnode = site_cnode(sc, ev.cnode);
            if (ev.cnode >= 0)
                sp->events[sp->nevents++] = ev;
        }
    }
    return 0;
}

/* ------------------------------------------ profile.cubex, row by row */

/* Rank 0 holds at most this many bytes of rows at once (P values each). */
#define ROWS_BYTES ((uint64_t)64 << 20)

/* The rows every rank walks in the file's order (metric by metric, cnode
 * ids ascending, the rows some rank has a non-zero value in), a batch at a
 * time: each rank gives its values of the batch's rows, rank 0 gathers them
 * (MPI_Gather) and the writer takes them row by row. */
typedef struct stream {
    fin *f;
    const column *k;
    const uint8_t *nz;       /* [m * ncnodes + cnode] */
    size_t rows, per_batch;  /* rows in all, rows per batch */
    size_t done;             /* rows gathered so far (every rank) */
    size_t cur;              /* the cursor: next (m * ncnodes + cnode) to look at */
    size_t start, n;         /* rank 0: the batch held, rows [start, start + n) */
    size_t next;             /* rank 0: the next row the writer takes */
    uint64_t *mine, *all;    /* this rank's values of the batch; rank 0: every rank's */
    size_t *cell;            /* the batch's rows (m * ncnodes + cnode) */
    bool failed;             /* a gather failed: the rows are not there */
} stream;

static void gather_batch(stream *x)
{
    size_t n = x->rows - x->done < x->per_batch ? x->rows - x->done : x->per_batch;
    size_t cells = x->k->nmetrics * x->k->ncnodes;
    for (size_t i = 0; i < n; i++) {
        while (x->cur < cells && !x->nz[x->cur])
            x->cur++;
        x->mine[i] = x->cur < cells ? x->k->raw[x->cur] : 0;
        x->cell[i] = x->cur++;
    }
    if (cp_tp_gather(x->mine, (int)n, MPI_UINT64_T, x->all, (int)n, MPI_UINT64_T, 0,
                     x->f->w) != MPI_SUCCESS)
        x->failed = true;
    x->start = x->done;
    x->n = n;
    x->done += n;
}

/* cp_cubex_row_fn at rank 0: the writer asks for the rows in the order the
 * batches hold them. */
static int next_row(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    stream *x = ctx;
    if (x->next == x->start + x->n) {
        if (x->done == x->rows)
            return -1; /* the writer wants more rows than there are: a bug */
        gather_batch(x);
    }
    size_t i = x->next++ - x->start;
    if (x->failed || x->cell[i] != m * x->k->ncnodes + cnode)
        return -1; /* not the row the batches hold: a bug, said as a failed write */
    for (int l = 0; l < x->f->size; l++)
        raw[l] = x->all[(size_t)l * x->n + i];
    return 0;
}

/* What rank 0 tells every rank of the Cube's call tree. */
typedef struct meta_head {
    int32_t ok;
    int32_t pad;
    uint64_t ncnodes, nkeys;
    int64_t root;
} meta_head;

/* Every rank: the call tree's size, root and site -> cnode map from rank
 * 0 (sc filled on every rank), in chunks of a fixed size so that a rank
 * without room for the map still takes part, into scratch.  False when
 * rank 0 has no profile to write or this rank could not take the map. */
static bool share_meta(fin *f, meta_head *h, site_cnodes *sc)
{
    enum { CHUNK = 4096 };
    cp_tp_bcast(h, (int)sizeof *h, MPI_BYTE, 0, f->w);
    if (!h->ok)
        return false;
    if (f->rank != 0) {
        sc->n = (size_t)h->nkeys;
        sc->key = malloc((sc->n ? sc->n : 1) * sizeof *sc->key);
        sc->cnode = malloc((sc->n ? sc->n : 1) * sizeof *sc->cnode);
    }
    bool room = sc->key && sc->cnode;
    static int64_t scratch[CHUNK];
    for (uint64_t at = 0; at < h->nkeys; at += CHUNK) {
        int n = (int)(h->nkeys - at < CHUNK ? h->nkeys - at : CHUNK);
        cp_tp_bcast(room ? sc->key + at : scratch, n, MPI_INT64_T, 0, f->w);
        cp_tp_bcast(room ? sc->cnode + at : scratch, n, MPI_INT64_T, 0, f->w);
    }
    return room;
}

size_t cp_fin_write_profile(fin *f, cp_run_times *rt, const char *names[2])
{
    cp_cube cube;
    memset(&cube, 0, sizeof cube);
    int64_t metric[M_WAIT0 + CP_NWAIT_PATTERNS];
    site_cnodes sc = {0};
    char path[4200];
    cp_error err;
    size_t n = 0;
    const char *why = "out of memory while building the Cube profile";
    meta_head h = {0};
    if (f->rank == 0) {
        if (rt->sites_lost)
            why = "the call sites or locations of some ranks did not reach rank 0";
        else if (build_meta(rt, &f->man, &cube, metric, &sc, &h.root) == 0)
            h = (meta_head){.ok = 1, .ncnodes = cube.ncnodes, .nkeys = sc.n, .root = h.root};
    }
    bool ok = share_meta(f, &h, &sc);

    /* Every rank: its column (the metrics are the same everywhere: they
     * depend on the configuration alone). */
    cp_cube scratch;
    memset(&scratch, 0, sizeof scratch);
    int64_t m2[M_WAIT0 + CP_NWAIT_PATTERNS];
    bool have_metrics =
        cp_cube_init(&scratch, 1) == 0 && add_metrics(&scratch, rt->timing, m2) == 0;
    size_t nm = scratch.nmetrics, cells = nm * (size_t)h.ncnodes;
    column k = {calloc(cells ? cells : 1, sizeof(uint64_t)), nm, (size_t)h.ncnodes,
                scratch.metrics};
    uint8_t *nz = calloc(cells ? cells : 1, 1), *any = calloc(cells ? cells : 1, 1);
    /* A batch of rows: at most ROWS_BYTES at rank 0, one row at least. */
    uint64_t cap = ROWS_BYTES / (8 * (uint64_t)f->size);
    size_t cap_rows = cap < 1 ? 1 : cap < cells ? (size_t)cap : (cells ? cells : 1);
    if (cap_rows > INT_MAX)
        cap_rows = INT_MAX;
    stream x = {.f = f, .k = &k, .nz = any};
    x.mine = malloc(cap_rows * sizeof *x.mine);
    x.cell = malloc(cap_rows * sizeof *x.cell);
    x.all = f->rank == 0 ? malloc((size_t)f->size * cap_rows * sizeof *x.all) : NULL;
    if (h.ok) {
        /* Whether every rank has room (one maximum), then which rows anyone
         * has a value in (another): the same counts on every rank. */
        int failed = !(ok && have_metrics && k.raw && nz && any && x.mine && x.cell &&
                       (f->rank != 0 || x.all)), anyone = 1;
        cp_tp_allreduce(&failed, &anyone, 1, MPI_INT, MPI_MAX, f->w);
        ok = !anyone;
        if (ok) {
            fill_column(rt, &k, m2, &sc, h.root);
            for (size_t i = 0; i < cells; i++)
                nz[i] = k.raw[i] != 0;
            ok = cp_tp_allreduce(nz, any, (int)cells, MPI_UNSIGNED_CHAR, MPI_MAX, f->w) ==
                 MPI_SUCCESS;
        }
        if (!ok)
            why = "a rank ran out of memory for its values of the Cube profile";
    }

    /* The rows, a batch at a time; rank 0 writes them as they come. */
    for (size_t i = 0; ok && i < cells; i++)
        x.rows += any[i];
    x.per_batch = x.rows < cap_rows ? (x.rows ? x.rows : 1) : cap_rows;
    if (ok && f->rank == 0) {
        snprintf(path, sizeof path, "%s/profile.cubex", f->dir);
        if (cp_cubex_write_rows(path, &cube, any, next_row, &x, &err))
            cp_fin_missing(f, "profile.cubex", err.msg, true);
        else
            names[n++] = "profile.cubex";
    }
    while (ok && x.done < x.rows) /* the other ranks; rank 0 after a failure */
        gather_batch(&x);
    if (f->rank == 0 && !ok) {
        cp_fin_missing(f, "profile.cubex", why, true);
        if (rt->timing)
            cp_fin_missing(f, "profile.stat", why, true);
    }

    if (f->rank == 0 && ok && rt->timing && rt->stats_lost) {
        cp_fin_missing(f, "profile.stat",
                       "the wait-state statistics of some ranks could not be computed", true);
    } else if (f->rank == 0 && ok && rt->timing) {
        cp_stat_file st;
        if (build_stat(rt, metric, &sc, &st)) {
            cp_fin_missing(f, "profile.stat", "out of memory while building the statistics", true);
        } else {
            snprintf(path, sizeof path, "%s/profile.stat", f->dir);
            if (cp_stat_write(path, &st, &err))
                cp_fin_missing(f, "profile.stat", err.msg, true);
            else
                names[n++] = "profile.stat";
        }
        cp_stat_file_free(&st);
    }
    free(x.mine);
    free(x.cell);
    free(x.all);
    free(k.raw);
    free(nz);
    free(any);
    cp_cube_free(&scratch);
    cp_cube_free(&cube);
    free(sc.key);
    free(sc.cnode);
    return n;
}
