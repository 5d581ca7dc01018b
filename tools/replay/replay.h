/*
 * collprof-replay: measure an application's own collective patterns, read
 * from a collprof profile, with the methodology of the Intel MPI Benchmarks
 * (docs/replay.md).  The parts, in the order main.c runs them:
 *   options.c   the command line
 *   comms.c     the recorded communicators, rebuilt from manifest.json
 *   patterns.c  the distinct (communicator, collective, matrix) to replay
 *   args.c      this rank's arguments of one pattern (counts, types, root)
 *   call.c      the one table of replayable collectives: how each is called
 *   measure.c   the timing (IMB's "actual benchmarking", IMB-NBC's overlap)
 *   sequence.c  --sequence: the recorded calls in their recorded order
 *   algorithms.c  --tune, --algorithms: the MPI library's algorithms of
 *               each collective, found and chosen through MPI_T
 *   tune.c      --tune: every algorithm measured on every pattern (the
 *               MPI-free half in tuning.h: algo_names.c, tune_choice.c)
 *   tune_validate.c  --validate: the sequence with and without the settings
 *   output.c    the table on rank 0's stdout, and --json; tune_output.c
 *               the answer of --tune (text, its --json); tune_rules.c
 *               --rules: Open MPI's rules file
 */
#ifndef CP_REPLAY_H
#define CP_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#include "collprof/reader.h"
#include "tuning.h"
#include "replay_json.h"

/* ------------------------------------------------------------ options */

enum { REPLAY_TOP_TIME, REPLAY_TOP_BYTES };
/* Settings --tune proposes or --validate checks, at the most. */
#define REPLAY_SETTINGS_MAX 64
typedef struct replay_options {
    const char *dir;
    const char *json;         /* --json FILE, or NULL */
    bool sequence;            /* --sequence */
    int64_t comm;             /* --comm ID (a recorded id), -1: every one */
    char collective[32];      /* --collective NAME, "" for every one */
    int64_t top;              /* --top K, 0: every pattern */
    int top_by;               /* REPLAY_TOP_TIME / REPLAY_TOP_BYTES (--top-by) */
    double scale;             /* --scale-counts F (1: as recorded) */
    int64_t repetitions;      /* --repetitions R, 0: IMB's rule within --seconds */
    double seconds;           /* --seconds S: the timed calls of a pattern, at the most */
    bool tune;                /* --tune: every algorithm of the library on each pattern */
    int64_t rounds;           /* --rounds R: of --tune's interleaved measurements */
    bool algorithms;          /* --algorithms: list them, no profile */
    bool validate;            /* --validate: --tune's settings checked on the sequence */
    const char *rules;        /* --rules FILE: Open MPI's rules file of --tune's winners */
    const char *settings[REPLAY_SETTINGS_MAX]; /* --setting NAME=VALUE, to --validate */
    int nsettings;
} replay_options;

/* --tune measures each algorithm this many times, interleaved, unless asked. */
#define REPLAY_ROUNDS_DEFAULT 5
#define REPLAY_ROUNDS_MAX 100

/* A pattern's timed calls take about this long unless asked otherwise: a
 * profile of many large patterns is replayed in minutes, not hours. */
#define REPLAY_SECONDS_DEFAULT 1.0

/* 0 (parsed), 1 (--help printed), or 2 (a message in err). */
int replay_options_parse(int argc, char **argv, replay_options *o, char *err, size_t errsize);
void replay_usage(FILE *out);

/* -------------------------------------------------------- communicators */

/* One communicator to replay on: an intracommunicator (one recorded entry),
 * an intercommunicator (its two groups' entries), or, for the other tools'
 * dialect, the first ranks of MPI_COMM_WORLD. */
typedef struct replay_comm {
    int64_t id[2];            /* recorded ids of its groups; id[1] = -1 unless inter */
    int64_t size[2];          /* their sizes */
    bool inter;
    int side;                 /* this rank's group (0 or 1), -1: not a member */
    int64_t rank;             /* this rank's rank in its group */
    MPI_Comm comm;            /* MPI_COMM_NULL where side < 0 */
    char why[160];            /* why it is not rebuilt ("" when it is) */
    MPI_Comm sync;            /* all members of both groups (intra: comm itself;
                                 inter: the merged groups) for the agreement
                                 and the barriers of the measurement */
} replay_comm;

typedef struct replay_comms {
    replay_comm *v;
    size_t n;
    void *index;              /* (recorded id, communicator, group), by id */
    size_t nindex;
} replay_comms;

/* Rebuild every communicator of the profile (collective over
 * MPI_COMM_WORLD).  0, or -1 with err set (the same outcome on every rank). */
int replay_comms_build(const cp_profile *p, replay_comms *out, cp_error *err);
void replay_comms_free(replay_comms *c);
/* The same communicators again, each duplicated (a library that takes a
 * choice of algorithm when a communicator is made sees it in the copies);
 * collective over MPI_COMM_WORLD.  0, or -1 (out of memory, on every rank).
 * The copy shares c's index: free it with replay_comms_free_dup. */
int replay_comms_dup(const replay_comms *c, replay_comms *out);
void replay_comms_free_dup(replay_comms *c);
/* World rank `rank`'s timed calls of (recorded communicator id, coll) in
 * timings.cpt (a rank has one series of each), or NULL. */
const cp_cpt_series *replay_timed_series(const cp_profile *p, int64_t rank, int64_t id,
                                         const char *coll);
/* World rank of recorded communicator id's rank 0 (manifest), or -1. */
int64_t replay_comm_lead(const cp_profile *p, int64_t id);
/* The communicator holding recorded id and its group (side), or NULL. */
const replay_comm *replay_comms_find(const replay_comms *c, int64_t id, int *side);

/* ------------------------------------------------------------- patterns */

/* One distinct (communicator, collective, matrix): the send and receive
 * blocks of each group, as recorded at the first call that moved it. */
typedef struct replay_pattern {
    size_t comm; /* index into replay_comms */
    char collective[32];
    int coll;                 /* index into the table of call.c */
    const cp_block *send[2], *recv[2]; /* NULL where that group did not record one */
    const cp_block *key;      /* the send block that defines it (its calls) */
    int64_t calls;            /* calls of the application that moved it */
    int64_t first_call;
    int64_t bytes;            /* bytes one call moves, every rank's sends */
    bool nonblocking;         /* timings.cpt: its calls were I... or persistent */
    /* recorded times of its calls (timings.cpt), instances 0 without */
    uint64_t rec_instances;
    double rec_min, rec_median, rec_max, rec_wait;
    /* measured */
    bool skipped;
    char why[160];            /* why it was skipped */
    int64_t n_sample;
    double t_min, t_avg, t_max;      /* seconds per call over the ranks */
    double t_pure, t_ovrl, t_cpu, overlap; /* non-blocking: IMB-NBC (max over ranks) */
} replay_pattern;

typedef struct replay_patterns {
    replay_pattern *v;
    size_t n;
    char note[256];           /* what the selection left out, "" */
} replay_patterns;

/* Every pattern of the profile on the rebuilt communicators, selected by
 * the options, most costly first.  0, or -1 with err set. */
int replay_patterns_find(const cp_profile *p, const replay_comms *c, const replay_options *o,
                         replay_patterns *out, cp_error *err);
void replay_patterns_free(replay_patterns *ps);

/* ----------------------------------------------------- one call's arguments */

typedef struct replay_args {
    int coll;
    MPI_Comm comm;
    int root;                 /* communicator rank, or MPI_ROOT / MPI_PROC_NULL (inter) */
    int scount, rcount;       /* single counts */
    int *scounts, *sdispls, *rcounts, *rdispls; /* vectors (NULL when single) */
    MPI_Datatype stype, rtype; /* element types (bytes of the recorded size) */
    MPI_Datatype *stypes, *rtypes; /* ..._alltoallw: MPI_BYTE per peer */
    MPI_Aint *sdispls_aint, *rdispls_aint; /* Neighbor_alltoallw */
#if MPI_VERSION >= 4
    MPI_Count *scounts_c, *rcounts_c;      /* Neighbor_alltoallw (call.c says why) */
#endif
    MPI_Op op;                /* reductions */
    size_t sbytes, rbytes;    /* buffer bytes this call needs */
    int64_t sent;             /* bytes this rank sends (IMB's X) */
    void *sbuf, *rbuf;        /* set by the caller, at least sbytes / rbytes */
} replay_args;

/* This rank's arguments of pattern pt, counts multiplied by scale.  0; 1
 * when it cannot be replayed (why set: a count beyond int, ...); -1 out
 * of memory. */
int replay_args_make(const replay_comms *c, const replay_pattern *pt, double scale, replay_args *a,
                     char *why, size_t whysize);
void replay_args_free(replay_args *a);
/* The datatypes and the reduction operation made for the arguments. */
void replay_types_free(void);

/* ------------------------------------------------------------- the calls */

enum {
    REPLAY_SINGLE = 1 << 0, /* counts: one value (else a vector) */
    REPLAY_ROOTED = 1 << 1,
    REPLAY_REDUCE = 1 << 2, /* takes an MPI_Op */
    REPLAY_NEIGHBOR = 1 << 3,
    REPLAY_TYPED = 1 << 4
}; /* per-peer datatypes (..._alltoallw) */
typedef struct replay_coll {
    const char *name;         /* as the count files name it: "Alltoallv" */
    unsigned flags;
    /* The call, blocking (req NULL) or non-blocking. */
    int (*call)(const replay_args *a, MPI_Request *req);
} replay_coll;

extern const replay_coll replay_colls[];
extern const size_t replay_ncolls;
/* Index of the collective (case-insensitive), -1 when unknown. */
int replay_coll_find(const char *name);

/* ------------------------------------------------------------ measuring */

/* Measure pattern pt with this rank's arguments a (buffers set), on its
 * communicator rc: collective over rc's members, and then over
 * MPI_COMM_WORLD (every rank, member or not, in the same pattern order),
 * which brings the numbers to pt on world rank 0.  Returns 0. */
int replay_measure(const replay_comm *rc, const replay_args *a, replay_pattern *pt,
                   const replay_options *o);
/* Keep the CPU busy for about that long (calibrated at the first call). */
void replay_cpu_load(double seconds);

/* --sequence: every selected communicator's recorded calls, in recorded
 * order.  Total seconds on rank 0 (max over ranks); the recorded total in
 * *recorded (0 without timings). */
typedef struct replay_sequence_result {
    int64_t calls;            /* calls replayed (by the busiest rank) */
    double seconds;           /* wall time of the replay, max over ranks */
    double recorded;          /* the run's recorded time in those calls, max over ranks */
    bool has_recorded;
} replay_sequence_result;
int replay_sequence(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                    const replay_options *o, void *sbuf, void *rbuf, replay_sequence_result *res,
                    cp_error *err);

/* ----------------------------------------------------------- algorithms */

/* Start MPI_T (before any other call below; 0, or -1 and why); close it
 * before MPI_Finalize, restoring what was changed. */
int replay_algos_open(char *why, size_t size);
/* Strict (the default after open): an algorithm that cannot serve a call
 * makes it fail (MPICH's COLLECTIVE_FALLBACK=error); not strict: the
 * library's setting at launch (as the application will run). */
void replay_algos_strict(bool on);
void replay_algos_close(void);
/* "MPICH", "Open MPI", or "this MPI library". */
const char *replay_algos_library(void);
/* Does the library read a rules file --rules can write (Open MPI)?  When
 * not, why in why. */
bool replay_algos_rules_file(char *why, size_t size);
/* The algorithms of the collective (as call.c names it), blocking or not,
 * on an intra- or intercommunicator. */
void replay_algos_find(const char *coll, bool nonblocking, bool inter, replay_algos *a);
/* Choose algorithm k on this rank (0: the library's own); 0 or -1. */
int replay_algos_select(const replay_algos *a, int k);
/* The algorithm the variable chooses now (as set at launch, or by
 * replay_algos_select), or -1. */
int replay_algos_current(const replay_algos *a);
/* A setting "NAME=VALUE" as --tune prints them (MPICH's MPIR_CVAR_..., Open
 * MPI's OMPI_MCA_...; VALUE an algorithm's name or value) into a and *k.
 * 0; 1 for OMPI_MCA_coll_tuned_use_dynamic_rules=1, which is read at
 * launch only (and is on); -1 with why. */
int replay_algos_parse_setting(const char *word, replay_algos *a, int *k, char *why, size_t size);
/* The environment setting that chooses algorithm k at launch. */
void replay_algos_setting(const replay_algos *a, int k, char *buf, size_t size);

/* --------------------------------------------------------------- tuning */

/* Set by SIGINT or SIGTERM during --tune (to the signal's number): the
 * measurements stop at the next one's end (agreed by every rank) and what
 * was measured is printed. */
extern volatile sig_atomic_t replay_interrupted;

/* Measure every algorithm on every selected pattern, in o->rounds rounds,
 * each round every algorithm once in a rotated order; out[i] for ps->v[i]
 * (filled on world rank 0).  Collective over MPI_COMM_WORLD. */
void replay_tune(const replay_comms *c, const replay_patterns *ps, const replay_options *o,
                 void *sbuf, void *rbuf, replay_tuned *out);
/* The settings --tune proposes: one per collective (control variable) whose
 * best algorithm saves time beyond the noise; pattern: the first pattern of
 * it (whose algos name the variable).  Computed on world rank 0. */
typedef struct replay_setting {
    size_t pattern;
    replay_tune_choice ch;
} replay_setting;
size_t replay_tune_settings(const replay_patterns *ps, const replay_tuned *t,
                            replay_setting *out, size_t max);
/* Was pattern i's control variable (its collective) met in an earlier
 * pattern with algorithms? */
bool replay_tune_seen(const replay_tuned *t, size_t i);
/* Each pattern as the choice sees it (malloc'd; NULL when out of memory). */
replay_tune_use *replay_tune_uses(const replay_patterns *ps, const replay_tuned *t);
/* --rules FILE: Open MPI coll/tuned's dynamic rules, one algorithm per
 * collective and communicator size the application used (where one is
 * faster beyond the noise), on world rank 0.  0, or -1 with err. */
int replay_write_rules(const char *path, const cp_profile *p, const replay_patterns *ps,
                       const replay_tuned *t, cp_error *err);

/* --validate: the recorded sequence replayed o->rounds times with the
 * library's own choices and as often with the settings, alternately. */
typedef struct replay_validation {
    bool done;
    char why[256];            /* why not, when !done */
    int rounds;
    int64_t calls;            /* calls of the sequence (busiest rank) */
    replay_tune_time own, set; /* seconds of the whole sequence (max over ranks) */
    bool projected_known;     /* --tune's settings (not given with --setting) */
    double projected, projected_lo, projected_hi; /* the settings' projected saving */
} replay_validation;
/* One setting: algorithm k of a control variable. */
typedef struct replay_choice {
    const replay_algos *algos;
    int k;
} replay_choice;
/* Collective over MPI_COMM_WORLD: the settings (world rank 0's) go to every
 * rank first. */
void replay_tune_validate(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                          const replay_options *o, const replay_tuned *t, void *sbuf, void *rbuf,
                          replay_validation *v);

/* --validate --setting ...: the settings given (the same on every rank). */
void replay_validate_settings(const cp_profile *p, const replay_comms *c,
                              const replay_patterns *ps, const replay_options *o,
                              const replay_choice *set, int n, void *sbuf, void *rbuf,
                              replay_validation *v);
/* --validate's answer alone (rank 0). */
void replay_print_validation(FILE *out, const cp_profile *p, const replay_options *o, int nranks,
                             const replay_validation *v);

/* --tune's answer on rank 0: per pattern, per collective and run, settings,
 * and the validation (NULL without --validate). */
void replay_print_tune(FILE *out, const cp_profile *p, const replay_comms *c,
                       const replay_patterns *ps, const replay_tuned *t, const replay_options *o,
                       int nranks, const replay_validation *v);
/* --algorithms: every collective's algorithms in this library. */
void replay_print_algorithms(FILE *out);

/* --------------------------------------------------------------- output */

/* "3" or "3/4" (an intercommunicator's groups); its ranks, both groups. */
void replay_comm_label(const replay_comm *rc, char *buf, size_t size);
int64_t replay_comm_ranks(const replay_comm *rc);
/* The first line of the MPI library's version string. */
void replay_library_line(char *buf, size_t size);
void replay_print_table(FILE *out, const cp_profile *p, const replay_comms *c,
                        const replay_patterns *ps, const replay_options *o, int nranks);
void replay_print_sequence(FILE *out, const cp_profile *p, const replay_sequence_result *r);
/* replay.json's model from this run: the header (options, library) and
 * one pattern as measured (replay_json.h). */
void replay_json_header(cp_replay *r, const cp_profile *p, const replay_patterns *ps,
                        const replay_options *o, int nranks);
void replay_json_pattern(cp_replay_pattern *x, const replay_comms *c, const replay_pattern *pt);
/* --tune's answer (and --validate's) as replay.json's mode "tune". */
int replay_write_tune_json(const char *path, const cp_profile *p, const replay_comms *c,
                           const replay_patterns *ps, const replay_options *o, int nranks,
                           const replay_tuned *t, const replay_validation *v, cp_error *err);
int replay_write_json(const char *path, const cp_profile *p, const replay_comms *c,
                      const replay_patterns *ps, const replay_options *o, int nranks,
                      const replay_sequence_result *seq, cp_error *err);

#endif
