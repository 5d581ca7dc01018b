/* A shared library that calls a collective, for test_callsites: its frames
 * must be resolved in this library (module and address), on every rank. */
#include <mpi.h>

#include "callsite_lib.h"

int cpt_lib_line; /* the line of the call below */

void cpt_lib_allreduce(int count)
{
    int in[8] = {0}, out[8];
    cpt_lib_line = __LINE__ + 1;
    MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
