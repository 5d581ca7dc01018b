/*
 * A plain MPI application for the robustness tests: a few MPI_Alltoallv
 * calls on MPI_COMM_WORLD, one line on stdout from rank 0, MPI_Finalize,
 * then it returns the exit status given as argument (default 0).
 *
 * usage: app_exit [STATUS]
 *        app_exit [--no-finalize] [--invalid-call]
 *          --no-finalize: returns 0 without MPI_Finalize
 *          --invalid-call: under MPI_ERRORS_RETURN, the third
 *            exchange passes a negative count on every rank; rank 0 prints
 *            the error class MPI returned; then the others go on
 *          --slow: 1.5 s before the fourth exchange and again before the
 *            fifth (with COLLPROF_SNAPSHOT=1 a snapshot is due in each
 *            pause: the fourth takes one of 3 calls, the fifth of 4)
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = calloc((size_t)size, sizeof *sc), *sd = calloc((size_t)size, sizeof *sd);
    int *rc = calloc((size_t)size, sizeof *rc), *rd = calloc((size_t)size, sizeof *rd);
    int *sbuf = calloc((size_t)size * 8, sizeof *sbuf), *rbuf = calloc((size_t)size * 8, sizeof *rbuf);
    bool invalid = false, finalize = true, slow = false;
    for (int i = 1; i < argc; i++) {
        invalid |= strcmp(argv[i], "--invalid-call") == 0;
        finalize &= strcmp(argv[i], "--no-finalize") != 0;
        slow |= strcmp(argv[i], "--slow") == 0;
    }
    if (invalid)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int call = 0; call < 5; call++) {
        for (int p = 0; p < size; p++) {
            sc[p] = 1 + (rank + p + call) % 4;
            rc[p] = 1 + (p + rank + call) % 4;
            sd[p] = rd[p] = 8 * p;
        }
        if (invalid && call == 2)
            sc[size - 1] = rc[size - 1] = -1;
        if (slow && call >= 3) {
            struct timespec t = {1, 500000000L};
            while (nanosleep(&t, &t) != 0)
                ;
        }
        int err = MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
        if (invalid && call == 2 && rank == 0) {
            int class = MPI_SUCCESS;
            MPI_Error_class(err, &class);
            printf("app_exit: the call with a negative count returned %s\n",
                   class == MPI_SUCCESS ? "success" : class == MPI_ERR_COUNT ? "MPI_ERR_COUNT"
                                                                            : "another error");
        }
    }
    if (rank == 0)
        printf("app_exit: %d ranks, 5 exchanges done\n", size);
    free(sc), free(sd), free(rc), free(rd), free(sbuf), free(rbuf);
    if (!finalize)
        return 0;
    MPI_Finalize();
    return argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 0;
}
