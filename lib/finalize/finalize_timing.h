/*
 * Finalize, internal: what the timing, location and counts collectors
 * contribute to the run-wide files (profile.cubex, profile.stat,
 * timings.cpt).
 *
 * finalize_timing.c: every rank aligns its times to world rank 0's clock,
 * finds its own wait-state instances by reductions over each communicator
 * (finalize_waits.c), and sends world rank 0 its sums per site; the
 * instances' statistics merge up a tree to rank 0.
 * finalize_profile.c: rank 0 turns that into the Cube profile and the
 * statistics.  finalize_cpt.c: all ranks write timings.cpt.
 */
#ifndef COLLPROF_FINALIZE_TIMING_H
#define COLLPROF_FINALIZE_TIMING_H

#include "collprof/profile.h"
#include "finalize.h"
#include "job_sites.h"
#include "job_waits.h"
#include "pack.h"
#include "location.h"
#include "finalize_samples.h"
#include "series_sums.h"
#include "sites.h"
#include "wait_states.h"
#include "wait_stats.h"

#define TAG_TIMING 0x6371

/* What the timing stage leaves: on every rank its own sites (its column of
 * the Cube profile); on rank 0 what it learns of the job. */
typedef struct cp_run_times {
    bool timing;                   /* COLLPROF_TIMING was not off */
    int64_t tsc_ranks;             /* ranks that stamped with the time-stamp counter */
    int64_t max_drift_ppm;         /* the largest |drift| of their counters */
    int64_t drifted_ranks;         /* how many beyond CP_CLOCK_DRIFT_BOUND_PPM */
    int64_t first_drifted;         /* the lowest of them, -1 when none */
    cp_job_hosts hosts;            /* rank 0: where every rank ran */
    cp_site *mine;                 /* this rank's sites, sorted by collective, form, path */
    size_t nmine;
    double wall;                   /* this rank's seconds from its start to finalize */
    int64_t *keys;                 /* rank 0: the job's sites (cp_site_key), ascending */
    size_t nkeys;
    uint64_t naggregated;          /* rank 0: calls timed in aggregate only, job-wide */
    cp_coll_agg colls[CP_NCOLLECTIVES]; /* rank 0: per collective, job-wide */
    bool sites_lost;               /* rank 0: some rank's sites did not arrive */
    int64_t clock[4];              /* counter ranks, drifted ranks (sums), the largest
                                      drift, -(first drifted rank) (maxima): this
                                      rank's, then at rank 0 the job's */
    /* The statistics of each pattern's instances (bounded, wait_stats.h)
     * and the most severe ones, whose cnode is cp_site_key(collective,
     * path) until finalize_profile.c maps it; stats_lost: they could not be
     * computed (the profile.stat is missing). */
    cp_wstat stat[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS];
    bool stats_lost;
    cp_cpt_slow slowest[CP_SLOWEST]; /* job-wide, slowest first */
    size_t nslowest;
} cp_run_times;


/* One rank's waiting time at one site in one pattern. */
typedef struct cp_own_wait {
    uint32_t coll, form, path, pattern;
    double v;
} cp_own_wait;

/* What the wait-state stage found (finalize_waits.c): on every rank its own
 * waiting per site and pattern; on rank 0 the job's statistics. */
typedef struct cp_found {
    cp_own_wait *own;
    size_t nown, capown;
    cp_job_waits job;  /* statistics and most severe instances (rank 0: every rank's,
                          merged; cnode = cp_site_key), slowest calls (this rank's,
                          then at rank 0 the job's) */
    bool stats_lost;                        /* rank 0: some rank's are missing */
    bool oom;
} cp_found;

/* Every rank: wait states by reductions over each communicator (timing:
 * there are any; trees_ok: every rank holds every communicator, else
 * none are computed); fills *fd.  Its slowest calls (slow[0..nslow)) merge up
 * the world's tree with the statistics: rank 0 ends with the job's.  Every
 * rank takes part. */
void cp_fin_find_waits(fin *f, const fin_samples *S, bool trees_ok, bool timing,
                       const cp_cpt_slow *slow, size_t nslow,
                       cp_found *fd);
void cp_found_free(cp_found *fd);

/* The timing stage: align, analyse and gather (every rank), with the
 * communicators' job-wide ids and whether every rank holds every
 * communicator.  Fills *rt (see above). */
void cp_fin_timing(fin *f, const fin_ids *ids, const fin_leads *L, fin_samples *S,
                   cp_run_times *rt);

/* Every rank: the job's site keys and aggregates up the world's tree to
 * rank 0 (finalize_sites.c), from rt->mine. */
void cp_fin_job_sites(fin *f, cp_run_times *rt);
/* The keys (cp_site_key) of sites v[0..n) into keys[], ascending and
 * distinct; returns how many. */
size_t cp_fin_site_keys(const cp_site *v, size_t n, int64_t *keys);
void cp_run_times_free(cp_run_times *rt);

/* Every rank (collective): rank 0 builds the Cube profile's metadata, each
 * rank its own column of values, and rank 0 writes profile.cubex row by row
 * as the rows come from the ranks (a batch of rows at a time, never all);
 * then rank 0 writes the statistics.  Under their final names, after every
 * rank agreed that all went well.  Each file stands on its own: one that
 * cannot be written is reported (cp_fin_missing) and the other still is.
 * Returns (rank 0) how many of names[2] were written. */
size_t cp_fin_write_profile(fin *f, const cp_manifest *man, cp_run_times *rt,
                            const char *names[2]);

/* The timings.cpt stage, all ranks: write this rank's chunk of the file
 * (rank 0 with the header and the aggregates from *rt) under the .part
 * name, the communicators by their ids. */
void cp_fin_write_cpt(fin *f, const fin_ids *ids, const fin_samples *S, const cp_run_times *rt,
                      fin_cpt *cpt);
/* A rank's partial profile (partial.h), no communication: its own
 * timings.cpt at path from its samples S (cp_fin_make_samples), a file of world size 1 holding this rank's chunk
 * alone (the manifest's "state" says which rank), its communicators by the
 * partial manifest's numbering, its times aligned with the clock offsets
 * measured at start-up, its sites' paths as own's ids (NULL: call paths
 * off).  Nothing when timing is off.  0, or -1 with err
 * naming the file and the system's reason. */
int cp_fin_write_own_cpt(const fin *f, const fin_samples *S, const cp_own_paths *own,
                         const char *path, cp_error *err);
/* What a Cube profile of this run says of it (finalize_profile.c): its
 * attributes (the run's, then extra_key = extra_value unless NULL), the
 * program, the machine, which metrics; j's sites, call tree and hosts are
 * the caller's.  t holds the text j points to. */
typedef struct fin_cube_text {
    char aggregated[32], machine[256];
    const char *attrs[8][2];
} fin_cube_text;
struct cp_cube_job;
void cp_fin_cube_job(const fin *f, uint64_t naggregated, const char *extra_key,
                     const char *extra_value, fin_cube_text *t, struct cp_cube_job *j);
/* A rank's partial profile: its own profile.cubex at path (one location,
 * this rank; its sites over its own call tree m, paths renamed by own,
 * their times from S, NULL when timing is off; no wait states: they need
 * its peers), finalize_own_profile.c.  0, or -1 with err set. */
int cp_fin_write_own_profile(const fin *f, const fin_samples *S, const cp_manifest *m,
                             const cp_own_paths *own, const char *path, cp_error *err);

#endif
