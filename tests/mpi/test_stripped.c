/*
 * A program built stripped, its symbols exported (-rdynamic) as some
 * applications are: a small exported function before a larger static one
 * that calls MPI, and calls into a stripped library (stripped_lib.c).
 * No call site may be named after an exported neighbour (robustness.sh,
 * case stripped).
 */
#include <mpi.h>
#include <stdio.h>

int cpt_stripped_entry(MPI_Comm c, int v);
__attribute__((visibility("default"))) int cpt_tiny_exported(int x);

int cpt_tiny_exported(int x)
{
    return x * 2;
}

static __attribute__((noinline)) int big_main_static(int v)
{
    int arr[32], out = 0;
    for (int i = 0; i < 32; i++)
        arr[i] = v + i;
    MPI_Allreduce(arr, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    return out;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r = big_main_static(cpt_tiny_exported(3)) + cpt_stripped_entry(MPI_COMM_WORLD, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("test_stripped: %d\n", r);
    MPI_Finalize();
    return 0;
}
