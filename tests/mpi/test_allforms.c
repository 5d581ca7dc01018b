/*
 * Blocking, non-blocking (I...), large-count (..._c) and persistent
 * (..._init, MPI_Start, MPI_Startall) forms of several collectives,
 * interleaved on world, so that the ONE call numbering that all forms of a
 * collective share is checked: a persistent request is numbered when it is
 * started (each start one call), not when it is created.  Counts per
 * colls.h; every rank's rows of every call checked on rank 0 (cpt_verify,
 * with cp_profile_check).
 *
 * Calls on world, in this order (root R1 = 1 % n):
 *   Bcast 0 blocking root 0 count 3; (pb = MPI_Bcast_init root R1 count 2,
 *   pa = MPI_Allreduce_init count 3: not calls yet); Gatherv 0 Gatherv_c root
 *   R1 seed 0; Bcast 1 Ibcast root R1 count 3; Allreduce 0 blocking count 3;
 *   Bcast 2 start(pb); Allreduce 1 start(pa); Gatherv 1 Igatherv root 0 seed
 *   1; Barrier 0 Ibarrier; Bcast 3 Bcast_c root 0 count 5; Allreduce 2
 *   Iallreduce_c count 1; MPI_Startall(pb, pa): Bcast 4, Allreduce 3;
 *   Gatherv 2 Gatherv_init_c + start root R1 seed 2; Barrier 1 Barrier_init
 *   + start; Bcast 5 Ibcast_c root R1 count 2 (the matrix of pb's starts);
 *   Alltoallw 0 Ialltoallw_c seed 0, 1 Alltoallw_init + start seed 1, 2
 *   blocking seed 0; Scatter 0 Iscatter root 0 count 2, 1 Scatter_c root R1
 *   count 1, 2 Scatter_init_c + start root 0 count 2; Reduce_scatter_block 0
 *   Ireduce_scatter_block_c count 1, 1 Reduce_scatter_block_init count 1;
 *   Allgatherv 0 Iallgatherv_c seed 0, 1 Allgatherv_init + start seed 1 with
 *   MPI_IN_PLACE; Scan 0 Iscan count 2; Exscan 0 Exscan_init + start count 2;
 *   Reduce 0 Ireduce_c root R1 count 2 MPI_IN_PLACE; Barrier 2 blocking;
 *   Allreduce 4 Allreduce_c count 2 MPI_IN_PLACE; Bcast 6 start(pb) after
 *   everything else.
 */
#include <stdio.h>

#include "colls.h"

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        cpt_die("%s failed", what);
}

/* The persistent Bcast (root, count 2) and Allreduce (count 3, MPI_SUM) of
 * this test, and what each start must deliver. */
static int pb_buf[2], pa_in[3], pa_out[3];

static int before_bcast(cpt_comm *w, int root)
{
    int k = cptc_plan_bcast(w, root, 2, sizeof(int));
    for (int i = 0; i < 2; i++)
        pb_buf[i] = w->rank == root ? cptc_value(root, -1, i, k) : -1;
    return k;
}

static void after_bcast(cpt_comm *w, int root, int k)
{
    for (int i = 0; i < 2; i++)
        if (pb_buf[i] != cptc_value(root, -1, i, k))
            cpt_data_error(w, "Bcast", k, root);
}

static int before_allreduce(cpt_comm *w)
{
    int k = cptc_plan_allreduce(w, "Allreduce", 3, sizeof(int));
    for (int i = 0; i < 3; i++)
        pa_in[i] = 10 * (w->rank + 1) + i + k, pa_out[i] = -1;
    return k;
}

static void after_allreduce(cpt_comm *w, int k)
{
    for (int i = 0; i < 3; i++) {
        int want = 0;
        for (int r = 0; r < w->n; r++)
            want += 10 * (r + 1) + i + k;
        if (pa_out[i] != want)
            cpt_data_error(w, "Allreduce", k, -1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("allforms");
    int n = cpt_world_size(), all[CPT_MAXRANKS], r1 = 1 % n;
    for (int i = 0; i < n; i++)
        all[i] = i;
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    MPI_Request pb, pa;
    int k, kb, ka;

    cptc_bcast(w, CPT_BLOCKING, 0, 3);
    ok(MPI_Bcast_init(pb_buf, 2, MPI_INT, r1, MPI_COMM_WORLD, MPI_INFO_NULL, &pb),
       "MPI_Bcast_init");
    ok(MPI_Allreduce_init(pa_in, pa_out, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pa),
       "MPI_Allreduce_init");
    cptc_gatherv(w, CPT_LARGE, r1, 0, false);
    cptc_bcast(w, CPT_NONBLOCKING, r1, 3);
    cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 3, false);

    k = before_bcast(w, r1);
    ok(MPI_Start(&pb), "MPI_Start");
    ok(MPI_Wait(&pb, MPI_STATUS_IGNORE), "MPI_Wait");
    after_bcast(w, r1, k);
    k = before_allreduce(w);
    ok(MPI_Start(&pa), "MPI_Start");
    ok(MPI_Wait(&pa, MPI_STATUS_IGNORE), "MPI_Wait");
    after_allreduce(w, k);

    cptc_gatherv(w, CPT_NONBLOCKING, 0, 1, false);
    cptc_barrier(w, CPT_NONBLOCKING);
    cptc_bcast(w, CPT_LARGE, 0, 5);
    cptc_allreduce(w, "Allreduce", CPT_NONBLOCKING_LARGE, 1, false);

    kb = before_bcast(w, r1);
    ka = before_allreduce(w);
    MPI_Request both[2] = {pb, pa};
    ok(MPI_Startall(2, both), "MPI_Startall");
    MPI_Status st[2];
    ok(MPI_Waitall(2, both, st), "MPI_Waitall");
    after_bcast(w, r1, kb);
    after_allreduce(w, ka);

    cptc_gatherv(w, CPT_PERSISTENT_LARGE, r1, 2, false);
    cptc_barrier(w, CPT_PERSISTENT);
    cptc_bcast(w, CPT_NONBLOCKING_LARGE, r1, 2);
    cptc_alltoallw(w, CPT_NONBLOCKING_LARGE, 0, false);
    cptc_alltoallw(w, CPT_PERSISTENT, 1, false);
    cptc_alltoallw(w, CPT_BLOCKING, 0, false);
    cptc_scatter(w, CPT_NONBLOCKING, 0, 2, false);
    cptc_scatter(w, CPT_LARGE, r1, 1, false);
    cptc_scatter(w, CPT_PERSISTENT_LARGE, 0, 2, false);
    cptc_reduce_scatter_block(w, CPT_NONBLOCKING_LARGE, 1, false);
    cptc_reduce_scatter_block(w, CPT_PERSISTENT, 1, false);
    cptc_allgatherv(w, CPT_NONBLOCKING_LARGE, 0, false);
    cptc_allgatherv(w, CPT_PERSISTENT, 1, true);
    cptc_allreduce(w, "Scan", CPT_NONBLOCKING, 2, false);
    cptc_allreduce(w, "Exscan", CPT_PERSISTENT, 2, false);
    cptc_reduce(w, CPT_NONBLOCKING_LARGE, r1, 2, true);
    cptc_barrier(w, CPT_BLOCKING);
    cptc_allreduce(w, "Allreduce", CPT_LARGE, 2, true);

    k = before_bcast(w, r1);
    ok(MPI_Start(&pb), "MPI_Start");
    ok(MPI_Wait(&pb, MPI_STATUS_IGNORE), "MPI_Wait");
    after_bcast(w, r1, k);
    ok(MPI_Request_free(&pb), "MPI_Request_free");
    ok(MPI_Request_free(&pa), "MPI_Request_free");

    MPI_Finalize();
    return cpt_verify();
}
