/*
 * Checker of the Fortran collectives test (f_collectives.F90, built with
 * `use mpi`, with `use mpi_f08` and with mpif.h), run after it, without MPI: its plan in
 * the terms of the C harness (tests/mpi/harness.h, colls.h), compared with
 * the output it wrote, every rank's row of every call, and cp_profile_check.
 *
 * usage: collectives_check check DIR NRANKS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colls.h"

enum { F_INTEGER = 4, F_DOUBLE_PRECISION = 8 };

int main(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "usage: %s check DIR NRANKS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[3]), all[CPT_MAXRANKS];
    cpt_init_offline("fortran_collectives", n);
    for (int i = 0; i < n; i++)
        all[i] = i;
    cpt_comm *w = cpt_comm_plan("world", n, all, F_INTEGER, F_INTEGER);

    cptc_plan_bcast(w, 0, 3, F_INTEGER);
    cptc_plan_allreduce(w, "Allreduce", 2, F_INTEGER);
    cptc_plan_gatherv(w, 1 % n, 0, F_INTEGER);
    cptc_plan_bcast(w, n - 1, 2, F_DOUBLE_PRECISION);
    /* MPI_IN_PLACE at the root: its send row is recvcounts[root], with the
     * receive datatype's size (the Fortran program passes 99 MPI_CHARACTER) */
    cptc_plan_gatherv(w, 0, 2, F_INTEGER);
    cptc_plan_reduce(w, 0, 2, F_DOUBLE_PRECISION);
    cptc_plan_scatter(w, n - 1, 2, F_INTEGER);
    cptc_plan_allgatherv(w, 1, F_INTEGER);
    cptc_plan_barrier(w);
    cptc_plan_bcast(w, 0, 4, F_INTEGER);          /* MPI_Ibcast */
    cptc_plan_bcast(w, n - 1, 1, F_INTEGER);      /* persistent: two starts */
    cptc_plan_bcast(w, n - 1, 1, F_INTEGER);
    cptc_plan_alltoallw(w, 0, false); /* one datatype per peer */
    cptc_plan_allreduce(w, "Allreduce", 1, F_DOUBLE_PRECISION); /* MPI_IN_PLACE */
    cptc_plan_allreduce(w, "Allreduce", 1, F_INTEGER);          /* the data check */
    return cpt_verify_dir(argv[2]);
}
