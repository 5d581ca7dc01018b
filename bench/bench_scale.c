/*
 * bench_scale: finalize's stages for P virtual ranks in one process, to
 * see how they grow with the job before a job that size exists.  Each
 * stage runs finalize's own code (collectors/) for every virtual rank,
 * over in-memory mailboxes in place of MPI (scale_mailbox.c), the ranks
 * one by one in the trees' order; only the messages in flight are held
 * between ranks.
 *
 * Counts (here): each virtual rank's table is built by the real collector
 * (cp_counts_signature, cp_counts_record) from its counts given by their
 * non-zeros (the table the collector keeps from an application's dense
 * arrays, without reading P counts per call); the rank makes its holding of
 * each of its communicators (merge/counts_stage.c) and runs them all
 * up the communicators' trees through finalize's engine
 * (merge/group_trees.c), as lib/finalize/finalize_exchange.c does
 * over MPI.  Each lead makes the blocks (cp_counts_tree_emit), writes
 * its rows in rank space (cp_block_compact_rows) and the count files
 * (each block spooled as text as it is made, cp_compact_spool_block, then
 * cp_compact_write_spools_file); the files are parsed back and every rank's row
 * of every call compared with what it passed.
 *
 * The wait-state stage (scale_waits.c) runs every communicator's series
 * up and down through the same engine and checks each member's own
 * waiting times, then the statistics up the world's tree to rank 0.  The
 * call-path stage (scale_paths.c) runs the world's tree of call paths up
 * to rank 0 and the ids back down; the sites stage (scale_sites.c) the
 * job's sites, clocks and locations up the world's tree; the Cube stage
 * (scale_cube.c) writes profile.cubex of P locations as finalize streams
 * it, a batch of rows at a time.
 *
 * usage: bench_scale --ranks P --workload halo|uniform|sparse|subcomms
 *                    [--calls N] [--sampled S] [--dir D] [--keep D]
 *   halo      MPI_Alltoallv on MPI_COMM_WORLD: 8 elements to r-1, r+1,
 *             r-k, r+k (k = floor(sqrt(P)); no wrap at the ends)
 *   uniform   MPI_Alltoall on MPI_COMM_WORLD: one count
 *   sparse    MPI_Alltoallv on MPI_COMM_WORLD: 8 pseudo-random peers per
 *             rank, pseudo-random counts
 *   subcomms  the row and the column communicators of an s x s grid
 *             (s = floor(sqrt(P)), P taken as s*s), each with its own
 *             MPI_Alltoallv, dense (an FFT's transposes)
 * Calls alternate between two matrices (seeds 0 and 1), N calls (20).  The
 * wait-state stage times S calls of every series (1024: a full sample at
 * the default COLLPROF_TIMING_SAMPLE).
 *
 * Output, one line: key=value pairs
 *   ranks= workload= calls= comms= busiest_rank= busiest_peak_mib=
 *   busiest_recv_mib= busiest_cpu_s= most_recv_rank= most_recv_mib=
 *   most_cpu_rank= most_cpu_s= lead_recv_mib= lead_cpu_s= output_bytes=
 *   waits_busiest_rank= waits_peak_mib= waits_recv_mib= waits_cpu_s=
 *   waits_lead_recv_mib= waits_exact=yes|no paths_nodes= paths_lead_recv_kib=
 *   paths_exact=yes|no sites_keys= sites_lead_recv_mib= sites_lead_peak_mib=
 *   sites_lead_cpu_s= sites_exact=yes|no cube_bytes= cube_lead_recv_mib=
 *   cube_lead_peak_mib= cube_lead_cpu_s= cube_exact=yes|no
 *   stages=counts,waits,paths,sites,cube exact=yes|no
 * busiest_*: the world rank that held the most memory at once in this
 * run (its own tables and holdings of all its communicators at once, the
 * messages it received and sent, the merges, and for a lead the blocks;
 * in the other stages their own state), over every stage: that peak, the
 * bytes it received and the CPU seconds of its own work (leaf, pack,
 * unpack, merge, blocks, rows, files); most_recv_* and most_cpu_*: the rank that
 * received the most bytes, and the one that worked longest; lead_*: world
 * rank 0; output_bytes: every count file (send and receive) of every lead;
 * waits_*: the same for the wait-state stage alone (its busiest rank, and
 * what rank 0 received in it); paths_*: the distinct call-tree nodes rank 0
 * numbered, the bytes it received, every rank's paths back with its ids;
 * sites_*: the distinct site keys at rank 0, what it received and held at
 * most and its CPU, keys, sums and every location checked there;
 * cube_*: profile.cubex's size, what rank 0 received and held at most for
 * it and its CPU, every value read back equal; exact: every stage exact.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/profile.h"
#include "compact.h"
#include "counts.h"
#include "counts_merge.h"
#include "counts_stage.h"
#include "counts_tree.h"
#include "manifest.h"
#include "group_trees.h"
#include "pack.h"
#include "scale_sim.h"

enum workload { HALO, UNIFORM, SPARSE, SUBCOMMS };
static const char *const workload_names[] = {"halo", "uniform", "sparse", "subcomms"};

#define SPARSE_PEERS 8
#define HALO_COUNT 8

static enum workload wl;
static int64_t P, K; /* world size; halo stride */
/* --keep DIR: the leads' send files stay there, with a manifest.json of the
 * communicators: an output directory of P ranks for the reader's own
 * benchmarks (bench/placement_scale.sh). */
static const char *keep;

double sim_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t heap_now(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

void sim_charge(int64_t w, double recv, double cpu, size_t held)
{
    rank_recv[w] += recv;
    rank_cpu[w] += cpu;
    if (held > rank_peak[w])
        rank_peak[w] = held;
}

_Noreturn void sim_die(const char *what)
{
    fprintf(stderr, "bench_scale: %s\n", what);
    exit(1);
}

/* Rank r's non-zero send counts in communicator c for seed s, in
 * increasing order of peer: how many (at most cap). */
static size_t sends(const comm *c, int64_t r, int s, int64_t *peer, int64_t *count, size_t cap)
{
    size_t k = 0;
    if (wl == HALO) {
        int64_t offs[4] = {-K, -1, 1, K};
        for (int i = 0; i < 4; i++) {
            int64_t p = r + offs[i];
            if (p >= 0 && p < c->n && (i == 0 || offs[i] != offs[i - 1])) {
                peer[k] = p;
                count[k++] = HALO_COUNT + s;
            }
        }
    } else if (wl == SPARSE) {
        /* 8 distinct peers from a pseudo-random start and step */
        int64_t start = (int64_t)(sim_mix((uint64_t)r * 2 + 1) % (uint64_t)c->n);
        int64_t step = 1 + (int64_t)(sim_mix((uint64_t)r * 2 + 2) % (uint64_t)(c->n / SPARSE_PEERS));
        for (int i = 0; i < SPARSE_PEERS && i < c->n; i++) {
            peer[k] = (start + i * step) % c->n;
            count[k++] = 1 + (int64_t)(sim_mix((uint64_t)(r * 16 + i) ^ (uint64_t)s << 40) % 100);
        }
        /* sort by peer (8 items) */
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && peer[j - 1] > peer[j]; j--) {
                int64_t tp = peer[j], tc = count[j];
                peer[j] = peer[j - 1], count[j] = count[j - 1];
                peer[j - 1] = tp, count[j - 1] = tc;
            }
    } else { /* SUBCOMMS: dense, 1 + ((p - r) mod n + s) mod 3 */
        for (int64_t p = 0; p < c->n && k < cap; p++) {
            peer[k] = p;
            count[k++] = 1 + (((p - r) % c->n + c->n) % c->n + s) % 3;
        }
    }
    return k;
}

/* Rank r's non-zero receive counts: the column of the send matrix.  For
 * the symmetric workloads the same as its sends; for sparse, the transpose
 * of every rank's sends, built once per seed (n x 8 entries). */
typedef struct transpose {
    int64_t *start, *peer, *count; /* receiver r's senders: [start[r], start[r+1]) */
} transpose;
static transpose sparse_t[2];

static void build_transpose(const comm *c, int s, transpose *t)
{
    int64_t n = c->n, sp[SPARSE_PEERS], sc[SPARSE_PEERS];
    t->start = calloc((size_t)n + 1, sizeof *t->start);
    t->peer = malloc((size_t)n * SPARSE_PEERS * sizeof *t->peer);
    t->count = malloc((size_t)n * SPARSE_PEERS * sizeof *t->count);
    int64_t *fill = calloc((size_t)n, sizeof *fill);
    if (!t->start || !t->peer || !t->count || !fill) {
        fprintf(stderr, "bench_scale: out of memory for the transpose\n");
        exit(1);
    }
    for (int64_t q = 0; q < n; q++) {
        size_t k = sends(c, q, s, sp, sc, SPARSE_PEERS);
        for (size_t i = 0; i < k; i++)
            t->start[sp[i] + 1]++;
    }
    for (int64_t r = 0; r < n; r++)
        t->start[r + 1] += t->start[r];
    for (int64_t q = 0; q < n; q++) { /* senders in increasing order */
        size_t k = sends(c, q, s, sp, sc, SPARSE_PEERS);
        for (size_t i = 0; i < k; i++) {
            int64_t at = t->start[sp[i]] + fill[sp[i]]++;
            t->peer[at] = q;
            t->count[at] = sc[i];
        }
    }
    free(fill);
}

static size_t recvs(const comm *c, int64_t r, int s, int64_t *peer, int64_t *count, size_t cap)
{
    if (wl != SPARSE)
        return sends(c, r, s, peer, count, cap);
    transpose *t = &sparse_t[s];
    if (!t->start)
        build_transpose(c, s, t);
    size_t k = 0;
    for (int64_t at = t->start[r]; at < t->start[r + 1] && k < cap; at++, k++) {
        peer[k] = t->peer[at];
        count[k] = t->count[at];
    }
    return k;
}

static double total_output; /* bytes of every count file written */

double *rank_recv, *rank_cpu;
size_t *rank_peak;

/* The generator's scratch: the arrays one rank passes, sized for the
 * largest communicator (the application's memory, not finalize's). */
typedef struct gen {
    int calls;
    int64_t *pp, *pc;
} gen;

/* What one virtual rank holds while it runs: heap now, less what was
 * there when it started, plus the messages it received (they were in
 * flight, so counted in the start). */
typedef struct rank_mem {
    int64_t w;
    size_t base;
    const sim_mailbox *box;
} rank_mem;

static void rank_probe(void *ctx)
{
    rank_mem *m = ctx;
    size_t now = heap_now() + (size_t)m->box->received;
    if (now > m->base && now - m->base > rank_peak[m->w])
        rank_peak[m->w] = now - m->base;
}

/* The first n (peer, count) pairs without their zeros (the generators
 * list peers ascending). */
static size_t nonzeros(int64_t *peer, int64_t *count, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (count[i] != 0) {
            peer[k] = peer[i];
            count[k++] = count[i];
        }
    return k;
}

/* Member v's own table of c, recorded as the wrappers record. */
static void own_table(gen *g, const comm *c, int64_t v, cp_counts *t)
{
    int64_t n = c->n;
    cp_counts_init(t);
    for (int k = 0; k < g->calls; k++) {
        int s = k % 2;
        cp_vec_arg sa = {.present = true, .width = sizeof(int), .dtsize = 4};
        cp_vec_arg ra = sa;
        if (c->single) {
            sa.single = ra.single = 4 + s;
            sa.len = ra.len = 1;
            cp_counts_record(t, cp_counts_signature(t, &sa, &ra, -1, CP_SEQ_NONE));
            continue;
        }
        /* The counts by their non-zeros (cp_vec_arg.nz_peers): what the
         * collector keeps and sends of a rank's row is the same as from
         * the dense array an application passes, without reading P counts
         * per call, which made a run cost P^2 x CALLS. */
        size_t ms = nonzeros(g->pp, g->pc, sends(c, v, s, g->pp, g->pc, (size_t)n));
        size_t mr = nonzeros(g->pp + ms, g->pc + ms,
                             recvs(c, v, s, g->pp + ms, g->pc + ms, (size_t)n - ms));
        sa.nz_peers = g->pp;
        sa.nz_counts = g->pc;
        sa.nnz = (int64_t)ms;
        ra.nz_peers = g->pp + ms;
        ra.nz_counts = g->pc + ms;
        ra.nnz = (int64_t)mr;
        sa.len = ra.len = n;
        cp_counts_record(t, cp_counts_signature(t, &sa, &ra, -1, CP_SEQ_NONE));
    }
}

/* lead_files' sink: as finalize's (finalize_merge.c), each block's rows
 * in rank space and its text into the spool, measured at the most the lead
 * holds: the tree left, the block and the text so far. */
typedef struct lead_spool {
    cp_compact_spool s[2];
    cp_compact_store store[2];
    rank_mem *rm;
} lead_spool;

static int spool_sink(void *ctx, int d, cp_block *b, cp_error *err)
{
    lead_spool *ls = ctx;
    int rc = cp_block_compact_rows(b) ? cp_error_set(err, "out of memory in the rows")
                                      : cp_compact_spool_block(&ls->s[d], b, err);
    rank_probe(ls->rm);
    cp_block_free(b);
    return rc;
}

/* The lead of communicator `id` turns the whole communicator's tree into
 * the count files in dir (its work, charged to it; the blocks take the
 * tree, as in finalize), which are then parsed back and every rank's row of
 * every call checked against the generator. */
static void lead_files(gen *g, const comm *c, int64_t id, cp_tree *root, const char *dir,
                       rank_mem *rm, bool *exact)
{
    int64_t n = c->n, lead = sim_world_of(c, 0);
    int64_t *pp = g->pp, *pc = g->pc;
    lead_spool ls = {.rm = rm};
    for (int d = 0; d < 2; d++)
        ls.s[d].store = &ls.store[d];
    char path[2][4200];
    double t0 = sim_cpu_now();
    cp_block tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.comm_id = -1;
    tmpl.comm_size = n;
    snprintf(tmpl.collective, sizeof tmpl.collective, "%s", c->single ? "Alltoall" : "Alltoallv");
    cp_error err;
    if (!root || cp_counts_tree_emit(root, &tmpl, spool_sink, &ls, &err))
        sim_die(root ? err.msg : "the lead holds no tables");
    cp_ranges none = {0};
    for (int d = 0; d < 2; d++) {
        snprintf(path[d], sizeof path[d], "%s/%s-counters.comm%" PRId64 ".txt", dir,
                 d ? "recv" : "send", id);
        ls.s[d].comm_id = id;
        ls.s[d].comm_size = n;
        ls.s[d].world = &none;
        cp_compact_spool *one = &ls.s[d];
        if (cp_compact_write_spools_file(path[d], false, &one, 1, &err))
            sim_die(err.msg);
        cp_compact_store_free(&ls.store[d]);
        struct stat sb;
        if (stat(path[d], &sb) == 0)
            total_output += (double)sb.st_size;
    }
    rank_cpu[lead] += sim_cpu_now() - t0;

    /* Exact: every rank's row of each call, from the file, against the
     * generator (non-zero counts, in peer order). */
    cp_counts_file f;
    if (cp_compact_parse_file(path[0], &f, &err))
        sim_die(err.msg);
    int64_t seen = 0;
    for (size_t i = 0; i < f.nblocks; i++) {
        const cp_block *b = &f.blocks[i];
        int s = (int)(b->calls.v[0].lo % 2);
        seen += cp_ranges_count(&b->calls);
        int64_t ranks = 0;
        for (size_t r = 0; r < b->nrows; r++) {
            const cp_row *row = &b->rows[r];
            ranks += cp_ranges_count(&row->ranks);
            for (size_t iv = 0; iv < row->ranks.n; iv++)
                for (int64_t v = row->ranks.v[iv].lo; v <= row->ranks.v[iv].hi; v++) {
                    size_t m = c->single ? 1 : sends(c, v, s, pp, pc, (size_t)n), k = 0;
                    if (c->single)
                        pc[0] = 4 + s, pp[0] = 0;
                    for (size_t q = 0, nq = cp_row_nitems(row); q < nq; q++) {
                        int64_t cnt, peer = cp_row_item(row, v, q, &cnt);
                        if (cnt == 0)
                            continue;
                        if (k >= m || pp[k] != peer || pc[k] != cnt)
                            *exact = false;
                        k++;
                    }
                    if (k != m)
                        *exact = false;
                }
        }
        if (ranks != n)
            *exact = false;
    }
    if (seen != g->calls)
        *exact = false;
    cp_counts_file_free(&f);
    char kept[4096];
    snprintf(kept, sizeof kept, "%s/send-counters.rank%" PRId64 ".txt", keep ? keep : "",
             c->first);
    if (!keep || rename(path[0], kept) != 0)
        remove(path[0]);
    remove(path[1]);
}

/* --keep: the manifest of the kept files (the communicators' members). */
static void keep_manifest(const comm *cs, int64_t nc)
{
    cp_manifest m = {0};
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    m.world_size = P;
    snprintf(m.job, sizeof m.job, "bench_scale");
    if (!(m.comms = calloc((size_t)nc, sizeof *m.comms)))
        sim_die("out of memory");
    m.ncomms = (size_t)nc;
    for (int64_t i = 0; i < nc; i++) {
        cp_comm_info *ci = &m.comms[i];
        ci->id = i, ci->size = cs[i].n, ci->lead = cs[i].first;
        for (int64_t r = 0; r < cs[i].n; r++)
            if (cp_ranges_push(&ci->members, cs[i].first + r * cs[i].stride))
                sim_die("out of memory");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", keep);
    cp_error err;
    if (cp_manifest_write_file(path, false, &m, &err))
        sim_die(err.msg);
    cp_manifest_free(&m);
}

/* The communicators world rank w is in (ids into cs) and its rank in
 * each: the world, or its row and its column. */
static size_t comms_of(int64_t w, int64_t ids[2], int64_t at[2])
{
    if (wl != SUBCOMMS) {
        ids[0] = 0, at[0] = w;
        return 1;
    }
    ids[0] = 2 * (w / K), at[0] = w % K; /* row w / K */
    ids[1] = 2 * (w % K) + 1, at[1] = w / K; /* column w % K */
    return 2;
}

/* The counts stage as finalize runs it (lib/finalize/finalize_exchange.c):
 * each virtual rank, from P - 1 down to 0, makes its holding of each of
 * its communicators from its own table and runs cp_groups_up over the
 * mailboxes (its children have run: they have higher world ranks in every
 * communicator); a lead then writes its communicator's count files. */
static void run_counts(const comm *cs, int64_t nc, int calls, const char *dir, bool *exact)
{
    int64_t maxn = 0;
    for (int64_t i = 0; i < nc; i++)
        if (cs[i].n > maxn)
            maxn = cs[i].n;
    gen g = {.calls = calls};
    g.pp = malloc(2 * (size_t)maxn * sizeof *g.pp);
    g.pc = malloc(2 * (size_t)maxn * sizeof *g.pc);
    if (!g.pp || !g.pc)
        sim_die("out of memory for the generator");
    if (wl == SPARSE) /* the generator's transposes, not any rank's memory */
        for (int s = 0; s < 2; s++)
            recvs(&cs[0], 0, s, g.pp, g.pc, (size_t)maxn);
    sim_mailbox box = {0};
    cp_tree_io io = sim_mailbox_io(&box);
    for (int64_t w = P - 1; w >= 0; w--) {
        int64_t ids[2], at[2];
        size_t k = comms_of(w, ids, at);
        box.self = w;
        box.received = 0;
        rank_mem rm = {w, heap_now(), &box};
        box.probe = rank_probe;
        box.probe_ctx = &rm;
        cp_holding h[2];
        cp_membership m[2];
        double cpu = 0;
        for (size_t i = 0; i < k; i++) {
            const comm *c = &cs[ids[i]];
            cp_counts t;
            own_table(&g, c, at[i], &t);
            cp_seq_finish(&t.seq);
            rank_probe(&rm);
            double t0 = sim_cpu_now();
            cp_holding_init(&h[i], at[i], c->n);
            h[i].probe = rank_probe;
            h[i].probe_ctx = &rm;
            cp_counts_view view = {t.vecs, t.nvecs, t.sigs, t.nsigs, &t.seq};
            cp_holding_leaf(&h[i], 0, &view, true);
            cpu += sim_cpu_now() - t0;
            rank_probe(&rm);
            cp_counts_free(&t);
            m[i] = (cp_membership){.key = {(uint64_t)ids[i], 0, 0}, .size = c->n,
                                   .rank = at[i], .members = c, .value = &h[i],
                                   .failed = h[i].failed};
        }
        double t0 = sim_cpu_now();
        cp_groups gr = {.v = m, .n = k, .world_of = sim_member_world};
        cp_groups_index(&gr);
        cp_groups_report rep = CP_GROUPS_REPORT_INIT;
        cp_groups_up(&gr, &io, &cp_holding_up_op, &rep);
        cp_groups_free_index(&gr);
        rank_cpu[w] += cpu + sim_cpu_now() - t0;
        rank_recv[w] += box.received;
        if (rep.malformed_from >= 0 || rep.out_of_memory || rep.too_big)
            sim_die("the counts stage failed");
        box.probe = NULL;
        for (size_t i = 0; i < k; i++) {
            if (m[i].failed)
                *exact = false;
            const cp_hold_coll *e = cp_holding_at(&h[i], 0);
            if (at[i] == 0)
                lead_files(&g, &cs[ids[i]], ids[i], e ? e->tree : NULL, dir, &rm, exact);
            cp_holding_clear(&h[i]);
        }
    }
    if (box.n)
        *exact = false; /* a message nobody asked for */
    sim_mailbox_free(&box);
    free(g.pp);
    free(g.pc);
}

static const char *arg(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return def;
}

int main(int argc, char **argv)
{
    const char *w = arg(argc, argv, "--workload", NULL), *ranks = arg(argc, argv, "--ranks", NULL);
    int calls = atoi(arg(argc, argv, "--calls", "20"));
    /* The wait-state stage's sample: the runtime's default, every series
     * at COLLPROF_TIMING_SAMPLE kept calls. */
    int sampled = atoi(arg(argc, argv, "--sampled", "1024"));
    const char *dir = arg(argc, argv, "--dir", "/tmp");
    keep = arg(argc, argv, "--keep", NULL);
    int wi = -1;
    for (int i = 0; w && i < 4; i++)
        if (strcmp(w, workload_names[i]) == 0)
            wi = i;
    P = ranks ? atoll(ranks) : 0;
    if (wi < 0 || P < 16 || calls < 1 || sampled < 1) {
        fprintf(stderr, "usage: bench_scale --ranks P (16 or more) --workload "
                        "halo|uniform|sparse|subcomms [--calls N] [--sampled S] [--dir D] "
                        "[--keep D]\n");
        return 2;
    }
    wl = (enum workload)wi;
    for (K = 1; (K + 1) * (K + 1) <= P; K++)
        ; /* floor(sqrt(P)) */
    if (wl == SUBCOMMS)
        P = K * K;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/bench_scale.%ld", dir, (long)getpid());
    if (mkdir(tmp, 0700) != 0) {
        perror(tmp);
        return 1;
    }
    rank_recv = calloc((size_t)P, sizeof *rank_recv);
    rank_cpu = calloc((size_t)P, sizeof *rank_cpu);
    rank_peak = calloc((size_t)P, sizeof *rank_peak);
    if (!rank_recv || !rank_cpu || !rank_peak) {
        fprintf(stderr, "bench_scale: out of memory\n");
        return 1;
    }
    bool exact = true;
    int64_t ncomms = 0;
    wait_sim ws;
    sim_waits_init(&ws, P, sampled);
    comm *cs;
    if (wl == SUBCOMMS) {
        /* every rank is in its row (2i) and its column (2i + 1) */
        ncomms = 2 * K;
        if (!(cs = calloc((size_t)ncomms, sizeof *cs)))
            sim_die("out of memory");
        for (int64_t i = 0; i < K; i++) {
            cs[2 * i] = (comm){.n = K, .first = i * K, .stride = 1};
            cs[2 * i + 1] = (comm){.n = K, .first = i, .stride = K};
        }
    } else {
        ncomms = 1;
        if (!(cs = calloc(1, sizeof *cs)))
            sim_die("out of memory");
        cs[0] = (comm){.n = P, .first = 0, .stride = 1, .single = wl == UNIFORM};
    }
    run_counts(cs, ncomms, calls, tmp, &exact);
    if (keep)
        keep_manifest(cs, ncomms);
    for (int64_t i = 0; i < ncomms; i++)
        sim_waits_comm(&ws, &cs[i]);
    sim_waits_stats(&ws);
    double paths_lead = 0;
    size_t paths_nodes = 0;
    bool paths_exact = false;
    sim_paths(P, &paths_lead, &paths_nodes, &paths_exact);
    double sites_recv = 0, sites_peak = 0, sites_cpu = 0;
    size_t sites_keys = 0;
    bool sites_exact = false;
    sim_sites(P, &sites_recv, &sites_peak, &sites_cpu, &sites_keys, &sites_exact);
    double cube_bytes = 0, cube_recv = 0, cube_peak = 0, cube_cpu = 0;
    bool cube_exact = false;
    sim_cube(P, tmp, &cube_bytes, &cube_recv, &cube_peak, &cube_cpu, &cube_exact);
    int64_t wmost = 0; /* the wait-state stage's own busiest */
    for (int64_t r = 1; r < P; r++)
        if (ws.peak[r] > ws.peak[wmost])
            wmost = r;
    rmdir(tmp);
    int64_t busiest = 0, most_recv = 0, most_cpu = 0;
    for (int64_t r = 1; r < P; r++) {
        if (rank_peak[r] > rank_peak[busiest])
            busiest = r;
        if (rank_recv[r] > rank_recv[most_recv])
            most_recv = r;
        if (rank_cpu[r] > rank_cpu[most_cpu])
            most_cpu = r;
    }
    printf("ranks=%" PRId64 " workload=%s calls=%d comms=%" PRId64 " busiest_rank=%" PRId64
           " busiest_peak_mib=%.3f busiest_recv_mib=%.3f busiest_cpu_s=%.3f"
           " most_recv_rank=%" PRId64 " most_recv_mib=%.3f most_cpu_rank=%" PRId64
           " most_cpu_s=%.3f lead_recv_mib=%.3f lead_cpu_s=%.3f output_bytes=%.0f"
           " waits_busiest_rank=%" PRId64 " waits_peak_mib=%.3f waits_recv_mib=%.3f"
           " waits_cpu_s=%.3f waits_lead_recv_mib=%.3f waits_exact=%s"
           " paths_nodes=%zu paths_lead_recv_kib=%.3f paths_exact=%s"
           " sites_keys=%zu sites_lead_recv_mib=%.3f sites_lead_peak_mib=%.3f"
           " sites_lead_cpu_s=%.3f sites_exact=%s"
           " cube_bytes=%.0f cube_lead_recv_mib=%.3f cube_lead_peak_mib=%.3f cube_lead_cpu_s=%.3f"
           " cube_exact=%s stages=counts,waits,paths,sites,cube exact=%s\n",
           P, workload_names[wl], calls, ncomms, busiest, (double)rank_peak[busiest] / 1048576.0,
           rank_recv[busiest] / 1048576.0, rank_cpu[busiest], most_recv,
           rank_recv[most_recv] / 1048576.0, most_cpu, rank_cpu[most_cpu],
           rank_recv[0] / 1048576.0, rank_cpu[0], total_output, wmost,
           (double)ws.peak[wmost] / 1048576.0, ws.recv[wmost] / 1048576.0, ws.cpu[wmost],
           ws.recv[0] / 1048576.0, ws.exact ? "yes" : "no", paths_nodes, paths_lead / 1024.0,
           paths_exact ? "yes" : "no", sites_keys, sites_recv, sites_peak, sites_cpu,
           sites_exact ? "yes" : "no", cube_bytes, cube_recv, cube_peak, cube_cpu,
           cube_exact ? "yes" : "no",
           exact && ws.exact && paths_exact && sites_exact && cube_exact ? "yes" : "no");
    sim_waits_free(&ws);
    free(cs);
    for (int i = 0; i < 2; i++) {
        free(sparse_t[i].start);
        free(sparse_t[i].peer);
        free(sparse_t[i].count);
    }
    free(rank_recv);
    free(rank_cpu);
    free(rank_peak);
    return 0;
}
