/*
 * Communicator churn (2-4 ranks), as libraries that duplicate a
 * communicator per operation make it: CYCLES times MPI_Comm_dup of
 * MPI_COMM_WORLD (every other cycle MPI_Comm_idup, which collprof does not
 * wrap: the communicator is registered at its first call, and a freed
 * one's entry in the communicator cache must be gone by then), two
 * MPI_Alltoallv on the new communicator, MPI_Comm_free (MPI may hand out
 * the same handle again).  Every cycle is a communicator
 * of its own with the very same members, so only the order of first use
 * tells them apart; freeing one shrinks its tables, and its data must
 * survive that.
 *
 * Cycle c's matrix identifies it: rank r sends c + 1 ints to itself and
 * 1 int to every other rank.  After MPI_Finalize, rank 0 reads the output
 * through the reader library and checks that there are exactly CYCLES
 * communicators of these members with Alltoallv calls, each with calls 0-1
 * of one cycle's matrix, every cycle exactly once, and that the whole
 * profile passes the reader's consistency check.
 *
 * usage: test_churn [cycles=200]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"

static int failures;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "churn: FAIL: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                 \
            failures++;                                                                          \
        }                                                                                        \
    } while (0)

/* Is this communicator's member list exactly world ranks 0..n-1? */
static bool is_world_members(const cp_comm_info *ci, int n)
{
    if (ci->size != n || ci->remote_members.n != 0)
        return false;
    for (int r = 0; r < n; r++)
        if (cp_ranges_nth(&ci->members, r) != r)
            return false;
    return true;
}

static void verify(const char *dir, int n, int cycles)
{
    cp_profile p;
    cp_error err = {{0}};
    if (cp_profile_load(dir, &p, &err) != 0) {
        CHECK(0, "the reader cannot load %s: %s", dir, err.msg);
        return;
    }
    char *seen = calloc((size_t)cycles, 1);
    int found = 0;
    for (size_t i = 0; i < p.manifest.ncomms; i++) {
        const cp_comm_info *ci = &p.manifest.comms[i];
        const cp_block *b = cp_profile_find(&p, ci->id, "Alltoallv", CP_SEND, 0);
        if (!is_world_members(ci, n) || !b)
            continue;
        found++;
        CHECK(cp_profile_find(&p, ci->id, "Alltoallv", CP_SEND, 1) == b,
              "communicator %lld: calls 0 and 1 are not one block", (long long)ci->id);
        CHECK(cp_ranges_count(&b->calls) == 2, "communicator %lld: %lld calls",
              (long long)ci->id, (long long)cp_ranges_count(&b->calls));
        int64_t c = cp_block_count(b, 0, 0) - 1;
        if (c < 0 || c >= cycles) {
            CHECK(0, "communicator %lld: rank 0 sends itself %lld ints, no cycle's matrix",
                  (long long)ci->id, (long long)c + 1);
            continue;
        }
        CHECK(!seen[c], "cycle %lld appears twice", (long long)c);
        seen[c] = 1;
        for (int r = 0; r < n; r++)
            for (int q = 0; q < n; q++)
                CHECK(cp_block_count(b, r, q) == (r == q ? c + 1 : 1),
                      "cycle %lld: rank %d sends %lld to %d", (long long)c, r,
                      (long long)cp_block_count(b, r, q), q);
    }
    CHECK(found == cycles, "%d communicators with Alltoallv calls, expected %d", found, cycles);
    for (int c = 0; c < cycles; c++)
        CHECK(seen[c], "cycle %d is missing", c);
    FILE *devnull = fopen("/dev/null", "w");
    long problems = cp_profile_check(&p, devnull ? devnull : stderr);
    if (devnull)
        fclose(devnull);
    CHECK(problems == 0, "collprof check finds %ld problems", problems);
    printf("churn: %d communicators of %d ranks checked, %d failures\n", found, n, failures);
    free(seen);
    cp_profile_free(&p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int cycles = argc > 1 ? atoi(argv[1]) : 200;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *cnt = malloc((size_t)n * sizeof *cnt), *displs = malloc((size_t)n * sizeof *displs);
    int *sbuf = calloc((size_t)(n + cycles), sizeof *sbuf);
    int *rbuf = calloc((size_t)(n + cycles), sizeof *rbuf);
    for (int c = 0; c < cycles; c++) {
        for (int q = 0, at = 0; q < n; q++) {
            cnt[q] = q == me ? c + 1 : 1;
            displs[q] = at;
            at += cnt[q];
        }
        MPI_Comm d;
        if (c % 2) { /* a constructor collprof does not wrap: registered at its first call */
            MPI_Request r;
            MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Comm_dup(MPI_COMM_WORLD, &d);
        }
        for (int k = 0; k < 2; k++)
            MPI_Alltoallv(sbuf, cnt, displs, MPI_INT, rbuf, cnt, displs, MPI_INT, d);
        MPI_Comm_free(&d);
    }
    MPI_Finalize();
    if (me == 0) {
        const char *dir = getenv("COLLPROF_OUTPUT_DIR");
        if (!dir || !*dir) {
            fprintf(stderr, "churn: COLLPROF_OUTPUT_DIR is not set\n");
            return 1;
        }
        verify(dir, n, cycles);
    }
    free(cnt);
    free(displs);
    free(sbuf);
    free(rbuf);
    return failures ? 1 : 0;
}
