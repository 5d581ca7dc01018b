/*
 * The last stages of finalize (the table in finalize.c): the ranks agree
 * on what failed and the leads rename their count files; the run-wide
 * files (timings.cpt renamed, the Cube profile and its statistics
 * written); the manifest.  Ranks stay in step: every rank runs each stage,
 * and a profile that cannot be written is left out whole, said once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "finalize.h"
#include "finalize_timing.h"
#include "log.h"
#include "manifest.h"
#include "collprof_config.h"
#include "textio.h"
#include "transport.h"
#include "compact.h"
#include "file_names.h"

/* How the calls were stamped (the manifest's "clock"). */
static void fill_clock(fin *f, const cp_run_times *rt, cp_clock_info *c)
{
    snprintf(c->source, sizeof c->source, "%s",
             rt->tsc_ranks == f->size ? "tsc" : rt->tsc_ranks == 0 ? "monotonic" : "mixed");
    c->tsc_ranks = rt->tsc_ranks;
    c->tsc_hz = (int64_t)(f->clock.tsc_hz + 0.5);
    c->max_drift_ppm = rt->max_drift_ppm;
    c->drift_bound_ppm = CP_CLOCK_DRIFT_BOUND_PPM;
    if (rt->drifted_ranks)
        snprintf(c->note, sizeof c->note,
                 "the counter of %" PRId64 " rank(s), first rank %" PRId64
                 ", drifted beyond the bound: their times may be off",
                 rt->drifted_ranks, rt->first_drifted);
    else if (!f->clock.tsc)
        snprintf(c->note, sizeof c->note, "rank 0 stamped with CLOCK_MONOTONIC: %s",
                 f->clock.why_not_tsc);
    else if (rt->tsc_ranks < f->size)
        snprintf(c->note, sizeof c->note,
                 "%" PRId64 " rank(s) stamped with CLOCK_MONOTONIC (their CPUs did not say "
                 "their counters are invariant)",
                 f->size - rt->tsc_ranks);
}

/* One rank's clock alone, for its partial profile: no finalize compared
 * the clocks again at the end, so no drift is known, and its times were
 * aligned with the offsets to world rank 0 measured at start-up. */
void cp_fin_own_clock_info(const fin *f, cp_clock_info *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", f->clock.tsc ? "tsc" : "monotonic");
    c->tsc_ranks = f->clock.tsc ? 1 : 0;
    c->tsc_hz = (int64_t)(f->clock.tsc_hz + 0.5);
    c->drift_bound_ppm = CP_CLOCK_DRIFT_BOUND_PPM;
    snprintf(c->note, sizeof c->note,
             "%s%.60s%stimes aligned to world rank 0 with the clock offsets measured at start-up "
             "(no MPI_Finalize compared the clocks again: drift not known)",
             f->clock.tsc ? "" : "stamped with CLOCK_MONOTONIC: ",
             f->clock.tsc ? "" : f->clock.why_not_tsc, f->clock.tsc ? "" : "; ");
}

/* A file's size and CRC-32 (zlib), read back after it was renamed into
 * place, so that a reader can tell a file cut short, emptied or changed.
 * Files larger than CRC_MAX_BYTES get their size only (timings.cpt of a
 * huge job: its chunks carry CRCs of their own). */
#define CRC_MAX_BYTES (INT64_C(1) << 30)

void cp_fin_fingerprint_files(const fin *f, cp_manifest *m)
{
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
        if (!m->files[i] || strcmp(m->files[i], CP_FILE_MANIFEST) == 0)
            continue; /* it cannot hold its own */
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", f->dir, m->files[i]);
        cp_file_fingerprint(path, CRC_MAX_BYTES, &m->file_bytes[i], &m->file_crc[i]);
    }
}

int cp_fin_run_manifest(const fin *f, cp_manifest *m, const char *partial_reason)
{
    m->format_version = CP_MANIFEST_FORMAT_VERSION;
    m->counts_format_version = CP_COUNTS_FORMAT_VERSION;
    snprintf(m->collprof_version, sizeof m->collprof_version, "%s", COLLPROF_VERSION);
    snprintf(m->mpi_version, sizeof m->mpi_version, "%.500s", f->mpi_version);
    snprintf(m->job, sizeof m->job, "%s", f->job);
    snprintf(m->start_time, sizeof m->start_time, "%s", f->start_iso);
    m->world_size = f->size;
    m->partial = partial_reason != NULL;
    snprintf(m->partial_reason, sizeof m->partial_reason, "%s",
             partial_reason ? partial_reason : "");
    m->config = calloc(CP_CONFIG_NENTRIES + 1, sizeof *m->config);
    if (!m->config)
        return -1;
    for (int i = 0; i < CP_CONFIG_NENTRIES; i++) {
        cp_kv *kv = &m->config[m->nconfig++];
        kv->key = strdup(f->cfg_entries[i].name);
        kv->value = strdup(f->cfg_entries[i].value);
        if (!kv->key || !kv->value)
            return -1;
    }
    if (f->run_choice) {
        cp_kv *kv = &m->config[m->nconfig++];
        kv->key = strdup("collprof run");
        kv->value = strndup(f->run_choice, 4096);
        if (!kv->key || !kv->value)
            return -1;
    }
    return 0;
}

/* counts_missing: some lead could not write its count files (rank 0
 * looks which: after the renames, on the shared file system);
 * counts_rank's reason is counts_reason. */
static void fill_manifest(fin *f, cp_manifest *m, bool partial, const char *const *run_files,
                          size_t nrun, const cp_run_times *rt, bool counts_missing,
                          int64_t counts_rank, const char *counts_reason)
{
    if (cp_fin_run_manifest(f, m, partial ? "memory ran out on some ranks: calls after that were not "
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
    m->files[m->nfiles++] = strdup(CP_FILE_MANIFEST);
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
            cp_compact_file_name(name, sizeof name, d == 0 ? CP_SEND : CP_RECV, lead,
                                 f->cfg->gzip);
            snprintf(path, sizeof path, "%s/%s", f->dir, name);
            struct stat st;
            if (!counts_missing || stat(path, &st) == 0) {
                m->files[m->nfiles++] = strdup(name);
            } else {
                char why[sizeof f->err.msg + 64];
                snprintf(why, sizeof why, "rank %" PRId64 " could not write it%s%s", lead,
                         lead == counts_rank ? ": " : " (see its message on stderr)",
                         lead == counts_rank ? counts_reason : "");
                cp_fin_missing(f, name, why, false); /* the lead said it */
            }
        }
    }
    free(leads);
    free(listed);
    cp_fin_fingerprint_files(f, m);
}

/* The run-wide files, every rank taking part: the raw timings (rank 0
 * renames them; cpt_reason: why some rank's part of it failed, or NULL),
 * the Cube profile (rank 0 writes it with every rank's rows), its
 * statistics.  Returns (rank 0) how many of names[] were written. */
static size_t write_run_files(fin *f, const cp_manifest *man, cp_run_times *rt,
                              const fin_cpt *cpt, const char *cpt_reason, const char *names[3])
{
    size_t n = 0;
    if (f->rank == 0 && f->cfg->timing != CP_TIMING_OFF) {
        char final[4200];
        snprintf(final, sizeof final, "%s/" CP_FILE_TIMINGS, f->dir);
        if (cpt_reason) {
            remove(cpt->part);
            cp_fin_missing(f, CP_FILE_TIMINGS, cpt_reason, true);
        } else if (rename(cpt->part, final) != 0) {
            char why[4600];
            snprintf(why, sizeof why, "cannot rename %s into place: %s", cpt->part,
                     strerror(errno));
            cp_fin_missing(f, CP_FILE_TIMINGS, why, true);
        } else {
            names[n++] = CP_FILE_TIMINGS;
        }
    }
    return n + cp_fin_write_profile(f, man, rt, names + n);
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

/* Stage: agree.  Every rank learns whether the profile can be written
 * (the lowest rank whose failure spoils it reports), and which ranks could
 * not write their count files or their part of timings.cpt (those files
 * alone are missing); the leads rename their count files into place. */
void cp_fin_agree(fin *f, const fin_leads *L, const fin_count_files *cf, const fin_cpt *cpt,
                  fin_outcome *o)
{
    int partial = 0;
    for (cp_comm *c = f->comms; c; c = c->next) {
        partial |= c->lost;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            partial |= c->coll[k] && c->coll[k]->counts.partial;
    }
    /* All in one maximum (each collective costs a round of the scheduler
     * where ranks outnumber cores): lowest ranks as negated maxima, and the
     * highest failing rank, which tells whether another failed too. */
    int in[5] = {-(f->failed ? f->rank : f->size), -(cf->failed ? f->rank : f->size),
                 -(cpt->failed ? f->rank : f->size), f->failed ? f->rank : -1, partial};
    int out[5];
    cp_tp_allreduce(in, out, 5, MPI_INT, MPI_MAX, f->w);
    for (int i = 0; i < 3; i++)
        o->lowest[i] = -out[i];
    int highest_failed = out[3];
    o->any_partial = out[4] != 0;
    o->ok = o->lowest[0] == f->size;
    if (f->failed && f->rank == o->lowest[0])
        cp_log("%s (rank %d%s); no profile written", f->err.msg, f->rank,
               highest_failed != f->rank ? ", and other ranks failed too" : "");
    if (o->ok && cf->failed)
        cp_log("rank %d cannot write its count files: %s", f->rank, cf->err.msg);
    for (int d = 0; d < 2 && L->n > 0; d++) {
        if (!cf->part[d][0])
            continue;
        if (!o->ok || cf->failed)
            remove(cf->part[d]);
        else if (rename(cf->part[d], cf->final[d]) != 0)
            cp_log("rank %d cannot rename %s into place: %s", f->rank, cf->part[d],
                   strerror(errno));
        else if (f->cfg->verbose >= 1)
            cp_log("rank %d wrote %s (%zu blocks, %zu communicators)", f->rank, cf->final[d],
                   cf->nblocks[d], L->n);
    }
    if (!o->ok && f->rank == 0 && cpt->part[0])
        remove(cpt->part);
}

/* Stage: the run-wide files.  The reasons of the first failures of each
 * kind go to rank 0 for the manifest (everything a lead renamed is in
 * place after this); then timings.cpt is renamed, and the Cube profile and
 * its statistics are written, every rank taking part. */
void cp_fin_run_files(fin *f, const cp_manifest *man, const fin_count_files *cf,
                      const fin_cpt *cpt, cp_run_times *rt, fin_outcome *o)
{
    if (!o->ok)
        return;
    if (o->lowest[1] < f->size)
        reason_to_root(f, o->lowest[1], &cf->err, o->counts_reason,
                       sizeof o->counts_reason);
    if (o->lowest[2] < f->size)
        reason_to_root(f, o->lowest[2], &cpt->err, o->cpt_reason, sizeof o->cpt_reason);
    if (o->lowest[1] < f->size)
        cp_tp_barrier(f->w);
    o->nrun = write_run_files(f, man, rt, cpt, o->lowest[2] < f->size ? o->cpt_reason : NULL,
                              o->run_files);
}

/* Stage: the manifest (rank 0), which lists every file written and what
 * is missing, then the one line that says where the profile is. */
void cp_fin_manifest(fin *f, const cp_run_times *rt, const fin_outcome *o, cp_manifest *man)
{
    if (!o->ok || f->rank != 0)
        return;
    fill_manifest(f, man, o->any_partial, o->run_files, o->nrun, rt, o->lowest[1] < f->size,
                  o->lowest[1], o->counts_reason);
    /* The files the stages could not write, with their reasons: the
     * manifest's from now on. */
    man->missing = f->missing;
    man->nmissing = f->nmissing;
    f->missing = NULL;
    f->nmissing = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/" CP_FILE_MANIFEST, f->dir);
    cp_error err;
    if (cp_manifest_write_file(path, false, man, &err)) {
        cp_log("%s", err.msg);
        return;
    }
    cp_log("wrote %zu files to %s in %.3f s", man->nfiles, f->dir, PMPI_Wtime() - f->t0);
}
