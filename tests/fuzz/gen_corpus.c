/*
 * Writes the seed files of our own formats into a corpus directory, with the
 * real writers, so that the seeds are exactly what collprof writes (and follow
 * the format when it changes: run it again, see docs/fuzzing.md):
 *
 *   fuzz_gen_corpus tests/fuzz/corpus
 *
 * writes compact/w-*.txt, manifest/w-*.json and textio/w-*.gz.  The other
 * seeds (other tools' dialect, range lists, hand-made edge cases) are written
 * by hand and live beside them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compact.h"
#include "manifest.h"
#include "ranges.h"

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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_gen_corpus CORPUS_DIR   (tests/fuzz/corpus)\n");
        return 2;
    }
    root = argv[1];
    counts_files();
    manifests();
    return 0;
}
