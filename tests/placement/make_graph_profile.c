/*
 * Output directories whose best node layout is known, written with the
 * real writers (manifest, compact counts, and timings.cpt for the hosts):
 * the inputs of placement_test.sh.
 *
 *   ring      16 ranks in a ring whose order is the permutation 5k mod 16
 *             of the ranks; Alltoallv, 1000 ints to each ring neighbour,
 *             10 calls: 80,000 bytes on each ring edge.  On 4 nodes of 4 the
 *             best layout cuts 4 ring edges: 320,000 bytes.
 *   stencil   64 ranks, an 8 x 8 grid in row-major order, each rank 100
 *             doubles to each of its (up to 4) grid neighbours, 5 calls:
 *             8,000 bytes on each grid edge.  On 4 nodes of 16: 4 x 4 tiles
 *             cut 16 edges (128,000 bytes), blocks of 2 rows 24 (192,000).
 *   alltoall  8 ranks, Alltoall of 10 ints, 3 calls: every pair the same,
 *             every layout of 2 nodes of 4 the same.
 *   mixed     6 ranks: an Alltoallv, a Gatherv to root 2, a Bcast from root
 *             4, an Allgather and an Allreduce (left out): the graph
 *             checked against cut_from_export.py.
 *
 * usage: make_graph_profile DIR CASE [HOSTFILE]
 *        HOSTFILE: line i = the host of rank i, written as the run's own
 *        hosts (timings.cpt's locations).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compact.h"
#include "cpt.h"
#include "manifest.h"
#include "ranges.h"

static void die(const char *what)
{
    fprintf(stderr, "make_graph_profile: %s\n", what);
    exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

static cp_block *block(cp_counts_file *f, int n, const char *coll, int64_t root, int64_t dtsize,
                       int64_t calls, size_t row_len)
{
    f->blocks = realloc(f->blocks, (f->nblocks + 1) * sizeof *f->blocks);
    if (!f->blocks)
        die("out of memory");
    cp_block *b = &f->blocks[f->nblocks++];
    cp_block_init(b);
    b->comm_id = 0;
    b->comm_size = n;
    snprintf(b->collective, sizeof b->collective, "%s", coll);
    b->root = root;
    b->nranks = n;
    b->dtsize = dtsize;
    if (cp_ranges_add_range(&b->all_calls, 0, calls - 1) ||
        cp_ranges_add_range(&b->calls, 0, calls - 1))
        die("out of memory");
    b->row_len = row_len;
    return b;
}

/* Rank `rank`'s row: counts[0 .. row_len). */
static void row(cp_block *b, int64_t rank, const int64_t *counts)
{
    b->rows = realloc(b->rows, (b->nrows + 1) * sizeof *b->rows);
    if (!b->rows)
        die("out of memory");
    cp_row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    if (cp_ranges_push(&r->ranks, rank))
        die("out of memory");
    r->len = b->row_len;
    r->counts = xcalloc(b->row_len, sizeof *r->counts);
    memcpy(r->counts, counts, b->row_len * sizeof *counts);
}

static int ring(cp_counts_file *f)
{
    const int n = 16;
    cp_block *b = block(f, n, "Alltoallv", -1, 4, 10, n);
    int64_t pos[16];
    for (int k = 0; k < n; k++)
        pos[(5 * k) % n] = k; /* rank 5k mod 16 is the k-th of the ring */
    for (int r = 0; r < n; r++) {
        int64_t c[16] = {0};
        c[(5 * ((pos[r] + 1) % n)) % n] = 1000;
        c[(5 * ((pos[r] + n - 1) % n)) % n] = 1000;
        row(b, r, c);
    }
    return n;
}

static int stencil(cp_counts_file *f)
{
    const int n = 64;
    cp_block *b = block(f, n, "Alltoallv", -1, 8, 5, n);
    for (int r = 0; r < n; r++) {
        int64_t c[64] = {0};
        int i = r / 8, j = r % 8;
        if (i > 0)
            c[r - 8] = 100;
        if (i < 7)
            c[r + 8] = 100;
        if (j > 0)
            c[r - 1] = 100;
        if (j < 7)
            c[r + 1] = 100;
        row(b, r, c);
    }
    return n;
}

static int alltoall(cp_counts_file *f)
{
    const int n = 8;
    cp_block *b = block(f, n, "Alltoall", -1, 4, 3, 1);
    for (int r = 0; r < n; r++)
        row(b, r, (const int64_t[]){10});
    return n;
}

static int mixed(cp_counts_file *f)
{
    const int n = 6;
    cp_block *b = block(f, n, "Alltoallv", -1, 8, 4, n);
    for (int r = 0; r < n; r++) {
        int64_t c[6] = {0};
        c[(r + 3) % n] = 50 * (r + 1); /* ranks r and r + 3 pair up */
        c[(r + 1) % n] = 1;
        row(b, r, c);
    }
    b = block(f, n, "Gatherv", 2, 4, 2, 1);
    for (int r = 0; r < n; r++)
        row(b, r, (const int64_t[]){100 + r});
    b = block(f, n, "Bcast", 4, 1, 3, 1);
    row(b, 4, (const int64_t[]){4096});
    b = block(f, n, "Allgather", -1, 4, 1, 1);
    for (int r = 0; r < n; r++)
        row(b, r, (const int64_t[]){7});
    b = block(f, n, "Allreduce", -1, 8, 9, 1);
    for (int r = 0; r < n; r++)
        row(b, r, (const int64_t[]){16});
    return n;
}

/* timings.cpt holding each rank's host (no timed series). */
static void write_hosts(const char *dir, int n, const char *hostfile)
{
    FILE *in = fopen(hostfile, "r");
    if (!in)
        die("cannot open the hostfile");
    cp_cpt_file f;
    memset(&f, 0, sizeof f);
    f.version[0] = CP_CPT_VERSION_MAJOR;
    snprintf(f.mode, sizeof f.mode, "test");
    f.flags = CP_CPT_TIMING | CP_CPT_LOCATION;
    f.world_size = (uint64_t)n;
    f.chunks = xcalloc((size_t)n, sizeof *f.chunks);
    char names[256][256];
    uint32_t nnames = 0;
    for (int r = 0; r < n; r++) {
        char line[256];
        if (!fgets(line, sizeof line, in))
            die("the hostfile has fewer lines than ranks");
        line[strcspn(line, "\n")] = '\0';
        uint32_t k = 0;
        while (k < nnames && strcmp(names[k], line))
            k++;
        if (k == nnames)
            snprintf(names[nnames++], sizeof names[0], "%s", line);
        cp_cpt_chunk *c = &f.chunks[r];
        c->rank = (uint64_t)r;
        snprintf(c->hostname, sizeof c->hostname, "%s", line);
        c->node = k;
        c->pid = 1000 + r;
        c->core = r;
    }
    fclose(in);
    char path[4096];
    snprintf(path, sizeof path, "%s/timings.cpt", dir);
    cp_error err = {{0}};
    if (cp_cpt_write(path, &f, &err))
        die(err.msg);
    cp_cpt_file_free(&f);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: make_graph_profile DIR ring|stencil|alltoall|mixed [HOSTFILE]");
    const char *dir = argv[1], *what = argv[2];
    mkdir(dir, 0777);
    cp_counts_file f = {0};
    int n = !strcmp(what, "ring")       ? ring(&f)
            : !strcmp(what, "stencil")  ? stencil(&f)
            : !strcmp(what, "alltoall") ? alltoall(&f)
            : !strcmp(what, "mixed")    ? mixed(&f)
                                        : 0;
    if (!n)
        die("unknown case");
    char path[4096];
    cp_error err = {{0}};
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt", dir);
    f.version = CP_COUNTS_FORMAT_VERSION;
    f.direction = CP_SEND;
    if (cp_compact_write_file(path, false, &f, &err))
        die(err.msg);
    cp_counts_file_free(&f);

    cp_manifest m = {0};
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    m.world_size = n;
    snprintf(m.job, sizeof m.job, "placement-%s", what);
    m.comms = xcalloc(1, sizeof *m.comms);
    m.ncomms = 1;
    m.comms[0] = (cp_comm_info){.id = 0, .size = n, .lead = 0};
    if (cp_ranges_add_range(&m.comms[0].members, 0, n - 1))
        die("out of memory");
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (cp_manifest_write_file(path, false, &m, &err))
        die(err.msg);
    cp_manifest_free(&m);
    if (argc > 3)
        write_hosts(dir, n, argv[3]);
    return 0;
}
