/*
 * Recording control.  Calls that are not recorded keep their numbers.
 *
 *  - MPI_Pcontrol(0) / MPI_Pcontrol(1) pause and resume (with -DCPT_LINKED,
 *    the program is linked with libcollprof and uses collprof_pause /
 *    collprof_resume and collprof_is_recording instead);
 *  - COLLPROF_START_CALL / COLLPROF_MAX_CALLS, when the driver sets them
 *    (the harness applies the window to the plan: call i of a
 *    (communicator, collective) is recorded iff START <= i < START + MAX and
 *    the run is not paused).
 *
 * world Alltoallv: 14 calls, a new matrix each (two of them starts of a
 *   persistent Alltoallv), paused during calls 4-8 (call 6: a start);
 * world Alltoall: 6 calls, paused during calls 2 and 3;
 * a dup of world: 6 Alltoallv calls, paused during its calls 4 and 5;
 * a split communicator with only 2 calls (nothing recorded in a window
 * starting at 3).
 *
 * usage: test_recording [nopause]   (nopause: no pause at all, to check the
 * recording window alone)
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#ifdef CPT_LINKED
#include "collprof.h"
#endif

static void pause_run(bool pause)
{
#ifdef CPT_LINKED
    if (pause)
        collprof_pause();
    else
        collprof_resume();
    cpt_set_paused(pause);
    if (collprof_is_recording() != !pause)
        cpt_die("collprof_is_recording() = %d after collprof_%s()", collprof_is_recording(),
                pause ? "pause" : "resume");
#else
    cpt_pcontrol(pause ? 0 : 1);
#endif
}

int main(int argc, char **argv)
{
#ifdef CPT_LINKED
    if (collprof_is_recording())
        cpt_die("collprof_is_recording() before MPI_Init");
#endif
    MPI_Init(&argc, &argv);
#ifdef CPT_LINKED
    cpt_init("recording_linked");
    if (strcmp(collprof_version(), COLLPROF_VERSION_STRING) != 0)
        cpt_die("collprof_version() \"%s\", header says \"%s\"", collprof_version(),
                COLLPROF_VERSION_STRING);
    if (!collprof_is_recording())
        cpt_die("collprof_is_recording() = 0 after MPI_Init: is the library linked in?");
#else
    cpt_init("recording");
#endif
    int n = cpt_world_size(), me = cpt_world_rank(), all[CPT_MAXRANKS], lower[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = lower[i] = i;
    MPI_Comm dupc, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    int nlow = n / 2 > 0 ? n / 2 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, me < nlow ? 0 : MPI_UNDEFINED, me, &half);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_SHORT, MPI_INT);
    cpt_comm *h = cpt_comm_declare("lower half", nlow, lower, half, MPI_INT, MPI_INT);

    bool nopause = argc > 1 && strcmp(argv[1], "nopause") == 0;
    cpt_persistent pv;
    cpt_alltoallv_init(&pv, w, false, CPT_ZEROS, 5);
    for (int i = 0; i < 12; i++) {
        if (i == 4 && !nopause)
            pause_run(true);
        if (i == 8 && !nopause)
            pause_run(false);
        if (i == 10)
            MPI_Pcontrol(2); /* other levels change nothing */
        if (i == 6)
            cpt_start(&pv); /* while paused: numbered, not recorded */
        if (i == 10)
            cpt_start(&pv);
        cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, i, false);
        if (i % 2 == 0)
            cpt_alltoall(w, CPT_BLOCKING, 1 + i / 2, false);
        if (i < 6)
            cpt_alltoallv(d, CPT_NONBLOCKING, CPT_VARY, 50 + i, false);
        if (i == 1 || i == 9)
            cpt_alltoallv(h, CPT_BLOCKING, CPT_VARY, 70 + i, false);
    }
    cpt_persistent_free(&pv);
    MPI_Comm_free(&dupc);
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    MPI_Finalize();
#ifdef CPT_LINKED
    if (collprof_is_recording())
        cpt_die("collprof_is_recording() after MPI_Finalize");
#endif
    return cpt_verify();
}
