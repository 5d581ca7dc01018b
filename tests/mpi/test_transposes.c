/*
 * The transposes of a 2-D decomposition (an FFT's pencils, NPB FT's
 * pattern) on 4 ranks in a 2 x 2 grid laid out column-major: the "row"
 * communicators {0, 2} and {1, 3} carry the heavy MPI_Alltoall (4,096
 * doubles to each peer, 10 calls), the "column" ones {0, 1} and {2, 3} a
 * light one (16 doubles, 10 calls).  On 2 nodes of 2 ranks the block layout
 * ({0, 1}, {2, 3}) puts every heavy pair across nodes; the best layout
 * keeps the rows together and crosses only the light traffic
 * (robustness.sh, case placement).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "test_transposes: 4 ranks, please\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm row, col;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &row); /* {0, 2}, {1, 3} */
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &col); /* {0, 1}, {2, 3} */
    enum { HEAVY = 4096, LIGHT = 16 };
    double *s = calloc(2 * HEAVY, sizeof *s), *r = calloc(2 * HEAVY, sizeof *r);
    if (!s || !r)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < 10; i++) {
        MPI_Alltoall(s, HEAVY, MPI_DOUBLE, r, HEAVY, MPI_DOUBLE, row);
        MPI_Alltoall(s, LIGHT, MPI_DOUBLE, r, LIGHT, MPI_DOUBLE, col);
    }
    free(s), free(r);
    MPI_Comm_free(&row), MPI_Comm_free(&col);
    MPI_Finalize();
    return 0;
}
