/*
 * COLLPROF_COLLECTIVES: "all" (the default) or a comma-separated list of
 * collective names, case-insensitive: only those are profiled, every form of
 * them; the others do not appear at all (no blocks; a communicator with
 * none of them is not in the manifest).  A name collprof does not accept
 * makes it profile everything (and say so once on stderr: robustness.sh).
 * The harness applies the same rule to its plan (cpt_collective_selected),
 * so this program checks whatever list it runs with.
 *
 * On world: Alltoallv (blocking, Alltoallv_c), Alltoall, Bcast (blocking,
 * Ibcast, Bcast_init + start), Gather, Allreduce, Barrier; on a dup of
 * world only Allreduce and Barrier (absent from the output when those are
 * not selected).
 */
#include "colls.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("select");
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Comm dupc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_INT, MPI_INT);

    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cptc_bcast(w, CPT_BLOCKING, 0, 2);
    cptc_allreduce(d, "Allreduce", CPT_BLOCKING, 1, false);
    cptc_gather(w, CPT_BLOCKING, 1 % n, 3, false);
    cpt_alltoall(w, CPT_BLOCKING, 2, false);
    cptc_bcast(w, CPT_NONBLOCKING, 1 % n, 1);
    cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 2, false);
    cptc_barrier(w, CPT_BLOCKING);
    cpt_alltoallv(w, CPT_LARGE, CPT_VARY, 1, false);
    cptc_barrier(d, CPT_BLOCKING);
    cptc_bcast(w, CPT_PERSISTENT, 0, 2);

    MPI_Comm_free(&dupc);
    MPI_Finalize();
    return cpt_verify();
}
