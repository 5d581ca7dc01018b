/*
 * Finalize: before PMPI_Finalize, every rank sends its tables to the lead
 * rank of each of its communicators over a duplicate of MPI_COMM_WORLD
 * (sub-communicators may be freed by then); leads merge and write the count
 * files; world rank 0 numbers the communicators, writes the run-wide files
 * and the manifest.  This file is the driver: the output directory, then
 * the stages, in order, from one table (the only place that numbers them).
 *
 * Ranks stay in step on error: every collective below is made by every
 * rank whatever happened before it, failures are agreed on by an allreduce,
 * one rank reports, and files are renamed into place only on success.
 * Data sent to a lead grows with distinct vectors and non-repeating
 * changes, not with the number of calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "finalize.h"
#include "finalize_timing.h"
#include "log.h"
#include "outdir.h"
#include "snapshot_place.h"
#include "runtime.h"
#include "transport.h"
#include "file_names.h"

/* ------------------------------------------------ output directory */

static int agree_directory(fin *f)
{
    /* One broadcast: the name, empty when there is no directory. */
    f->dir[0] = '\0';
    if (f->rank == 0) {
        cp_error err;
        /* The directory of this run's snapshots, when rank 0 wrote any: the
         * whole profile takes their place. */
        bool snapshots =
            !cp_rt.cfg.output_dir[0] && cp_snapshot_place_get(f->dir, sizeof f->dir);
        if (snapshots ? cp_outdir_make(f->dir, false, &err) == 0
                      : cp_outdir_create(&cp_rt.cfg, cp_rt.job, cp_rt.start_stamp, true, f->dir,
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

/* ------------------------------------------------------- the pipeline */

/* What the stages make, each product by one stage (finalize.h says which)
 * and read by those after it. */
typedef struct fin_products {
    cp_manifest man;        /* rank 0: call paths (its call tree), numbering (its
                               communicators), manifest (the rest) */
    fin_leads leads;        /* tables to leads, count blocks */
    fin_ids ids;            /* numbering */
    fin_count_files counts; /* count files */
    fin_samples samples;    /* timing: each series' sample in seconds */
    cp_run_times times;     /* timing */
    fin_cpt cpt;            /* timings.cpt */
    fin_outcome outcome;    /* agreement, run files */
} fin_products;

/* Each stage as the table runs it: what it reads (const) and what it makes,
 * spelt out in its call. */
static void paths(fin *f, fin_products *p) { cp_fin_callsites(f, &p->man); }
static void to_leads(fin *f, fin_products *p) { cp_fin_exchange(f, &p->leads); }
static void blocks(fin *f, fin_products *p) { cp_fin_make_blocks(f, &p->leads); }
static void numbering(fin *f, fin_products *p) { cp_fin_number(f, &p->leads, &p->ids, &p->man); }
static void count_files(fin *f, fin_products *p)
{
    cp_fin_merge_and_write(f, &p->leads, &p->counts);
}
static void timing(fin *f, fin_products *p)
{
    cp_fin_timing(f, &p->ids, &p->leads, &p->samples, &p->times);
}
static void cpt(fin *f, fin_products *p)
{
    cp_fin_write_cpt(f, &p->ids, &p->samples, &p->times, &p->cpt);
}
static void agreement(fin *f, fin_products *p)
{
    cp_fin_agree(f, &p->leads, &p->counts, &p->cpt, &p->outcome);
}
static void run_files(fin *f, fin_products *p)
{
    cp_fin_run_files(f, &p->man, &p->counts, &p->cpt, &p->times, &p->outcome);
}
static void manifest(fin *f, fin_products *p)
{
    cp_fin_manifest(f, &p->times, &p->outcome, &p->man);
}

/* The stages of finalize, in order.  Every rank runs every stage whatever
 * failed before it, so that the ranks stay in step (each stage's
 * collectives are made by all); a failure is recorded (cp_fin_fail) and
 * agreed on by the agreement stage, after which a profile that cannot be
 * written is skipped whole. */
static const struct {
    const char *name;
    void (*run)(fin *f, fin_products *p);
} stages[] = {
    {"call paths", paths},           /* finalize_callsites.c: the job's call tree */
    {"tables to leads", to_leads},   /* finalize_exchange.c: counts to each lead */
    {"count blocks", blocks},        /* finalize_merge.c: leads merge into blocks */
    {"numbering", numbering},        /* finalize_ids.c: job-wide communicator ids */
    {"count files", count_files},    /* finalize_merge.c: leads write */
    {"timing", timing},              /* finalize_timing.c: sums; finalize_waits.c: wait
                                        states; finalize_sites.c: the job's sites */
    {CP_FILE_TIMINGS, cpt},            /* finalize_cpt.c: every rank's chunk */
    {"agreement", agreement},        /* finalize_conclude.c: what failed; leads rename */
    {"run files", run_files},        /* finalize_conclude.c: timings.cpt renamed;
                                        finalize_profile.c: profile.cubex, profile.stat */
    {"manifest", manifest},          /* finalize_conclude.c: manifest.json */
};

static void run_stages(fin *f, fin_products *p)
{
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        double t = PMPI_Wtime();
        stages[i].run(f, p);
        if (f->cfg->verbose >= 2 && f->rank == 0)
            cp_log("finalize stage %zu (%s): %.3f s on rank 0", i + 1, stages[i].name,
                   PMPI_Wtime() - t);
    }
}

static void products_free(fin_products *p)
{
    cp_manifest_free(&p->man);
    cp_fin_leads_free(&p->leads);
    cp_fin_ids_free(&p->ids);
    cp_fin_samples_free(&p->samples);
    cp_run_times_free(&p->times);
}

void cp_fin_context(fin *f)
{
    /* The calls the call memos counted are the tables' before anything
     * reads them. */
    cp_memo_fold_all();
    memset(f, 0, sizeof *f);
    f->rank = cp_rt.world_rank;
    f->size = cp_rt.world_size;
    f->cfg = &cp_rt.cfg;
    f->comms = cp_registry_first();
    f->registry_complete = cp_registry_complete();
    f->loc = &cp_rt.loc;
    cp_clock_read(cp_clock_now(), &f->clock);
    f->job = cp_rt.job;
    f->start_iso = cp_rt.start_iso;
    f->mpi_version = cp_rt.mpi_version;
    f->cfg_entries = cp_rt.cfg_entries;
    /* `collprof run` says what it preloaded, and why, in the environment it
     * hands the program. */
    const char *run = getenv("COLLPROF_RUN_CHOICE");
    f->run_choice = run && *run ? run : NULL;
}

/* The clocks of all ranks compared again, now that recording stopped (a
 * collective): the stages get each rank's clock with the rate over the run
 * and both offsets to world rank 0. */
static void clock_at_end(fin *f)
{
    double end = cp_clock_now();
    if (cp_clock_measure(&cp_rt.loc, true))
        cp_fin_fail(f, "cannot compare the clocks of the ranks");
    cp_clock_read(end, &f->clock);
}

void cp_runtime_finalize(void)
{
    if (!cp_state_stop())
        return; /* first step: stop recording, our own calls are not profiled */
    double t0 = PMPI_Wtime();
    fin f;
    cp_fin_context(&f);
    f.t0 = t0;
    MPI_Request dup;
    if (PMPI_Comm_idup(MPI_COMM_WORLD, &f.w, &dup) != MPI_SUCCESS ||
        cp_tp_wait(&dup, NULL) != MPI_SUCCESS) {
        if (f.rank == 0)
            cp_log("cannot duplicate MPI_COMM_WORLD at finalize; no profile written");
        return;
    }
    PMPI_Comm_set_errhandler(f.w, MPI_ERRORS_RETURN);
    if (agree_directory(&f) == 0) {
        fin_products p;
        memset(&p, 0, sizeof p);
        if (cp_rt.cfg.verbose >= 2 && f.rank == 0)
            cp_log("finalize: %.3f s on rank 0 before the stages (the ranks meet, the output "
                   "directory)", PMPI_Wtime() - t0);
        clock_at_end(&f);
        run_stages(&f, &p);
        products_free(&p);
        cp_kv_free(f.missing, f.nmissing); /* the manifest stage's unless it did not run */
    }
    /* The ranks done with their part wait here for rank 0 to write the
     * run-wide files, giving it the processor, instead of spinning in
     * MPI_Finalize where ranks outnumber cores. */
    cp_tp_barrier(f.w);
    PMPI_Comm_free(&f.w);
    cp_snapshot_place_forget(f.dir, f.rank); /* a normal finalize leaves no snapshot behind */
}
