/*
 * Repeated calls of every family of collectives.  collprof counts a call
 * described as its series' last repeated one at once (lib/call_memo.h): so
 * each collective here is called in runs of three (the second call keeps
 * the description, the third is counted by it), and each run differs from
 * the one before in one thing a signature is made of: the count, the root,
 * MPI_IN_PLACE, the form (blocking, non-blocking, large counts), the
 * datatype's size (of datatypes per rank, Allgather; per peer, Alltoallw,
 * where one peer's alone changes), a derived datatype freed and made again
 * with another size; persistent starts among repeats; a cycle of patterns
 * that the call sequence folds into repetitions.  Every call's
 * counts are checked on rank 0 (cpt_verify), and its form by the visits of
 * its function's region in profile.cubex.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colls.h"
#include "cubex.h"

#define RUN_LENGTH 3

/* The calls made through each MPI function (its region in Cube). */
static struct {
    char region[64];
    uint64_t calls;
} through[64];
static size_t nthrough;

/* mpi_forms.h maps the persistent names to MPIX_ where the library has
 * only those (before MPI 4.0). */
#ifdef MPI_Bcast_init
#define PERSISTENT_PREFIX "MPIX_"
#else
#define PERSISTENT_PREFIX "MPI_"
#endif

static void tally_n(const char *coll, int form, uint64_t calls);

/* A run of calls of collective coll in form `form` (colls.h). */
static void tally(const char *coll, int form)
{
    tally_n(coll, form, RUN_LENGTH);
}

/* calls calls of collective coll in form `form`. */
static void tally_n(const char *coll, int form, uint64_t calls)
{
    form = cpt_form(form); /* the form the library has */
    bool nb = form == CPT_NONBLOCKING || form == CPT_NONBLOCKING_LARGE;
    bool pers = form == CPT_PERSISTENT;
    bool large = form == CPT_LARGE || form == CPT_NONBLOCKING_LARGE;
    char name[64];
    snprintf(name, sizeof name, "%s%s%c%s%s%s", pers ? PERSISTENT_PREFIX : "MPI_", nb ? "I" : "",
             nb ? tolower((unsigned char)coll[0]) : coll[0], coll + 1, pers ? "_init" : "",
             large ? "_c" : "");
    size_t i = 0;
    while (i < nthrough && strcmp(through[i].region, name))
        i++;
    if (i == nthrough) {
        if (nthrough == sizeof through / sizeof *through)
            cpt_die("too many regions");
        snprintf(through[nthrough++].region, sizeof through[0].region, "%s", name);
    }
    through[i].calls += calls;
}

/* Each call is made RUN_LENGTH times in a row: collective coll, form form. */
#define REPEAT_AS(coll, form, call)                                                               \
    do {                                                                                           \
        tally(coll, form);                                                                         \
        for (int rep_ = 0; rep_ < RUN_LENGTH; rep_++)                                              \
            call;                                                                                  \
    } while (0)

/* A persistent Bcast of 4 ints made, then started after runs of blocking
 * Bcasts of 3: each start one call of the series, in its place. */
static void persistent_among_repeats(cpt_comm *w)
{
    int buf[4];
    MPI_Request req;
    if (MPI_Bcast_init(buf, 4, MPI_INT, 0, w->comm, MPI_INFO_NULL, &req) != MPI_SUCCESS)
        cpt_die("MPI_Bcast_init failed");
    for (int start = 0; start < 2; start++) {
        REPEAT_AS("Bcast", CPT_BLOCKING, cptc_bcast(w, CPT_BLOCKING, 0, 3));
        tally_n("Bcast", CPT_PERSISTENT, 1);
        int k = cptc_plan_bcast(w, 0, 4, sizeof(int));
        for (int i = 0; i < 4; i++)
            buf[i] = w->rank == 0 ? cptc_value(0, -1, i, k) : -1;
        if (MPI_Start(&req) != MPI_SUCCESS || MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            cpt_die("MPI_Start of a persistent Bcast failed");
        for (int i = 0; i < 4; i++)
            if (buf[i] != cptc_value(0, -1, i, k))
                cpt_die("Bcast %d: element %d is %d", k, i, buf[i]);
    }
    MPI_Request_free(&req);
}

/* Roots 0, 1, 2, 0 (modulo the size): at 3 ranks rank 0 is a leaf of two
 * runs in a row that differ only in their root. */
static void rooted(cpt_comm *w, int r1)
{
    int roots[] = {0, r1, 2 % w->n, 0};
    for (int i = 0; i < 4; i++) {
        int root = roots[i];
        REPEAT_AS("Bcast", CPT_BLOCKING, cptc_bcast(w, CPT_BLOCKING, root, 3));
        REPEAT_AS("Reduce", CPT_BLOCKING, cptc_reduce(w, CPT_BLOCKING, root, 3, false));
        REPEAT_AS("Gather", CPT_BLOCKING, cptc_gather(w, CPT_BLOCKING, root, 2, false));
        REPEAT_AS("Gatherv", CPT_BLOCKING, cptc_gatherv(w, CPT_BLOCKING, root, 0, false));
        REPEAT_AS("Scatter", CPT_BLOCKING, cptc_scatter(w, CPT_BLOCKING, root, 2, false));
        REPEAT_AS("Scatterv", CPT_BLOCKING, cptc_scatterv(w, CPT_BLOCKING, root, 0, false));
    }
    /* Counts, MPI_IN_PLACE, forms. */
    REPEAT_AS("Bcast", CPT_BLOCKING, cptc_bcast(w, CPT_BLOCKING, 0, 4));
    REPEAT_AS("Bcast", CPT_LARGE, cptc_bcast(w, CPT_LARGE, 0, 4));
    REPEAT_AS("Bcast", CPT_NONBLOCKING, cptc_bcast(w, CPT_NONBLOCKING, 0, 4));
    REPEAT_AS("Bcast", CPT_BLOCKING, cptc_bcast(w, CPT_BLOCKING, 0, 3));
    persistent_among_repeats(w);
    REPEAT_AS("Reduce", CPT_BLOCKING, cptc_reduce(w, CPT_BLOCKING, 0, 3, true));
    REPEAT_AS("Reduce", CPT_BLOCKING, cptc_reduce(w, CPT_BLOCKING, 0, 2, true));
    REPEAT_AS("Gather", CPT_BLOCKING, cptc_gather(w, CPT_BLOCKING, 0, 2, true));
    REPEAT_AS("Gather", CPT_BLOCKING, cptc_gather(w, CPT_BLOCKING, 0, 1, true));
    REPEAT_AS("Gather", CPT_LARGE, cptc_gather(w, CPT_LARGE, 0, 1, true));
    REPEAT_AS("Gatherv", CPT_BLOCKING, cptc_gatherv(w, CPT_BLOCKING, 0, 1, false));
    REPEAT_AS("Gatherv", CPT_BLOCKING, cptc_gatherv(w, CPT_BLOCKING, 0, 1, true));
    REPEAT_AS("Gatherv", CPT_NONBLOCKING_LARGE, cptc_gatherv(w, CPT_NONBLOCKING_LARGE, 0, 1, true));
    REPEAT_AS("Scatter", CPT_BLOCKING, cptc_scatter(w, CPT_BLOCKING, r1, 2, true));
    REPEAT_AS("Scatter", CPT_BLOCKING, cptc_scatter(w, CPT_BLOCKING, r1, 1, true));
    REPEAT_AS("Scatterv", CPT_BLOCKING, cptc_scatterv(w, CPT_BLOCKING, r1, 2, true));
    REPEAT_AS("Scatterv", CPT_BLOCKING, cptc_scatterv(w, CPT_BLOCKING, r1, 1, true));
    REPEAT_AS("Scatterv", CPT_LARGE, cptc_scatterv(w, CPT_LARGE, r1, 1, true));
}

static void reductions(cpt_comm *w)
{
    static const char *const names[] = {"Allreduce", "Scan", "Exscan"};
    for (int i = 0; i < 3; i++) {
        REPEAT_AS(names[i], CPT_BLOCKING, cptc_allreduce(w, names[i], CPT_BLOCKING, 2, false));
        REPEAT_AS(names[i], CPT_BLOCKING, cptc_allreduce(w, names[i], CPT_BLOCKING, 3, false));
        REPEAT_AS(names[i], CPT_BLOCKING, cptc_allreduce(w, names[i], CPT_BLOCKING, 3, true));
        REPEAT_AS(names[i], CPT_LARGE, cptc_allreduce(w, names[i], CPT_LARGE, 3, true));
        REPEAT_AS(names[i], CPT_NONBLOCKING, cptc_allreduce(w, names[i], CPT_NONBLOCKING, 3, true));
        REPEAT_AS(names[i], CPT_BLOCKING, cptc_allreduce(w, names[i], CPT_BLOCKING, 2, false));
    }
    /* A cycle the sequence folds into repetitions: three calls of one
     * count, one of another, twenty times. */
    for (int i = 0; i < 20; i++) {
        REPEAT_AS("Allreduce", CPT_BLOCKING, cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 2, false));
        tally("Allreduce", CPT_BLOCKING); /* RUN_LENGTH calls: one of 3, the rest of 2 */
        cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 3, false);
        for (int k = 1; k < RUN_LENGTH; k++)
            cptc_allreduce(w, "Allreduce", CPT_BLOCKING, 2, false);
    }
    REPEAT_AS("Reduce_scatter", CPT_BLOCKING, cptc_reduce_scatter(w, CPT_BLOCKING, 0, false));
    REPEAT_AS("Reduce_scatter", CPT_BLOCKING, cptc_reduce_scatter(w, CPT_BLOCKING, 1, false));
    REPEAT_AS("Reduce_scatter", CPT_BLOCKING, cptc_reduce_scatter(w, CPT_BLOCKING, 1, true));
    REPEAT_AS("Reduce_scatter", CPT_LARGE, cptc_reduce_scatter(w, CPT_LARGE, 1, true));
    REPEAT_AS("Reduce_scatter_block", CPT_BLOCKING, cptc_reduce_scatter_block(w, CPT_BLOCKING, 1, false));
    REPEAT_AS("Reduce_scatter_block", CPT_BLOCKING, cptc_reduce_scatter_block(w, CPT_BLOCKING, 2, false));
    REPEAT_AS("Reduce_scatter_block", CPT_BLOCKING, cptc_reduce_scatter_block(w, CPT_BLOCKING, 2, true));
    REPEAT_AS("Reduce_scatter_block", CPT_NONBLOCKING_LARGE, cptc_reduce_scatter_block(w, CPT_NONBLOCKING_LARGE, 2, true));
    REPEAT_AS("Barrier", CPT_BLOCKING, cptc_barrier(w, CPT_BLOCKING));
    REPEAT_AS("Barrier", CPT_NONBLOCKING, cptc_barrier(w, CPT_NONBLOCKING));
    REPEAT_AS("Barrier", CPT_BLOCKING, cptc_barrier(w, CPT_BLOCKING));
}

static void all_to_all(cpt_comm *w)
{
    REPEAT_AS("Allgather", CPT_BLOCKING, cptc_allgather(w, CPT_BLOCKING, 2, false, false));
    REPEAT_AS("Allgather", CPT_BLOCKING, cptc_allgather(w, CPT_BLOCKING, 4, false, false));
    REPEAT_AS("Allgather", CPT_BLOCKING, cptc_allgather(w, CPT_BLOCKING, 4, false, true));
    REPEAT_AS("Allgather", CPT_BLOCKING, cptc_allgather(w, CPT_BLOCKING, 4, true, false));
    REPEAT_AS("Allgather", CPT_LARGE, cptc_allgather(w, CPT_LARGE, 4, true, false));
    REPEAT_AS("Allgather", CPT_BLOCKING, cptc_allgather(w, CPT_BLOCKING, 2, false, false));
    REPEAT_AS("Allgatherv", CPT_BLOCKING, cptc_allgatherv(w, CPT_BLOCKING, 0, false));
    REPEAT_AS("Allgatherv", CPT_BLOCKING, cptc_allgatherv(w, CPT_BLOCKING, 1, false));
    REPEAT_AS("Allgatherv", CPT_BLOCKING, cptc_allgatherv(w, CPT_BLOCKING, 1, true));
    REPEAT_AS("Allgatherv", CPT_NONBLOCKING_LARGE, cptc_allgatherv(w, CPT_NONBLOCKING_LARGE, 1, true));
    /* Large counts (8 bytes each) where runs differ in rank 0's count
     * alone: the first of the array every other rank receives. */
    int first[CPT_MAXRANKS];
    for (int p = 0; p < w->n; p++)
        first[p] = 1;
    for (int c0 = 1; c0 <= 3; c0++) {
        first[0] = c0 % 2 + 1;
        REPEAT_AS("Allgatherv", CPT_LARGE, cptc_allgatherv_of(w, CPT_LARGE, first, false));
    }
    REPEAT_AS("Alltoallw", CPT_BLOCKING, cptc_alltoallw(w, CPT_BLOCKING, 0, false));
    REPEAT_AS("Alltoallw", CPT_BLOCKING, cptc_alltoallw(w, CPT_BLOCKING, 1, false));
    REPEAT_AS("Alltoallw", CPT_BLOCKING, cptc_alltoallw(w, CPT_BLOCKING, 1, true));
    REPEAT_AS("Alltoallw", CPT_LARGE, cptc_alltoallw(w, CPT_LARGE, 1, true));
    REPEAT_AS("Alltoallw", CPT_NONBLOCKING, cptc_alltoallw(w, CPT_NONBLOCKING, 0, false));
}

/* A derived datatype of `ints` ints, its calls, freed: the next one made
 * may get the same handle with another size. */
static void bcast_derived(cpt_comm *w, int ints)
{
    tally("Bcast", CPT_BLOCKING);
    MPI_Datatype t;
    MPI_Type_contiguous(ints, MPI_INT, &t);
    MPI_Type_commit(&t);
    int buf[2 * 5];
    for (int rep = 0; rep < RUN_LENGTH; rep++) {
        int k = cptc_plan_bcast(w, 0, 2, ints * (int64_t)sizeof(int));
        for (int i = 0; i < 2 * ints; i++)
            buf[i] = w->rank == 0 ? cptc_value(0, -1, i, k) : -1;
        if (MPI_Bcast(buf, 2, t, 0, w->comm) != MPI_SUCCESS)
            cpt_die("MPI_Bcast of a derived datatype failed");
        for (int i = 0; i < 2 * ints; i++)
            if (buf[i] != cptc_value(0, -1, i, k))
                cpt_die("Bcast %d: element %d is %d", k, i, buf[i]);
    }
    MPI_Type_free(&t);
}

/* Alltoallw of one element to every peer, MPI_INT, but of datatype t to
 * rank `peer`: the others' send rows (in bytes) differ in that one count
 * alone from one datatype to the other (the first peer's, or the last's:
 * a repeated call compares every peer's datatype, not the first's). */
static void alltoallw_to(cpt_comm *w, MPI_Datatype t, int peer)
{
    tally("Alltoallw", CPT_BLOCKING);
    int n = w->n, me = w->rank, tsize;
    MPI_Type_size(t, &tsize);
    for (int rep = 0; rep < RUN_LENGTH; rep++) {
        int k = cpt_plan(w, "Alltoallw", -1);
        for (int r = 0; r < n; r++) {
            int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
            for (int p = 0; p < n; p++) {
                s[p] = p == peer ? tsize : (int64_t)sizeof(int);
                v[p] = r == peer ? tsize : (int64_t)sizeof(int);
            }
            cpt_plan_row(w, "Alltoallw", k, CP_SEND, r, CPT_DT_BYTES, n, s);
            cpt_plan_row(w, "Alltoallw", k, CP_RECV, r, CPT_DT_BYTES, n, v);
        }
        int one[CPT_MAXRANKS], displs[CPT_MAXRANKS];
        MPI_Datatype st[CPT_MAXRANKS], rt[CPT_MAXRANKS];
        double sbuf[CPT_MAXRANKS], rbuf[CPT_MAXRANKS]; /* one element per peer, 8 bytes apart */
        for (int p = 0; p < n; p++) {
            one[p] = 1;
            displs[p] = p * (int)sizeof(double);
            st[p] = p == peer ? t : MPI_INT;
            rt[p] = me == peer ? t : MPI_INT;
            int v = cptc_value(me, p, 0, k);
            if (st[p] == MPI_DOUBLE)
                sbuf[p] = v;
            else
                memcpy(&sbuf[p], &v, sizeof v);
        }
        if (MPI_Alltoallw(sbuf, one, displs, st, rbuf, one, displs, rt, w->comm) != MPI_SUCCESS)
            cpt_die("MPI_Alltoallw failed");
        for (int p = 0; p < n; p++) {
            int v;
            if (rt[p] == MPI_DOUBLE)
                v = (int)rbuf[p];
            else
                memcpy(&v, &rbuf[p], sizeof v);
            if (v != cptc_value(p, me, 0, k))
                cpt_die("Alltoallw %d: from %d got %d", k, p, v);
        }
    }
}

/* Every rank's visits of each region are the calls made through its
 * function: a call counted as another form's would move a visit. */
static int check_regions(int n)
{
    cp_cube c;
    if (cpt_read_output_cube(&c, "repeat_families"))
        return 1;
    int bad = 0;
    for (size_t i = 0; i < nthrough; i++)
        for (int l = 0; l < n; l++) {
            uint64_t got = cpt_cube_mpi_visits(&c, through[i].region, l);
            if (got != through[i].calls) {
                printf("repeat_families: FAIL: rank %d: %" PRIu64 " visits of %s, expected %"
                       PRIu64 "\n", l, got, through[i].region, through[i].calls);
                bad++;
            }
        }
    cp_cube_free(&c);
    if (!bad)
        printf("repeat_families: PASS: %zu functions, each call's region its own\n", nthrough);
    return bad != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("repeat_families");
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_INT);
    rooted(w, 1 % n);
    reductions(w);
    all_to_all(w);
    bcast_derived(w, 2);
    bcast_derived(w, 5);
    bcast_derived(w, 2);
    alltoallw_to(w, MPI_INT, 0);
    alltoallw_to(w, MPI_DOUBLE, 0);
    alltoallw_to(w, MPI_INT, 0);
    alltoallw_to(w, MPI_DOUBLE, w->n - 1);
    alltoallw_to(w, MPI_INT, w->n - 1);
    MPI_Finalize();
    int rc = cpt_verify();
    /* Cube holds the recorded calls' visits: with a recording window the
     * counts (cpt_verify) are the check. */
    bool window = getenv("COLLPROF_START_CALL") || getenv("COLLPROF_MAX_CALLS");
    if (cpt_world_rank() == 0 && !window && check_regions(n))
        rc = 1;
    return rc;
}
