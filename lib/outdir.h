/*
 * The output directory: COLLPROF_OUTPUT_DIR, or collprof.<job>.<stamp> in
 * the working directory (with -2, -3, ... appended when a run of the same
 * second already wrote there).  Job id from the batch system's variables.
 */
#ifndef COLLPROF_OUTDIR_H
#define COLLPROF_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "collprof/profile.h"
#include "config.h"

/* The job id: SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, else "local";
 * characters other than [A-Za-z0-9._-] become '_'. */
void cp_outdir_job(char *out, size_t len);
/* Create the directory (and its parents).  `unique`: find a fresh name by
 * suffixing rather than writing into an existing default directory. */
int cp_outdir_create(const cp_config *cfg, const char *job, const char *stamp, bool unique,
                     char *out, size_t len, cp_error *err);
/* mkdir -p */
int cp_mkdirs(const char *path, cp_error *err);
/* A directory collprof may write into: one of this user's, not writable by
 * every user without the sticky bit (another user could have prepared it,
 * or plant links in it), and, unless link_ok, not a symbolic link itself
 * (a directory inside the output directory). */
int cp_outdir_check(const char *path, bool link_ok, cp_error *err);
/* cp_mkdirs, then cp_outdir_check, then a probe that files can be created
 * in it (one message for a read-only directory, not one per file). */
int cp_outdir_make(const char *path, bool link_ok, cp_error *err);
/* At MPI_Init, without creating anything: can the output directory be
 * made and written at the end of the run?  COLLPROF_OUTPUT_DIR: an
 * existing one must pass cp_outdir_check and take files; a new one needs
 * its nearest existing ancestor to be a directory this process can write
 * into.  The default: the working directory must be writable.  Returns 0,
 * or -1 with err saying why not (the run goes on; finalize tries again). */
int cp_outdir_precheck(const cp_config *cfg, cp_error *err);
/* Remove the files an earlier run left in an output directory reused
 * (COLLPROF_OUTPUT_DIR): only names collprof writes (and their temporary
 * and .part names), and with `folders` the partial.rank<R> folders, so that
 * a run never mixes with an earlier one's files.  Other files stay. */
void cp_outdir_clear(const char *path, bool folders);
/* A folder of collprof's (a rank's partial profile): what is ours in it,
 * then the folder itself when nothing else is left. */
void cp_outdir_remove_folder(const char *path);

#endif
