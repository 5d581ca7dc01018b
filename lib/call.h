/*
 * What the generated wrappers (wrappers.c, from wrappers.tbl) call: begin a
 * call, capture its count vectors, record it.  The capture helpers are
 * inline: they only take pointers and sizes, copying nothing.
 */
#ifndef COLLPROF_CALL_H
#define COLLPROF_CALL_H

#include <errno.h>
#include <mpi.h>

#include "comm_registry.h"
#include "counts.h"
#include "mpi_names.h"
#include "clock.h"
#include "runtime.h"
#include "signals.h"

typedef struct cp_call {
    int coll;
    int saved_errno; /* the wrapper leaves errno as the application had it */
    int64_t root;    /* communicator-local root, -1 when not rooted */
    cp_vec_arg send, recv;
    void *ra;        /* the wrapper's return address (callsite collector) */
    int form;        /* enum cp_form: which of the collective's functions */
    bool timed;      /* record its times (timing on, call recorded) */
    uint64_t idx;    /* its call index */
    uint32_t sig;    /* its signature (counts collector), CP_SEQ_NONE: none */
    cp_sample_rec *rec; /* its record when the timing sample keeps it */
    uint64_t enter, start; /* ticks (clock.h): arrival, start of the MPI call */
} cp_call;

#include "capture.h"

/* NULL when the profiler is off: the wrapper is then a plain pass-through. */
static inline cp_comm *cp_call_begin(cp_call *call, MPI_Comm comm, int coll, int form, void *ra)
{
    int state = atomic_load_explicit(&cp_state, memory_order_relaxed);
    if (__builtin_expect(state != CP_STATE_ON, 0)) {
        if (state == CP_STATE_DONE)
            return NULL;
        cp_runtime_lazy_start();
        if (atomic_load(&cp_state) != CP_STATE_ON)
            return NULL;
    }
    if (!cp_rt.cfg.enabled[coll])
        return NULL; /* not asked for: not even numbered */
    call->saved_errno = errno;
    call->coll = coll;
    call->root = -1;
    call->ra = ra;
    call->form = form;
    call->timed = false;
    cp_busy_enter();
    cp_comm *c = cp_comm_get(comm);
    cp_busy_leave();
    if (!c)
        errno = call->saved_errno;
    return c;
}

/* A communicator constructor returned rc: register *newcomm now. */
void cp_comm_created(int rc, const MPI_Comm *newcomm);

/* Number the call on its (communicator, collective) and record its counts
 * when inside the recording window and not paused. */
void cp_call_record(cp_comm *c, cp_call *call);
/* Timed calls, around the MPI call: barrier mode synchronises the
 * communicator first (blocking forms only: a barrier before a non-blocking
 * call could deadlock a correct program); then the end of the call. */
static inline void cp_call_sync(cp_call *call, MPI_Comm comm, bool blocking)
{
    /* Arrival is stamped here, after collprof's own counting, so that the
     * times are the MPI library's. */
    call->enter = cp_clock_ticks();
    if (cp_rt.cfg.timing == CP_TIMING_BARRIER && blocking && call->coll != CP_COLL_BARRIER) {
        PMPI_Barrier(comm);
        call->start = cp_clock_ticks();
        errno = call->saved_errno;
    } else {
        call->start = call->enter;
    }
}
void cp_call_timed(cp_comm *c, const cp_call *call, bool blocking);
/* The MPI library refused the call with rc: it stays recorded with its
 * counts, marked failed with the error class (it moved nothing).  Only
 * refused calls come here: the wrapper tests rc.  Cold: the wrapper's
 * common path stays as short as it was (measured: the test costs about
 * 4 ns a call where the plain call was a tail call). */
__attribute__((cold)) void cp_call_failed(cp_comm *c, const cp_call *call, int rc);

/* A persistent collective was created (rc is its MPI result): each
 * MPI_Start of *request will count as one call with these counts. */
void cp_call_register_persistent(cp_comm *c, cp_call *call, int rc, MPI_Request *request);

#endif
