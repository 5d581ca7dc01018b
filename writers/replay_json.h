/*
 * collprof-replay's results (replay.json; docs/replay.md): the model, its
 * writer and its parser side by side in replay_json.c.  collprof-replay
 * writes them with --json; `collprof report` shows them when the profile
 * directory holds a replay.json.
 */
#ifndef CP_REPLAY_JSON_H
#define CP_REPLAY_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "collprof/profile.h"

#define CP_REPLAY_FORMAT_VERSION 1

typedef struct cp_replay_pattern {
    int64_t comm;             /* recorded communicator id */
    int64_t remote_comm;      /* the other group's id (intercommunicator), -1 */
    int64_t ranks;            /* ranks of the communicator (both groups) */
    char collective[32];
    int64_t first_call, calls, bytes_per_call;
    bool nonblocking;
    bool skipped;
    char why[160];            /* when skipped */
    /* measured (not when skipped); seconds per call */
    int64_t n_sample;
    double t_min, t_avg, t_max, projected;
    bool has_recorded;        /* timings.cpt had its calls */
    uint64_t rec_instances;
    double rec_min, rec_median, rec_max, rec_wait;
    bool has_nbc;             /* measured as IMB-NBC does */
    double t_pure, t_ovrl, t_cpu, overlap_percent;
} cp_replay_pattern;

typedef struct cp_replay {
    char profile[4096];       /* the directory as given */
    char mpi_library[256];    /* first line of the library's version string */
    int64_t ranks;
    bool sequence;            /* mode: --sequence, else patterns */
    /* options */
    int64_t comm;             /* -1: every one */
    char collective[32];      /* "" for every one */
    int64_t top;
    bool top_by_bytes;
    double scale_counts;
    int64_t repetitions;
    char note[256];
    cp_replay_pattern *patterns; /* patterns mode */
    size_t npatterns;
    /* sequence mode */
    int64_t seq_calls;
    double seq_seconds;
    bool seq_has_recorded;
    double seq_recorded;
} cp_replay;

int cp_replay_write_file(const char *path, const cp_replay *r, cp_error *err);
/* 0, or -1 with err naming the file, line and column and what was expected. */
int cp_replay_read_file(const char *path, cp_replay *r, cp_error *err);
void cp_replay_free(cp_replay *r);

#endif
