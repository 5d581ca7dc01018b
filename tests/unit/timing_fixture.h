/*
 * A timed output directory for the reader and report tests: the reader
 * fixture's consistent directory (FX_GOOD, reader_fixture.h: world of 3
 * ranks; communicator 0 = world ranks 0-2 with Alltoallv calls 0-2 and
 * Gatherv (root 0) call 0; communicator 1 = world ranks 2,0 with Alltoall
 * calls 0-3) and the files of a timed run that agree with it, written with
 * the real writers:
 *
 *   profile.cubex  metrics visits, time and the wait-state patterns; call
 *                  tree "fixture" (cnode 0) -> MPI_Alltoallv (1),
 *                  MPI_Gatherv (2), MPI_Alltoall (3); 3 locations, ranks
 *                  0-1 on host "a", rank 2 on host "b"; visits: every rank
 *                  3 Alltoallv and 1 Gatherv, ranks 0 and 2 4 Alltoall;
 *   profile.stat   mpi_wait_nxn: 6 instances of 1 s, one listed (cnode 1,
 *                  rank 0);
 *   timings.cpt    every rank's series of each communicator it is a member
 *                  of, with the times of tfx_times; hosts as in the cube;
 *   manifest.json  the reader fixture's, listing the three files too.
 *
 * A test builds the models (tfx_build), may change them, then writes the
 * directory (tfx_write).
 */
#ifndef COLLPROF_TIMING_FIXTURE_H
#define COLLPROF_TIMING_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "collprof/profile.h"

typedef struct tfx {
    cp_cube cube;
    cp_stat_file stat;
    cp_cpt_file cpt;
    bool skip_cube, skip_stat, skip_cpt; /* not written (still listed) */
    const char *unlisted; /* a file written but left out of the manifest's "files" */
} tfx;

/* Enter and exit (seconds) of world rank r in call k of a collective of the
 * fixture (comm 0 "Alltoallv" and "Gatherv", comm 1 "Alltoall"):
 *   Alltoallv: enter 10k (rank 2: 10k + 1), exit 10k + 2 + r/4 + k/2
 *              (durations 2 2.5 3 | 2.25 2.75 3.25 | 1.5 2 2.5);
 *   Gatherv:   enter 40, 40.5, 41; exit 41.5, 40.75, 41.25;
 *   Alltoall:  enter 50 + 10k, exit + 0.0001 (k + 1) on rank 0, + 0.01 on
 *              rank 2. */
void tfx_times(int64_t comm, const char *collective, int64_t r, uint64_t k, double *enter,
               double *exit);

/* The consistent models (aborts when out of memory). */
void tfx_build(tfx *t);
/* Writes the directory into dir (which exists).  0, or -1 with err set. */
int tfx_write(const char *dir, const tfx *t, cp_error *err);
void tfx_free(tfx *t);

#endif
