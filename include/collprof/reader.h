/*
 * collprof reader library: load an output directory (or a directory of
 * count files written by other tools) into the profile model, and answer
 * the questions the `collprof` command asks.  The CLI and the tests sit on it.
 */
#ifndef COLLPROF_READER_H
#define COLLPROF_READER_H

#include <stdio.h>
#include "collprof/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cp_profile {
    char dir[4096];
    bool has_manifest;
    cp_manifest manifest;
    cp_counts_file *files; /* every send-/recv-counters file found */
    size_t nfiles;
} cp_profile;

/* Load dir: manifest.json when present, then every counts file (plain or
 * .gz).  Files in other tools' dialect get synthetic communicator ids: one per
 * distinct (lead rank of the file, number of ranks), numbered in that order.
 * Returns 0, or -1 with err naming the file, the line and the problem. */
int cp_profile_load(const char *dir, cp_profile *p, cp_error *err);
void cp_profile_free(cp_profile *p);

/* The block of (comm, collective, direction) whose calls contain call.
 * collective is matched case-insensitively.  NULL when none. */
const cp_block *cp_profile_find(const cp_profile *p, int64_t comm, const char *collective,
                                int direction, int64_t call);

/* Validate everything that can be checked: every block well-formed (rows
 * cover distinct ranks below nranks, calls within all_calls), blocks of one
 * (comm, collective, direction) partition its calls, the manifest's
 * communicator table agrees with the blocks, and for every call the send
 * matrix is the transpose of the receive matrix (in bytes).  Each problem is
 * printed to `report` (one line each); returns the number of problems. */
long cp_profile_check(const cp_profile *p, FILE *report);

#ifdef __cplusplus
}
#endif
#endif
