/*
 * Finalize's byte messages and file writes, for either MPI version.  MPI 4.0
 * has large-count functions (_c) that carry any length; an MPI 3.x library
 * (Open MPI 4.1) has only the int-count ones, which carry at most INT_MAX
 * bytes at once.  Callers check cp_bytes_fit() before sending, so that a
 * part too big for the library fails alone, with a message, instead of
 * being cut short.
 */
#ifndef COLLPROF_MPI_BYTES_H
#define COLLPROF_MPI_BYTES_H

#include <limits.h>
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
#if MPI_VERSION >= 4
    return PMPI_Recv_c(p, n, MPI_BYTE, source, tag, c, MPI_STATUS_IGNORE);
#else
    return PMPI_Recv(p, (int)n, MPI_BYTE, source, tag, c, MPI_STATUS_IGNORE);
#endif
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
#if MPI_VERSION >= 4
    return PMPI_Gatherv_c(p, (MPI_Count)n, MPI_BYTE, all, lens, displs, MPI_BYTE, root, c);
#else
    return PMPI_Gatherv(p, (int)n, MPI_BYTE, all, lens, displs, MPI_BYTE, root, c);
#endif
}

/* Write n bytes at off, collectively; *written: how many the MPI library
 * says it wrote (MPI_UNDEFINED counts as none). */
static inline int cp_write_at_all_bytes(MPI_File fh, MPI_Offset off, const void *p, uint64_t n,
                                        uint64_t *written)
{
    MPI_Status st;
#if MPI_VERSION >= 4
    MPI_Count got = 0;
    int rc = PMPI_File_write_at_all_c(fh, off, p, (MPI_Count)n, MPI_BYTE, &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_count_c(&st, MPI_BYTE, &got);
#else
    int got = 0;
    int rc = PMPI_File_write_at_all(fh, off, p, (int)n, MPI_BYTE, &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_count(&st, MPI_BYTE, &got);
#endif
    *written = rc == MPI_SUCCESS && got != MPI_UNDEFINED && got > 0 ? (uint64_t)got : 0;
    return rc;
}

#endif
