/*
 * Facts of MPI that the profile model records: the form of a collective
 * call (blocking, nonblocking, persistent, large count) and the error
 * classes a refused call is recorded with.  The runtime records them on
 * the call path, the formats write and read their names (writers/
 * mpi_names.h).
 */
#ifndef COLLPROF_MPI_FACTS_H
#define COLLPROF_MPI_FACTS_H

enum cp_form {
    CP_FORM_ANY = 0,
    CP_FORM_BLOCKING = 1,
    CP_FORM_NONBLOCKING = 2,
    CP_FORM_PERSISTENT = 3,
    CP_FORM_LARGE = 4, /* added to one of the three: the _c function */
    CP_NFORMS = 8
};

/* The error classes of the MPI standard that a collective call may return,
 * by name: a call the MPI library refused is recorded with its class
 * (count files' "Failed:" line).  The runtime turns the library's class
 * into a code with the same list (lib/call.c); a class outside the list is
 * written "MPI_ERR_CLASS_<N>" with the library's own number N. */
#define CP_ERROR_CLASSES(X)                                                               \
    X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_TAG) X(MPI_ERR_COMM)     \
    X(MPI_ERR_RANK) X(MPI_ERR_REQUEST) X(MPI_ERR_ROOT) X(MPI_ERR_GROUP) X(MPI_ERR_OP)     \
    X(MPI_ERR_TOPOLOGY) X(MPI_ERR_DIMS) X(MPI_ERR_ARG) X(MPI_ERR_UNKNOWN)                 \
    X(MPI_ERR_TRUNCATE) X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_IN_STATUS)           \
    X(MPI_ERR_PENDING) X(MPI_ERR_INFO) X(MPI_ERR_NO_MEM)
/* Codes: 0 none (the call succeeded), 1.. the list above in its order,
 * CP_ERROR_CLASS_OTHER + N a class N outside it. */
#define CP_ERROR_CLASS_OTHER 1000

#endif
