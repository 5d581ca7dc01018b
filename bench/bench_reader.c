/*
 * bench_reader: how fast does the reader parse a large compact counts file,
 * and expand the matrix of every call?
 *
 * For each configuration, writes one counts file of at least MB megabytes
 * with the real writer (cp_compact_write_file) into a temporary directory:
 * one communicator of N ranks, dense matrices (every rank has its own row,
 * counts 0-999 drawn at random), each the matrix of 2 calls, as many as it
 * takes to reach the size.  Then, RUNS times each (the first run is not
 * timed: it warms the page cache and the allocator):
 *   - parse:  cp_compact_parse_file, the whole file into the profile model;
 *   - expand: for every call, cp_profile_find then the full N x N matrix
 *             (what `collprof matrix` builds), into one reused buffer.
 * The file is read from the page cache: this measures the parser, not the
 * disk.  Prints a Markdown table of medians (MB = 10^6 bytes of the file).
 *
 * usage: bench_reader [RUNS=5] [MB=100] [RANKS...=4096 1024]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/reader.h"
#include "compact.h"

#include "bench_clock.h"

static void die(const char *what, const cp_error *err)
{
    fprintf(stderr, "bench_reader: %s: %s\n", what, err ? err->msg : "out of memory");
    exit(1);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The file: nblocks dense matrices of n ranks.  Rows point into one pool of
 * random counts (row r of block k starts at pool + k * n + r), so every row
 * and every matrix differs while the model costs O(n) memory to write. */
static void write_counts(const char *path, int64_t n, size_t nblocks)
{
    size_t pool_len = (size_t)n * (nblocks + 2);
    int64_t *pool = malloc(pool_len * sizeof *pool);
    cp_counts_file f = {0};
    f.version = CP_COUNTS_FORMAT_VERSION;
    f.blocks = calloc(nblocks, sizeof *f.blocks);
    if (!pool || !f.blocks)
        die("write", NULL);
    for (size_t i = 0; i < pool_len; i++)
        pool[i] = (int64_t)(next_random() % 1000);
    f.nblocks = nblocks;
    for (size_t k = 0; k < nblocks; k++) {
        cp_block *b = &f.blocks[k];
        cp_block_init(b);
        b->comm_id = 0;
        b->comm_size = n;
        snprintf(b->collective, sizeof b->collective, "Alltoallv");
        b->nranks = n;
        b->dtsize = 4;
        b->row_len = (size_t)n;
        b->rows = calloc((size_t)n, sizeof *b->rows);
        if (!b->rows || cp_ranges_add_range(&b->comm_world_ranks, 0, n - 1) < 0 ||
            cp_ranges_add_range(&b->all_calls, 0, 2 * (int64_t)nblocks - 1) < 0 ||
            cp_ranges_add_range(&b->calls, 2 * (int64_t)k, 2 * (int64_t)k + 1) < 0)
            die("write", NULL);
        b->nrows = (size_t)n;
        for (int64_t r = 0; r < n; r++) {
            if (cp_ranges_add(&b->rows[r].ranks, r) < 0)
                die("write", NULL);
            b->rows[r].counts = pool + k * (size_t)n + (size_t)r;
            b->rows[r].len = (size_t)n;
        }
    }
    cp_error err = {{0}};
    if (cp_compact_write_file(path, false, &f, &err) != 0)
        die("write", &err);
    for (size_t k = 0; k < nblocks; k++) {
        for (int64_t r = 0; r < n; r++) {
            f.blocks[k].rows[r].counts = NULL; /* the pool's, freed below */
            f.blocks[k].rows[r].len = 0;
        }
        cp_block_free(&f.blocks[k]);
    }
    free(f.blocks);
    free(pool);
}

/* Every call's full matrix, as `collprof matrix` builds it (-1: no row). */
static int64_t expand_all(const cp_profile *p, int64_t *m, size_t ncalls, int64_t *checksum)
{
    int64_t matrices = 0;
    for (size_t call = 0; call < ncalls; call++) {
        const cp_block *b = cp_profile_find(p, 0, "alltoallv", CP_SEND, (int64_t)call);
        if (!b)
            die("expand: a call without a block", NULL);
        size_t n = (size_t)b->nranks, w = b->row_len;
        for (size_t i = 0; i < n * w; i++)
            m[i] = -1;
        for (size_t r = 0; r < b->nrows; r++) {
            const cp_row *row = &b->rows[r];
            for (size_t k = 0; k < row->ranks.n; k++)
                for (int64_t rank = row->ranks.v[k].lo; rank <= row->ranks.v[k].hi; rank++)
                    memcpy(m + (size_t)rank * w, row->counts, row->len * sizeof *m);
        }
        *checksum += m[(call * 7919) % (n * w)]; /* keep the work observable */
        matrices++;
    }
    return matrices;
}

static void bench(const char *dir, int64_t n, double min_mb, int runs)
{
    /* 3.89 bytes per count on average (0-999 and a space) */
    double block_mb = (double)n * (double)n * 3.89 / 1e6;
    size_t nblocks = (size_t)(min_mb / block_mb) + 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/send-counters.rank0.txt", dir);
    write_counts(path, n, nblocks);
    struct stat st;
    if (stat(path, &st) != 0)
        die("stat", NULL);
    double mb = (double)st.st_size / 1e6;

    int64_t *m = malloc((size_t)n * (size_t)n * sizeof *m);
    double *tp = malloc((size_t)runs * sizeof *tp), *te = malloc((size_t)runs * sizeof *te);
    if (!m || !tp || !te)
        die("expand", NULL);
    int64_t checksum = 0, matrices = 0;
    for (int run = -1; run < runs; run++) {
        cp_counts_file f = {0};
        f.direction = CP_SEND;
        cp_error err = {{0}};
        double t0 = bu_now();
        if (cp_compact_parse_file(path, &f, &err) != 0)
            die("parse", &err);
        double t1 = bu_now();
        cp_profile p = {.files = &f, .nfiles = 1};
        matrices = expand_all(&p, m, 2 * nblocks, &checksum);
        double t2 = bu_now();
        if (run >= 0) {
            tp[run] = t1 - t0;
            te[run] = t2 - t1;
        }
        cp_counts_file_free(&f);
    }
    double parse = bu_median(tp, (size_t)runs), expand = bu_median(te, (size_t)runs);
    printf("| %" PRId64 " | %zu | %.1f | parse | %.3f | %.0f |\n", n, nblocks, mb, parse,
           mb / parse);
    printf("| %" PRId64 " | %zu | %.1f | expand %" PRId64 " matrices | %.3f | %.0f |\n", n,
           nblocks, mb, matrices, expand, mb / expand);
    printf("| %" PRId64 " | %zu | %.1f | parse + expand | %.3f | %.0f |\n", n, nblocks, mb,
           parse + expand, mb / (parse + expand));
    fflush(stdout);
    if (checksum == INT64_MIN)
        printf("(checksum %" PRId64 ")\n", checksum);
    unlink(path);
    free(m);
    free(tp);
    free(te);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    double min_mb = argc > 2 ? atof(argv[2]) : 100;
    if (runs < 1 || min_mb <= 0) {
        fprintf(stderr, "usage: bench_reader [RUNS=5] [MB=100] [RANKS...=4096 1024]\n");
        return 2;
    }
    const char *t = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cp-bench-reader-XXXXXX", t && t[0] ? t : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench_reader: mkdtemp");
        return 1;
    }
    printf("Reader: compact counts file written by the writer, read from the page cache; "
           "medians of %d runs.\n\n", runs);
    printf("| ranks | matrices | file MB | step | median s | MB/s |\n");
    printf("|---:|---:|---:|---|---:|---:|\n");
    if (argc > 3)
        for (int i = 3; i < argc; i++)
            bench(dir, atoll(argv[i]), min_mb, runs);
    else {
        bench(dir, 4096, min_mb, runs);
        bench(dir, 1024, min_mb, runs);
    }
    rmdir(dir);
    return 0;
}
