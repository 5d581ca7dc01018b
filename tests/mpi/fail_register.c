/*
 * A rank that cannot register a communicator, for the tests: preloaded
 * before libcollprof, it makes PMPI_Group_translate_ranks fail on world
 * rank $CPT_FAIL_REGISTER_RANK, as running out of memory in collprof's
 * registry would (collprof calls that function by its PMPI_ name when it
 * registers a communicator; an application calling MPI_Group_translate_ranks
 * is not affected).  That rank's calls on its communicators are then not
 * recorded, and at finalize every rank learns that some registry is
 * incomplete.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

typedef int (*translate_fn)(MPI_Group, int, const int[], MPI_Group, int[]);

EXPORT int PMPI_Group_translate_ranks(MPI_Group g1, int n, const int r1[], MPI_Group g2,
                                      int r2[])
{
    static translate_fn real;
    if (!real)
        real = (translate_fn)dlsym(RTLD_NEXT, "PMPI_Group_translate_ranks");
    const char *v = getenv("CPT_FAIL_REGISTER_RANK");
    int rank = -1;
    if (v && PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS && rank == atoi(v))
        return MPI_ERR_GROUP;
    return real ? real(g1, n, r1, g2, r2) : MPI_ERR_INTERN;
}
