/*
 * profile.cubex's rows, gathered at rank 0 a batch at a time: every rank
 * holds its column (raw[cell], cell = metric * ncnodes + cnode, 8 bytes a
 * value, writers/cubex_build.h fills it), rank 0 the batch's rows of every
 * rank, and the writer takes them in its order through cp_cube_rows_next.
 * No MPI, no format: the gatherer is the carrier (finalize's over MPI,
 * lib/finalize/finalize_profile.c; the scale simulator's, bench/scale_cube.c).
 */
#ifndef COLLPROF_CUBE_ROWS_H
#define COLLPROF_CUBE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The rows every rank walks in the file's order (metric by metric, cnode
 * ids ascending, the rows some rank has a non-zero value in: nz), a batch
 * at a time: each rank gives its values of the batch's rows and rank 0
 * receives every rank's through gather(ctx, cells, mine, n, all): all[r *
 * n + i] is rank r's value of the batch's row i (cells[i] = m * ncnodes +
 * cnode); all is NULL except at rank 0.  Returns 0, or -1 (the rows are
 * lost). */
/* The most of a batch rank 0 holds: 16 MiB, 20 rows at 100,000 ranks.
 * Beside it rank 0 holds the metadata and the writer's anchor.xml (the P
 * locations' XML, ~290 bytes a rank), so its peak stays under 64 MiB at
 * 100,000 ranks however many rows the profile has; a gather per batch. */
#define CP_CUBE_BATCH_BYTES ((uint64_t)16 << 20)

typedef int (*cp_cube_gather_fn)(void *ctx, const size_t *cells, const uint64_t *mine, size_t n,
                                 uint64_t *all);

typedef struct cp_cube_rows {
    const uint64_t *raw;     /* this rank's column: raw[m * ncnodes + cnode] */
    size_t ncells, ncnodes;
    const uint8_t *nz;       /* [m * ncnodes + cnode] */
    int64_t nranks;
    size_t rows, per_batch;  /* rows in all, rows per batch */
    size_t done;             /* rows gathered so far (every rank) */
    size_t cur;              /* the cursor: next (m * ncnodes + cnode) to look at */
    size_t start, n;         /* rank 0: the batch held, rows [start, start + n) */
    size_t next;             /* rank 0: the next row the writer takes */
    uint64_t *mine, *all;    /* this rank's values of the batch; rank 0: every rank's */
    size_t *cell;            /* the batch's rows */
    bool failed;             /* a gather failed: the rows are not there */
    cp_cube_gather_fn gather;
    void *ctx;
} cp_cube_rows;

/* Ready x for the rows of the column raw (nmetrics x ncnodes values; room
 * for a batch: at most max_bytes held at rank 0, which `root` says this
 * rank is), whose non-zero cells nz will say.  Returns 0, or -1 when out of
 * memory. */
int cp_cube_rows_start(cp_cube_rows *x, const uint64_t *raw, size_t nmetrics, size_t ncnodes,
                       const uint8_t *nz, int64_t nranks, uint64_t max_bytes, bool root,
                       cp_cube_gather_fn gather, void *ctx);
/* Once nz holds the rows some rank has a value in (the same on every
 * rank): count them. */
void cp_cube_rows_count(cp_cube_rows *x);
/* The next batch (every rank; rank 0 through cp_cube_rows_next). */
void cp_cube_rows_batch(cp_cube_rows *x);
/* The writer's row function (cp_cubex_row_fn) at rank 0: the writer asks
 * for the rows in the order the batches hold them. */
int cp_cube_rows_next(void *ctx, size_t m, size_t cnode, uint64_t *raw);
void cp_cube_rows_free(cp_cube_rows *x);

#endif
