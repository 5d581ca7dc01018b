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
#include "runtime.h"

typedef struct cp_call {
    int coll;
    int saved_errno; /* the wrapper leaves errno as the application had it */
    int64_t root;    /* communicator-local root, -1 when not rooted */
    cp_vec_arg send, recv;
} cp_call;

#include "capture.h"

/* NULL when the profiler is off: the wrapper is then a plain pass-through. */
static inline cp_comm *cp_call_begin(cp_call *call, MPI_Comm comm, int coll)
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
    cp_comm *c = cp_comm_get(comm);
    if (!c)
        errno = call->saved_errno;
    return c;
}

/* A communicator constructor returned rc: register *newcomm now. */
void cp_comm_created(int rc, const MPI_Comm *newcomm);

/* Number the call on its (communicator, collective) and record its counts
 * when inside the recording window and not paused. */
void cp_call_record(cp_comm *c, cp_call *call);
/* A persistent collective was created (rc is its MPI result): each
 * MPI_Start of *request will count as one call with these counts. */
void cp_call_register_persistent(cp_comm *c, cp_call *call, int rc, MPI_Request *request);

#endif
