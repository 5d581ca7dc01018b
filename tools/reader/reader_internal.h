/*
 * Helpers shared by the files of the reader library (not installed).
 */
#ifndef COLLPROF_READER_INTERNAL_H
#define COLLPROF_READER_INTERNAL_H

#include "collprof/reader.h"
#include "wait_stats.h"
#include "wait_states.h"

/* The manifest's entry of communicator id, or NULL (also without manifest). */
const cp_comm_info *cp_reader_manifest_comm(const cp_profile *p, int64_t id);

/* The members' timed series of communicator comm in communicator order, for
 * the wait-state analysis (timings.c): by_rank[w] is world rank w's series of
 * the (communicator, collective).  *wm (free it) NULL when there is nothing
 * to analyse: an intercommunicator, one rank, or a member that timed
 * nothing.  Returns 0, or -1 when memory ran out. */
struct cp_wait_member;
int cp_reader_wait_members(const cp_profile *p, int64_t comm, const cp_cpt_series *const *by_rank,
                           struct cp_wait_member **wm, size_t *n);

/* Walking member 0's timed calls in order (i ascending; at[] starts at 0):
 * is wm[0].call[i] timed by every member?  at[m] is then its position in
 * member m's series. */
bool cp_reader_all_timed(const struct cp_wait_member *wm, size_t n, size_t i, size_t *at);

/* Collective names compare case-insensitively ("alltoallv" == "Alltoallv"). */
int cp_reader_collective_cmp(const char *a, const char *b);
/* The order of series: by communicator id, then collective. */
int cp_reader_series_cmp(int64_t ca, const char *na, int64_t cb, const char *nb);
/* The index of series (comm, coll) among n rows in that order, row i's
 * series given by key(ctx, i, ...); n when it is not there. */
typedef void (*cp_reader_series_key_fn)(const void *ctx, size_t i, int64_t *comm,
                                        const char **coll);
size_t cp_reader_series_find(size_t n, cp_reader_series_key_fn key, const void *ctx, int64_t comm,
                             const char *coll);
/* The row of (comm, coll) in t (its rows sorted by communicator, then
 * collective), or NULL; t may be NULL. */
const cp_timing_row *cp_reader_timing_row(const cp_timings *t, int64_t comm, const char *coll);

/* p's profile.cubex, read once and kept in p's cache (read into *own, for
 * the caller to free with cp_cube_free, when p has no cache: *own says so).
 * 0, or -1 with err set (the failure is kept too: said the same each time). */
struct cp_cube;
int cp_reader_cube(const cp_profile *p, const struct cp_cube **c, struct cp_cube *own, bool *owned,
                   cp_error *err);
struct cp_reader_cache *cp_reader_cache_new(void);
/* s (taken over) as p's profile.stat: partial profiles' statistics, made
 * when they were loaded; NULL when there are none. */
int cp_reader_cache_set_stat(cp_profile *p, cp_stat_file *s);
const cp_stat_file *cp_reader_cached_stat(const cp_profile *p);
/* p's profile.cubex when it was read or made already, else NULL. */
const struct cp_cube *cp_reader_cached_cube(const cp_profile *p);
/* c (taken over) as p's profile.cubex: a profile merged in memory. */
int cp_reader_cache_set_cube(cp_profile *p, struct cp_cube *c);
void cp_reader_cache_free(struct cp_reader_cache *cache);

/* "3", "calls 0-2,5": a call set as text for messages, into buf (truncated
 * with "..." when long).  Returns buf. */
const char *cp_reader_calls_label(const cp_ranges *calls, char *buf, size_t size);

/* Every block of the profile with its file, sorted by communicator id,
 * collective (case-insensitively), direction, then file and block order. */
typedef struct cp_reader_entry {
    const cp_block *b;
    const cp_counts_file *f;
} cp_reader_entry;
/* *out is malloc'ed (NULL when there are no blocks).  Returns 0 or -1 (no memory). */
int cp_reader_sorted_entries(const cp_profile *p, cp_reader_entry **out, size_t *n);
/* Same communicator and collective. */
bool cp_reader_same_group(const cp_reader_entry *a, const cp_reader_entry *b);

/* For two lists of call sets (a NULL entry stands for no calls): fn(ctx,
 * i, j, common) for each pair a[i], b[j] that shares calls, with the shared
 * calls as a set, pairs in increasing (i, j) order.  When each list's sets
 * are disjoint (blocks of one direction), the cost is that of sorting all
 * calls once, not of every pair.  Returns 0, -1 (no memory), or what fn
 * returned when not 0 (which stops it). */
typedef int (*cp_common_fn)(void *ctx, size_t i, size_t j, const cp_ranges *common);
int cp_reader_common_calls(const cp_ranges *const *a, size_t na, const cp_ranges *const *b,
                           size_t nb, cp_common_fn fn, void *ctx);

/* Damage (integrity.c): note that name is damaged and why (a later
 * reason of the same name is joined to the first with "; "); is it?  cp_reader_regular: 1 when p->dir/name
 * is a regular file, 0 when absent, -1 when not regular (noted) or not to
 * be looked at.  cp_reader_check_files: every file the manifest lists
 * against its size and CRC-32 (before the files are parsed);
 * cp_reader_check_series: every series against its blocks, and collprof's
 * count files without their manifest (after). */
void cp_reader_damage(cp_profile *p, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool cp_reader_is_damaged(const cp_profile *p, const char *name);
int cp_reader_regular(cp_profile *p, const char *name);
void cp_reader_check_files(cp_profile *p);
/* The file name of p->dir was rewritten by collprof itself (collprof
 * complete): its size and CRC-32 in manifest.json follow.  0, or -1 with
 * err set. */
int cp_reader_refingerprint(const cp_profile *p, const char *name, cp_error *err);
void cp_reader_check_series(cp_profile *p);

/* Is the module file at this path the build that ran (its build-id the
 * one manifest.json recorded)?  True when the manifest recorded none (an
 * older profile).  Lines are looked up only in such a file. */
bool cp_reader_module_is_the_run(const cp_profile *p, const char *module);

/* The value of setting key (COLLPROF_TIMING) that the manifest records, or
 * NULL (run_settings.c). */
const char *cp_reader_setting(const cp_profile *p, const char *key);
/* Why p has no timings.cpt, said from what it records (timing off, the run
 * stopped before MPI_Finalize, the file could not be written, is damaged,
 * or the manifest does not say), into buf; returns buf. */
const char *cp_reader_no_timings(const cp_profile *p, char *buf, size_t len);

/* "partial.rank<R>" -> R; -1 for any other name. */
int64_t cp_reader_partial_rank(const char *name);
/* How one rank's partial profile is read: cp_profile_load, handed in by
 * the loader that found the partial.rank<R> folders. */
typedef int (*cp_part_loader)(const char *dir, cp_profile *p, cp_error *err);
/* The partial profiles of the partial.rank<R> among names[] (the entries
 * of p->dir), each read by load, merged into p (partials.c).  Returns 0,
 * or -1 with err set. */
int cp_reader_load_partials(cp_profile *p, char **names, size_t nnames, cp_part_loader load,
                            cp_error *err);
/* One rank's partial profile read on its own: its timings.cpt holds that
 * rank's chunk alone (world size 1); put it at its rank (the manifest's
 * "state", else the folder's name) in a file of the world's size, the
 * other ranks' chunks empty (a file that is not one rank's is named as
 * damaged and left out).  0, or -1 (out of memory). */
int cp_reader_place_own_timings(cp_profile *p);
/* The merge (partials.c): rank's part's timed calls into p->timings at its
 * rank, its communicators renamed to their job-wide ids by job_wide(ctx,
 * id) (-1: its manifest does not list it), its sites' call paths by paths
 * (its call tree's ids -> the job's; NULL: none); the part's timings are
 * taken.  0, or -1 (out of memory). */
int cp_reader_add_partial_timings(cp_profile *p, int64_t rank, cp_profile *part,
                                  int64_t (*job_wide)(const void *ctx, int64_t id),
                                  const void *ctx, const int64_t *paths);
/* The part's "clock" into the merged manifest's: ranks on the counter
 * summed, the largest drift, "mixed" where the sources differ. */
/* partial_paths.c: the ranks' call trees as one, p's manifest's (maps[i]:
 * part i's node -> the job's, malloc'ed; its blocks' Callsites renamed);
 * then their profile.cubex files as one in p's cache.  0, or -1 when out
 * of memory (what cannot be read is said as damage). */
/* The wait-state statistics of a profile's timed calls as finalize keeps
 * them (model/wait_stats.h): per pattern every instance weighted by the
 * calls of the run it stands for, and the most severe instances, each
 * instance's cnode an index of sites until a Cube profile exists
 * (timings.cpt version 4 names the sites; older files list none). */
typedef struct cp_reader_event_site {
    char collective[32];
    uint32_t path, form;
} cp_reader_event_site;
typedef struct cp_reader_wait_stats {
    cp_wstat stat[CP_NWAIT_PATTERNS];
    cp_stat_pattern top[CP_NWAIT_PATTERNS]; /* events only */
    cp_reader_event_site *sites;
    size_t nsites, capsites;
} cp_reader_wait_stats;
/* cp_profile_timings, and with ws the statistics too (free them with
 * cp_reader_wait_stats_free). */
int cp_reader_timings_stats(const cp_profile *p, cp_timings *out, cp_reader_wait_stats *ws,
                            cp_error *err);
void cp_reader_wait_stats_free(cp_reader_wait_stats *ws);

/* The rank whose own partial profile p is (a folder partial.rank<R> read
 * alone), else -1. */
int64_t cp_reader_own_partial_rank(const cp_profile *p);
/* Its profile.cubex, of one location, in p's cache as the world's, as the
 * merge would make it (a rank's folder read alone).  0, or -1 when out of
 * memory. */
int cp_reader_place_own_cube(cp_profile *p);
int cp_reader_merge_partial_trees(cp_profile *p, cp_profile *const *parts, size_t nparts,
                                  int64_t **maps);
int cp_reader_merge_partial_cubes(cp_profile *p, cp_profile *const *parts, const int64_t *ranks,
                                  size_t nparts, int64_t *const *maps);
void cp_reader_add_partial_clock(cp_manifest *m, const cp_manifest *part);

/* Bytes of count c in block b (count x datatype size, or c when the block
 * counts in bytes), 128-bit so that it cannot overflow. */
__extension__ typedef __int128 cp_i128;
static inline cp_i128 cp_reader_bytes(const cp_block *b, int64_t c)
{
    return b->counts_in_bytes ? (cp_i128)c : (cp_i128)c * (cp_i128)b->dtsize;
}

/* diff_sites.c: d's call sites from a's and b's call paths.  0, or -1
 * (out of memory). */
int cp_diff_sites(const cp_profile *a, const cp_profile *b, cp_diff *d);

#endif
