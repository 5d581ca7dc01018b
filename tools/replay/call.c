/*
 * The one table of replayable collectives: each as the count files name it
 * (every form of a collective shares one count series: MPI_Alltoallv,
 * MPI_Ialltoallv, MPI_Alltoallv_init, ..._c), how its arguments are shaped
 * (args.c reads them from the recorded rows accordingly) and how it is
 * called, blocking (req NULL) or non-blocking.
 */
#include <strings.h>

#include "replay.h"

#define CALL(blocking, nonblocking)                                                               \
    return req ? MPI_I##nonblocking : MPI_##blocking

static int alltoall(const replay_args *a, MPI_Request *req)
{
    CALL(Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, req));
}
static int alltoallv(const replay_args *a, MPI_Request *req)
{
    CALL(Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                   a->rtype, a->comm),
         alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                   a->rtype, a->comm, req));
}
static int alltoallw(const replay_args *a, MPI_Request *req)
{
    CALL(Alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts, a->rdispls,
                   a->rtypes, a->comm),
         alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts, a->rdispls,
                   a->rtypes, a->comm, req));
}
static int allgather(const replay_args *a, MPI_Request *req)
{
    CALL(Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, req));
}
static int allgatherv(const replay_args *a, MPI_Request *req)
{
    CALL(Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                    a->comm),
         allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                    a->comm, req));
}
static int gather(const replay_args *a, MPI_Request *req)
{
    CALL(Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm),
         gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm,
                req));
}
static int gatherv(const replay_args *a, MPI_Request *req)
{
    CALL(Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->root,
                 a->comm),
         gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->root,
                 a->comm, req));
}
static int scatter(const replay_args *a, MPI_Request *req)
{
    CALL(Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm),
         scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm,
                 req));
}
static int scatterv(const replay_args *a, MPI_Request *req)
{
    CALL(Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcount, a->rtype,
                  a->root, a->comm),
         scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcount, a->rtype,
                  a->root, a->comm, req));
}
static int bcast(const replay_args *a, MPI_Request *req)
{
    CALL(Bcast(a->sbuf, a->scount, a->stype, a->root, a->comm),
         bcast(a->sbuf, a->scount, a->stype, a->root, a->comm, req));
}
static int reduce(const replay_args *a, MPI_Request *req)
{
    CALL(Reduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->root, a->comm),
         reduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->root, a->comm, req));
}
static int allreduce(const replay_args *a, MPI_Request *req)
{
    CALL(Allreduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         allreduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int scan(const replay_args *a, MPI_Request *req)
{
    CALL(Scan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         scan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int exscan(const replay_args *a, MPI_Request *req)
{
    CALL(Exscan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         exscan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int reduce_scatter(const replay_args *a, MPI_Request *req)
{
    CALL(Reduce_scatter(a->sbuf, a->rbuf, a->scounts, a->stype, a->op, a->comm),
         reduce_scatter(a->sbuf, a->rbuf, a->scounts, a->stype, a->op, a->comm, req));
}
static int reduce_scatter_block(const replay_args *a, MPI_Request *req)
{
    CALL(Reduce_scatter_block(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         reduce_scatter_block(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int barrier(const replay_args *a, MPI_Request *req)
{
    CALL(Barrier(a->comm), barrier(a->comm, req));
}
static int neighbor_allgather(const replay_args *a, MPI_Request *req)
{
    CALL(Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm,
                            req));
}
static int neighbor_allgatherv(const replay_args *a, MPI_Request *req)
{
    CALL(Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                             a->rtype, a->comm),
         neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                             a->rtype, a->comm, req));
}
static int neighbor_alltoall(const replay_args *a, MPI_Request *req)
{
    CALL(Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm,
                           req));
}
static int neighbor_alltoallv(const replay_args *a, MPI_Request *req)
{
    CALL(Neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts,
                            a->rdispls, a->rtype, a->comm),
         neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts,
                            a->rdispls, a->rtype, a->comm, req));
}
/* Neighbor_alltoallw takes MPI_Aint displacements.  With MPI 4 its
 * large-count form is called: MPICH 4.0.2's int-count binding swaps in- and
 * out-degree when it converts the count arrays (pmodels/mpich#6233): wrong
 * data, or a hang, when they differ. */
static int neighbor_alltoallw(const replay_args *a, MPI_Request *req)
{
#if MPI_VERSION >= 4
    CALL(Neighbor_alltoallw_c(a->sbuf, a->scounts_c, a->sdispls_aint, a->stypes, a->rbuf,
                              a->rcounts_c, a->rdispls_aint, a->rtypes, a->comm),
         neighbor_alltoallw_c(a->sbuf, a->scounts_c, a->sdispls_aint, a->stypes, a->rbuf,
                              a->rcounts_c, a->rdispls_aint, a->rtypes, a->comm, req));
#else
    CALL(Neighbor_alltoallw(a->sbuf, a->scounts, a->sdispls_aint, a->stypes, a->rbuf, a->rcounts,
                            a->rdispls_aint, a->rtypes, a->comm),
         neighbor_alltoallw(a->sbuf, a->scounts, a->sdispls_aint, a->stypes, a->rbuf, a->rcounts,
                            a->rdispls_aint, a->rtypes, a->comm, req));
#endif
}

const replay_coll replay_colls[] = {
    {"Alltoall", REPLAY_SINGLE, alltoall},
    {"Alltoallv", 0, alltoallv},
    {"Alltoallw", REPLAY_TYPED, alltoallw},
    {"Allgather", REPLAY_SINGLE, allgather},
    {"Allgatherv", 0, allgatherv},
    {"Gather", REPLAY_SINGLE | REPLAY_ROOTED, gather},
    {"Gatherv", REPLAY_ROOTED, gatherv},
    {"Scatter", REPLAY_SINGLE | REPLAY_ROOTED, scatter},
    {"Scatterv", REPLAY_ROOTED, scatterv},
    {"Bcast", REPLAY_SINGLE | REPLAY_ROOTED, bcast},
    {"Reduce", REPLAY_SINGLE | REPLAY_ROOTED | REPLAY_REDUCE, reduce},
    {"Allreduce", REPLAY_SINGLE | REPLAY_REDUCE, allreduce},
    {"Scan", REPLAY_SINGLE | REPLAY_REDUCE, scan},
    {"Exscan", REPLAY_SINGLE | REPLAY_REDUCE, exscan},
    {"Reduce_scatter", REPLAY_REDUCE, reduce_scatter},
    {"Reduce_scatter_block", REPLAY_SINGLE | REPLAY_REDUCE, reduce_scatter_block},
    {"Barrier", REPLAY_SINGLE, barrier},
    {"Neighbor_allgather", REPLAY_SINGLE | REPLAY_NEIGHBOR, neighbor_allgather},
    {"Neighbor_allgatherv", REPLAY_NEIGHBOR, neighbor_allgatherv},
    {"Neighbor_alltoall", REPLAY_SINGLE | REPLAY_NEIGHBOR, neighbor_alltoall},
    {"Neighbor_alltoallv", REPLAY_NEIGHBOR, neighbor_alltoallv},
    {"Neighbor_alltoallw", REPLAY_NEIGHBOR | REPLAY_TYPED, neighbor_alltoallw},
};
const size_t replay_ncolls = sizeof replay_colls / sizeof replay_colls[0];

int replay_coll_find(const char *name)
{
    for (size_t i = 0; i < replay_ncolls; i++)
        if (strcasecmp(replay_colls[i].name, name) == 0)
            return (int)i;
    return -1;
}
