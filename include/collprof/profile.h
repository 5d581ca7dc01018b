/*
 * collprof profile model: the one set of structs that the runtime hands to
 * the writers and that every parser returns.  Write, parse back, compare
 * equal: that is the round-trip test of each format.
 *
 * Nothing here knows MPI.  Ranks are plain integers: communicator-local in
 * rows, world ranks in communicator membership lists.
 */
#ifndef COLLPROF_PROFILE_H
#define COLLPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the compact counts format written by this collprof: 2 adds the
 * "Callsites:" line, 3 strided call lists ("0-999968/32": a cycle of calls
 * costs one item), 4 the "Invalid:" line of blocks whose calls passed
 * arguments MPI refuses (a negative count, kept as passed), 5 sparse and
 * rank-relative rows ("Rank(s) 1-98: relative -1=8 +1=8"); a file is
 * written in the lowest version that carries it, so that older readers read
 * what they can. */
#define CP_COUNTS_FORMAT_VERSION 6
/* Version of manifest.json written by this collprof. */
#define CP_MANIFEST_FORMAT_VERSION 2

/* ------------------------------------------------------------------ errors */

/* Every parser and writer reports failure through one of these: a complete
 * human-readable message, "file:line: what was expected" for parsers. */
typedef struct cp_error {
    char msg[1024];
} cp_error;

/* printf into err->msg (err may be NULL).  Always returns -1 so that callers
 * can write `return cp_error_set(err, ...);`. */
int cp_error_set(cp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "<where>: <item> <index> (<name>): <why>", why from fmt and ap, name cut
 * at name_max bytes: what a writer refuses in the index-th item of a file
 * ("profile.stat: pattern 3 (mpi_latebroadcast): ...").  Returns -1. */
int cp_error_item(cp_error *err, const char *where, const char *item, size_t index,
                  const char *name, size_t name_max, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

/* ------------------------------------------------------------ range lists */

/* A list of non-negative integers as closed intervals: the "0-5,7,9-12" of
 * the text formats.  Two uses:
 *  - a SET (call indices, the ranks of a row): kept sorted, disjoint and
 *    non-adjacent by cp_ranges_add / cp_ranges_add_range;
 *  - an ORDERED LIST (a communicator's members as world ranks, in
 *    communicator rank order): built by cp_ranges_push, which extends the
 *    last interval when value == last.hi + 1 and otherwise appends, so
 *    "4,2,0" stays in that order.
 * A third, written by finalize's merge only (cp_ranges_add_strided): the
 * calls of a block as ARITHMETIC PROGRESSIONS lo, lo+step, ..., hi, items
 * in increasing order of lo, which may interleave (a matrix that recurs
 * twice in a cycle) but never share a value; the count files write them as
 * "lo-hi/step" (format version 3), and the parser reads them back as a
 * plain set.  count and equal handle every kind; the others expect sets. */
typedef struct cp_range {
    int64_t lo, hi; /* lo <= hi */
    int64_t step;   /* 0 or 1: every integer; >= 2: lo, lo+step, ..., hi */
} cp_range;

typedef struct cp_ranges {
    cp_range *v;
    size_t n, cap;
} cp_ranges;

/* Add one value / one interval, keeping the set normalised.  Appending in
 * increasing order is O(1) amortised.  Return 0, or -1 on allocation failure
 * (and on a negative value or lo > hi, with errno EINVAL).
 * A zero-initialised cp_ranges is an empty list. */
int cp_ranges_add(cp_ranges *r, int64_t value);
int cp_ranges_add_range(cp_ranges *r, int64_t lo, int64_t hi);
/* Ordered-list append (see above). */
int cp_ranges_push(cp_ranges *r, int64_t value);
/* Progression append (see above): lo must exceed every value of the list's
 * item with the highest lo; (hi - lo) a multiple of step.  Joins a
 * progression that the list's last item continues.  Returns 0, or -1 on
 * allocation failure or invalid arguments (errno EINVAL). */
int cp_ranges_add_strided(cp_ranges *r, int64_t lo, int64_t hi, int64_t step);
/* Does any item have a step of 2 or more? */
bool cp_ranges_strided(const cp_ranges *r);
/* Replace every progression by its values, one interval each, in place (the
 * order of items is kept).  Returns how many progressions were replaced, or
 * -1 when they hold more than max values (errno E2BIG) or memory ran out
 * (ENOMEM); r is then unchanged. */
int cp_ranges_unstride(cp_ranges *r, int64_t max);
/* Make a list of plain intervals in any order a SET: sort, then merge
 * overlapping and adjacent intervals.  With no_overlap, intervals that share
 * a value are refused: -1, errno EEXIST (r then sorted, not merged). */
int cp_ranges_normalise(cp_ranges *r, bool no_overlap);
/* Set union, acc |= b, both sets: one linear merge (O(n + m)), however
 * they interleave.  0, or -1 (ENOMEM; acc unchanged). */
int cp_ranges_union(cp_ranges *acc, const cp_ranges *b);
/* Append b's items to acc as they are: to unite many sets, append them all,
 * then cp_ranges_normalise once (O(N log N) in all).  0, or -1 (ENOMEM). */
int cp_ranges_append(cp_ranges *acc, const cp_ranges *b);
/* For sets only (binary search). */
bool cp_ranges_contains(const cp_ranges *r, int64_t value);
/* The i-th integer in list order (0-based), or -1 when i is out of range. */
int64_t cp_ranges_nth(const cp_ranges *r, int64_t i);
/* Position of value in list order, or -1 (linear; for ordered lists). */
int64_t cp_ranges_index_of(const cp_ranges *r, int64_t value);
/* Number of integers in the set. */
int64_t cp_ranges_count(const cp_ranges *r);
/* Same intervals in the same order; a list with progressions equals any
 * list of the same integers. */
bool cp_ranges_equal(const cp_ranges *a, const cp_ranges *b);
/* Deep copy.  dst is overwritten WITHOUT being freed first (so that a struct
 * copied with `*x = *y` can then get its own lists): pass an empty or
 * uninitialised dst.  Returns 0, or -1 on allocation failure. */
int cp_ranges_copy(cp_ranges *dst, const cp_ranges *src);
/* Release the intervals; r becomes an empty list (NULL is allowed). */
void cp_ranges_free(cp_ranges *r);

/* ------------------------------------------------------------- count data */

enum cp_direction { CP_SEND = 0, CP_RECV = 1 };

/* How a row holds its values (counts format version 5 adds the last two,
 * so that a matrix of 100,000 ranks that each talk to a few peers takes a
 * few lines, not 10^10 numbers):
 *  DENSE     counts[j] towards peer j, for every j < len;
 *  SPARSE    only the non-zero values: counts[i] towards peer peers[i];
 *  RELATIVE  the same with peers[i] an offset from the rank itself: rank r
 *            sends counts[i] to peer r + peers[i].  One such row stands for
 *            every rank of a stencil ("Rank(s) 1-99998: relative -1=8 +1=8").
 * peers[] is strictly increasing, every counts[i] non-zero. */
enum cp_row_form { CP_ROW_DENSE = 0, CP_ROW_SPARSE = 1, CP_ROW_RELATIVE = 2 };

/* One line "Rank(s) <ranges>: c0 c1 ...": the ranks (communicator-local)
 * that passed exactly this count vector (or, RELATIVE, this pattern of
 * offsets). */
typedef struct cp_row {
    cp_ranges ranks;
    int64_t *counts; /* DENSE: len values; SPARSE, RELATIVE: nnz values */
    size_t len;      /* peers addressed: the block's row_len, except in
                        neighbourhood collectives, where each rank's row has
                        its own degree */
    int form;        /* enum cp_row_form */
    int64_t *peers;  /* SPARSE: peers; RELATIVE: offsets; NULL when DENSE */
    size_t nnz;      /* SPARSE, RELATIVE: values held */
    int32_t err;     /* the MPI library refused these ranks' calls: the error
                        class (code of writers/mpi_names.h; the file's
                        "Failed:" line, version 6); the counts are as passed,
                        nothing was moved.  0: carried out */
} cp_row;

/* The values a row holds, whatever its form, as items (peer, count): every
 * peer of a dense row (zeros included), the listed ones of the others.
 * cp_row_item gives item i of the row as rank `rank` passed it: its peer
 * (returned) and count. */
size_t cp_row_nitems(const cp_row *r);
int64_t cp_row_item(const cp_row *r, int64_t rank, size_t i, int64_t *count);
/* Count of rank `rank` (one of the row's ranks) towards `peer`: 0 when a
 * sparse or relative row does not list it, or peer >= len. */
int64_t cp_row_value(const cp_row *r, int64_t rank, size_t peer);
/* Sum of the row's values (the same for each of its ranks). */
int64_t cp_row_sum(const cp_row *r);

/* One block of a compact counts file: one distinct count matrix of one
 * (communicator, collective), and the calls that moved exactly it. */
typedef struct cp_block {
    int64_t comm_id;           /* -1: the file does not name it (other tools' dialect) */
    int64_t comm_size;         /* from the Communicator: line; -1 when absent */
    cp_ranges comm_world_ranks; /* ORDERED list: world rank of each communicator
                                   rank; empty when absent */
    char collective[32];       /* "Alltoallv", as written in "<Collective> calls" */
    int64_t root;              /* communicator-local root, -1 when not rooted */
    int64_t nranks;            /* "Number of ranks" */
    int64_t dtsize;            /* "Datatype size" in bytes */
    bool counts_in_bytes;      /* "Datatype size: 1 (bytes)": mixed datatypes */
    bool invalid;              /* "Invalid: negative count" (version 4): the calls
                                  passed a negative count, kept as passed; the MPI
                                  library refuses such a call, it moves nothing.
                                  The writer sets the line for any block with a
                                  negative count. */
    cp_ranges all_calls;       /* "<Collective> calls A-B" */
    cp_ranges calls;           /* "Count: K calls - L" */
    cp_ranges callsites;       /* "Callsites: L": call-tree ids (manifest) of the call
                                  paths that issued these calls, a set; empty when
                                  call paths were not recorded */
    size_t row_len;            /* peers addressed per row (the largest row when rows
                                  may differ: see cp_collective_rows_vary) */
    cp_row *rows;
    size_t nrows;
} cp_block;

/* One parsed or to-be-written counts file. */
typedef struct cp_counts_file {
    int version;       /* CP_COUNTS_FORMAT_VERSION, or 0 for other tools' dialect */
    int direction;     /* enum cp_direction (from the file name when parsed) */
    int64_t lead_rank; /* world rank that wrote it (file name), -1 if unknown */
    char path[4096];   /* where it was read from / written to */
    cp_block *blocks;
    size_t nblocks;
} cp_counts_file;

/* Has the block rows of calls the MPI library refused (row err)? */
bool cp_block_has_failed(const cp_block *b);

/* An empty block: everything zero, comm_id, comm_size and root -1. */
void cp_block_init(cp_block *b);
/* Release everything the block owns and re-initialise it (cp_block_init). */
void cp_block_free(cp_block *b);
/* Neighbourhood collectives ("Neighbor_..."): each rank's row addresses its
 * own neighbours, so rows of one block may differ in length. */
bool cp_collective_rows_vary(const char *collective);
/* Collectives whose single count (a row of length 1) is an amount for each
 * peer: Alltoall, Allgather(v), Reduce_scatter_block, Scatter, and the
 * neighbourhood allgathers and Alltoall.  Other single counts are one
 * contribution (a reduction's, a Bcast buffer, a Gather item).
 * Case-insensitive. */
bool cp_collective_single_count_per_peer(const char *collective);
/* Free every block; f->blocks becomes NULL, the other fields are kept. */
void cp_counts_file_free(cp_counts_file *f);
/* Deep equality, used by the round-trip tests and by `collprof check`.
 * Structural: rows are compared in their stored order and form. */
bool cp_block_equal(const cp_block *a, const cp_block *b);
/* Count of rank r (communicator-local) towards peer p, or -1 when rank r has
 * no row in this block (or p >= row_len). */
int64_t cp_block_count(const cp_block *b, int64_t rank, size_t peer);
/* The row of rank r, or NULL. */
const cp_row *cp_block_row(const cp_block *b, int64_t rank);
/* Rewrite a block's rows, DENSE or SPARSE, in the form that takes the
 * fewest numbers: as they are, SPARSE where a row is mostly zeros, or
 * regrouped as RELATIVE rows when ranks that differ in their peers agree in
 * their offsets (a stencil: halo exchanges, shifts).  Neighbourhood
 * collectives, rows of one count and RELATIVE rows already there (then
 * the others are not regrouped) stay as they are.  The matrix is
 * unchanged.  Returns 0, or -1 when memory ran out (the matrix still the
 * same, some rows perhaps rewritten). */
int cp_block_compact_rows(cp_block *b);
/* Every row DENSE (counts format versions 1-4, for tools that read only
 * those): a SPARSE row in place, a RELATIVE row as one row per rank.
 * Returns 0, or -1 when memory ran out (the block is then not usable). */
int cp_block_dense_rows(cp_block *b);

/* -------------------------------------------------------------- manifest */

/* One rank's neighbours in a topology communicator, as communicator ranks in
 * the order neighbourhood collectives use them (-1: MPI_PROC_NULL). */
typedef struct cp_neighbors {
    int64_t *sources, *destinations;
    size_t nsources, ndestinations;
} cp_neighbors;

/* What a complete profile holds of one (communicator, collective): its
 * calls and the blocks of its count files (manifest.json "series", format
 * 2), so that a reader names a block that is lost. */
typedef struct cp_series_info {
    char collective[32];
    int64_t calls;     /* numbered calls (recorded or not) */
    int64_t blocks[2]; /* blocks in the lead's send and receive files */
} cp_series_info;

typedef struct cp_comm_info {
    int64_t id;
    int64_t size;
    int64_t lead;      /* world rank of communicator rank 0 */
    cp_ranges members; /* ORDERED list: world rank of each communicator rank */
    /* Intercommunicators only (empty otherwise): the remote group's world
     * ranks in its rank order.  Each group of an intercommunicator is its
     * own entry, led and written by its own lead; rows address the remote
     * group. */
    cp_ranges remote_members;
    /* Topology communicators only (NULL otherwise): size entries, one per
     * communicator rank, so that neighbourhood rows can be placed. */
    cp_neighbors *neighbors;
    cp_series_info *series; /* format 2; empty in older manifests */
    size_t nseries;
} cp_comm_info;

typedef struct cp_kv {
    char *key, *value;
} cp_kv;

/* Append copies of key and value to the list (*v, *n).  Returns 0, or -1
 * when out of memory (the list is unchanged). */
int cp_kv_add(cp_kv **v, size_t *n, const char *key, const char *value);
/* Free the list's strings and the list (v may be NULL). */
void cp_kv_free(cp_kv *v, size_t n);
/* The value of the first entry with this key, or NULL. */
const char *cp_kv_get(const cp_kv *v, size_t n, const char *key);

/* One frame of the job's call tree (callsite collector): a call site in a
 * function of a module.  Its parent is the frame that called that function;
 * a path from an outermost frame down to an innermost one is a call path,
 * named by the id (index) of its innermost node. */
typedef struct cp_callsite_node {
    int64_t parent;     /* index of the caller's node, -1 for an outermost frame;
                           nodes are in depth-first pre-order: parent < index */
    char function[256]; /* "" when the symbol table did not say */
    char module[1024];  /* path of the executable or shared object */
    uint64_t address;   /* return address in the module (addr2line -e module
                           takes address - 1 for the line of the call) */
    char file[1024];    /* source file of the call, resolved at the end of the
                           run against the module that ran; "" unknown */
    int64_t line;       /* its line; 0 unknown */
} cp_callsite_node;

/* How the calls of a run were stamped (manifest.json "clock"; absent when
 * nothing was timed).  Integers, so that the file round-trips exactly. */
typedef struct cp_clock_info {
    char source[16];         /* "tsc", "monotonic", or "mixed" when ranks differed */
    int64_t tsc_ranks;       /* ranks that stamped with the time-stamp counter */
    int64_t tsc_hz;          /* world rank 0's counter rate calibrated at start; 0 without */
    int64_t max_drift_ppm;   /* largest |rate over the run / calibration - 1|, ppm */
    int64_t drift_bound_ppm; /* beyond it a counter is taken as uneven (note says so) */
    char note[256];          /* why not the counter, or which ranks drifted; "" */
} cp_clock_info;

typedef struct cp_manifest {
    int format_version;        /* CP_MANIFEST_FORMAT_VERSION */
    int counts_format_version; /* CP_COUNTS_FORMAT_VERSION */
    char collprof_version[64];
    char mpi_version[512];
    char job[256];
    char start_time[32];       /* "YYYY-mm-ddTHH:MM:SS" local time of MPI_Init */
    int64_t world_size;
    bool partial;              /* written by the destructor: MPI_Finalize never came */
    char partial_reason[256];
    /* One rank's partial profile (optional "state"; has_state): when its
     * state was taken (local time, "YYYY-mm-ddTHH:MM:SS"), whether it is a
     * periodic snapshot of a run that was still recording (COLLPROF_SNAPSHOT)
     * rather than written as the process ended, and which process (world
     * rank, pid, host) it was. */
    bool has_state;
    struct {
        char at[32];
        bool snapshot;
        int64_t rank;
        int64_t pid;
        char host[256];
    } state;
    cp_kv *config;             /* effective COLLPROF_* settings */
    size_t nconfig;
    cp_comm_info *comms;
    size_t ncomms;
    char **files;              /* file names relative to the output directory */
    size_t nfiles;
    /* Per file (format 2; NULL in older manifests): its size in bytes and
     * its CRC-32 (zlib's), -1 when not recorded (manifest.json itself), for
     * files 0 .. nfile_info-1 (files appended after them: not recorded).
     * Read them with cp_manifest_file_bytes / _crc. */
    int64_t *file_bytes, *file_crc;
    size_t nfile_info;
    cp_kv *missing;            /* files that could not be written: name -> why */
    size_t nmissing;
    /* Series whose ranks disagree on their calls (an erroneous program, a
     * call refused on some ranks only): "communicator 1, Bcast" -> what
     * each rank made, and what was left out for it. */
    cp_kv *disagreements;
    size_t ndisagreements;
    cp_callsite_node *call_tree; /* empty when call paths were not recorded */
    size_t ncall_tree;
    /* The modules of the call tree: path -> GNU build-id (hex, "" when the
     * module has none), format 2; lines are looked up only in a file of
     * that build. */
    cp_kv *modules;
    size_t nmodules;
    bool has_clock;            /* the "clock" key: calls were timed */
    cp_clock_info clock;
} cp_manifest;

void cp_manifest_free(cp_manifest *m);
/* Free n entries of neighbour lists and the array (NULL allowed). */
void cp_neighbors_free(cp_neighbors *nb, int64_t n);
bool cp_manifest_equal(const cp_manifest *a, const cp_manifest *b);
/* File i's size and CRC-32 as the manifest records them; -1: not recorded. */
int64_t cp_manifest_file_bytes(const cp_manifest *m, size_t i);
int64_t cp_manifest_file_crc(const cp_manifest *m, size_t i);


/* ------------------------------------------- wait-state statistics (.stat) */

/* Version of timings.cpt written by this collprof (major.minor.patch of the
 * layout, DESIGN §7).  profile.stat and profile.cubex follow Cube's own
 * layouts and carry no version of ours. */
#define CP_CPT_VERSION_MAJOR 5 /* 2: per series the sample's stride, the tick and
                                  the histogram of every call's duration;
                                  3: per series its call sites' exact time
                                  and calls, per kept call its site (the
                                  strata of the waiting estimate);
                                  4: each site's call path and form;
                                  5: the payload's columns as differences
                                  in byte planes; 1.x to 4.x files are
                                  still read */
#define CP_CPT_VERSION_MINOR 0
#define CP_CPT_VERSION_PATCH 0

/* At most this many instances are listed per pattern in profile.stat. */
#define CP_STAT_MAX_EVENTS 5

/* The two layouts of profile.stat: what CubeGUI's statistics plugin parses
 * (and Scalasca writes), and the variant its user guide documents (a MetricID
 * column after the name, event lines without "rank:"). */
enum cp_stat_layout { CP_STAT_LAYOUT_CUBEGUI = 0, CP_STAT_LAYOUT_DOCUMENTED = 1 };

/* One instance of a pattern: one rank's wait in one call. */
typedef struct cp_stat_event {
    int64_t cnode;   /* call-tree id in profile.cubex */
    double enter, exit; /* seconds from the run's start */
    double duration; /* severity: the waiting time */
    int64_t rank;    /* world rank; -1 when the file does not say (documented layout) */
} cp_stat_event;

/* One pattern (a Cube metric) and the statistics of its instances'
 * severities.  variance is meaningful when count >= 2, the quartiles when
 * count >= 5 (the file carries them only then; otherwise they are 0). */
typedef struct cp_stat_pattern {
    char name[64];      /* the Cube metric's unique name, e.g. "mpi_wait_nxn" */
    int64_t metric_id;  /* documented layout: the MetricID column; else -1 */
    uint64_t count;
    double mean, median, minimum, maximum, sum, variance, q25, q75;
    cp_stat_event events[CP_STAT_MAX_EVENTS]; /* most severe first */
    size_t nevents;
} cp_stat_pattern;

typedef struct cp_stat_file {
    int layout; /* enum cp_stat_layout */
    cp_stat_pattern *patterns;
    size_t npatterns;
} cp_stat_file;

void cp_stat_file_free(cp_stat_file *s);

/* ------------------------------------------------ Cube profile (.cubex) */

typedef enum cp_cube_dtype { CP_CUBE_DOUBLE = 0, CP_CUBE_UINT64 = 1 } cp_cube_dtype;

typedef struct cp_cube_metric {
    char uniq_name[64];  /* "time", "mpi_wait_nxn", ... */
    char disp_name[128];
    cp_cube_dtype dtype;
    char uom[16];        /* "sec", "occ", "bytes" */
    char url[256];
    char descr[512];
    /* The uniq_name of the metric it is part of (an earlier metric), "" for
     * a root of the metric tree.  Values are stored inclusive along the
     * metric tree, as Cube stores them: a parent's value includes its
     * children's; what is its own alone is cp_cube_get_excl. */
    char parent[64];
} cp_cube_metric;

typedef struct cp_cube_region {
    char name[256];
    char mangled_name[256];
    char mod[1024];      /* module (file) it belongs to; "" when unknown */
    int64_t begin, end;  /* source lines, -1 when unknown */
    char paradigm[16];   /* "mpi", "user", "measurement" */
    char role[32];       /* "function", "collective", "artificial" */
    char url[256];
    char descr[512];
} cp_cube_region;

/* Call-tree node.  Nodes are stored in depth-first pre-order and a node's id
 * is its index: the root is 0, a node's children follow it. */
typedef struct cp_cube_cnode {
    int64_t region; /* index into regions (the callee) */
    int64_t parent; /* -1 for a root */
    int64_t line;   /* call site line, -1 when unknown */
    char mod[1024]; /* call site module, "" when unknown */
} cp_cube_cnode;

/* System tree: one machine -> hosts (nodes) -> one process per rank -> one
 * thread.  Location i is world rank i. */
typedef struct cp_cube_host {
    char name[256];
} cp_cube_host;

typedef struct cp_cube {
    char machine[256];
    cp_kv *attrs;            /* <attr key value/> of the anchor */
    size_t nattrs;
    cp_cube_metric *metrics;
    size_t nmetrics;
    cp_cube_region *regions;
    size_t nregions;
    cp_cube_cnode *cnodes;
    size_t ncnodes;
    cp_cube_host *hosts;
    size_t nhosts;
    int64_t *location_host;  /* nlocations entries: host index of each rank */
    size_t nlocations;
    int64_t first_rank;      /* location l is world rank first_rank + l: 0 for a
                                whole job, R for rank R's own partial profile */
    /* Severities: for metric m, cnode c, location l the value is
     * values[m][c * nlocations + l]; read as uint64_t for UINT64 metrics
     * (the array holds either doubles or uint64_t, by the metric's dtype). */
    void **values;
    bool finished;           /* the tree is numbered (with or without values) */
} cp_cube;

void cp_cube_free(cp_cube *c);
/* Value accessors (m, c, l within bounds). */
double cp_cube_get_double(const cp_cube *c, size_t m, size_t cnode, size_t loc);
/* A DOUBLE metric's own value, its children's in the metric tree taken
 * out (what Cube shows for an expanded metric). */
double cp_cube_get_excl(const cp_cube *c, size_t m, size_t cnode, size_t loc);
uint64_t cp_cube_get_u64(const cp_cube *c, size_t m, size_t cnode, size_t loc);

/* -------------------------------------------------- raw timings (.cpt) */

/* Which collectors contributed (the header's flags byte). */
enum cp_cpt_flag {
    CP_CPT_COUNTS = 1u << 0,
    CP_CPT_TIMING = 1u << 1,
    CP_CPT_CALLSITE = 1u << 2,
    CP_CPT_LOCATION = 1u << 3,
    CP_CPT_BARRIER = 1u << 4 /* timing in barrier mode: start differs from enter */
};

/* Per-call flags of a series. */
enum cp_cpt_call_flag {
    CP_CPT_NONBLOCKING = 1u << 0, /* I... or a persistent Start: the time of the
                                     initiating call only */
    CP_CPT_FAILED = 1u << 1       /* the MPI library refused the call: it moved
                                     nothing, and has no wait states */
};

/* One rank's timed calls of one (communicator, collective), in call order.
 * Times are seconds from the run's start, aligned to world rank 0's clock. */
typedef struct cp_cpt_series {
    int64_t comm_id;
    char collective[32];
    uint64_t naggregated; /* calls past COLLPROF_TIMING_MAX_CALLS: in the
                             aggregates only, not in these arrays */
    double agg_time;      /* their summed time (exit - start) */
    /* Version 2 (0 / empty in version 1 files): the calls kept are those whose
     * index is a multiple of `stride`; hist[i] timed calls of the whole run
     * took between the bounds of quarter-octave bucket hist_lo + i (in
     * ticks of `tick` seconds; collectors/timing.h). */
#define CP_CPT_HIST_BUCKETS 160 /* = CP_TIMING_HIST_N */
    uint64_t stride;
    double tick;
    uint32_t hist_lo, hist_n;
    uint32_t *hist;
    uint64_t n;
    uint64_t *call;       /* call index */
    double *enter;        /* arrival in the wrapper */
    double *start;        /* start of the MPI call proper (after the barrier in
                             barrier mode; == enter otherwise) */
    double *exit;
    int32_t *root;        /* communicator-local root, -1 when not rooted */
    uint8_t *flags;       /* enum cp_cpt_call_flag */
    /* Version 3 (0 / NULL before): the series' call sites on this rank (the
     * strata of the whole-run waiting estimate, model/wait_states.h:
     * cp_wait_factor): each one's exact time in the call (exit - start, s)
     * and number of timed calls; site[i] is kept call i's site.  nsites 0:
     * one stratum, the whole series. */
    uint32_t nsites;
    double *site_time;
    uint64_t *site_calls;
    uint32_t *site;
    /* Version 4 (NULL before): each site's call path (the manifest's
     * call-tree id, 0xffffffff: none) and form (enum cp_form). */
    uint32_t *site_path, *site_form;
    /* Not NULL: every array above lies in this one allocation (the writer
     * makes one per series); NULL: each is its own (the parser's). */
    void *block;
} cp_cpt_series;

/* Job-wide aggregates, held in world rank 0's chunk. */
typedef struct cp_cpt_coll_stat {
    char collective[32];
    uint64_t calls;        /* timed calls over all ranks (arrays + aggregated) */
    double min, avg, max;  /* seconds per call (exit - start) */
} cp_cpt_coll_stat;

typedef struct cp_cpt_slow {
    char collective[32];
    int64_t comm_id;
    uint64_t call;
    int64_t rank;          /* world rank */
    double duration;
} cp_cpt_slow;

typedef struct cp_cpt_aggregates {
    char start_time[32], end_time[32]; /* "YYYY-mm-ddTHH:MM:SS" */
    cp_cpt_coll_stat *colls;
    size_t ncolls;
    cp_cpt_slow *slowest;  /* slowest instances, slowest first */
    size_t nslowest;
} cp_cpt_aggregates;

typedef struct cp_cpt_chunk {
    int64_t rank;          /* world rank (the chunk's position) */
    char hostname[256];
    int32_t core, pid;
    uint32_t node;         /* node index: hosts numbered in order of their lowest rank */
    bool has_aggregates;   /* world rank 0's chunk */
    cp_cpt_aggregates agg;
    cp_cpt_series *series;
    size_t nseries;
    bool missing;          /* not in any file: the reader's mark of a rank that
                              left no timings (merged partial profiles) */
} cp_cpt_chunk;

typedef struct cp_cpt_file {
    uint32_t version[3];   /* major, minor, patch */
    char git_hash[41];
    char mode[512];        /* MPI library version string */
    uint8_t flags;         /* enum cp_cpt_flag */
    uint64_t world_size;
    cp_cpt_chunk *chunks;  /* world_size chunks, chunk i of rank i */
} cp_cpt_file;

void cp_cpt_series_free(cp_cpt_series *s);
void cp_cpt_chunk_free(cp_cpt_chunk *c);
void cp_cpt_file_free(cp_cpt_file *f);

#ifdef __cplusplus
}
#endif
#endif
