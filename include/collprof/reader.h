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

/* ---- additions used by the `collprof` command (summary, matrix, check) ---- */

/* Every call index recorded for (comm, collective) in that direction
 * (direction -1: either direction), as a set; out is cleared first.
 * Returns 0, or -1 on allocation failure. */
int cp_profile_calls(const cp_profile *p, int64_t comm, const char *collective, int direction,
                     cp_ranges *out);

/* Bytes one call of this block asks to move: the sum over its ranks (a row
 * counts once per rank of its range list) of the sum of the row, times the
 * datatype size (1 when counts_in_bytes).  A single count that goes to every
 * peer (Alltoall, Allgather(v), Reduce_scatter_block, Scatter's root,
 * Neighbor_allgather(v), Neighbor_alltoall) counts once per peer; any other single
 * count (a reduction's contribution, a Bcast buffer, a Gather item) once.
 * cp_block_call_bytes takes the peers to be the block's ranks;
 * cp_profile_call_bytes uses the manifest: the remote group of an
 * intercommunicator, each rank's out-degree in a topology.  Saturates at
 * INT64_MAX. */
int64_t cp_block_call_bytes(const cp_block *b);
int64_t cp_profile_call_bytes(const cp_profile *p, const cp_block *b);

/* One line of `collprof summary`: one (communicator, collective). */
typedef struct cp_summary_row {
    int64_t comm;
    int64_t size;          /* manifest, else the Communicator: line, else Number of ranks */
    int64_t lead;          /* world rank of communicator rank 0; -1 when unknown */
    char collective[32];   /* as written in the first block seen */
    int64_t calls;         /* distinct call indices recorded, either direction */
    size_t send_matrices;  /* distinct send matrices (send blocks) */
    size_t recv_matrices;  /* distinct receive matrices (receive blocks) */
    int64_t bytes_sent;    /* sum over send blocks of calls x cp_block_call_bytes
                              (saturates at INT64_MAX) */
    const cp_block *top_send; /* most frequent send matrix (ties: lowest first call);
                                 NULL when no send block */
    int64_t top_send_calls;   /* its number of calls */
} cp_summary_row;

/* One row per (communicator, collective), sorted by communicator id, then
 * collective name (case-insensitively).  *rows is malloc'ed (free() it); it
 * points into p, which must outlive it.  Returns 0, or -1 with err set. */
int cp_profile_summarize(const cp_profile *p, cp_summary_row **rows, size_t *nrows,
                         cp_error *err);

#ifdef __cplusplus
}
#endif
#endif
