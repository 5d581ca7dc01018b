/*
 * The timed fixture directory (timing_fixture.h).
 */
#include "timing_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"
#include "cpt.h"
#include "cubex.h"
#include "manifest.h"
#include "reader_fixture.h"
#include "stat.h"

#define NRANKS 3

static void need(bool ok)
{
    if (!ok) {
        fprintf(stderr, "timing fixture: out of memory\n");
        abort();
    }
}

void tfx_times(int64_t comm, const char *collective, int64_t r, uint64_t k, double *enter,
               double *exit)
{
    double dk = (double)k, dr = (double)r;
    if (comm == 0 && strcmp(collective, "Alltoallv") == 0) {
        *enter = 10 * dk + (r == 2 ? 1 : 0);
        *exit = 10 * dk + 2 + dr / 4 + dk / 2;
    } else if (comm == 0 && strcmp(collective, "Gatherv") == 0) {
        *enter = 40 + dr / 2;
        *exit = (const double[]){41.5, 40.75, 41.25}[r];
    } else {
        *enter = 50 + 10 * dk;
        *exit = *enter + (r == 0 ? 0.0001 * (dk + 1) : 0.01);
    }
}

/* The fixture's (communicator, collective) pairs: calls, root, cnode. */
static const struct coll {
    int64_t comm;
    const char *name;
    uint64_t calls;
    int32_t root;
    size_t cnode;
} colls[] = {
    {0, "Alltoallv", 3, -1, 1},
    {0, "Gatherv", 1, 0, 2},
    {1, "Alltoall", 4, -1, 3},
};
#define NCOLLS (sizeof colls / sizeof colls[0])

static bool member(const struct coll *c, int64_t r)
{
    return c->comm == 0 || r != 1; /* communicator 1: world ranks 2, 0 */
}

static void fill_series(cp_cpt_series *s, const struct coll *c, int64_t r)
{
    memset(s, 0, sizeof *s);
    s->comm_id = c->comm;
    snprintf(s->collective, sizeof s->collective, "%s", c->name);
    s->n = c->calls;
    need((s->call = calloc(s->n, sizeof *s->call)) && (s->enter = calloc(s->n, sizeof(double))) &&
         (s->start = calloc(s->n, sizeof(double))) && (s->exit = calloc(s->n, sizeof(double))) &&
         (s->root = calloc(s->n, sizeof *s->root)) && (s->flags = calloc(s->n, 1)));
    for (uint64_t k = 0; k < s->n; k++) {
        s->call[k] = k;
        tfx_times(c->comm, c->name, r, k, &s->enter[k], &s->exit[k]);
        s->start[k] = s->enter[k];
        s->root[k] = c->root;
    }
}

static void build_cpt(cp_cpt_file *f)
{
    memset(f, 0, sizeof *f);
    f->version[0] = CP_CPT_VERSION_MAJOR;
    snprintf(f->mode, sizeof f->mode, "fixture MPI");
    f->flags = CP_CPT_COUNTS | CP_CPT_TIMING | CP_CPT_LOCATION;
    f->world_size = NRANKS;
    need((f->chunks = calloc(NRANKS, sizeof *f->chunks)) != NULL);
    for (int64_t r = 0; r < NRANKS; r++) {
        cp_cpt_chunk *ch = &f->chunks[r];
        ch->rank = r;
        snprintf(ch->hostname, sizeof ch->hostname, "%s", r < 2 ? "a" : "b");
        ch->node = r < 2 ? 0 : 1;
        ch->pid = 1000 + (int32_t)r;
        need((ch->series = calloc(NCOLLS, sizeof *ch->series)) != NULL);
        for (size_t i = 0; i < NCOLLS; i++)
            if (member(&colls[i], r))
                fill_series(&ch->series[ch->nseries++], &colls[i], r);
    }
}

static void add_metric(cp_cube *c, const char *name, cp_cube_dtype dtype)
{
    cp_cube_metric m = {.dtype = dtype};
    snprintf(m.uniq_name, sizeof m.uniq_name, "%s", name);
    snprintf(m.disp_name, sizeof m.disp_name, "%s", name);
    snprintf(m.uom, sizeof m.uom, "%s", dtype == CP_CUBE_UINT64 ? "occ" : "sec");
    need(cp_cube_add_metric(c, &m) >= 0);
}

static void add_region(cp_cube *c, const char *name, const char *paradigm)
{
    cp_cube_region r = {.begin = -1, .end = -1};
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.mangled_name, sizeof r.mangled_name, "%s", name);
    snprintf(r.paradigm, sizeof r.paradigm, "%s", paradigm);
    snprintf(r.role, sizeof r.role, "%s", paradigm[0] == 'm' ? "collective" : "function");
    need(cp_cube_add_region(c, &r) >= 0);
}

/* Metrics 0 visits, 1 time, 2... the patterns; cnodes as in colls[]. */
static void build_cube(cp_cube *c)
{
    need(cp_cube_init(c, NRANKS) == 0);
    snprintf(c->machine, sizeof c->machine, "fixture");
    add_metric(c, "visits", CP_CUBE_UINT64);
    add_metric(c, "time", CP_CUBE_DOUBLE);
    for (int p = 0; p < CP_READER_NPATTERNS; p++)
        add_metric(c, cp_reader_pattern_name(p), CP_CUBE_DOUBLE);
    add_region(c, "fixture", "user");
    int64_t root = cp_cube_tree_add(c, -1, 0, -1, NULL);
    for (size_t i = 0; i < NCOLLS; i++) {
        char name[64];
        snprintf(name, sizeof name, "MPI_%s", colls[i].name);
        add_region(c, name, "mpi");
        need(cp_cube_tree_add(c, root, (int64_t)i + 1, -1, NULL) >= 0);
    }
    need(cp_cube_tree_finish(c, NULL) == 0);
    need(cp_cube_add_host(c, "a") == 0 && cp_cube_add_host(c, "b") == 1);
    int64_t nxn = cp_cube_find_metric(c, "mpi_wait_nxn");
    for (int64_t r = 0; r < NRANKS; r++) {
        need(cp_cube_set_location_host(c, (size_t)r, r < 2 ? 0 : 1) == 0);
        cp_cube_add_u64(c, 0, 0, (size_t)r, 1);
        for (size_t i = 0; i < NCOLLS; i++) {
            if (!member(&colls[i], r))
                continue;
            cp_cube_add_u64(c, 0, colls[i].cnode, (size_t)r, colls[i].calls);
            for (uint64_t k = 0; k < colls[i].calls; k++) {
                double enter, exit;
                tfx_times(colls[i].comm, colls[i].name, r, k, &enter, &exit);
                cp_cube_add_double(c, 1, colls[i].cnode, (size_t)r, exit - enter);
            }
        }
        if (r < 2) /* Alltoallv: ranks 0 and 1 wait 1 s for rank 2 in each call */
            cp_cube_add_double(c, (size_t)nxn, 1, (size_t)r, 3);
    }
}

static void build_stat(cp_stat_file *s)
{
    memset(s, 0, sizeof *s);
    s->layout = CP_STAT_LAYOUT_CUBEGUI;
    cp_stat_pattern *p = cp_stat_file_add(s, "mpi_wait_nxn");
    need(p != NULL);
    double waits[6] = {1, 1, 1, 1, 1, 1};
    cp_stat_summarize(p, waits, 6);
    p->events[p->nevents++] = (cp_stat_event){.cnode = 1, .enter = 0, .exit = 2, .duration = 1};
}

void tfx_build(tfx *t)
{
    memset(t, 0, sizeof *t);
    build_cube(&t->cube);
    build_stat(&t->stat);
    build_cpt(&t->cpt);
}

void tfx_free(tfx *t)
{
    cp_cube_free(&t->cube);
    cp_stat_file_free(&t->stat);
    cp_cpt_file_free(&t->cpt);
    memset(t, 0, sizeof *t);
}

/* The reader fixture's manifest, listing the timing files too. */
static int list_files(const char *path, const tfx *t, cp_error *err)
{
    static const char *const names[] = {"profile.cubex", "profile.stat", "timings.cpt"};
    cp_manifest m;
    if (cp_manifest_parse_file(path, &m, err) != 0)
        return -1;
    char **nf = realloc(m.files, (m.nfiles + 3) * sizeof *nf);
    need(nf != NULL);
    m.files = nf;
    for (size_t i = 0; i < 3; i++)
        if (!t->unlisted || strcmp(t->unlisted, names[i]) != 0)
            need((m.files[m.nfiles++] = strdup(names[i])) != NULL);
    int rc = cp_manifest_write_file(path, false, &m, err);
    cp_manifest_free(&m);
    return rc;
}

int tfx_write(const char *dir, const tfx *t, cp_error *err)
{
    char path[4096];
    if (fx_write(dir, FX_GOOD, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (list_files(path, t, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    if (!t->skip_cube && cp_cubex_write(path, &t->cube, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/profile.stat", dir);
    if (!t->skip_stat && cp_stat_write(path, &t->stat, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/timings.cpt", dir);
    return t->skip_cpt ? 0 : cp_cpt_write(path, &t->cpt, err);
}
