/*
 * Call paths: the same collective issued from four functions of this
 * program (one of them calls it from two lines) and from a shared library,
 * on every rank (address-space layout randomisation on: the addresses
 * differ between ranks).  Run with COLLPROF_CALLSITE_DEPTH=2.  Rank 0
 * checks after MPI_Finalize that
 *  - the manifest's call tree has exactly one node per call site (every
 *    rank resolved its own addresses to the same module + address), with
 *    main as its caller, in the right module;
 *  - addr2line on (module, address - 1) gives the file and line of the call;
 *  - each count block lists the call path that issued its calls (each
 *    function passes its own count, so each has its own block);
 *  - profile.cubex has each function once under main (f_four too: a prefix
 *    tree of functions), the collective under it once per call site with
 *    the right visits on every rank, joined to its call site;
 *  - profile.stat's instance for the delayed call points at that cnode.
 * CPT_SABOTAGE=line expects the wrong lines: passes only if that is caught.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

#include "callsite_lib.h"
#include "collprof/reader.h"
#include "cubex.h"
#include "stat.h"

#define DELAY 0.2
#define TEST_NAME "test_callsites"
#include "fail.h"

static int line_one, line_two, line_three, line_four_a, line_four_b;
/* Loop bounds the compiler cannot see: an unrolled loop would be several
 * call sites (which collprof rightly tells apart). */
static volatile int two = 2, three = 3, four = 4;


__attribute__((noinline)) void f_one(void)
{
    int in[8] = {0}, out[8];
    line_one = __LINE__ + 1;
    MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

__attribute__((noinline)) void f_two(void)
{
    int in[8] = {0}, out[8];
    for (int i = 0; i < two; i++) {
        line_two = __LINE__ + 1;
        MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

__attribute__((noinline)) void f_three(int rank)
{
    int in[8] = {0}, out[8];
    for (int i = 0; i < three; i++) {
        if (i == 2 && rank == 1) {
            struct timespec ts = {0, (long)(DELAY * 1e9)};
            nanosleep(&ts, NULL);
        }
        line_three = __LINE__ + 1;
        MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* Two call sites of one collective in one function: one Cube node
 * f_four, two MPI_Allreduce nodes below it. */
__attribute__((noinline)) void f_four(void)
{
    int in[8] = {0}, out[8];
    line_four_a = __LINE__ + 1;
    MPI_Allreduce(in, out, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < two; i++) {
        line_four_b = __LINE__ + 1;
        MPI_Allreduce(in, out, 6, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* The call sites in call order, their counts (= rows), calls and lines. */
typedef struct site {
    const char *function, *file;
    int count, ncalls, first_call;
    const int *line;
    int64_t node;   /* manifest call-tree id */
    int64_t cnode;  /* cube cnode of the Allreduce under it */
} site;

static site sites[] = {
    {"f_one", "test_callsites.c", 1, 1, 0, &line_one, -1, -1},
    {"f_two", "test_callsites.c", 2, 2, 1, &line_two, -1, -1},
    {"f_three", "test_callsites.c", 3, 3, 3, &line_three, -1, -1},
    {"cpt_lib_allreduce", "callsite_lib.c", 4, 4, 6, &cpt_lib_line, -1, -1},
    {"f_four", "test_callsites.c", 5, 1, 10, &line_four_a, -1, -1},
    {"f_four", "test_callsites.c", 6, 2, 11, &line_four_b, -1, -1},
};
#define NSITES (sizeof sites / sizeof sites[0])

/* "file:line" of module+address with addr2line, into file / *line. */
static int addr2line(const char *module, uint64_t address, char *file, size_t size, int *line)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%llx", module,
             (unsigned long long)(address - 1));
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char out[4096] = "";
    char *ok = fgets(out, sizeof out, p);
    pclose(p);
    char *colon = ok ? strrchr(out, ':') : NULL;
    if (!colon)
        return -1;
    *colon = '\0';
    const char *base = strrchr(out, '/');
    snprintf(file, size, "%s", base ? base + 1 : out);
    *line = atoi(colon + 1);
    return 0;
}

static void check_tree(const cp_manifest *m, bool sabotage)
{
    if (m->ncall_tree == 0) {
        FAIL("manifest.json has no call tree");
        return;
    }
    char self[PATH_MAX];
    if (!realpath("/proc/self/exe", self))
        self[0] = '\0';
    for (size_t s = 0; s < NSITES; s++) {
        site *x = &sites[s];
        int found = 0, nodes = 0, want = *x->line + (sabotage ? 1 : 0), sites_of_fn = 0;
        for (size_t k = 0; k < NSITES; k++)
            sites_of_fn += !strcmp(sites[k].function, x->function);
        for (size_t i = 0; i < m->ncall_tree; i++) {
            const cp_callsite_node *n = &m->call_tree[i];
            if (strcmp(n->function, x->function))
                continue;
            nodes++;
            if (n->parent < 0 || strcmp(m->call_tree[n->parent].function, "main"))
                FAIL("%s: called from '%s', expected main", x->function,
                     n->parent < 0 ? "(nothing)" : m->call_tree[n->parent].function);
            char mod[PATH_MAX];
            if (!realpath(n->module, mod))
                snprintf(mod, sizeof mod, "%s", n->module);
            bool in_lib = strstr(mod, "libcptcallsite") != NULL;
            bool lib = !strcmp(x->file, "callsite_lib.c");
            if (lib ? !in_lib : strcmp(mod, self))
                FAIL("%s: module %s, expected %s", x->function, n->module,
                     lib ? "the shared library" : self);
            char file[1024];
            int line = -1;
            if (addr2line(n->module, n->address, file, sizeof file, &line) == 0 &&
                !strcmp(file, x->file) && line == want) {
                found++;
                x->node = (int64_t)i;
            }
        }
        if (found != 1 || nodes != sites_of_fn)
            FAIL("%s: %d call-tree nodes at %s:%d of %d in the function, expected 1 of %d (every "
                 "rank's addresses resolved to one module + address per call site)",
                 x->function, found, x->file, want, nodes, sites_of_fn);
    }
}

static void check_blocks(const cp_profile *p)
{
    for (size_t s = 0; s < NSITES; s++) {
        site *x = &sites[s];
        const cp_block *b = cp_profile_find(p, 0, "Allreduce", CP_SEND, x->first_call);
        if (!b) {
            FAIL("%s: no Allreduce block with call %d", x->function, x->first_call);
            continue;
        }
        if (b->nrows < 1 || b->rows[0].len != 1 || b->rows[0].counts[0] != x->count)
            FAIL("%s: the block of call %d has not count %d", x->function, x->first_call,
                 x->count);
        if (cp_ranges_count(&b->calls) != x->ncalls)
            FAIL("%s: block of %lld calls, expected %d", x->function,
                 (long long)cp_ranges_count(&b->calls), x->ncalls);
        if (b->callsites.n != 1 || b->callsites.v[0].lo != x->node ||
            b->callsites.v[0].hi != x->node)
            FAIL("%s: block's Callsites are not exactly call path %lld", x->function,
                 (long long)x->node);
    }
}

static void check_cube(const cp_profile *p, const cp_cube *c, int n)
{
    int64_t visits = cp_cube_find_metric(c, "visits");
    if (visits < 0)
        FAIL("profile.cubex has no metric visits");
    /* a prefix tree of functions: each once under main */
    for (size_t s = 0; s < NSITES; s++) {
        int nodes = 0;
        for (size_t i = 0; i < c->ncnodes; i++)
            nodes += !strcmp(c->regions[c->cnodes[i].region].name, sites[s].function);
        if (nodes != 1)
            FAIL("profile.cubex: %d nodes of %s, expected 1", nodes, sites[s].function);
    }
    cp_error err;
    int64_t *site_of = cp_cube_callsite_of(p, c, &err);
    if (!site_of) {
        FAIL("%s", err.msg);
        return;
    }
    for (size_t s = 0; s < NSITES && visits >= 0; s++) {
        site *x = &sites[s];
        for (size_t i = 0; i < c->ncnodes; i++) {
            const cp_cube_cnode *cn = &c->cnodes[i];
            if (site_of[i] != x->node || x->node < 0)
                continue;
            if (x->cnode >= 0 || strcmp(c->regions[cn->region].name, "MPI_Allreduce") ||
                cn->parent < 0 ||
                strcmp(c->regions[c->cnodes[cn->parent].region].name, x->function))
                FAIL("profile.cubex: cnode %zu (%s) stands for the call in %s at line %d",
                     i, c->regions[cn->region].name, x->function, *x->line);
            x->cnode = (int64_t)i;
            for (int r = 0; r < n; r++)
                if (cp_cube_get_u64(c, (size_t)visits, i, (size_t)r) != (uint64_t)x->ncalls)
                    FAIL("profile.cubex: rank %d: %llu visits of MPI_Allreduce from %s:%d, "
                         "expected %d",
                         r, (unsigned long long)cp_cube_get_u64(c, (size_t)visits, i, (size_t)r),
                         x->function, *x->line, x->ncalls);
        }
        if (x->cnode < 0)
            FAIL("profile.cubex: no MPI_Allreduce node for the call in %s at line %d",
                 x->function, *x->line);
    }
    free(site_of);
}

static void check_stat(const cp_stat_file *st)
{
    for (size_t i = 0; i < st->npatterns; i++) {
        const cp_stat_pattern *p = &st->patterns[i];
        if (strcmp(p->name, "mpi_wait_nxn"))
            continue;
        const cp_stat_event *e = &p->events[0];
        if (p->nevents < 1 || e->cnode != sites[2].cnode || e->rank == 1 ||
            fabs(e->duration - DELAY) > 0.2 * DELAY)
            FAIL("profile.stat: the worst mpi_wait_nxn is at cnode %lld (rank %lld, %.4f s), "
                 "expected cnode %lld (MPI_Allreduce from f_three), rank 0 or 2, about %.1f s",
                 (long long)e->cnode, (long long)e->rank, e->duration,
                 (long long)sites[2].cnode, DELAY);
        return;
    }
    FAIL("profile.stat: no mpi_wait_nxn");
}

/* What `collprof callsites` prints: one row per function, the right line,
 * calls over all ranks. */
static void check_reader(const cp_profile *p, int n, bool sabotage)
{
    cp_callsite_row *rows;
    size_t nrows;
    cp_error err;
    if (cp_profile_callsites(p, true, &rows, &nrows, &err)) {
        FAIL("%s", err.msg);
        return;
    }
    if (nrows != NSITES)
        FAIL("collprof callsites: %zu call paths, expected %zu", nrows, NSITES);
    for (size_t i = 0; i < NSITES; i++) {
        const site *x = &sites[i];
        const cp_callsite_row *r = NULL;
        for (size_t k = 0; k < nrows && !r; k++)
            if (rows[k].id == x->node)
                r = &rows[k];
        if (!r) {
            FAIL("collprof callsites: no row for call path %lld (%s at line %d)",
                 (long long)x->node, x->function, *x->line);
            continue;
        }
        const char *file = strrchr(r->source.file, '/');
        file = file ? file + 1 : r->source.file;
        if (strcmp(r->node->function, x->function) || strcmp(file, x->file) ||
            r->source.line != *x->line + (sabotage ? 1 : 0) ||
            r->calls != (uint64_t)(x->ncalls * n) || strcmp(r->collectives, "Allreduce"))
            FAIL("collprof callsites: row %lld is %s %s:%lld, %llu calls; expected %s "
                 "%s:%d, %d calls",
                 (long long)r->id, r->node->function, file, (long long)r->source.line,
                 (unsigned long long)r->calls, x->function, x->file, *x->line, x->ncalls * n);
    }
    free(rows);
}

static int verify(int n)
{
    const char *dir = getenv("COLLPROF_OUTPUT_DIR");
    const char *sab = getenv("CPT_SABOTAGE");
    bool sabotage = sab && !strcmp(sab, "line");
    cp_profile p;
    cp_error err;
    if (cp_profile_load(dir, &p, &err)) {
        FAIL("%s", err.msg);
        return 1;
    }
    check_tree(&p.manifest, sabotage);
    check_blocks(&p);
    check_reader(&p, n, sabotage);
    char path[4200];
    cp_cube cube;
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    if (cp_cubex_read(path, &cube, &err)) {
        FAIL("%s", err.msg);
    } else {
        check_cube(&p, &cube, n);
        cp_cube_free(&cube);
        cp_stat_file st;
        snprintf(path, sizeof path, "%s/profile.stat", dir);
        if (cp_stat_read(path, &st, &err)) {
            FAIL("%s", err.msg);
        } else {
            check_stat(&st);
            cp_stat_file_free(&st);
        }
    }
    cp_profile_free(&p);
    if (sabotage) {
        printf("test_callsites: wrong lines %s\n", nerrors ? "were caught" : "were NOT caught");
        return nerrors ? 0 : 1;
    }
    if (!nerrors)
        printf("test_callsites: every rank's calls attributed to the right function and line\n");
    return nerrors ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    f_one();
    f_two();
    f_three(rank);
    for (int i = 0; i < four; i++)
        cpt_lib_allreduce(4);
    f_four();
    MPI_Finalize();
    return rank == 0 ? verify(n) : 0;
}
