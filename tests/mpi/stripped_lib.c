/*
 * A shared library built stripped (tests/mpi/meson.build): a small exported
 * function, then a larger static one that calls MPI, then the exported entry
 * point.  Nothing in the library names the static function: a call site in
 * it must not take the name of the small exported function before it
 * (robustness.sh, case stripped).
 */
#include <mpi.h>

#define EXPORTED __attribute__((visibility("default")))

EXPORTED int cpt_tiny(int x);
EXPORTED int cpt_stripped_entry(MPI_Comm c, int v);

int cpt_tiny(int x)
{
    return x + 1;
}

static __attribute__((noinline)) int big_static(MPI_Comm c, int v)
{
    int out = 0, arr[64];
    for (int i = 0; i < 64; i++)
        arr[i] = v * i;
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(&arr[i], &out, 1, MPI_INT, MPI_SUM, c);
    MPI_Bcast(arr, 4, MPI_INT, 0, c);
    return out + arr[3];
}

int cpt_stripped_entry(MPI_Comm c, int v)
{
    return big_static(c, v) + 1;
}
