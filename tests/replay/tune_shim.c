/*
 * A test's stand-in for a library with one clearly fastest algorithm:
 * preloaded into collprof-replay, it makes MPI_Alltoallv 10 milliseconds
 * slower (asleep) unless the library's control variable TUNE_SHIM_CVAR
 * holds the value TUNE_SHIM_FAST.  10 ms is far above what a small
 * Alltoallv costs even on a loaded machine (a few ms when ranks outnumber
 * free cores; 20 us drowned there), and a sleep lasts at least that long
 * whatever else runs.  So --tune must name that algorithm the winner beyond
 * the noise, whatever the machine, and its setting must select it
 * (tune_test.sh).  It reads the variable through
 * MPI_T at each call, as the library itself would see it.  (Exported: the
 * build hides symbols by default.)
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int handle_state; /* 0 not yet, 1 ready, -1 none */
static MPI_T_cvar_handle handle;

static int current(void)
{
    if (handle_state == 0) {
        int provided, index, count;
        const char *name = getenv("TUNE_SHIM_CVAR");
        handle_state = -1;
        if (name && MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS &&
            MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS &&
            MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) == MPI_SUCCESS && count == 1)
            handle_state = 1;
    }
    int value = -1;
    if (handle_state == 1)
        MPI_T_cvar_read(handle, &value);
    return value;
}

__attribute__((visibility("default"))) int
MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
              void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
              MPI_Comm comm)
{
    const char *fast = getenv("TUNE_SHIM_FAST");
    if (fast && current() != atoi(fast)) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
