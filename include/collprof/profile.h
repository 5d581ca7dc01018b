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
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the compact counts format written by this collprof. */
#define CP_COUNTS_FORMAT_VERSION 1
/* Version of manifest.json written by this collprof. */
#define CP_MANIFEST_FORMAT_VERSION 1

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

/* ------------------------------------------------------------ range lists */

/* A list of non-negative integers as closed intervals: the "0-5,7,9-12" of
 * the text formats.  Two uses:
 *  - a SET (call indices, the ranks of a row): kept sorted, disjoint and
 *    non-adjacent by cp_ranges_add / cp_ranges_add_range;
 *  - an ORDERED LIST (a communicator's members as world ranks, in
 *    communicator rank order): built by cp_ranges_push, which extends the
 *    last interval when value == last.hi + 1 and otherwise appends, so
 *    "4,2,0" stays in that order. */
typedef struct cp_range {
    int64_t lo, hi; /* lo <= hi */
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
/* For sets only (binary search). */
bool cp_ranges_contains(const cp_ranges *r, int64_t value);
/* The i-th integer in list order (0-based), or -1 when i is out of range. */
int64_t cp_ranges_nth(const cp_ranges *r, int64_t i);
/* Position of value in list order, or -1 (linear; for ordered lists). */
int64_t cp_ranges_index_of(const cp_ranges *r, int64_t value);
/* Number of integers in the set. */
int64_t cp_ranges_count(const cp_ranges *r);
/* Same intervals in the same order. */
bool cp_ranges_equal(const cp_ranges *a, const cp_ranges *b);
/* Deep copy.  dst is overwritten WITHOUT being freed first (so that a struct
 * copied with `*x = *y` can then get its own lists): pass an empty or
 * uninitialised dst.  Returns 0, or -1 on allocation failure. */
int cp_ranges_copy(cp_ranges *dst, const cp_ranges *src);
/* Release the intervals; r becomes an empty list (NULL is allowed). */
void cp_ranges_free(cp_ranges *r);

/* ------------------------------------------------------------- count data */

enum cp_direction { CP_SEND = 0, CP_RECV = 1 };

/* One line "Rank(s) <ranges>: c0 c1 ...": the ranks (communicator-local)
 * that passed exactly this count vector. */
typedef struct cp_row {
    cp_ranges ranks;
    int64_t *counts; /* len values */
    size_t len;      /* the block's row_len, except in neighbourhood collectives,
                        where each rank's row has its own degree */
} cp_row;

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
    cp_ranges all_calls;       /* "<Collective> calls A-B" */
    cp_ranges calls;           /* "Count: K calls - L" */
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

/* An empty block: everything zero, comm_id, comm_size and root -1. */
void cp_block_init(cp_block *b);
/* Release everything the block owns and re-initialise it (cp_block_init). */
void cp_block_free(cp_block *b);
/* Neighbourhood collectives ("Neighbor_..."): each rank's row addresses its
 * own neighbours, so rows of one block may differ in length. */
bool cp_collective_rows_vary(const char *collective);
/* Free every block; f->blocks becomes NULL, the other fields are kept. */
void cp_counts_file_free(cp_counts_file *f);
/* Deep equality, used by the round-trip tests and by `collprof check`.
 * Structural: rows are compared in their stored order. */
bool cp_block_equal(const cp_block *a, const cp_block *b);
/* Count of rank r (communicator-local) towards peer p, or -1 when rank r has
 * no row in this block (or p >= row_len). */
int64_t cp_block_count(const cp_block *b, int64_t rank, size_t peer);
/* The row of rank r, or NULL. */
const cp_row *cp_block_row(const cp_block *b, int64_t rank);

/* -------------------------------------------------------------- manifest */

/* One rank's neighbours in a topology communicator, as communicator ranks in
 * the order neighbourhood collectives use them (-1: MPI_PROC_NULL). */
typedef struct cp_neighbors {
    int64_t *sources, *destinations;
    size_t nsources, ndestinations;
} cp_neighbors;

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
} cp_comm_info;

typedef struct cp_kv {
    char *key, *value;
} cp_kv;

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
    cp_kv *config;             /* effective COLLPROF_* settings */
    size_t nconfig;
    cp_comm_info *comms;
    size_t ncomms;
    char **files;              /* file names relative to the output directory */
    size_t nfiles;
} cp_manifest;

void cp_manifest_free(cp_manifest *m);
/* Free n entries of neighbour lists and the array (NULL allowed). */
void cp_neighbors_free(cp_neighbors *nb, int64_t n);
bool cp_manifest_equal(const cp_manifest *a, const cp_manifest *b);

#ifdef __cplusplus
}
#endif
#endif
