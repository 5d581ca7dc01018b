/*
 * The scale simulator's Cube stage: profile.cubex of P virtual ranks
 * written as finalize writes it (lib/finalize/finalize_profile.c): rank 0
 * holds the metadata (metrics, regions, call tree, the P locations of the
 * system tree) and a batch of rows at a time, at most 64 MiB, which the
 * ranks' values fill (a gather per batch) and anchor.xml, built in memory
 * (mostly the XML of the P locations); the real writer
 * (cp_cubex_write_rows) takes the rows as they come.  Every rank's column
 * is generated (visits, time, bytes at the root, main and the collective's
 * call site), the file is parsed back and every value compared (exact).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cubex.h"
#include "scale_sim.h"

#define ROWS_BYTES ((uint64_t)64 << 20)
#define RANKS_PER_HOST 16

enum { M_VISITS, M_TIME, M_BYTES, NMETRICS };

/* Rank r's value of metric m at cnode id c (0 root, 1 main, 2 the call). */
static uint64_t value(int64_t r, int m, size_t c)
{
    if (m == M_VISITS)
        return c == 0 ? 1 : c == 2 ? 20 : 0;
    if (m == M_BYTES)
        return c == 2 ? 1000 + (uint64_t)(sim_mix((uint64_t)r) % 1000) : 0;
    double t = c == 0 ? 10.0 + (double)(sim_mix((uint64_t)r * 3) % 1000) * 1e-3
               : c == 2 ? (double)(sim_mix((uint64_t)r * 5) % 1000) * 1e-4 : 0;
    uint64_t raw;
    memcpy(&raw, &t, sizeof raw);
    return raw;
}

typedef struct cube_sim {
    int64_t P;
    size_t ncnodes, rows, per_batch, start, n, next;
    uint64_t *all;      /* rank 0's batch: P values per row */
    size_t row_m[NMETRICS * 3], row_c[NMETRICS * 3];
    double recv, cpu;
} cube_sim;

static void batch(cube_sim *x)
{
    size_t n = x->rows - x->start - x->n < x->per_batch ? x->rows - x->start - x->n
                                                         : x->per_batch;
    x->start += x->n;
    x->n = n;
    /* each rank's values of the batch's rows, as the gather delivers them */
    for (int64_t r = 0; r < x->P; r++)
        for (size_t i = 0; i < n; i++)
            x->all[(size_t)r * n + i] = value(r, (int)x->row_m[x->start + i],
                                              x->row_c[x->start + i]);
    x->recv += (double)(x->P - 1) * (double)n * 8;
}

static int row(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    cube_sim *x = ctx;
    if (x->next == x->start + x->n)
        batch(x);
    size_t i = x->next++ - x->start;
    if (x->row_m[x->start + i] != m || x->row_c[x->start + i] != cnode)
        return -1;
    for (int64_t r = 0; r < x->P; r++)
        raw[r] = x->all[(size_t)r * x->n + i];
    return 0;
}

void sim_cube(int64_t P, const char *dir, double *bytes, double *lead_recv_mib,
              double *lead_peak_mib, double *lead_cpu, bool *exact)
{
    double t0 = sim_cpu_now();
    cp_cube c;
    if (cp_cube_init(&c, (size_t)P))
        sim_die("out of memory for the Cube metadata");
    static const struct { const char *name; cp_cube_dtype dt; } ms[NMETRICS] = {
        {"visits", CP_CUBE_UINT64}, {"time", CP_CUBE_DOUBLE}, {"bytes_sent", CP_CUBE_UINT64}};
    for (int m = 0; m < NMETRICS; m++) {
        cp_cube_metric mt;
        memset(&mt, 0, sizeof mt);
        snprintf(mt.uniq_name, sizeof mt.uniq_name, "%s", ms[m].name);
        snprintf(mt.disp_name, sizeof mt.disp_name, "%s", ms[m].name);
        mt.dtype = ms[m].dt;
        if (cp_cube_add_metric(&c, &mt) < 0)
            sim_die("metric");
    }
    static const char *const regs[3] = {"app", "main", "MPI_Alltoallv"};
    for (int i = 0; i < 3; i++) {
        cp_cube_region rg;
        memset(&rg, 0, sizeof rg);
        snprintf(rg.name, sizeof rg.name, "%s", regs[i]);
        snprintf(rg.paradigm, sizeof rg.paradigm, "%s", i == 2 ? "mpi" : "user");
        rg.begin = rg.end = -1;
        if (cp_cube_add_region(&c, &rg) < 0)
            sim_die("region");
    }
    for (int64_t h = 0; h * RANKS_PER_HOST < P; h++) {
        char name[32];
        snprintf(name, sizeof name, "node%05" PRId64, h);
        if (cp_cube_add_host(&c, name) < 0)
            sim_die("host");
    }
    for (int64_t r = 0; r < P; r++)
        cp_cube_set_location_host(&c, (size_t)r, r / RANKS_PER_HOST);
    int64_t root = cp_cube_tree_add(&c, -1, 0, -1, "");
    int64_t mn = cp_cube_tree_add(&c, root, 1, -1, "");
    if (cp_cube_tree_add(&c, mn, 2, -1, "") < 0 || cp_cube_tree_finish_meta(&c, NULL))
        sim_die("call tree");
    /* The non-zero rows (the maximum over the ranks' columns). */
    cube_sim x = {.P = P, .ncnodes = c.ncnodes};
    uint8_t nz[NMETRICS * 3] = {0};
    for (int m = 0; m < NMETRICS; m++)
        for (size_t cn = 0; cn < c.ncnodes; cn++)
            for (int64_t r = 0; r < P && !nz[m * 3 + cn]; r++)
                if (value(r, m, cn)) {
                    nz[m * 3 + cn] = 1;
                    x.row_m[x.rows] = (size_t)m;
                    x.row_c[x.rows++] = cn;
                }
    uint64_t cap = ROWS_BYTES / (8 * (uint64_t)P);
    x.per_batch = cap < 1 ? 1 : cap < x.rows ? (size_t)cap : x.rows;
    x.all = malloc((size_t)P * x.per_batch * sizeof *x.all);
    if (!x.all)
        sim_die("out of memory for a batch");
    char path[4200];
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    cp_error err;
    if (cp_cubex_write_rows(path, &c, nz, row, &x, &err))
        sim_die(err.msg);
    *lead_cpu = sim_cpu_now() - t0;
    struct stat st;
    *bytes = stat(path, &st) == 0 ? (double)st.st_size : 0;
    /* rank 0 held: the metadata (locations and hosts mostly), a batch, and
     * anchor.xml, which the writer builds in memory (the file less its
     * rows: the XML of the P locations, mostly) */
    double meta = (double)P * sizeof *c.location_host + (double)c.nhosts * sizeof *c.hosts;
    double anchor = *bytes - (double)x.rows * (double)P * 8;
    *lead_peak_mib = (meta + (double)P * (double)x.per_batch * 8 + anchor) / 1048576.0;
    *lead_recv_mib = x.recv / 1048576.0;
    /* Exact: every value read back. */
    cp_cube back;
    *exact = cp_cubex_read(path, &back, &err) == 0;
    for (int m = 0; *exact && m < NMETRICS; m++)
        for (size_t cn = 0; cn < 3; cn++)
            for (int64_t r = 0; r < P; r++) {
                uint64_t want = value(r, m, cn), got;
                memcpy(&got, (const char *)back.values[m] + (cn * (size_t)P + (size_t)r) * 8, 8);
                if (got != want) {
                    *exact = false;
                    break;
                }
            }
    if (*exact)
        cp_cube_free(&back);
    remove(path);
    sim_charge(0, x.recv, *lead_cpu, (size_t)(*lead_peak_mib * 1048576.0));
    free(x.all);
    cp_cube_free(&c);
}
