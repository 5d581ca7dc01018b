/*
 * Partial profile: when the process exits without MPI_Finalize, each rank
 * writes what it holds, without any communication, into
 * <output dir>/partial.rank<R>/ (manifest marked partial, counts files with
 * this rank's rows only, communicators numbered in this rank's order of
 * first use).
 */
#ifndef COLLPROF_PARTIAL_H
#define COLLPROF_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>

/* reason: why MPI_Finalize did not come (in the manifest and the message);
 * always_say: print where it went on this rank even when it is not rank 0
 * (a crash or an abort concerns one rank). */
void cp_partial_write(const char *reason, bool always_say);

/* After a normal finalize: this rank's last snapshot (reason NULL above)
 * is removed, and the folder it was in too when it is not `kept` (the
 * profile's) and nothing else is left in it. */
void cp_partial_forget_snapshot(const char *kept);
/* The output directory this rank's snapshots went to, if it wrote any. */
bool cp_partial_snapshot_dir(char *out, size_t len);

#endif
