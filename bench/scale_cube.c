/*
 * The scale simulator's Cube stage: profile.cubex of P virtual ranks
 * through finalize's own code (writers/cubex_build.c and merge/cube_rows.c, as
 * lib/finalize/finalize_profile.c runs it over MPI): rank 0 builds the
 * metadata from the job's sites, call paths and where every rank ran
 * (cp_cube_build_meta); every rank fills its column from its own sites
 * (cp_cube_build_column); the rows some rank has a value in go to rank 0
 * a batch at a time (cp_cube_rows: at most 16 MiB held there), each
 * rank's values as the gather delivers them, and the real writer
 * (cp_cubex_write_rows) takes them as they come.  Read back, every value
 * of every rank must equal its column (exact).
 *
 * The job: every rank calls MPI_Alltoallv from main > solve > exchange
 * and from main > solve > norm, MPI_Allreduce from norm; every 1,000th
 * rank also MPI_Alltoallv from main > checkpoint; 16 ranks a host.  Rank 0
 * holds the metadata (the hosts, the P locations' hosts), one batch of
 * rows and anchor.xml, which the writer builds in memory (the file less
 * its rows: the XML of the P locations, mostly).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectives.h"
#include "cube_rows.h"
#include "cubex_build.h"
#include "cubex.h"
#include "mpi_names.h"
#include "scale_sim.h"

#define RANKS_PER_HOST 16
#define NCALL_TREE 5
#define NCNODES (1 + NCALL_TREE + 4) /* the program, the functions, the call sites */

/* The job's call paths: main > solve > {exchange, norm}, main > checkpoint. */
static void call_tree(cp_callsite_node *t)
{
    static const struct { const char *fn; int64_t parent; uint64_t address; } n[NCALL_TREE] = {
        {"main", -1, 0x1010}, {"solve", 0, 0x1110}, {"exchange", 1, 0x2010},
        {"norm", 1, 0x2210}, {"checkpoint", 0, 0x3010}};
    for (int i = 0; i < NCALL_TREE; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].parent = n[i].parent;
        t[i].address = n[i].address;
        snprintf(t[i].function, sizeof t[i].function, "%s", n[i].fn);
        snprintf(t[i].module, sizeof t[i].module, "/apps/solver");
    }
}

/* Rank r's sites (path: the call-tree node that called MPI); returns how
 * many (at most 4). */
static size_t sites_of(int64_t r, cp_site *s)
{
    static const struct { uint32_t coll, path; } at[4] = {
        {CP_COLL_ALLTOALLV, 2}, {CP_COLL_ALLTOALLV, 3}, {CP_COLL_ALLREDUCE, 3},
        {CP_COLL_ALLTOALLV, 4}};
    size_t n = r % 1000 == 0 ? 4 : 3;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = sim_mix((uint64_t)r * 8 + i);
        s[i] = (cp_site){.rank = r, .coll = at[i].coll, .form = CP_FORM_BLOCKING,
                         .path = at[i].path};
        s[i].s.visits = s[i].s.ntimed = s[i].s.nrecords = 20;
        s[i].s.bytes_sent = s[i].s.bytes_recv = 1000 + h % 1000;
        s[i].s.time = (double)(h % 1000) * 1e-4;
        s[i].s.min = s[i].s.max = s[i].s.time / 20;
        s[i].s.wait[CP_WAIT_NXN] = (double)(h >> 20 & 0xff) * 1e-6;
    }
    return n;
}

static double wall_of(int64_t r)
{
    return 10.0 + (double)(sim_mix((uint64_t)r * 3) % 1000) * 1e-3;
}

/* One virtual rank's column, as finalize fills it on that rank. */
typedef struct cube_sim {
    int64_t P;
    const int64_t *metric;
    const cp_cube_sites *sc;
    int64_t root;
    cp_cube_column col;  /* scratch: one rank's column */
    double recv;         /* rank 0 received */
    double gather_cpu;   /* CPU time in the simulated gathers (every rank's) */
    bool same;           /* rank 0's values in the gather are its own column's */
} cube_sim;

static void column_of(cube_sim *x, int64_t r)
{
    cp_site s[4];
    size_t n = sites_of(r, s);
    memset(x->col.raw, 0, x->col.nmetrics * x->col.ncnodes * sizeof *x->col.raw);
    cp_cube_build_column(&x->col, x->metric, x->sc, x->root, s, n, wall_of(r));
}

/* The gather of one batch (cp_cube_gather_fn): each rank's values of the
 * batch's rows, as MPI_Gather delivers them to rank 0. */
static int gather(void *ctx, const size_t *cells, const uint64_t *mine, size_t n, uint64_t *all)
{
    cube_sim *x = ctx;
    double t0 = sim_cpu_now();
    for (int64_t r = 0; r < x->P; r++) {
        column_of(x, r);
        for (size_t i = 0; i < n; i++) {
            all[(size_t)r * n + i] = x->col.raw[cells[i]];
            if (r == 0 && x->col.raw[cells[i]] != mine[i])
                x->same = false;
        }
    }
    x->recv += (double)(x->P - 1) * (double)n * 8;
    x->gather_cpu += sim_cpu_now() - t0;
    return 0;
}

void sim_cube(int64_t P, const char *dir, double *bytes, double *lead_recv_mib,
              double *lead_peak_mib, double *lead_cpu, bool *exact)
{
    /* Rank 0: the metadata, from what the sites stage gave it. */
    cp_callsite_node tree[NCALL_TREE];
    call_tree(tree);
    cp_job_hosts hosts = {.nranks = P, .nnodes = (uint32_t)((P + RANKS_PER_HOST - 1) /
                                                            RANKS_PER_HOST)};
    hosts.node = malloc((size_t)P * sizeof *hosts.node);
    hosts.name = calloc(hosts.nnodes, sizeof *hosts.name);
    if (!hosts.node || !hosts.name)
        sim_die("out of memory for the hosts");
    for (int64_t r = 0; r < P; r++)
        hosts.node[r] = (uint32_t)(r / RANKS_PER_HOST);
    size_t host_bytes = (size_t)P * sizeof *hosts.node;
    for (uint32_t h = 0; h < hosts.nnodes; h++) {
        char name[32];
        snprintf(name, sizeof name, "node%05" PRIu32, h);
        if (!(hosts.name[h] = strdup(name)))
            sim_die("out of memory for the hosts");
        host_bytes += strlen(name) + 1 + sizeof *hosts.name;
    }
    cp_site s0[4];
    size_t nk = sites_of(0, s0); /* rank 0 has every site of the job */
    int64_t keys[4];
    for (size_t i = 0; i < nk; i++)
        keys[i] = cp_site_key(s0[i].coll, s0[i].form, s0[i].path);
    for (size_t i = 1; i < nk; i++) /* ascending */
        for (size_t j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
            int64_t t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    const char *const attrs[][2] = {{"collprof version", "scale simulator"}};
    cp_cube_job job = {.keys = keys, .nkeys = nk, .call_tree = tree, .ncall_tree = NCALL_TREE,
                       .hosts = &hosts, .timing = true, .barrier = false, .program = "solver",
                       .machine = "simulated", .attrs = attrs, .nattrs = 1};
    double t0 = sim_cpu_now();
    cp_cube c;
    memset(&c, 0, sizeof c);
    int64_t metric[CP_CM_SLOTS], root;
    cp_cube_sites sc = {0};
    if (cp_cube_build_meta(&job, &c, metric, &sc, &root))
        sim_die("out of memory for the Cube metadata");
    double cpu0 = sim_cpu_now() - t0;
    bool good = c.ncnodes == NCNODES;

    /* Every rank: its column; which rows anyone has a value in (the
     * maximum finalize agrees on). */
    size_t cells = c.nmetrics * c.ncnodes;
    cube_sim x = {.P = P, .metric = metric, .sc = &sc, .root = root, .same = true};
    x.col = (cp_cube_column){calloc(cells, sizeof(uint64_t)), c.nmetrics, c.ncnodes, c.metrics};
    uint8_t *any = calloc(cells, 1);
    if (!x.col.raw || !any)
        sim_die("out of memory for a column");
    for (int64_t r = 0; r < P; r++) {
        double t1 = sim_cpu_now();
        column_of(&x, r);
        for (size_t i = 0; i < cells; i++)
            any[i] |= x.col.raw[i] != 0;
        sim_charge(r, 0, sim_cpu_now() - t1, cells * (sizeof(uint64_t) + 2));
    }
    /* Rank 0: its column, the batches, the writer. */
    cp_cube_column mine = {calloc(cells, sizeof(uint64_t)), c.nmetrics, c.ncnodes, c.metrics};
    if (!mine.raw)
        sim_die("out of memory for a column");
    column_of(&x, 0);
    memcpy(mine.raw, x.col.raw, cells * sizeof *mine.raw);
    cp_cube_rows rows;
    if (cp_cube_rows_start(&rows, mine.raw, mine.nmetrics, mine.ncnodes, any, P,
                           CP_CUBE_BATCH_BYTES, true, gather, &x))
        sim_die("out of memory for a batch");
    cp_cube_rows_count(&rows);
    char path[4200];
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    cp_error err;
    t0 = sim_cpu_now();
    if (cp_cubex_write_rows(path, &c, any, cp_cube_rows_next, &rows, &err))
        sim_die(err.msg);
    /* The gathers ran every rank's column, P per batch: the other ranks'
     * work, not rank 0's (its part of MPI_Gather, receiving the batch, is
     * the MPI library's copy of P x 8 bytes a row: 0.05 s for 540 MB). */
    *lead_cpu = cpu0 + sim_cpu_now() - t0 - x.gather_cpu;
    struct stat st;
    *bytes = stat(path, &st) == 0 ? (double)st.st_size : 0;
    double meta = (double)P * sizeof *c.location_host + (double)c.nhosts * sizeof *c.hosts +
                  (double)host_bytes;
    /* anchor.xml: written a chunk at a time, beside the ranks' order by host */
    double anchor = 2.0 * CP_CUBEX_ANCHOR_CHUNK + (double)P * sizeof(size_t) +
                    (double)(c.nhosts + 1) * sizeof(size_t);
    *lead_peak_mib =
        (meta + (double)P * (double)rows.per_batch * 8 + anchor) / 1048576.0;
    *lead_recv_mib = x.recv / 1048576.0;
    good &= x.same && rows.done == rows.rows && !rows.failed;
    /* Exact: every value of every rank read back. */
    cp_cube back;
    bool read = cp_cubex_read(path, &back, &err) == 0;
    good &= read && back.ncnodes == c.ncnodes && back.nmetrics == c.nmetrics;
    for (int64_t r = 0; good && r < P; r++) {
        column_of(&x, r);
        for (size_t m = 0; good && m < c.nmetrics; m++)
            for (size_t cn = 0; cn < c.ncnodes; cn++) {
                uint64_t got;
                memcpy(&got, (const char *)back.values[m] + (cn * (size_t)P + (size_t)r) * 8, 8);
                if (got != x.col.raw[m * c.ncnodes + cn]) {
                    good = false;
                    break;
                }
            }
    }
    if (read)
        cp_cube_free(&back);
    *exact = good;
    remove(path);
    sim_charge(0, x.recv, *lead_cpu, (size_t)(*lead_peak_mib * 1048576.0));
    cp_cube_rows_free(&rows);
    free(mine.raw);
    free(x.col.raw);
    free(any);
    cp_cube_sites_free(&sc);
    cp_cube_free(&c);
    cp_job_hosts_free(&hosts);
}
