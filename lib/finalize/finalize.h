/*
 * Finalize, internal: the context every stage is given, what each stage
 * makes for the stages after it, and the stages themselves.  finalize.c is
 * the driver (the table of stages, in order, and what each reads and
 * makes); finalize_fin.c the helpers of the context and of the products;
 * one file per stage (finalize_callsites.c, finalize_exchange.c,
 * finalize_merge.c, finalize_ids.c, finalize_timing.c, finalize_cpt.c,
 * finalize_conclude.c).  A stage's function takes the products it reads as
 * const pointers and those it makes as the others: nothing else is shared.
 */
#ifndef COLLPROF_FINALIZE_H
#define COLLPROF_FINALIZE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll_slots.h"
#include "comm_registry.h"
#include "config.h"
#include "location.h"
#include "compact.h"
#include "counts_stage.h"
#include "counts_tree.h"
#include "group_trees.h"
#include "hash_index.h"
#include "manifest.h"
#include "time_line.h"

#define TAG_COUNTS 0x6370 /* on our own duplicate of MPI_COMM_WORLD */

/* What a lead holds of one collective of a communicator it leads. */
typedef struct cp_led_coll {
    /* Every member's tables of it, merged up the members' tree
     * (finalize_exchange.c; tree NULL: not called; emptied when its blocks
     * are made, which take its rows, and kept as the mark), and how many
     * calls of it each member made (said NULL: no member called it; the
     * members may disagree: finalize_ids.c names it in the manifest). */
    cp_hold_coll held;
    int64_t calls, nblocks[2]; /* what it holds (the manifest's "series") */
} cp_led_coll;

/* What a lead holds of one communicator it leads, from every member. */
typedef struct cp_led {
    cp_comm *comm;
    int64_t id; /* job-wide id (finalize_ids.c) */
    /* A cp_led_coll per collective some member called or counted
     * (coll_slots.h: 10,000 churned communicators of one collective each
     * hold one entry each, not an array over every collective). */
    cp_slots c;
    cp_neighbors *neighbors; /* topology communicators: per rank */
    /* Its blocks, per direction, as the count file's text in the lead's
     * store (fin_leads; cp_fin_make_blocks, before the ids are known: the
     * head naming the communicator is put before each block when the file
     * is written).
     * Not a cp_counts_file each: that holds a path of 4 KiB, and a job that
     * churned 10,000 communicators has 10,000 of these (85 MB of zeroed
     * pages first touched in finalize, measured). */
    cp_compact_spool spool[2];
} cp_led;

/* Collective k of l, or NULL. */
static inline cp_led_coll *cp_led_at(const cp_led *l, uint32_t k)
{
    return cp_slots_at(&l->c, k, sizeof(cp_led_coll));
}

/* The context, set by the driver and read by every stage.  A stage
 * writes into it only its failures: one that spoils the whole profile
 * (cp_fin_fail) and, at rank 0, a file that will be missing
 * (cp_fin_missing). */
typedef struct fin {
    MPI_Comm w;       /* our own duplicate of MPI_COMM_WORLD */
    int rank, size;
    char dir[4096];   /* the output directory, the same on every rank */
    double t0;        /* when finalize began (PMPI_Wtime) */
    bool failed;      /* this rank hit an error that spoils the profile (message in err) */
    cp_error err;
    cp_kv *missing;   /* rank 0: files not written, with the reason */
    size_t nmissing;
    /* What the run recorded, handed to the stages by the driver, which
     * alone reads the run-time state (runtime.h) and the registry. */
    const cp_config *cfg;
    cp_comm *comms;           /* this rank's communicators: a list (c->next) */
    bool registry_complete;   /* none was lost while registering (memory) */
    const cp_location *loc;   /* where this rank ran */
    cp_time_line clock;       /* this rank's clock, measured again by the driver
                                 when recording stopped */
    const char *job, *start_iso, *mpi_version;
    const cp_config_entry *cfg_entries; /* the settings as the user gave them */
    const char *run_choice;   /* what `collprof run` preloaded and why, or NULL */
} fin;

/* "tables to leads" (finalize_exchange.c) makes it; "count blocks" adds the
 * blocks: the communicators with calls that this rank leads. */
typedef struct fin_leads {
    cp_led *led;
    size_t n;
    /* Lookups by key (hash, ordinal): thousands of communicators must not
     * make finalize quadratic.  When the index could not be built
     * (memory), lookups fall back to a linear search. */
    cp_index ix;
    bool ix_ok;
    bool trees_ok;    /* every rank holds every communicator (the wait states need it) */
    cp_compact_store store[2]; /* the blocks' text of every led communicator, per direction */
} fin_leads;

/* "numbering" (finalize_ids.c): the job-wide ids, on every rank. */
typedef struct fin_ids {
    uint64_t *hash;   /* the key of communicator id i */
    uint32_t *ordinal;
    size_t n;
    cp_index ix;
    bool ix_ok;
} fin_ids;

/* "count files" (finalize_merge.c): this lead's files, before renaming. */
typedef struct fin_count_files {
    char part[2][4300]; /* final + ".part" */
    char final[2][4200];
    size_t nblocks[2];
    bool failed;      /* they could not be written */
    cp_error err;
} fin_count_files;

/* "timings.cpt" (finalize_cpt.c): this rank's part of the file. */
typedef struct fin_cpt {
    char part[4300];  /* the file before renaming, "" if not made */
    bool failed;      /* this rank's part could not be written */
    cp_error err;
} fin_cpt;

/* "agreement" (finalize_conclude.c) settles it; "run files" adds the files
 * it wrote. */
typedef struct fin_outcome {
    bool ok;             /* the profile can be written (no rank failed) */
    int lowest[3];       /* the lowest rank that failed / could not write its count
                            files / its part of timings.cpt; the size: none */
    bool any_partial;    /* some rank's counts are partial (memory ran out) */
    char counts_reason[1024], cpt_reason[1024]; /* those ranks' reasons (rank 0) */
    const char *run_files[3]; /* run-wide files written (rank 0) */
    size_t nrun;
} fin_outcome;

struct cp_run_times; /* "timing" (finalize_timing.h) */

/* The context as the drivers hand it to the stages (finalize.c, and the
 * partial profile, lib/partial.c): the run-time state read here once, no
 * communicator, no directory yet. */
void cp_fin_context(fin *f);

/* The manifest's run-wide fields (versions, MPI library, job, world size,
 * start time, configuration) from the context, for a whole profile
 * (partial_reason NULL) or a partial one.  Returns 0, or -1 when memory
 * ran out (m may be partly filled; cp_manifest_free it). */
int cp_fin_run_manifest(const fin *f, cp_manifest *m, const char *partial_reason);
/* The manifest's "clock" of this rank alone (a partial profile). */
void cp_fin_own_clock_info(const fin *f, cp_clock_info *c);
/* The size and CRC-32 of each of m's files in f->dir, read back after
 * they were renamed into place (the manifest's "file_bytes"/"file_crc"). */
void cp_fin_fingerprint_files(const fin *f, cp_manifest *m);

/* Record the first failure of this rank that spoils the whole profile
 * (the tables did not reach the leads, memory ran out while merging). */
void cp_fin_fail(fin *f, const char *msg);
/* Rank 0: a file of the profile could not be written: said once on stderr
 * (say) and listed in the manifest's "missing" with the reason. */
void cp_fin_missing(fin *f, const char *name, const char *reason, bool say);
/* Record the first failure of this rank's part of timings.cpt: that file
 * alone is missing. */
void cp_fin_cpt_fail(const fin *f, fin_cpt *cpt, const char *msg);

/* Index the led communicators (after filling them, and again after
 * reordering them) and the ids (after numbering). */
void cp_fin_index_led(fin_leads *L);
void cp_fin_index_ids(fin_ids *ids);
/* The communicator led here with this key, or NULL. */
cp_led *cp_fin_led_find(fin_leads *L, uint64_t hash, uint32_t ordinal);
/* The job-wide id of a communicator of this rank, or -1 (not numbered). */
int64_t cp_fin_comm_id(const fin_ids *ids, const cp_comm *c);
void cp_fin_leads_free(fin_leads *L);
void cp_fin_ids_free(fin_ids *ids);
/* qsort/bsearch order of int64_t (keys, ranks). */
int cp_fin_cmp_i64(const void *a, const void *b);

/* A rank's own call tree, for its partial profile: map[i] the node of its
 * path i (CP_SEQ_NONE: none), n paths. */
typedef struct cp_own_paths {
    uint32_t *map;
    uint32_t n;
} cp_own_paths;

/* This rank's own tables of c as a holding (a leaf tree per collective it
 * called), and a holding that reached c's lead (or, in a partial profile,
 * this rank's own, g its one-member view) made a led communicator of L
 * (finalize_exchange.c): the count path of finalize and of the partial
 * profile alike.  own: this rank's own call tree's ids for its paths (a
 * partial profile), NULL at finalize (the paths were renamed in place to
 * the job's). */
void cp_fin_own_holding(cp_holding *h, const cp_comm *c, const cp_own_paths *own);
void cp_fin_to_led(fin *f, fin_leads *L, const cp_membership *g, const cp_comm *c,
                   cp_holding *h);

/* This rank's paths alone as the manifest's call tree (m->call_tree,
 * numbered as finalize numbers the job's) and its modules' build-ids;
 * nothing renamed in place (the run may go on).  Returns 0, or -1 when
 * out of memory (own then empty). */
int cp_fin_own_call_tree(cp_manifest *m, cp_own_paths *own);
/* A path id of this rank as own's id (own NULL: call paths off, none). */
uint32_t cp_fin_path_renamed(uint32_t path, const cp_own_paths *own);
/* A copy of t's signatures with their paths as own's ids (NULL: no room). */
cp_sig *cp_fin_sigs_renamed(const cp_counts *t, const cp_own_paths *own);

/* The stages, in the driver's order (finalize.c's table). */
/* The job's call tree and its modules at rank 0 (into man); call paths in
 * every rank's signatures renamed to its ids. */
void cp_fin_callsites(fin *f, cp_manifest *man);
/* Send every rank's tables to the leads; leads unpack them into *L. */
void cp_fin_exchange(fin *f, fin_leads *L);
/* Leads: merge each communicator's trees into blocks (before numbering,
 * which tells rank 0 how many each collective has). */
void cp_fin_make_blocks(fin *f, fin_leads *L);
/* Number the communicators job-wide (rank 0: man's communicator table and
 * disagreements), ids to every rank; the leads learn their ids. */
void cp_fin_number(fin *f, fin_leads *L, fin_ids *ids, cp_manifest *man);
/* Leads: the blocks, numbered, into the count files under .part names. */
void cp_fin_merge_and_write(fin *f, fin_leads *L, fin_count_files *cf);
/* Agree on what failed; the leads rename their count files. */
void cp_fin_agree(fin *f, const fin_leads *L, const fin_count_files *cf, const fin_cpt *cpt,
                  fin_outcome *o);
/* The reasons of the first failures to rank 0; timings.cpt renamed;
 * profile.cubex (with man's call tree) and profile.stat (rank 0 writes). */
void cp_fin_run_files(fin *f, const cp_manifest *man, const fin_count_files *cf,
                      const fin_cpt *cpt, struct cp_run_times *rt, fin_outcome *o);
/* manifest.json (rank 0). */
void cp_fin_manifest(fin *f, const struct cp_run_times *rt, const fin_outcome *o,
                     cp_manifest *man);

#endif
