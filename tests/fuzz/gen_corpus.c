/*
 * Writes the seed files of our own formats into a corpus directory, with the
 * real writers, so that the seeds are exactly what collprof writes (and follow
 * the format when it changes: run it again, see docs/fuzzing.md):
 *
 *   fuzz_gen_corpus tests/fuzz/corpus
 *
 * writes compact/w-*.txt, manifest/w-*.json, stat/w-*.stat, cpt/w-*.cpt (and
 * cpt/h-*.cpt: the writer's bytes with a newer version patched in),
 * cubex/w-*.cubex and textio/w-*.gz.  The other seeds (other tools' dialect,
 * range lists, hand-made edge cases) are written by hand and live beside
 * them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compact.h"
#include "cpt.h"
#include "cubex.h"
#include "manifest.h"
#include "ranges.h"
#include "stat.h"

static const char *root;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_gen_corpus: %s: %s\n", what, why);
    exit(1);
}

static void set(cp_ranges *r, const char *text, int ordered)
{
    const char *why = "";
    int rc = ordered ? cp_ranges_parse_ordered(text, strlen(text), r, &why)
                     : cp_ranges_parse(text, strlen(text), r, &why);
    if (rc != 0)
        die(text, why);
}

static cp_block *new_block(cp_counts_file *f, const char *coll, const char *all,
                           const char *calls, int64_t nranks, int64_t dtsize)
{
    f->blocks = realloc(f->blocks, (f->nblocks + 1) * sizeof *f->blocks);
    if (!f->blocks)
        die("blocks", strerror(ENOMEM));
    cp_block *b = &f->blocks[f->nblocks++];
    cp_block_init(b);
    snprintf(b->collective, sizeof b->collective, "%s", coll);
    set(&b->all_calls, all, 0);
    set(&b->calls, calls, 0);
    b->nranks = nranks;
    b->dtsize = dtsize;
    return b;
}

static void comm(cp_block *b, int64_t id, int64_t size, const char *world)
{
    b->comm_id = id;
    b->comm_size = size;
    if (world)
        set(&b->comm_world_ranks, world, 1);
}

/* A row: ranks, then len counts. */
static void row(cp_block *b, const char *ranks, size_t len, const int64_t *counts)
{
    b->rows = realloc(b->rows, (b->nrows + 1) * sizeof *b->rows);
    if (!b->rows)
        die("rows", strerror(ENOMEM));
    cp_row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    set(&r->ranks, ranks, 0);
    r->len = len;
    if (len) {
        r->counts = malloc(len * sizeof *r->counts);
        memcpy(r->counts, counts, len * sizeof *r->counts);
    }
    if (len > b->row_len)
        b->row_len = len;
}

static const char *path_of(const char *sub, const char *name)
{
    static char path[8192];
    if (mkdir(root, 0777) != 0 && errno != EEXIST)
        die(root, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", root, sub);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die(path, strerror(errno));
    snprintf(path, sizeof path, "%s/%s/%s", root, sub, name);
    return path;
}

static void write_counts(const char *sub, const char *name, bool gzip, cp_counts_file *f)
{
    cp_error err;
    if (cp_compact_write_file(path_of(sub, name), gzip, f, &err) != 0)
        die(name, err.msg);
    cp_counts_file_free(f);
    memset(f, 0, sizeof *f);
}

/* ---------------------------------------------------------- counts files */

/* The example of docs/formats.md, with the block of the third call. */
static void doc_example(cp_counts_file *f)
{
    cp_block *b = new_block(f, "Alltoallv", "0-2", "0-1", 3, 8);
    comm(b, 3, 3, "0,2,4");
    row(b, "0", 3, (const int64_t[]){1, 2, 0});
    row(b, "1-2", 3, (const int64_t[]){0, 0, 3});
    b = new_block(f, "Alltoallv", "0-2", "2", 3, 8);
    comm(b, 3, 3, "0,2,4");
    row(b, "0-2", 3, (const int64_t[]){1, 1, 1});
}

static void counts_files(void)
{
    cp_counts_file f = {0};

    doc_example(&f);
    write_counts("compact", "w-doc-example.txt", false, &f);

    /* Rooted, receive side of Gatherv: only the root has a row; counts in
     * bytes (mixed datatypes); a communicator without its membership. */
    cp_block *b = new_block(&f, "Gatherv", "0-9", "0-4,6,8-9", 4, 1);
    comm(b, 7, 4, NULL);
    b->root = 2;
    b->counts_in_bytes = true;
    row(b, "2", 4, (const int64_t[]){16, 0, 24, 9223372036854775807});
    b = new_block(&f, "Gatherv", "0-9", "5,7", 4, 8);
    comm(b, 7, 4, NULL);
    b->root = 2;
    write_counts("compact", "w-rooted-bytes.txt", false, &f);

    /* Neighbourhood collective: rows of different lengths, an empty row. */
    b = new_block(&f, "Neighbor_alltoallv", "0-3", "0-3", 5, 4);
    comm(b, 12, 5, "4,3,2,1,0");
    row(b, "0", 2, (const int64_t[]){1, 2});
    row(b, "1,3", 3, (const int64_t[]){0, 5, 6});
    row(b, "2", 0, NULL);
    row(b, "4", 1, (const int64_t[]){7});
    write_counts("compact", "w-neighbor.txt", false, &f);

    /* Several communicators and collectives, single counts (row length 1),
     * a block without rows, large call indices. */
    b = new_block(&f, "Alltoall", "0-999999", "0-999999", 2, 4);
    comm(b, 0, 2, "0-1");
    row(b, "0-1", 1, (const int64_t[]){128});
    b = new_block(&f, "Bcast", "0,5,10-12", "0,5,10-12", 2, 1);
    comm(b, 1, 2, "1,0");
    b->root = 1;
    row(b, "0-1", 1, (const int64_t[]){4096});
    b = new_block(&f, "Ialltoallv_c", "3", "3", 2, 16);
    row(b, "0", 2, (const int64_t[]){0, 0});
    b = new_block(&f, "Gatherv_init", "0-1", "0-1", 3, 8);
    comm(b, 2, 3, "0-2");
    b->root = 0;
    write_counts("compact", "w-many-blocks.txt", false, &f);

    /* A version line and nothing else: a run without recorded calls. */
    write_counts("compact", "w-empty.txt", false, &f);

    /* Compressed, for the line reader's gzip path. */
    doc_example(&f);
    write_counts("textio", "w-doc-example.txt.gz", true, &f);
}

/* -------------------------------------------------------------- manifests */

static void kv(cp_manifest *m, const char *k, const char *v)
{
    m->config = realloc(m->config, (m->nconfig + 1) * sizeof *m->config);
    m->config[m->nconfig].key = strdup(k);
    m->config[m->nconfig].value = strdup(v);
    m->nconfig++;
}

static cp_comm_info *add_comm(cp_manifest *m, int64_t id, int64_t size, const char *members,
                              const char *remote)
{
    m->comms = realloc(m->comms, (m->ncomms + 1) * sizeof *m->comms);
    cp_comm_info *c = &m->comms[m->ncomms++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->size = size;
    set(&c->members, members, 1);
    c->lead = c->members.v[0].lo;
    if (remote)
        set(&c->remote_members, remote, 1);
    return c;
}

static void add_file(cp_manifest *m, const char *name)
{
    m->files = realloc(m->files, (m->nfiles + 1) * sizeof *m->files);
    m->files[m->nfiles++] = strdup(name);
}

static void base(cp_manifest *m, int64_t world)
{
    memset(m, 0, sizeof *m);
    m->format_version = CP_MANIFEST_FORMAT_VERSION;
    m->counts_format_version = CP_COUNTS_FORMAT_VERSION;
    snprintf(m->collprof_version, sizeof m->collprof_version, "0.1.0");
    snprintf(m->mpi_version, sizeof m->mpi_version,
             "MPICH Version: 4.0.2\nMPICH Release date: Thu Mar 10 11:07:37 CST 2022");
    snprintf(m->job, sizeof m->job, "local");
    snprintf(m->start_time, sizeof m->start_time, "2026-11-22T04:13:35");
    m->world_size = world;
}

static void write_manifest(const char *name, cp_manifest *m)
{
    cp_error err;
    if (cp_manifest_write_file(path_of("manifest", name), false, m, &err) != 0)
        die(name, err.msg);
    cp_manifest_free(m);
}

static void manifests(void)
{
    cp_manifest m;

    /* The example of docs/formats.md. */
    base(&m, 4);
    kv(&m, "COLLPROF_COMPRESS", "none");
    kv(&m, "COLLPROF_OUTPUT_DIR", "out");
    add_comm(&m, 0, 4, "0-3", NULL);
    add_comm(&m, 1, 2, "2,0", NULL);
    add_file(&m, "manifest.json");
    add_file(&m, "send-counters.rank0.txt");
    add_file(&m, "recv-counters.rank0.txt");
    add_file(&m, "send-counters.rank2.txt");
    add_file(&m, "recv-counters.rank2.txt");
    write_manifest("w-doc-example.json", &m);

    /* Partial run, an intercommunicator (two entries), a topology with
     * neighbour lists (MPI_PROC_NULL = -1), strings that need escapes. */
    base(&m, 6);
    m.partial = true;
    snprintf(m.partial_reason, sizeof m.partial_reason,
             "MPI_Finalize not reached \"exit(3)\"\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    snprintf(m.job, sizeof m.job, "slurm\\1234");
    kv(&m, "COLLPROF_COLLECTIVES", "alltoallv,bcast");
    kv(&m, "COLLPROF_MAX_CALLS", "\x01\x1f");
    add_comm(&m, 0, 6, "0-5", NULL);
    add_comm(&m, 4, 3, "0-2", "3-5");
    add_comm(&m, 5, 3, "3-5", "0-2");
    cp_comm_info *c = add_comm(&m, 6, 3, "5,1,3", NULL);
    c->neighbors = calloc(3, sizeof *c->neighbors);
    c->neighbors[0].sources = malloc(2 * sizeof(int64_t));
    c->neighbors[0].sources[0] = 1;
    c->neighbors[0].sources[1] = -1;
    c->neighbors[0].nsources = 2;
    c->neighbors[1].destinations = malloc(sizeof(int64_t));
    c->neighbors[1].destinations[0] = 2;
    c->neighbors[1].ndestinations = 1;
    add_file(&m, "send-counters.rank0.txt.gz");
    write_manifest("w-partial-inter-topo.json", &m);

    /* Nothing recorded. */
    base(&m, 1);
    write_manifest("w-minimal.json", &m);
}

/* ------------------------------------------------------- profile.stat */

static cp_stat_pattern *pattern(cp_stat_file *s, const char *name, double *v, size_t n)
{
    cp_stat_pattern *p = cp_stat_file_add(s, name);
    if (!p)
        die(name, strerror(ENOMEM));
    cp_stat_summarize(p, v, n);
    p->metric_id = (int64_t)s->npatterns + 10;
    return p;
}

static void instance(cp_stat_pattern *p, int64_t cnode, double enter, double dur, int64_t rank)
{
    cp_stat_event e = {cnode, enter, enter + dur, dur, rank};
    cp_stat_offer_event(p, &e);
}

static void write_stat(const char *name, cp_stat_file *s)
{
    cp_error err;
    if (cp_stat_write(path_of("stat", name), s, &err) != 0)
        die(name, err.msg);
    cp_stat_file_free(s);
}

/* Counts 1, 2-4 and >= 5 (the column rule), with up to the maximum number of
 * instances, in both layouts; and a file without patterns. */
static void stat_files(void)
{
    for (int layout = 0; layout < 2; layout++) {
        cp_stat_file s = {.layout = layout};
        double one[] = {0.25};
        instance(pattern(&s, "mpi_barrier_wait", one, 1), 3, 1.0, 0.25, 0);
        double three[] = {0.1, 0.4, 0.2};
        cp_stat_pattern *p = pattern(&s, "mpi_latebroadcast", three, 3);
        instance(p, 7, 2.5, 0.4, 2);
        instance(p, 8, 3.5, 0.2, 0);
        instance(p, 9, 4.5, 0.1, 1);
        static const double waits[] = {0.007, 0.001, 0.003, 0.009, 0.002, 0.008};
        double six[6];
        memcpy(six, waits, sizeof six); /* summarize sorts it */
        p = pattern(&s, "mpi_wait_nxn", six, 6);
        /* six instances on five cnodes: one is dropped, cnode 20 twice */
        for (int i = 0; i < 6; i++)
            instance(p, 20 + i % 5, 10.0 + i, waits[i], i);
        pattern(&s, "mpi_earlyscan", NULL, 0);
        write_stat(layout ? "w-documented.stat" : "w-cubegui.stat", &s);
    }
    cp_stat_file empty = {.layout = CP_STAT_LAYOUT_CUBEGUI};
    write_stat("w-empty.stat", &empty);
}

/* ---------------------------------------------------------- timings.cpt */

static cp_cpt_file cpt_new(uint64_t world_size)
{
    cp_cpt_file f;
    memset(&f, 0, sizeof f);
    f.version[0] = CP_CPT_VERSION_MAJOR;
    f.version[1] = CP_CPT_VERSION_MINOR;
    f.version[2] = CP_CPT_VERSION_PATCH;
    snprintf(f.git_hash, sizeof f.git_hash, "0123456789abcdef0123456789abcdef01234567");
    snprintf(f.mode, sizeof f.mode, "MPICH 4.0");
    f.flags = CP_CPT_TIMING;
    f.world_size = world_size;
    f.chunks = calloc(world_size, sizeof *f.chunks);
    if (!f.chunks)
        die("chunks", strerror(ENOMEM));
    for (uint64_t i = 0; i < world_size; i++) {
        f.chunks[i].rank = (int64_t)i;
        snprintf(f.chunks[i].hostname, sizeof f.chunks[i].hostname, "n%d", (int)i / 2);
        f.chunks[i].core = (int32_t)i;
        f.chunks[i].pid = 1000 + (int32_t)i;
        f.chunks[i].node = (uint32_t)i / 2;
    }
    return f;
}

/* A series of n calls, call i entering at t0 + i and taking d (flags and
 * root the same for all). */
static void cpt_series(cp_cpt_chunk *c, int64_t comm, const char *coll, size_t n, double t0,
                       double d, int32_t root, uint8_t flags)
{
    c->series = realloc(c->series, (c->nseries + 1) * sizeof *c->series);
    if (!c->series)
        die("series", strerror(ENOMEM));
    cp_cpt_series *s = &c->series[c->nseries++];
    memset(s, 0, sizeof *s);
    s->comm_id = comm;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    s->n = n;
    if (n == 0)
        return;
    s->call = calloc(n, sizeof *s->call);
    s->enter = calloc(n, sizeof *s->enter);
    s->start = calloc(n, sizeof *s->start);
    s->exit = calloc(n, sizeof *s->exit);
    s->root = calloc(n, sizeof *s->root);
    s->flags = calloc(n, sizeof *s->flags);
    if (!s->call || !s->enter || !s->start || !s->exit || !s->root || !s->flags)
        die("series", strerror(ENOMEM));
    for (size_t i = 0; i < n; i++) {
        s->call[i] = i;
        s->enter[i] = t0 + (double)i;
        s->start[i] = s->enter[i] + d / 4;
        s->exit[i] = s->enter[i] + d;
        s->root[i] = root;
        s->flags[i] = flags;
    }
}

/* World rank 0's aggregates: one collective, one slowest instance. */
static void cpt_aggregates(cp_cpt_chunk *c, const char *coll, uint64_t calls, int64_t slow_rank)
{
    cp_cpt_aggregates *a = &c->agg;
    c->has_aggregates = true;
    snprintf(a->start_time, sizeof a->start_time, "2026-11-22T04:13:35");
    snprintf(a->end_time, sizeof a->end_time, "2026-11-22T04:13:36");
    a->colls = calloc(1, sizeof *a->colls);
    a->slowest = calloc(1, sizeof *a->slowest);
    if (!a->colls || !a->slowest)
        die("aggregates", strerror(ENOMEM));
    snprintf(a->colls[0].collective, sizeof a->colls[0].collective, "%s", coll);
    a->colls[0].calls = calls;
    a->colls[0].min = 0.001;
    a->colls[0].avg = 0.002;
    a->colls[0].max = 0.004;
    a->ncolls = 1;
    snprintf(a->slowest[0].collective, sizeof a->slowest[0].collective, "%s", coll);
    a->slowest[0].call = 1;
    a->slowest[0].rank = slow_rank;
    a->slowest[0].duration = 0.004;
    a->nslowest = 1;
}

static void write_bytes(const char *sub, const char *name, const void *p, size_t len)
{
    const char *path = path_of(sub, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(p, 1, len, fp) != len || fclose(fp) != 0)
        die(path, strerror(errno));
}

static void write_cpt(const char *name, cp_cpt_file *f)
{
    cp_error err;
    if (cp_cpt_write(path_of("cpt", name), f, &err) != 0)
        die(name, err.msg);
}

/* The chunks placed as the runtime places them, each offset after the first
 * (the header's size) rounded up to 16 bytes: padding between chunks. */
static void write_cpt_padded(const char *name, const cp_cpt_file *f)
{
    cp_error err;
    cp_bytes chunk[8], hdr = {0}, out = {0};
    memset(chunk, 0, sizeof chunk);
    uint64_t off[8], at = cp_cpt_header_size(f);
    if (f->world_size > 8)
        die(name, "too many ranks for a seed");
    for (uint64_t r = 0; r < f->world_size; r++) {
        if (cp_cpt_encode_chunk(&f->chunks[r], &chunk[r], &err) != 0)
            die(name, err.msg);
        if (r > 0)
            at = (at + 15) / 16 * 16;
        off[r] = at;
        at += chunk[r].len;
    }
    if (cp_cpt_encode_header(f, off, &hdr, &err) != 0)
        die(name, err.msg);
    cp_bytes_append(&out, hdr.p, hdr.len);
    for (uint64_t r = 0; r < f->world_size; r++) {
        while (out.len < off[r])
            cp_bytes_append(&out, "", 1);
        cp_bytes_append(&out, chunk[r].p, chunk[r].len);
        cp_bytes_free(&chunk[r]);
    }
    if (out.failed)
        die(name, strerror(ENOMEM));
    write_bytes("cpt", name, out.p, out.len);
    cp_bytes_free(&hdr);
    cp_bytes_free(&out);
}

/* The writer's bytes with another version in the header (bytes 5-16). */
static void write_cpt_version(const char *name, const cp_cpt_file *f, uint32_t major,
                              uint32_t minor)
{
    cp_error err;
    cp_bytes b = {0};
    if (cp_cpt_encode(f, &b, &err) != 0)
        die(name, err.msg);
    for (int i = 0; i < 4; i++) {
        b.p[5 + i] = (unsigned char)(major >> (8 * i));
        b.p[9 + i] = (unsigned char)(minor >> (8 * i));
    }
    write_bytes("cpt", name, b.p, b.len);
    cp_bytes_free(&b);
}

static void cpt_files(void)
{
    /* Nothing recorded: the smallest file. */
    cp_cpt_file f = cpt_new(1);
    f.mode[0] = '\0';
    f.git_hash[0] = '\0';
    write_cpt("w-minimal.cpt", &f);
    cp_cpt_file_free(&f);

    /* One rank: aggregates, a series, a series of aggregated calls only. */
    f = cpt_new(1);
    cpt_aggregates(&f.chunks[0], "Alltoallv", 7, 0);
    cpt_series(&f.chunks[0], 0, "Alltoallv", 2, 0.5, 0.01, -1, 0);
    cpt_series(&f.chunks[0], 0, "Barrier", 0, 0, 0, -1, 0);
    f.chunks[0].series[1].naggregated = 4;
    f.chunks[0].series[1].agg_time = 0.02;
    write_cpt("w-one-rank.cpt", &f);
    write_cpt_version("h-newer-major.cpt", &f, CP_CPT_VERSION_MAJOR + 1, 0);
    write_cpt_version("h-newer-minor.cpt", &f, CP_CPT_VERSION_MAJOR, CP_CPT_VERSION_MINOR + 3);
    cp_cpt_file_free(&f);

    /* Three ranks in barrier mode: rooted and nonblocking calls, a rank
     * without series. */
    f = cpt_new(3);
    f.flags = CP_CPT_TIMING | CP_CPT_BARRIER | CP_CPT_LOCATION;
    cpt_aggregates(&f.chunks[0], "Ibcast", 6, 2);
    cpt_series(&f.chunks[0], 0, "Ibcast", 3, 1.0, 0.002, 0, CP_CPT_NONBLOCKING);
    cpt_series(&f.chunks[2], 0, "Ibcast", 3, 1.0, 0.004, 0, CP_CPT_NONBLOCKING);
    cpt_series(&f.chunks[2], 3, "Gatherv", 1, 5.0, 0.1, 1, 0);
    write_cpt("w-three-ranks.cpt", &f);
    cp_cpt_file_free(&f);

    /* Two ranks written as the runtime does, with padding. */
    f = cpt_new(2);
    cpt_series(&f.chunks[0], 1, "Allreduce", 1, 2.0, 0.003, -1, 0);
    cpt_series(&f.chunks[1], 1, "Allreduce", 1, 2.0, 0.001, -1, 0);
    write_cpt_padded("w-padded.cpt", &f);
    cp_cpt_file_free(&f);
}

/* ------------------------------------------------------ profile.cubex */

static void cube_metric(cp_cube *c, const char *uniq, const char *disp, cp_cube_dtype dt,
                        const char *uom)
{
    cp_cube_metric m;
    memset(&m, 0, sizeof m);
    snprintf(m.uniq_name, sizeof m.uniq_name, "%s", uniq);
    snprintf(m.disp_name, sizeof m.disp_name, "%s", disp);
    m.dtype = dt;
    snprintf(m.uom, sizeof m.uom, "%s", uom);
    snprintf(m.descr, sizeof m.descr, "%s of the collectives", disp);
    if (cp_cube_add_metric(c, &m) < 0)
        die(uniq, "cannot add the metric");
}

static void cube_region(cp_cube *c, const char *name, const char *paradigm, const char *role,
                        const char *mod, int64_t begin, int64_t end)
{
    cp_cube_region r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.mangled_name, sizeof r.mangled_name, "%s", name);
    snprintf(r.paradigm, sizeof r.paradigm, "%s", paradigm);
    snprintf(r.role, sizeof r.role, "%s", role);
    snprintf(r.mod, sizeof r.mod, "%s", mod);
    r.begin = begin;
    r.end = end;
    if (cp_cube_add_region(c, &r) < 0)
        die(name, "cannot add the region");
}

static void cube_host(cp_cube *c, const char *host)
{
    if (cp_cube_add_host(c, host) < 0)
        die(host, "cannot add the host");
}

static void write_cube(const char *name, cp_cube *c)
{
    cp_error err;
    if (cp_cubex_write(path_of("cubex", name), c, &err) != 0)
        die(name, err.msg);
    cp_cube_free(c);
}

/* A small profile (2 ranks on one host, main -> two collectives; visits
 * sparse, time dense) and a richer one (3 ranks on 2 hosts, not contiguous;
 * a call tree added out of order, with two roots; names that need escaping;
 * 2^53+1 and UINT64_MAX; a metric of zeros). */
static void cubex_files(void)
{
    cp_cube c;
    if (cp_cube_init(&c, 2) < 0)
        die("cube", strerror(ENOMEM));
    snprintf(c.machine, sizeof c.machine, "cluster");
    cube_metric(&c, "visits", "Visits", CP_CUBE_UINT64, "occ");
    cube_metric(&c, "time", "Time", CP_CUBE_DOUBLE, "sec");
    cube_region(&c, "main", "user", "function", "app.c", 1, 30);
    cube_region(&c, "MPI_Alltoallv", "mpi", "collective", "", -1, -1);
    cube_region(&c, "MPI_Bcast", "mpi", "collective", "", -1, -1);
    cube_host(&c, "node0");
    cp_cube_set_location_host(&c, 0, 0);
    cp_cube_set_location_host(&c, 1, 0);
    int64_t root = cp_cube_tree_add(&c, -1, 0, -1, NULL);
    cp_cube_tree_add(&c, root, 1, 12, "app.c");
    cp_cube_tree_add(&c, root, 2, 20, "app.c");
    if (cp_cube_tree_finish(&c, NULL) < 0)
        die("cube", "cannot number the call tree");
    cp_cube_add_u64(&c, 0, 1, 0, 3);
    cp_cube_add_u64(&c, 0, 1, 1, 3);
    cp_cube_add_u64(&c, 0, 2, 1, 1);
    for (size_t n = 0; n < 3; n++)
        for (size_t l = 0; l < 2; l++)
            cp_cube_add_double(&c, 1, n, l, 0.5 * (double)(n + 1) + (double)l);
    write_cube("w-small.cubex", &c);

    if (cp_cube_init(&c, 3) < 0)
        die("cube", strerror(ENOMEM));
    snprintf(c.machine, sizeof c.machine, "cluster <\"a\"> & 'b'");
    cp_cube_add_attr(&c, "Creator", "collprof fuzz_gen_corpus");
    cube_metric(&c, "visits", "Visits", CP_CUBE_UINT64, "occ");
    cube_metric(&c, "bytes_sent", "Bytes sent", CP_CUBE_UINT64, "bytes");
    cube_metric(&c, "mpi_wait_nxn", "Wait at N x N", CP_CUBE_DOUBLE, "sec");
    cube_region(&c, "main", "user", "function", "app.c", 1, 30);
    cube_region(&c, "solve<T>&", "user", "function", "dir/a b.cpp", 5, 9);
    cube_region(&c, "MPI_Allreduce", "mpi", "collective", "", -1, -1);
    cube_host(&c, "node-a");
    cube_host(&c, "node-b");
    cp_cube_set_location_host(&c, 0, 0);
    cp_cube_set_location_host(&c, 1, 1);
    cp_cube_set_location_host(&c, 2, 0);
    int64_t h0 = cp_cube_tree_add(&c, -1, 0, -1, NULL);
    int64_t h1 = cp_cube_tree_add(&c, h0, 1, 5, "app.c");
    cp_cube_tree_add(&c, h0, 2, 9, "app.c");
    cp_cube_tree_add(&c, h1, 2, 7, "dir/a b.cpp"); /* after its parent's sibling */
    int64_t h4 = cp_cube_tree_add(&c, -1, 0, -1, "init.c");
    cp_cube_tree_add(&c, h4, 2, 3, "init.c");
    int64_t ids[6];
    if (cp_cube_tree_finish(&c, ids) < 0)
        die("cube", "cannot number the call tree");
    for (size_t l = 0; l < 3; l++) {
        cp_cube_add_u64(&c, 0, (size_t)ids[3], l, 2);
        cp_cube_add_u64(&c, 1, (size_t)ids[3], l, 9007199254740993ull);
    }
    cp_cube_add_u64(&c, 1, (size_t)ids[5], 1, UINT64_MAX);
    write_cube("w-rich.cubex", &c);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_gen_corpus CORPUS_DIR   (tests/fuzz/corpus)\n");
        return 2;
    }
    root = argv[1];
    counts_files();
    manifests();
    stat_files();
    cpt_files();
    cubex_files();
    return 0;
}
