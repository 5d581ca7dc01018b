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

static int alltoall(const rpl_args *a, MPI_Request *req)
{
    CALL(Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, req));
}
static int alltoallv(const rpl_args *a, MPI_Request *req)
{
    CALL(Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                   a->rtype, a->comm),
         alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                   a->rtype, a->comm, req));
}
static int alltoallw(const rpl_args *a, MPI_Request *req)
{
    CALL(Alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts, a->rdispls,
                   a->rtypes, a->comm),
         alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf, a->rcounts, a->rdispls,
                   a->rtypes, a->comm, req));
}
static int allgather(const rpl_args *a, MPI_Request *req)
{
    CALL(Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, req));
}
static int allgatherv(const rpl_args *a, MPI_Request *req)
{
    CALL(Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                    a->comm),
         allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                    a->comm, req));
}
static int gather(const rpl_args *a, MPI_Request *req)
{
    CALL(Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm),
         gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm,
                req));
}
static int gatherv(const rpl_args *a, MPI_Request *req)
{
    CALL(Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->root,
                 a->comm),
         gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->root,
                 a->comm, req));
}
static int scatter(const rpl_args *a, MPI_Request *req)
{
    CALL(Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm),
         scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm,
                 req));
}
static int scatterv(const rpl_args *a, MPI_Request *req)
{
    CALL(Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcount, a->rtype,
                  a->root, a->comm),
         scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcount, a->rtype,
                  a->root, a->comm, req));
}
static int bcast(const rpl_args *a, MPI_Request *req)
{
    CALL(Bcast(a->sbuf, a->scount, a->stype, a->root, a->comm),
         bcast(a->sbuf, a->scount, a->stype, a->root, a->comm, req));
}
static int reduce(const rpl_args *a, MPI_Request *req)
{
    CALL(Reduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->root, a->comm),
         reduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->root, a->comm, req));
}
static int allreduce(const rpl_args *a, MPI_Request *req)
{
    CALL(Allreduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         allreduce(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int scan(const rpl_args *a, MPI_Request *req)
{
    CALL(Scan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         scan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int exscan(const rpl_args *a, MPI_Request *req)
{
    CALL(Exscan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         exscan(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int reduce_scatter(const rpl_args *a, MPI_Request *req)
{
    CALL(Reduce_scatter(a->sbuf, a->rbuf, a->scounts, a->stype, a->op, a->comm),
         reduce_scatter(a->sbuf, a->rbuf, a->scounts, a->stype, a->op, a->comm, req));
}
static int reduce_scatter_block(const rpl_args *a, MPI_Request *req)
{
    CALL(Reduce_scatter_block(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm),
         reduce_scatter_block(a->sbuf, a->rbuf, a->scount, a->stype, a->op, a->comm, req));
}
static int barrier(const rpl_args *a, MPI_Request *req)
{
    CALL(Barrier(a->comm), barrier(a->comm, req));
}
static int neighbor_allgather(const rpl_args *a, MPI_Request *req)
{
    CALL(Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm,
                            req));
}
static int neighbor_allgatherv(const rpl_args *a, MPI_Request *req)
{
    CALL(Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                             a->rtype, a->comm),
         neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                             a->rtype, a->comm, req));
}
static int neighbor_alltoall(const rpl_args *a, MPI_Request *req)
{
    CALL(Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm),
         neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm,
                           req));
}
static int neighbor_alltoallv(const rpl_args *a, MPI_Request *req)
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
static int neighbor_alltoallw(const rpl_args *a, MPI_Request *req)
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

const rpl_coll rpl_colls[] = {
    {"Alltoall", RPL_SINGLE, alltoall},
    {"Alltoallv", 0, alltoallv},
    {"Alltoallw", RPL_TYPED, alltoallw},
    {"Allgather", RPL_SINGLE, allgather},
    {"Allgatherv", 0, allgatherv},
    {"Gather", RPL_SINGLE | RPL_ROOTED, gather},
    {"Gatherv", RPL_ROOTED, gatherv},
    {"Scatter", RPL_SINGLE | RPL_ROOTED, scatter},
    {"Scatterv", RPL_ROOTED, scatterv},
    {"Bcast", RPL_SINGLE | RPL_ROOTED, bcast},
    {"Reduce", RPL_SINGLE | RPL_ROOTED | RPL_REDUCE, reduce},
    {"Allreduce", RPL_SINGLE | RPL_REDUCE, allreduce},
    {"Scan", RPL_SINGLE | RPL_REDUCE, scan},
    {"Exscan", RPL_SINGLE | RPL_REDUCE, exscan},
    {"Reduce_scatter", RPL_REDUCE, reduce_scatter},
    {"Reduce_scatter_block", RPL_SINGLE | RPL_REDUCE, reduce_scatter_block},
    {"Barrier", RPL_SINGLE, barrier},
    {"Neighbor_allgather", RPL_SINGLE | RPL_NEIGHBOR, neighbor_allgather},
    {"Neighbor_allgatherv", RPL_NEIGHBOR, neighbor_allgatherv},
    {"Neighbor_alltoall", RPL_SINGLE | RPL_NEIGHBOR, neighbor_alltoall},
    {"Neighbor_alltoallv", RPL_NEIGHBOR, neighbor_alltoallv},
    {"Neighbor_alltoallw", RPL_NEIGHBOR | RPL_TYPED, neighbor_alltoallw},
};
const size_t rpl_ncolls = sizeof rpl_colls / sizeof rpl_colls[0];

int rpl_coll_find(const char *name)
{
    for (size_t i = 0; i < rpl_ncolls; i++)
        if (strcasecmp(rpl_colls[i].name, name) == 0)
            return (int)i;
    return -1;
}
