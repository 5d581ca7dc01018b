/*
 * Finalize, internal: the state its stages share and the stages
 * themselves.  finalize.c is the driver (the table of stages, in order);
 * finalize_fin.c the helpers of the shared state; one file per stage
 * (finalize_callsites.c, finalize_exchange.c, finalize_merge.c,
 * finalize_ids.c, finalize_timing.c, finalize_cpt.c, finalize_conclude.c).
 */
#ifndef COLLPROF_FINALIZE_H
#define COLLPROF_FINALIZE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "comm_registry.h"
#include "counts_tree.h"
#include "hash_index.h"

#define TAG_COUNTS 0x6370 /* on our own duplicate of MPI_COMM_WORLD */

/* What a lead holds of one communicator it leads, from every member. */
typedef struct cp_led {
    cp_comm *comm;
    int64_t id; /* job-wide id (finalize_ids.c) */
    /* tree[k]: every member's tables of collective k, merged up the
     * members' tree (finalize_exchange.c); NULL: not called */
    struct cp_tree *tree[CP_NCOLLECTIVES];
    cp_neighbors *neighbors; /* topology communicators: per rank */
    /* said[k]: how many calls of collective k each member made (NULL: no
     * member called it); the members may disagree (finalize_ids.c names
     * it in the manifest). */
    struct cp_calls_said *said[CP_NCOLLECTIVES];
    /* Its blocks, per direction (cp_fin_make_blocks, before the ids are
     * known), and what each collective holds (the manifest's "series"). */
    cp_counts_file blocks[2];
    int64_t calls[CP_NCOLLECTIVES], nblocks_of[CP_NCOLLECTIVES][2];
} cp_led;

/* What the agreement stage settles, for the stages after it. */
typedef struct fin_outcome {
    bool ok;             /* the profile can be written (no rank failed) */
    int lowest[3];       /* the lowest rank that failed / could not write its count
                            files / its part of timings.cpt; the size: none */
    bool any_partial;    /* some rank's counts are partial (memory ran out) */
    char counts_reason[1024], cpt_reason[1024]; /* those ranks' reasons (rank 0) */
    const char *run_files[3]; /* run-wide files written (rank 0) */
    size_t nrun;
} fin_outcome;

typedef struct fin {
    MPI_Comm w;
    int rank, size;
    char dir[4096];
    bool failed;      /* this rank hit an error (message in err) */
    cp_error err;
    bool counts_failed; /* this lead's count files could not be written */
    cp_error counts_err;
    bool cpt_failed;  /* this rank's part of timings.cpt could not be written */
    cp_error cpt_err;
    cp_led *led;      /* communicators with calls that this rank leads */
    size_t nled;
    cp_manifest man;  /* rank 0 */
    uint64_t *id_hash;   /* the key of communicator id i (every rank) */
    uint32_t *id_ordinal;
    size_t nids;
    /* Lookups by key (hash, ordinal) into led[] and the ids: thousands of
     * communicators must not make finalize quadratic.  When an index could
     * not be built (memory), lookups fall back to a linear search. */
    cp_index led_ix, id_ix;
    bool led_ix_ok, id_ix_ok;
    char part[2][4300];  /* this lead's files, before renaming (final + ".part") */
    size_t nblocks[2];
    char final[2][4200];
    char cpt_part[4300];  /* timings.cpt before renaming, "" if not made */
    bool trees_ok;    /* every rank holds every communicator (cp_fin_exchange) */
    struct cp_run_times *rt; /* the timing stages' sums (finalize_timing.h) */
    double t0;        /* when finalize began (PMPI_Wtime) */
    fin_outcome outcome; /* the agreement stage's (finalize_conclude.c) */
} fin;

/* Index led[] (after filling it, and again after reordering it) and the
 * ids (after numbering). */
void cp_fin_index_led(fin *f);
void cp_fin_index_ids(fin *f);
/* The communicator led here with this key, or NULL. */
cp_led *cp_fin_led_find(fin *f, uint64_t hash, uint32_t ordinal);
/* The job-wide id of a communicator of this rank, or -1 (not numbered). */
int64_t cp_fin_comm_id(const fin *f, const cp_comm *c);
/* Record the first failure of this rank that spoils the whole profile
 * (the tables did not reach the leads, memory ran out while merging). */
void cp_fin_fail(fin *f, const char *msg);
/* qsort/bsearch order of int64_t (keys, ranks). */
int cp_fin_cmp_i64(const void *a, const void *b);
/* Record the first failure of this rank's part of timings.cpt: that file
 * alone is missing. */
void cp_fin_cpt_fail(fin *f, const char *msg);
/* Rank 0: a file of the profile could not be written: said once on stderr
 * and listed in the manifest's "missing" with the reason. */
void cp_fin_missing(fin *f, const char *name, const char *reason, bool say);
/* The job's call tree at rank 0 (manifest); call paths in every rank's
 * signatures renamed to its ids. */
void cp_fin_callsites(fin *f);
/* Send every rank's tables to the leads; leads unpack them into f->led. */
void cp_fin_exchange(fin *f);
/* Number the communicators job-wide (rank 0), ids back to the leads. */
void cp_fin_number(fin *f);
/* Leads: merge each communicator's trees into blocks (before numbering,
 * which tells rank 0 how many each collective has). */
void cp_fin_make_blocks(fin *f);
/* Leads: the blocks, numbered, into the count files under .part names. */
void cp_fin_merge_and_write(fin *f);
/* The last stages (finalize_conclude.c): agree on what failed, the leads
 * rename; the run-wide files; the manifest. */
void cp_fin_agree(fin *f);
void cp_fin_run_files(fin *f);
void cp_fin_manifest(fin *f);
void cp_fin_free(fin *f);

#endif
