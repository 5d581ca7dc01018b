/*
 * Open MPI's Fortran side.  Its Fortran bindings (mpif.h, use mpi,
 * use mpi_f08) call the PMPI_ functions directly, so the C wrappers never
 * see a Fortran application's calls.  collprof therefore defines the
 * Fortran entry points itself: the collectives are generated from
 * wrappers.tbl (fortran_wrappers.c); here are the sentinels, the datatype
 * arrays, and the other entry points collprof needs to see: MPI_Init,
 * MPI_Init_thread and MPI_Finalize (forwarded to Open MPI's own Fortran
 * functions by lifecycle.c, as for the mpi_f08 ones), MPI_Start,
 * MPI_Startall, MPI_Request_free (persistent collectives) and
 * MPI_Pcontrol, each converted and sent to collprof's C wrapper.
 */
#include <stdlib.h>

#include "comm_registry.h"
#include "export.h"
#include "fortran/fortran.h"

/* The common blocks behind Fortran's MPI_IN_PLACE and MPI_BOTTOM, under
 * each name mangling a Fortran compiler may use; weak, so that a library
 * without one of them still loads.  A Fortran executable that names them
 * owns the copy everyone resolves to. */
#define SENTINEL(name) extern char name __attribute__((weak));
SENTINEL(mpi_fortran_in_place_)
SENTINEL(mpi_fortran_in_place__)
SENTINEL(mpi_fortran_in_place)
SENTINEL(MPI_FORTRAN_IN_PLACE)
SENTINEL(mpi_fortran_bottom_)
SENTINEL(mpi_fortran_bottom__)
SENTINEL(mpi_fortran_bottom)
SENTINEL(MPI_FORTRAN_BOTTOM)

static int is(const void *buf, const char *a, const char *b, const char *c, const char *d)
{
    return buf && (buf == a || buf == b || buf == c || buf == d);
}

void *cp_f2c_buffer(const void *buf)
{
    if (is(buf, &mpi_fortran_in_place_, &mpi_fortran_in_place__, &mpi_fortran_in_place,
           &MPI_FORTRAN_IN_PLACE))
        return MPI_IN_PLACE;
    if (is(buf, &mpi_fortran_bottom_, &mpi_fortran_bottom__, &mpi_fortran_bottom,
           &MPI_FORTRAN_BOTTOM))
        return MPI_BOTTOM;
    return (void *)buf;
}

static int peer_count(MPI_Comm comm, enum cp_f_peers peers)
{
    int n = 0, inter = 0, rank = 0, in = 0, out = 0;
    if (peers == CP_F_GROUP) {
        PMPI_Comm_test_inter(comm, &inter);
        if (inter)
            PMPI_Comm_remote_size(comm, &n);
        else
            PMPI_Comm_size(comm, &n);
        return n;
    }
    /* Not a topology: 0, and the MPI library reports the error. */
    PMPI_Comm_rank(comm, &rank);
    cp_topology_degrees(comm, rank, &in, &out);
    return peers == CP_F_IN ? in : out;
}

MPI_Datatype *cp_f2c_types(const MPI_Fint *types, MPI_Comm comm, enum cp_f_peers peers)
{
    int n = peer_count(comm, peers);
    MPI_Datatype *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *c);
    if (!c)
        return NULL;
    for (int i = 0; i < n && types; i++)
        c[i] = MPI_Type_f2c(types[i]);
    return c;
}

/* ------------------------------------------------- start and finalize */

/* The Fortran names of one entry point: gfortran's one trailing underscore
 * first, the other manglings (and the mpi_f08 name, where given) as
 * aliases. */
#define F_ALIASES(proto, low, up, ...)                                                            \
    CP_EXPORT void low##__ proto __attribute__((alias(#low "_")));                                \
    CP_EXPORT void low proto __attribute__((alias(#low "_")));                                    \
    CP_EXPORT void up proto __attribute__((alias(#low "_")));                                     \
    __VA_OPT__(CP_EXPORT void __VA_ARGS__ proto __attribute__((alias(#low "_")));)

/* Open MPI's own Fortran functions do what the Fortran standard asks of
 * them (command line arguments); collprof starts after them (lifecycle.c). */
CP_EXPORT void mpi_init_(MPI_Fint *ierror)
{
    cp_fortran_init("mpi_init_", ierror);
}
F_ALIASES((MPI_Fint * ierror), mpi_init, MPI_INIT)

CP_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    cp_fortran_init_thread("mpi_init_thread_", required, provided, ierror);
}
F_ALIASES((MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierror), mpi_init_thread,
          MPI_INIT_THREAD)

CP_EXPORT void mpi_finalize_(MPI_Fint *ierror)
{
    cp_fortran_finalize("mpi_finalize_", ierror);
}
F_ALIASES((MPI_Fint * ierror), mpi_finalize, MPI_FINALIZE)

/* The aborting rank writes its partial profile first (lifecycle.c). */
CP_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror)
{
    cp_f_set_error(ierror, MPI_Abort(MPI_Comm_f2c(*comm), *errorcode));
}
F_ALIASES((MPI_Fint * comm, MPI_Fint *errorcode, MPI_Fint *ierror), mpi_abort, MPI_ABORT,
          mpi_abort_f08_)

/* ------------------------------------- persistent requests, Pcontrol */
/* (the work in requests.c, shared with MPICH's mpi_f08 entry points) */

CP_EXPORT void mpi_start_(MPI_Fint *request, MPI_Fint *ierror)
{
    cp_f_start(request, ierror);
}
F_ALIASES((MPI_Fint * request, MPI_Fint *ierror), mpi_start, MPI_START, mpi_start_f08_)

CP_EXPORT void mpi_startall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror)
{
    cp_f_startall(count, requests, ierror);
}
F_ALIASES((MPI_Fint * count, MPI_Fint *requests, MPI_Fint *ierror), mpi_startall, MPI_STARTALL,
          mpi_startall_f08_)

CP_EXPORT void mpi_request_free_(MPI_Fint *request, MPI_Fint *ierror)
{
    cp_f_request_free(request, ierror);
}
F_ALIASES((MPI_Fint * request, MPI_Fint *ierror), mpi_request_free, MPI_REQUEST_FREE,
          mpi_request_free_f08_)

CP_EXPORT void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierror)
{
    cp_f_pcontrol(level, ierror);
}
F_ALIASES((MPI_Fint * level, MPI_Fint *ierror), mpi_pcontrol, MPI_PCONTROL, mpi_pcontrol_f08_)
