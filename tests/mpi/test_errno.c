/*
 * Does collprof leave errno as the application had it?  Each call is made
 * twice with errno set to a mark: first around collprof (PMPI_), to see
 * whether the MPI library itself leaves errno alone, then through it
 * (MPI_).  Where the library leaves it, collprof must too.  The calls take
 * every path of the wrappers: a communicator's registration (made by
 * MPI_Comm_dup, or behind collprof's back by PMPI_Comm_dup), a
 * collective's first call, a repeated call, a new pattern per call, a call
 * from another site, non-blocking and persistent forms, and the calls the
 * timing sample keeps (COLLPROF_TIMING_SAMPLE small).
 *
 * Prints "errno: PASS ..." and exits 0, or names each call that changed
 * errno and exits 1.  A run where the library changed errno in every call
 * checks nothing: it says so and exits 1, so the test cannot pass empty.
 */
#include <mpi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define MARK 4242
#define MAXP 16

static int checked, skipped, problems, rank;

/* errno after one call with errno set to MARK before it. */
#define ERRNO_AFTER(call) (errno = MARK, (void)(call), errno)

/* The library's own call first, then collprof's. */
#define CHECK(what, pcall, call)                                                          \
    do {                                                                                  \
        int lib_ = ERRNO_AFTER(pcall);                                                    \
        int ours_ = ERRNO_AFTER(call);                                                    \
        if (lib_ != MARK) {                                                               \
            skipped++;                                                                    \
        } else if (ours_ != MARK) {                                                       \
            fprintf(stderr, "errno: rank %d: %s: errno %d after the call, was %d\n", rank, \
                    what, ours_, MARK);                                                   \
            problems++;                                                                   \
        } else {                                                                          \
            checked++;                                                                    \
        }                                                                                 \
    } while (0)

static int sbuf[MAXP * 64], rbuf[MAXP * 64], counts[MAXP], displs[MAXP];

/* What rank a sends rank b depends on a + b: one array serves as the send
 * and the receive counts. */
static void set_counts(int n, int k)
{
    for (int i = 0; i < n; i++) {
        counts[i] = 1 + (k + rank + i) % 7;
        displs[i] = i * 8;
    }
}

/* Another call site for the call-path collector. */
static void other_site(MPI_Comm comm)
{
    int in = rank, out = 0;
    CHECK("MPI_Allreduce", PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm),
          MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n > MAXP) {
        fprintf(stderr, "errno: at most %d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    set_counts(n, 0);
    MPI_Comm dup, pdup;
    CHECK("MPI_Comm_dup", PMPI_Comm_dup(MPI_COMM_WORLD, &pdup),
          MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    /* The first calls: registration, tables, a new signature and run. */
    CHECK("first MPI_Alltoallv",
          PMPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup),
          MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup));
    /* The same again: the common path; the sample keeps some of them. */
    for (int i = 0; i < 200; i++)
        CHECK("repeated MPI_Alltoallv",
              PMPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup),
              MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup));
    /* A new pattern every call: new vectors, signatures and runs. */
    for (int k = 1; k <= 40; k++) {
        set_counts(n, k);
        CHECK("new pattern MPI_Alltoallv",
              PMPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup),
              MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup));
        other_site(k % 2 ? dup : MPI_COMM_WORLD);
    }
    MPI_Request rq;
    for (int i = 0; i < 20; i++)
        CHECK("MPI_Ialltoallv",
              (PMPI_Ialltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                               MPI_COMM_WORLD, &rq),
               PMPI_Wait(&rq, MPI_STATUS_IGNORE)),
              (MPI_Ialltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                              MPI_COMM_WORLD, &rq),
               MPI_Wait(&rq, MPI_STATUS_IGNORE)));
#if MPI_VERSION >= 4
    MPI_Request prq, mrq;
    CHECK("MPI_Alltoallv_init",
          PMPI_Alltoallv_init(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &prq),
          MPI_Alltoallv_init(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                             MPI_COMM_WORLD, MPI_INFO_NULL, &mrq));
    for (int i = 0; i < 5; i++)
        CHECK("MPI_Start", (PMPI_Start(&prq), PMPI_Wait(&prq, MPI_STATUS_IGNORE)),
              (MPI_Start(&mrq), MPI_Wait(&mrq, MPI_STATUS_IGNORE)));
    MPI_Request_free(&prq);
    MPI_Request_free(&mrq);
#endif
    /* A communicator made behind collprof's back: registered on its first
     * call. */
    CHECK("MPI_Alltoallv on a communicator not seen before",
          PMPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, pdup),
          MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, pdup));
    CHECK("MPI_Comm_free", PMPI_Comm_free(&pdup), MPI_Comm_free(&dup));
    int bad = problems, none = checked == 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &none, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (bad)
            printf("errno: FAIL: %d calls changed errno\n", bad);
        else if (none)
            printf("errno: FAIL: the MPI library changed errno in every call on %d rank(s): "
                   "nothing checked\n", none);
        else
            printf("errno: PASS: errno kept in %d calls (%d not checked: the library changed "
                   "it)\n", checked, skipped);
    }
    MPI_Finalize();
    return bad || none ? 1 : 0;
}
