/*
 * Output directories for the `collprof report` tests, written with the real
 * writers (tests/unit/reader_fixture.h builds the blocks).  The tests
 * recompute every expected cell from the same formulas.
 */
#ifndef COLLPROF_REPORT_FIXTURE_H
#define COLLPROF_REPORT_FIXTURE_H

#include <stdint.h>

#include "collprof/profile.h"

/* "mixed": world of 8 ranks, manifest with job name RFX_JOB.
 *   comm 0 (world 0-7): Alltoallv calls 0-1, dtsize 8, count rfx_mixed_count(i, j)
 *                       (receive = transpose); Barrier calls 0-4; Bcast root 2,
 *                       dtsize 4, count 10; Allreduce calls 0-2, count 5;
 *                       Scan calls 0-1, count 3; Exscan call 0, count 2.
 *   comm 1 (world 0-3, topology in the manifest): Neighbor_alltoallv call 0,
 *                       dtsize 4, rank i's k-th count (i + 1) * 10 + k to its
 *                       k-th destination of rfx_dest (rows of lengths 2, 1, 3, 1).
 *   comm 2 (world 4-7, no neighbour lists): Neighbor_alltoallv call 0, rows
 *                       0: 1 2, 1: 3, 2: 4 5 6, 3: (empty): drawn as given.
 *   comm 3 (world 0-1, remote group 2-3): Gather root 0, receive row of the
 *                       root [6] (dtsize 4); comm 4 (world 2-3, remote 0-1):
 *                       Gather root 0, send rows [6]. */
#define RFX_JOB "<b>\"Tom & Jerry's\"</b>"
int64_t rfx_mixed_count(int64_t i, int64_t j);
/* destinations of rank i in comm 1 (-1 ends the list) */
extern const int64_t rfx_dest[4][4];

/* "large": one communicator of n ranks (world 0..n-1), dtsize 8:
 *   Alltoallv calls 0-2: rfx_large_count(i, j, 0); call 3: rfx_large_count(i, j, 1)
 *   (receive = transpose for both); Alltoall calls 0-9: every rank 64;
 *   Gatherv root 0 call 0: rank i sends i % 10 + 1; Barrier calls 0-1. */
int64_t rfx_large_count(int64_t i, int64_t j, int variant);

int rfx_write_mixed(const char *dir, cp_error *err);
int rfx_write_large(const char *dir, int64_t n, cp_error *err);

#endif
