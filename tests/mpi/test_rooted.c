/*
 * Rooted collectives (Gather, Gatherv, Scatter, Scatterv, Bcast, Reduce)
 * with ROTATING roots: call k uses root k % size; MPI_IN_PLACE at the root
 * in some calls (where the standard allows it), with wrong values in the
 * arguments MPI then ignores.  Counts per colls.h; every rank's rows of
 * every call checked on rank 0 with the reader (cpt_verify), and
 * cp_profile_check must find nothing.
 *
 * Gather and Reduce pass the same counts in every call, so their send
 * matrices are identical and only the root tells the calls apart: the Root
 * is part of a block's identity (calls with the same root share a block).
 *
 * On world, round k = 0..3, root k % n:
 *   Gather   count 2,        MPI_IN_PLACE in round 1
 *   Gatherv  seed k,         MPI_IN_PLACE in round 2
 *   Scatter  count 1 + k%2,  MPI_IN_PLACE in round 0
 *   Scatterv seed k,         MPI_IN_PLACE in round 3
 *   Bcast    count 3
 *   Reduce   count 2,        MPI_IN_PLACE in round 1
 * (round 3 non-blocking, the others blocking)
 * Then, datatypes of different sizes (odd ranks pass half the count of a
 * contiguous pair of MPI_INT): Gather 4 root 0 (its send side in bytes, the
 * root's receive row in elements) and Bcast 4 root 1 % n (each side has one
 * datatype size: no bytes).
 * On world split with reversed rank order (the root is a communicator rank,
 * not a world rank): Gatherv root 1 seed 5, Bcast root 0, Reduce root 0.
 */
#include <stdlib.h>

#include "colls.h"

static MPI_Datatype pair_type(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Gather of 4 ints from every rank to root 0: odd ranks send 2 pairs. */
static void gather_mixed(cpt_comm *w)
{
    int n = w->n, k = cpt_plan(w, "Gather", 0);
    for (int r = 0; r < n; r++)
        cpt_plan_row1(w, "Gather", k, CP_SEND, r, r % 2 ? 8 : 4, r % 2 ? 2 : 4);
    cpt_plan_row1(w, "Gather", k, CP_RECV, 0, 4, 4);
    int me = w->rank, sbuf[4], *rbuf = calloc((size_t)n * 4, sizeof *rbuf);
    for (int i = 0; i < 4; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    MPI_Datatype t = me % 2 ? pair_type() : MPI_INT;
    if (MPI_Gather(sbuf, me % 2 ? 2 : 4, t, rbuf, 4, MPI_INT, 0, w->comm) != MPI_SUCCESS)
        cpt_die("mixed Gather failed");
    if (me % 2)
        MPI_Type_free(&t);
    if (me == 0)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < 4; i++)
                if (rbuf[4 * p + i] != cptc_value(p, -1, i, k))
                    cpt_data_error(w, "Gather", k, p);
    free(rbuf);
}

/* Bcast of 4 ints from root 1 % n: odd ranks pass 2 pairs. */
static void bcast_mixed(cpt_comm *w)
{
    int n = w->n, root = 1 % n, k = cpt_plan(w, "Bcast", root);
    for (int r = 0; r < n; r++)
        cpt_plan_row1(w, "Bcast", k, r == root ? CP_SEND : CP_RECV, r, r % 2 ? 8 : 4,
                      r % 2 ? 2 : 4);
    int me = w->rank, buf[4];
    for (int i = 0; i < 4; i++)
        buf[i] = me == root ? cptc_value(root, -1, i, k) : -1;
    MPI_Datatype t = me % 2 ? pair_type() : MPI_INT;
    if (MPI_Bcast(buf, me % 2 ? 2 : 4, t, root, w->comm) != MPI_SUCCESS)
        cpt_die("mixed Bcast failed");
    if (me % 2)
        MPI_Type_free(&t);
    for (int i = 0; i < 4; i++)
        if (buf[i] != cptc_value(root, -1, i, k))
            cpt_data_error(w, "Bcast", k, root);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("rooted");
    int n = cpt_world_size(), me = cpt_world_rank(), all[CPT_MAXRANKS], rev[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i, rev[i] = n - 1 - i;
    MPI_Comm revc;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &revc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_comm *r = cpt_comm_declare("world reversed", n, rev, revc, MPI_INT, MPI_INT);

    for (int k = 0; k < 4; k++) {
        int root = k % n, form = k == 3 ? CPT_NONBLOCKING : CPT_BLOCKING;
        cptc_gather(w, form, root, 2, k == 1);
        cptc_gatherv(w, form, root, k, k == 2);
        cptc_scatter(w, form, root, 1 + k % 2, k == 0);
        cptc_scatterv(w, form, root, k, k == 3);
        cptc_bcast(w, form, root, 3);
        cptc_reduce(w, form, root, 2, k == 1);
    }
    gather_mixed(w);
    bcast_mixed(w);
    cptc_gatherv(r, CPT_BLOCKING, 1, 5, false);
    cptc_bcast(r, CPT_BLOCKING, 0, 4);
    cptc_reduce(r, CPT_BLOCKING, 0, 1, true);

    MPI_Comm_free(&revc);
    MPI_Finalize();
    return cpt_verify();
}
