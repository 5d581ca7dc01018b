/*
 * Finalize: before PMPI_Finalize, every rank sends its tables to the lead
 * rank of each of its communicators over a duplicate of MPI_COMM_WORLD
 * (sub-communicators may be freed by then); leads merge and write the count
 * files; world rank 0 numbers the communicators and writes the manifest.
 *
 * Ranks stay in step on error: every collective below is made by every
 * rank whatever happened before it, failures are agreed on by an allreduce,
 * one rank reports, and files are renamed into place only on success.
 * Data sent to a lead grows with distinct vectors and non-repeating
 * changes, not with the number of calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "finalize.h"
#include "finalize_timing.h"
#include "log.h"
#include "manifest.h"
#include "outdir.h"
#include "run_manifest.h"
#include "runtime.h"
#include "textio.h"
#include "transport.h"

void cp_fin_fail(fin *f, const char *msg)
{
    if (!f->failed) {
        f->failed = true;
        cp_error_set(&f->err, "%s", msg);
    }
}

void cp_fin_cpt_fail(fin *f, const char *msg)
{
    if (!f->cpt_failed) {
        f->cpt_failed = true;
        cp_error_set(&f->cpt_err, "rank %d: %s", f->rank, msg);
    }
}

void cp_fin_missing(fin *f, const char *name, const char *why, bool say)
{
    /* Every reason names the rank that had it: rank 0 writes these files. */
    char reason[sizeof f->cpt_err.msg + 16];
    snprintf(reason, sizeof reason, "%s%s", strncmp(why, "rank ", 5) ? "rank 0: " : "", why);
    if (say)
        cp_log("%s is missing from the profile: %s", name, reason);
    cp_manifest *m = &f->man;
    cp_kv *kv = realloc(m->missing, (m->nmissing + 1) * sizeof *kv);
    if (!kv)
        return;
    m->missing = kv;
    kv[m->nmissing].key = strdup(name);
    kv[m->nmissing].value = strdup(reason);
    if (kv[m->nmissing].key && kv[m->nmissing].value) {
        m->nmissing++;
    } else {
        free(kv[m->nmissing].key);
        free(kv[m->nmissing].value);
    }
}

/* ------------------------------------------- communicators by key */

static uint64_t key_of(uint64_t hash, uint32_t ordinal)
{
    return cp_hash_mix(hash, ordinal);
}

struct key_ctx {
    const fin *f;
    uint64_t hash;
    uint32_t ordinal;
};

static bool led_match(const void *ctx, uint32_t j)
{
    const struct key_ctx *k = ctx;
    const cp_comm *c = k->f->led[j].comm;
    return c->key_hash == k->hash && c->key_ordinal == k->ordinal;
}

static bool id_match(const void *ctx, uint32_t i)
{
    const struct key_ctx *k = ctx;
    return k->f->id_hash[i] == k->hash && k->f->id_ordinal[i] == k->ordinal;
}

void cp_fin_index_led(fin *f)
{
    cp_index_free(&f->led_ix);
    f->led_ix_ok = true;
    for (size_t j = 0; j < f->nled && f->led_ix_ok; j++) {
        const cp_comm *c = f->led[j].comm;
        f->led_ix_ok = cp_index_put(&f->led_ix, key_of(c->key_hash, c->key_ordinal),
                                    (uint32_t)j) == 0;
    }
}

void cp_fin_index_ids(fin *f)
{
    cp_index_free(&f->id_ix);
    f->id_ix_ok = true;
    for (size_t i = 0; i < f->nids && f->id_ix_ok; i++)
        f->id_ix_ok = cp_index_put(&f->id_ix, key_of(f->id_hash[i], f->id_ordinal[i]),
                                   (uint32_t)i) == 0;
}

cp_led *cp_fin_led_find(fin *f, uint64_t hash, uint32_t ordinal)
{
    struct key_ctx k = {f, hash, ordinal};
    if (f->led_ix_ok) {
        uint32_t j = cp_index_find(&f->led_ix, key_of(hash, ordinal), led_match, &k);
        return j == CP_INDEX_EMPTY ? NULL : &f->led[j];
    }
    for (size_t j = 0; j < f->nled; j++)
        if (led_match(&k, (uint32_t)j))
            return &f->led[j];
    return NULL;
}

int64_t cp_fin_comm_id(const fin *f, const cp_comm *c)
{
    struct key_ctx k = {f, c->key_hash, c->key_ordinal};
    if (f->id_ix_ok) {
        uint32_t i = cp_index_find(&f->id_ix, key_of(k.hash, k.ordinal), id_match, &k);
        return i == CP_INDEX_EMPTY ? -1 : (int64_t)i;
    }
    for (size_t i = 0; i < f->nids; i++)
        if (id_match(&k, (uint32_t)i))
            return (int64_t)i;
    return -1;
}

void cp_fin_free(fin *f)
{
    cp_index_free(&f->led_ix);
    cp_index_free(&f->id_ix);
    free(f->id_hash);
    free(f->id_ordinal);
    for (size_t j = 0; j < f->nled; j++) {
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            free(f->led[j].said[k]);
        cp_counts_file_free(&f->led[j].blocks[0]);
        cp_counts_file_free(&f->led[j].blocks[1]);
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            if (f->led[j].tree[k]) {
                cp_tree_free(f->led[j].tree[k]);
                free(f->led[j].tree[k]);
            }
        cp_neighbors_free(f->led[j].neighbors, f->led[j].comm->size);
    }
    free(f->led);
    cp_manifest_free(&f->man);
}

/* ------------------------------------------------ output directory */

static int agree_directory(fin *f)
{
    /* One broadcast: the name, empty when there is no directory. */
    f->dir[0] = '\0';
    if (f->rank == 0) {
        cp_error err;
        if (cp_outdir_create(&cp_rt.cfg, cp_rt.job, cp_rt.start_stamp, true, f->dir,
                             sizeof f->dir, &err) == 0)
            cp_outdir_clear(f->dir, true); /* a directory reused: an earlier run's files */
        else {
            cp_log("%s; no profile written", err.msg);
            f->dir[0] = '\0';
        }
    }
    cp_tp_bcast(f->dir, (int)sizeof f->dir, MPI_CHAR, 0, f->w);
    f->dir[sizeof f->dir - 1] = '\0';
    return f->dir[0] ? 0 : -1;
}

/* --------------------------------------------- agree, rename, report */

int cp_fin_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* How the calls were stamped (the manifest's "clock"). */
static void fill_clock(fin *f, const cp_run_times *rt, cp_clock_info *c)
{
    snprintf(c->source, sizeof c->source, "%s",
             rt->tsc_ranks == f->size ? "tsc" : rt->tsc_ranks == 0 ? "monotonic" : "mixed");
    c->tsc_ranks = rt->tsc_ranks;
    c->tsc_hz = (int64_t)(cp_clock_tsc_hz() + 0.5);
    c->max_drift_ppm = rt->max_drift_ppm;
    c->drift_bound_ppm = CP_CLOCK_DRIFT_BOUND_PPM;
    if (rt->drifted_ranks)
        snprintf(c->note, sizeof c->note,
                 "the counter of %" PRId64 " rank(s), first rank %" PRId64
                 ", drifted beyond the bound: their times may be off",
                 rt->drifted_ranks, rt->first_drifted);
    else if (!cp_clock_tsc)
        snprintf(c->note, sizeof c->note, "rank 0 stamped with CLOCK_MONOTONIC: %s",
                 cp_clock_why_not_tsc());
    else if (rt->tsc_ranks < f->size)
        snprintf(c->note, sizeof c->note,
                 "%" PRId64 " rank(s) stamped with CLOCK_MONOTONIC (their CPUs did not say "
                 "their counters are invariant)",
                 f->size - rt->tsc_ranks);
}

/* A file's size and CRC-32 (zlib), read back after it was renamed into
 * place, so that a reader can tell a file cut short, emptied or changed.
 * Files larger than CRC_MAX_BYTES get their size only (timings.cpt of a
 * huge job: its chunks carry CRCs of their own). */
#define CRC_MAX_BYTES (INT64_C(1) << 30)

static void fingerprint_files(fin *f)
{
    cp_manifest *m = &f->man;
    m->file_bytes = malloc((m->nfiles ? m->nfiles : 1) * sizeof *m->file_bytes);
    m->file_crc = malloc((m->nfiles ? m->nfiles : 1) * sizeof *m->file_crc);
    if (!m->file_bytes || !m->file_crc) {
        free(m->file_bytes);
        free(m->file_crc);
        m->file_bytes = m->file_crc = NULL;
        return;
    }
    m->nfile_info = m->nfiles;
    for (size_t i = 0; i < m->nfiles; i++) {
        m->file_bytes[i] = m->file_crc[i] = -1;
        if (!m->files[i] || strcmp(m->files[i], "manifest.json") == 0)
            continue; /* it cannot hold its own */
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", f->dir, m->files[i]);
        cp_file_fingerprint(path, CRC_MAX_BYTES, &m->file_bytes[i], &m->file_crc[i]);
    }
}

/* counts_missing: some lead could not write its count files (rank 0
 * looks which: after the renames, on the shared file system);
 * counts_rank's reason is counts_reason. */
static void fill_manifest(fin *f, bool partial, const char *const *run_files, size_t nrun,
                          const cp_run_times *rt, bool counts_missing, int64_t counts_rank,
                          const char *counts_reason)
{
    cp_manifest *m = &f->man;
    if (cp_run_manifest(m, partial ? "memory ran out on some ranks: calls after that were not "
                                     "recorded"
                                   : NULL))
        return;
    if (rt->timing) {
        m->has_clock = true;
        fill_clock(f, rt, &m->clock);
    }
    /* Files: the manifest, then each lead's pair. */
    size_t cap = 1 + nrun + 2 * m->ncomms;
    m->files = calloc(cap, sizeof *m->files);
    if (!m->files)
        return;
    m->files[m->nfiles++] = strdup("manifest.json");
    for (size_t i = 0; i < nrun; i++)
        m->files[m->nfiles++] = strdup(run_files[i]);
    /* Each lead once, in the order leads first appear among the
     * communicators: a sorted list of the distinct leads, and whether each
     * was listed (thousands of communicators: no quadratic scan). */
    size_t nleads = 0;
    int64_t *leads = malloc((m->ncomms ? m->ncomms : 1) * sizeof *leads);
    bool *listed = calloc(m->ncomms ? m->ncomms : 1, sizeof *listed);
    if (!leads || !listed) {
        free(leads);
        free(listed);
        return;
    }
    for (size_t i = 0; i < m->ncomms; i++)
        leads[i] = m->comms[i].lead;
    qsort(leads, m->ncomms, sizeof *leads, cp_fin_cmp_i64);
    for (size_t i = 0; i < m->ncomms; i++)
        if (nleads == 0 || leads[nleads - 1] != leads[i])
            leads[nleads++] = leads[i];
    for (size_t i = 0; i < m->ncomms; i++) {
        int64_t lead = m->comms[i].lead;
        const int64_t *at = bsearch(&lead, leads, nleads, sizeof *leads, cp_fin_cmp_i64);
        if (!at || listed[at - leads])
            continue;
        listed[at - leads] = true;
        for (int d = 0; d < 2; d++) {
            char name[128], path[4400];
            snprintf(name, sizeof name, "%s-counters.rank%" PRId64 ".txt%s",
                     d == 0 ? "send" : "recv", lead, cp_rt.cfg.gzip ? ".gz" : "");
            snprintf(path, sizeof path, "%s/%s", f->dir, name);
            struct stat st;
            if (!counts_missing || stat(path, &st) == 0) {
                m->files[m->nfiles++] = strdup(name);
            } else {
                char why[sizeof f->counts_err.msg + 64];
                snprintf(why, sizeof why, "rank %" PRId64 " could not write it%s%s", lead,
                         lead == counts_rank ? ": " : " (see its message on stderr)",
                         lead == counts_rank ? counts_reason : "");
                cp_fin_missing(f, name, why, false); /* the lead said it */
            }
        }
    }
    free(leads);
    free(listed);
    fingerprint_files(f);
}

/* The run-wide files, every rank taking part: the raw timings (rank 0
 * renames them; cpt_reason: why some rank's part of it failed, or NULL),
 * the Cube profile (rank 0 writes it with every rank's rows), its
 * statistics.  Returns (rank 0) how many of names[] were written. */
static size_t write_run_files(fin *f, cp_run_times *rt, const char *cpt_reason,
                              const char *names[3])
{
    size_t n = 0;
    if (f->rank == 0 && cp_rt.cfg.timing != CP_TIMING_OFF) {
        char final[4200];
        snprintf(final, sizeof final, "%s/timings.cpt", f->dir);
        if (cpt_reason) {
            remove(f->cpt_part);
            cp_fin_missing(f, "timings.cpt", cpt_reason, true);
        } else if (rename(f->cpt_part, final) != 0) {
            char why[4600];
            snprintf(why, sizeof why, "cannot rename %s into place: %s", f->cpt_part,
                     strerror(errno));
            cp_fin_missing(f, "timings.cpt", why, true);
        } else {
            names[n++] = "timings.cpt";
        }
    }
    return n + cp_fin_write_profile(f, rt, names + n);
}

/* A reason text from rank `from` to rank 0 (when from is not 0 itself). */
static void reason_to_root(fin *f, int from, const cp_error *mine, char *out, size_t len)
{
    enum { TAG_REASON = 7301 };
    if (from == 0 && f->rank == 0) {
        snprintf(out, len, "%s", mine->msg);
    } else if (f->rank == from) {
        cp_tp_send(mine->msg, (int)strlen(mine->msg) + 1, MPI_CHAR, 0, TAG_REASON, f->w);
    } else if (f->rank == 0) {
        out[0] = '\0';
        cp_tp_recv(out, (int)len, MPI_CHAR, from, TAG_REASON, f->w);
        out[len - 1] = '\0';
    }
}

static void conclude(fin *f, double t0, cp_run_times *rt)
{
    int partial = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        partial |= c->lost;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            partial |= c->coll[k] && c->coll[k]->counts.partial;
    }
    /* Agree on: the lowest rank whose failure spoils the profile (it
     * reports), how many failed, whether any rank's counts are partial,
     * and the lowest ranks that could not write their count files or
     * their part of timings.cpt (those files alone are missing). */
    /* All in one maximum (each collective costs a round of the scheduler
     * where ranks outnumber cores): lowest ranks as negated maxima, and the
     * highest failing rank, which tells whether another failed too. */
    int in[5] = {-(f->failed ? f->rank : f->size), -(f->counts_failed ? f->rank : f->size),
                 -(f->cpt_failed ? f->rank : f->size), f->failed ? f->rank : -1, partial};
    int out[5];
    cp_tp_allreduce(in, out, 5, MPI_INT, MPI_MAX, f->w);
    int lowest[3] = {-out[0], -out[1], -out[2]}, highest_failed = out[3], any_partial = out[4];
    bool ok = lowest[0] == f->size;
    if (f->failed && f->rank == lowest[0])
        cp_log("%s (rank %d%s); no profile written", f->err.msg, f->rank,
               highest_failed != f->rank ? ", and other ranks failed too" : "");
    if (ok && f->counts_failed)
        cp_log("rank %d cannot write its count files: %s", f->rank, f->counts_err.msg);
    for (int d = 0; d < 2 && f->nled > 0; d++) {
        if (!f->part[d][0])
            continue;
        if (!ok || f->counts_failed)
            remove(f->part[d]);
        else if (rename(f->part[d], f->final[d]) != 0)
            cp_log("rank %d cannot rename %s into place: %s", f->rank, f->part[d],
                   strerror(errno));
        else if (cp_rt.cfg.verbose >= 1)
            cp_log("rank %d wrote %s (%zu blocks, %zu communicators)", f->rank, f->final[d],
                   f->nblocks[d], f->nled);
    }
    if (!ok && f->rank == 0 && f->cpt_part[0])
        remove(f->cpt_part);
    if (!ok)
        return;
    /* The reasons of the first failures of each kind go to rank 0 for the
     * manifest; everything else a lead renamed is in place after this. */
    char counts_reason[sizeof f->counts_err.msg], cpt_reason[sizeof f->cpt_err.msg];
    if (lowest[1] < f->size)
        reason_to_root(f, lowest[1], &f->counts_err, counts_reason, sizeof counts_reason);
    if (lowest[2] < f->size)
        reason_to_root(f, lowest[2], &f->cpt_err, cpt_reason, sizeof cpt_reason);
    if (lowest[1] < f->size)
        cp_tp_barrier(f->w);
    const char *run_files[3];
    size_t nrun = write_run_files(f, rt, lowest[2] < f->size ? cpt_reason : NULL, run_files);
    if (f->rank != 0)
        return;
    fill_manifest(f, any_partial != 0, run_files, nrun, rt, lowest[1] < f->size, lowest[1],
                  counts_reason);
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", f->dir);
    cp_error err;
    if (cp_manifest_write_file(path, false, &f->man, &err)) {
        cp_log("%s", err.msg);
        return;
    }
    cp_log("wrote %zu files to %s in %.3f s", f->man.nfiles, f->dir, PMPI_Wtime() - t0);
}

/* ------------------------------------------------------- the pipeline */

static void stage_timing(fin *f)
{
    cp_fin_timing(f, f->rt);
}

static void stage_cpt(fin *f)
{
    cp_fin_write_cpt(f, f->rt);
}

/* The stages of finalize, in order.  Every rank runs every stage whatever
 * failed before it, so that the ranks stay in step (each stage's
 * collectives are made by all); a failure is recorded (cp_fin_fail) and
 * agreed on at the end (conclude). */
static const struct {
    const char *name;
    void (*run)(fin *f);
} stages[] = {
    {"call paths", cp_fin_callsites},      /* finalize_callsites.c: the job's call tree */
    {"tables to leads", cp_fin_exchange},  /* finalize_exchange.c: counts to each lead */
    {"count blocks", cp_fin_make_blocks},  /* finalize_merge.c: leads merge into blocks */
    {"numbering", cp_fin_number},          /* finalize_ids.c: job-wide communicator ids */
    {"count files", cp_fin_merge_and_write}, /* finalize_merge.c: leads write */
    {"timing", stage_timing},              /* finalize_timing.c: sums; finalize_waits.c: wait
                                              states; finalize_sites.c: the job's sites (the
                                              Cube and .stat are written in conclude) */
    {"timings.cpt", stage_cpt},            /* finalize_cpt.c: every rank's chunk */
};

static void run_stages(fin *f)
{
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        double t = PMPI_Wtime();
        stages[i].run(f);
        if (cp_rt.cfg.verbose >= 2 && f->rank == 0)
            cp_log("finalize stage %zu (%s): %.3f s on rank 0", i + 1, stages[i].name,
                   PMPI_Wtime() - t);
    }
}

void cp_runtime_finalize(void)
{
    int expected = CP_STATE_ON;
    if (!atomic_compare_exchange_strong(&cp_state, &expected, CP_STATE_DONE))
        return; /* first step: stop recording, our own calls are not profiled */
    double t0 = PMPI_Wtime();
    fin f;
    memset(&f, 0, sizeof f);
    f.rank = cp_rt.world_rank;
    f.size = cp_rt.world_size;
    MPI_Request dup;
    if (PMPI_Comm_idup(MPI_COMM_WORLD, &f.w, &dup) != MPI_SUCCESS ||
        cp_tp_wait(&dup, NULL) != MPI_SUCCESS) {
        if (f.rank == 0)
            cp_log("cannot duplicate MPI_COMM_WORLD at finalize; no profile written");
        return;
    }
    PMPI_Comm_set_errhandler(f.w, MPI_ERRORS_RETURN);
    if (agree_directory(&f) == 0) {
        /* f.led: filled by the counts stage (cp_fin_exchange). */
        cp_run_times rt;
        f.rt = &rt;
        if (cp_rt.cfg.verbose >= 2 && f.rank == 0)
            cp_log("finalize: %.3f s on rank 0 before the stages (the ranks meet, the output "
                   "directory)", PMPI_Wtime() - t0);
        run_stages(&f);
        double tc = PMPI_Wtime();
        conclude(&f, t0, &rt);
        if (cp_rt.cfg.verbose >= 2 && f.rank == 0)
            cp_log("finalize: %.3f s on rank 0 concluding (agreement, renames, run-wide files, "
                   "manifest)", PMPI_Wtime() - tc);
        cp_run_times_free(&rt);
        cp_fin_free(&f);
    }
    /* The ranks done with their part wait here for rank 0 to write the
     * run-wide files, giving it the processor, instead of spinning in
     * MPI_Finalize where ranks outnumber cores. */
    cp_tp_barrier(f.w);
    PMPI_Comm_free(&f.w);
}
