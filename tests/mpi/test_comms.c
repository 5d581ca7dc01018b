/*
 * Communicators (3 or 4 ranks): each gets its own id and its own call
 * numbering, and is found in the output by its members (world ranks).
 *
 *  world    MPI_COMM_WORLD
 *  even     MPI_Comm_split of the even world ranks, in world order
 *  odd      MPI_Comm_split of the odd world ranks with a key that REVERSES
 *           their order: world ranks decrease along communicator ranks
 *  dup      MPI_Comm_dup(MPI_COMM_WORLD): same members as world, its own
 *           id and numbering
 *  first    a dup of world, used, then freed;
 *  second   a dup of world created after that (MPI may hand out the freed
 *           handle again): a distinct communicator in the output
 *  even2    the even split again, after freeing the first one
 *  self     MPI_COMM_SELF of each rank: one communicator per rank, each with
 *           its own lead
 *  dups     a dup of each split (collprof copies a registered parent's
 *           members: the reversed order must survive), and a dup of
 *           MPI_COMM_SELF made before SELF is used (a parent collprof has
 *           not registered: asked of MPI)
 * Each uses a different datatype, so the datatype size is checked too.
 */
#include <stdio.h>

#include "harness.h"

/* Rank r's own communicator (MPI_COMM_SELF or a dup of it), as the test
 * declares it: one member, r; handle on rank r only. */
static cpt_comm *declare_self(const char *what, int r, MPI_Comm handle, MPI_Datatype st,
                              MPI_Datatype rt)
{
    char label[48];
    snprintf(label, sizeof label, "%s of rank %d", what, r);
    return cpt_comm_declare(label, 1, &r, cpt_world_rank() == r ? handle : MPI_COMM_NULL, st,
                            rt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("comms");
    int n = cpt_world_size(), me = cpt_world_rank();
    int all[CPT_MAXRANKS], even[CPT_MAXRANKS], odd[CPT_MAXRANKS], ne = 0, no = 0;
    for (int i = 0; i < n; i++)
        all[i] = i;
    for (int i = 0; i < n; i += 2)
        even[ne++] = i;
    for (int i = n - 1; i >= 0; i--) /* key -rank: decreasing world ranks */
        if (i % 2)
            odd[no++] = i;

    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);

    MPI_Comm split, dupc;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me % 2 ? -me : me, &split);
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    cpt_comm *ev = cpt_comm_declare("even", ne, even, me % 2 ? MPI_COMM_NULL : split, MPI_SHORT,
                                    MPI_INT);
    cpt_comm *od = cpt_comm_declare("odd (reversed)", no, odd, me % 2 ? split : MPI_COMM_NULL,
                                    MPI_DOUBLE, MPI_CHAR);
    cpt_comm *du = cpt_comm_declare("dup of world", n, all, dupc, MPI_LONG_LONG, MPI_SHORT);

    for (int i = 0; i < 3; i++) {
        cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 20 + i, false);
        cpt_alltoallv(ev, CPT_BLOCKING, CPT_VARY, 30 + i, false);
        cpt_alltoallv(od, CPT_BLOCKING, CPT_ZEROS, i, false);
        cpt_alltoallv(du, CPT_BLOCKING, CPT_VARY, 40 + i, false);
        cpt_alltoall(du, CPT_BLOCKING, 2 + i, false);
    }
    cpt_alltoall(od, CPT_BLOCKING, 3, false);
    cpt_alltoall(ev, CPT_BLOCKING, 2, true);

    /* Duplicates of registered parents, and of one not yet registered. */
    MPI_Comm split_dup, self_dup;
    MPI_Comm_dup(split, &split_dup);
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    cpt_comm *evd = cpt_comm_declare("dup of even", ne, even,
                                     me % 2 ? MPI_COMM_NULL : split_dup, MPI_INT, MPI_SHORT);
    cpt_comm *odd_dup = cpt_comm_declare("dup of odd (reversed)", no, odd,
                                         me % 2 ? split_dup : MPI_COMM_NULL, MPI_SHORT, MPI_INT);
    for (int r = 0; r < n; r++)
        cpt_alltoallv(declare_self("dup of self", r, self_dup, MPI_SHORT, MPI_SHORT),
                      CPT_BLOCKING, CPT_VARY, 100 + r, false);
    cpt_alltoallv(evd, CPT_BLOCKING, CPT_VARY, 35, false);
    cpt_alltoallv(odd_dup, CPT_BLOCKING, CPT_VARY, 36, false);
    cpt_alltoall(odd_dup, CPT_BLOCKING, 5, false);
    MPI_Comm_free(&split_dup);
    MPI_Comm_free(&self_dup);

    /* Free one communicator, create another with the same members. */
    MPI_Comm first, second;
    MPI_Comm_dup(MPI_COMM_WORLD, &first);
    MPI_Comm first_handle = first;
    cpt_comm *fi = cpt_comm_declare("first (freed)", n, all, first, MPI_INT, MPI_INT);
    cpt_alltoallv(fi, CPT_BLOCKING, CPT_VARY, 50, false);
    cpt_alltoallv(fi, CPT_BLOCKING, CPT_VARY, 51, false);
    MPI_Comm_free(&first);
    cpt_comm_forget(fi);
    MPI_Comm_dup(MPI_COMM_WORLD, &second);
    if (me == 0)
        printf("comms: the second dup %s the freed communicator's handle\n",
               second == first_handle ? "REUSES" : "does not reuse");
    cpt_comm *se = cpt_comm_declare("second (after free)", n, all, second, MPI_INT, MPI_INT);
    cpt_alltoallv(se, CPT_BLOCKING, CPT_VARY, 60, false);
    cpt_alltoall(se, CPT_BLOCKING, 4, false);

    /* The same for a split communicator. */
    MPI_Comm split_handle = split, split2;
    MPI_Comm_free(&split);
    cpt_comm_forget(me % 2 ? od : ev);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : 0, me, &split2);
    if (me == 0)
        printf("comms: the second even split %s the freed communicator's handle\n",
               split2 == split_handle ? "REUSES" : "does not reuse");
    cpt_comm *ev2 = cpt_comm_declare("even2 (after free)", ne, even, split2, MPI_INT, MPI_INT);
    cpt_alltoallv(ev2, CPT_BLOCKING, CPT_VARY, 70, false);
    cpt_alltoallv(ev2, CPT_BLOCKING, CPT_VARY, 71, false);
    /* MPI_COMM_SELF: the same handle on every rank, a different
     * communicator on each */
    for (int r = 0; r < n; r++) {
        cpt_comm *s = declare_self("self", r, MPI_COMM_SELF, MPI_INT, MPI_DOUBLE);
        cpt_alltoallv(s, CPT_BLOCKING, CPT_VARY, 90 + r, false);
        cpt_alltoall(s, CPT_BLOCKING, r, false);
        cpt_alltoallv(s, CPT_BLOCKING, CPT_VARY, 90 + r, false);
    }
    /* world keeps its own numbering after all that */
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 80, false);
    cpt_alltoallv(du, CPT_BLOCKING, CPT_VARY, 81, false);

    MPI_Comm_free(&second);
    if (split2 != MPI_COMM_NULL)
        MPI_Comm_free(&split2);
    MPI_Comm_free(&dupc);
    MPI_Finalize();
    return cpt_verify();
}
