/*
 * Checker of the Fortran tests (f_use_mpi.f90, f_use_mpi_f08.f90), run after
 * them, without MPI: their plan, in the terms of the C harness
 * (tests/mpi/harness.h), compared with the output they wrote.
 *
 * usage: fortran_check check DIR NRANKS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int main(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "usage: %s check DIR NRANKS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[3]), all[CPT_MAXRANKS];
    cpt_init_offline("fortran", n);
    for (int i = 0; i < n; i++)
        all[i] = i;
    /* MPI_INTEGER (4 bytes) for Alltoallv, MPI_DOUBLE_PRECISION (8) for Alltoall */
    cpt_comm *w = cpt_comm_plan("world", n, all, 4, 8);
    cpt_comm *d = cpt_comm_plan("dup of world", n, all, 4, 8);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 5, false);
    cpt_alltoallv(d, CPT_BLOCKING, CPT_VARY, 7, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 2, false);
    cpt_alltoallv(d, CPT_BLOCKING, CPT_VARY, 8, false);
    return cpt_verify_dir(argv[2]);
}
