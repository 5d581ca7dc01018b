/*
 * Partial profile: when the process exits without MPI_Finalize (or a
 * signal ends it, or a snapshot is due), each rank writes what it holds,
 * without any communication, into <output dir>/partial.rank<R>/ (manifest
 * marked partial with the rank's state, counts files with this rank's rows
 * only, communicators numbered in this rank's order of first use, and with
 * timing on its timed calls: timings.cpt with this rank's chunk alone).
 */
#ifndef COLLPROF_PARTIAL_H
#define COLLPROF_PARTIAL_H

#include <stdbool.h>

/* reason: why MPI_Finalize did not come (in the manifest and the message);
 * always_say: print where it went on this rank even when it is not rank 0
 * (a crash or an abort concerns one rank). */
void cp_partial_write(const char *reason, bool always_say);
/* reason NULL: a snapshot of a run that goes on (COLLPROF_SNAPSHOT): the
 * same, quietly, not written again while the state is the same, and its
 * place kept for finalize (snapshot_place.h). */


#endif
