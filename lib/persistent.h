/*
 * Persistent collectives: the request -> (communicator, collective,
 * signature) map that lets each MPI_Start / MPI_Startall count as one call.
 * MPI_Request_free forgets the request, since MPI may reuse its handle.
 */
#ifndef COLLPROF_PERSISTENT_H
#define COLLPROF_PERSISTENT_H

#include <mpi.h>
#include <stdint.h>

#include "comm_registry.h"

#include "call.h"

/* A persistent collective's _init returned rc and *request: the request is
 * kept with its signature, or, refused, the attempt counts as one failed
 * call.  Called by the generated wrappers. */
void cp_call_register_persistent(cp_comm *c, cp_call *call, int rc, MPI_Request *request);

#endif
