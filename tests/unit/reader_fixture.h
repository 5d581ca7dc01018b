/*
 * Small output directories for the reader tests (unit and CLI), written with
 * the real writers.  See reader_fixture.c for their exact content.
 */
#ifndef COLLPROF_READER_FIXTURE_H
#define COLLPROF_READER_FIXTURE_H

#include <stdbool.h>

#include "collprof/profile.h"

enum fx_variant {
    FX_GOOD,              /* consistent: `collprof check` finds nothing */
    FX_GZIP,              /* the same, count files gzip-compressed */
    FX_RECV_ALTERED,      /* communicator 0, Alltoallv, call 1: one receive count changed */
    FX_OVERLAP,           /* communicator 0, Alltoallv: call 1 in two send blocks */
    FX_MANIFEST_MISMATCH, /* manifest: communicator 1 members 0,2 (files say 2,0); a missing file */
    FX_SYNTAX_ERROR,      /* send-counters.rank0.txt line 5: "Number of ranks: three" */
};

/* Block builder: appends a block to f.  members: ordered world ranks
 * ("2,0"), NULL for none; comm < 0 for other tools' dialect. */
cp_block *fx_block(cp_counts_file *f, int64_t comm, int64_t comm_size, const char *members,
                   const char *collective, int64_t root, int64_t nranks, int64_t dtsize,
                   const char *all_calls, const char *calls, size_t row_len);
/* Appends a row: ranks "1-2", row_len counts. */
void fx_row(cp_block *b, const char *ranks, const int64_t *counts);
/* Writes f as dir/name (gzip when gz) and frees its blocks. */
int fx_write_counts(const char *dir, const char *name, cp_counts_file *f, bool gz, cp_error *err);

/* Writes the fixture directory of this variant into dir (which exists). */
int fx_write(const char *dir, enum fx_variant v, cp_error *err);

#endif
