/*
 * Threads: MPI_Init_thread(MPI_THREAD_MULTIPLE), two pthreads each making
 * Alltoallv and Alltoall calls on its own communicator (two dups of world)
 * at the same time.  Each communicator's calls must be exact.
 *
 * usage: test_threads [crossed]
 *   By default the main thread makes the first call on each communicator
 *   (in the same order on every rank) before the threads start: what runs
 *   concurrently is the recording of calls.
 *   crossed: no call before the threads; they touch their communicators for
 *   the first time in opposite orders on even and odd ranks (thread 1 first
 *   on even ranks, thread 2 first on odd ranks; the other thread starts
 *   300 ms later).  Two communicators of identical membership are told apart
 *   by the order of their first use, which with threads can differ between
 *   ranks: the output must still keep the two apart.  (Without the delay the
 *   same happens at random, in about half of the runs.)
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define NCALLS 6

static pthread_barrier_t go;
static bool crossed;

typedef struct job {
    int id;
    cpt_comm *c;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(&go);
    if (crossed) {
        /* On even ranks thread 0 goes first, on odd ranks thread 1. */
        int first = cpt_world_rank() % 2;
        if (j->id != first) {
            struct timespec ts = {0, 300 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    for (int i = crossed ? 0 : 1; i < NCALLS; i++) {
        cpt_alltoallv(j->c, i % 2 ? CPT_NONBLOCKING : CPT_BLOCKING, CPT_VARY,
                      100 * (j->id + 1) + i, false);
        if (i % 3 == 2)
            cpt_alltoall(j->c, CPT_BLOCKING, j->id + i, false);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    crossed = argc > 1 && strcmp(argv[1], "crossed") == 0;
    cpt_init(crossed ? "threads_crossed" : "threads");
    if (provided != MPI_THREAD_MULTIPLE)
        cpt_die("MPI_THREAD_MULTIPLE not provided (got %d)", provided);
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Comm c1, c2;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_dup(MPI_COMM_WORLD, &c2);
    job jobs[2] = {
        {0, cpt_comm_declare("thread 1's dup", n, all, c1, MPI_INT, MPI_INT)},
        {1, cpt_comm_declare("thread 2's dup", n, all, c2, MPI_DOUBLE, MPI_SHORT)},
    };
    if (!crossed) /* call 0 of each, in order, before the threads */
        for (int i = 0; i < 2; i++)
            cpt_alltoallv(jobs[i].c, CPT_BLOCKING, CPT_VARY, 100 * (i + 1), false);
    pthread_barrier_init(&go, NULL, 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, worker, &jobs[i]) != 0)
            cpt_die("pthread_create failed");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Finalize();
    return cpt_verify();
}
