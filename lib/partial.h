/*
 * Partial profile: when the process exits without MPI_Finalize, each rank
 * writes what it holds, without any communication, into
 * <output dir>/partial.rank<R>/ (manifest marked partial, counts files with
 * this rank's rows only, communicators numbered in this rank's order of
 * first use).
 */
#ifndef COLLPROF_PARTIAL_H
#define COLLPROF_PARTIAL_H

void cp_partial_write(const char *reason);

#endif
