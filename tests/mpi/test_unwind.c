/*
 * A backtrace taken inside an MPI call that collprof's wrapper made through
 * its call memo walks out to the program's own functions: on x86-64 the
 * wrapper is assembly (lib/gen_wrappers.py) whose frame is live around the
 * MPI call, and its unwinding table must describe every push and pop, or
 * a debugger, a crash handler or a sampling profiler stops in it (or walks
 * into garbage).
 *
 * Every rank calls MPI_Allreduce from one call site, four times: with
 * MPI_SUM, so that the third is counted by the memo, then with MPI_OP_NULL,
 * which the memo does not compare (it is taken as the memo's) and the MPI
 * library refuses, calling the communicator's error handler from inside
 * the call.  The handler takes a backtrace (libgcc's unwinder, as glibc's
 * backtrace() does) and looks for this program's `main` and `reduce_four`
 * (exported: linked with -rdynamic).  The same again with MPI_Bcast and a
 * root beyond the communicator (a rooted shape of five arguments, no
 * stack arguments) and with MPI_Alltoallv and a NULL datatype (nine
 * arguments, three on the stack).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>

#define TEST_NAME "unwind"
#include "fail.h"

static volatile int four = 4;
static int handled, found_main, found_caller;
static const char *caller_name;

__attribute__((visibility("default"))) void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    void *frames[64];
    int n = backtrace(frames, 64);
    handled++;
    for (int i = 0; i < n; i++) {
        Dl_info info;
        if (!dladdr(frames[i], &info) || !info.dli_sname)
            continue;
        found_main |= strcmp(info.dli_sname, "main") == 0;
        found_caller |= strcmp(info.dli_sname, caller_name) == 0;
    }
}

static void check(const char *what)
{
    if (handled != 1)
        FAIL("%s: the error handler ran %d times, once expected", what, handled);
    if (!found_caller || !found_main)
        FAIL("%s: the backtrace from inside the refused call lacks %s%s%s", what,
             found_caller ? "" : caller_name, !found_caller && !found_main ? " and " : "",
             found_main ? "" : "main");
    handled = found_main = found_caller = 0;
}

/* Four calls from one call site, the last refused. */
__attribute__((noinline, visibility("default"))) void reduce_four(void)
{
    int x = 1, y = 0;
    for (int i = 0; i < four; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, i < 3 ? MPI_SUM : MPI_OP_NULL, MPI_COMM_WORLD);
}

__attribute__((noinline, visibility("default"))) void bcast_four(int size)
{
    int x = 1;
    for (int i = 0; i < four; i++)
        MPI_Bcast(&x, 1, MPI_INT, i < 3 ? 0 : size, MPI_COMM_WORLD);
}

__attribute__((noinline, visibility("default"))) void alltoallv_four(int size)
{
    int s[64] = {0}, r[64] = {0}, counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    for (int i = 0; i < four; i++)
        MPI_Alltoallv(s, counts, displs, i < 3 ? MPI_INT : MPI_DATATYPE_NULL, r, counts, displs,
                      MPI_INT, MPI_COMM_WORLD);
}

__attribute__((visibility("default"))) int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    caller_name = "reduce_four";
    reduce_four();
    check("MPI_Allreduce with MPI_OP_NULL");
    caller_name = "bcast_four";
    bcast_four(size);
    check("MPI_Bcast with a root beyond the communicator");
    caller_name = "alltoallv_four";
    alltoallv_four(size);
    check("MPI_Alltoallv with MPI_DATATYPE_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    if (!nerrors && rank == 0)
        printf("unwind: backtraces from inside refused repeated calls reach the program's "
               "functions\n");
    return nerrors ? 1 : 0;
}
