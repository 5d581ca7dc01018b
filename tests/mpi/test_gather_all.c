/*
 * The all-to-all and all-gather family: Allgather, Allgatherv, Alltoallw
 * (MIXED datatypes: MPI_INT between ranks whose sum is even, MPI_DOUBLE
 * otherwise, so collprof must give its counts in bytes: count x size of that
 * peer's datatype), with MPI_IN_PLACE where allowed (wrong values in the
 * arguments MPI then ignores), and an Allgather with datatypes of different
 * sizes on different ranks (counts in bytes).  Counts per colls.h; every
 * rank's rows of every call checked on rank 0 (cpt_verify, with
 * cp_profile_check).
 *
 * On world:
 *   Allgather  0 count 3, 1 count 3 MPI_IN_PLACE, 2 count 4 mixed sizes,
 *              3 count 3 (same matrix as 0)
 *   Allgatherv 0 seed 0, 1 seed 1 MPI_IN_PLACE, 2 seed 0 (same as 0)
 *   Alltoallw  0 seed 0, 1 seed 1 MPI_IN_PLACE (symmetric counts),
 *              2 seed 0 non-blocking (same as 0), 3 seed 2 large-count
 * On the odd ranks of world, in reversed order (one rank at 2 and 3 ranks):
 *   Allgatherv 0 seed 4, Alltoallw 0 seed 3.
 */
#include "colls.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("gather_all");
    int n = cpt_world_size(), me = cpt_world_rank(), all[CPT_MAXRANKS], odd[CPT_MAXRANKS], no = 0;
    for (int i = 0; i < n; i++)
        all[i] = i;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2)
            odd[no++] = i;
    MPI_Comm oddc;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? 1 : MPI_UNDEFINED, -me, &oddc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_comm *o = cpt_comm_declare("odd ranks (reversed)", no, odd, oddc, MPI_INT, MPI_INT);

    cptc_allgather(w, CPT_BLOCKING, 3, false, false);
    cptc_allgatherv(w, CPT_BLOCKING, 0, false);
    cptc_alltoallw(w, CPT_BLOCKING, 0, false);
    cptc_allgather(w, CPT_BLOCKING, 3, true, false);
    cptc_allgatherv(w, CPT_BLOCKING, 1, true);
    cptc_alltoallw(w, CPT_BLOCKING, 1, true);
    cptc_allgather(w, CPT_BLOCKING, 4, false, true);
    cptc_allgatherv(w, CPT_BLOCKING, 0, false);
    cptc_alltoallw(w, CPT_NONBLOCKING, 0, false);
    cptc_allgather(w, CPT_BLOCKING, 3, false, false);
    cptc_alltoallw(w, CPT_LARGE, 2, false);
    cptc_allgatherv(o, CPT_BLOCKING, 4, false);
    cptc_alltoallw(o, CPT_BLOCKING, 3, false);

    if (oddc != MPI_COMM_NULL)
        MPI_Comm_free(&oddc);
    MPI_Finalize();
    return cpt_verify();
}
