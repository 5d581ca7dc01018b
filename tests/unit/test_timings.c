/*
 * The reader's timings (collprof timings, summary's time columns): an output
 * directory with a manifest and a timings.cpt of known times, written with
 * the real writers; every number of cp_profile_timings checked by hand.
 *
 * World of 3 ranks, communicator 0 = world, two hosts (ranks 0-1 on "a",
 * rank 2 on "b").  Alltoall calls 0 and 1: rank 2 enters call 0 two seconds
 * late; call 1 was non-blocking on rank 1 (no wait states).  Bcast call 0,
 * root 1 one second late.  Rank 0 also has 5 Alltoall calls past the budget.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/reader.h"
#include "compact.h"
#include "cpt.h"
#include "cubex.h"
#include "manifest.h"
#include "timing_hist.h"
#include "tmpdir.h"

static void series(cp_cpt_series *s, const char *coll, size_t n, const double *enter,
                   const double *exit, int32_t root, uint8_t flags1)
{
    memset(s, 0, sizeof *s);
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    s->n = n;
    s->call = calloc(n, sizeof *s->call);
    s->enter = calloc(n, sizeof *s->enter);
    s->start = calloc(n, sizeof *s->start);
    s->exit = calloc(n, sizeof *s->exit);
    s->root = calloc(n, sizeof *s->root);
    s->flags = calloc(n, sizeof *s->flags);
    for (size_t i = 0; i < n; i++) {
        s->call[i] = i;
        s->enter[i] = s->start[i] = enter[i];
        s->exit[i] = exit[i];
        s->root[i] = root;
    }
    if (n > 1)
        s->flags[1] = flags1;
}

/* manifest.json of a world of n ranks, communicator 0 = world; and the
 * model of a timings.cpt for it, its chunks to fill. */
static cp_cpt_file world_of(int n)
{
    cp_manifest m = {0};
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    m.world_size = n;
    snprintf(m.job, sizeof m.job, "local");
    m.comms = calloc(1, sizeof *m.comms);
    m.ncomms = 1;
    m.comms[0] = (cp_comm_info){.id = 0, .size = n, .lead = 0};
    for (int r = 0; r < n; r++)
        cp_ranges_push(&m.comms[0].members, r);
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", tmpdir);
    cp_error err = {{0}};
    ck_assert_msg(cp_manifest_write_file(path, false, &m, &err) == 0, "%s", err.msg);
    cp_manifest_free(&m);

    cp_cpt_file f;
    memset(&f, 0, sizeof f);
    f.version[0] = CP_CPT_VERSION_MAJOR;
    snprintf(f.mode, sizeof f.mode, "test MPI");
    f.flags = CP_CPT_TIMING | CP_CPT_LOCATION;
    f.world_size = (uint64_t)n;
    f.chunks = calloc((size_t)n, sizeof *f.chunks);
    return f;
}

static void write_dir(void)
{
    cp_cpt_file f = world_of(3);
    char path[4096];
    cp_error err = {{0}};
    /* Alltoall: call 0 rank 2 late by 2 s; call 1 together (rank 1 I-call). */
    const double a_enter[3][2] = {{10, 20}, {10.5, 20}, {12, 20}};
    const double a_exit[3][2] = {{13, 21}, {13, 22}, {13.5, 23}};
    const double b_enter[3][1] = {{30}, {31}, {30.25}};
    const double b_exit[3][1] = {{31.5}, {31.5}, {31.5}};
    for (int r = 0; r < 3; r++) {
        cp_cpt_chunk *c = &f.chunks[r];
        c->rank = r;
        snprintf(c->hostname, sizeof c->hostname, "%s", r < 2 ? "a" : "b");
        c->node = r < 2 ? 0 : 1;
        c->pid = 100 + r;
        c->core = r;
        c->series = calloc(2, sizeof *c->series);
        c->nseries = 2;
        series(&c->series[0], "Alltoall", 2, a_enter[r], a_exit[r], -1,
               r == 1 ? CP_CPT_NONBLOCKING : 0);
        series(&c->series[1], "Bcast", 1, b_enter[r], b_exit[r], 1, 0);
    }
    f.chunks[0].series[0].naggregated = 5;
    f.chunks[0].series[0].agg_time = 0.5;
    /* Histograms of the Alltoall: ranks tick at different rates.  Rank 0:
     * 6 calls in bucket 40, [16384, 20480) ticks of 1 ns: 18.432 us in the
     * middle; rank 1: 3 in bucket 36, [8192, 10240) ticks of 2 ns: 18.432
     * us too; rank 2: 2 in bucket 44, [32768, 40960) ns: 36.864 us. */
    static const struct {
        double tick;
        uint32_t bucket, n;
    } h[3] = {{1e-9, 40, 6}, {2e-9, 36, 3}, {1e-9, 44, 2}};
    for (int r = 0; r < 3; r++) {
        cp_cpt_series *s = &f.chunks[r].series[0];
        s->stride = 1;
        s->tick = h[r].tick;
        s->hist_lo = h[r].bucket - 1;
        s->hist_n = 3;
        s->hist = calloc(3, sizeof *s->hist);
        s->hist[1] = h[r].n;
    }
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    ck_assert_msg(cp_cpt_write(path, &f, &err) == 0, "%s", err.msg);
    cp_cpt_file_free(&f);
}

#define EQ(a, b) ck_assert_double_eq_tol((a), (b), 1e-9)

START_TEST(every_number_by_hand)
{
    tmpdir_make();
    write_dir();
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    ck_assert(p.has_timings);
    cp_timings t;
    ck_assert_msg(cp_profile_timings(&p, &t, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(t.nranks, 3);
    ck_assert_uint_eq(t.nhosts, 2);
    ck_assert_str_eq(t.hosts[0], "a");
    ck_assert_str_eq(t.hosts[1], "b");
    ck_assert_int_eq(t.rank_node[2], 1);
    ck_assert(!t.barrier);
    ck_assert_uint_eq(t.naggregated, 5);
    ck_assert_uint_eq(t.nrows, 2);

    const cp_timing_row *a = &t.rows[0], *b = &t.rows[1];
    /* Whole-run quantiles from the three ranks' histograms: 9 calls at
     * 18.432 us, 2 at 36.864 us. */
    ck_assert_uint_eq(a->hist_calls, 11);
    EQ(a->p50, 18.432e-6);
    EQ(a->p90, 36.864e-6);
    EQ(a->p99, 36.864e-6);
    ck_assert_uint_eq(b->hist_calls, 0);
    EQ(b->p50, 0);
    ck_assert_str_eq(a->collective, "Alltoall");
    ck_assert_str_eq(b->collective, "Bcast");
    /* Alltoall durations: 3 2.5 1.5 | 1 2 3; total + 0.5 aggregated. */
    ck_assert_uint_eq(a->instances, 6);
    EQ(a->total, 13.5);
    EQ(a->min, 1);
    EQ(a->max, 3);
    EQ(a->median, 2.25);
    /* Call 0: ranks 0 and 1 wait for rank 2 (2 s, 1.5 s); completion after
     * the first exit at 13: rank 2 0.5 s.  Call 1: non-blocking on rank 1. */
    int nxn = -1, comp = -1, late = -1;
    for (int i = 0; i < CP_READER_NPATTERNS; i++) {
        if (!strcmp(cp_reader_pattern_name(i), "mpi_wait_nxn"))
            nxn = i;
        if (!strcmp(cp_reader_pattern_name(i), "mpi_nxn_completion"))
            comp = i;
        if (!strcmp(cp_reader_pattern_name(i), "mpi_latebroadcast"))
            late = i;
    }
    ck_assert(nxn >= 0 && comp >= 0 && late >= 0);
    ck_assert_uint_eq(a->wait_instances[nxn], 2);
    EQ(a->wait_sampled[nxn], 3.5);
    ck_assert_uint_eq(a->wait_instances[comp], 1);
    EQ(a->wait_sampled[comp], 0.5);
    /* Only call 0 is analysed (rank 1's call 1 is non-blocking), so the
     * run's waiting is estimated per rank: its waiting per second in call
     * 0, times its exact time of the blocking form.  Rank 0: 2 s of 3 s,
     * times 3 + 1 + 0.5 aggregated = 3 s; rank 1: its one blocking call is
     * the analysed one, exact, 1.5 s; rank 2: completion 0.5 s of 1.5 s,
     * times 1.5 + 3 = 1.5 s.  The estimated strata (ranks 0 and 2) hold
     * 7 + 2 timed calls for 2 analysed; never above the time in the calls. */
    EQ(a->wait[nxn], 4.5);
    EQ(a->wait[comp], 1.5);
    EQ(a->wait_weight, 4.5);
    ck_assert(a->wait[nxn] + a->wait[comp] <= a->total);
    /* Slowest: 3 s twice (rank 0 call 0 first, then rank 2 call 1). */
    ck_assert_uint_eq(a->nslowest, 5);
    EQ(a->slowest[0].duration, 3);
    ck_assert_int_eq(a->slowest[0].rank, 0);
    ck_assert_uint_eq(a->slowest[0].call, 0);
    ck_assert_int_eq(a->slowest[1].rank, 2);
    ck_assert_uint_eq(a->slowest[1].call, 1);
    EQ(a->slowest[4].duration, 1.5);
    /* Bcast: root 1 at 31; rank 0 waited 1 s, rank 2 0.75 s. */
    ck_assert_uint_eq(b->wait_instances[late], 2);
    EQ(b->wait[late], 1.75);
    EQ(b->median, 1.25);
    cp_timings_free(&t);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* A send block of communicator 0 moving `calls`, every rank one count. */
static cp_block count_block(const char *coll, const char *calls, int64_t root, int64_t count)
{
    cp_block b;
    cp_block_init(&b);
    b.comm_id = 0;
    b.comm_size = 3;
    b.nranks = 3;
    b.root = root;
    b.dtsize = 4;
    snprintf(b.collective, sizeof b.collective, "%s", coll);
    cp_ranges_add_range(&b.all_calls, 0, coll[0] == 'A' ? 1 : 0);
    cp_ranges_add(&b.calls, calls[0] - '0'); /* one call: "0" or "1" */
    b.row_len = 1;
    b.rows = calloc(1, sizeof *b.rows);
    b.nrows = 1;
    cp_ranges_add_range(&b.rows[0].ranks, 0, 2);
    b.rows[0].len = 1;
    b.rows[0].counts = malloc(sizeof *b.rows[0].counts);
    b.rows[0].counts[0] = count;
    return b;
}

/* The directory of write_dir with these send blocks (taken over), loaded. */
static void load_with_blocks(cp_block *blocks, size_t n, cp_profile *p)
{
    cp_counts_file f = {.version = CP_COUNTS_FORMAT_VERSION, .direction = CP_SEND};
    f.blocks = calloc(n, sizeof *f.blocks);
    memcpy(f.blocks, blocks, n * sizeof *blocks);
    f.nblocks = n;
    char path[4200];
    cp_error err = {{0}};
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt", tmpdir);
    ck_assert_msg(cp_compact_write_file(path, false, &f, &err) == 0, "%s", err.msg);
    cp_counts_file_free(&f);
    ck_assert_msg(cp_profile_load(tmpdir, p, &err) == 0, "%s", err.msg);
}

/* Time per pattern: Alltoall call 0 and call 1 moved different matrices;
 * each matrix gets the times and the waiting of its own call only. */
START_TEST(time_per_pattern)
{
    tmpdir_make();
    write_dir();
    cp_block blocks[3] = {count_block("Alltoall", "0", -1, 4), count_block("Alltoall", "1", -1, 8),
                          count_block("Bcast", "0", 1, 16)};
    cp_profile p;
    cp_error err = {{0}};
    load_with_blocks(blocks, 3, &p);
    cp_pattern_time *t;
    size_t n;
    ck_assert_msg(cp_profile_pattern_times(&p, &t, &n, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(n, 3);
    const cp_pattern_time *x[3];
    for (size_t i = 0; i < 3; i++) {
        x[i] = cp_pattern_time_find(t, n, &p.files[0].blocks[i]);
        ck_assert_ptr_nonnull(x[i]);
    }
    /* call 0: 3, 2.5, 1.5 s; ranks 0 and 1 wait 3.5 s for rank 2, which
     * waits 0.5 s for completion */
    ck_assert_uint_eq(x[0]->instances, 3);
    ck_assert_uint_eq(x[0]->calls, 1);
    EQ(x[0]->min, 1.5);
    EQ(x[0]->median, 2.5);
    EQ(x[0]->max, 3);
    EQ(x[0]->wait, 4);
    ck_assert_uint_eq(x[0]->wait_instances, 3);
    /* call 1: 1, 2, 3 s; non-blocking on rank 1, so no wait states */
    ck_assert_uint_eq(x[1]->instances, 3);
    EQ(x[1]->median, 2);
    EQ(x[1]->wait, 0);
    ck_assert_uint_eq(x[1]->wait_instances, 0);
    /* Bcast call 0: 1.5, 0.5, 1.25 s; ranks 0 and 2 wait 1.75 s for root 1 */
    EQ(x[2]->median, 1.25);
    EQ(x[2]->wait, 1.75);
    ck_assert_uint_eq(x[2]->wait_instances, 2);
    /* ... and so in the export, with each send block */
    char *json = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&json, &len);
    ck_assert_msg(cp_export_json(&p, mem, &err) == 0, "%s", err.msg);
    fclose(mem);
    ck_assert_msg(strstr(json, "\"time\":{\"instances\":3,\"calls\":1,\"min\":1.5,\"median\":2.5,"
                               "\"max\":3,\"wait\":4,\"wait_instances\":3}") != NULL,
                  "%s", json);
    free(json);
    free(t);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* Findings of the same directory: the two series' time shares, and root 1
 * of the Bcast, last to arrive, for whom ranks 0 and 2 waited 1.75 s. */
/* profile.cubex as finalize writes it: each rank's time outside its
 * collectives at the root, in them at the collective's node.  Runs of 10 s;
 * in collectives 6, 2.75 and 8 s (16.75 s: the series' total). */
static void write_cube(void)
{
    cp_cube c;
    ck_assert_int_eq(cp_cube_init(&c, 3), 0);
    cp_cube_metric m = {.dtype = CP_CUBE_DOUBLE};
    snprintf(m.uniq_name, sizeof m.uniq_name, "time");
    snprintf(m.disp_name, sizeof m.disp_name, "Time");
    snprintf(m.uom, sizeof m.uom, "sec");
    int64_t mt = cp_cube_add_metric(&c, &m);
    cp_cube_region app = {.begin = -1, .end = -1}, coll = {.begin = -1, .end = -1};
    snprintf(app.name, sizeof app.name, "app");
    snprintf(coll.name, sizeof coll.name, "MPI_Alltoall");
    int64_t ra = cp_cube_add_region(&c, &app), rc = cp_cube_add_region(&c, &coll);
    int64_t ha = cp_cube_add_host(&c, "a"), hb = cp_cube_add_host(&c, "b");
    for (size_t l = 0; l < 3; l++)
        cp_cube_set_location_host(&c, l, l < 2 ? ha : hb);
    int64_t root = cp_cube_tree_add(&c, -1, ra, -1, NULL);
    int64_t leaf = cp_cube_tree_add(&c, root, rc, -1, NULL);
    int64_t ids[2];
    ck_assert_int_eq(cp_cube_tree_finish(&c, ids), 0);
    const double in[3] = {6, 2.75, 8};
    for (size_t l = 0; l < 3; l++) {
        cp_cube_add_double(&c, (size_t)mt, (size_t)ids[leaf], l, in[l]);
        cp_cube_add_double(&c, (size_t)mt, (size_t)ids[root], l, 10 - in[l]);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/profile.cubex", tmpdir);
    cp_error err = {{0}};
    ck_assert_msg(cp_cubex_write(path, &c, &err) == 0, "%s", err.msg);
    cp_cube_free(&c);
}

/* A sampled series, its estimate and standard error by hand.  2 ranks,
 * Alltoall, one call in 4 kept (calls 0, 4, 8, 12), 12 more timed in
 * aggregate only on each rank (12 s).  Rank 1 enters late by L = 0, 1, 0, 3
 * s; rank 0 waits L and both then take 1 s.  Rank 0: sampled waiting 4 s in
 * 8 s, exact time 8 + 12 = 20 s: estimate 4 / 8 x 20 = 10 s; rank 1 waits
 * nothing.  Per kept call z = 2.5 (L - 0.5 (L + 1)) = -1.25, 0, -1.25, 2.5;
 * successive differences squared, halved: 0.78125 + 0.78125 + 7.03125 =
 * 8.59375; each analysed call stands for 32 / 8 = 4 calls; variance
 * 4 (1 - 1/4) / 3 x 8.59375 = 8.59375. */
START_TEST(sampled_estimate_and_error_by_hand)
{
    tmpdir_make();
    cp_cpt_file f = world_of(2);
    char path[4096];
    cp_error err = {{0}};
    const double late[4] = {0, 1, 0, 3};
    double enter[2][4], exit[2][4];
    for (int c = 0; c < 4; c++) {
        double t0 = 100.0 * c;
        enter[0][c] = t0, enter[1][c] = t0 + late[c];
        exit[0][c] = exit[1][c] = t0 + late[c] + 1;
    }
    for (int r = 0; r < 2; r++) {
        cp_cpt_chunk *ch = &f.chunks[r];
        ch->rank = r;
        snprintf(ch->hostname, sizeof ch->hostname, "a");
        ch->series = calloc(1, sizeof *ch->series);
        ch->nseries = 1;
        series(&ch->series[0], "Alltoall", 4, enter[r], exit[r], -1, 0);
        for (int c = 0; c < 4; c++)
            ch->series[0].call[c] = 4 * (uint64_t)c;
        ch->series[0].stride = 4;
        ch->series[0].naggregated = 12;
        ch->series[0].agg_time = 12;
    }
    /* Rank 0's histogram (ticks of 1 ms): 5 calls of about 1 s, shorter
     * than its longest kept call (4 s), and 2 of about 10 s, longer than
     * any it kept: their time is what the sample never saw. */
    uint32_t b1 = cp_timing_hist_index(1000), b10 = cp_timing_hist_index(10000);
    cp_cpt_series *h = &f.chunks[0].series[0];
    h->tick = 1e-3;
    h->hist_lo = b1;
    h->hist_n = b10 - b1 + 1;
    h->hist = calloc(h->hist_n, sizeof *h->hist);
    h->hist[0] = 5;
    h->hist[b10 - b1] = 2;
    double lo, hi;
    cp_timing_hist_bounds(b10, &lo, &hi);
    const double unseen = 2 * (lo + hi) / 2 * 1e-3;
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    ck_assert_msg(cp_cpt_write(path, &f, &err) == 0, "%s", err.msg);
    cp_cpt_file_free(&f);

    cp_profile p;
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    cp_timings t;
    ck_assert_msg(cp_profile_timings(&p, &t, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(t.nrows, 1);
    const cp_timing_row *a = &t.rows[0];
    int nxn = -1, comp = -1;
    for (int i = 0; i < CP_READER_NPATTERNS; i++) {
        if (!strcmp(cp_reader_pattern_name(i), "mpi_wait_nxn"))
            nxn = i;
        if (!strcmp(cp_reader_pattern_name(i), "mpi_nxn_completion"))
            comp = i;
    }
    EQ(a->wait_sampled[nxn], 4);
    EQ(a->wait[nxn], 10);
    EQ(a->wait_weight, 4);
    EQ(a->wait_se[nxn], sqrt(8.59375));
    EQ(a->wait[comp], 0);
    EQ(a->wait_se[comp], 0);
    ck_assert(a->wait[nxn] <= a->total);
    EQ(a->wait_unseen, unseen);
    ck_assert(unseen > 18 && unseen < 22); /* two calls of about 10 s */
    cp_timings_free(&t);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* The tail of the error: rare long calls that the sample mostly misses.
 * Two profiles whose kept calls are the same (40 per rank of 160 timed, one
 * call site): rank 1 late by 0.5 s in every other kept call.  In B two of
 * rank 0's calls, per its histogram, took about 9.2 s (bucket 36, expected
 * 0.5 kept calls: the tail); in A they are among the others.  B's variance
 * exceeds A's by (1 - f) f factor^2 N x_b^2 (e / x)^2, the relative
 * residual taken from the nearest durations kept (bucket 25: e = 0.5 - 0.2
 * x 1.5 = 0.2 of 1.5 s); and the time past every kept call is said. */
static double tail_se(bool tail, double *unseen)
{
    tmpdir_make();
    cp_cpt_file f = world_of(2);
    char path[4096];
    cp_error err = {{0}};
    enum { KEPT = 40 };
    double enter[2][KEPT], exit[2][KEPT];
    for (int c = 0; c < KEPT; c++) {
        double t0 = 10.0 * c, late = c % 2 ? 0.5 : 0;
        enter[0][c] = t0, enter[1][c] = t0 + late;
        exit[0][c] = exit[1][c] = t0 + late + 1;
    }
    uint32_t b1 = cp_timing_hist_index(1000), b15 = cp_timing_hist_index(1500),
             b9 = cp_timing_hist_index(9216);
    ck_assert_uint_eq(b1, 23);
    ck_assert_uint_eq(b15, 25);
    ck_assert_uint_eq(b9, 36);
    for (int r = 0; r < 2; r++) {
        cp_cpt_chunk *ch = &f.chunks[r];
        ch->rank = r;
        snprintf(ch->hostname, sizeof ch->hostname, "a");
        ch->series = calloc(1, sizeof *ch->series);
        ch->nseries = 1;
        cp_cpt_series *x = &ch->series[0];
        series(x, "Alltoall", KEPT, enter[r], exit[r], -1, 0);
        for (int c = 0; c < KEPT; c++)
            x->call[c] = 4 * (uint64_t)c;
        x->stride = 4;
        x->naggregated = 120;
        x->agg_time = 150;
        x->tick = 1e-3;
        x->nsites = 1;
        x->site = calloc(KEPT, sizeof *x->site);
        x->site_time = calloc(1, sizeof *x->site_time);
        x->site_calls = calloc(1, sizeof *x->site_calls);
        x->site_time[0] = 200; /* factor: 200 s over the 50 s kept */
        x->site_calls[0] = 160;
        x->hist_lo = b1;
        x->hist_n = b9 - b1 + 1;
        x->hist = calloc(x->hist_n, sizeof *x->hist);
        if (r == 0) {
            x->hist[0] = 80;
            x->hist[b15 - b1] = tail ? 78 : 80;
            x->hist[b9 - b1] = tail ? 2 : 0;
        } else {
            x->hist[0] = 160;
        }
    }
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    ck_assert_msg(cp_cpt_write(path, &f, &err) == 0, "%s", err.msg);
    cp_cpt_file_free(&f);
    cp_profile p;
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    cp_timings t;
    ck_assert_msg(cp_profile_timings(&p, &t, &err) == 0, "%s", err.msg);
    int nxn = -1;
    for (int i = 0; i < CP_READER_NPATTERNS; i++)
        if (!strcmp(cp_reader_pattern_name(i), "mpi_wait_nxn"))
            nxn = i;
    EQ(t.rows[0].wait[nxn], 40); /* 4 x the 10 s of waiting kept */
    double se = t.rows[0].wait_se[nxn];
    *unseen = t.rows[0].wait_unseen;
    cp_timings_free(&t);
    cp_profile_free(&p);
    tmpdir_remove();
    return se;
}

START_TEST(rare_long_calls_in_the_error)
{
    double unseen_a, unseen_b;
    double a = tail_se(false, &unseen_a), b = tail_se(true, &unseen_b);
    double rel = 0.2 / 1.5, xb = 9.216;
    double want = (1 - 0.25) * 0.25 * 4.0 * 4.0 * 2 * rel * rel * xb * xb;
    ck_assert_double_eq_tol(b * b - a * a, want, 1e-6);
    EQ(unseen_a, 0);
    EQ(unseen_b, 2 * xb); /* past every kept call: said apart */
}
END_TEST

START_TEST(findings_by_hand)
{
    tmpdir_make();
    write_dir();
    write_cube();
    cp_block blocks[2] = {count_block("Alltoall", "0", -1, 4), count_block("Bcast", "0", 1, 16)};
    ck_assert_int_eq(cp_ranges_add(&blocks[0].calls, 1), 0);
    cp_profile p;
    cp_error err = {{0}};
    load_with_blocks(blocks, 2, &p);
    cp_finding *x;
    size_t n;
    ck_assert_msg(cp_profile_findings(&p, &x, &n, &err) == 0, "%s", err.msg);
    /* By the time each explains: the Alltoall's 13.5 s of 16.75 s; the late
     * rank of the Bcast its 1.75 s of waiting, before the Bcast's own
     * 3.25 s less those 1.75 s; then the share of the runs (16.75 s of 30:
     * 60%, 27.5% and 80% of each rank's 10 s), context; 6 of the
     * Alltoall's 11 calls (its histograms) have their own times: coverage,
     * last */
    ck_assert_uint_ge(n, 5);
    ck_assert_int_eq(x[0].kind, CP_FINDING_TIME);
    ck_assert_msg(strstr(x[0].text, "communicator 0 (3 ranks), Alltoall: 13.500000 s in the calls, "
                                    "81% of all collective time") != NULL, "%s", x[0].text);
    ck_assert_int_eq(x[1].kind, CP_FINDING_WAITING);
    ck_assert_msg(strstr(x[1].text, "Bcast: world rank 1 (host a) arrives last in 1 of 1 timed "
                                    "calls; the others wait 1.750000 s for it there") != NULL,
                  "%s", x[1].text);
    ck_assert_int_eq(x[2].kind, CP_FINDING_TIME);
    ck_assert_msg(strstr(x[2].text, "Bcast: 3.250000 s") != NULL, "%s", x[2].text);
    ck_assert_double_eq_tol(x[2].cost, 3.25 - 1.75, 1e-9);
    ck_assert_int_eq(x[3].kind, CP_FINDING_SHARE);
    ck_assert_msg(strstr(x[3].text, "share: collectives take 55.8% of the run on average over 3 "
                                    "ranks (16.750000 s of 30.000000 s); least world rank 1 "
                                    "(host a) 27.5%, most world rank 2 (host b) 80.0%") != NULL,
                  "%s", x[3].text);
    ck_assert_int_eq(x[n - 1].kind, CP_FINDING_COVERAGE);
    ck_assert_msg(strstr(x[n - 1].text, "6 of 11 timed rank-calls have their own times") != NULL, "%s", x[n - 1].text);
    free(x);
    /* profile.cubex is read once per loaded profile: asked again with the
     * file gone, the same findings come from what was read. */
    char cube[4200];
    snprintf(cube, sizeof cube, "%s/profile.cubex", tmpdir);
    ck_assert_int_eq(unlink(cube), 0);
    size_t n2;
    ck_assert_msg(cp_profile_findings(&p, &x, &n2, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(n2, n);
    ck_assert_int_eq(x[3].kind, CP_FINDING_SHARE);
    free(x);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

/* Calls made but not recorded: numbers missing from the count files (calls
 * 0-2 before COLLPROF_START_CALL, call 6 paused) are a coverage finding. */
START_TEST(calls_not_recorded_are_a_finding)
{
    tmpdir_make();
    write_dir();
    cp_block b = count_block("Alltoall", "3", -1, 4);
    cp_ranges_free(&b.all_calls);
    cp_ranges_free(&b.calls);
    ck_assert_int_eq(cp_ranges_add_range(&b.all_calls, 3, 5), 0);
    ck_assert_int_eq(cp_ranges_add(&b.all_calls, 7), 0);
    ck_assert_int_eq(cp_ranges_copy(&b.calls, &b.all_calls), 0);
    cp_profile p;
    cp_error err = {{0}};
    load_with_blocks(&b, 1, &p);
    cp_finding *x;
    size_t n;
    ck_assert_msg(cp_profile_findings(&p, &x, &n, &err) == 0, "%s", err.msg);
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= x[i].kind == CP_FINDING_COVERAGE &&
                 strstr(x[i].text, "coverage: 4 calls in 1 series were made but not recorded "
                                   "(paused with MPI_Pcontrol(0), or before COLLPROF_START_CALL)"
                                   ": their numbers are missing from the count files; the most: "
                                   "communicator 0, Alltoall, 4 calls") != NULL;
    ck_assert_msg(found, "no finding of the 4 calls not recorded");
    free(x);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

START_TEST(no_timings_is_a_clear_error)
{
    tmpdir_make();
    write_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    ck_assert_int_eq(unlink(path), 0);
    cp_profile p;
    cp_error err = {{0}};
    ck_assert_msg(cp_profile_load(tmpdir, &p, &err) == 0, "%s", err.msg);
    cp_timings t;
    ck_assert_int_eq(cp_profile_timings(&p, &t, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "no timings.cpt"));
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

START_TEST(a_corrupt_timings_file_is_named_and_left_out)
{
    tmpdir_make();
    write_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/timings.cpt", tmpdir);
    FILE *fp = fopen(path, "r+b");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fseek(fp, -20, SEEK_END), 0);
    fputc(0x5a, fp); /* inside rank 2's compressed series */
    fclose(fp);
    cp_profile p;
    cp_error err = {{0}};
    /* The rest is read; the damage is named; the timings are not used. */
    ck_assert_int_eq(cp_profile_load(tmpdir, &p, &err), 0);
    ck_assert(!p.has_timings);
    ck_assert_uint_ge(p.ndamaged, 1);
    bool named = false;
    for (size_t i = 0; i < p.ndamaged; i++)
        named |= strcmp(p.damaged[i].key, "timings.cpt") == 0;
    ck_assert(named);
    ck_assert_int_ne(cp_profile_timings(&p, &(cp_timings){0}, &err), 0);
    ck_assert_msg(strstr(err.msg, "timings.cpt is damaged") != NULL, "%s", err.msg);
    cp_profile_free(&p);
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *su = suite_create("timings");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_number_by_hand);
    tcase_add_test(tc, sampled_estimate_and_error_by_hand);
    tcase_add_test(tc, rare_long_calls_in_the_error);
    tcase_add_test(tc, time_per_pattern);
    tcase_add_test(tc, findings_by_hand);
    tcase_add_test(tc, calls_not_recorded_are_a_finding);
    tcase_add_test(tc, no_timings_is_a_clear_error);
    tcase_add_test(tc, a_corrupt_timings_file_is_named_and_left_out);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
