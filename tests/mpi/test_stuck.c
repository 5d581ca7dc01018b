/*
 * A rank stopped inside a call its peers never entered (faults.sh, case
 * stuck-in-call): every rank makes CALLS MPI_Alltoallv on MPI_COMM_WORLD;
 * then every rank but the last starts one more (MPI_Ialltoallv, recorded
 * when it is started) and waits in MPI_Wait for the last rank, which never
 * comes: it pauses.  Each rank writes its pid into $CPT_PID_DIR/rank<R>.pid
 * once it is where the signal must find it (cpt_pid_file); the test then
 * kills them all.
 * usage: test_stuck
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mpi.h>

#include "harness.h"

#define CALLS 5

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
    int *sbuf = calloc((size_t)n, sizeof *sbuf), *rbuf = calloc((size_t)n, sizeof *rbuf);
    for (int i = 0; i < n; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    for (int k = 0; k < CALLS; k++)
        MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                      MPI_COMM_WORLD);
    if (rank == 0)
        printf("stuck: call %d entered by all ranks but %d\n", CALLS, n - 1);
    fflush(stdout);
    if (rank < n - 1) {
        MPI_Request req;
        MPI_Ialltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                       MPI_COMM_WORLD, &req);
        cpt_pid_file(rank);
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* never returns: the last rank does not come */
    } else {
        cpt_pid_file(rank);
    }
    for (;;)
        pause(); /* until killed */
}
