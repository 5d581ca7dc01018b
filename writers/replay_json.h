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

/* 2: mode "tune" (collprof-replay --tune); files of version 1 read as before. */
#define CP_REPLAY_FORMAT_VERSION 2

/* --tune: one algorithm on one pattern; seconds per call of the slowest
 * rank over the rounds (median, fastest and slowest round). */
typedef struct cp_replay_algo {
    char name[64];
    int64_t value;            /* the library's control variable's value */
    bool refused;             /* the library cannot serve the pattern with it */
    int64_t rounds;           /* 0: refused */
    double median, fastest, slowest;
} cp_replay_algo;

/* --tune: a pattern's algorithms. */
typedef struct cp_replay_tuned {
    char variable[96];        /* the control variable ("" when none) */
    char why[320];            /* why no algorithm can be chosen ("" when they can) */
    cp_replay_algo *algos;    /* [0]: the library's own choice */
    size_t nalgos;
    char best[64];            /* the lowest median */
    bool beyond_noise;        /* its slowest round beats the own choice's fastest */
} cp_replay_tuned;

/* --tune: one collective's setting. */
typedef struct cp_replay_setting {
    char collective[32];
    char variable[96];
    char own[64];             /* the library's own choice */
    char algorithm[64];       /* the best over its patterns */
    bool beyond_noise;        /* saving_lo > 0: the setting is proposed */
    double saving, saving_lo, saving_hi; /* seconds over the recorded calls */
    int64_t calls;
    bool has_recorded;
    double recorded;          /* calls x recorded median */
    char setting[256];        /* the environment line, "" when not proposed */
} cp_replay_setting;

/* Seconds of a whole replayed sequence over rounds. */
typedef struct cp_replay_span {
    double median, fastest, slowest;
} cp_replay_span;

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
    cp_replay_tuned tune;     /* mode tune (instead of the measured times) */
} cp_replay_pattern;

typedef struct cp_replay {
    char profile[4096];       /* the directory as given */
    char mpi_library[256];    /* first line of the library's version string */
    int64_t ranks;
    bool sequence;            /* mode: --sequence, else patterns */
    bool tune;                /* mode: --tune */
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
    /* tune mode */
    int64_t rounds;
    cp_replay_setting *settings;
    size_t nsettings;
    bool has_validation;
    bool val_done;
    char val_why[256];        /* when not done */
    int64_t val_rounds, val_calls;
    cp_replay_span val_own, val_settings;
    bool val_has_projected;
    double val_projected, val_projected_lo, val_projected_hi;
} cp_replay;

int cp_replay_write_file(const char *path, const cp_replay *r, cp_error *err);
/* 0, or -1 with err naming the file, line and column and what was expected. */
int cp_replay_read_file(const char *path, cp_replay *r, cp_error *err);
void cp_replay_free(cp_replay *r);

#endif
