/*
 * Finalize's Cube stage without MPI (profile.cubex): rank 0 builds the
 * metadata from what it learnt of the job (its distinct sites, call paths
 * and every rank's location); every rank fills its own column from its
 * sites; the rows go to rank 0 a batch at a time through a gatherer, and
 * the writer (writers/cubex.h, cp_cubex_write_rows) takes them as they
 * come.  Finalize runs it over MPI (lib/finalize/finalize_profile.c), the
 * scale simulator for its virtual ranks (bench/scale_cube.c).
 *
 * The call tree: root (the program) -> one node per function on the job's
 * call paths (a prefix tree: a function calling MPI from several lines is
 * one node) -> below it one node per call site and MPI function
 * (collective and form) called there; calls without a path hang from the
 * root.  The metric tree, as in Scalasca's reports (docs/formats.md):
 * Time > MPI > collective communication and synchronization > the wait
 * states in them (in barrier mode the waiting before a call sits under
 * late arrival); visits and bytes are roots of their own.
 */
#ifndef COLLPROF_CUBE_STAGE_H
#define COLLPROF_CUBE_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "cubex.h"
#include "location.h"
#include "sites.h"
#include "wait_states.h"

/* The metrics' slots (metric[] maps them to metric ids, -1: not in this
 * profile). */
enum { CP_CM_VISITS, CP_CM_TIME, CP_CM_MPI, CP_CM_COLL, CP_CM_SYNC, CP_CM_LATE, CP_CM_SENT,
       CP_CM_RECV, CP_CM_WAIT0, CP_CM_SLOTS = CP_CM_WAIT0 + CP_NWAIT_PATTERNS };

/* What rank 0 knows of the job when it builds the metadata. */
typedef struct cp_cube_job {
    const int64_t *keys;                /* the job's distinct sites (cp_site_key), ascending */
    size_t nkeys;
    const cp_callsite_node *call_tree;  /* the job's call-path nodes (the manifest's) */
    size_t ncall_tree;
    const cp_job_hosts *hosts;          /* where every rank ran */
    bool timing, barrier;               /* which metrics there are */
    const char *program;                /* the root's region */
    const char *persistent_prefix;      /* the persistent forms' prefix where it is not MPI_
                                         * (MPIX_ before MPI 4.0), else NULL: Cube names
                                         * their regions as the application called them */
    const char *machine;
    const char *const (*attrs)[2];      /* (name, value) pairs of the file */
    size_t nattrs;
} cp_cube_job;

/* The cnode of each site, found by key. */
typedef struct cp_cube_sites {
    int64_t *key;   /* ascending */
    int64_t *cnode;
    size_t n;
} cp_cube_sites;

int64_t cp_cube_sites_cnode(const cp_cube_sites *sc, int64_t key);
void cp_cube_sites_free(cp_cube_sites *sc);

/* The metrics, the same on every rank (they depend on the configuration
 * alone).  Returns 0, or -1 when out of memory. */
int cp_cube_stage_metrics(cp_cube *c, bool timing, bool barrier, int64_t metric[CP_CM_SLOTS]);

/* Rank 0: everything of profile.cubex but its values (c: its locations,
 * hosts, attributes, metrics, regions, call tree); sc: the sites' cnodes,
 * *root: the root's.  Returns 0, or -1 when out of memory. */
int cp_cube_stage_meta(const cp_cube_job *j, cp_cube *c, int64_t metric[CP_CM_SLOTS],
                       cp_cube_sites *sc, int64_t *root);

/* One rank's values: raw[m * ncnodes + cnode], 8 bytes as metric m's
 * dtype (a double's bits); the rank's column of every row. */
typedef struct cp_cube_column {
    uint64_t *raw;
    size_t nmetrics, ncnodes;
    const cp_cube_metric *metrics;
} cp_cube_column;

/* Every rank: its column from its own sites (the root holds its time
 * outside the timed collectives, `wall` less theirs, and one visit). */
void cp_cube_stage_column(cp_cube_column *k, const int64_t metric[CP_CM_SLOTS],
                          const cp_cube_sites *sc, int64_t root, const cp_site *mine,
                          size_t nmine, double wall);

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
    const cp_cube_column *k;
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

/* Ready x for the rows of k (room for a batch: at most max_bytes held at
 * rank 0, which `root` says this rank is), whose non-zero cells nz will
 * say.  Returns 0, or -1 when out of memory. */
int cp_cube_rows_start(cp_cube_rows *x, const cp_cube_column *k, const uint8_t *nz,
                       int64_t nranks, uint64_t max_bytes, bool root, cp_cube_gather_fn gather,
                       void *ctx);
/* Once nz holds the rows some rank has a value in (the same on every
 * rank): count them. */
void cp_cube_rows_count(cp_cube_rows *x);
/* The next batch (every rank; rank 0 through cp_cube_rows_next). */
void cp_cube_rows_batch(cp_cube_rows *x);
/* cp_cubex_row_fn at rank 0: the writer asks for the rows in the order the
 * batches hold them. */
int cp_cube_rows_next(void *ctx, size_t m, size_t cnode, uint64_t *raw);
void cp_cube_rows_free(cp_cube_rows *x);

#endif
