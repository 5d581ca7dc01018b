/*
 * Exit without MPI_Finalize: collprof's destructor writes what each rank
 * holds into <output dir>/partial.rank<R>/, marked partial.
 *
 * usage: test_nofinalize HOW [all|any|rank1]   (under mpiexec: the run)
 *        test_nofinalize check DIR NRANKS HOW [all|any|rank1]
 *   HOW: how the run ends after its calls: exit (exit(0)), return (from
 *        main), term (every rank writes its pid to $CPT_PID_DIR/rank<R>.pid
 *        and waits to be killed: the test sends the signal), abort
 *        (MPI_Abort with error code 7 on rank 1), segv (rank 1 writes
 *        through a null pointer), fpe (rank 1 divides by zero), bus (rank 1
 *        reads a mapped page past the end of a file), ill (rank 1 executes
 *        an invalid instruction), abrt (rank 1 calls abort()); in all but
 *        the first three the other ranks wait; kill (with COLLPROF_SNAPSHOT=1:
 *        rank 1 comes 0.3 s late to the first call, the others wait for it;
 *        each rank waits 3 s, then makes one more call, MPI_Barrier, which
 *        takes the snapshot of the state so far before it, then writes its
 *        pid like term and waits for SIGKILL: the snapshot is all that is
 *        left, and it holds the scenario exactly); finalize (the same, then
 *        MPI_Finalize: no snapshot may be left behind).
 *        (afterwards, without MPI: checks DIR/partial.rank<R> of every rank
 *        with the reader library: the rank's own rows of every call exact;
 *        cp_profile_check finds no problem in partial.rank0, or, with `all`,
 *        in the partial profile of every rank, whose manifest also shows the
 *        configuration, and the reader, pointed at DIR, merges them all
 *        into the complete profile)
 *   any: only the partial profiles that are complete (their manifest.json,
 *        written last, exists) are checked; at least one must be.
 *   rank1: the same, and rank 1's must be there (the rank that failed).
 *        mpiexec (hydra) kills the other ranks as soon as one exits without
 *        MPI_Finalize, possibly before their destructors ran; the tests that
 *        want every rank's files run mpiexec with -disable-auto-cleanup.
 * The run and the check build the same plan (scenario below), so the checker
 * knows every count every rank passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static void scenario(cpt_comm *w, cpt_comm *d, cpt_comm *o)
{
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 2, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 1, false);
    cpt_alltoallv(d, CPT_BLOCKING, CPT_ZEROS, 3, false);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 1, false);
    cpt_alltoallv(o, CPT_BLOCKING, CPT_VARY, 9, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);
    cpt_alltoallv(d, CPT_NONBLOCKING, CPT_SILENT, 1, false);
}

static int members(int n, int *all, int *odd)
{
    int no = 0;
    for (int i = 0; i < n; i++)
        all[i] = i;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2)
            odd[no++] = i;
    return no;
}

static int check(const char *dir, int n, bool all_checked, bool any, bool rank1)
{
    cpt_init_offline("nofinalize", n);
    int all[CPT_MAXRANKS], odd[CPT_MAXRANKS], no = members(n, all, odd);
    cpt_comm *w = cpt_comm_plan("world", n, all, sizeof(int), sizeof(double));
    cpt_comm *d = cpt_comm_plan("dup of world", n, all, sizeof(int), sizeof(double));
    cpt_comm *o = cpt_comm_plan("odd (reversed)", no, odd, sizeof(int), sizeof(double));
    scenario(w, d, o);
    long problems = 0;
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (stat(path, &st) == 0) {
        fprintf(stderr, "FAIL: nofinalize: %s exists, but MPI_Finalize was never called\n", path);
        problems++;
    }
    int found = 0;
    for (int r = 0; r < n; r++) {
        char manifest[4200];
        snprintf(path, sizeof path, "%s/partial.rank%d", dir, r);
        snprintf(manifest, sizeof manifest, "%s/manifest.json", path);
        if ((any || (rank1 && r != 1)) && stat(manifest, &st) != 0) {
            printf("nofinalize: no complete partial profile of rank %d (killed by mpiexec "
                   "before its destructor finished?)\n", r);
            continue;
        }
        found++;
        problems += cpt_verify_partial(path, r,
                                       all_checked ? CPT_CHECK_PROFILE | CPT_CHECK_CONFIG
                                       : r == 0    ? CPT_CHECK_PROFILE
                                                   : 0);
    }
    if (all_checked && found == n)
        problems += cpt_verify_merged(dir);
    if (found == 0) {
        fprintf(stderr, "FAIL: nofinalize: no partial.rank<R> directory in %s\n", dir);
        problems++;
    }
    return cpt_offline_verdict(problems);
}

/* Rank 1's fault, for the HOWs that make it end abnormally. */
static void crash(const char *how)
{
    if (strcmp(how, "abort") == 0) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else if (strcmp(how, "segv") == 0) {
        *(volatile int *)NULL = 1;
    } else if (strcmp(how, "fpe") == 0) {
        /* Both operands unknown to the compiler: it would turn 1 / x into a
         * comparison, and only a real idiv faults (SIGFPE on x86). */
        volatile int seven = 7, zero = 0;
        printf("%d\n", seven / zero);
    } else if (strcmp(how, "bus") == 0) {
        /* A mapped page past the end of a file: SIGBUS on first access. */
        FILE *f = tmpfile();
        const volatile char *page =
            f ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0) : MAP_FAILED;
        if (page != MAP_FAILED)
            printf("%d\n", page[0]);
    } else if (strcmp(how, "ill") == 0) {
        __builtin_trap(); /* ud2: SIGILL on x86 */
    } else if (strcmp(how, "abrt") == 0) {
        abort();
    }
}

int main(int argc, char **argv)
{
    static const char *const hows[] = {"exit", "return", "term", "abort", "segv", "fpe",
                                       "bus",  "ill",    "abrt", "kill", "finalize"};
    const char *how = argc >= 2 ? argv[argc == 5 || argc == 6 ? 4 : 1] : "";
    bool known = false;
    for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++)
        known |= strcmp(how, hows[i]) == 0;
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "check") == 0 && known) {
        const char *which = argc == 6 ? argv[5] : "";
        return check(argv[2], atoi(argv[3]), strcmp(which, "all") == 0,
                     strcmp(which, "any") == 0, strcmp(which, "rank1") == 0);
    }
    if (argc < 2 || argc > 3 || !known) {
        fprintf(stderr, "usage: %s HOW [all|any|rank1] | check DIR NRANKS HOW [all|any|rank1]\n"
                        "  HOW: exit|return|term|abort|segv|fpe|bus|ill|abrt|kill|finalize\n",
                argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    cpt_init("nofinalize");
    int n = cpt_world_size(), me = cpt_world_rank();
    int all[CPT_MAXRANKS], odd[CPT_MAXRANKS], no = members(n, all, odd);
    MPI_Comm dupc, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? 1 : MPI_UNDEFINED, -me, &split);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_DOUBLE);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_INT, MPI_DOUBLE);
    cpt_comm *o = cpt_comm_declare("odd (reversed)", no, odd, split, MPI_INT, MPI_DOUBLE);
    if (strcmp(how, "kill") == 0 && me == 1) {
        /* Late by 0.3 s into the first call (an Alltoallv on the world): the
         * others wait there, and the snapshots must show it. */
        struct timespec t = {0, 300000000L};
        while (nanosleep(&t, &t) != 0)
            ;
    }
    scenario(w, d, o);
    /* Make sure every rank is done with its calls before any exits. */
    PMPI_Barrier(MPI_COMM_WORLD); /* the test's own step, not profiled */
    fflush(stdout);
    if (strcmp(how, "exit") == 0)
        exit(0);
    if (strcmp(how, "kill") == 0 || strcmp(how, "finalize") == 0) {
        /* Past the first snapshot's time, and past 100 times the length of
         * a snapshot a rank took before (collprof defers the next one by
         * that much: one taken as rank 1 entered its first call after its
         * sleep took over 10 ms where ranks outnumber busy-polling cores,
         * and its Barrier took none after 1.5 s). */
        struct timespec t = {3, 0};
        while (nanosleep(&t, &t) != 0)
            ;
        MPI_Barrier(MPI_COMM_WORLD); /* the snapshot is taken before it */
        if (strcmp(how, "finalize") == 0) {
            MPI_Comm_free(&dupc);
            if (split != MPI_COMM_NULL)
                MPI_Comm_free(&split);
            MPI_Finalize();
            return 0;
        }
    }
    if (strcmp(how, "term") == 0 || strcmp(how, "kill") == 0) {
        cpt_pid_file(me);
    } else if (me == 1) {
        crash(how);
    }
    if (strcmp(how, "return") != 0)
        for (;;)
            pause(); /* until killed: by the test, or by mpiexec */
    return 0; /* without MPI_Finalize */
}
