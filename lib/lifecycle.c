/*
 * Lifecycle: MPI_Init / MPI_Init_thread / MPI_Finalize, the mpi_f08 entry
 * points that bypass the C ones, lazy start, MPI_Pcontrol, and the
 * destructor that saves a partial profile when MPI_Finalize never comes.
 *
 * In a process that never initialises MPI (mpiexec itself) nothing here
 * does anything or prints anything.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collprof.h"
#include "export.h"
#include "comm_registry.h"
#include "fortran/fortran.h"
#include "log.h"
#include "outdir.h"
#include "partial.h"
#include "callsite.h"
#include "clock.h"
#include "hash_index.h"
#include "runtime.h"
#include "signals.h"
#include "timing.h"


_Alignas(64) cp_hot_line cp_hot = {.state = CP_STATE_OFF};
cp_runtime cp_rt;

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static void first_line(char *s)
{
    char *nl = strchr(s, '\n');
    if (nl)
        *nl = '\0';
}

/* The timing sample's seed (COLLPROF_TIMING_SEED): given, or drawn by
 * world rank 0 and broadcast once at MPI_Init, so that a run that repeats
 * an earlier one meets another sample (the estimate's error does not
 * repeat with the workload).  A lazy start (mpi_f08 programs under MPICH)
 * cannot communicate: its seed is a hash of the job's id, the same on every
 * rank.  The manifest records the seed used. */
static uint64_t sample_seed(bool collective)
{
    /* From MPI_Init every rank takes part in the broadcast, whatever its
     * own settings say (an MPMD run may give its parts other ones): no rank
     * may wait for a broadcast another skips. */
    uint64_t seed = 0;
    if (collective) {
        if (cp_rt.world_rank == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            seed = cp_hash_mix(cp_hash_mix((uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec),
                               (uint64_t)getpid());
        }
        PMPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    } else {
        for (const char *c = cp_rt.job; *c; c++)
            seed = cp_hash_mix(seed, (unsigned char)*c);
    }
    if (!cp_rt.cfg.timing_seed_auto)
        return cp_rt.cfg.timing_seed;
    if (cp_rt.cfg.timing != CP_TIMING_OFF) /* the manifest shows the seed a sample used */
        cp_config_set_seed(&cp_rt.cfg, cp_rt.cfg_entries, seed);
    return seed;
}

void cp_runtime_start(bool collective)
{
    pthread_mutex_lock(&start_lock);
    int initialized = 0, finalized = 0;
    if (atomic_load(&cp_hot.state) != CP_STATE_OFF || PMPI_Initialized(&initialized) != MPI_SUCCESS ||
        !initialized || PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized) {
        pthread_mutex_unlock(&start_lock);
        return;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &cp_rt.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cp_rt.world_size);

    char problems[4096];
    cp_config_load(&cp_rt.cfg, cp_rt.cfg_entries, problems, sizeof problems);
    cp_hot.timing = cp_rt.cfg.timing;
    cp_hot.start_call = cp_rt.cfg.start_call;
    cp_hot.max_calls = cp_rt.cfg.max_calls;
    cp_hot.enabled = 0;
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        cp_hot.enabled |= (uint64_t)cp_rt.cfg.enabled[k] << k;
    if (cp_rt.world_rank == 0 && problems[0]) {
        for (char *line = strtok(problems, "\n"); line; line = strtok(NULL, "\n"))
            cp_log("%s", line);
    }
    /* Said now, not after a twelve-hour run: where the profile would go
     * cannot be written.  The run goes on; finalize says it again. */
    cp_error od;
    if (cp_rt.world_rank == 0 && cp_outdir_precheck(&cp_rt.cfg, &od))
        cp_log("%s: no profile can be written unless that changes before the run ends", od.msg);

    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(cp_rt.start_stamp, sizeof cp_rt.start_stamp, "%Y%m%d-%H%M%S", &tm);
    strftime(cp_rt.start_iso, sizeof cp_rt.start_iso, "%Y-%m-%dT%H:%M:%S", &tm);
    cp_outdir_job(cp_rt.job, sizeof cp_rt.job);
    /* Before anything a rank could fail at alone: every rank broadcasts. */
    uint64_t seed = sample_seed(collective);
    int len = 0;
    PMPI_Get_library_version(cp_rt.mpi_version, &len);
    first_line(cp_rt.mpi_version);

    if (PMPI_Comm_group(MPI_COMM_WORLD, &cp_rt.world_group) != MPI_SUCCESS ||
        cp_registry_start() != MPI_SUCCESS) {
        if (cp_rt.world_rank == 0)
            cp_log("cannot set up communicator tracking; profiling is off for this run");
        atomic_store(&cp_hot.state, CP_STATE_DONE);
        cp_hot_publish();
    } else {
        /* World first: it is then the first of the communicators that share
         * its membership (its dups) on every rank. */
        cp_comm_get(MPI_COMM_WORLD);
        cp_clock_start(cp_rt.cfg.clock);
        cp_hot.clock_tsc = cp_clock_tsc;
        cp_location_capture(&cp_rt.loc, cp_rt.cfg.hostname);
        if (cp_rt.cfg.timing != CP_TIMING_OFF &&
            cp_timing_start(cp_rt.cfg.timing_max_calls, cp_rt.cfg.timing_sample) &&
            cp_rt.world_rank == 0)
            cp_log("cannot allocate the timing sample (COLLPROF_TIMING_MAX_CALLS=%" PRIu64
                   "): calls are timed in aggregate only",
                   cp_rt.cfg.timing_max_calls);
        cp_timing_seed(seed);
        cp_callsite_start(cp_rt.cfg.callsite_depth, (const void *)cp_runtime_start);
        /* The first clock offset needs every rank: only from MPI_Init
         * (a lazy start comes from one communicator's collective). */
        if (collective && cp_rt.cfg.timing != CP_TIMING_OFF)
            cp_clock_measure(&cp_rt.loc, false);
        atomic_store(&cp_hot.state, CP_STATE_ON); /* last step: start recording */
        cp_hot_publish();
        cp_signals_start(cp_rt.cfg.signals,
                         cp_config_snapshot_seconds(&cp_rt.cfg, cp_rt.world_size),
                         cp_partial_write);
    }
    pthread_mutex_unlock(&start_lock);
}

void cp_runtime_lazy_start(void)
{
    cp_runtime_start(false);
}

/* The signal watcher made before the MPI library sets itself up
 * (cp_signals_prepare), as the configuration asks; its problems are said
 * when the configuration is read again at start. */
static void prepare_watcher(void)
{
    cp_config cfg;
    static cp_config_entry entries[CP_CONFIG_NENTRIES];
    char problems[4096];
    cp_config_load(&cfg, entries, problems, sizeof problems);
    cp_signals_prepare(cfg.signals, cfg.snapshot_s);
}

/* ------------------------------------------------------------ C bindings */

CP_EXPORT int MPI_Init(int *argc, char ***argv)
{
    prepare_watcher();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        cp_runtime_start(true);
    return rc;
}

CP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    prepare_watcher();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        cp_runtime_start(true);
    return rc;
}

CP_EXPORT int MPI_Finalize(void)
{
    cp_runtime_finalize();
    return PMPI_Finalize();
}

/* The aborting rank writes what it holds before MPI ends the job (the
 * others are killed by the launcher: a SIGTERM makes them write theirs). */
void cp_abort_write(int errorcode)
{
    if (cp_state_stop()) {
        char why[96];
        snprintf(why, sizeof why, "MPI_Abort with error code %d on rank %d", errorcode,
                 cp_rt.world_rank);
        cp_partial_write(why, true);
    }
}

CP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    cp_abort_write(errorcode);
    return PMPI_Abort(comm, errorcode);
}

CP_EXPORT int MPI_Pcontrol(const int level, ...)
{
    /* 0 pauses recording, 1 resumes it; calls go on being numbered. */
    if (level == 0 || level == 1) {
        atomic_store(&cp_hot.paused, level == 0);
        cp_hot_publish();
    }
    return PMPI_Pcontrol(level);
}

/* ------------------------------------------------- Fortran bindings */

/* MPICH's mpi_f08 module, and every Open MPI Fortran binding, initialise
 * and finalise through PMPI_ directly: their entry points are wrapped and
 * forwarded to the next definition of the same name (the MPI library's,
 * which does what Fortran asks of it), with collprof started after init
 * and finalized before finalize. */
typedef void (*f_init_fn)(MPI_Fint *);
typedef void (*f_init_thread_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);

void cp_fortran_init(const char *name, MPI_Fint *ierror)
{
    f_init_fn real = (f_init_fn)dlsym(RTLD_NEXT, name);
    prepare_watcher();
    if (real)
        real(ierror);
    else
        cp_f_set_error(ierror, PMPI_Init(NULL, NULL));
    cp_runtime_start(true);
}

void cp_fortran_init_thread(const char *name, MPI_Fint *required, MPI_Fint *provided,
                            MPI_Fint *ierror)
{
    f_init_thread_fn real = (f_init_thread_fn)dlsym(RTLD_NEXT, name);
    prepare_watcher();
    if (real)
        real(required, provided, ierror);
    else
        cp_f_set_error(ierror, PMPI_Init_thread(NULL, NULL, *required, provided));
    cp_runtime_start(true);
}

void cp_fortran_finalize(const char *name, MPI_Fint *ierror)
{
    /* Started lazily when the Fortran init was not seen. */
    cp_runtime_start(true);
    cp_runtime_finalize();
    f_init_fn real = (f_init_fn)dlsym(RTLD_NEXT, name);
    if (real)
        real(ierror);
    else
        cp_f_set_error(ierror, PMPI_Finalize());
}

CP_EXPORT void mpi_init_f08_(MPI_Fint *ierror)
{
    cp_fortran_init("mpi_init_f08_", ierror);
}

CP_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    cp_fortran_init_thread("mpi_init_thread_f08_", required, provided, ierror);
}

CP_EXPORT void mpi_finalize_f08_(MPI_Fint *ierror)
{
    cp_fortran_finalize("mpi_finalize_f08_", ierror);
}

/* ----------------------------------------------------------- public API */

CP_EXPORT void collprof_pause(void)
{
    atomic_store(&cp_hot.paused, 1);
    cp_hot_publish();
}

CP_EXPORT void collprof_resume(void)
{
    atomic_store(&cp_hot.paused, 0);
    cp_hot_publish();
}

CP_EXPORT int collprof_is_recording(void)
{
    return cp_state_recording(atomic_load(&cp_hot.state)) && !atomic_load(&cp_hot.paused);
}

CP_EXPORT const char *collprof_version(void)
{
    return COLLPROF_VERSION_STRING;
}

/* ------------------------------------------------------------ destructor */

__attribute__((destructor)) static void at_exit(void)
{
    if (cp_state_stop())
        cp_partial_write("MPI_Finalize was not called", false);
}
