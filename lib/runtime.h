/*
 * Process-wide state of the profiler: the on/off flag the wrappers test,
 * the configuration, who this rank is and when the run started.
 *
 * The flag is set as the last step of initialisation and cleared as the
 * first step of finalisation, so collprof's own MPI calls are never
 * recorded.  Wrappers read it with a relaxed atomic load: no lock.
 */
#ifndef COLLPROF_RUNTIME_H
#define COLLPROF_RUNTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>

#include "config.h"
#include "location.h"

enum cp_state {
    CP_STATE_OFF = 0, /* MPI not initialised (yet), or never: pass-through */
    CP_STATE_ON = 1,  /* recording */
    CP_STATE_DONE = 2, /* finalised or failed to start: pass-through */
    /* Recording, and a snapshot is due (set by the watcher thread's timer,
     * signals.c): the next wrapper takes it before its call, so that the
     * wrappers' common path tests nothing more than the state. */
    CP_STATE_SNAPSHOT = 3
};

/* What every wrapper reads on its common path, in one cache line: the
 * state, the pause, and the settings the path tests (copied from cp_rt.cfg
 * at start: that one is kilobytes long, and its fields would be lines of
 * their own). */
typedef struct cp_hot_line {
    _Atomic int state;    /* enum cp_state */
    _Atomic int paused;   /* MPI_Pcontrol(0) */
    int timing;           /* cfg.timing */
    uint64_t enabled;     /* bit k: collective k is recorded (cfg.enabled) */
    uint64_t start_call, max_calls; /* cfg's recording window */
    bool clock_tsc;       /* cp_clock_tsc (clock.h), for the timed calls' stamps */
    intptr_t busy_tpoff;  /* where cp_busy is from the thread pointer (signals.h) */
} cp_hot_line;
extern _Alignas(64) cp_hot_line cp_hot;
_Static_assert(CP_NCOLLECTIVES <= 64, "cp_hot.enabled has a bit per collective");
_Static_assert(sizeof(cp_hot_line) <= 64, "cp_hot is one cache line");

/* Is collprof recording in state s? */
static inline bool cp_state_recording(int s)
{
    return s == CP_STATE_ON || s == CP_STATE_SNAPSHOT;
}

/* After every change of cp_hot.state or cp_hot.paused: the gates of the
 * communicator cache (comm_cache.h), which a repeated call reads
 * instead of cp_hot, follow.  While recording is on and not paused, each
 * gate holds the enabled collectives, as counted only when timing is off,
 * as timed passively by the time-stamp counter when that is the timing;
 * else 0 (the call reads cp_hot).  Written,
 * then the state read again and written again if it changed meanwhile
 * (another thread, or a signal handler in this one): the gates end as the
 * last state says.  Atomic stores only: a signal handler may call it. */
void cp_hot_publish(void);

/* Stop recording, once: true for the one caller that stopped it
 * (finalize, the destructor, MPI_Abort, a signal that ends the process). */
static inline bool cp_state_stop(void)
{
    int s = atomic_load(&cp_hot.state);
    while (cp_state_recording(s))
        if (atomic_compare_exchange_weak(&cp_hot.state, &s, CP_STATE_DONE)) {
            cp_hot_publish();
            return true;
        }
    return false;
}

typedef struct cp_runtime {
    cp_config cfg;
    cp_config_entry cfg_entries[CP_CONFIG_NENTRIES];
    int world_rank, world_size;
    char start_stamp[32];  /* YYYYmmdd-HHMMSS of initialisation */
    char start_iso[32];    /* YYYY-mm-ddTHH:MM:SS */
    char job[256];
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Group world_group;
    int keyval;            /* communicator attribute holding our state */
    cp_location loc;       /* where this rank runs (location collector) */
} cp_runtime;

extern cp_runtime cp_rt;

/* Start recording after MPI is initialised (MPI_Init wrappers, or lazily on
 * the first intercepted call when MPI was initialised behind our back, as
 * mpi_f08 does).  collective: every rank is starting now (MPI_Init), so
 * the clocks can be compared. */
void cp_runtime_start(bool collective);
/* First call of a wrapper while OFF: start if MPI is up. */
void cp_runtime_lazy_start(void);
/* Gather, merge and write everything; before PMPI_Finalize. */
void cp_runtime_finalize(void);
/* MPI_Abort(errorcode) is about to end the job: write the partial profile. */
void cp_abort_write(int errorcode);

#endif
