/*
 * Fortran's MPI_Start, MPI_Startall, MPI_Request_free and MPI_Pcontrol,
 * converted and sent to collprof's C wrappers, which see the starts of
 * persistent collectives and the pauses.  The exported names differ by MPI
 * library (mpich_f08.c, openmpi.c); the work is here once.
 */
#include <stdlib.h>

#include "fortran/fortran.h"

void cp_f_start(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_Request_f2c(*request);
    int rc = MPI_Start(&r);
    *request = MPI_Request_c2f(r);
    cp_f_set_error(ierror, rc);
}

void cp_f_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror)
{
    int n = *count;
    MPI_Request one, *r = n > 1 ? malloc((size_t)n * sizeof *r) : &one;
    if (!r) {
        /* As the MPI library would do without us, where Fortran's handles
         * are C's (MPICH); else the error Open MPI's own binding gives. */
        cp_f_set_error(ierror, sizeof(MPI_Request) == sizeof(MPI_Fint)
                                   ? PMPI_Startall(n, (MPI_Request *)requests)
                                   : MPI_ERR_NO_MEM);
        return;
    }
    for (int i = 0; i < n; i++)
        r[i] = MPI_Request_f2c(requests[i]);
    int rc = MPI_Startall(n, r);
    for (int i = 0; i < n; i++)
        requests[i] = MPI_Request_c2f(r[i]);
    if (r != &one)
        free(r);
    cp_f_set_error(ierror, rc);
}

void cp_f_request_free(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_Request_f2c(*request);
    int rc = MPI_Request_free(&r);
    *request = MPI_Request_c2f(r);
    cp_f_set_error(ierror, rc);
}

void cp_f_pcontrol(MPI_Fint *level, MPI_Fint *ierror)
{
    cp_f_set_error(ierror, MPI_Pcontrol(*level));
}
