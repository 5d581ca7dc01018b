/*
 * Wait states: ranks sleep a known time before chosen calls, and the profile
 * must blame the right ranks in the right calls, with waiting times within
 * 20% of the injected delay - in profile.cubex (per rank), profile.stat
 * (the listed instances) and timings.cpt (the aligned enter times).
 *
 * On n >= 3 ranks, with delay D:
 *   Alltoall   rank 1 late by D   -> mpi_wait_nxn on every other rank
 *   Barrier    rank 2 late        -> mpi_barrier_wait on every other rank
 *   Bcast      root 0 late        -> mpi_latebroadcast on every other rank
 *   Scan       rank 0 late        -> mpi_earlyscan on every other rank
 *   Reduce     all but root 1 late -> mpi_earlyreduce on the root only
 *   Allreduce  nobody late        -> no wait beyond 20% of D anywhere
 * (Each step leaves the ranks in step for the next: a rank that left the
 * previous call early would otherwise wait in the next one.)
 *
 * usage: test_waits [barrier] [documented] [hosts=H0,H1,...] [delay=SECONDS]
 *   barrier: run under COLLPROF_TIMING=barrier: the late arrival is also in
 *   the late_arrival metric; documented: COLLPROF_STAT_LAYOUT=documented (a
 *   MetricID column, events without ranks); hosts: the host name each rank
 *   must report.
 * CPT_SABOTAGE=blame expects the wrong ranks: passes only if that is caught.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

#include "cpt.h"
#include "cubex.h"
#include "stat.h"

static double delay = 0.2;
#define TEST_NAME "test_waits"
#include "fail.h"

static void sleep_for(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* The plan: who is late in which collective, and who must wait. */
typedef struct step {
    const char *region, *pattern;
    int late;     /* the rank that sleeps; ALL_BUT_ROOT: every rank but the root */
    int root;     /* -1 when not rooted */
    int waiter;   /* -1: every rank but `late` waits; else only this one */
} step;

#define ALL_BUT_ROOT (-2)

static const step plan[] = {
    {"MPI_Alltoall", "mpi_wait_nxn", 1, -1, -1},
    {"MPI_Barrier", "mpi_barrier_wait", 2, -1, -1},
    {"MPI_Bcast", "mpi_latebroadcast", 0, 0, -1},
    {"MPI_Scan", "mpi_earlyscan", 0, -1, -1},
    {"MPI_Reduce", "mpi_earlyreduce", ALL_BUT_ROOT, 1, 1},
};

static bool is_late(const step *s, int r)
{
    return s->late == ALL_BUT_ROOT ? r != s->root : r == s->late;
}
#define NSTEPS (sizeof plan / sizeof plan[0])

static void run(int rank, int n)
{
    int *sb = calloc((size_t)n, sizeof *sb), *rb = calloc((size_t)n, sizeof *rb);
    int x = rank, y = 0;
    for (size_t i = 0; i < NSTEPS; i++) {
        if (is_late(&plan[i], rank))
            sleep_for(delay);
        switch (i) {
        case 0: MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD); break;
        case 1: MPI_Barrier(MPI_COMM_WORLD); break;
        case 2: MPI_Bcast(&x, 1, MPI_INT, plan[i].root, MPI_COMM_WORLD); break;
        case 3: MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
        case 4: MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, plan[i].root, MPI_COMM_WORLD); break;
        }
    }
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(sb);
    free(rb);
}

/* ---------------------------------------------------------------- checks */

static int64_t metric_of(const cp_cube *c, const char *name)
{
    int64_t m = cp_cube_find_metric(c, name);
    if (m < 0)
        FAIL("profile.cubex has no metric %s", name);
    return m;
}

static int64_t cnode_of(const cp_cube *c, const char *region)
{
    for (size_t i = 0; i < c->ncnodes; i++)
        if (!strcmp(c->regions[c->cnodes[i].region].name, region))
            return (int64_t)i;
    FAIL("profile.cubex has no call path to %s", region);
    return -1;
}

static bool near(double v, double want)
{
    return fabs(v - want) <= 0.2 * want;
}

static bool must_wait(const step *s, int r, bool sabotage)
{
    bool w = s->waiter >= 0 ? r == s->waiter : !is_late(s, r);
    return sabotage ? !w : w;
}

static void check_cube(const cp_cube *c, int n, bool barrier, bool sabotage)
{
    if ((int)c->nlocations != n)
        FAIL("profile.cubex has %zu locations, expected %d", c->nlocations, n);
    for (size_t i = 0; i < NSTEPS; i++) {
        const step *s = &plan[i];
        int64_t m = metric_of(c, s->pattern), cn = cnode_of(c, s->region);
        if (m < 0 || cn < 0)
            continue;
        for (int r = 0; r < n && r < (int)c->nlocations; r++) {
            double v = cp_cube_get_double(c, (size_t)m, (size_t)cn, (size_t)r);
            if (must_wait(s, r, sabotage) ? !near(v, delay) : v > 0.2 * delay)
                FAIL("%s in %s, rank %d: %.4f s, expected %s %.3f s", s->pattern, s->region, r,
                     v, must_wait(s, r, sabotage) ? "about" : "well under", delay);
        }
        /* Barrier mode: the wait for the late rank happens in collprof's
         * barrier, before the MPI call proper. */
        int64_t late = barrier && s->waiter < 0 && strcmp(s->region, "MPI_Barrier")
                           ? metric_of(c, "late_arrival") : -1;
        for (int r = 0; late >= 0 && r < n; r++) {
            double v = cp_cube_get_double(c, (size_t)late, (size_t)cn, (size_t)r);
            if (!is_late(s, r) && !near(v, delay))
                FAIL("late_arrival in %s, rank %d: %.4f s, expected about %.3f s", s->region,
                     r, v, delay);
        }
    }
    /* Nobody waits in the Allreduce. */
    int64_t m = metric_of(c, "mpi_wait_nxn"), cn = cnode_of(c, "MPI_Allreduce");
    for (int r = 0; m >= 0 && cn >= 0 && r < n; r++)
        if (cp_cube_get_double(c, (size_t)m, (size_t)cn, (size_t)r) > 0.2 * delay)
            FAIL("mpi_wait_nxn in MPI_Allreduce on rank %d, where nobody was late", r);
}

/* The most severe instance of each pattern is listed, at the right call
 * path and rank. */
static void check_stat(const cp_stat_file *st, const cp_cube *c, bool sabotage)
{
    for (size_t i = 0; i < NSTEPS; i++) {
        const step *s = &plan[i];
        const cp_stat_pattern *p = NULL;
        for (size_t j = 0; j < st->npatterns; j++)
            if (!strcmp(st->patterns[j].name, s->pattern))
                p = &st->patterns[j];
        if (!p) {
            FAIL("profile.stat has no pattern %s", s->pattern);
            continue;
        }
        int64_t cn = cnode_of(c, s->region);
        const cp_stat_event *e = NULL;
        for (size_t j = 0; j < p->nevents; j++)
            if (p->events[j].cnode == cn)
                e = &p->events[j];
        if (!e) {
            FAIL("profile.stat: no %s instance at cnode %lld (%s)", s->pattern, (long long)cn,
                 s->region);
            continue;
        }
        if (st->layout == CP_STAT_LAYOUT_DOCUMENTED) {
            if (p->metric_id != metric_of(c, s->pattern) || e->rank != -1)
                FAIL("profile.stat (documented layout): %s has MetricID %lld, the cube's id "
                     "is %lld; event rank %lld",
                     s->pattern, (long long)p->metric_id, (long long)metric_of(c, s->pattern),
                     (long long)e->rank);
            if (!near(e->duration, delay))
                FAIL("profile.stat: %s at %s waits %.4f s", s->pattern, s->region, e->duration);
        } else if (!must_wait(s, (int)e->rank, sabotage) || !near(e->duration, delay))
            FAIL("profile.stat: %s at %s blames rank %lld for %.4f s", s->pattern, s->region,
                 (long long)e->rank, e->duration);
        if (!(e->exit >= e->enter && e->duration <= e->exit - e->enter + 1e-9))
            FAIL("profile.stat: %s instance enter %.6f exit %.6f duration %.6f", s->pattern,
                 e->enter, e->exit, e->duration);
    }
}

/* Aligned clocks: the late rank entered the Alltoall about D after the
 * others, on one time line, even across (pretended) hosts. */
static void check_cpt(const cp_cpt_file *f, int n, char **hosts)
{
    if ((int)f->world_size != n)
        FAIL("timings.cpt: world size %llu, expected %d", (unsigned long long)f->world_size, n);
    double enter[64] = {0};
    for (int r = 0; r < n && r < (int)f->world_size && r < 64; r++) {
        const cp_cpt_chunk *ch = &f->chunks[r];
        if (hosts && strcmp(ch->hostname, hosts[r]))
            FAIL("timings.cpt: rank %d on host %s, expected %s", r, ch->hostname, hosts[r]);
        const cp_cpt_series *s = NULL;
        for (size_t j = 0; j < ch->nseries; j++)
            if (!strcmp(ch->series[j].collective, "Alltoall"))
                s = &ch->series[j];
        if (!s || s->n != 1) {
            FAIL("timings.cpt: rank %d has no single timed Alltoall", r);
            continue;
        }
        enter[r] = s->enter[0];
        if (!(s->exit[0] >= s->start[0] && s->start[0] >= s->enter[0]))
            FAIL("timings.cpt: rank %d: enter %.6f start %.6f exit %.6f out of order", r,
                 s->enter[0], s->start[0], s->exit[0]);
    }
    for (int r = 0; r < n && r < 64; r++)
        if (r != plan[0].late && !near(enter[plan[0].late] - enter[r], delay))
            FAIL("timings.cpt: rank %d entered the Alltoall %.4f s before rank %d, expected "
                 "about %.3f s (clock alignment)",
                 r, enter[plan[0].late] - enter[r], plan[0].late, delay);
    if (!f->chunks[0].has_aggregates)
        FAIL("timings.cpt: rank 0's chunk has no aggregates");
}

static void check_hosts(const cp_cube *c, int n, char **hosts)
{
    for (int r = 0; r < n && r < (int)c->nlocations; r++) {
        int64_t h = c->location_host[r];
        if (h < 0 || (size_t)h >= c->nhosts || strcmp(c->hosts[h].name, hosts[r]))
            FAIL("profile.cubex: rank %d on host %s, expected %s", r,
                 h >= 0 && (size_t)h < c->nhosts ? c->hosts[h].name : "(none)", hosts[r]);
    }
    size_t distinct = 0;
    for (int r = 0; r < n; r++) {
        bool seen = false;
        for (int q = 0; q < r; q++)
            seen |= !strcmp(hosts[q], hosts[r]);
        distinct += !seen;
    }
    if (c->nhosts != distinct)
        FAIL("profile.cubex: %zu hosts, expected %zu", c->nhosts, distinct);
}

static int verify(int n, bool barrier, bool documented, char **hosts)
{
    const char *dir = getenv("COLLPROF_OUTPUT_DIR");
    const char *sab = getenv("CPT_SABOTAGE");
    bool sabotage = sab && !strcmp(sab, "blame");
    char path[4200];
    cp_error err;
    cp_cube cube;
    cp_stat_file st;
    cp_cpt_file cpt;
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    if (cp_cubex_read(path, &cube, &err)) {
        FAIL("%s", err.msg);
        return 1;
    }
    check_cube(&cube, n, barrier, sabotage);
    if (hosts)
        check_hosts(&cube, n, hosts);
    snprintf(path, sizeof path, "%s/profile.stat", dir);
    if (cp_stat_read(path, &st, &err))
        FAIL("%s", err.msg);
    else {
        if ((st.layout == CP_STAT_LAYOUT_DOCUMENTED) != documented)
            FAIL("profile.stat is not in the %s layout", documented ? "documented" : "CubeGUI");
        check_stat(&st, &cube, sabotage);
        cp_stat_file_free(&st);
    }
    snprintf(path, sizeof path, "%s/timings.cpt", dir);
    if (cp_cpt_read(path, &cpt, &err))
        FAIL("%s", err.msg);
    else {
        check_cpt(&cpt, n, hosts);
        cp_cpt_file_free(&cpt);
    }
    cp_cube_free(&cube);
    if (sabotage) {
        printf("test_waits: sabotaged expectations %s\n",
               nerrors ? "were caught, as they must be" : "were NOT caught");
        return nerrors ? 0 : 1;
    }
    if (!nerrors)
        printf("test_waits: every pattern blames the right ranks within 20%% of %.3f s\n", delay);
    return nerrors ? 1 : 0;
}

int main(int argc, char **argv)
{
    bool barrier = false, documented = false;
    char **hosts = NULL;
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "barrier"))
            barrier = true;
        else if (!strcmp(argv[i], "documented"))
            documented = true;
        else if (!strncmp(argv[i], "delay=", 6))
            delay = atof(argv[i] + 6);
        else if (!strncmp(argv[i], "hosts=", 6)) {
            hosts = calloc((size_t)n, sizeof *hosts);
            char *p = argv[i] + 6;
            for (int r = 0; r < n && hosts; r++) {
                hosts[r] = p;
                p += strcspn(p, ",");
                if (*p)
                    *p++ = '\0';
            }
        }
    }
    if (n < 3) {
        if (rank == 0)
            fprintf(stderr, "test_waits: needs at least 3 ranks\n");
        MPI_Finalize();
        return 1;
    }
    run(rank, n);
    MPI_Finalize();
    int rc = rank == 0 ? verify(n, barrier, documented, hosts) : 0;
    free(hosts);
    return rc;
}
