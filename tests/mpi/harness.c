/* Harness of the MPI integration tests (see harness.h). */
#include "harness.h"

#include "cubex.h"

#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int world_rank = -1, world_size = 0;
static const char *test_name = "?";
static const char *outdir;
static uint64_t win_start = 0, win_max = UINT64_MAX;
static bool paused;
static const char *sabotage; /* self-test of the comparison: see cpt_verify */
static cpt_comm *comms[CPT_MAXCOMMS];
/* COLLPROF_COLLECTIVES: NULL when every collective is profiled */
static const char *selected;
static int ncomms;
/* wrong data received (the profiler must not change results); threads add */
static _Atomic long data_errors;
/* CPT_SABOTAGE=count: one cell of one call expected off by one */
static const cpt_series *bump_series;
static int bump_call = -1, bump_rank = -1, bump_peer = -1;

/* ------------------------------------------------------------ helpers */

void cpt_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: rank %d: test program error: ", test_name, world_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        cpt_die("out of memory");
    return p;
}

int cpt_world_rank(void)
{
    return world_rank;
}

int cpt_world_size(void)
{
    return world_size;
}

void cpt_pid_file(int rank)
{
    const char *pids = getenv("CPT_PID_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.pid", pids ? pids : ".", rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
}

/* "0-3,5": a set of call indices, or an ordered member list. */
static void ranges_str(const cp_ranges *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n && used < len; i++) {
        int k;
        if (r->v[i].lo == r->v[i].hi)
            k = snprintf(buf + used, len - used, "%s%" PRId64, i ? "," : "", r->v[i].lo);
        else
            k = snprintf(buf + used, len - used, "%s%" PRId64 "-%" PRId64, i ? "," : "",
                         r->v[i].lo, r->v[i].hi);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    if (!buf[0])
        snprintf(buf, len, "(none)");
}

static void members_str(const cpt_comm *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%d", i ? "," : "", c->members[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

static bool env_u64(const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    if (!v)
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || end == v || *end)
        cpt_die("%s=\"%s\": the tests only use valid numbers here", name, v);
    *out = x;
    return true;
}

/* -------------------------------------------------------------- set-up */

/* The collectives that COLLPROF_COLLECTIVES accepts (the names of the
 * files). */
static const char *const collective_names[] = {
    "Alltoall",           "Alltoallv",           "Alltoallw",         "Allgather",
    "Allgatherv",         "Gather",              "Gatherv",           "Scatter",
    "Scatterv",           "Bcast",               "Reduce",            "Allreduce",
    "Reduce_scatter",     "Reduce_scatter_block", "Scan",             "Exscan",
    "Barrier",            "Neighbor_allgather",  "Neighbor_allgatherv", "Neighbor_alltoall",
    "Neighbor_alltoallv", "Neighbor_alltoallw"};

static bool known_collective(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof collective_names / sizeof collective_names[0]; i++)
        if (strlen(collective_names[i]) == len && strncasecmp(collective_names[i], name, len) == 0)
            return true;
    return false;
}

/* COLLPROF_COLLECTIVES as collprof must apply it: a list of names selects
 * those; unset, empty, "all" or a list with a name collprof does not accept
 * selects everything (collprof says so and profiles everything). */
static void read_selection(void)
{
    const char *v = getenv("COLLPROF_COLLECTIVES");
    selected = NULL;
    if (!v || !*v || strcasecmp(v, "all") == 0)
        return;
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!known_collective(p, len))
            return;
        if (!e)
            break;
        p = e + 1;
    }
    selected = v;
}

bool cpt_collective_selected(const char *collective)
{
    if (!selected)
        return true;
    size_t want = strlen(collective);
    for (const char *p = selected;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == want && strncasecmp(p, collective, len) == 0)
            return true;
        if (!e)
            return false;
        p = e + 1;
    }
}

void cpt_init(const char *name)
{
    test_name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size > CPT_MAXRANKS)
        cpt_die("at most %d ranks", CPT_MAXRANKS);
    outdir = getenv("COLLPROF_OUTPUT_DIR");
    if (!outdir || !*outdir)
        cpt_die("COLLPROF_OUTPUT_DIR must be set (the test driver sets it)");
    if (world_rank == 0) {
        /* collprof creates it at MPI_Finalize: before that it must not exist,
         * or what we read back could be left over from an earlier run. */
        struct stat st;
        if (stat(outdir, &st) == 0 || errno != ENOENT)
            cpt_die("output directory %s exists already: the driver must remove it", outdir);
    }
    env_u64("COLLPROF_START_CALL", &win_start);
    const char *mx = getenv("COLLPROF_MAX_CALLS");
    if (mx && strcmp(mx, "unlimited") != 0)
        env_u64("COLLPROF_MAX_CALLS", &win_max);
    sabotage = getenv("CPT_SABOTAGE");
    if (sabotage && !*sabotage)
        sabotage = NULL;
    read_selection();
}

static cpt_comm *new_comm(const char *label, int n, const int *members)
{
    if (ncomms == CPT_MAXCOMMS || n > CPT_MAXRANKS || n < 1)
        cpt_die("too many communicators or ranks");
    cpt_comm *c = xcalloc(1, sizeof *c);
    snprintf(c->label, sizeof c->label, "%s", label);
    c->n = n;
    memcpy(c->members, members, (size_t)n * sizeof *members);
    c->comm = MPI_COMM_NULL;
    c->rank = -1;
    c->type[CPT_V] = c->type[CPT_A] = MPI_DATATYPE_NULL;
    c->pair[CPT_V] = c->pair[CPT_A] = MPI_DATATYPE_NULL;
    c->s[CPT_V].collective = "Alltoallv";
    c->s[CPT_A].collective = "Alltoall";
    comms[ncomms++] = c;
    return c;
}

cpt_comm *cpt_comm_plan(const char *label, int n, const int *members, int64_t vdtsize,
                        int64_t adtsize)
{
    cpt_comm *c = new_comm(label, n, members);
    c->s[CPT_V].dtsize = vdtsize;
    c->s[CPT_A].dtsize = adtsize;
    return c;
}

cpt_comm *cpt_comm_declare(const char *label, int n, const int *members, MPI_Comm comm,
                           MPI_Datatype vtype, MPI_Datatype atype)
{
    cpt_comm *c = new_comm(label, n, members);
    c->comm = comm;
    c->type[CPT_V] = vtype;
    c->type[CPT_A] = atype;
    for (int k = 0; k < CPT_NCOLL; k++) {
        int sz = 0;
        MPI_Type_size(c->type[k], &sz);
        c->s[k].dtsize = sz;
    }
    int me = -1;
    for (int i = 0; i < n; i++)
        if (members[i] == world_rank)
            me = i;
    if ((comm == MPI_COMM_NULL) != (me < 0))
        cpt_die("communicator %s: membership of rank %d does not match the declaration", label,
                world_rank);
    if (comm != MPI_COMM_NULL) {
        /* Check the declaration against what MPI says. */
        int size = 0, rank = -1;
        MPI_Comm_size(comm, &size);
        MPI_Comm_rank(comm, &rank);
        if (size != n || rank != me)
            cpt_die("communicator %s: size %d rank %d, declared %d and %d", label, size, rank, n,
                    me);
        MPI_Group g, wg;
        MPI_Comm_group(comm, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        int in[CPT_MAXRANKS], out[CPT_MAXRANKS];
        for (int i = 0; i < n; i++)
            in[i] = i;
        MPI_Group_translate_ranks(g, n, in, wg, out);
        for (int i = 0; i < n; i++)
            if (out[i] != members[i])
                cpt_die("communicator %s: rank %d is world rank %d, declared %d", label, i,
                        out[i], members[i]);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        c->rank = me;
    }
    return c;
}

void cpt_comm_forget(cpt_comm *c)
{
    c->comm = MPI_COMM_NULL;
}

static void set_remote(cpt_comm *c, int nremote, const int *remote)
{
    if (nremote < 1 || nremote > CPT_MAXRANKS)
        cpt_die("communicator %s: remote group of %d ranks", c->label, nremote);
    c->nremote = nremote;
    memcpy(c->remote, remote, (size_t)nremote * sizeof *remote);
}

cpt_comm *cpt_comm_plan_inter(const char *label, int n, const int *members, int nremote,
                              const int *remote)
{
    cpt_comm *c = new_comm(label, n, members);
    set_remote(c, nremote, remote);
    return c;
}

cpt_comm *cpt_comm_declare_inter(const char *label, int n, const int *members, MPI_Comm comm,
                                 int nremote, const int *remote)
{
    cpt_comm *c = cpt_comm_declare(label, n, members, comm, MPI_INT, MPI_INT);
    set_remote(c, nremote, remote);
    if (comm != MPI_COMM_NULL) {
        int inter = 0, rs = 0;
        MPI_Comm_test_inter(comm, &inter);
        MPI_Comm_remote_size(comm, &rs);
        if (!inter || rs != nremote)
            cpt_die("communicator %s: not an intercommunicator with a remote group of %d", label,
                    nremote);
        MPI_Group g, wg;
        MPI_Comm_remote_group(comm, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        int in[CPT_MAXRANKS], out[CPT_MAXRANKS];
        for (int i = 0; i < nremote; i++)
            in[i] = i;
        MPI_Group_translate_ranks(g, nremote, in, wg, out);
        for (int i = 0; i < nremote; i++)
            if (out[i] != remote[i])
                cpt_die("communicator %s: remote rank %d is world rank %d, declared %d", label, i,
                        out[i], remote[i]);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    return c;
}

void cpt_comm_set_neighbors(cpt_comm *c, int rank, int indeg, const int *sources, int outdeg,
                            const int *dests)
{
    if (rank < 0 || rank >= c->n || indeg < 0 || outdeg < 0 || indeg > CPT_MAXRANKS ||
        outdeg > CPT_MAXRANKS)
        cpt_die("communicator %s: bad neighbours of rank %d", c->label, rank);
    c->topo = true;
    c->indeg[rank] = indeg;
    c->outdeg[rank] = outdeg;
    memcpy(c->sources[rank], sources, (size_t)indeg * sizeof *sources);
    memcpy(c->dests[rank], dests, (size_t)outdeg * sizeof *dests);
}

/* -------------------------------------------------- any collective */

static cpt_gseries *gseries(cpt_comm *c, const char *collective, bool create)
{
    for (int i = 0; i < c->ng; i++)
        if (strcmp(c->g[i].collective, collective) == 0)
            return &c->g[i];
    if (!create)
        return NULL;
    if (strlen(collective) >= sizeof c->g[0].collective)
        cpt_die("collective name %s too long", collective);
    for (int k = 0; k < CPT_NCOLL; k++)
        if (strcmp(c->s[k].collective, collective) == 0 && c->s[k].ncalls > 0)
            cpt_die("communicator %s: %s planned both with cpt_%s and cpt_plan", c->label,
                    collective, k == CPT_V ? "alltoallv" : "alltoall");
    if (c->ng == c->gcap) {
        c->gcap = c->gcap ? 2 * c->gcap : 8;
        c->g = realloc(c->g, (size_t)c->gcap * sizeof *c->g);
        if (!c->g)
            cpt_die("out of memory");
    }
    cpt_gseries *s = &c->g[c->ng++];
    memset(s, 0, sizeof *s);
    snprintf(s->collective, sizeof s->collective, "%s", collective);
    return s;
}

static const cpt_gseries *gseries_find(const cpt_comm *c, const char *collective)
{
    return gseries((cpt_comm *)c, collective, false);
}

int cpt_plan(cpt_comm *c, const char *collective, int64_t root)
{
    cpt_gseries *s = gseries(c, collective, true);
    if (s->ncalls == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->calls = realloc(s->calls, (size_t)s->cap * sizeof *s->calls);
        if (!s->calls)
            cpt_die("out of memory");
    }
    int idx = s->ncalls++;
    uint64_t u = (uint64_t)idx;
    cpt_gcall *k = &s->calls[idx];
    k->root = root;
    k->recorded = !paused && u >= win_start && u - win_start < win_max &&
                  cpt_collective_selected(collective);
    for (int d = 0; d < 2; d++) {
        k->rows[d] = xcalloc((size_t)c->n, sizeof *k->rows[d]);
        for (int r = 0; r < c->n; r++)
            k->rows[d][r].len = -1;
    }
    return idx;
}

void cpt_plan_row(cpt_comm *c, const char *collective, int call, int dir, int rank,
                  int64_t dtsize, int len, const int64_t *counts)
{
    cpt_gseries *s = gseries(c, collective, false);
    if (!s || call < 0 || call >= s->ncalls || (dir != CP_SEND && dir != CP_RECV) || rank < 0 ||
        rank >= c->n || len < 0)
        cpt_die("cpt_plan_row: %s call %d on %s, rank %d: not planned", collective, call,
                c->label, rank);
    cpt_grow *g = &s->calls[call].rows[dir][rank];
    if (g->len >= 0)
        cpt_die("cpt_plan_row: %s call %d on %s: rank %d's %s row planned twice", collective,
                call, c->label, rank, dir == CP_SEND ? "send" : "recv");
    g->dtsize = dtsize;
    g->len = len;
    g->v = xcalloc((size_t)len, sizeof *g->v);
    if (len)
        memcpy(g->v, counts, (size_t)len * sizeof *counts);
}

void cpt_plan_row1(cpt_comm *c, const char *collective, int call, int dir, int rank,
                   int64_t dtsize, int64_t count)
{
    cpt_plan_row(c, collective, call, dir, rank, dtsize, 1, &count);
}

void cpt_set_paused(bool p)
{
    paused = p;
}

void cpt_pcontrol(int level)
{
    MPI_Pcontrol(level);
    cpt_set_paused(level == 0);
}

/* ------------------------------------------------------------ patterns */

int64_t cpt_count(int kind, int seed, int r, int p, int n)
{
    int64_t zeros = ((r + 2 * p + seed) % 3 == 0) ? 0 : 1 + (r + p + seed) % 5;
    switch (kind) {
    case CPT_VARY:
        return seed + 1 + (3 * r + p) % 4;
    case CPT_ZEROS:
        return zeros;
    case CPT_SILENT:
        return r == seed % n ? 0 : zeros;
    case CPT_DEAF:
        return p == seed % n ? 0 : zeros;
    case CPT_NOTHING:
        return 0;
    case CPT_SYMMETRIC:
        return seed + (r + p) % 3 + (r * p) % 2;
    case CPT_EVEN:
        return 2 * (1 + (r + 2 * p + seed) % 3);
    case CPT_SINGLE:
        return seed;
    case CPT_HALO:
        return p == r - 1 || p == r + 1 ? seed + 1 : 0;
    }
    cpt_die("unknown pattern kind %d", kind);
}

/* Note a call in the plan; returns its index. */
static int note_call(cpt_comm *c, int coll, int kind, int seed, bool mixed)
{
    cpt_series *s = &c->s[coll];
    if (s->ncalls == CPT_MAXCALLS)
        cpt_die("more than %d calls on one communicator", CPT_MAXCALLS);
    int idx = s->ncalls++;
    uint64_t u = (uint64_t)idx;
    s->calls[idx] = (cpt_call){kind, seed,
                               !paused && u >= win_start && u - win_start < win_max &&
                                   cpt_collective_selected(s->collective),
                               mixed};
    return idx;
}

static int note(cpt_comm *c, int coll, int kind, int seed)
{
    return note_call(c, coll, kind, seed, false);
}

/* ---------------------------------------------------------------- data */

/* The value of element i that communicator rank src sends to dst. */
static uint32_t value(int kind, int seed, int src, int dst, int64_t i)
{
    return (uint32_t)(kind * 131 + seed * 31 + src * 7 + dst * 3) * 2654435761u + (uint32_t)i;
}

static void put(unsigned char *buf, int64_t dtsize, int64_t elem, uint32_t v)
{
    for (int64_t k = 0; k < dtsize; k++)
        buf[elem * dtsize + k] = (unsigned char)((v >> (8 * (k % 4))) ^ (unsigned)(k * 17));
}

static bool same(const unsigned char *buf, int64_t dtsize, int64_t elem, uint32_t v)
{
    for (int64_t k = 0; k < dtsize; k++)
        if (buf[elem * dtsize + k] != (unsigned char)((v >> (8 * (k % 4))) ^ (unsigned)(k * 17)))
            return false;
    return true;
}

static void data_error(const cpt_comm *c, const char *coll, int call, int from)
{
    if (data_errors++ < 10)
        fprintf(stderr,
                "FAIL: %s: communicator '%s' %s call %d: rank %d received wrong data from "
                "rank %d (the profiled run must give the application the same results)\n",
                test_name, c->label, coll, call, c->rank, from);
}

void cpt_data_error(const cpt_comm *c, const char *collective, int call, int from)
{
    data_error(c, collective, call, from);
}

/* Buffers of one Alltoallv as this rank passes it. */
typedef struct vbufs {
    int64_t *sc, *rc, *sd, *rd; /* counts and displacements, in elements */
    unsigned char *sbuf, *rbuf;
    size_t rbytes;
} vbufs;

/* gap: elements between segments (so that displacements matter); 2 keeps
 * displacements even for mixed calls. */
static void vbufs_make(vbufs *b, const cpt_comm *c, int kind, int seed, bool in_place, int gap)
{
    int n = c->n, r = c->rank;
    int64_t dt = c->s[CPT_V].dtsize;
    b->sc = xcalloc((size_t)n, sizeof *b->sc);
    b->rc = xcalloc((size_t)n, sizeof *b->rc);
    b->sd = xcalloc((size_t)n, sizeof *b->sd);
    b->rd = xcalloc((size_t)n, sizeof *b->rd);
    int64_t ns = 0, nr = 0;
    for (int p = 0; p < n; p++) {
        b->sc[p] = cpt_count(kind, seed, r, p, n);
        b->rc[p] = cpt_count(kind, seed, p, r, n);
        if (in_place && b->sc[p] != b->rc[p])
            cpt_die("MPI_IN_PLACE needs a symmetric pattern");
        b->sd[p] = ns;
        b->rd[p] = nr;
        ns += b->sc[p] + gap;
        nr += b->rc[p] + gap;
    }
    b->sbuf = xcalloc((size_t)(ns + 1), (size_t)dt);
    b->rbuf = xcalloc((size_t)(nr + 1), (size_t)dt);
    b->rbytes = (size_t)(nr + 1) * (size_t)dt;
}

static void vbufs_fill(vbufs *b, const cpt_comm *c, int kind, int seed, bool in_place)
{
    int64_t dt = c->s[CPT_V].dtsize;
    unsigned char *dst = in_place ? b->rbuf : b->sbuf;
    const int64_t *cnt = in_place ? b->rc : b->sc, *dis = in_place ? b->rd : b->sd;
    for (int p = 0; p < c->n; p++)
        for (int64_t i = 0; i < cnt[p]; i++)
            put(dst, dt, dis[p] + i, value(kind, seed, c->rank, p, i));
}

static void vbufs_check(const vbufs *b, const cpt_comm *c, int kind, int seed, int call)
{
    int64_t dt = c->s[CPT_V].dtsize;
    for (int p = 0; p < c->n; p++) {
        bool ok = true;
        for (int64_t i = 0; i < b->rc[p]; i++)
            ok &= same(b->rbuf, dt, b->rd[p] + i, value(kind, seed, p, c->rank, i));
        if (!ok)
            data_error(c, "Alltoallv", call, p);
    }
}

static void vbufs_free(vbufs *b)
{
    free(b->sc), free(b->rc), free(b->sd), free(b->rd), free(b->sbuf), free(b->rbuf);
}

/* int or MPI_Count / MPI_Aint copies of the counts and displacements. */
static int *as_int(const int64_t *v, int n)
{
    int *o = xcalloc((size_t)n, sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = (int)v[i];
    return o;
}

static MPI_Count *as_count(const int64_t *v, int n)
{
    MPI_Count *o = xcalloc((size_t)n, sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = (MPI_Count)v[i];
    return o;
}

static MPI_Aint *as_aint(const int64_t *v, int n)
{
    MPI_Aint *o = xcalloc((size_t)n, sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = (MPI_Aint)v[i];
    return o;
}

static void wait_ok(MPI_Request *req)
{
    if (MPI_Wait(req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        cpt_die("MPI_Wait failed");
}

void cpt_alltoallv(cpt_comm *c, int form, int kind, int seed, bool in_place)
{
    int call = note(c, CPT_V, kind, seed);
    if (c->comm == MPI_COMM_NULL)
        return;
    vbufs b;
    vbufs_make(&b, c, kind, seed, in_place, 1);
    vbufs_fill(&b, c, kind, seed, in_place);
    int n = c->n;
    MPI_Datatype t = c->type[CPT_V];
    /* With MPI_IN_PLACE the send arguments are ignored: pass values that
     * would be wrong if the profiler used them. */
    const void *sbuf = in_place ? MPI_IN_PLACE : (const void *)b.sbuf;
    MPI_Datatype st = in_place ? MPI_CHAR : t;
    int64_t junk[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        junk[i] = 7;
    const int64_t *sc = in_place ? junk : b.sc;
    int rc = MPI_SUCCESS;
    MPI_Request req;
    form = cpt_form(form);
    if (form == CPT_BLOCKING || form == CPT_NONBLOCKING) {
        int *isc = as_int(sc, n), *isd = as_int(b.sd, n), *irc = as_int(b.rc, n),
            *ird = as_int(b.rd, n);
        if (form == CPT_BLOCKING) {
            rc = MPI_Alltoallv(sbuf, isc, isd, st, b.rbuf, irc, ird, t, c->comm);
        } else {
            rc = MPI_Ialltoallv(sbuf, isc, isd, st, b.rbuf, irc, ird, t, c->comm, &req);
            if (rc == MPI_SUCCESS)
                wait_ok(&req);
        }
        free(isc), free(isd), free(irc), free(ird);
    } else {
        MPI_Count *csc = as_count(sc, n), *crc = as_count(b.rc, n);
        MPI_Aint *asd = as_aint(b.sd, n), *ard = as_aint(b.rd, n);
        if (form == CPT_LARGE) {
            rc = MPI_Alltoallv_c(sbuf, csc, asd, st, b.rbuf, crc, ard, t, c->comm);
        } else {
            rc = MPI_Ialltoallv_c(sbuf, csc, asd, st, b.rbuf, crc, ard, t, c->comm, &req);
            if (rc == MPI_SUCCESS)
                wait_ok(&req);
        }
        free(csc), free(crc), free(asd), free(ard);
    }
    if (rc != MPI_SUCCESS)
        cpt_die("Alltoallv (form %d) on %s failed", form, c->label);
    vbufs_check(&b, c, kind, seed, call);
    vbufs_free(&b);
}

void cpt_alltoall(cpt_comm *c, int form, int count, bool in_place)
{
    int call = note(c, CPT_A, CPT_SINGLE, count);
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n;
    int64_t dt = c->s[CPT_A].dtsize;
    MPI_Datatype t = c->type[CPT_A];
    unsigned char *sbuf = xcalloc((size_t)n * (size_t)count + 1, (size_t)dt);
    unsigned char *rbuf = xcalloc((size_t)n * (size_t)count + 1, (size_t)dt);
    unsigned char *fill = in_place ? rbuf : sbuf;
    for (int p = 0; p < n; p++)
        for (int64_t i = 0; i < count; i++)
            put(fill, dt, (int64_t)p * count + i, value(CPT_SINGLE, count, c->rank, p, i));
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)sbuf;
    int scount = in_place ? 99 : count; /* ignored with MPI_IN_PLACE */
    MPI_Datatype st = in_place ? MPI_CHAR : t;
    int rc;
    MPI_Request req;
    switch (cpt_form(form)) {
    case CPT_BLOCKING:
        rc = MPI_Alltoall(sb, scount, st, rbuf, count, t, c->comm);
        break;
    case CPT_NONBLOCKING:
        rc = MPI_Ialltoall(sb, scount, st, rbuf, count, t, c->comm, &req);
        if (rc == MPI_SUCCESS)
            wait_ok(&req);
        break;
    case CPT_LARGE:
        rc = MPI_Alltoall_c(sb, scount, st, rbuf, count, t, c->comm);
        break;
    default:
        rc = MPI_Ialltoall_c(sb, scount, st, rbuf, count, t, c->comm, &req);
        if (rc == MPI_SUCCESS)
            wait_ok(&req);
        break;
    }
    if (rc != MPI_SUCCESS)
        cpt_die("Alltoall (form %d) on %s failed", form, c->label);
    for (int p = 0; p < n; p++) {
        bool ok = true;
        for (int64_t i = 0; i < count; i++)
            ok &= same(rbuf, dt, (int64_t)p * count + i, value(CPT_SINGLE, count, p, c->rank, i));
        if (!ok)
            data_error(c, "Alltoall", call, p);
    }
    free(sbuf);
    free(rbuf);
}

/* The pair type of c for collective k (created on first use). */
static MPI_Datatype pair_type(cpt_comm *c, int k)
{
    if (c->pair[k] == MPI_DATATYPE_NULL) {
        if (MPI_Type_contiguous(2, c->type[k], &c->pair[k]) != MPI_SUCCESS ||
            MPI_Type_commit(&c->pair[k]) != MPI_SUCCESS)
            cpt_die("cannot build a pair datatype");
    }
    return c->pair[k];
}

void cpt_alltoallv_mixed(cpt_comm *c, int kind, int seed)
{
    int call = note_call(c, CPT_V, kind, seed, true);
    if (c->comm == MPI_COMM_NULL)
        return;
    vbufs b;
    vbufs_make(&b, c, kind, seed, false, 2);
    vbufs_fill(&b, c, kind, seed, false);
    int n = c->n, div = c->rank % 2 ? 2 : 1;
    MPI_Datatype t = div == 2 ? pair_type(c, CPT_V) : c->type[CPT_V];
    int sc[CPT_MAXRANKS], sd[CPT_MAXRANKS], rc[CPT_MAXRANKS], rd[CPT_MAXRANKS];
    for (int p = 0; p < n; p++) {
        if (b.sc[p] % div || b.rc[p] % div)
            cpt_die("cpt_alltoallv_mixed: odd counts");
        sc[p] = (int)(b.sc[p] / div);
        rc[p] = (int)(b.rc[p] / div);
        sd[p] = (int)(b.sd[p] / div);
        rd[p] = (int)(b.rd[p] / div);
    }
    if (MPI_Alltoallv(b.sbuf, sc, sd, t, b.rbuf, rc, rd, t, c->comm) != MPI_SUCCESS)
        cpt_die("Alltoallv (mixed datatypes) on %s failed", c->label);
    vbufs_check(&b, c, kind, seed, call);
    vbufs_free(&b);
}

void cpt_alltoall_mixed(cpt_comm *c, int count)
{
    int call = note_call(c, CPT_A, CPT_SINGLE, count, true);
    if (c->comm == MPI_COMM_NULL)
        return;
    if (count % 2)
        cpt_die("cpt_alltoall_mixed: odd count");
    int n = c->n, div = c->rank % 2 ? 2 : 1;
    int64_t dt = c->s[CPT_A].dtsize;
    MPI_Datatype t = div == 2 ? pair_type(c, CPT_A) : c->type[CPT_A];
    unsigned char *sbuf = xcalloc((size_t)n * (size_t)count + 1, (size_t)dt);
    unsigned char *rbuf = xcalloc((size_t)n * (size_t)count + 1, (size_t)dt);
    for (int p = 0; p < n; p++)
        for (int64_t i = 0; i < count; i++)
            put(sbuf, dt, (int64_t)p * count + i, value(CPT_SINGLE, count, c->rank, p, i));
    if (MPI_Alltoall(sbuf, count / div, t, rbuf, count / div, t, c->comm) != MPI_SUCCESS)
        cpt_die("Alltoall (mixed datatypes) on %s failed", c->label);
    for (int p = 0; p < n; p++) {
        bool ok = true;
        for (int64_t i = 0; i < count; i++)
            ok &= same(rbuf, dt, (int64_t)p * count + i, value(CPT_SINGLE, count, p, c->rank, i));
        if (!ok)
            data_error(c, "Alltoall", call, p);
    }
    free(sbuf);
    free(rbuf);
}

/* ---------------------------------------------------------- persistent */

void cpt_alltoallv_init(cpt_persistent *p, cpt_comm *c, bool large, int kind, int seed)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->coll = CPT_V;
    large = cpt_large_ok(large);
    p->large = large;
    p->kind = kind;
    p->seed = seed;
    p->req = MPI_REQUEST_NULL;
    if (c->comm == MPI_COMM_NULL)
        return;
    vbufs *b = xcalloc(1, sizeof *b);
    vbufs_make(b, c, kind, seed, false, 1);
    p->sbuf = b; /* the vbufs; counts converted below */
    int n = c->n, rc;
    MPI_Datatype t = c->type[CPT_V];
    if (large) {
        p->scounts = as_count(b->sc, n);
        p->rcounts = as_count(b->rc, n);
        p->sdispls = as_aint(b->sd, n);
        p->rdispls = as_aint(b->rd, n);
        rc = MPI_Alltoallv_init_c(b->sbuf, p->scounts, p->sdispls, t, b->rbuf, p->rcounts,
                                  p->rdispls, t, c->comm, MPI_INFO_NULL, &p->req);
    } else {
        p->scounts = as_int(b->sc, n);
        p->rcounts = as_int(b->rc, n);
        p->sdispls = as_int(b->sd, n);
        p->rdispls = as_int(b->rd, n);
        rc = MPI_Alltoallv_init(b->sbuf, p->scounts, p->sdispls, t, b->rbuf, p->rcounts,
                                p->rdispls, t, c->comm, MPI_INFO_NULL, &p->req);
    }
    if (rc != MPI_SUCCESS)
        cpt_die("MPI_Alltoallv_init%s on %s failed", large ? "_c" : "", c->label);
}

void cpt_alltoall_init(cpt_persistent *p, cpt_comm *c, bool large, int count)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->coll = CPT_A;
    large = cpt_large_ok(large);
    p->large = large;
    p->kind = CPT_SINGLE;
    p->seed = count;
    p->req = MPI_REQUEST_NULL;
    if (c->comm == MPI_COMM_NULL)
        return;
    int64_t dt = c->s[CPT_A].dtsize;
    p->sbuf = xcalloc((size_t)c->n * (size_t)count + 1, (size_t)dt);
    p->rbuf = xcalloc((size_t)c->n * (size_t)count + 1, (size_t)dt);
    MPI_Datatype t = c->type[CPT_A];
    int rc = large ? MPI_Alltoall_init_c(p->sbuf, count, t, p->rbuf, count, t, c->comm,
                                         MPI_INFO_NULL, &p->req)
                   : MPI_Alltoall_init(p->sbuf, count, t, p->rbuf, count, t, c->comm,
                                       MPI_INFO_NULL, &p->req);
    if (rc != MPI_SUCCESS)
        cpt_die("MPI_Alltoall_init%s on %s failed", large ? "_c" : "", c->label);
}

/* Before a start: note the call, fill the send buffer; returns the index. */
static int before_start(cpt_persistent *p)
{
    int call = note(p->c, p->coll, p->kind, p->seed);
    const cpt_comm *c = p->c;
    if (c->comm == MPI_COMM_NULL)
        return call;
    if (p->coll == CPT_V) {
        vbufs *b = p->sbuf;
        memset(b->rbuf, 0, b->rbytes);
        vbufs_fill(b, c, p->kind, p->seed, false);
    } else {
        int64_t dt = c->s[CPT_A].dtsize;
        for (int q = 0; q < c->n; q++)
            for (int64_t i = 0; i < p->seed; i++)
                put(p->sbuf, dt, (int64_t)q * p->seed + i,
                    value(CPT_SINGLE, p->seed, c->rank, q, i));
        memset(p->rbuf, 0, (size_t)(c->n * p->seed) * (size_t)dt);
    }
    return call;
}

static void after_start(cpt_persistent *p, int call)
{
    const cpt_comm *c = p->c;
    if (c->comm == MPI_COMM_NULL)
        return;
    if (p->coll == CPT_V) {
        vbufs_check(p->sbuf, c, p->kind, p->seed, call);
    } else {
        int64_t dt = c->s[CPT_A].dtsize;
        for (int q = 0; q < c->n; q++) {
            bool ok = true;
            for (int64_t i = 0; i < p->seed; i++)
                ok &= same(p->rbuf, dt, (int64_t)q * p->seed + i,
                           value(CPT_SINGLE, p->seed, q, c->rank, i));
            if (!ok)
                data_error(c, "Alltoall", call, q);
        }
    }
}

void cpt_start(cpt_persistent *p)
{
    int call = before_start(p);
    if (p->c->comm == MPI_COMM_NULL)
        return;
    if (MPI_Start(&p->req) != MPI_SUCCESS)
        cpt_die("MPI_Start on %s failed", p->c->label);
    wait_ok(&p->req);
    after_start(p, call);
}

void cpt_startall(cpt_persistent **ps, int k)
{
    MPI_Request reqs[16];
    MPI_Status st[16];
    int calls[16], nreq = 0;
    if (k > 16)
        cpt_die("cpt_startall: at most 16 requests");
    for (int i = 0; i < k; i++) {
        calls[i] = before_start(ps[i]);
        if (ps[i]->c->comm != MPI_COMM_NULL)
            reqs[nreq++] = ps[i]->req;
    }
    if (nreq == 0)
        return;
    if (MPI_Startall(nreq, reqs) != MPI_SUCCESS)
        cpt_die("MPI_Startall failed");
    if (MPI_Waitall(nreq, reqs, st) != MPI_SUCCESS)
        cpt_die("MPI_Waitall failed");
    for (int i = 0; i < k; i++)
        after_start(ps[i], calls[i]);
}

void cpt_persistent_free(cpt_persistent *p)
{
    if (p->c->comm != MPI_COMM_NULL) {
        if (MPI_Request_free(&p->req) != MPI_SUCCESS)
            cpt_die("MPI_Request_free failed");
        if (p->coll == CPT_V) {
            vbufs_free(p->sbuf);
            free(p->sbuf);
        } else {
            free(p->sbuf);
            free(p->rbuf);
        }
        free(p->scounts), free(p->rcounts), free(p->sdispls), free(p->rdispls);
    }
    memset(p, 0, sizeof *p);
}

/* -------------------------------------------------------- verification */

typedef struct reporter {
    long problems;
    long printed;
    bool on; /* print (else: only count, while trying assignments) */
} reporter;

static void fail(reporter *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(reporter *rp, const char *fmt, ...)
{
    rp->problems++;
    if (!rp->on)
        return;
    if (rp->printed >= 60) {
        if (rp->printed++ == 60)
            fprintf(stderr, "FAIL: %s: (more problems not shown)\n", test_name);
        return;
    }
    rp->printed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: %s: ", sabotage ? "caught (self-test)" : "FAIL", test_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool members_equal(const cp_ranges *r, const cpt_comm *c)
{
    if (cp_ranges_count(r) != c->n)
        return false;
    for (int i = 0; i < c->n; i++)
        if (cp_ranges_nth(r, i) != c->members[i])
            return false;
    return true;
}

/* The remote group of an intercommunicator group (empty for others). */
static bool remote_equal(const cp_ranges *r, const cpt_comm *c)
{
    if (cp_ranges_count(r) != c->nremote)
        return false;
    for (int i = 0; i < c->nremote; i++)
        if (cp_ranges_nth(r, i) != c->remote[i])
            return false;
    return true;
}

static bool same_groups(const cpt_comm *a, const cpt_comm *b)
{
    return a->n == b->n && a->nremote == b->nremote &&
           memcmp(a->members, b->members, (size_t)a->n * sizeof(int)) == 0 &&
           memcmp(a->remote, b->remote, (size_t)a->nremote * sizeof(int)) == 0;
}

static void remote_str(const cpt_comm *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nremote && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%d", i ? "," : "", c->remote[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    if (!buf[0])
        snprintf(buf, len, "(none)");
}

int cpt_find_comms(const cp_profile *p, const cpt_comm *c, int64_t *ids, int max)
{
    int k = 0;
    if (!p->has_manifest)
        return 0;
    for (size_t i = 0; i < p->manifest.ncomms; i++)
        if (members_equal(&p->manifest.comms[i].members, c) &&
            remote_equal(&p->manifest.comms[i].remote_members, c) && k < max)
            ids[k++] = p->manifest.comms[i].id;
    /* id order */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
            int64_t t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    return k;
}

static int64_t expected_count(const cpt_comm *c, int coll, int64_t call, int dir, int r,
                              int peer)
{
    const cpt_call *k = &c->s[coll].calls[call];
    int64_t unit = k->mixed ? c->s[coll].dtsize : 1; /* mixed: bytes */
    if (coll == CPT_A)
        return k->seed * unit;
    int from = dir == CP_SEND ? r : peer, to = dir == CP_SEND ? peer : r;
    int64_t e = cpt_count(k->kind, k->seed, from, to, c->n) * unit;
    if (&c->s[coll] == bump_series && call == bump_call && from == bump_rank && to == bump_peer)
        e++;
    return e;
}

/* The comm rank of world rank w in c, or -1. */
static int comm_rank_of(const cpt_comm *c, int w)
{
    for (int i = 0; i < c->n; i++)
        if (c->members[i] == w)
            return i;
    return -1;
}

static bool set_has(const cp_ranges *r, int64_t v)
{
    return cp_ranges_contains(r, v);
}

/* The manifest's neighbour lists of a communicator with a topology. */
static void compare_neighbors(reporter *rp, const cp_comm_info *ci, const cpt_comm *c)
{
    if (!c->topo) {
        if (ci->neighbors)
            fail(rp, "communicator '%s' (id %" PRId64 "): the manifest gives neighbour lists, "
                     "but it has no topology",
                 c->label, ci->id);
        return;
    }
    if (!ci->neighbors) {
        fail(rp, "communicator '%s' (id %" PRId64 "): a topology communicator without "
                 "\"neighbors\" in the manifest",
             c->label, ci->id);
        return;
    }
    for (int r = 0; r < c->n; r++) {
        const cp_neighbors *nb = &ci->neighbors[r];
        for (int side = 0; side < 2; side++) {
            const char *name = side ? "destinations" : "sources";
            size_t got_n = side ? nb->ndestinations : nb->nsources;
            const int64_t *got = side ? nb->destinations : nb->sources;
            int want_n = side ? c->outdeg[r] : c->indeg[r];
            const int *want = side ? c->dests[r] : c->sources[r];
            bool same = got_n == (size_t)want_n;
            for (int j = 0; same && j < want_n; j++)
                same = got[j] == want[j];
            if (same)
                continue;
            char g[256] = "", w[256] = "";
            size_t gu = 0, wu = 0;
            for (size_t j = 0; j < got_n && gu < sizeof g; j++)
                gu += (size_t)snprintf(g + gu, sizeof g - gu, "%s%" PRId64, j ? "," : "", got[j]);
            for (int j = 0; j < want_n && wu < sizeof w; j++)
                wu += (size_t)snprintf(w + wu, sizeof w - wu, "%s%d", j ? "," : "", want[j]);
            fail(rp, "communicator '%s' (id %" PRId64 "): manifest neighbours of rank %d: %s "
                     "[%s], expected [%s]",
                 c->label, ci->id, r, name, g, w);
        }
    }
}

/* Every collective planned with cpt_plan on c, against the blocks of id. */
static void compare_generic(reporter *rp, const cp_profile *p, const cpt_comm *c, int64_t id,
                            int only_world)
{
    int only_rank = only_world >= 0 ? comm_rank_of(c, only_world) : -1;
    bool absent = only_world >= 0 && only_rank < 0;
    char mem[256];
    members_str(c, mem, sizeof mem);
    for (int si = 0; si < c->ng; si++) {
        const cpt_gseries *s = &c->g[si];
        bool vary = strncmp(s->collective, "Neighbor_", 9) == 0;
        for (int dir = CP_SEND; dir <= CP_RECV; dir++) {
            const char *dn = dir == CP_SEND ? "send" : "recv";
            /* must: recorded calls with rows in this direction; may: recorded
             * calls without (a block without rows, or none) */
            cp_ranges must = {0}, may = {0}, got = {0};
            for (int i = 0; i < s->ncalls; i++) {
                const cpt_gcall *k = &s->calls[i];
                if (!k->recorded || absent)
                    continue;
                int nrows = 0;
                for (int r = 0; r < c->n; r++)
                    nrows += k->rows[dir][r].len >= 0 && (only_rank < 0 || r == only_rank);
                if (cp_ranges_add(nrows ? &must : &may, i) != 0)
                    cpt_die("out of memory");
            }
            if (id >= 0 && cp_profile_calls(p, id, s->collective, dir, &got) != 0)
                cpt_die("out of memory");
            bool calls_ok = true;
            for (size_t j = 0; j < got.n; j++)
                for (int64_t i = got.v[j].lo; i <= got.v[j].hi; i++)
                    calls_ok &= set_has(&must, i) || set_has(&may, i);
            for (size_t j = 0; j < must.n; j++)
                for (int64_t i = must.v[j].lo; i <= must.v[j].hi; i++)
                    calls_ok &= set_has(&got, i);
            if (!calls_ok) {
                char w[512], m[512], g[512];
                ranges_str(&must, w, sizeof w);
                ranges_str(&may, m, sizeof m);
                ranges_str(&got, g, sizeof g);
                fail(rp, "communicator '%s' (id %" PRId64 ", world ranks %s) %s %s: calls "
                         "recorded: expected %s (and possibly, without rows, %s), got %s",
                     c->label, id, mem, s->collective, dn, w, m, g);
            }
            for (size_t j = 0; j < got.n; j++)
                for (int64_t call = got.v[j].lo; call <= got.v[j].hi; call++) {
                    if (call >= s->ncalls || !s->calls[call].recorded || absent)
                        continue; /* reported above */
                    const cpt_gcall *k = &s->calls[call];
                    const cp_block *b = cp_profile_find(p, id, s->collective, dir, call);
                    if (!b)
                        continue;
                    char where[512];
                    snprintf(where, sizeof where,
                             "communicator '%s' (id %" PRId64 ", world ranks %s) %s call %" PRId64
                             " %s",
                             c->label, id, mem, s->collective, call, dn);
                    if (b->nranks != c->n)
                        fail(rp, "%s: Number of ranks %" PRId64 ", expected %d", where,
                             b->nranks, c->n);
                    if (b->comm_size != c->n)
                        fail(rp, "%s: Communicator size %" PRId64 ", expected %d", where,
                             b->comm_size, c->n);
                    if (!members_equal(&b->comm_world_ranks, c)) {
                        char g[256];
                        ranges_str(&b->comm_world_ranks, g, sizeof g);
                        fail(rp, "%s: block names world ranks %s, expected %s", where, g, mem);
                    }
                    if (b->root != k->root)
                        fail(rp, "%s: root %" PRId64 ", expected %" PRId64 " (-1: none)", where,
                             b->root, k->root);
                    bool all_ok = b->all_calls.n > 0 && b->all_calls.v[0].lo >= 0 &&
                                  b->all_calls.v[b->all_calls.n - 1].hi < s->ncalls;
                    for (size_t q = 0; q < must.n && all_ok; q++)
                        for (int64_t i = must.v[q].lo; i <= must.v[q].hi; i++)
                            all_ok &= cp_ranges_contains(&b->all_calls, i);
                    if (!all_ok) {
                        char g[512];
                        ranges_str(&b->all_calls, g, sizeof g);
                        fail(rp, "%s: the block's list of all calls is %s: it must hold every "
                                 "recorded call and only calls 0-%d that were made",
                             where, g, s->ncalls - 1);
                    }
                    /* the rows this profile must hold */
                    const cpt_grow *rows = k->rows[dir];
                    int nrows = 0, maxlen = -1, minlen = INT32_MAX;
                    bool any_dt = false, bytes = false;
                    int64_t dt = 0;
                    for (int r = 0; r < c->n; r++) {
                        if (rows[r].len < 0 || (only_rank >= 0 && r != only_rank))
                            continue;
                        if (nrows++ == 0)
                            dt = rows[r].dtsize;
                        any_dt |= rows[r].dtsize == CPT_DT_ANY;
                        bytes |= rows[r].dtsize == CPT_DT_BYTES || rows[r].dtsize != dt;
                        if (rows[r].len > maxlen)
                            maxlen = rows[r].len;
                        if (rows[r].len < minlen)
                            minlen = rows[r].len;
                    }
                    if (nrows && !vary && minlen != maxlen)
                        cpt_die("%s: planned rows of different lengths", where);
                    if (nrows && !any_dt) {
                        if (bytes && (b->dtsize != 1 || !b->counts_in_bytes))
                            fail(rp, "%s: expected counts in bytes (\"Datatype size: 1 "
                                     "(bytes)\"%s), got datatype size %" PRId64 "%s",
                                 where,
                                 dt == CPT_DT_BYTES ? ": per-peer datatypes"
                                                    : ": ranks used datatypes of different sizes",
                                 b->dtsize, b->counts_in_bytes ? " (bytes)" : "");
                        if (!bytes && (b->dtsize != dt || b->counts_in_bytes))
                            fail(rp, "%s: datatype size %" PRId64 "%s, expected %" PRId64, where,
                                 b->dtsize, b->counts_in_bytes ? " (bytes)" : "", dt);
                    }
                    if (nrows && (int64_t)b->row_len != maxlen)
                        fail(rp, "%s: row length %zu, expected %d%s", where, b->row_len, maxlen,
                             vary ? " (the longest row)" : "");
                    for (int r = 0; r < c->n; r++) {
                        const cp_row *row = cp_block_row(b, r);
                        bool want = rows[r].len >= 0 && (only_rank < 0 || r == only_rank);
                        if (!want) {
                            if (row)
                                fail(rp, "%s: rank %d has a row, expected none%s", where, r,
                                     only_rank >= 0 && r != only_rank
                                         ? " (a partial profile of another rank)"
                                         : "");
                            continue;
                        }
                        if (!row) {
                            fail(rp, "%s: rank %d: no row", where, r);
                            continue;
                        }
                        if ((int)row->len != rows[r].len) {
                            fail(rp, "%s: rank %d: row of %zu counts, expected %d", where, r,
                                 row->len, rows[r].len);
                            continue;
                        }
                        int64_t unit = bytes && rows[r].dtsize > 0 ? rows[r].dtsize : 1;
                        for (int q = 0; q < rows[r].len; q++) {
                            int64_t e = rows[r].v[q] * unit, g = cp_row_value(row, r, (size_t)q);
                            if (e != g)
                                fail(rp, "%s: rank %d, peer %d: expected %" PRId64 ", got %" PRId64,
                                     where, r, q, e, g);
                        }
                    }
                }
            cp_ranges_free(&must);
            cp_ranges_free(&may);
            cp_ranges_free(&got);
        }
    }
}

/* only_world >= 0: a partial profile holding only that world rank's rows;
 * a communicator it is not a member of must be absent. */
static long compare_comm(reporter *rp, const cp_profile *p, const cpt_comm *c, int64_t id,
                         int only_world)
{
    long before = rp->problems;
    int only_rank = only_world >= 0 ? comm_rank_of(c, only_world) : -1;
    bool absent = only_world >= 0 && only_rank < 0;
    char mem[256];
    members_str(c, mem, sizeof mem);
    if (id >= 0 && p->has_manifest) {
        const cp_comm_info *ci = NULL;
        for (size_t i = 0; i < p->manifest.ncomms; i++)
            if (p->manifest.comms[i].id == id)
                ci = &p->manifest.comms[i];
        if (!ci) {
            fail(rp, "communicator '%s' (world ranks %s): id %" PRId64 " not in the manifest",
                 c->label, mem, id);
        } else {
            if (ci->size != c->n)
                fail(rp, "communicator '%s' (id %" PRId64 "): manifest size %" PRId64
                         ", expected %d", c->label, id, ci->size, c->n);
            if (ci->lead != c->members[0])
                fail(rp, "communicator '%s' (id %" PRId64 "): manifest lead %" PRId64
                         ", expected world rank %d", c->label, id, ci->lead, c->members[0]);
            if (!members_equal(&ci->members, c)) {
                char got[256];
                ranges_str(&ci->members, got, sizeof got);
                fail(rp, "communicator '%s' (id %" PRId64 "): manifest members %s, expected %s",
                     c->label, id, got, mem);
            }
            if (!remote_equal(&ci->remote_members, c)) {
                char got[256], want[256];
                ranges_str(&ci->remote_members, got, sizeof got);
                remote_str(c, want, sizeof want);
                fail(rp, "communicator '%s' (id %" PRId64 "): manifest remote_members %s, "
                         "expected %s",
                     c->label, id, got, want);
            }
            compare_neighbors(rp, ci, c);
        }
    }
    compare_generic(rp, p, c, id, only_world);
    for (int coll = 0; coll < CPT_NCOLL; coll++) {
        const cpt_series *s = &c->s[coll];
        if (gseries_find(c, s->collective))
            continue; /* planned with cpt_plan: compared by compare_generic */
        int64_t row_len = coll == CPT_A ? 1 : c->n;
        for (int dir = CP_SEND; dir <= CP_RECV; dir++) {
            const char *dn = dir == CP_SEND ? "send" : "recv";
            /* The recorded calls: exactly those of the plan. */
            cp_ranges want = {0}, got = {0};
            for (int i = 0; i < s->ncalls; i++)
                if (s->calls[i].recorded && !absent)
                    cp_ranges_add(&want, i);
            if (id >= 0 && cp_profile_calls(p, id, s->collective, dir, &got) != 0)
                cpt_die("out of memory");
            if (!cp_ranges_equal(&want, &got)) {
                char w[512], g[512];
                ranges_str(&want, w, sizeof w);
                ranges_str(&got, g, sizeof g);
                fail(rp, "communicator '%s' (id %" PRId64 ", world ranks %s) %s %s: calls "
                         "recorded: expected %s, got %s",
                     c->label, id, mem, s->collective, dn, w, g);
            }
            int64_t last = s->ncalls - 1;
            if (got.n && got.v[got.n - 1].hi > last)
                last = got.v[got.n - 1].hi;
            cp_ranges_free(&want);
            cp_ranges_free(&got);
            for (int64_t call = 0; call <= last; call++) {
                const cpt_call *k = call < s->ncalls ? &s->calls[call] : NULL;
                const cp_block *b =
                    id >= 0 ? cp_profile_find(p, id, s->collective, dir, call) : NULL;
                bool want_rec = k && k->recorded && !absent;
                if (want_rec && !b) {
                    fail(rp, "communicator '%s' (id %" PRId64 ", world ranks %s) %s call %" PRId64
                             " %s: missing (no block holds this call)",
                         c->label, id, mem, s->collective, call, dn);
                    continue;
                }
                if (!want_rec && b) {
                    fail(rp, "communicator '%s' (id %" PRId64 ", world ranks %s) %s call %" PRId64
                             " %s: present, but the test %s",
                         c->label, id, mem, s->collective, call, dn,
                         k ? "expects it not recorded" : "made no such call");
                    continue;
                }
                if (!b)
                    continue;
                char where[512];
                snprintf(where, sizeof where,
                         "communicator '%s' (id %" PRId64 ", world ranks %s) %s call %" PRId64
                         " %s",
                         c->label, id, mem, s->collective, call, dn);
                if (b->nranks != c->n)
                    fail(rp, "%s: Number of ranks %" PRId64 ", expected %d", where, b->nranks,
                         c->n);
                if (b->comm_size != c->n)
                    fail(rp, "%s: Communicator size %" PRId64 ", expected %d", where,
                         b->comm_size, c->n);
                if (!members_equal(&b->comm_world_ranks, c)) {
                    char g[256];
                    ranges_str(&b->comm_world_ranks, g, sizeof g);
                    fail(rp, "%s: block names world ranks %s, expected %s", where, g, mem);
                }
                if (k->mixed && c->n > 1 && (b->dtsize != 1 || !b->counts_in_bytes))
                    fail(rp, "%s: ranks used datatypes of different sizes: expected counts in "
                             "bytes (\"Datatype size: 1 (bytes)\"), got datatype size %" PRId64
                             "%s",
                         where, b->dtsize, b->counts_in_bytes ? " (bytes)" : "");
                if (!k->mixed && (b->dtsize != s->dtsize || b->counts_in_bytes))
                    fail(rp, "%s: datatype size %" PRId64 "%s, expected %" PRId64, where,
                         b->dtsize, b->counts_in_bytes ? " (bytes)" : "", s->dtsize);
                if (b->root != -1)
                    fail(rp, "%s: root %" PRId64 ", expected none", where, b->root);
                /* "<Collective> calls A-B": at least every recorded call, and
                 * no call the test did not make */
                bool all_ok = b->all_calls.n > 0 && b->all_calls.v[0].lo >= 0 &&
                              b->all_calls.v[b->all_calls.n - 1].hi < s->ncalls;
                for (int i = 0; i < s->ncalls && all_ok; i++)
                    if (s->calls[i].recorded && !absent &&
                        !cp_ranges_contains(&b->all_calls, i))
                        all_ok = false;
                if (!all_ok) {
                    char g[512];
                    ranges_str(&b->all_calls, g, sizeof g);
                    fail(rp, "%s: the block's list of all calls is %s: it must hold every "
                             "recorded call and only calls 0-%d that were made",
                         where, g, s->ncalls - 1);
                }
                if ((int64_t)b->row_len != row_len)
                    fail(rp, "%s: row length %zu, expected %" PRId64, where, b->row_len,
                         row_len);
                for (int r = 0; r < c->n; r++) {
                    if (only_rank >= 0 && r != only_rank) {
                        if (cp_block_row(b, r))
                            fail(rp, "%s: rank %d has a row, but only rank %d's data was "
                                     "expected",
                                 where, r, only_rank);
                        continue;
                    }
                    if (!cp_block_row(b, r)) {
                        fail(rp, "%s: rank %d: no row", where, r);
                        continue;
                    }
                    for (int q = 0; q < row_len; q++) {
                        int64_t e = expected_count(c, coll, call, dir, r, q);
                        int64_t g = cp_block_count(b, r, (size_t)q);
                        if (e != g)
                            fail(rp, "%s: rank %d, peer %d: expected %" PRId64 ", got %" PRId64,
                                 where, r, q, e, g);
                    }
                }
            }
        }
    }
    return rp->problems - before;
}

long cpt_compare_comm(const cp_profile *p, const cpt_comm *c, int64_t id, int only_world,
                      bool report)
{
    reporter rp = {.on = report};
    return compare_comm(&rp, p, c, id, only_world);
}

static bool file_has_gzip_magic(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char m[2] = {0, 0};
    bool ok = f && fread(m, 1, 2, f) == 2 && m[0] == 0x1f && m[1] == 0x8b;
    if (f)
        fclose(f);
    return ok;
}

static long check_compression(reporter *rp, const cp_profile *p, bool gzip)
{
    long before = rp->problems;
    if (p->nfiles == 0)
        fail(rp, "no counts files in %s", p->dir);
    for (size_t i = 0; i < p->nfiles; i++) {
        const char *path = p->files[i].path;
        size_t len = strlen(path);
        bool gz_name = len > 3 && strcmp(path + len - 3, ".gz") == 0;
        bool magic = file_has_gzip_magic(path);
        if (gzip && (!gz_name || !magic))
            fail(rp, "%s: COLLPROF_COMPRESS=gzip, but the file %s", path,
                 !gz_name ? "name does not end in .gz" : "does not start with the gzip magic");
        if (!gzip && (gz_name || magic))
            fail(rp, "%s: compressed without COLLPROF_COMPRESS=gzip", path);
    }
    return rp->problems - before;
}

long cpt_check_compression(const cp_profile *p, bool gzip)
{
    reporter rp = {.on = true};
    return check_compression(&rp, p, gzip);
}

static bool exists(const char *dir, const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Load outdir once the manifest and every file it lists exist.  After
 * MPI_Finalize has returned on rank 0, other lead ranks may in principle
 * still be renaming their files: wait a little, and say so. */
static int load_complete(cp_profile *p, reporter *rp)
{
    cp_error err;
    const int step = 50, limit = 20000;
    for (int waited = 0;; waited += step) {
        bool ready = exists(outdir, "manifest.json");
        if (ready) {
            if (cp_profile_load(outdir, p, &err) != 0) {
                fail(rp, "the reader cannot load %s: %s", outdir, err.msg);
                return -1;
            }
            for (size_t i = 0; i < p->manifest.nfiles; i++)
                ready &= exists(outdir, p->manifest.files[i]);
            if (ready) {
                if (waited > 0)
                    fprintf(stderr,
                            "%s: note: the output was complete only %d ms after MPI_Finalize "
                            "returned on rank 0\n",
                            test_name, waited);
                return 0;
            }
            cp_profile_free(p);
        }
        if (waited >= limit) {
            fail(rp, "%s: %s", outdir,
                 exists(outdir, "manifest.json")
                     ? "files listed in manifest.json are missing"
                     : "no manifest.json (was the output written at MPI_Finalize?)");
            return -1;
        }
        sleep_ms(step);
    }
}

/* Configuration as the manifest reports it. */
/* Does this machine's CPU say its time-stamp counter is invariant (the
 * kernel's flags constant_tsc and nonstop_tsc)?  Read here independently of
 * the library, which must come to the same answer. */
static bool cpu_says_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    bool c = false, n = false;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            c = strstr(line, " constant_tsc") != NULL;
            n = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    if (f)
        fclose(f);
    return c && n;
#else
    return false;
#endif
}

static bool timing_on(void)
{
    const char *timing = getenv("COLLPROF_TIMING");
    return !(timing && !strcasecmp(timing, "off"));
}

/* The manifest's clock: present when calls were timed, the counter used as
 * COLLPROF_CLOCK and the CPU say, on every rank, its drift within bounds.
 * A partial profile's says its offsets are those of the start. */
static void check_clock(reporter *rp, const cp_profile *p)
{
    const char *mode = getenv("COLLPROF_CLOCK");
    const cp_manifest *m = &p->manifest;
    if (!timing_on()) {
        if (m->has_clock)
            fail(rp, "%s/manifest.json: a \"clock\" although nothing timed is written", p->dir);
        return;
    }
    if (m->partial) {
        if (!m->has_clock || !strstr(m->clock.note, "offsets measured at start-up"))
            fail(rp, "%s/manifest.json: a partial profile of a timed run without a \"clock\" "
                     "that says its offsets are the start's (note \"%s\")",
                 p->dir, m->has_clock ? m->clock.note : "(none)");
        return;
    }
    if (!m->has_clock) {
        fail(rp, "%s/manifest.json: no \"clock\" although calls were timed", p->dir);
        return;
    }
    bool tsc = mode && !strcasecmp(mode, "monotonic") ? false
               : mode && !strcasecmp(mode, "tsc")     ? true
                                                      : cpu_says_invariant_tsc();
#if !defined(__x86_64__) && !defined(__i386__)
    tsc = false;
#endif
    const char *want = tsc ? "tsc" : "monotonic";
    if (strcmp(m->clock.source, want) || m->clock.tsc_ranks != (tsc ? m->world_size : 0) ||
        (m->clock.tsc_hz > 0) != tsc)
        fail(rp, "%s/manifest.json: clock source %s on %" PRId64 " ranks at %" PRId64
                 " Hz, expected %s on every rank (COLLPROF_CLOCK=%s)",
             p->dir, m->clock.source, m->clock.tsc_ranks, m->clock.tsc_hz, want,
             mode ? mode : "unset");
    if (m->clock.max_drift_ppm > m->clock.drift_bound_ppm || m->clock.note[0] != (tsc ? 0 : 'r'))
        fail(rp, "%s/manifest.json: clock drift %" PRId64 " ppm (bound %" PRId64 "), note \"%s\"",
             p->dir, m->clock.max_drift_ppm, m->clock.drift_bound_ppm, m->clock.note);
}

/* The manifest names the MPI library that ran (MPICH or Open MPI, as this
 * program was built against) with the first line of its version string;
 * MPI_Get_library_version may be called after MPI_Finalize. */
static void check_mpi_library(reporter *rp, const cp_profile *p)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n")] = '\0';
#ifdef OPEN_MPI
    const char *name = "Open MPI";
#else
    const char *name = "MPICH";
#endif
    if (strcmp(p->manifest.mpi_version, v) != 0 || !strstr(v, name))
        fail(rp, "%s/manifest.json: mpi_version \"%s\", but %s ran: \"%s\"", p->dir,
             p->manifest.mpi_version, name, v);
}

static void check_config(reporter *rp, const cp_profile *p)
{
    check_clock(rp, p);
    check_mpi_library(rp, p);
    static const char *const vars[] = {"COLLPROF_COMPRESS", "COLLPROF_START_CALL",
                                       "COLLPROF_MAX_CALLS", "COLLPROF_OUTPUT_DIR",
                                       "COLLPROF_COUNTS_ROWS"};
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
        const char *env = getenv(vars[v]);
        if (!env)
            continue;
        const char *got = NULL;
        for (size_t i = 0; i < p->manifest.nconfig; i++)
            if (strcmp(p->manifest.config[i].key, vars[v]) == 0)
                got = p->manifest.config[i].value;
        if (!got || strcmp(got, env) != 0)
            fail(rp, "%s/manifest.json: configuration %s is \"%s\", the run set \"%s\"",
                 p->dir, vars[v], got ? got : "(missing)", env);
    }
}

/* Match the declared communicators of one membership with the manifest's
 * communicators of that membership.  Ids follow collprof's own order, which
 * the test does not assume: every injective assignment is tried, and the one
 * without problems wins; if none, the one in order of first use is
 * reported. */
typedef struct matcher {
    const cp_profile *p;
    cpt_comm *group[CPT_MAXCOMMS];
    int ng;
    int64_t cand[CPT_MAXCOMMS];
    int nc;
    int64_t assign[CPT_MAXCOMMS];
    bool used[CPT_MAXCOMMS];
    bool found;
    int64_t best[CPT_MAXCOMMS];
    int only_world;
} matcher;

static bool has_recorded(const cpt_comm *c, int only_world)
{
    if (only_world >= 0 && comm_rank_of(c, only_world) < 0)
        return false;
    for (int k = 0; k < CPT_NCOLL; k++)
        for (int i = 0; i < c->s[k].ncalls; i++)
            if (c->s[k].calls[i].recorded)
                return true;
    for (int k = 0; k < c->ng; k++)
        for (int i = 0; i < c->g[k].ncalls; i++)
            if (c->g[k].calls[i].recorded)
                return true;
    return false;
}

static void try_assign(matcher *m, int i)
{
    if (m->found)
        return;
    if (i == m->ng) {
        reporter quiet = {.on = false};
        for (int j = 0; j < m->ng && quiet.problems == 0; j++)
            compare_comm(&quiet, m->p, m->group[j], m->assign[j], m->only_world);
        /* every candidate must be someone's */
        for (int j = 0; j < m->nc; j++)
            if (!m->used[j])
                quiet.problems++;
        if (quiet.problems == 0) {
            m->found = true;
            memcpy(m->best, m->assign, sizeof m->best);
        }
        return;
    }
    for (int j = 0; j < m->nc; j++) {
        if (m->used[j])
            continue;
        m->used[j] = true;
        m->assign[i] = m->cand[j];
        try_assign(m, i + 1);
        m->used[j] = false;
    }
    if (!has_recorded(m->group[i], m->only_world)) {
        m->assign[i] = -1; /* calls all outside the window: may be absent */
        try_assign(m, i + 1);
    }
}

/* CPT_SABOTAGE=gcount: one count of the first recorded row of a collective
 * planned with cpt_plan expected off by one; groot: the first rooted call
 * expected with another root. */
static bool apply_generic_sabotage(void)
{
    bool root = strcmp(sabotage, "groot") == 0;
    if (!root && strcmp(sabotage, "gcount") != 0)
        return false;
    for (int i = 0; i < ncomms; i++)
        for (int k = 0; k < comms[i]->ng; k++) {
            cpt_gseries *s = &comms[i]->g[k];
            for (int call = 0; call < s->ncalls; call++) {
                cpt_gcall *g = &s->calls[call];
                if (!g->recorded)
                    continue;
                if (root && g->root >= 0) {
                    g->root++;
                } else if (root) {
                    continue;
                } else {
                    cpt_grow *row = NULL;
                    for (int d = 0; d < 2 && !row; d++)
                        for (int r = 0; r < comms[i]->n && !row; r++)
                            if (g->rows[d][r].len > 0)
                                row = &g->rows[d][r];
                    if (!row)
                        continue;
                    row->v[0]++;
                }
                fprintf(stderr, "%s: self-test: the expectations of '%s' %s call %d are "
                                "deliberately wrong (%s); the comparison must fail\n",
                        test_name, comms[i]->label, s->collective, call, sabotage);
                return true;
            }
        }
    cpt_die("CPT_SABOTAGE=%s: no call to sabotage", sabotage);
}

static void apply_sabotage(void)
{
    if (!sabotage)
        return;
    if (apply_generic_sabotage())
        return;
    cpt_series *s = NULL;
    cpt_comm *c0 = NULL;
    for (int i = 0; i < ncomms && !s; i++)
        if (comms[i]->s[CPT_V].ncalls > 1 && comms[i]->n > 1) {
            c0 = comms[i];
            s = &c0->s[CPT_V];
        }
    if (!s)
        cpt_die("CPT_SABOTAGE: no communicator with Alltoallv calls");
    int first = -1, lastrec = -1;
    for (int i = 0; i < s->ncalls; i++)
        if (s->calls[i].recorded) {
            if (first < 0)
                first = i;
            lastrec = i;
        }
    if (strcmp(sabotage, "count") == 0) {
        /* One call expected with other counts than were passed. */
        bump_series = s;
        bump_call = first;
        bump_rank = 1;
        bump_peer = 0;
    } else if (strcmp(sabotage, "index") == 0) {
        /* Expect numbering from 1: every call moves one index up. */
        if (s->ncalls == CPT_MAXCALLS)
            cpt_die("CPT_SABOTAGE=index: too many calls");
        memmove(&s->calls[1], &s->calls[0], (size_t)s->ncalls * sizeof s->calls[0]);
        s->calls[0].recorded = false;
        s->ncalls++;
    } else if (strcmp(sabotage, "missing") == 0) {
        /* Expect one call more than was made. */
        s->calls[s->ncalls] = s->calls[lastrec];
        s->ncalls++;
    } else if (strcmp(sabotage, "extra") == 0) {
        /* Expect a call that was recorded not to be. */
        s->calls[lastrec].recorded = false;
    } else if (strcmp(sabotage, "members") == 0) {
        /* Expect other members. */
        int t = c0->members[0];
        c0->members[0] = c0->members[1];
        c0->members[1] = t;
    } else {
        cpt_die("CPT_SABOTAGE=%s: expected count, index, missing, extra, members, gcount or "
                "groot", sabotage);
    }
    fprintf(stderr, "%s: self-test: the expectations of '%s' are deliberately wrong (%s); "
                    "the comparison must fail\n",
            test_name, c0->label, sabotage);
}

static int verdict(long problems)
{
    if (data_errors)
        fprintf(stderr, "FAIL: %s: rank %d received wrong data %ld times\n", test_name,
                world_rank, data_errors);
    problems += data_errors;
    if (world_rank != 0)
        return problems ? 1 : 0;
    if (sabotage) {
        if (problems == 0) {
            fprintf(stderr, "FAIL: %s: self-test '%s': the wrong expectation was NOT caught\n",
                    test_name, sabotage);
            return 1;
        }
        printf("%s: self-test '%s' PASS: the wrong expectation was caught (%ld problems)\n",
               test_name, sabotage, problems);
        return 0;
    }
    if (problems) {
        fprintf(stderr, "FAIL: %s: %ld problems\n", test_name, problems);
        return 1;
    }
    return 0;
}

/* Everything that is checked of a loaded profile.  only_world >= 0: the
 * partial profile of that world rank. */
/* The calls the plan recorded on world rank r: each timed by it. */
static long planned_rank_calls(int r)
{
    long n = 0;
    for (int i = 0; i < ncomms; i++) {
        if (comm_rank_of(comms[i], r) < 0)
            continue;
        for (int k = 0; k < CPT_NCOLL; k++)
            for (int j = 0; j < comms[i]->s[k].ncalls; j++)
                n += comms[i]->s[k].calls[j].recorded;
        for (int k = 0; k < comms[i]->ng; k++)
            for (int j = 0; j < comms[i]->g[k].ncalls; j++)
                n += comms[i]->g[k].calls[j].recorded;
    }
    return n;
}

/* A partial profile of a timed run holds its ranks' timed calls: rank
 * only_world's (or every rank's, merged) at their place in timings.cpt,
 * every call each recorded; the reader's timings count them all. */
static void verify_partial_timings(reporter *rp, const cp_profile *p, int only_world)
{
    if (!timing_on() || !p->has_manifest || !p->manifest.partial)
        return;
    if (!p->has_timings) {
        fail(rp, "%s: a partial profile of a timed run without its timed calls (timings.cpt)",
             p->dir);
        return;
    }
    if (p->timings.world_size != (uint64_t)world_size) {
        fail(rp, "%s: timings of %" PRIu64 " ranks, expected %d", p->dir, p->timings.world_size,
             world_size);
        return;
    }
    long all = 0;
    for (int r = 0; r < world_size; r++) {
        if (only_world >= 0 && r != only_world)
            continue;
        const cp_cpt_chunk *ch = &p->timings.chunks[r];
        long timed = 0;
        for (size_t i = 0; i < ch->nseries; i++)
            timed += (long)(ch->series[i].n + ch->series[i].naggregated);
        if (ch->missing || timed != planned_rank_calls(r))
            fail(rp, "%s: timings.cpt: rank %d timed %ld calls%s, it made %ld", p->dir, r, timed,
                 ch->missing ? " (its chunk is missing)" : "", planned_rank_calls(r));
        all += timed;
    }
    cp_timings t;
    cp_error err;
    if (cp_profile_timings(p, &t, &err) != 0) {
        fail(rp, "%s: the reader's timings: %s", p->dir, err.msg);
        return;
    }
    long rows = 0;
    for (size_t i = 0; i < t.nrows; i++)
        rows += (long)(t.rows[i].instances + t.rows[i].naggregated);
    if (rows != all)
        fail(rp, "%s: the reader's timings count %ld timed rank-calls, the file holds %ld",
             p->dir, rows, all);
    cp_timings_free(&t);
}

/* A partial profile holds its call sites too (unless call paths are off):
 * each rank's calls at the paths they came from, as `collprof callsites`
 * shows them, summing to every call each rank made (only_world: that
 * rank's folder read alone). */
static void verify_partial_callsites(reporter *rp, const cp_profile *p, int only_world)
{
    const char *depth = getenv("COLLPROF_CALLSITE_DEPTH");
    if (!p->has_manifest || !p->manifest.partial || (depth && !strcmp(depth, "0")))
        return;
    cp_callsite_row *rows;
    size_t n;
    cp_error err;
    if (cp_profile_callsites(p, false, &rows, &n, &err) != 0) {
        fail(rp, "%s: no call sites in a partial profile: %s", p->dir, err.msg);
        return;
    }
    long shown = 0, made = 0;
    for (size_t i = 0; i < n; i++)
        shown += (long)rows[i].calls;
    for (int r = 0; r < world_size; r++)
        if (only_world < 0 || r == only_world)
            made += planned_rank_calls(r);
    if (shown != made)
        fail(rp, "%s: the call sites hold %ld rank-calls in %zu paths, the ranks made %ld", p->dir,
             shown, n, made);
    /* The waiting found in the merged ranks' timed calls is at the call
     * sites too, all of it (every call here has a path). */
    cp_timings t;
    if (only_world < 0 && p->has_timings && cp_profile_timings(p, &t, &err) == 0) {
        double at_sites = 0, in_series = 0;
        for (size_t i = 0; i < n; i++)
            at_sites += rows[i].waiting;
        for (size_t i = 0; i < t.nrows; i++)
            for (int k = 0; k < CP_READER_NPATTERNS; k++)
                in_series += t.rows[i].wait[k];
        if (fabs(at_sites - in_series) > 1e-9 * (1 + in_series))
            fail(rp, "%s: the call sites hold %.9f s of waiting, the series %.9f s", p->dir,
                 at_sites, in_series);
        /* And the wait states' statistics (profile.stat's) hold every
         * instance, their sum each pattern's waiting. */
        const cp_stat_file *st = cp_profile_partial_stat(p);
        for (int k = 0; k < CP_READER_NPATTERNS; k++) {
            double sum = 0;
            uint64_t instances = 0;
            for (size_t i = 0; i < t.nrows; i++)
                sum += t.rows[i].wait[k], instances += t.rows[i].wait_instances[k];
            const cp_stat_pattern *sp = NULL;
            for (size_t i = 0; st && i < st->npatterns && !sp; i++)
                if (!strcmp(st->patterns[i].name, cp_reader_pattern_name(k)))
                    sp = &st->patterns[i];
            if (instances && (!sp || sp->count != instances ||
                              fabs(sp->sum - sum) > 1e-9 * (1 + sum)))
                fail(rp, "%s: the wait states' statistics of %s: %" PRIu64 " instances, sum "
                         "%.9f s; the series: %" PRIu64 ", %.9f s", p->dir,
                     cp_reader_pattern_name(k), sp ? sp->count : 0, sp ? sp->sum : 0.0,
                     instances, sum);
        }
        cp_timings_free(&t);
    }
    free(rows);
}

static void verify_profile(reporter *rp, cp_profile *p, int only_world, int flags)
{
    /* The manifest. */
    if (!p->has_manifest) {
        fail(rp, "%s: no manifest", p->dir);
    } else {
        if (only_world < 0 && p->manifest.partial && !(flags & CPT_CHECK_MERGED))
            fail(rp, "manifest.json says partial (%s) after a normal MPI_Finalize",
                 p->manifest.partial_reason);
        if ((flags & CPT_CHECK_MERGED) && !p->manifest.partial)
            fail(rp, "%s: the merged partial profiles are not marked partial", p->dir);
        if (only_world >= 0 && (!p->manifest.partial || !p->manifest.partial_reason[0]))
            fail(rp, "%s/manifest.json: not marked \"partial\": true with a reason", p->dir);
        if (p->manifest.world_size != world_size)
            fail(rp, "%s/manifest.json: world size %" PRId64 ", expected %d", p->dir,
                 p->manifest.world_size, world_size);
        if (p->manifest.format_version != CP_MANIFEST_FORMAT_VERSION ||
            p->manifest.counts_format_version != CP_COUNTS_FORMAT_VERSION)
            fail(rp, "%s/manifest.json: format versions %d/%d, expected %d/%d", p->dir,
                 p->manifest.format_version, p->manifest.counts_format_version,
                 CP_MANIFEST_FORMAT_VERSION, CP_COUNTS_FORMAT_VERSION);
        if (flags & CPT_CHECK_CONFIG)
            check_config(rp, p);
        for (size_t i = 0; i < p->manifest.ncomms; i++)
            for (size_t j = 0; j < i; j++)
                if (p->manifest.comms[i].id == p->manifest.comms[j].id)
                    fail(rp, "%s/manifest.json: communicator id %" PRId64 " listed twice",
                         p->dir, p->manifest.comms[i].id);
    }
    const char *cz = getenv("COLLPROF_COMPRESS");
    check_compression(rp, p, cz && strcmp(cz, "gzip") == 0);

    verify_partial_timings(rp, p, only_world);
    verify_partial_callsites(rp, p, only_world);

    /* The reader's own validation. */
    long nchk = flags & CPT_CHECK_PROFILE ? cp_profile_check(p, stderr) : 0;
    if (nchk != 0)
        fail(rp, "%s: cp_profile_check reports %ld problems (lines above)", p->dir, nchk);

    /* Every communicator, grouped by membership. */
    bool done[CPT_MAXCOMMS] = {false};
    int64_t assigned[CPT_MAXCOMMS * 2];
    const cpt_comm *assigned_c[CPT_MAXCOMMS * 2]; /* NULL: not the test's (reported) */
    int nassigned = 0;
    for (int i = 0; i < ncomms; i++) {
        if (done[i])
            continue;
        matcher m;
        memset(&m, 0, sizeof m);
        m.p = p;
        m.only_world = only_world;
        for (int j = i; j < ncomms; j++)
            if (!done[j] && same_groups(comms[j], comms[i])) {
                done[j] = true;
                m.group[m.ng++] = comms[j];
            }
        m.nc = cpt_find_comms(p, comms[i], m.cand, CPT_MAXCOMMS);
        try_assign(&m, 0);
        if (!m.found) {
            /* Report against the order of first use (declaration order). */
            char mem[256];
            members_str(comms[i], mem, sizeof mem);
            int need = 0;
            for (int j = 0; j < m.ng; j++)
                need += has_recorded(m.group[j], only_world);
            if (m.nc < need || m.nc > m.ng)
                fail(rp, "%s/manifest.json: %d communicator(s) with world ranks %s, the test "
                         "created %d (%d with recorded calls)",
                     p->dir, m.nc, mem, m.ng, need);
            for (int j = 0; j < m.ng; j++)
                m.best[j] = j < m.nc ? m.cand[j] : -1;
            for (int j = 0; j < m.ng; j++)
                compare_comm(rp, p, m.group[j], m.best[j], only_world);
        }
        for (int j = 0; j < m.ng; j++)
            if (m.best[j] >= 0) {
                assigned_c[nassigned] = m.group[j];
                assigned[nassigned++] = m.best[j];
            }
        for (int j = 0; j < m.nc; j++) {
            bool mine = false;
            for (int k = 0; k < m.ng; k++)
                mine |= m.best[k] == m.cand[j];
            if (!mine) {
                assigned_c[nassigned] = NULL;
                assigned[nassigned++] = m.cand[j]; /* reported above */
            }
        }
    }
    /* Communicators the test did not create. */
    for (size_t i = 0; p->has_manifest && i < p->manifest.ncomms; i++) {
        bool known = false;
        for (int j = 0; j < nassigned; j++)
            known |= assigned[j] == p->manifest.comms[i].id;
        if (!known) {
            char g[256];
            ranges_str(&p->manifest.comms[i].members, g, sizeof g);
            fail(rp, "%s/manifest.json lists communicator id %" PRId64 " (world ranks %s) that "
                     "the test did not create",
                 p->dir, p->manifest.comms[i].id, g);
        }
    }
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++) {
            bool known = false;
            const cpt_comm *owner = NULL;
            for (int j = 0; j < nassigned; j++)
                if (assigned[j] == p->files[f].blocks[b].comm_id) {
                    known = true;
                    owner = assigned_c[j];
                }
            if (!known)
                fail(rp, "%s: block of communicator id %" PRId64 " (%s), which the test did "
                         "not create",
                     p->files[f].path, p->files[f].blocks[b].comm_id,
                     p->files[f].blocks[b].collective);
            const char *coll = p->files[f].blocks[b].collective;
            /* Alltoallv and Alltoall: compared by compare_comm on every
             * communicator; any other collective only where it was planned */
            bool planned = (strcmp(coll, "Alltoallv") == 0 || strcmp(coll, "Alltoall") == 0) ||
                           (owner && gseries_find(owner, coll));
            if (known && owner && !planned)
                fail(rp, "%s: block of collective %s (communicator id %" PRId64 ", '%s'), which "
                         "the test never called on that communicator",
                     p->files[f].path, coll, p->files[f].blocks[b].comm_id, owner->label);
            else if (!planned && !owner) {
                bool anywhere = false;
                for (int j = 0; j < ncomms; j++)
                    anywhere |= gseries_find(comms[j], coll) != NULL;
                if (!anywhere)
                    fail(rp, "%s: block of collective %s (communicator id %" PRId64 "), which "
                             "the test never called",
                         p->files[f].path, coll, p->files[f].blocks[b].comm_id);
            }
        }
}

static long planned_calls(void)
{
    long n = 0;
    for (int i = 0; i < ncomms; i++) {
        for (int k = 0; k < CPT_NCOLL; k++)
            n += comms[i]->s[k].ncalls;
        for (int k = 0; k < comms[i]->ng; k++)
            n += comms[i]->g[k].ncalls;
    }
    return n;
}

int cpt_load_output(cp_profile *p)
{
    reporter rp = {.on = true};
    return load_complete(p, &rp);
}

int cpt_verify(void)
{
    if (world_rank != 0)
        return verdict(0);
    reporter rp = {.on = true};
    apply_sabotage();
    cp_profile p;
    if (load_complete(&p, &rp) != 0)
        return verdict(rp.problems);
    verify_profile(&rp, &p, -1, CPT_CHECK_PROFILE | CPT_CHECK_CONFIG);
    if (rp.problems == 0 && !sabotage)
        printf("%s: PASS: %d communicators, %ld calls, every count of every call exact\n",
               test_name, ncomms, planned_calls());
    cp_profile_free(&p);
    return verdict(rp.problems);
}

int cpt_verify_partial(const char *dir, int rank, int flags)
{
    reporter rp = {.on = true};
    if (rank == 0)
        apply_sabotage();
    cp_profile p;
    cp_error err;
    if (cp_profile_load(dir, &p, &err) != 0) {
        fail(&rp, "the reader cannot load %s: %s", dir, err.msg);
        return verdict(rp.problems);
    }
    verify_profile(&rp, &p, rank, flags);
    if (rp.problems == 0 && !sabotage)
        printf("%s: PASS: partial profile of rank %d: its rows of every call exact%s\n",
               test_name, rank, flags & CPT_CHECK_PROFILE ? ", cp_profile_check: no problem" : "");
    cp_profile_free(&p);
    return (int)rp.problems;
}

long cpt_verify_merged(const char *dir)
{
    reporter rp = {.on = true};
    cp_profile p;
    cp_error err;
    if (cp_profile_load(dir, &p, &err) != 0) {
        fail(&rp, "the reader cannot merge the partial profiles in %s: %s", dir, err.msg);
        return rp.problems;
    }
    if (p.npartials != (size_t)world_size || p.absent.n)
        fail(&rp, "%s: the reader merged the partial profiles of %zu ranks, expected %d", dir,
             p.npartials, world_size);
    verify_profile(&rp, &p, -1, CPT_CHECK_PROFILE | CPT_CHECK_MERGED);
    if (rp.problems == 0)
        printf("%s: the reader merges the partial profiles of all %d ranks into the complete "
               "profile: every count of every call exact\n",
               test_name, world_size);
    cp_profile_free(&p);
    return rp.problems;
}

int cpt_verify_dir(const char *dir)
{
    reporter rp = {.on = true};
    apply_sabotage();
    cp_profile p;
    cp_error err;
    if (cp_profile_load(dir, &p, &err) != 0) {
        fail(&rp, "the reader cannot load %s: %s", dir, err.msg);
        return verdict(rp.problems);
    }
    verify_profile(&rp, &p, -1, CPT_CHECK_PROFILE | CPT_CHECK_CONFIG);
    if (rp.problems == 0 && !sabotage)
        printf("%s: PASS: %d communicators, %ld calls, every count of every call exact\n",
               test_name, ncomms, planned_calls());
    cp_profile_free(&p);
    return verdict(rp.problems);
}

void cpt_init_offline(const char *name, int size)
{
    test_name = name;
    world_rank = 0;
    world_size = size;
    if (size > CPT_MAXRANKS || size < 1)
        cpt_die("1 to %d ranks", CPT_MAXRANKS);
    sabotage = getenv("CPT_SABOTAGE");
    if (sabotage && !*sabotage)
        sabotage = NULL;
    read_selection();
}

int cpt_offline_verdict(long problems)
{
    return verdict(problems);
}

uint64_t cpt_cube_mpi_visits(const cp_cube *c, const char *region, int l)
{
    int64_t visits = -1;
    for (size_t m = 0; m < c->nmetrics; m++)
        if (!strcmp(c->metrics[m].uniq_name, "visits"))
            visits = (int64_t)m;
    if (visits < 0)
        return UINT64_MAX;
    uint64_t got = 0;
    for (size_t cn = 0; cn < c->ncnodes; cn++) {
        const cp_cube_region *reg = &c->regions[c->cnodes[cn].region];
        if (!strcmp(reg->name, region) && !strcmp(reg->paradigm, "mpi"))
            got += cp_cube_get_u64(c, (size_t)visits, cn, (size_t)l);
    }
    return got;
}

int cpt_read_output_cube(cp_cube *c, const char *who)
{
    const char *dir = getenv("COLLPROF_OUTPUT_DIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/profile.cubex", dir ? dir : ".");
    cp_error err;
    if (cp_cubex_read(path, c, &err)) {
        printf("%s: FAIL: %s\n", who, err.msg);
        return 1;
    }
    return 0;
}
