/*
 * profile.cubex's trees and values, built from the model: rank 0 builds the
 * metadata from what it learnt of the job (its distinct sites, call paths
 * and every rank's location); every rank fills its own column from its
 * sites.  The rows then go to rank 0 a batch at a time (merge/cube_rows.h)
 * and the writer (cubex.h, cp_cubex_write_rows) takes them as they come.
 * Finalize runs it over MPI (lib/finalize/finalize_profile.c), the scale
 * simulator for its virtual ranks (bench/scale_cube.c).
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
#ifndef COLLPROF_CUBEX_BUILD_H
#define COLLPROF_CUBEX_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "cubex.h"
#include "job_hosts.h"
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
    bool no_waits;                      /* without the wait states (one rank's own
                                         * partial profile: they need its peers) */
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
 * alone); waits: with the wait-state metrics.  Returns 0, or -1 when out
 * of memory. */
int cp_cube_build_metrics(cp_cube *c, bool timing, bool barrier, bool waits,
                          int64_t metric[CP_CM_SLOTS]);

/* Rank 0: everything of profile.cubex but its values (c: its locations,
 * hosts, attributes, metrics, regions, call tree); sc: the sites' cnodes,
 * *root: the root's.  Returns 0, or -1 when out of memory. */
int cp_cube_build_meta(const cp_cube_job *j, cp_cube *c, int64_t metric[CP_CM_SLOTS],
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
void cp_cube_build_column(cp_cube_column *k, const int64_t metric[CP_CM_SLOTS],
                          const cp_cube_sites *sc, int64_t root, const cp_site *mine,
                          size_t nmine, double wall);

#endif
