/*
 * What the Fortran entry points of collprof share: with Open MPI, whose
 * Fortran bindings call PMPI_ directly, every Fortran entry point is
 * collprof's own (fortran_wrappers.c, generated from wrappers.tbl, and
 * openmpi.c); with MPICH only a few mpi_f08 ones (mpich_f08.c).  Handles
 * arrive as MPI_Fint, by reference.
 */
#ifndef COLLPROF_FORTRAN_H
#define COLLPROF_FORTRAN_H

#include <mpi.h>

/* Fortran INTEGER arrays of counts are passed to the C functions as they
 * are: that needs MPI_Fint to be int. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int");

/* Fortran's MPI_IN_PLACE and MPI_BOTTOM are the addresses of common blocks
 * of the MPI library's: the C sentinels for those, else buf itself. */
void *cp_f2c_buffer(const void *buf);

/* How many datatypes a Fortran array of one per peer holds. */
enum cp_f_peers {
    CP_F_GROUP, /* one per process of the group addressed (remote on an intercommunicator) */
    CP_F_IN,    /* one per source of the topology */
    CP_F_OUT    /* one per destination of the topology */
};
/* The C handles of a Fortran array of datatypes (free() it); NULL when
 * memory ran out. */
MPI_Datatype *cp_f2c_types(const MPI_Fint *types, MPI_Comm comm, enum cp_f_peers peers);

/* MPI_Start, MPI_Startall, MPI_Request_free, MPI_Pcontrol (requests.c). */
void cp_f_start(MPI_Fint *request, MPI_Fint *ierror);
void cp_f_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror);
void cp_f_request_free(MPI_Fint *request, MPI_Fint *ierror);
void cp_f_pcontrol(MPI_Fint *level, MPI_Fint *ierror);

/* Fortran's MPI_Init, MPI_Init_thread and MPI_Finalize under the symbol
 * name: the MPI library's own, then collprof's start (or before it, its
 * finalize) (lifecycle.c). */
void cp_fortran_init(const char *name, MPI_Fint *ierror);
void cp_fortran_init_thread(const char *name, MPI_Fint *required, MPI_Fint *provided,
                            MPI_Fint *ierror);
void cp_fortran_finalize(const char *name, MPI_Fint *ierror);

/* ierror is absent (NULL) when a mpi_f08 caller leaves it out. */
static inline void cp_f_set_error(MPI_Fint *ierror, int rc)
{
    if (ierror)
        *ierror = rc;
}

#endif
