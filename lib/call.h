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
    call->saved_errno = errno;
    call->coll = coll;
    call->root = -1;
    cp_comm *c = cp_comm_get(comm);
    if (!c)
        errno = call->saved_errno;
    return c;
}

static inline int64_t cp_type_size(MPI_Datatype t)
{
    MPI_Count size = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size_c(t, &size) != MPI_SUCCESS)
        return 0;
    return (int64_t)size;
}

/* One count per direction (Alltoall's sendcount and recvcount). */
static inline void cp_capture_single(cp_call *call, const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, MPI_Count recvcount,
                                     MPI_Datatype recvtype)
{
    call->recv = (cp_vec_arg){.present = true, .single = recvcount, .len = 1,
                              .dtsize = cp_type_size(recvtype)};
    /* MPI_IN_PLACE: the data sent is described by the receive arguments. */
    if (sendbuf == MPI_IN_PLACE)
        call->send = call->recv;
    else
        call->send = (cp_vec_arg){.present = true, .single = sendcount, .len = 1,
                                  .dtsize = cp_type_size(sendtype)};
}

/* One count per peer (Alltoallv's sendcounts and recvcounts). */
static inline void cp_capture_vector(cp_call *call, const cp_comm *c, const void *sendbuf,
                                     const void *sendcounts, MPI_Datatype sendtype,
                                     const void *recvcounts, MPI_Datatype recvtype, int width)
{
    call->recv = (cp_vec_arg){.present = recvcounts != NULL, .counts = recvcounts,
                              .width = width, .len = c->peers,
                              .dtsize = cp_type_size(recvtype)};
    if (sendbuf == MPI_IN_PLACE)
        call->send = call->recv;
    else
        call->send = (cp_vec_arg){.present = sendcounts != NULL, .counts = sendcounts,
                                  .width = width, .len = c->peers,
                                  .dtsize = cp_type_size(sendtype)};
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
