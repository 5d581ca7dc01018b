/*
 * The run-wide part of manifest.json (versions, MPI library, job, world
 * size, start time, configuration), shared by the finalize-time and the
 * partial (exit without MPI_Finalize) profiles.
 */
#ifndef COLLPROF_RUN_MANIFEST_H
#define COLLPROF_RUN_MANIFEST_H

#include "collprof/profile.h"

/* Fill m's run-wide fields; reason NULL for a complete profile.  Returns 0,
 * or -1 when memory ran out (m may be partly filled; cp_manifest_free it). */
int cp_run_manifest(cp_manifest *m, const char *partial_reason);

#endif
