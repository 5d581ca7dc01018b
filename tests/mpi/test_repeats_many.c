/*
 * Repeated calls must be told apart from the one before whenever one count
 * differs.  The call memo keeps a side's count array as one 8-byte key: the
 * counts themselves when they fit (two int counts, one MPI_Count), else
 * their digest (cp_memo_key, lib/call_memo.h).  A distributed graph whose
 * every rank has DEG edges (argument; many to the same neighbour, which MPI
 * allows) gives Neighbor_alltoallv arrays of DEG counts on 2 or 3 ranks:
 * 300 (the digest's groups of four words, as a communicator of 300 ranks
 * passes them), 5 (a digest of its tail alone), 2 (the counts as they are;
 * the large-count form's digest of two words).
 *
 * Runs of RUN calls (the second keeps the description, the third is
 * counted by the memo), the same arrays changed in place between runs:
 *   A, then B (one count changed), A again, then C (two counts changed, +2
 *   and -2: the same total), then D (two counts eight apart swapped: one
 *   chain of the digest), A, E (the last count changed: the digest's words
 *   past its groups of four), F (count 10 changed: the second word of a
 *   group), then A.
 * Where the library has MPI 4.0's large-count forms, the same sequence
 * again through MPI_Neighbor_alltoallv_c (8-byte counts, a count a word).
 * Checked on rank 0 after MPI_Finalize with the reader: every call is in
 * the send block of its pattern, the blocks of different patterns are
 * different blocks, and each rank's row holds exactly the counts it passed.
 */
/* Open MPI's MPI_UNWEIGHTED points to an empty object: gcc takes it for an
 * array of no elements passed where MPI reads none either. */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "collprof/reader.h"

#define MAXDEG 1024
static int DEG = 300; /* edges a rank: argv[1], 2 to MAXDEG */
#define RUN 3

enum { A, B, C, D, E, F, NPATTERNS };
static const int sequence[] = {A, B, A, C, D, A, E, F, A};
#define NRUNS ((int)(sizeof sequence / sizeof sequence[0]))

/* What a rank sends on edge i in pattern k (the receiver expects the same
 * on its edge i: edges between two ranks match in order). */
static int count_of(int k, int i)
{
    int c = 1 + i % 5;
    int d1 = DEG / 4, d2 = d1 + 8 < DEG ? d1 + 8 : DEG - 1; /* D: 1 + d % 5 differ */
    int f = DEG > 10 ? 10 : DEG - 1;
    if (k == B && i == DEG * 2 / 3)
        c += 1;
    if (k == C && i == DEG / 3)
        c += 2;
    if (k == C && i == DEG / 3 + 1)
        c -= 2;
    if (k == D && i == d1)
        c = 1 + d2 % 5;
    if (k == D && i == d2)
        c = 1 + d1 % 5;
    if (k == E && i == DEG - 1)
        c += 2;
    if (k == F && i == f)
        c += 3;
    return c;
}

#define TEST_NAME "repeats_many"
#include "fail.h"

#define NCALLS ((int64_t)NRUNS * RUN) /* of each form */

/* The pattern of call index k. */
static int pattern_of_call(int64_t k)
{
    return sequence[k % NCALLS / RUN];
}

static void check(int nranks, int forms)
{
    cp_profile p;
    cp_error err;
    if (cp_profile_load(getenv("COLLPROF_OUTPUT_DIR"), &p, &err)) {
        FAIL("the reader: %s", err.msg);
        return;
    }
    const cp_block *first[2][NPATTERNS] = {{0}};
    int64_t comm = -1;
    for (size_t f = 0; f < p.nfiles && comm < 0; f++)
        for (size_t b = 0; b < p.files[f].nblocks; b++)
            if (!strcmp(p.files[f].blocks[b].collective, "Neighbor_alltoallv"))
                comm = p.files[f].blocks[b].comm_id;
    for (int64_t k = 0; k < forms * NCALLS; k++) {
        int pat = pattern_of_call(k);
        const cp_block **seen_first = first[k / NCALLS]; /* the blocks of this form's patterns */
        const cp_block *b = cp_profile_find(&p, comm, "Neighbor_alltoallv", CP_SEND, k);
        if (!b) {
            FAIL("call %lld: no send block", (long long)k);
            continue;
        }
        if (!seen_first[pat])
            seen_first[pat] = b;
        else if (seen_first[pat] != b)
            FAIL("call %lld (pattern %c) is not in the block of its pattern's other calls",
                 (long long)k, 'A' + pat);
        for (int q = 0; q < NPATTERNS; q++)
            if (q != pat && seen_first[q] == b)
                FAIL("call %lld (pattern %c) is in the block of pattern %c", (long long)k,
                     'A' + pat, 'A' + q);
        size_t seen = 0;
        for (size_t r = 0; r < b->nrows; r++) {
            const cp_row *row = &b->rows[r];
            size_t n = cp_row_nitems(row);
            for (size_t i = 0; i < n && n == (size_t)DEG; i++) {
                int64_t count;
                cp_row_item(row, 0, i, &count);
                if (count != count_of(pat, (int)i)) {
                    FAIL("call %lld (pattern %c): edge %zu holds %lld, %d was passed",
                         (long long)k, 'A' + pat, i, (long long)count, count_of(pat, (int)i));
                    break;
                }
            }
            if (n != (size_t)DEG)
                FAIL("call %lld: a row of %zu counts, %d were passed", (long long)k, n, DEG);
            seen += cp_ranges_count(&row->ranks);
        }
        if (seen != (size_t)nranks)
            FAIL("call %lld: rows for %zu ranks, %d called", (long long)k, seen, nranks);
    }
    if (cp_profile_check(&p, stderr))
        FAIL("the profile does not check");
    cp_profile_free(&p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1)
        DEG = atoi(argv[1]);
    if (DEG < 2 || DEG > MAXDEG) {
        fprintf(stderr, "repeats_many: DEG %d, expected 2 to %d\n", DEG, MAXDEG);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    /* Every edge to the next rank, every edge from the one before. */
    static int to[MAXDEG], from[MAXDEG], scounts[MAXDEG], rcounts[MAXDEG], displs[MAXDEG];
    for (int i = 0; i < DEG; i++) {
        to[i] = (me + 1) % n;
        from[i] = (me + n - 1) % n;
    }
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, from, MPI_UNWEIGHTED, DEG, to,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    int *sbuf = calloc(DEG * 8, sizeof *sbuf), *rbuf = calloc(DEG * 8, sizeof *rbuf);
    for (int run = 0; run < NRUNS; run++) {
        int at = 0;
        for (int i = 0; i < DEG; i++) {
            scounts[i] = rcounts[i] = count_of(sequence[run], i);
            displs[i] = at;
            at += scounts[i];
        }
        for (int c = 0; c < RUN; c++)
            MPI_Neighbor_alltoallv(sbuf, scounts, displs, MPI_INT, rbuf, rcounts, displs, MPI_INT,
                                   graph);
    }
    int forms = 1;
#if MPI_VERSION >= 4
    static MPI_Count lcounts[MAXDEG];
    static MPI_Aint ldispls[MAXDEG];
    for (int run = 0; run < NRUNS; run++) {
        MPI_Aint at = 0;
        for (int i = 0; i < DEG; i++) {
            lcounts[i] = count_of(sequence[run], i);
            ldispls[i] = at;
            at += lcounts[i];
        }
        for (int c = 0; c < RUN; c++)
            MPI_Neighbor_alltoallv_c(sbuf, lcounts, ldispls, MPI_INT, rbuf, lcounts, ldispls,
                                     MPI_INT, graph);
    }
    forms = 2;
#endif
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    if (me == 0) {
        check(n, forms);
        if (!nerrors)
            printf("repeats_many: %d calls of arrays of %d counts (%s), each in its pattern's "
                   "block, counts exact\n",
                   forms * NRUNS * RUN, DEG, forms == 2 ? "int and MPI_Count" : "int");
    }
    return nerrors ? 1 : 0;
}
