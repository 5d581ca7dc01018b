/*
 * bench_pattern_run: an application whose profile is big for the reader:
 * CALLS MPI_Alltoallv on MPI_COMM_WORLD, each with one of PATTERNS count
 * matrices, taken in turn (a cycle: the count files list each matrix's calls
 * as one progression) or at random (each matrix's calls are scattered:
 * one range per call).  Run under collprof by bench/reader_paths.sh, which
 * then times the reader on the profile.
 *
 * usage: bench_pattern_run CALLS PATTERNS cycle|random
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4 || (strcmp(argv[3], "cycle") && strcmp(argv[3], "random"))) {
        fprintf(stderr, "usage: %s CALLS PATTERNS cycle|random\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long calls = atol(argv[1]);
    int npat = atoi(argv[2]), random = !strcmp(argv[3], "random");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *displ = calloc((size_t)size, sizeof *displ);
    int cap = 8 + npat / 7;
    int *sbuf = calloc((size_t)(size * cap), sizeof *sbuf), *rbuf = calloc((size_t)(size * cap), sizeof *rbuf);
    for (int q = 0; q < size; q++)
        displ[q] = q * cap;
    unsigned long long x = 12345; /* the same draws on every rank */
    for (long c = 0; c < calls; c++) {
        int p;
        if (random) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            p = (int)((x >> 33) % (unsigned)npat);
        } else {
            p = (int)(c % npat);
        }
        /* pattern p: rank r sends 1 + (p + q) % 7 + p / 7 ints to q */
        for (int q = 0; q < size; q++) {
            sc[q] = 1 + (p + q) % 7 + p / 7;
            rc[q] = 1 + (p + rank) % 7 + p / 7;
        }
        MPI_Alltoallv(sbuf, sc, displ, MPI_INT, rbuf, rc, displ, MPI_INT, MPI_COMM_WORLD);
    }
    free(sc), free(rc), free(displ), free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
