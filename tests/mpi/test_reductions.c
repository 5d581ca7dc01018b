/*
 * Reductions (Allreduce, Reduce_scatter, Reduce_scatter_block, Scan,
 * Exscan) and Barrier, on world and a dup of world; MPI_IN_PLACE where
 * allowed.  Barrier: its calls are counted, with rows of no counts on both
 * sides.  Counts per colls.h; every rank's rows of every call checked on
 * rank 0 (cpt_verify, with cp_profile_check); reduced values checked on
 * every rank.
 *
 * On world:
 *   Allreduce            0 count 3, 1 count 3 MPI_IN_PLACE, 2 count 1
 *   Reduce_scatter       0 seed 0, 1 seed 1 MPI_IN_PLACE, 2 seed 0
 *   Reduce_scatter_block 0 count 2, 1 count 2 MPI_IN_PLACE
 *   Scan                 0 count 2, 1 count 2 MPI_IN_PLACE
 *   Exscan               0 count 2, 1 count 1 MPI_IN_PLACE
 *   Barrier              0, 1, 2 (between the others)
 * On the dup: Barrier 0, Allreduce 0 count 5, Barrier 1.
 */
#include "colls.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("reductions");
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Comm dupc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_INT, MPI_INT);

    cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 3, false);
    cptc_reduce_scatter(w, CPT_BLOCKING, 0, false);
    cptc_barrier(w, CPT_BLOCKING);
    cptc_reduce_scatter_block(w, CPT_BLOCKING, 2, false);
    cptc_allreduce(w, "Scan", CPT_BLOCKING, 2, false);
    cptc_allreduce(w, "Exscan", CPT_BLOCKING, 2, false);
    cptc_barrier(d, CPT_BLOCKING);
    cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 3, true);
    cptc_reduce_scatter(w, CPT_BLOCKING, 1, true);
    cptc_reduce_scatter_block(w, CPT_BLOCKING, 2, true);
    cptc_allreduce(d, "Allreduce", CPT_BLOCKING, 5, false);
    cptc_barrier(w, CPT_BLOCKING);
    cptc_allreduce(w, "Scan", CPT_BLOCKING, 2, true);
    cptc_allreduce(w, "Exscan", CPT_BLOCKING, 1, true);
    cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 1, false);
    cptc_reduce_scatter(w, CPT_BLOCKING, 0, false);
    cptc_barrier(d, CPT_BLOCKING);
    cptc_barrier(w, CPT_BLOCKING);

    MPI_Comm_free(&dupc);
    MPI_Finalize();
    return cpt_verify();
}
