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

void cp_persistent_add(MPI_Request req, cp_comm *c, int coll, uint32_t sig);
/* Record one call of the same collective with the same signature. */
void cp_record_signature(cp_comm *c, int coll, uint32_t sig);

#endif
