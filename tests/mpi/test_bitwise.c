/*
 * Does collprof change a result?  An iterative program whose every step
 * depends bit for bit on what the collectives returned: a floating-point
 * state that goes through MPI_Allreduce (MPI_IN_PLACE), MPI_Bcast of a
 * derived datatype from a rotating root, MPI_Alltoallv whose counts come
 * from the state's bits, their non-blocking forms, and a second thread
 * making its own collectives on a duplicate of MPI_COMM_WORLD
 * (MPI_THREAD_MULTIPLE).  It stops when a quantity computed from the state
 * falls below a threshold, so that a last-bit difference anywhere changes
 * the number of iterations, and rank 0 prints that number and a hash of
 * every bit of the final state.  tests/mpi/bitwise.sh runs it many times
 * with and without collprof, oversubscribed: every run must print the same.
 *
 * usage: test_bitwise [MAX_ITERATIONS]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 24 /* doubles of state per rank */

static int rank, size;

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The second thread: its own reductions on its own communicator, whose
 * result feeds back into the state. */
typedef struct side {
    MPI_Comm comm;
    double in[N], out[N];
    int iterations;
} side;

static void *side_work(void *arg)
{
    side *s = arg;
    for (int i = 0; i < s->iterations; i++) {
        MPI_Request rq;
        MPI_Iallreduce(s->in, s->out, N, MPI_DOUBLE, MPI_MAX, s->comm, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (int k = 0; k < N; k++)
            s->in[k] = s->out[k] * 0.999 + 1e-3 * k;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int max_it = argc > 1 ? atoi(argv[1]) : 400;
    double x[N], y[N];
    for (int k = 0; k < N; k++)
        x[k] = 1.0 / (1 + rank + k) + 1e-3 * (rank * 31 + k);
    /* every other double of a block of 2N: a derived datatype */
    MPI_Datatype stride2;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &stride2);
    MPI_Type_commit(&stride2);
    side sd = {.iterations = 0};
    pthread_t th;
    bool threads = provided == MPI_THREAD_MULTIPLE;
    if (threads) {
        MPI_Comm_dup(MPI_COMM_WORLD, &sd.comm);
        for (int k = 0; k < N; k++)
            sd.in[k] = rank + 0.5 * k;
        sd.iterations = 8;
        pthread_create(&th, NULL, side_work, &sd);
    }
    int *sc = calloc((size_t)size, sizeof *sc), *sdp = calloc((size_t)size, sizeof *sdp);
    int *rc = calloc((size_t)size, sizeof *rc), *rdp = calloc((size_t)size, sizeof *rdp);
    double *sbuf = calloc((size_t)size * N, sizeof *sbuf), *rbuf = calloc((size_t)size * N, sizeof *rbuf);
    double block[2 * N];
    int it = 0;
    double residual = 1;
    for (; it < max_it && residual > 1e-18; it++) {
        /* 1. a global sum in place, blocking or not by the iteration */
        memcpy(y, x, sizeof y);
        if (it % 2) {
            MPI_Request rq;
            MPI_Iallreduce(MPI_IN_PLACE, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(MPI_IN_PLACE, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        /* 2. the root's strided block to every rank */
        int root = it % size;
        for (int k = 0; k < 2 * N; k++)
            block[k] = rank == root ? y[k / 2] * (k % 2 ? -1 : 1) + 1e-7 * it : 0;
        if (it % 3 == 1) {
            MPI_Request rq;
            MPI_Ibcast(block, 1, stride2, root, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Bcast(block, 1, stride2, root, MPI_COMM_WORLD);
        }
        /* 3. counts from the state's low bits: an irregular exchange */
        int off = 0;
        for (int p = 0; p < size; p++) {
            sc[p] = 1 + (int)(bits(x[(p + it) % N]) % (uint64_t)N);
            sdp[p] = p * N;
            for (int k = 0; k < sc[p]; k++)
                sbuf[p * N + k] = x[(k + p) % N] + block[2 * ((k + it) % N)];
        }
        MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++) {
            rdp[p] = off;
            off += rc[p];
        }
        if (it % 2) {
            MPI_Request rq;
            MPI_Ialltoallv(sbuf, sc, sdp, MPI_DOUBLE, rbuf, rc, rdp, MPI_DOUBLE, MPI_COMM_WORLD,
                           &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Alltoallv(sbuf, sc, sdp, MPI_DOUBLE, rbuf, rc, rdp, MPI_DOUBLE, MPI_COMM_WORLD);
        }
        /* 4. the new state, and how far it moved */
        double local = 0;
        for (int k = 0; k < N; k++) {
            double acc = 0;
            for (int j = 0; j < off; j++)
                acc += rbuf[j] * (1.0 / (1 + ((j + k) % 7)));
            double nx = 0.9 * x[k] + 0.1 * (y[k] / size) * 1e-3 + 1e-6 * acc / (1 + off);
            local += (nx - x[k]) * (nx - x[k]);
            x[k] = nx;
        }
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (threads) {
        pthread_join(th, NULL);
        for (int k = 0; k < N; k++)
            x[k] += 1e-12 * sd.in[k];
        MPI_Comm_free(&sd.comm);
    }
    uint64_t h = 0;
    for (int k = 0; k < N; k++)
        h = mix(h, bits(x[k]));
    uint64_t all[1024] = {0};
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t g = 0;
        for (int r = 0; r < size && r < 1024; r++)
            g = mix(g, all[r]);
        printf("test_bitwise: %d ranks, %d iterations, residual %a, state %016llx\n", size, it,
               residual, (unsigned long long)g);
    }
    MPI_Type_free(&stride2);
    free(sc), free(sdp), free(rc), free(rdp), free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
