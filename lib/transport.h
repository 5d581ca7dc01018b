/*
 * The library's own MPI transport: the one place where finalize's stages,
 * and the comparison of the ranks' clocks at start-up (clock.c), meet MPI.
 * Byte messages, probes, the few collectives they need, and the file write
 * of timings.cpt.
 *
 * Every wait here yields the processor.  Each function starts the
 * non-blocking form of its operation and tests it, giving the processor
 * away (sched_yield) between tests once a short spin has not completed it.
 * MPI libraries that busy-poll (MPICH, Open MPI) otherwise spend a waiting
 * rank's whole time slice polling: with more ranks than cores every step of
 * finalize then costs a round of the scheduler, and finalize of 32 ranks
 * on 2 cores took seconds for what takes milliseconds.  On a node with a
 * core per rank the spin completes most waits before the first yield.
 *
 * Byte counts, for either MPI version: MPI 4.0 has large-count functions
 * (_c) that carry any length; an MPI 3.x library (Open MPI 4.1) has only the
 * int-count ones, which carry at most INT_MAX bytes at once.  Callers check
 * cp_bytes_fit() before sending, so that a part too big for the library
 * fails alone, with a message, instead of being cut short.
 */
#ifndef COLLPROF_TRANSPORT_H
#define COLLPROF_TRANSPORT_H

#include <limits.h>
#include <stddef.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#if MPI_VERSION >= 4
#define CP_BYTES_MAX UINT64_MAX
#else
#define CP_BYTES_MAX ((uint64_t)INT_MAX)
#endif

static inline bool cp_bytes_fit(uint64_t n)
{
    return n <= CP_BYTES_MAX;
}

/* The binomial tree of finalize over the ranks 0..n-1 of a group, rooted
 * at 0 (cp_tree_send_round, cp_tree_has_child, cp_tree_rounds): MPI-free,
 * with the reduction up it that the scale simulator runs too. */
#include "tree_reduce.h"

/* Wait for a request, yielding (MPI_STATUS_IGNORE: st NULL). */
int cp_tp_wait(MPI_Request *r, MPI_Status *st);
/* MPI_Probe, yielding. */
int cp_tp_probe(int source, int tag, MPI_Comm c, MPI_Status *st);

/* The next message of `tag` from `source` (MPI_ANY_SOURCE: any; *from
 * says whose), whole, in a malloc'ed buffer of *len bytes.  NULL when memory
 * ran out: the message is received all the same (and lost), so that its
 * sender is never left waiting. */
char *cp_tp_recv_message(int source, int tag, MPI_Comm c, int *from, size_t *len);

/* The collectives of finalize, with MPI's arguments, yielding. */
int cp_tp_bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm c);
int cp_tp_allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c);
int cp_tp_exscan(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c);
int cp_tp_reduce_scatter_block(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op,
                               MPI_Comm c);
int cp_tp_gather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u,
                 int root, MPI_Comm c);
int cp_tp_gatherv(const void *in, int n, MPI_Datatype t, void *out, const int *counts,
                  const int *displs, MPI_Datatype u, int root, MPI_Comm c);
int cp_tp_scatterv(const void *in, const int *counts, const int *displs, MPI_Datatype t,
                   void *out, int n, MPI_Datatype u, int root, MPI_Comm c);
int cp_tp_allgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u,
                    MPI_Comm c);
int cp_tp_barrier(MPI_Comm c);
/* A short message to one rank and its receipt (MPI_Send/MPI_Recv), yielding. */
int cp_tp_send(const void *p, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c);
int cp_tp_recv(void *p, int n, MPI_Datatype t, int source, int tag, MPI_Comm c);

static inline int cp_isend_bytes(const void *p, uint64_t n, int dest, int tag, MPI_Comm c,
                                 MPI_Request *r)
{
#if MPI_VERSION >= 4
    return PMPI_Isend_c(p, (MPI_Count)n, MPI_BYTE, dest, tag, c, r);
#else
    return PMPI_Isend(p, (int)n, MPI_BYTE, dest, tag, c, r);
#endif
}

static inline int cp_count_bytes(const MPI_Status *st, MPI_Count *n)
{
#if MPI_VERSION >= 4
    return PMPI_Get_count_c(st, MPI_BYTE, n);
#else
    int k = 0;
    int rc = PMPI_Get_count(st, MPI_BYTE, &k);
    *n = k;
    return rc;
#endif
}

static inline int cp_recv_bytes(void *p, MPI_Count n, int source, int tag, MPI_Comm c)
{
    MPI_Request r;
#if MPI_VERSION >= 4
    int rc = PMPI_Irecv_c(p, n, MPI_BYTE, source, tag, c, &r);
#else
    int rc = PMPI_Irecv(p, (int)n, MPI_BYTE, source, tag, c, &r);
#endif
    return rc != MPI_SUCCESS ? rc : cp_tp_wait(&r, NULL);
}

/* Lengths and displacements of a gather of byte strings. */
#if MPI_VERSION >= 4
typedef MPI_Count cp_bcount;
typedef MPI_Aint cp_bdispl;
#else
typedef int cp_bcount;
typedef int cp_bdispl;
#endif

/* Gather byte strings of lens[r] bytes at displs[r] of all (root only).
 * The root has checked that every displacement + length fits. */
static inline int cp_gatherv_bytes(const void *p, uint64_t n, void *all, const cp_bcount *lens,
                                   const cp_bdispl *displs, int root, MPI_Comm c)
{
    MPI_Request r;
#if MPI_VERSION >= 4
    int rc = PMPI_Igatherv_c(p, (MPI_Count)n, MPI_BYTE, all, lens, displs, MPI_BYTE, root, c, &r);
#else
    int rc = PMPI_Igatherv(p, (int)n, MPI_BYTE, all, lens, displs, MPI_BYTE, root, c, &r);
#endif
    return rc != MPI_SUCCESS ? rc : cp_tp_wait(&r, NULL);
}

/* Write n bytes at off, collectively; *written: how many the MPI library
 * says it wrote (MPI_UNDEFINED counts as none). */
static inline int cp_write_at_all_bytes(MPI_File fh, MPI_Offset off, const void *p, uint64_t n,
                                        uint64_t *written)
{
    MPI_Status st;
    MPI_Request r;
#if MPI_VERSION >= 4
    MPI_Count got = 0;
    int rc = PMPI_File_iwrite_at_all_c(fh, off, p, (MPI_Count)n, MPI_BYTE, &r);
    if (rc == MPI_SUCCESS)
        rc = cp_tp_wait(&r, &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_count_c(&st, MPI_BYTE, &got);
#else
    int got = 0;
    int rc = PMPI_File_iwrite_at_all(fh, off, p, (int)n, MPI_BYTE, &r);
    if (rc == MPI_SUCCESS)
        rc = cp_tp_wait(&r, &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_count(&st, MPI_BYTE, &got);
#endif
    *written = rc == MPI_SUCCESS && got != MPI_UNDEFINED && got > 0 ? (uint64_t)got : 0;
    return rc;
}

#endif
