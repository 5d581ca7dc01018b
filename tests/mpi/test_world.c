/*
 * MPI_COMM_WORLD at 2, 3 or 4 ranks: every kind of count pattern with
 * MPI_Alltoallv, MPI_Alltoall with its single count, MPI_IN_PLACE for both.
 *
 * Alltoallv (MPI_INT), calls:
 *   0-3   repeating: the same matrix every call
 *   4-7   alternating: A B A B
 *   8-11  never repeating: a new matrix every call
 *   12-17 zero counts: some peers 0; a rank that sends nothing at all; a
 *         rank that receives nothing at all; a call that moves nothing;
 *   18-19 MPI_IN_PLACE (send side = receive side)
 *   20    the repeating matrix of calls 0-3 again
 *   21    the matrix of call 18, without MPI_IN_PLACE
 *   22-23 mixed datatypes: odd ranks pass MPI_INT pairs (half the count),
 *         even ranks MPI_INT: the counts must be given in bytes
 *   24    the element counts of call 22, all ranks MPI_INT: in elements
 *   25-26 a halo exchange on a line of ranks (r-1, r+1): from 4 ranks on
 *         written as relative rows, three of them (the ends and the
 *         interior); below that the dense rows are shorter; dense with
 *         COLLPROF_COUNTS_ROWS=dense
 * Alltoall (MPI_DOUBLE), interleaved with the above, calls:
 *   0-1 count 1, 2 count 2, 3 count 3 MPI_IN_PLACE, 4 count 0,
 *   5 count 2 MPI_IN_PLACE, 6 count 4 with mixed datatypes (in bytes)
 *
 * With -DCPT_PMPI_INIT the program initialises MPI with PMPI_Init, behind
 * collprof's back (as MPICH's mpi_f08 module does): collprof must start
 * lazily on the first collective it intercepts.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The halo's blocks (calls 25-26), both sides: relative rows, three. */
static int check_halo_rows(int n)
{
    cp_profile p;
    if (cpt_load_output(&p) != 0)
        return 1;
    const char *rows = getenv("COLLPROF_COUNTS_ROWS");
    bool dense = n < 4 || (rows && strcmp(rows, "dense") == 0);
    int problems = 0, seen = 0;
    for (size_t f = 0; f < p.nfiles; f++)
        for (size_t i = 0; i < p.files[f].nblocks; i++) {
            const cp_block *b = &p.files[f].blocks[i];
            if (strcmp(b->collective, "Alltoallv") != 0 || !cp_ranges_contains(&b->calls, 25))
                continue;
            seen++;
            for (size_t r = 0; r < b->nrows; r++)
                if (b->rows[r].form != (dense ? CP_ROW_DENSE : CP_ROW_RELATIVE)) {
                    fprintf(stderr, "world: halo, %s side: row %zu is not %s\n",
                            p.files[f].direction == CP_SEND ? "send" : "receive", r,
                            dense ? "dense" : "relative");
                    problems++;
                }
            if (!dense && b->nrows != 3) {
                fprintf(stderr, "world: halo: %zu relative rows, expected 3\n", b->nrows);
                problems++;
            }
            if (!dense && p.files[f].version != 5) {
                fprintf(stderr, "world: halo in counts format %d, expected 5\n", p.files[f].version);
                problems++;
            }
        }
    if (seen != 2) {
        fprintf(stderr, "world: halo: %d blocks hold call 25, expected 2\n", seen);
        problems++;
    }
    if (!problems)
        printf("world: PASS: the halo's rows are %s\n", dense ? "dense" : "relative, three");
    cp_profile_free(&p);
    return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
#ifdef CPT_PMPI_INIT
    PMPI_Init(&argc, &argv);
    cpt_init("world_lazy_start");
#else
    MPI_Init(&argc, &argv);
    cpt_init("world");
#endif
    int n = cpt_world_size(), members[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        members[i] = i;
    cpt_comm *w = cpt_comm_declare("world", n, members, MPI_COMM_WORLD, MPI_INT, MPI_DOUBLE);

    for (int i = 0; i < 4; i++) /* repeating */
        cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);
    for (int i = 0; i < 4; i++) /* alternating */
        cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, i % 2 ? 2 : 1, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);
    for (int i = 0; i < 4; i++) /* never repeating */
        cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 10 + i, false);
    cpt_alltoall(w, CPT_BLOCKING, 2, false);
    /* zero counts */
    cpt_alltoallv(w, CPT_BLOCKING, CPT_ZEROS, 0, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_ZEROS, 1, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_SILENT, 1, false); /* rank 1 sends nothing */
    cpt_alltoallv(w, CPT_BLOCKING, CPT_DEAF, 0, false);   /* rank 0 receives nothing */
    cpt_alltoallv(w, CPT_BLOCKING, CPT_NOTHING, 0, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_SILENT, 0, false); /* rank 0 sends nothing */
    cpt_alltoall(w, CPT_BLOCKING, 3, true);
    cpt_alltoall(w, CPT_BLOCKING, 0, false);
    /* MPI_IN_PLACE */
    cpt_alltoallv(w, CPT_BLOCKING, CPT_SYMMETRIC, 3, true);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_SYMMETRIC, 4, true);
    cpt_alltoall(w, CPT_BLOCKING, 2, true);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_SYMMETRIC, 3, false);
    /* mixed datatype sizes */
    cpt_alltoallv_mixed(w, CPT_EVEN, 0);
    cpt_alltoallv_mixed(w, CPT_EVEN, 1);
    cpt_alltoall_mixed(w, 4);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_EVEN, 0, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_HALO, 7, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_HALO, 7, false);

    MPI_Finalize();
    int rc = cpt_verify();
    if (rc == 0 && cpt_world_rank() == 0)
        rc = check_halo_rows(n);
    return rc;
}
