/* profile.cubex's rows, a batch at a time (cube_rows.h). */
#include "cube_rows.h"

#include <stdlib.h>

int cp_cube_rows_start(cp_cube_rows *x, const uint64_t *raw, size_t nmetrics, size_t ncnodes,
                       const uint8_t *nz, int64_t nranks, uint64_t max_bytes, bool root,
                       cp_cube_gather_fn gather, void *ctx)
{
    size_t ncells = nmetrics * ncnodes;
    *x = (cp_cube_rows){.raw = raw, .ncells = ncells, .ncnodes = ncnodes, .nz = nz,
                        .nranks = nranks, .gather = gather, .ctx = ctx};
    /* A batch: at most max_bytes at rank 0, one row at least, no more
     * rows than cells. */
    uint64_t cap = max_bytes / (8 * (uint64_t)(nranks > 0 ? nranks : 1));
    size_t cap_rows = cap < 1 ? 1 : cap < ncells ? (size_t)cap : (ncells ? ncells : 1);
    if (cap_rows > INT32_MAX) /* MPI counts are int */
        cap_rows = INT32_MAX;
    x->per_batch = cap_rows;
    x->mine = malloc(cap_rows * sizeof *x->mine);
    x->cell = malloc(cap_rows * sizeof *x->cell);
    x->all = root ? malloc((size_t)nranks * cap_rows * sizeof *x->all) : NULL;
    return x->mine && x->cell && (!root || x->all) ? 0 : -1;
}

void cp_cube_rows_count(cp_cube_rows *x)
{
    x->rows = 0;
    for (size_t i = 0; i < x->ncells; i++)
        x->rows += x->nz[i] != 0;
    if (x->rows && x->rows < x->per_batch)
        x->per_batch = x->rows;
}

void cp_cube_rows_batch(cp_cube_rows *x)
{
    size_t n = x->rows - x->done < x->per_batch ? x->rows - x->done : x->per_batch;
    for (size_t i = 0; i < n; i++) {
        while (x->cur < x->ncells && !x->nz[x->cur])
            x->cur++;
        x->mine[i] = x->cur < x->ncells ? x->raw[x->cur] : 0;
        x->cell[i] = x->cur++;
    }
    if (x->gather(x->ctx, x->cell, x->mine, n, x->all))
        x->failed = true;
    x->start = x->done;
    x->n = n;
    x->done += n;
}

int cp_cube_rows_next(void *ctx, size_t m, size_t cnode, uint64_t *raw)
{
    cp_cube_rows *x = ctx;
    if (x->next == x->start + x->n) {
        if (x->done == x->rows)
            return -1; /* the writer wants more rows than there are: a bug */
        cp_cube_rows_batch(x);
    }
    size_t i = x->next++ - x->start;
    if (x->failed || x->cell[i] != m * x->ncnodes + cnode)
        return -1; /* not the row the batches hold: a bug, said as a failed write */
    for (int64_t l = 0; l < x->nranks; l++)
        raw[l] = x->all[(size_t)l * x->n + i];
    return 0;
}

void cp_cube_rows_free(cp_cube_rows *x)
{
    free(x->mine);
    free(x->cell);
    free(x->all);
    x->mine = x->all = NULL;
    x->cell = NULL;
}
