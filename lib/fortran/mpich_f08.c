/*
 * mpi_f08 entry points that MPICH's Fortran library sends straight to the
 * PMPI_ layer, so the C wrappers never see them (found by disassembling
 * libmpichfort: every other f08 collective calls the MPI_ symbol):
 * MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, MPI_Start, MPI_Startall,
 * MPI_Request_free, MPI_Pcontrol and MPI_Abort.  (Communicator constructors also go
 * to PMPI_; those communicators are registered at first use instead.)
 *
 * Each does what MPICH's own does — convert the handles and call the C
 * function — except that it calls the MPI_ function, i.e. collprof's
 * wrapper, which records and then calls PMPI_.  Handles and errors are
 * passed by reference; ierror may be absent (NULL).
 */
#include <mpi.h>

#include "export.h"
#include "fortran/fortran.h"

CP_EXPORT void mpi_barrier_f08_(MPI_Fint *comm, MPI_Fint *ierror)
{
    cp_f_set_error(ierror, MPI_Barrier(MPI_Comm_f2c(*comm)));
}

CP_EXPORT void mpi_ibarrier_f08_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r;
    int rc = MPI_Ibarrier(MPI_Comm_f2c(*comm), &r);
    *request = MPI_Request_c2f(r);
    cp_f_set_error(ierror, rc);
}

CP_EXPORT void mpi_barrier_init_f08_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                     MPI_Fint *ierror)
{
    MPI_Request r;
    int rc = MPI_Barrier_init(MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &r);
    *request = MPI_Request_c2f(r);
    cp_f_set_error(ierror, rc);
}

CP_EXPORT void mpi_start_f08_(MPI_Fint *request, MPI_Fint *ierror)
{
    cp_f_start(request, ierror);
}

CP_EXPORT void mpi_startall_f08_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror)
{
    cp_f_startall(count, requests, ierror);
}

CP_EXPORT void mpi_request_free_f08_(MPI_Fint *request, MPI_Fint *ierror)
{
    cp_f_request_free(request, ierror);
}

CP_EXPORT void mpi_pcontrol_f08_(MPI_Fint *level, MPI_Fint *ierror)
{
    cp_f_pcontrol(level, ierror);
}

/* MPI_Abort: the aborting rank writes its partial profile first. */
CP_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror)
{
    cp_f_set_error(ierror, MPI_Abort(MPI_Comm_f2c(*comm), *errorcode));
}
