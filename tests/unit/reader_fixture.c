/*
 * Fixture directories for the reader tests.
 *
 * World of 3 ranks.  Communicator 0 = world ranks 0-2 (lead 0), communicator
 * 1 = world ranks 2,0 (lead 2).
 *
 *   comm 0, Alltoallv (datatype size 8), calls 0-2:
 *     send calls 0-1:  rank 0: 1 2 0   ranks 1-2: 0 0 3
 *     send call 2:     rank 0: 0 1 1   rank 1: 1 0 1   rank 2: 1 1 0
 *     receive = transpose: calls 0-1: 0: 1 0 0  1: 2 0 0  2: 0 3 3;  call 2: as sent
 *   comm 0, Gatherv root 0 (datatype size 4), call 0:
 *     send: ranks 0, 1, 2 send 1, 2, 3;  receive: rank 0: 1 2 3, no other row
 *   comm 1, Alltoall (datatype size 4), calls 0-3: every rank 4 (send and receive)
 */
#include "reader_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "manifest.h"
#include "ranges.h"

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        abort();
    return p;
}

static void set(cp_ranges *r, const char *text, bool ordered)
{
    const char *why;
    int rc = ordered ? cp_ranges_parse_ordered(text, strlen(text), r, &why)
                     : cp_ranges_parse(text, strlen(text), r, &why);
    if (rc != 0) {
        fprintf(stderr, "fixture: bad range list '%s': %s\n", text, why);
        abort();
    }
}

cp_block *fx_block(cp_counts_file *f, int64_t comm, int64_t comm_size, const char *members,
                   const char *collective, int64_t root, int64_t nranks, int64_t dtsize,
                   const char *all_calls, const char *calls, size_t row_len)
{
    f->blocks = xrealloc(f->blocks, (f->nblocks + 1) * sizeof *f->blocks);
    cp_block *b = &f->blocks[f->nblocks++];
    memset(b, 0, sizeof *b);
    b->comm_id = comm;
    b->comm_size = comm_size;
    if (members)
        set(&b->comm_world_ranks, members, true);
    snprintf(b->collective, sizeof b->collective, "%s", collective);
    b->root = root;
    b->nranks = nranks;
    b->dtsize = dtsize;
    set(&b->all_calls, all_calls, false);
    set(&b->calls, calls, false);
    b->row_len = row_len;
    return b;
}

void fx_row(cp_block *b, const char *ranks, const int64_t *counts)
{
    b->rows = xrealloc(b->rows, (b->nrows + 1) * sizeof *b->rows);
    cp_row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    set(&r->ranks, ranks, false);
    r->counts = xrealloc(NULL, (b->row_len ? b->row_len : 1) * sizeof *r->counts);
    r->len = b->row_len;
    if (b->row_len)
        memcpy(r->counts, counts, b->row_len * sizeof *counts);
}

int fx_write_counts(const char *dir, const char *name, cp_counts_file *f, bool gz, cp_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, gz ? ".gz" : "");
    f->version = CP_COUNTS_FORMAT_VERSION;
    int rc = cp_compact_write_file(path, gz, f, err);
    cp_counts_file_free(f);
    return rc;
}

#define ROW(...) ((const int64_t[]){__VA_ARGS__})

static int write_lead0(const char *dir, enum fx_variant v, bool gz, cp_error *err)
{
    cp_counts_file s = {0}, r = {0};
    cp_block *b;
    /* send */
    b = fx_block(&s, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", "0-1", 3);
    fx_row(b, "0", ROW(1, 2, 0));
    fx_row(b, "1-2", ROW(0, 0, 3));
    b = fx_block(&s, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", v == FX_OVERLAP ? "1-2" : "2", 3);
    fx_row(b, "0", ROW(0, 1, 1));
    fx_row(b, "1", ROW(1, 0, 1));
    fx_row(b, "2", ROW(1, 1, 0));
    b = fx_block(&s, 0, 3, "0-2", "Gatherv", 0, 3, 4, "0", "0", 1);
    fx_row(b, "0", ROW(1));
    fx_row(b, "1", ROW(2));
    fx_row(b, "2", ROW(3));
    /* receive */
    if (v == FX_RECV_ALTERED) {
        b = fx_block(&r, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", "0", 3);
        fx_row(b, "0", ROW(1, 0, 0));
        fx_row(b, "1", ROW(2, 0, 0));
        fx_row(b, "2", ROW(0, 3, 3));
        b = fx_block(&r, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", "1", 3);
        fx_row(b, "0", ROW(1, 0, 0));
        fx_row(b, "1", ROW(2, 0, 0));
        fx_row(b, "2", ROW(0, 3, 2));
    } else {
        b = fx_block(&r, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", "0-1", 3);
        fx_row(b, "0", ROW(1, 0, 0));
        fx_row(b, "1", ROW(2, 0, 0));
        fx_row(b, "2", ROW(0, 3, 3));
    }
    b = fx_block(&r, 0, 3, "0-2", "Alltoallv", -1, 3, 8, "0-2", "2", 3);
    fx_row(b, "0", ROW(0, 1, 1));
    fx_row(b, "1", ROW(1, 0, 1));
    fx_row(b, "2", ROW(1, 1, 0));
    b = fx_block(&r, 0, 3, "0-2", "Gatherv", 0, 3, 4, "0", "0", 3);
    fx_row(b, "0", ROW(1, 2, 3));
    if (fx_write_counts(dir, "send-counters.rank0.txt", &s, gz, err) != 0) {
        cp_counts_file_free(&r);
        return -1;
    }
    return fx_write_counts(dir, "recv-counters.rank0.txt", &r, gz, err);
}

static int write_lead2(const char *dir, bool gz, cp_error *err)
{
    for (int d = 0; d < 2; d++) {
        cp_counts_file f = {0};
        cp_block *b = fx_block(&f, 1, 2, "2,0", "Alltoall", -1, 2, 4, "0-3", "0-3", 1);
        fx_row(b, "0-1", ROW(4));
        if (fx_write_counts(dir, d ? "recv-counters.rank2.txt" : "send-counters.rank2.txt", &f, gz,
                            err) != 0)
            return -1;
    }
    return 0;
}

static void add_comm(cp_manifest *m, int64_t id, const char *members)
{
    m->comms = xrealloc(m->comms, (m->ncomms + 1) * sizeof *m->comms);
    cp_comm_info *c = &m->comms[m->ncomms++];
    memset(c, 0, sizeof *c);
    c->id = id;
    set(&c->members, members, true);
    c->size = cp_ranges_count(&c->members);
    c->lead = cp_ranges_nth(&c->members, 0);
}

static void add_file(cp_manifest *m, const char *name, bool gz)
{
    m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof *m->files);
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s", name, gz ? ".gz" : "");
    m->files[m->nfiles++] = strdup(buf);
}

static int write_manifest(const char *dir, enum fx_variant v, bool gz, cp_error *err)
{
    cp_manifest m;
    memset(&m, 0, sizeof m);
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = CP_COUNTS_FORMAT_VERSION;
    strcpy(m.collprof_version, "0.1.0");
    strcpy(m.mpi_version, "MPICH Version: 4.0.2\nMPICH Release date: Thu Mar 10 11:07:37 CST 2022");
    strcpy(m.job, "test");
    strcpy(m.start_time, "2026-11-22T04:13:35");
    m.world_size = 3;
    m.config = xrealloc(NULL, sizeof *m.config);
    m.config[0].key = strdup("COLLPROF_COMPRESS");
    m.config[0].value = strdup(gz ? "gzip" : "none");
    m.nconfig = 1;
    add_comm(&m, 0, "0-2");
    add_comm(&m, 1, v == FX_MANIFEST_MISMATCH ? "0,2" : "2,0");
    add_file(&m, "manifest.json", false);
    add_file(&m, "send-counters.rank0.txt", gz);
    add_file(&m, "recv-counters.rank0.txt", gz);
    add_file(&m, "send-counters.rank2.txt", gz);
    add_file(&m, "recv-counters.rank2.txt", gz);
    if (v == FX_MANIFEST_MISMATCH)
        add_file(&m, "timings.cpt", false);
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    int rc = cp_manifest_write_file(path, false, &m, err);
    cp_manifest_free(&m);
    return rc;
}

/* Replace the first "Number of ranks: 3" of dir/name by "... three". */
static int break_file(const char *dir, const char *name, cp_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cp_error_set(err, "%s: cannot open", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    char *at = strstr(text, "Number of ranks: 3\n");
    if (!at)
        return cp_error_set(err, "%s: no 'Number of ranks: 3'", path);
    fp = fopen(path, "wb");
    if (!fp)
        return cp_error_set(err, "%s: cannot write", path);
    fwrite(text, 1, (size_t)(at - text), fp);
    fputs("Number of ranks: three\n", fp);
    fputs(at + strlen("Number of ranks: 3\n"), fp);
    fclose(fp);
    return 0;
}

int fx_write(const char *dir, enum fx_variant v, cp_error *err)
{
    bool gz = v == FX_GZIP;
    if (write_manifest(dir, v, gz, err) != 0 || write_lead0(dir, v, gz, err) != 0 ||
        write_lead2(dir, gz, err) != 0)
        return -1;
    if (v == FX_SYNTAX_ERROR)
        return break_file(dir, "send-counters.rank0.txt", err);
    return 0;
}
