/*
 * Every form of the two collectives, interleaved on one communicator so that
 * the numbering across forms is checked: blocking, non-blocking (I... +
 * MPI_Wait), large-count (..._c, blocking and non-blocking) and persistent
 * (..._init, then MPI_Start several times and MPI_Startall; each start is one
 * call; MPI_Request_free; a new persistent request created after the free,
 * which MPI may give the same handle, records its own counts).
 *
 * On world, Alltoallv calls:
 *   0 blocking, 1 Ialltoallv, 2 Alltoallv_c, 3 Ialltoallv_c,
 *   4 start(pv), 5 blocking, 6 start(pv),
 *   7 startall: pv, 8 startall: pvc (Alltoallv_init_c, zeros),
 *   9 start(pvc), 10 Ialltoallv MPI_IN_PLACE,
 *   (pv freed, pv2 created) 11 start(pv2), 12 blocking, 13 start(pv2)
 * Alltoall calls: 0 blocking, 1 Ialltoall, 2 Alltoall_c, 3 start(pa),
 *   4 Ialltoall_c, 5 startall: pa, 6 start(pac, Alltoall_init_c),
 *   7 Ialltoall MPI_IN_PLACE
 * On a dup of world, persistent requests started in the same MPI_Startall as
 * world's: Alltoallv 0 blocking, 1 startall: pd, 2 start(pd).
 */
#include "harness.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("forms");
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Comm dupc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_DOUBLE);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_DOUBLE, MPI_INT);

    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);
    cpt_alltoallv(w, CPT_NONBLOCKING, CPT_VARY, 1, false);
    cpt_alltoall(w, CPT_NONBLOCKING, 2, false);
    cpt_alltoallv(w, CPT_LARGE, CPT_VARY, 2, false);
    cpt_alltoall(w, CPT_LARGE, 3, false);
    cpt_alltoallv(w, CPT_NONBLOCKING_LARGE, CPT_VARY, 3, false);

    cpt_persistent pv, pvc, pa, pac, pd, pv2;
    cpt_alltoallv_init(&pv, w, false, CPT_VARY, 100);
    cpt_alltoallv_init(&pvc, w, true, CPT_ZEROS, 7);
    cpt_alltoall_init(&pa, w, false, 5);
    cpt_alltoallv_init(&pd, d, false, CPT_VARY, 300);
    cpt_alltoallv(d, CPT_BLOCKING, CPT_VARY, 301, false);

    cpt_start(&pv);
    cpt_start(&pa);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 4, false);
    cpt_start(&pv);
    cpt_alltoall(w, CPT_NONBLOCKING_LARGE, 4, false);
    cpt_persistent *batch[] = {&pv, &pa, &pvc, &pd};
    cpt_startall(batch, 4);
    cpt_start(&pvc);
    cpt_start(&pd);
    cpt_alltoall_init(&pac, w, true, 6);
    cpt_start(&pac);
    cpt_alltoallv(w, CPT_NONBLOCKING, CPT_SYMMETRIC, 5, true);
    cpt_alltoall(w, CPT_NONBLOCKING, 3, true);

    cpt_persistent_free(&pv);
    cpt_alltoallv_init(&pv2, w, false, CPT_VARY, 200);
    cpt_start(&pv2);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 6, false);
    cpt_start(&pv2);

    cpt_persistent_free(&pv2);
    cpt_persistent_free(&pvc);
    cpt_persistent_free(&pa);
    cpt_persistent_free(&pac);
    cpt_persistent_free(&pd);
    MPI_Comm_free(&dupc);
    MPI_Finalize();
    return cpt_verify();
}
