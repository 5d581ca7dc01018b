/* Finalize's transport: MPI operations that yield while they wait (see
 * transport.h). */
#include "transport.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

/* Tests before the first yield: a wait that a core of its own would see
 * end within a few microseconds ends without giving the processor away. */
#define SPINS 100
/* Yields before the waiter sleeps between tests. */
#define YIELDS 100
/* Sleeps between tests, doubling from the first to the longest: a rank
 * that waits long (for its children in a tree, for rank 0 writing the
 * run-wide files) wakes ever more rarely, leaving the processor to the
 * ranks that work.  Where ranks outnumber cores, 31 waiters waking every
 * 20 us took a large share of two cores from the one that had work (each
 * test runs the MPI library's progress over every peer); with the
 * doubling, finalize at 32 ranks on 2 cores took ~0.1 s less
 * (docs/performance.md).  A wait costs at most one longest sleep more:
 * with 1 ms the hops of 8 ranks on 2 cores got slower than before; 250 us
 * was as fast as 20 us there and the fastest at 32. */
#define SLEEP_FIRST_NS 20000L
#define SLEEP_LONGEST_NS 250000L

static void pause_after(unsigned spins)
{
    if (spins < SPINS)
        return;
    if (spins < SPINS + YIELDS) {
        sched_yield();
        return;
    }
    unsigned k = spins - SPINS - YIELDS;
    long ns = SLEEP_FIRST_NS << (k < 6 ? k : 6);
    struct timespec ts = {0, ns < SLEEP_LONGEST_NS ? ns : SLEEP_LONGEST_NS};
    nanosleep(&ts, NULL);
}

int cp_tp_wait(MPI_Request *r, MPI_Status *st)
{
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        int rc = PMPI_Test(r, &done, st ? st : MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        pause_after(spins);
    }
}

int cp_tp_probe(int source, int tag, MPI_Comm c, MPI_Status *st)
{
    for (unsigned spins = 0;; spins++) {
        int found = 0;
        int rc = PMPI_Iprobe(source, tag, c, &found, st);
        if (rc != MPI_SUCCESS || found)
            return rc;
        pause_after(spins);
    }
}

char *cp_tp_recv_message(int source, int tag, MPI_Comm c, int *from, size_t *len)
{
    MPI_Status st;
    MPI_Count n = 0;
    cp_tp_probe(source, tag, c, &st);
    cp_count_bytes(&st, &n);
    char *buf = malloc(n > 0 ? (size_t)n : 1);
    /* Without room, receive it into nothing: MPI truncates, the sender is free. */
    cp_recv_bytes(buf ? buf : (char[1]){0}, buf ? n : 0, st.MPI_SOURCE, tag, c);
    if (from)
        *from = st.MPI_SOURCE;
    *len = buf ? (size_t)n : 0;
    return buf;
}

/* Start with the non-blocking form, then wait. */
#define START_AND_WAIT(call)                                                                      \
    do {                                                                                          \
        MPI_Request r;                                                                            \
        int rc = (call);                                                                          \
        return rc != MPI_SUCCESS ? rc : cp_tp_wait(&r, NULL);                                    \
    } while (0)

int cp_tp_bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Ibcast(buf, n, t, root, c, &r));
}

int cp_tp_allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Iallreduce(in, out, n, t, op, c, &r));
}

int cp_tp_exscan(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Iexscan(in, out, n, t, op, c, &r));
}

int cp_tp_reduce_scatter_block(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op,
                               MPI_Comm c)
{
    START_AND_WAIT(PMPI_Ireduce_scatter_block(in, out, n, t, op, c, &r));
}

int cp_tp_gather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u,
                 int root, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Igather(in, n, t, out, m, u, root, c, &r));
}

int cp_tp_gatherv(const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                  const int *displs, MPI_Datatype u, int root, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Igatherv(in, n, t, out, counts, displs, u, root, c, &r));
}

int cp_tp_scatterv(const void *in, const int *counts, const int *displs, MPI_Datatype t,
                   void *out, int n, MPI_Datatype u, int root, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Iscatterv(in, counts, displs, t, out, n, u, root, c, &r));
}

int cp_tp_allgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u,
                    MPI_Comm c)
{
    START_AND_WAIT(PMPI_Iallgather(in, n, t, out, m, u, c, &r));
}

int cp_tp_barrier(MPI_Comm c)
{
    START_AND_WAIT(PMPI_Ibarrier(c, &r));
}

int cp_tp_send(const void *p, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Isend(p, n, t, dest, tag, c, &r));
}

int cp_tp_recv(void *p, int n, MPI_Datatype t, int source, int tag, MPI_Comm c)
{
    START_AND_WAIT(PMPI_Irecv(p, n, t, source, tag, c, &r));
}
