/*
 * Calls the MPI library refuses, and a program whose ranks do not make the
 * same calls: under collprof each must end as it ends without it, with the
 * profile written and the refused calls and the disagreement named
 * (tests/mpi/faults.sh, case refused-calls).
 *
 * usage: test_failed WHO FORM
 *   WHO   one: rank 0 alone calls MPI_Gather with MPI_DATATYPE_NULL as its
 *              send type (the library refuses it: MPI_ERR_TYPE), the others
 *              do not call it
 *         all: every rank calls MPI_Gather with a root beyond the
 *              communicator (MPI_ERR_ROOT)
 *         null: every rank calls MPI_Alltoallv three times with the same
 *              arrays, then with the receive counts NULL (Open MPI refuses
 *              it: MPI_ERR_ARG; MPICH reads the NULL array itself, so the
 *              case is Open MPI's): collprof, which knows the repeated
 *              arguments by then, must not read the NULL array either
 *         op:  every rank calls MPI_Allreduce four times from one call site,
 *              the fourth with MPI_OP_NULL (MPI_ERR_OP): the call memo,
 *              which does not compare operations, has counted it when the
 *              library refuses it
 *         extra: the rank of world rank 2 on a communicator of world ranks
 *              1.. starts an MPI_Ibcast that its peers never call (an
 *              erroneous program the library does not notice)
 *   FORM  blocking (MPI_Gather), nonblocking (MPI_Igather, waited for when
 *         accepted), persistent (MPI_Gather_init + MPI_Start + MPI_Wait when
 *         accepted); ignored by extra
 * Then every rank makes two MPI_Allreduce on MPI_COMM_WORLD and rank 0
 * prints what each call returned.  Errors return (MPI_ERRORS_RETURN).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_forms.h" /* MPI_Gather_init under the library's own name */

static volatile int four = 4;

static const char *class_name(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls == MPI_SUCCESS ? "success" : cls == MPI_ERR_TYPE ? "MPI_ERR_TYPE"
                                          : cls == MPI_ERR_ROOT ? "MPI_ERR_ROOT"
                                          : cls == MPI_ERR_ARG  ? "MPI_ERR_ARG"
                                          : cls == MPI_ERR_OP   ? "MPI_ERR_OP"
                                                                : "another error";
}

static int gather(const char *form, int *sbuf, MPI_Datatype stype, int *rbuf, int root)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int rc;
    if (strcmp(form, "blocking") == 0)
        return MPI_Gather(sbuf, 1, stype, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD);
    if (strcmp(form, "nonblocking") == 0) {
        rc = MPI_Igather(sbuf, 1, stype, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        return rc;
    }
    rc = MPI_Gather_init(sbuf, 1, stype, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &rq);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Start(&rq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Request_free(&rq);
    }
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *who = argc > 1 ? argv[1] : "one", *form = argc > 2 ? argv[2] : "blocking";
    int buf[64] = {0}, other[64] = {0};
    const char *said = "not called";
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Request leaked = MPI_REQUEST_NULL;
    if (strcmp(who, "one") == 0) {
        if (rank == 0)
            said = class_name(gather(form, buf, MPI_DATATYPE_NULL, other, 0));
    } else if (strcmp(who, "all") == 0) {
        said = class_name(gather(form, buf, MPI_INT, other, size));
    } else if (strcmp(who, "null") == 0) {
        int counts[64], displs[64];
        for (int i = 0; i < size && i < 64; i++) {
            counts[i] = 1;
            displs[i] = i;
        }
        /* One call site for all four (the call path is part of what
         * repeats): a loop the compiler can neither unroll nor split. */
        for (int i = 0; i < four; i++) {
            int *volatile rcounts = i < 3 ? counts : NULL;
            said = class_name(MPI_Alltoallv(buf, counts, displs, MPI_INT, other, rcounts,
                                            displs, MPI_INT, MPI_COMM_WORLD));
        }
    } else if (strcmp(who, "op") == 0) {
        int y = 1, z = 0;
        for (int i = 0; i < four; i++) {
            MPI_Op op = i < 3 ? MPI_SUM : MPI_OP_NULL;
            said = class_name(MPI_Allreduce(&y, &z, 1, MPI_INT, op, MPI_COMM_WORLD));
        }
    } else {
        MPI_Comm_split(MPI_COMM_WORLD, rank >= 1, rank, &sub);
        if (rank == 2) /* its peers never call it: it is never completed */
            MPI_Ibcast(buf, 4, MPI_INT, 1, sub, &leaked);
    }
    int x = rank + 1, sum = 0;
    for (int i = 0; i < 2; i++)
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_failed %s %s: rank 0's call: %s; sum %d\n", who, form, said, sum);
    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
