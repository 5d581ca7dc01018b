/*
 * Configuration from COLLPROF_* environment variables (one table in
 * config.c, documented in docs/configuration.md).  A bad value falls back to
 * the default and produces one message naming the variable and the accepted
 * values; the application keeps running.
 */
#ifndef COLLPROF_CONFIG_H
#define COLLPROF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectives.h"

/* How the ranks write timings.cpt together (finalize_cpt.c). */
enum cp_timings_io { CP_TIMINGS_IO_AUTO = 0, CP_TIMINGS_IO_POSIX, CP_TIMINGS_IO_MPIIO };

typedef struct cp_config {
    char output_dir[4096]; /* empty: collprof.<job>.<YYYYmmdd-HHMMSS> */
    bool gzip;             /* COLLPROF_COMPRESS=gzip */
    bool dense_rows;       /* COLLPROF_COUNTS_ROWS=dense: no sparse or relative rows */
    uint64_t start_call;   /* first call index recorded, per (communicator, collective) */
    uint64_t max_calls;    /* calls recorded from there on; UINT64_MAX = all */
    int verbose;           /* 0 quiet but the final line, 1 more, 2 debug */
    bool enabled[CP_NCOLLECTIVES]; /* COLLPROF_COLLECTIVES */
    int timing;            /* COLLPROF_TIMING: enum cp_timing_mode */
    uint64_t timing_max_calls; /* calls per rank kept with their own times */
    uint64_t timing_sample;    /* calls per series kept before it thins; 0: auto */
    uint64_t timing_seed;      /* COLLPROF_TIMING_SEED: the sample's hash, when not auto */
    bool timing_seed_auto;     /* a new one each run, agreed by the ranks at MPI_Init */
    char hostname[256];    /* COLLPROF_HOSTNAME; empty: gethostname() */
    bool stat_documented;  /* COLLPROF_STAT_LAYOUT=documented */
    int callsite_depth;    /* COLLPROF_CALLSITE_DEPTH: frames per call path, 0 = off */
    int clock;             /* COLLPROF_CLOCK: enum cp_clock_mode (clock.h) */
    int timings_io;        /* COLLPROF_TIMINGS_IO: enum cp_timings_io */
    uint64_t signals;      /* COLLPROF_SIGNALS: bit s for signal number s (signals.h) */
    /* COLLPROF_SNAPSHOT: seconds between a rank's snapshots of its state
     * into partial.rank<R>/ (0: none; CP_SNAPSHOT_AUTO: by the job's size,
     * cp_config_snapshot_seconds). */
    uint64_t snapshot_s;
} cp_config;

/* One effective setting, for the manifest. */
typedef struct cp_config_entry {
    const char *name;
    char value[4096];
} cp_config_entry;

#define CP_CONFIG_NENTRIES 18

/* COLLPROF_TIMING: no timestamps; enter/exit of each call; or a barrier on
 * the communicator first, so that late arrival and execution are apart. */
enum cp_timing_mode { CP_TIMING_OFF = 0, CP_TIMING_PASSIVE = 1, CP_TIMING_BARRIER = 2 };
/* "off", "passive", "barrier": as COLLPROF_TIMING spells them. */
const char *cp_timing_mode_name(int mode);
/* 65,536 kept calls x 16 bytes: 1 MiB per rank, allocated at start. */
#define CP_TIMING_MAX_CALLS_DEFAULT 65536
/* Each (communicator, collective) keeps at most this many calls, spread
 * over its whole run: 16 KiB each, 64 series fill the default pool. */
#define CP_TIMING_SAMPLE_DEFAULT 0 /* auto: the pool shared among the series */
/* The caller of the MPI function: one return address, no unwinding. */
#define CP_CALLSITE_DEPTH_DEFAULT 1

/* COLLPROF_SNAPSHOT=auto: every CP_SNAPSHOT_MIN_S seconds, or for large
 * jobs less often, so that the job as a whole writes at most
 * CP_SNAPSHOT_JOB_RATE snapshot folders a second on the file system. */
#define CP_SNAPSHOT_AUTO UINT64_MAX
#define CP_SNAPSHOT_MIN_S 30
#define CP_SNAPSHOT_JOB_RATE 100
/* The seconds between snapshots a job of world_size ranks takes (0: none). */
uint64_t cp_config_snapshot_seconds(const cp_config *cfg, int64_t world_size);

/* Read the environment into cfg.  Problems (one line each) are written into
 * `problems` (NUL-terminated, possibly empty) for rank 0 to print.  The
 * effective values are listed in entries[CP_CONFIG_NENTRIES]. */
void cp_config_load(cp_config *cfg, cp_config_entry *entries, char *problems, size_t len);

/* The run's sample seed, drawn (COLLPROF_TIMING_SEED=auto): into cfg and
 * its manifest entry. */
void cp_config_set_seed(cp_config *cfg, cp_config_entry *entries, uint64_t seed);

#endif
