/*
 * The timing sample (2-4 ranks, run with COLLPROF_TIMING_SAMPLE=8): which
 * calls keep their own times is decided by call index alone, thinned as the
 * series grows, the same on every rank; every call still counts, exactly,
 * in the time per call path.
 *
 * 100 MPI_Alltoall on MPI_COMM_WORLD.  With at most 8 kept calls the sample
 * goes up to blocks of 16 calls: it keeps the call cp_timing_chosen(j, 4)
 * (collectors/timing.c) of each block j, 6 or 7 calls; the others are timed
 * in aggregate only.  Rank 1 sleeps D before the kept call of block 3 and
 * before another call of that block (not kept).  Checked:
 *   timings.cpt  every rank keeps exactly those calls, with stride 16, and
 *                says the rest are aggregated; on rank 0, the delayed kept
 *                call took about D;
 *   profile.cubex  visits 100 per rank; rank 0's time in MPI_Alltoall is
 *                at least 2 D (both delays: the aggregates are exact), its
 *                mpi_wait_nxn a whole-run estimate: the sample's waiting per
 *                second in the call times that exact time, so at least most
 *                of the 2 D that rank 0 waited (the kept call is nearly all
 *                waiting) and never more than its time in the calls (a
 *                weight of 16 per kept call would say 16 D).
 *
 * Then NSELF MPI_Barrier on MPI_COMM_SELF, the same call over and over, the
 * kind whose times the call memo adds up itself (8-bit counts per
 * histogram bucket, emptied as they fill): every call is in the histogram
 * and counted as kept or aggregated, and one bucket holds many times more
 * calls than an 8-bit count (else the run did not show what it is for).
 *
 * Then, on MPI_COMM_WORLD, NFAST MPI_Barrier and NSLOW more before each of
 * which rank 1 sleeps SLOW_MS: rank 0's durations move by ten octaves
 * (further than the memo's buckets reach: they follow).  In every series
 * of every rank, each call lies within its bucket's bounds, so the
 * histogram brackets the exact time in the calls (timings.cpt's per-site
 * times).
 *
 * Then NFEW MPI_Allreduce on MPI_COMM_WORLD, rank 1 sleeping FEW_MS
 * before call FEW_LATE: a series with fewer calls than its share keeps
 * every one, the repeated ones in slots the call memo took for them ahead
 * of the calls (call_memo.h) and gave back at finalize.  Every rank keeps
 * each call once, in its own place, and no more; rank 0's record of call
 * FEW_LATE holds that call's own time.
 *
 * With `long`: then NLONG MPI_Allgather on MPI_COMM_WORLD, rank 1 sleeping
 * LONG_S before the last, a call the memo counts that lasts more than
 * 2^32 ticks on rank 0 (whatever its clock: ns, or a counter of
 * 0.96 GHz or more): beyond the memo's 32-bit fields, its time goes
 * to the series' timing, and the job's longest Allgather is that call.
 *
 * Every kept call of every series of every rank lies within the run, on
 * world rank 0's time line (seconds from its start): from before MPI_Init
 * to MPI_Finalize as the program measured it on rank 0.
 *
 * usage: test_sample [delay=SECONDS] [long]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

#include "cpt.h"
#include "cubex.h"
#include "timing.h"

#define NCALLS 100
#define STRIDE 16 /* the block after 100 calls with 8 kept at most */
#define LEVEL 4
#define NFAST 20
#define NSLOW 30
#define SLOW_MS 5
#define NFEW 6   /* fewer than the 8 kept at most */
#define FEW_LATE 4
#define FEW_MS 60
#define NLONG 4
#define LONG_S 4.5 /* > 2^32 ns, and > 2^32 ticks of any counter of 0.96 GHz or more */
#define NSELF 20000 /* far past 255 in one bucket: a barrier alone takes
                       about the same few ticks each time */

/* The sample's seed, as the run is told it (COLLPROF_TIMING_SEED; the
 * manifest must record it). */
static uint64_t seed(void)
{
    const char *v = getenv("COLLPROF_TIMING_SEED");
    return v ? strtoull(v, NULL, 10) : 0;
}

/* The call the run's sample keeps in block b. */
static uint64_t chosen(uint64_t b)
{
    return cp_timing_chosen_seeded(b, LEVEL, seed());
}

/* The kept call of block 3, and another call of that block. */
static uint64_t delayed_kept(void)
{
    return chosen(3);
}

static uint64_t delayed_other(void)
{
    return 3 * STRIDE + (delayed_kept() - 3 * STRIDE + 5) % STRIDE;
}

/* Blocks whose kept call came within the run. */
static int blocks_kept(void)
{
    int n = 0;
    while (chosen((uint64_t)n) < NCALLS)
        n++;
    return n;
}

static double delay = 0.2;
#define TEST_NAME "test_sample"
#include "fail.h"

static bool near(double v, double want)
{
    return fabs(v - want) <= 0.25 * want;
}

/* The series of collective `name` in rank r's chunk, or NULL. */
static const cp_cpt_series *series_of(const cp_cpt_file *f, int r, const char *name)
{
    const cp_cpt_chunk *ch = &f->chunks[r];
    for (size_t j = 0; j < ch->nseries; j++)
        if (!strcmp(ch->series[j].collective, name))
            return &ch->series[j];
    return NULL;
}

/* Each call's duration is within its bucket's bounds (bucket 0 holds the
 * shorter ones, the last the longer), so the histogram brackets the exact
 * time in the calls, summed over the series' sites. */
static void check_brackets(const cp_cpt_series *s, int r)
{
    double exact = 0, lo = 0, hi = 0;
    bool open = false;
    for (uint32_t i = 0; i < s->nsites; i++)
        exact += s->site_time[i];
    for (uint32_t i = 0; i < s->hist_n; i++) {
        uint32_t b = s->hist_lo + i;
        double l, h;
        cp_timing_hist_bounds(b, &l, &h);
        lo += (double)s->hist[i] * (b == 0 ? 0 : l) * s->tick;
        hi += (double)s->hist[i] * h * s->tick;
        open |= b == CP_TIMING_HIST_N - 1 && s->hist[i];
    }
    if (!s->nsites || exact < lo * (1 - 1e-9) || (!open && exact > hi * (1 + 1e-9)))
        FAIL("timings.cpt: rank %d, comm %lld %s: %.9f s in the calls (%u sites), outside the "
             "histogram's bounds [%.9f, %.9f] s",
             r, (long long)s->comm_id, s->collective, exact, s->nsites, lo, hi);
}

static void check_self_barriers(const cp_cpt_file *f, int n)
{
    for (int r = 0; r < n && r < (int)f->world_size; r++) {
        const cp_cpt_chunk *ch = &f->chunks[r];
        const cp_cpt_series *s = NULL; /* the busiest Barrier series: on self */
        for (size_t j = 0; j < ch->nseries; j++)
            if (!strcmp(ch->series[j].collective, "Barrier") &&
                (!s || ch->series[j].n + ch->series[j].naggregated > s->n + s->naggregated))
                s = &ch->series[j];
        if (!s) {
            FAIL("timings.cpt: rank %d has no Barrier series", r);
            continue;
        }
        uint64_t hist = 0, most = 0;
        for (uint32_t i = 0; i < s->hist_n; i++) {
            hist += s->hist[i];
            most = s->hist[i] > most ? s->hist[i] : most;
        }
        if (hist != NSELF || s->n + s->naggregated != NSELF)
            FAIL("timings.cpt: rank %d: %llu barriers in the histogram, %llu kept and %llu "
                 "aggregated; expected %d calls",
                 r, (unsigned long long)hist, (unsigned long long)s->n,
                 (unsigned long long)s->naggregated, NSELF);
        if (most <= 4 * UINT8_MAX)
            FAIL("timings.cpt: rank %d: no bucket holds more than %llu barriers: the run did "
                 "not fill an 8-bit count several times", r, (unsigned long long)most);
    }
}

/* The short Allreduce series: every call kept once, in order, each record
 * its own call's (rank 0 waits out rank 1's sleep in call FEW_LATE; on a
 * loaded machine another call may take as long, so only that one's
 * length is asserted). */
static void check_few(const cp_cpt_file *f, int n)
{
    for (int r = 0; r < n && r < (int)f->world_size; r++) {
        const cp_cpt_series *s = series_of(f, r, "Allreduce");
        if (!s || s->n != NFEW || s->naggregated != 0 || s->stride != 1) {
            FAIL("timings.cpt: rank %d keeps %llu Allreduce calls, aggregates %llu, stride "
                 "%llu; expected all %d, none, 1",
                 r, s ? (unsigned long long)s->n : 0ULL,
                 s ? (unsigned long long)s->naggregated : 0ULL,
                 s ? (unsigned long long)s->stride : 0ULL, NFEW);
            continue;
        }
        for (uint64_t i = 0; i < NFEW; i++) {
            if (s->call[i] != i || !(s->exit[i] >= s->start[i] && s->start[i] >= s->enter[i]) ||
                (i > 0 && !(s->enter[i] > s->exit[i - 1])))
                FAIL("timings.cpt: rank %d's Allreduce record %llu: call %llu, enter %.9f, exit "
                     "%.9f (the call before left at %.9f)",
                     r, (unsigned long long)i, (unsigned long long)s->call[i], s->enter[i],
                     s->exit[i], i > 0 ? s->exit[i - 1] : 0.0);
        }
        double took = s->exit[FEW_LATE] - s->start[FEW_LATE];
        if (r == 0 && took < 0.75 * FEW_MS / 1e3)
            FAIL("timings.cpt: rank 0's Allreduce call %d took %.4f s, expected at least %.3f s",
                 FEW_LATE, took, 0.75 * FEW_MS / 1e3);
    }
}

/* The job's longest Allgather: the long call, kept whole. */
static void check_long(const cp_cpt_file *f)
{
    const cp_cpt_aggregates *a = &f->chunks[0].agg;
    for (size_t i = 0; i < a->ncolls; i++)
        if (!strcmp(a->colls[i].collective, "Allgather")) {
            if (a->colls[i].calls != 2 * NLONG || !(a->colls[i].max >= 0.95 * LONG_S))
                FAIL("timings.cpt: %llu Allgather calls timed, the longest %.4f s; expected %d, "
                     "at least %.3f s (rank 0 waits out rank 1's sleep)",
                     (unsigned long long)a->colls[i].calls, a->colls[i].max, 2 * NLONG,
                     0.95 * LONG_S);
            return;
        }
    FAIL("timings.cpt: no job-wide figures for Allgather");
}

/* Seconds on CLOCK_MONOTONIC. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every kept call between 0 and span seconds (with 10 ms for the clocks'
 * alignment between ranks). */
static void check_within(const cp_cpt_file *f, int n, double span)
{
    for (int r = 0; r < n && r < (int)f->world_size; r++)
        for (size_t j = 0; j < f->chunks[r].nseries; j++) {
            const cp_cpt_series *s = &f->chunks[r].series[j];
            for (uint64_t i = 0; i < s->n; i++)
                if (!(s->enter[i] >= -0.01 && s->exit[i] <= span + 0.01)) {
                    FAIL("timings.cpt: rank %d's %s call %llu from %.6f s to %.6f s, outside "
                         "the run (0 to %.6f s)",
                         r, s->collective, (unsigned long long)s->call[i], s->enter[i],
                         s->exit[i], span);
                    break;
                }
        }
}

static void check_cpt(const cp_cpt_file *f, int n, bool long_call, double span)
{
    check_within(f, n, span);
    check_few(f, n);
    if (long_call)
        check_long(f);
    for (int r = 0; r < n && r < (int)f->world_size; r++)
        for (size_t j = 0; j < f->chunks[r].nseries; j++)
            check_brackets(&f->chunks[r].series[j], r);
    check_self_barriers(f, n);
    for (int r = 0; r < n && r < (int)f->world_size; r++) {
        const cp_cpt_series *s = series_of(f, r, "Alltoall");
        if (!s) {
            FAIL("timings.cpt: rank %d has no Alltoall series", r);
            continue;
        }
        int want = blocks_kept();
        uint64_t hist = 0;
        for (uint32_t i = 0; i < s->hist_n; i++)
            hist += s->hist[i];
        if (s->stride != STRIDE || hist != NCALLS || !(s->tick > 0))
            FAIL("timings.cpt: rank %d: stride %llu, %llu calls in the histogram, tick %g; "
                 "expected %d, %d, > 0",
                 r, (unsigned long long)s->stride, (unsigned long long)hist, s->tick, STRIDE,
                 NCALLS);
        if ((int)s->n != want || s->naggregated != (uint64_t)(NCALLS - want))
            FAIL("timings.cpt: rank %d keeps %llu calls and aggregates %llu, expected %d and %d",
                 r, (unsigned long long)s->n, (unsigned long long)s->naggregated, want,
                 NCALLS - want);
        for (uint64_t i = 0; i < s->n && (int)i < want; i++) {
            if (s->call[i] != chosen(i))
                FAIL("timings.cpt: rank %d keeps call %llu in place %llu, expected call %llu", r,
                     (unsigned long long)s->call[i], (unsigned long long)i,
                     (unsigned long long)chosen(i));
            if (!(s->exit[i] >= s->start[i] && s->start[i] >= s->enter[i]))
                FAIL("timings.cpt: rank %d call %llu: times out of order", r,
                     (unsigned long long)s->call[i]);
            if (r == 0 && s->call[i] == delayed_kept() &&
                !near(s->exit[i] - s->start[i], delay))
                FAIL("timings.cpt: rank 0's call %llu took %.4f s, expected about %.3f s",
                     (unsigned long long)s->call[i], s->exit[i] - s->start[i], delay);
        }
    }
}

/* A metric of rank r summed over every call path to MPI_Alltoall (the
 * compiler may make two call sites of the loop's one call). */
static double sum_over_paths(const cp_cube *c, int64_t m, int r, bool u64)
{
    double sum = 0;
    for (size_t i = 0; i < c->ncnodes; i++)
        if (!strcmp(c->regions[c->cnodes[i].region].name, "MPI_Alltoall"))
            sum += u64 ? (double)cp_cube_get_u64(c, (size_t)m, i, (size_t)r)
                       : cp_cube_get_double(c, (size_t)m, i, (size_t)r);
    return sum;
}

static void check_cube(const cp_cube *c, int n)
{
    int64_t visits = cp_cube_find_metric(c, "visits"), time = cp_cube_find_metric(c, "time");
    int64_t wait = cp_cube_find_metric(c, "mpi_wait_nxn");
    if (visits < 0 || time < 0 || wait < 0) {
        FAIL("profile.cubex lacks visits, time or mpi_wait_nxn");
        return;
    }
    for (int r = 0; r < n; r++) {
        double v = sum_over_paths(c, visits, r, true);
        if (v != NCALLS)
            FAIL("profile.cubex: rank %d visits MPI_Alltoall %.0f times, expected %d", r, v,
                 NCALLS);
    }
    double t0 = sum_over_paths(c, time, 0, false), w0 = sum_over_paths(c, wait, 0, false);
    /* At least both delays (more with more ranks than cores, where every
     * call takes milliseconds); the sample alone would hold one. */
    if (t0 < 0.8 * 2 * delay)
        FAIL("profile.cubex: rank 0 spent %.4f s in MPI_Alltoall, expected at least %.3f s "
             "(every call counts, sampled or not)", t0, 0.8 * 2 * delay);
    if (w0 < 0.75 * 2 * delay || w0 > t0)
        FAIL("profile.cubex: rank 0 waited %.4f s (mpi_wait_nxn), expected at least %.3f s "
             "(the two delays, estimated from the kept call %llu) and at most its %.4f s in "
             "the calls", w0, 0.75 * 2 * delay, (unsigned long long)delayed_kept(), t0);
}

int main(int argc, char **argv)
{
    double before_init = now();
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    bool long_call = false;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "delay=", 6))
            delay = atof(argv[i] + 6);
        long_call |= !strcmp(argv[i], "long");
    }
    int *sbuf = calloc((size_t)n, sizeof *sbuf), *rbuf = calloc((size_t)n, sizeof *rbuf);
    for (int i = 0; i < NCALLS; i++) {
        if (rank == 1 && ((uint64_t)i == delayed_kept() || (uint64_t)i == delayed_other())) {
            struct timespec ts = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
            nanosleep(&ts, NULL);
        }
        MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
    }
    for (int i = 0; i < NSELF; i++)
        MPI_Barrier(MPI_COMM_SELF);
    for (int i = 0; i < NFAST + NSLOW; i++) {
        if (rank == 1 && i >= NFAST) {
            struct timespec ts = {0, SLOW_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int i = 0; i < NFEW; i++) {
        if (rank == 1 && i == FEW_LATE) {
            struct timespec ts = {0, FEW_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
        MPI_Allreduce(MPI_IN_PLACE, sbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int i = 0; long_call && i < NLONG; i++) {
        if (rank == 1 && i == NLONG - 1) {
            struct timespec ts = {(time_t)LONG_S, (long)((LONG_S - (double)(time_t)LONG_S) * 1e9)};
            nanosleep(&ts, NULL);
        }
        MPI_Allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
    }
    free(sbuf);
    free(rbuf);
    double span = now() - before_init;
    MPI_Finalize();
    if (rank != 0)
        return 0;
    const char *dir = getenv("COLLPROF_OUTPUT_DIR");
    char path[4200];
    cp_error err;
    cp_cpt_file cpt;
    snprintf(path, sizeof path, "%s/timings.cpt", dir ? dir : ".");
    if (cp_cpt_read(path, &cpt, &err)) {
        FAIL("%s", err.msg);
    } else {
        check_cpt(&cpt, n, long_call, span);
        cp_cpt_file_free(&cpt);
    }
    /* The manifest records the seed the run used. */
    snprintf(path, sizeof path, "%s/manifest.json", dir ? dir : ".");
    FILE *mf = fopen(path, "r");
    char text[65536] = "", want[96];
    size_t got = mf ? fread(text, 1, sizeof text - 1, mf) : 0;
    text[got] = '\0';
    if (mf)
        fclose(mf);
    snprintf(want, sizeof want, "\"COLLPROF_TIMING_SEED\": \"%llu\"", (unsigned long long)seed());
    if (!strstr(text, want))
        FAIL("manifest.json does not record the seed (%s)", want);
    cp_cube cube;
    snprintf(path, sizeof path, "%s/profile.cubex", dir ? dir : ".");
    if (cp_cubex_read(path, &cube, &err)) {
        FAIL("%s", err.msg);
    } else {
        check_cube(&cube, n);
        cp_cube_free(&cube);
    }
    if (!nerrors)
        printf("test_sample: one call per block of 16 kept on every rank; time exact, waits "
               "of the kept calls scaled to the run\n");
    return nerrors ? 1 : 0;
}
