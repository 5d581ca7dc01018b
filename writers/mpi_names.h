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

#include "mpi_facts.h"

/* "MPI_Ialltoallv_c" of ("Alltoallv", CP_FORM_NONBLOCKING + CP_FORM_LARGE),
 * into out[len]. */
void cp_mpi_function_name(const char *collective, int form, char *out, size_t len);

/* The collective ("Alltoallv", capitalised) and form of a function's name;
 * false when the name is not "MPI_" (or "MPIX_", the persistent forms
 * before MPI 4.0) followed by a name of that shape.  The blocking name gives
 * CP_FORM_BLOCKING. */
bool cp_mpi_function_parse(const char *name, char *collective, size_t len, int *form);

/* The name of an error code into out[len] ("MPI_ERR_BUFFER"). */
void cp_error_class_name(int code, char *out, size_t len);
/* The code of a name; -1 when it is not one (names of letters, digits and
 * '_' only, "MPI_ERR_" first). */
int cp_error_class_parse(const char *name, size_t len);

#endif
