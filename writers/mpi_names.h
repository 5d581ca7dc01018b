/*
 * The names of the MPI functions collprof wraps, as profile.cubex's MPI
 * regions carry them: one collective (the count series' name, "Alltoallv")
 * in each of its forms.  Writer and parser side by side: the runtime names
 * a region from (collective, form), the reader finds the collective of a
 * region from its name.
 *
 *   blocking      MPI_Alltoallv          nonblocking   MPI_Ialltoallv
 *   persistent    MPI_Alltoallv_init     large count   ..._c of each
 *
 * CP_FORM_ANY names the collective alone (MPI_Alltoallv): calls whose
 * form was not told apart.
 */
#ifndef COLLPROF_MPI_NAMES_H
#define COLLPROF_MPI_NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum cp_form {
    CP_FORM_ANY = 0,
    CP_FORM_BLOCKING = 1,
    CP_FORM_NONBLOCKING = 2,
    CP_FORM_PERSISTENT = 3,
    CP_FORM_LARGE = 4, /* added to one of the three: the _c function */
    CP_NFORMS = 8
};

/* "MPI_Ialltoallv_c" of ("Alltoallv", CP_FORM_NONBLOCKING + CP_FORM_LARGE),
 * into out[len]. */
void cp_mpi_function_name(const char *collective, int form, char *out, size_t len);

/* The collective ("Alltoallv", capitalised) and form of a function's name;
 * false when the name is not "MPI_" (or "MPIX_", the persistent forms
 * before MPI 4.0) followed by a name of that shape.  The blocking name gives
 * CP_FORM_BLOCKING. */
bool cp_mpi_function_parse(const char *name, char *collective, size_t len, int *form);

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
/* The name of an error code into out[len] ("MPI_ERR_BUFFER"). */
void cp_error_class_name(int code, char *out, size_t len);
/* The code of a name; -1 when it is not one (names of letters, digits and
 * '_' only, "MPI_ERR_" first). */
int cp_error_class_parse(const char *name, size_t len);

#endif
