/*
 * mpi_f08 entry points that MPICH's Fortran library sends straight to the
 * PMPI_ layer, so the C wrappers never see them (found by disassembling
 * libmpichfort: every other f08 collective calls the MPI_ symbol):
 * MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, MPI_Start, MPI_Startall,
 * MPI_Request_free and MPI_Pcontrol.  (Communicator constructors also go
 * to PMPI_; those communicators are registered at first use instead.)
 *
 * Each does what MPICH's own does — convert the handles and call the C
 * function — except that it calls the MPI_ function, i.e. collprof's
 * wrapper, which records and then calls PMPI_.  Handles and errors are
 * passed by reference; ierror may be absent (NULL).
 */
#include <mpi.h>
#include <stdlib.h>

#include "export.h"

static void set_error(MPI_Fint *ierror, int rc)
{
    if (ierror)
        *ierror = rc;
}

CP_EXPORT void mpi_barrier_f08_(MPI_Fint *comm, MPI_Fint *ierror)
{
    set_error(ierror, MPI_Barrier(MPI_Comm_f2c(*comm)));
}

CP_EXPORT void mpi_ibarrier_f08_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r;
    int rc = MPI_Ibarrier(MPI_Comm_f2c(*comm), &r);
    *request = MPI_Request_c2f(r);
    set_error(ierror, rc);
}

CP_EXPORT void mpi_barrier_init_f08_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                     MPI_Fint *ierror)
{
    MPI_Request r;
    int rc = MPI_Barrier_init(MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &r);
    *request = MPI_Request_c2f(r);
    set_error(ierror, rc);
}

CP_EXPORT void mpi_start_f08_(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_Request_f2c(*request);
    int rc = MPI_Start(&r);
    *request = MPI_Request_c2f(r);
    set_error(ierror, rc);
}

CP_EXPORT void mpi_startall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror)
{
    int n = *count;
    MPI_Request one, *r = n > 1 ? malloc((size_t)n * sizeof *r) : &one;
    if (!r) { /* as the MPI library would do without us */
        set_error(ierror, PMPI_Startall(n, (MPI_Request *)requests));
        return;
    }
    for (int i = 0; i < n; i++)
        r[i] = MPI_Request_f2c(requests[i]);
    int rc = MPI_Startall(n, r);
    for (int i = 0; i < n; i++)
        requests[i] = MPI_Request_c2f(r[i]);
    if (r != &one)
        free(r);
    set_error(ierror, rc);
}

CP_EXPORT void mpi_request_free_f08_(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_Request_f2c(*request);
    int rc = MPI_Request_free(&r);
    *request = MPI_Request_c2f(r);
    set_error(ierror, rc);
}

CP_EXPORT void mpi_pcontrol_f08_(MPI_Fint *level, MPI_Fint *ierror)
{
    set_error(ierror, MPI_Pcontrol(*level));
}
