/*
 * What each collective's arguments mean, as count vectors: one inline helper
 * per argument shape, called by the generated wrappers (model/wrappers.tbl).
 * They only take pointers and sizes; nothing is copied on the hot path except
 * per-peer datatype counts, which are turned into bytes in a per-thread
 * scratch buffer (Alltoallw, Neighbor_alltoallw).
 *
 * Roots: on an intracommunicator the root is the argument.  On an
 * intercommunicator the root passes MPI_ROOT (its group's blocks get
 * `Root: <its local rank>`), the other processes of its group pass
 * MPI_PROC_NULL and move nothing, and the remote group passes the root's
 * rank in the remote group, which becomes their blocks' Root.
 */
#ifndef COLLPROF_CAPTURE_H
#define COLLPROF_CAPTURE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "call.h"
#include "comm_registry.h"
#include "counts.h"

#ifdef OPEN_MPI
/* Open MPI's datatype handles are pointers; its predefined datatypes are
 * objects inside the MPI library, never freed.  Their sizes are cached by
 * handle (a direct-mapped table of 64 words, each the handle shifted up 16
 * bits and the size, or CP_DT_NOT_PREDEFINED for a handle outside the
 * library: a derived type, whose handle may be freed and reused, and is
 * asked of MPI every time; a heap address never becomes a predefined
 * one).  One word per entry: a reader never sees half of one. */
#define CP_DT_SLOTS 64
#define CP_DT_NOT_PREDEFINED 0xffffu
extern _Atomic uint64_t cp_dt_cache[CP_DT_SLOTS];
int64_t cp_type_size_miss(MPI_Datatype t);
/* The entry of a handle (Fibonacci hashing of its address). */
static inline _Atomic uint64_t *cp_dt_slot(uintptr_t h)
{
    return &cp_dt_cache[(uint64_t)h * 0x9E3779B97F4A7C15ull >> 58];
}
#endif

/* The size of datatype t asked of MPI (0 for MPI_DATATYPE_NULL or when
 * MPI refuses).  Out of line and cold: the wrappers' common path, built-in
 * or cached datatypes, then runs straight through (measured over code
 * placements, docs/performance.md). */
__attribute__((cold, noinline)) int64_t cp_type_size_asked(MPI_Datatype t);

#ifdef OPEN_MPI
/* Does cache entry e hold handle h as a predefined datatype (its size in
 * the low 16 bits)? */
static inline bool cp_dt_entry_predefined(uint64_t e, uintptr_t h)
{
    return (e >> 16) == h && (e & 0xffffu) != CP_DT_NOT_PREDEFINED;
}
#endif
#ifdef MPICH
/* MPICH's built-in datatype handles carry their size in bits 8-15 (kind
 * "builtin", object "datatype" in the top bits); built-ins are never
 * freed. */
static inline bool cp_dt_builtin(MPI_Datatype t)
{
    return ((unsigned)t & 0xfc000000u) == 0x4c000000u;
}
#endif

CP_HOT int64_t cp_type_size(MPI_Datatype t)
{
#ifdef OPEN_MPI
    uintptr_t h = (uintptr_t)t;
    uint64_t e = atomic_load_explicit(cp_dt_slot(h), memory_order_relaxed);
    if (cp_dt_entry_predefined(e, h))
        return (int64_t)(e & 0xffffu);
    if ((e >> 16) != h)
        return cp_type_size_miss(t);
#endif
#ifdef MPICH
    /* Read off the handle: a quarter of the hot path saved on every call. */
    if (__builtin_expect(cp_dt_builtin(t), 1))
        return (int64_t)(((unsigned)t >> 8) & 0xffu);
#endif
    return cp_type_size_asked(t);
}

/* ------------------------------------------------------- vector builders */

CP_HOT cp_side cp_one(MPI_Count count, MPI_Datatype t)
{
    return (cp_side){.present = true, .n = count, .dtsize = cp_type_size(t)};
}

/* An empty vector (a rank with no neighbours may pass NULL arrays). */
static const int cp_no_counts[1];

CP_HOT cp_side cp_many(const void *counts, int width, int64_t len, MPI_Datatype t)
{
    if (__builtin_expect(len == 0, 0))
        counts = cp_no_counts;
    return (cp_side){.present = counts != NULL, .counts = counts, .width = (uint16_t)width,
                     .n = len, .dtsize = cp_type_size(t)};
}

/* counts[i] of an array of ints (width 4) or of MPI_Counts */
CP_HOT int64_t cp_count_at(const void *counts, int width, int64_t i)
{
    return width == 4 ? ((const int *)counts)[i] : ((const MPI_Count *)counts)[i];
}

/* counts[i] as a single count. */
CP_HOT cp_side cp_nth(const void *counts, int width, int64_t i, MPI_Datatype t)
{
    if (!counts)
        return (cp_side){0};
    return cp_one(cp_count_at(counts, width, i), t);
}

/* The side of per-peer datatypes, as the program passed it: a repeated
 * call compares it with the memo's bytes without writing them anywhere
 * (the scratch's lines saved); the general path turns it into bytes first
 * (cp_side_bytes).  len 0: an empty vector; no counts or no datatypes: no
 * vector. */
CP_HOT cp_side cp_typed(const void *counts, int width, int64_t len, const MPI_Datatype *types)
{
    if (len == 0)
        return (cp_side){.present = true, .counts = cp_no_counts, .width = 4, .dtsize = 1,
                         .in_bytes = true};
    if (!counts || !types || len < 0)
        return (cp_side){0};
    return (cp_side){.present = true, .counts = counts, .width = (uint16_t)width, .n = len,
                     .types = types, .in_bytes = true, .typed = true};
}

/* count i of a typed side, in bytes */
CP_HOT int64_t cp_typed_bytes(const cp_side *s, int64_t i)
{
    return cp_count_at(s->counts, s->width, i) * cp_type_size(s->types[i]);
}

/* A typed side's counts in bytes, in this thread's scratch buffer `which`
 * (0 send, 1 receive), which grows only when a larger vector comes; NULL
 * when memory ran out. */
const int64_t *cp_typed_in_bytes(int which, const cp_side *s);

/* A typed side turned into bytes (cp_typed_in_bytes), where the counts
 * collector and the memo take it. */
static inline void cp_side_bytes(cp_side *s, int which)
{
    if (!s->typed)
        return;
    const int64_t *v = cp_typed_in_bytes(which, s);
    *s = v ? (cp_side){.present = true, .counts = v, .width = 8, .n = s->n, .dtsize = 1,
                       .in_bytes = true}
           : (cp_side){0};
}

/* --------------------------------------------------------------- roots */

enum cp_root_role { CP_ROLE_ROOT, CP_ROLE_LEAF, CP_ROLE_NONE };

CP_HOT enum cp_root_role cp_root_role(cp_call *call, const cp_comm_view *c, int root)
{
    if (!c->inter) {
        call->root = root;
        return c->rank == root ? CP_ROLE_ROOT : CP_ROLE_LEAF;
    }
    if (root == MPI_ROOT) {
        call->root = CP_ROOT_HERE;
        return CP_ROLE_ROOT;
    }
    if (root == MPI_PROC_NULL)
        return CP_ROLE_NONE;
    call->root = root;
    return CP_ROLE_LEAF;
}

/* ------------------------------------------------------------- shapes */
/* Each shape, and what it calls, is always inlined (CP_HOT) into the
 * wrapper's front: one the compiler left out of line (-O2 split Gatherv's)
 * took the call's record by address, so that the record lived in the
 * front's frame, two more memory lines a call where the application evicts
 * the caches (Open MPI's Gatherv, counting only: 9.0 lines a call added,
 * 4.0 inlined). */

/* One count each way (Alltoall, Allgather, Allreduce, Scan, Neighbor_alltoall
 * ...).  sendbuf MPI_IN_PLACE: the receive arguments describe the data sent. */
CP_HOT void cp_capture_single(cp_call *call, const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, MPI_Count recvcount,
                              MPI_Datatype recvtype)
{
    call->recv = cp_one(recvcount, recvtype);
    call->send = sendbuf == MPI_IN_PLACE ? call->recv : cp_one(sendcount, sendtype);
}

/* One count per peer each way (Alltoallv). */
CP_HOT void cp_capture_vector(cp_call *call, const cp_comm_view *c, const void *sendbuf,
                              const void *sendcounts, MPI_Datatype sendtype,
                              const void *recvcounts, MPI_Datatype recvtype, int width)
{
    call->recv = cp_many(recvcounts, width, c->peers, recvtype);
    call->send = sendbuf == MPI_IN_PLACE ? call->recv
                                         : cp_many(sendcounts, width, c->peers, sendtype);
}

/* Per-peer datatypes (Alltoallw): bytes. */
CP_HOT void cp_capture_typed(cp_call *call, const cp_comm_view *c, const void *sendbuf,
                             const void *sendcounts, const MPI_Datatype *sendtypes,
                             const void *recvcounts, const MPI_Datatype *recvtypes,
                             int width)
{
    call->recv = cp_typed(recvcounts, width, c->peers, recvtypes);
    call->send = sendbuf == MPI_IN_PLACE ? call->recv
                                         : cp_typed(sendcounts, width, c->peers, sendtypes);
}

/* Allgatherv: one count sent to all, one count per peer received. */
CP_HOT void cp_capture_allgatherv(cp_call *call, const cp_comm_view *c, const void *sendbuf,
                                  MPI_Count sendcount, MPI_Datatype sendtype,
                                  const void *recvcounts, MPI_Datatype recvtype, int width)
{
    call->recv = cp_many(recvcounts, width, c->peers, recvtype);
    call->send = sendbuf == MPI_IN_PLACE ? cp_nth(recvcounts, width, c->rank, recvtype)
                                         : cp_one(sendcount, sendtype);
}

/* Gather (recvcounts NULL: recvcount) and Gatherv: everyone sends one count
 * to the root, the root receives. */
CP_HOT void cp_capture_gather(cp_call *call, const cp_comm_view *c, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype,
                              MPI_Count recvcount, const void *recvcounts,
                              MPI_Datatype recvtype, int root, int width)
{
    call->send = call->recv = (cp_side){0};
    switch (cp_root_role(call, c, root)) {
    case CP_ROLE_ROOT:
        call->recv = recvcounts ? cp_many(recvcounts, width, c->peers, recvtype)
                                : cp_one(recvcount, recvtype);
        if (c->inter)
            break;
        if (sendbuf != MPI_IN_PLACE)
            call->send = cp_one(sendcount, sendtype);
        else
            call->send = recvcounts ? cp_nth(recvcounts, width, c->rank, recvtype)
                                    : cp_one(recvcount, recvtype);
        break;
    case CP_ROLE_LEAF:
        call->send = cp_one(sendcount, sendtype);
        break;
    case CP_ROLE_NONE:
        break;
    }
}

/* Scatter (sendcounts NULL: sendcount) and Scatterv: the root sends,
 * everyone receives one count. */
CP_HOT void cp_capture_scatter(cp_call *call, const cp_comm_view *c, MPI_Count sendcount,
                               const void *sendcounts, MPI_Datatype sendtype,
                               const void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int root, int width)
{
    call->send = call->recv = (cp_side){0};
    switch (cp_root_role(call, c, root)) {
    case CP_ROLE_ROOT:
        call->send = sendcounts ? cp_many(sendcounts, width, c->peers, sendtype)
                                : cp_one(sendcount, sendtype);
        if (c->inter)
            break;
        if (recvbuf != MPI_IN_PLACE)
            call->recv = cp_one(recvcount, recvtype);
        else
            call->recv = sendcounts ? cp_nth(sendcounts, width, c->rank, sendtype)
                                    : cp_one(sendcount, sendtype);
        break;
    case CP_ROLE_LEAF:
        call->recv = cp_one(recvcount, recvtype);
        break;
    case CP_ROLE_NONE:
        break;
    }
}

/* Bcast: the root sends the buffer, the others receive it. */
CP_HOT void cp_capture_bcast(cp_call *call, const cp_comm_view *c, MPI_Count count,
                             MPI_Datatype type, int root)
{
    call->send = call->recv = (cp_side){0};
    enum cp_root_role role = cp_root_role(call, c, root);
    if (role == CP_ROLE_ROOT)
        call->send = cp_one(count, type);
    else if (role == CP_ROLE_LEAF)
        call->recv = cp_one(count, type);
}

/* Reduce: everyone contributes count elements, the root receives them. */
CP_HOT void cp_capture_reduce(cp_call *call, const cp_comm_view *c, MPI_Count count,
                              MPI_Datatype type, int root)
{
    call->send = call->recv = (cp_side){0};
    switch (cp_root_role(call, c, root)) {
    case CP_ROLE_ROOT:
        call->recv = cp_one(count, type);
        if (!c->inter)
            call->send = cp_one(count, type);
        break;
    case CP_ROLE_LEAF:
        call->send = cp_one(count, type);
        break;
    case CP_ROLE_NONE:
        break;
    }
}

/* Reduce_scatter: recvcounts[i] elements of the result go to rank i.  On an
 * intercommunicator the send side depends on the remote group's counts,
 * which this process does not see: only the receive side is recorded. */
CP_HOT void cp_capture_reduce_scatter(cp_call *call, const cp_comm_view *c,
                                      const void *recvcounts, MPI_Datatype type, int width)
{
    call->recv = cp_nth(recvcounts, width, c->rank, type);
    call->send = c->inter ? (cp_side){0} : cp_many(recvcounts, width, c->size, type);
}

/* Reduce_scatter_block: recvcount elements of the result go to each rank,
 * from each peer's vector.  On an intercommunicator the reduction of one
 * group's vectors (size x recvcount elements each) is scattered over the
 * other group, so each remote rank gets size x recvcount / remote size of
 * every vector (the standard makes that the remote group's recvcount; a
 * program whose totals do not divide is erroneous, and gets the quotient). */
CP_HOT void cp_capture_reduce_scatter_block(cp_call *call, const cp_comm_view *c,
                                            MPI_Count recvcount, MPI_Datatype type)
{
    call->recv = cp_one(recvcount, type);
    call->send = c->inter && c->peers > 0 ? cp_one(recvcount * c->size / c->peers, type)
                                          : call->recv;
}

/* Barrier: no counts, but the call is recorded: rows of length 0. */
CP_HOT void cp_capture_barrier(cp_call *call)
{
    call->send = call->recv = (cp_side){.present = true, .counts = cp_no_counts, .width = 4};
}

/* Neighbourhood collectives: rows address the topology's neighbours. */
CP_HOT void cp_capture_neighbor_allgatherv(cp_call *call, const cp_comm_view *c,
                                           MPI_Count sendcount, MPI_Datatype sendtype,
                                           const void *recvcounts, MPI_Datatype recvtype,
                                           int width)
{
    call->send = cp_one(sendcount, sendtype);
    call->recv = cp_many(recvcounts, width, c->comm->indegree, recvtype);
}

CP_HOT void cp_capture_neighbor_vector(cp_call *call, const cp_comm_view *c,
                                       const void *sendcounts, MPI_Datatype sendtype,
                                       const void *recvcounts, MPI_Datatype recvtype,
                                       int width)
{
    call->send = cp_many(sendcounts, width, c->comm->outdegree, sendtype);
    call->recv = cp_many(recvcounts, width, c->comm->indegree, recvtype);
}

CP_HOT void cp_capture_neighbor_typed(cp_call *call, const cp_comm_view *c,
                                      const void *sendcounts,
                                      const MPI_Datatype *sendtypes,
                                      const void *recvcounts,
                                      const MPI_Datatype *recvtypes, int width)
{
    call->send = cp_typed(sendcounts, width, c->comm->outdegree, sendtypes);
    call->recv = cp_typed(recvcounts, width, c->comm->indegree, recvtypes);
}

#endif
