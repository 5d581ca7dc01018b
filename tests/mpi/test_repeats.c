/*
 * Repeated calls with the same argument arrays.  collprof compares a call
 * with the last one's signature before anything else (the common case of a
 * repeating pattern), so every way a call can differ from the last one
 * while passing the same arrays is made here, and every call's counts are
 * checked against the plan:
 *
 *  - the same arrays, their contents changed in place between calls (A A A,
 *    then one count changed: B B B, back to A, one count 0);
 *  - MPI_IN_PLACE with the receive array of the calls before, then with a
 *    derived datatype of another size and the same counts;
 *  - rank 0 alone sending pairs of ints with the counts it sent ints with
 *    (its receive side unchanged: it receives nothing from itself), as a
 *    derived datatype and as the predefined MPI_2INT;
 *  - the same counts from another call site: with call paths on, its calls
 *    must be that site's (checked after MPI_Finalize with the reader);
 *  - a derived datatype with the counts of the calls before (its size
 *    decides the bytes), freed, and another of another size made, whose
 *    handle MPI may give the same number;
 *  - the non-blocking form with the same arrays;
 *  - a pause (MPI_Pcontrol) in the middle of a run of repeats;
 *  - Neighbor_alltoallv on a ring (a periodic 1-D grid), its arrays changed
 *    in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"
#include "harness.h"

static int n, me;
static int scounts[CPT_MAXRANKS], rcounts[CPT_MAXRANKS];
static int sdispls[CPT_MAXRANKS], rdispls[CPT_MAXRANKS];
/* Room for the largest call: CPT_MAXRANKS peers, fewer than 3 CPT_MAXRANKS
 * elements each (count_of), of 3 ints (the widest derived type). */
static int sbuf[3 * CPT_MAXRANKS * 3 * CPT_MAXRANKS], rbuf[3 * CPT_MAXRANKS * 3 * CPT_MAXRANKS];

/* What rank r sends to peer p in pattern k (k 3: symmetric, for MPI_IN_PLACE). */
static int count_of(int k, int r, int p)
{
    switch (k) {
    case 0:
        return 1 + r + 2 * p;
    case 1:
        return p == (r + 1) % n ? 7 : 1 + r + 2 * p; /* A with one count changed */
    case 2:
        return p == r ? 0 : 1 + r + 2 * p;           /* A with one count 0 */
    default:
        return 2 + r + p;
    }
}

/* Fill the same arrays in place with pattern k (units: elements of `unit`
 * ints each). */
static void fill(int k, int unit)
{
    int so = 0, ro = 0;
    for (int p = 0; p < n; p++) {
        scounts[p] = count_of(k, me, p);
        rcounts[p] = count_of(k, p, me);
        sdispls[p] = so;
        rdispls[p] = ro;
        so += scounts[p] * unit;
        ro += rcounts[p] * unit;
    }
}

/* Plan call of pattern k on world: every rank's rows, in datatype units of
 * dtsize bytes. */
static void plan(cpt_comm *w, int k, int64_t dtsize)
{
    int call = cpt_plan(w, "Alltoallv", -1);
    for (int r = 0; r < n; r++) {
        int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
        for (int p = 0; p < n; p++) {
            s[p] = count_of(k, r, p);
            v[p] = count_of(k, p, r);
        }
        cpt_plan_row(w, "Alltoallv", call, CP_SEND, r, dtsize, n, s);
        cpt_plan_row(w, "Alltoallv", call, CP_RECV, r, dtsize, n, v);
    }
}

static void call(cpt_comm *w, int k, MPI_Datatype t, int unit, bool in_place, bool nonblocking)
{
    fill(k, unit);
    plan(w, k, (int64_t)unit * (int64_t)sizeof(int));
    const void *s = in_place ? MPI_IN_PLACE : sbuf;
    if (nonblocking) {
        MPI_Request req;
        MPI_Ialltoallv(s, scounts, sdispls, t, rbuf, rcounts, rdispls, t, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Alltoallv(s, scounts, sdispls, t, rbuf, rcounts, rdispls, t, MPI_COMM_WORLD);
    }
}

/* Pattern 2 (no counts to oneself), but rank 0 sends pairs of ints with the
 * same counts: the others receive twice as many ints from it, and rank 0
 * receives what it received in pattern 2. */
static void call_rank0_pairs(cpt_comm *w, MPI_Datatype pair)
{
    int k = cpt_plan(w, "Alltoallv", -1);
    for (int r = 0; r < n; r++) {
        int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
        for (int p = 0; p < n; p++) {
            s[p] = count_of(2, r, p);
            v[p] = count_of(2, p, r) * (p == 0 ? 2 : 1);
        }
        cpt_plan_row(w, "Alltoallv", k, CP_SEND, r, r == 0 ? 2 * sizeof(int) : sizeof(int), n,
                     s);
        cpt_plan_row(w, "Alltoallv", k, CP_RECV, r, sizeof(int), n, v);
    }
    int so = 0, ro = 0;
    for (int p = 0; p < n; p++) {
        scounts[p] = count_of(2, me, p);
        rcounts[p] = count_of(2, p, me) * (p == 0 ? 2 : 1);
        sdispls[p] = so;
        rdispls[p] = ro;
        so += scounts[p];
        ro += rcounts[p];
    }
    MPI_Alltoallv(sbuf, scounts, sdispls, me == 0 ? pair : MPI_INT, rbuf, rcounts, rdispls,
                  MPI_INT, MPI_COMM_WORLD);
}

/* The same arrays and counts as call() with pattern 0, from a call site of
 * its own (not inlined, not cloned: its name is the call path's). */
static __attribute__((noinline, noclone)) void call_elsewhere(cpt_comm *w)
{
    fill(0, 1);
    plan(w, 0, sizeof(int));
    MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                  MPI_COMM_WORLD);
}

/* With call paths on: call_elsewhere's calls, and only they, are its call
 * path's (collprof callsites).  The number of problems found. */
static int check_elsewhere(int calls)
{
    const char *depth = getenv("COLLPROF_CALLSITE_DEPTH");
    if (me != 0 || (depth && strcmp(depth, "0") == 0))
        return 0;
    cp_profile p;
    cp_error err;
    cp_callsite_row *rows = NULL;
    size_t nrows = 0;
    if (cp_profile_load(getenv("COLLPROF_OUTPUT_DIR"), &p, &err) ||
        cp_profile_callsites(&p, false, &rows, &nrows, &err)) {
        fprintf(stderr, "repeats: the reader: %s\n", err.msg);
        return 1;
    }
    int problems = 1;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].node &&
            strcmp(rows[i].node->function, "call_elsewhere") == 0) {
            problems = rows[i].calls != (uint64_t)calls ||
                       strcmp(rows[i].collectives, "Alltoallv") != 0;
            fprintf(problems ? stderr : stdout,
                    "repeats: call path of call_elsewhere: %llu calls of %s (expected %d of "
                    "Alltoallv)\n",
                    (unsigned long long)rows[i].calls, rows[i].collectives, calls);
        }
    if (problems && nrows)
        fprintf(stderr, "repeats: no call path of call_elsewhere with its calls alone\n");
    free(rows);
    cp_profile_free(&p);
    return problems;
}

/* Neighbor_alltoallv on a ring (left, right), the same arrays each call:
 * rank r sends a + r to each neighbour. */
static void ring_call(cpt_comm *ring, MPI_Comm comm, int a)
{
    int k = cpt_plan(ring, "Neighbor_alltoallv", -1);
    for (int r = 0; r < n; r++) {
        int64_t s[2] = {a + r, a + r};
        int64_t v[2] = {a + (r + n - 1) % n, a + (r + 1) % n};
        cpt_plan_row(ring, "Neighbor_alltoallv", k, CP_SEND, r, sizeof(int), 2, s);
        cpt_plan_row(ring, "Neighbor_alltoallv", k, CP_RECV, r, sizeof(int), 2, v);
    }
    scounts[0] = scounts[1] = a + me;
    rcounts[0] = a + (me + n - 1) % n;
    rcounts[1] = a + (me + 1) % n;
    sdispls[0] = 0;
    sdispls[1] = scounts[0];
    rdispls[0] = 0;
    rdispls[1] = rcounts[0];
    MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT,
                           comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("repeats");
    n = cpt_world_size();
    me = cpt_world_rank();
    int members[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        members[i] = i;
    cpt_comm *w = cpt_comm_declare("world", n, members, MPI_COMM_WORLD, MPI_INT, MPI_DOUBLE);

    for (int i = 0; i < 3; i++)
        call(w, 0, MPI_INT, 1, false, false);
    for (int i = 0; i < 3; i++)
        call(w, 1, MPI_INT, 1, false, false);
    for (int i = 0; i < 2; i++)
        call(w, 0, MPI_INT, 1, false, false);
    call(w, 2, MPI_INT, 1, false, false);
    call(w, 0, MPI_INT, 1, false, false);
    for (int i = 0; i < 3; i++)
        call(w, 3, MPI_INT, 1, true, false);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < 2; i++)
        call(w, 3, pair, 2, true, false);
    MPI_Type_free(&pair);
    call(w, 3, MPI_INT, 1, false, false);

    /* Rank 0's send datatype alone changes. */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < 3; i++)
        call(w, 2, MPI_INT, 1, false, false);
    for (int i = 0; i < 2; i++)
        call_rank0_pairs(w, pair);
    MPI_Type_free(&pair);
    /* ... to another predefined datatype (the memo keeps predefined
     * datatypes' handles: it must compare the send datatype too). */
    for (int i = 0; i < 3; i++)
        call(w, 2, MPI_INT, 1, false, false);
    for (int i = 0; i < 2; i++)
        call_rank0_pairs(w, MPI_2INT);

    /* The same counts from two call sites, each repeated. */
    for (int i = 0; i < 3; i++)
        call(w, 0, MPI_INT, 1, false, false);
    for (int i = 0; i < 3; i++)
        call_elsewhere(w);
    call(w, 0, MPI_INT, 1, false, false);

    /* Derived datatypes: the counts of the calls just before, other sizes. */
    for (int i = 0; i < 2; i++)
        call(w, 0, MPI_INT, 1, false, false);
    for (int unit = 2; unit <= 3; unit++) {
        MPI_Datatype t;
        MPI_Type_contiguous(unit, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (int i = 0; i < 3; i++)
            call(w, 0, t, unit, false, false);
        MPI_Type_free(&t);
    }
    call(w, 0, MPI_INT, 1, false, false);

    for (int i = 0; i < 3; i++)
        call(w, 0, MPI_INT, 1, false, true);

    /* Paused in the middle of repeats: numbered, not recorded. */
    call(w, 0, MPI_INT, 1, false, false);
    call(w, 0, MPI_INT, 1, false, false);
    cpt_pcontrol(0);
    call(w, 0, MPI_INT, 1, false, false);
    call(w, 0, MPI_INT, 1, false, false);
    cpt_pcontrol(1);
    call(w, 0, MPI_INT, 1, false, false);
    call(w, 1, MPI_INT, 1, false, false);

    /* A ring: the same arrays, changed in place. */
    MPI_Comm ring;
    int dims[1] = {n}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    cpt_comm *rc = cpt_comm_declare("ring", n, members, ring, MPI_INT, MPI_DOUBLE);
    for (int r = 0; r < n; r++) {
        int src[2] = {(r + n - 1) % n, (r + 1) % n};
        cpt_comm_set_neighbors(rc, r, 2, src, 2, src);
    }
    for (int a = 1; a <= 2; a++)
        for (int i = 0; i < 3; i++)
            ring_call(rc, ring, a);
    ring_call(rc, ring, 1);
    MPI_Comm_free(&ring);
    cpt_comm_forget(rc);

    MPI_Finalize();
    int verdict = cpt_verify();
    return check_elsewhere(3 * n) ? 1 : verdict;
}
