/*
 * Every MPI collective with counts the test knows, on the harness of
 * harness.h (cpt_plan): what collprof must record for each call follows the
 * specification of the counts files, rank by rank and direction by
 * direction, written out here once:
 *
 *   Alltoall, Allgather, Neighbor_allgather, Neighbor_alltoall:
 *       send = [sendcount], recv = [recvcount]; MPI_IN_PLACE: send = recv
 *   Alltoallw: per-peer counts x size of that peer's datatype, in bytes
 *   Allgatherv: send = [sendcount], recv = recvcounts (size values);
 *       MPI_IN_PLACE: send = [recvcounts[me]]
 *   Gather(v): Root; every rank's send = [sendcount]; only the root receives:
 *       [recvcount] / recvcounts; MPI_IN_PLACE at the root: its send =
 *       [recvcount] / [recvcounts[root]]
 *   Scatter(v): Root; only the root sends: [sendcount] / sendcounts; every
 *       rank's recv = [recvcount]; MPI_IN_PLACE at the root: its recv =
 *       [sendcount] / [sendcounts[root]]
 *   Bcast: Root; the root's send = [count], the others' recv = [count]
 *   Reduce: Root; every rank's send = [count], the root's recv = [count]
 *   Allreduce, Scan, Exscan: send = recv = [count]
 *   Reduce_scatter: send = recvcounts (size values), recv = [recvcounts[me]]
 *   Reduce_scatter_block: send = recv = [recvcount]
 *   Barrier: a row of no counts on both sides
 *   Neighbor_allgatherv: send = [sendcount], recv = recvcounts (in-degree)
 *   Neighbor_alltoallv: send = sendcounts (out-degree), recv = recvcounts
 *       (in-degree); Neighbor_alltoallw: the same in bytes
 *
 * Each cptc_<collective> plans the call (every rank's rows, also of
 * communicators this rank is not a member of) and, on members, makes it in
 * the given form and checks the data received.  The values passed where
 * MPI_IN_PLACE makes MPI ignore them are deliberately wrong (count 99,
 * MPI_CHAR), so that a profiler using them is caught.  cptc_plan_<...>: the
 * plan only, for calls made by hand (persistent requests started later) and
 * for checkers without MPI; dt is the datatype size in bytes.
 *
 * The calls use MPI_INT (4 bytes), except where said.  Counts of the
 * v-variants are functions of (rank, seed), below.
 */
#ifndef CPT_COLLS_H
#define CPT_COLLS_H

#include "harness.h"

/* Forms beyond those of harness.h: MPI_<Coll>_init (_c), MPI_Start,
 * MPI_Wait, MPI_Request_free: one call. */
enum { CPT_PERSISTENT = 4, CPT_PERSISTENT_LARGE = 5 };

/* Counts of rank r with seed `seed` (r may be -1: MPI_PROC_NULL). */
int64_t cptc_vcount(int r, int seed);            /* 1 + (r + seed) mod 3 */
int64_t cptc_pair_count(int a, int b, int seed); /* a to b: 1 + (a + 2b + seed) mod 3 */
int64_t cptc_sym_count(int a, int b, int seed);  /* 1 + (a + b + seed) mod 3 */
/* Alltoallw's datatype between ranks a and b: MPI_INT when a + b is even,
 * MPI_DOUBLE when odd (the same both ways). */
int64_t cptc_w_size(int a, int b);

/* -------------------------------------------------- rooted */
int cptc_plan_gather(cpt_comm *c, int root, int64_t count, int64_t dt);
int cptc_plan_gatherv(cpt_comm *c, int root, int seed, int64_t dt); /* rank r sends vcount(r) */
int cptc_plan_scatter(cpt_comm *c, int root, int64_t count, int64_t dt);
int cptc_plan_scatterv(cpt_comm *c, int root, int seed, int64_t dt); /* rank r gets vcount(r) */
int cptc_plan_bcast(cpt_comm *c, int root, int64_t count, int64_t dt);
int cptc_plan_reduce(cpt_comm *c, int root, int64_t count, int64_t dt);
void cptc_gather(cpt_comm *c, int form, int root, int count, bool in_place);
void cptc_gatherv(cpt_comm *c, int form, int root, int seed, bool in_place);
void cptc_scatter(cpt_comm *c, int form, int root, int count, bool in_place);
void cptc_scatterv(cpt_comm *c, int form, int root, int seed, bool in_place);
void cptc_bcast(cpt_comm *c, int form, int root, int count);
void cptc_reduce(cpt_comm *c, int form, int root, int count, bool in_place); /* MPI_SUM */

/* ------------------------------------------------ reductions, barrier */
/* collective: "Allreduce", "Scan" or "Exscan" */
int cptc_plan_allreduce(cpt_comm *c, const char *collective, int64_t count, int64_t dt);
int cptc_plan_reduce_scatter(cpt_comm *c, int seed, int64_t dt); /* recvcounts[i] = vcount(i) */
int cptc_plan_reduce_scatter_block(cpt_comm *c, int64_t count, int64_t dt);
int cptc_plan_barrier(cpt_comm *c);
void cptc_allreduce(cpt_comm *c, const char *collective, int form, int count, bool in_place);
void cptc_reduce_scatter(cpt_comm *c, int form, int seed, bool in_place);
void cptc_reduce_scatter_block(cpt_comm *c, int form, int count, bool in_place);
void cptc_barrier(cpt_comm *c, int form);

/* --------------------------------------------- all-to-all, all-gather */
/* mixed: odd ranks pass count/2 of a contiguous pair of MPI_INT (count
 * even): datatype sizes differ, counts in bytes. */
int cptc_plan_allgather(cpt_comm *c, int64_t count, bool mixed, int64_t dt);
int cptc_plan_allgatherv(cpt_comm *c, int seed, int64_t dt); /* rank r sends vcount(r) */
/* sendcounts pair_count(r, p) (sym_count with in_place) of datatype
 * w_size(r, p) */
int cptc_plan_alltoallw(cpt_comm *c, int seed, bool in_place);
void cptc_allgather(cpt_comm *c, int form, int count, bool in_place, bool mixed);
void cptc_allgatherv(cpt_comm *c, int form, int seed, bool in_place);
/* the same with rank r contributing counts[r] */
void cptc_allgatherv_of(cpt_comm *c, int form, const int *counts, bool in_place);
void cptc_alltoallw(cpt_comm *c, int form, int seed, bool in_place);

/* ------------------------------------------------------ neighbourhood */
/* On a communicator with a topology whose neighbours were declared
 * (cpt_comm_set_neighbors).  allgatherv: rank r sends vcount(r);
 * alltoallv: a sends pair_count(a, b) to b; alltoallw: those counts of
 * datatype w_size(a, b). */
int cptc_plan_neighbor_allgather(cpt_comm *c, int64_t count, int64_t dt);
int cptc_plan_neighbor_allgatherv(cpt_comm *c, int seed, int64_t dt);
int cptc_plan_neighbor_alltoall(cpt_comm *c, int64_t count, int64_t dt);
int cptc_plan_neighbor_alltoallv(cpt_comm *c, int seed, int64_t dt);
int cptc_plan_neighbor_alltoallw(cpt_comm *c, int seed);
void cptc_neighbor_allgather(cpt_comm *c, int form, int count);
void cptc_neighbor_allgatherv(cpt_comm *c, int form, int seed);
void cptc_neighbor_alltoall(cpt_comm *c, int form, int count);
void cptc_neighbor_alltoallv(cpt_comm *c, int form, int seed);
void cptc_neighbor_alltoallw(cpt_comm *c, int form, int seed);

/* Data as the calls fill it (for calls made by hand): the element i that
 * rank src sends to dst (-1: to everyone) with key k. */
int cptc_value(int src, int dst, int64_t i, int k);

#endif
