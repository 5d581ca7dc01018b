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
    bool has_timings;      /* timings.cpt was there (COLLPROF_TIMING not off) */
    cp_cpt_file timings;
    /* A run that ended without MPI_Finalize: the directory held no profile
     * of its own but partial.rank<R>/ folders, merged into this one (the
     * manifest is the run's, marked partial; files hold the merged blocks,
     * named after the lead's folder). */
    size_t npartials;  /* ranks whose partial profile was merged (0: none) */
    cp_kv *stops;      /* ranks (a range list) -> why they stopped, or why
                          their folder was left out (of another run, unreadable) */
    size_t nstops;
    cp_ranges absent;  /* world ranks that left no partial profile */
    /* What the profile lost: file (or "communicator 0, Alltoallv") -> what
     * is wrong with it.  A damaged file that still parses is read; one
     * that does not is left out.  Empty: the profile is whole. */
    cp_kv *damaged;
    size_t ndamaged;
    /* Files read on demand and kept, so that each is read once however many
     * questions need it (the reader's own; NULL: read each time). */
    struct cp_reader_cache *cache;
} cp_profile;
/* The damage of a file the manifest lists and the directory lacks
 * (cp_profile_check reports it in its own words too). */
#define CP_DAMAGE_ABSENT "listed in manifest.json but not there"

/* Load dir: manifest.json when present, then every counts file (plain or
 * .gz), then timings.cpt when present; without any of those, the partial
 * profiles of its partial.rank<R>/ folders, merged (see cp_profile).  Files in other tools' dialect get synthetic communicator ids: one per
 * distinct (lead rank of the file, number of ranks), numbered in that order.
 * Files that are damaged (cut short, emptied, changed, missing, not regular
 * files, not parsing) are listed in p->damaged and the rest is read.
 * Returns 0, or -1 with err naming the file, the line and the problem when
 * nothing sensible can be read (no directory, two files of one lead). */
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

/* ---- patterns (`collprof patterns`; definitions in docs/reader.md) ---- */

/* "<ranks> ranks send to <peers> other ranks" (DESIGN.md section 4). */
#define CP_PEERS_UNKNOWN (-1) /* a neighbourhood single count without neighbour lists */
typedef struct cp_peer_group {
    int64_t peers; /* other ranks addressed with a non-zero count, or CP_PEERS_UNKNOWN */
    int64_t ranks; /* how many ranks of the block address that many */
} cp_peer_group;

/* Classes of a send matrix: a bit set (a matrix may be several). */
enum {
    CP_PATTERN_EMPTY = 1 << 0,         /* no non-zero count */
    CP_PATTERN_UNIFORM = 1 << 1,       /* every count towards another rank equal, non-zero */
    CP_PATTERN_SPARSE = 1 << 2,        /* fewer than half the possible peers addressed */
    CP_PATTERN_BANDED = 1 << 3,        /* non-zeros within |i-j| <= band (cyclic), band small */
    CP_PATTERN_HOT_RECEIVERS = 1 << 4, /* most bytes go to few ranks (hot_recv) */
    CP_PATTERN_HOT_SENDERS = 1 << 5,   /* most bytes come from few ranks (hot_send) */
};

/* Few ranks that move most of the bytes of a matrix. */
typedef struct cp_hot_ranks {
    cp_ranges ranks;        /* which ranks (a set); one rank: "one hot rank" */
    int64_t count;          /* how many */
    int64_t population;     /* among how many ranks (receivers or senders) */
    int percent;            /* their share of the bytes, rounded down */
} cp_hot_ranks;

/* The pattern of one block (one distinct matrix). */
typedef struct cp_pattern {
    const cp_block *b;
    int direction;          /* CP_SEND or CP_RECV */
    bool inter;             /* peers are the remote group (intercommunicator) */
    int64_t calls;          /* calls that moved this matrix */
    int64_t bytes;          /* calls x cp_profile_call_bytes (saturates at INT64_MAX) */
    cp_peer_group *groups;  /* by decreasing peers (unknown last); malloc'ed */
    size_t ngroups;
    int64_t ranks_with_row; /* ranks (below nranks) that have a row */
    int64_t pairs;          /* non-zero (rank, other rank) pairs; -1 when unknown */
    int64_t possible_pairs; /* ranks with a row x other ranks each could address */
    int percent_peers;      /* 100 x pairs / possible_pairs, rounded down; -1 when unknown */
    /* Send matrices only (receive matrices: 0, -1, empty). */
    unsigned classes;       /* CP_PATTERN_* */
    int64_t band;           /* half-width of the band holding every non-zero; -1: none/unknown */
    cp_hot_ranks hot_recv, hot_send;
} cp_pattern;

/* Analyse block b, read as direction (CP_SEND / CP_RECV).  p (may be NULL)
 * supplies the manifest: the remote group of an intercommunicator, the
 * neighbour lists of a topology.  Returns 0, or -1 with err set (out of
 * memory).  Free with cp_pattern_free. */
int cp_pattern_analyze(const cp_profile *p, const cp_block *b, int direction, cp_pattern *out,
                       cp_error *err);
void cp_pattern_free(cp_pattern *pat);
/* The classes as one line: "uniform; sparse: 25% of peers", "-" when none.
 * snprintf semantics (returns the length the text needs). */
int cp_pattern_classes_text(const cp_pattern *pat, char *buf, size_t size);

/* Every matrix of one communicator, and its send matrices ranked. */
typedef struct cp_comm_patterns {
    int64_t comm;
    int64_t size;           /* as cp_summary_row.size */
    int64_t lead;           /* as cp_summary_row.lead */
    bool inter;             /* an intercommunicator group (manifest remote_members) */
    cp_pattern *blocks;     /* by collective, then send before receive, then file order */
    size_t nblocks;
    size_t *by_calls;       /* indices into blocks of the send matrices: most calls first */
    size_t *by_bytes;       /* the same, most bytes first */
    size_t nsend;
} cp_comm_patterns;

/* One entry per communicator with blocks, by communicator id.  Returns 0, or
 * -1 with err set.  Free with cp_comm_patterns_free; entries point into p. */
int cp_profile_patterns(const cp_profile *p, cp_comm_patterns **out, size_t *n, cp_error *err);
void cp_comm_patterns_free(cp_comm_patterns *c, size_t n);

/* ---- export (`collprof export`; schema in docs/export-schema.md) ---- */

#define CP_EXPORT_SCHEMA_VERSION 1
/* The whole profile as one JSON document.  Returns 0, or -1 with err set
 * when writing to out fails. */
int cp_export_json(const cp_profile *p, FILE *out, cp_error *err);


/* ---- timings (`collprof timings`, summary's time columns) ---- */

/* Wait-state patterns, in the order of cp_timing_row.wait. */
#define CP_READER_NPATTERNS 7
/* The Cube metric name of pattern i ("mpi_wait_nxn", ...). */
const char *cp_reader_pattern_name(int i);

#define CP_TIMING_SLOWEST 5

/* One (communicator, collective) of timings.cpt, over all its ranks. */
typedef struct cp_timing_row {
    int64_t comm;
    char collective[32];
    uint64_t instances;     /* (rank, call) pairs with their own times */
    uint64_t naggregated;   /* timed calls not in the sample: total only */
    double total;           /* seconds in the call (exit - start), aggregated included */
    double late;            /* seconds of late arrival (start - enter; barrier mode) */
    double min, median, max; /* of the instances' exit - start (0 when none) */
    /* Every timed call of the run, from the series' histograms (timings.cpt
     * version 2): how many, and quantiles of exit - start within 12.5%
     * (0 when no histogram). */
    uint64_t hist_calls;
    double p50, p90, p99;
    /* Waiting per pattern over the whole run: per rank and call site, the
     * waiting per second in the call of the sampled calls every member
     * kept, times the exact time in the call (model/wait_states.h:
     * cp_wait_factor; never above that time in passive timing), with the
     * standard error of the estimate (0 when exact).  wait_weight: the
     * calls each analysed call stands for (1: every timed call was
     * analysed, the value is exact).  wait_sampled: the sample's own exact
     * waiting, wait_instances its (rank, call) instances, wait_calls the
     * calls of the sample every member kept. */
    double wait[CP_READER_NPATTERNS];
    double wait_se[CP_READER_NPATTERNS];
    double wait_sampled[CP_READER_NPATTERNS];
    uint64_t wait_instances[CP_READER_NPATTERNS];
    uint64_t wait_calls;
    double wait_weight;
    /* Estimated only: the time in the calls (over the ranks, from their
     * histograms, within 12.5 %) of the calls longer than any the sample
     * kept, where it exceeds the standard error of what the sample kept
     * (else 0).  Their waiting is not known (none of it, or all of it):
     * said beside the estimate, whose error counts them only through the
     * histogram (docs/reader.md, `collprof timings`). */
    double wait_unseen;
    /* Not every member timed the series (its ranks disagree on its calls,
     * or some timed none): no waiting can be found, "-" rather than 0. */
    bool wait_unknown;
    cp_cpt_slow slowest[CP_TIMING_SLOWEST]; /* slowest (rank, call)s, slowest first;
                                               duration = exit - start */
    size_t nslowest;
} cp_timing_row;

/* One rank's waiting in one pattern at one call site of a series, its
 * whole-run estimate as the row's wait[] (its share of it): from the sites
 * timings.cpt version 4 names (call path and form). */
typedef struct cp_site_wait {
    size_t row;             /* the series: rows[row] */
    int64_t rank;           /* world rank */
    uint32_t path, form;    /* call-tree id (0xffffffff: none), enum cp_form */
    int pattern;
    double wait;
} cp_site_wait;

typedef struct cp_timings {
    cp_timing_row *rows;    /* sorted by communicator, then collective */
    size_t nrows;
    cp_site_wait *site_waits; /* rows' waiting per rank and call site, where known */
    size_t nsite_waits;
    bool barrier;           /* recorded in barrier mode */
    uint64_t naggregated;   /* over all rows */
    uint64_t nranks;        /* world size */
    char (*hosts)[256];     /* host names, by node index */
    size_t nhosts;
    int64_t *rank_node;     /* node index of each world rank (nranks) */
} cp_timings;

/* What waiting means in barrier mode, said wherever it is shown beside the
 * time in the calls. */
extern const char cp_reader_barrier_note[];

/* Analyse p->timings (wait states recomputed from the aligned enter/exit
 * times with the manifest's communicator members).  Returns 0, or -1 with
 * err set (no timings.cpt, no manifest, or out of memory). */
int cp_profile_timings(const cp_profile *p, cp_timings *out, cp_error *err);
void cp_timings_free(cp_timings *t);

/* ---- time per pattern (`collprof patterns`) ---- */

/* The recorded times of the calls that moved one send matrix: every (rank,
 * call) of timings.cpt's sample whose call is in the block's calls. */
typedef struct cp_pattern_time {
    const cp_block *b;        /* a send block of the profile */
    uint64_t instances;       /* (rank, call) pairs with their own times */
    uint64_t calls;           /* distinct calls among them */
    double min, median, max;  /* of exit - start, seconds (0 when none) */
    double wait;              /* their waiting time, every wait-state pattern */
    uint64_t wait_instances;  /* instances that waited */
} cp_pattern_time;

/* One entry per send block (none without timings.cpt or manifest).  Returns
 * 0, or -1 with err set (out of memory).  Free *out with free(). */
int cp_profile_pattern_times(const cp_profile *p, cp_pattern_time **out, size_t *n,
                             cp_error *err);
/* The entry of block b, or NULL. */
const cp_pattern_time *cp_pattern_time_find(const cp_pattern_time *t, size_t n,
                                            const cp_block *b);

/* The wait-state statistics of a profile merged from partial profiles (no
 * MPI_Finalize), as finalize keeps them for profile.stat, found by the
 * reader in the ranks' timed calls when the profile was loaded; their
 * instances' cnodes are those of the joined profile.cubex.  NULL for a
 * whole profile (its profile.stat is the file) and where there are none
 * (no timings). */
const cp_stat_file *cp_profile_partial_stat(const cp_profile *p);

/* ---- completing profile.cubex (`collprof complete`) ---- */

typedef struct cp_complete_stats {
    size_t regions, regions_done;     /* user regions; with their source lines */
    size_t callsites, callsites_done; /* MPI call sites; with their file and line */
    size_t changed; /* regions and call sites of modules rebuilt since the run
                       (build-id differs): left without lines */
} cp_complete_stats;

/* Add to dir/profile.cubex the source file, first and last line of each user
 * region and the file and line of each MPI call site (from the modules'
 * symbol and line tables, elfutils' libdwfl), and
 * write it back (atomically).  Regions that already have lines are kept.
 * A profile merged from partial profiles: its joined profile.cubex so
 * completed is written as dir/profile.cubex, and its wait-state statistics
 * (cp_profile_partial_stat) as dir/profile.stat.
 * Returns 0, or -1 with err set. */
int cp_profile_complete_cube(const cp_profile *p, cp_complete_stats *st, cp_error *err);

/* ---- each rank's run and its time in collectives (profile.cubex) ---- */

typedef struct cp_rank_time {
    double run;          /* seconds from MPI_Init to MPI_Finalize */
    double collectives;  /* of those, in its timed collectives (and barrier mode's barriers) */
    double waiting;      /* of those, waiting (every wait-state pattern) */
    char host[256];
} cp_rank_time;

/* One entry per world rank.  Returns 0, or -1 with err set (no
 * profile.cubex, no time metric, out of memory).  Free *out with free(). */
int cp_profile_rank_times(const cp_profile *p, cp_rank_time **out, size_t *n, cp_error *err);

/* ---- findings (`collprof summary`'s opening lines; docs/reader.md) ---- */

enum { CP_FINDING_TIME, CP_FINDING_WAITING, CP_FINDING_IMBALANCE, CP_FINDING_PATTERN,
       CP_FINDING_COVERAGE, CP_FINDING_SHARE, CP_FINDING_CALLSITE };
typedef struct cp_finding {
    int kind;        /* CP_FINDING_* */
    double cost;     /* seconds it explains (docs/reader.md, "Findings"); orders them */
    char text[512];  /* one line: "time: communicator 0 (4 ranks), Alltoallv: ..." */
} cp_finding;

/* Every finding, by the time each explains, then the run's share in
 * collectives, pattern facts, and what the profile leaves out last.
 * Returns 0, or -1 with err set.  Free *out with free(). */
int cp_profile_findings(const cp_profile *p, cp_finding **out, size_t *n, cp_error *err);

/* ---- two profiles side by side (`collprof diff A B`) ---- */

/* One distinct send matrix of a series, in A, in B or in both. */
typedef struct cp_diff_matrix {
    uint64_t fingerprint;     /* cp_block_fingerprint */
    const cp_block *block[2]; /* in A, in B; NULL where absent */
} cp_diff_matrix;

/* One (communicator, collective) of either profile. */
typedef struct cp_diff_series {
    int64_t comm;
    char collective[32];
    bool present[2];          /* in A's, B's summary */
    int64_t calls[2], bytes[2]; /* as `summary` counts them */
    double time[2], wait[2];  /* seconds (timings.cpt; 0 without) */
    cp_diff_matrix *matrices;
    size_t nmatrices;
    size_t both, added, gone; /* matrices in both, only in B, only in A */
} cp_diff_series;

/* One call site of either profile, matched by what names it in the code:
 * the functions of its call path, innermost first ("exchange < main"),
 * and where the call is ("test.c:46", or "app+0x1234" without a line). */
typedef struct cp_diff_site {
    char key[1024];
    bool present[2];
    uint64_t calls[2];        /* rank-calls (profile.cubex visits) */
    double time[2], wait[2];  /* seconds over all ranks */
} cp_diff_site;

typedef struct cp_diff {
    cp_diff_series *series;   /* by communicator id, then collective */
    size_t nseries;
    bool timed[2];            /* A, B had timings.cpt */
    cp_diff_site *sites;      /* by key; none where neither has call paths */
    size_t nsites;
    bool has_sites[2];        /* A, B had call paths and profile.cubex */
} cp_diff;

/* The same matrix, whatever the form and grouping of its rows and the
 * datatype size (counts compared in bytes): a hash over every rank's
 * non-zero (peer, bytes). */
uint64_t cp_block_fingerprint(const cp_block *b);
/* Series and matrices of a and b matched (communicators by id).  Returns 0,
 * or -1 with err set.  *out points into a and b. */
int cp_profile_diff(const cp_profile *a, const cp_profile *b, cp_diff *out, cp_error *err);
void cp_diff_free(cp_diff *d);

/* ---- call paths (`collprof callsites`, summary --callsite) ---- */

typedef struct cp_source_line {
    char file[1024];
    int64_t line;  /* -1: unknown (no module file, no debug information);
                      CP_LINE_CHANGED: the module file is not the build that
                      ran (its build-id differs): its lines are not shown */
} cp_source_line;
#define CP_LINE_CHANGED (-2)

/* File and line of each call site (return address) of a module, from its
 * debug information (elfutils' libdwfl) when the module is there.  out[i] is
 * {"", -1} where unknown.  Returns 0, or -1 when out of memory. */
int cp_reader_symbolize(const char *module, const uint64_t *addresses, size_t n,
                        cp_source_line *out);
/* Where each function of names[0..n) is in the source: the file and line
 * of its first instruction (begin[i]) and the line of its last (end[i]), from
 * the module's symbol table and debug information (elfutils' libdwfl);
 * {"", -1} and -1 where unknown.  Returns 0, or -1 when out of memory. */
int cp_reader_function_lines(const char *module, const char *const *names, size_t n,
                             cp_source_line *begin, int64_t *end);

/* One call path that issued collective calls: its innermost node of the
 * manifest's call tree, and what it cost over all ranks (profile.cubex). */
typedef struct cp_callsite_row {
    int64_t id;                  /* call-tree id (manifest, "Callsites:" lines) */
    const cp_callsite_node *node;
    cp_source_line source;       /* of the call of the MPI function */
    char collectives[256];       /* "Allreduce, Bcast" */
    uint64_t calls;              /* rank-calls (visits over all ranks) */
    uint64_t bytes_sent;
    double time;                 /* seconds (0 without timing) */
    double waiting;              /* seconds of every wait-state pattern in those calls */
} cp_callsite_row;

/* Every call path of dir/profile.cubex, by call-tree id (joined with
 * cp_cube_callsite_of).  Returns 0, or -1 with err set. */
int cp_profile_callsites(const cp_profile *p, bool lines, cp_callsite_row **rows, size_t *nrows,
                         cp_error *err);

/* For each cnode of c (p's profile.cubex), the call site it stands for: the
 * manifest call-tree id of an MPI cnode's call, -1 for the other cnodes and
 * for MPI cnodes called from no known path.  In the Cube a function is one
 * node however many lines in it call MPI; each MPI cnode below it is one
 * call site (docs/formats.md, "Call tree").  malloc'ed (c->ncnodes
 * entries), or NULL with err set when the two files disagree. */
int64_t *cp_cube_callsite_of(const cp_profile *p, const cp_cube *c, cp_error *err);

/* The file name without its directory. */
const char *cp_reader_basename(const char *path);

/* A duration (or a difference of two, with its sign) in the unit that
 * shows it: "2.000 s", "1.250 ms", "0.523 us" (micro: "us" in text, "µs"
 * in HTML).  Returns buf. */
const char *cp_reader_duration(double s, const char *micro, char *buf, size_t size);

/* How a call site is named, the same in every command and the report.  Its
 * call path from the innermost frame: "f_one < main < __libc_start_main",
 * a frame without a name as its address (addresses) or "?" (which matches
 * across two builds).  Cut to fit size. */
void cp_callsite_path(const cp_manifest *m, int64_t id, bool addresses, char *buf, size_t size);
/* Where its call is: "file:line" (full_path: the file as recorded, else its
 * base name), or without a line "module+0xADDR" (the module's base name: an
 * address in the module, never an offset into the function named beside
 * it).  A caller says that the module was rebuilt since the run when
 * source.line is CP_LINE_CHANGED. */
void cp_callsite_where(const cp_callsite_row *r, bool full_path, char *buf, size_t size);

/* The file and line of each of rows[0..n) (what lines=true gives), for a
 * few rows picked from a list made without them.  0, or -1 (out of memory). */
int cp_callsite_rows_lines(const cp_profile *p, cp_callsite_row *rows, size_t n);

/* Keep only the blocks whose calls were issued (on some rank) from call path
 * id, and drop the timings, which are not per call path.  Returns 0, or -1
 * with err set (no call tree, no such id). */
int cp_profile_keep_callsite(cp_profile *p, int64_t id, cp_error *err);

#ifdef __cplusplus
}
#endif
#endif
