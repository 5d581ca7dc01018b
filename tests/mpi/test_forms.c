/*
 * Every form of the two collectives, interleaved on one communicator so that
 * the numbering across forms is checked: blocking, non-blocking (I... +
 * MPI_Wait), large-count (..._c, blocking and non-blocking) and persistent
 * (..._init, then MPI_Start several times and MPI_Startall; each start is one
 * call; MPI_Request_free; a new persistent request created after the free,
 * which MPI may give the same handle, records its own counts).
 *
 * On world, Alltoallv calls:
 *   0 blocking, 1 Ialltoallv, 2 Alltoallv_c, 3 Ialltoallv_c,
 *   4 start(pv), 5 blocking, 6 start(pv),
 *   7 startall: pv, 8 startall: pvc (Alltoallv_init_c, zeros),
 *   9 start(pvc), 10 Ialltoallv MPI_IN_PLACE,
 *   (pv freed, pv2 created) 11 start(pv2), 12 blocking, 13 start(pv2)
 * Alltoall calls: 0 blocking, 1 Ialltoall, 2 Alltoall_c, 3 start(pa),
 *   4 Ialltoall_c, 5 startall: pa, 6 start(pac, Alltoall_init_c),
 *   7 Ialltoall MPI_IN_PLACE
 * On a dup of world, persistent requests started in the same MPI_Startall as
 * world's: Alltoallv 0 blocking, 1 startall: pd, 2 start(pd).
 *
 * profile.cubex names each call's region after the function called: every
 * rank's visits of MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_c,
 * MPI_Ialltoallv_c, MPI_Alltoallv_init and MPI_Alltoallv_init_c (and
 * Alltoall's) are the calls above made through it; the regions are of
 * paradigm "mpi".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "harness.h"

/* Calls per rank through each function (the plan above). */
static const struct {
    const char *region;
    uint64_t calls;
} through[] = {
    {"MPI_Alltoallv", 4},        /* world 0, 5, 12; dup 0 */
    {"MPI_Ialltoallv", 2},       /* 1, 10 */
    {"MPI_Alltoallv_c", 1},      /* 2 */
    {"MPI_Ialltoallv_c", 1},     /* 3 */
    {"MPI_Alltoallv_init", 7},   /* pv: 4, 6, 7; pv2: 11, 13; pd: dup 1, 2 */
    {"MPI_Alltoallv_init_c", 2}, /* pvc: 8, 9 */
    {"MPI_Alltoall", 1},         /* 0 */
    {"MPI_Ialltoall", 2},        /* 1, 7 */
    {"MPI_Alltoall_c", 1},       /* 2 */
    {"MPI_Ialltoall_c", 1},      /* 4 */
    {"MPI_Alltoall_init", 2},    /* pa: 3, 5 */
    {"MPI_Alltoall_init_c", 1},  /* pac: 6 */
};

/* mpi_forms.h maps the persistent names to MPIX_ where the library has
 * only those (before MPI 4.0). */
#ifdef MPI_Alltoallv_init
#define PERSISTENT_PREFIX "MPIX_"
#else
#define PERSISTENT_PREFIX "MPI_"
#endif

/* What the application called: without large-count functions (MPI 3.1)
 * the harness calls the int forms instead; persistent ones may be MPIX_. */
static void expected(const char *region, char *name, size_t len, uint64_t *calls)
{
    snprintf(name, len, "%s", region);
    size_t l = strlen(region);
    if (!CP_HAVE_LARGE && l > 2 && !strcmp(region + l - 2, "_c")) {
        *calls = 0;
        return;
    }
    if (!CP_HAVE_LARGE) /* the _c calls went here */
        for (size_t i = 0; i < sizeof through / sizeof *through; i++) {
            size_t m = strlen(through[i].region);
            if (m == l + 2 && !strncmp(through[i].region, region, l))
                *calls += through[i].calls;
        }
    if (l > 5 && !strcmp(region + l - 5, "_init") && strcmp(PERSISTENT_PREFIX, "MPI_"))
        snprintf(name, len, "%s%s", PERSISTENT_PREFIX, region + 4);
}

static int check_regions(int n)
{
    cp_cube c;
    if (cpt_read_output_cube(&c, "test_forms"))
        return 1;
    int bad = 0;
    size_t nmpi = 0, want = 0;
    for (size_t r = 0; r < c.nregions; r++)
        nmpi += !strcmp(c.regions[r].paradigm, "mpi");
    for (size_t i = 0; i < sizeof through / sizeof *through; i++) {
        char name[64];
        uint64_t calls = through[i].calls;
        expected(through[i].region, name, sizeof name, &calls);
        want += calls > 0;
        for (int l = 0; l < n; l++) {
            uint64_t got = cpt_cube_mpi_visits(&c, name, l);
            if (got != calls) {
                printf("test_forms: FAIL: rank %d: %" PRIu64 " visits of %s, expected %" PRIu64
                       "\n", l, got, name, calls);
                bad++;
            }
        }
    }
    if (nmpi != want) {
        printf("test_forms: FAIL: %zu MPI regions, expected %zu\n", nmpi, want);
        bad++;
    }
    cp_cube_free(&c);
    if (!bad)
        printf("test_forms: PASS: each call's region is the function it called\n");
    return bad != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("forms");
    int n = cpt_world_size(), all[CPT_MAXRANKS];
    for (int i = 0; i < n; i++)
        all[i] = i;
    MPI_Comm dupc;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupc);
    cpt_comm *w = cpt_comm_declare("world", n, all, MPI_COMM_WORLD, MPI_INT, MPI_DOUBLE);
    cpt_comm *d = cpt_comm_declare("dup of world", n, all, dupc, MPI_DOUBLE, MPI_INT);

    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 0, false);
    cpt_alltoall(w, CPT_BLOCKING, 1, false);
    cpt_alltoallv(w, CPT_NONBLOCKING, CPT_VARY, 1, false);
    cpt_alltoall(w, CPT_NONBLOCKING, 2, false);
    cpt_alltoallv(w, CPT_LARGE, CPT_VARY, 2, false);
    cpt_alltoall(w, CPT_LARGE, 3, false);
    cpt_alltoallv(w, CPT_NONBLOCKING_LARGE, CPT_VARY, 3, false);

    cpt_persistent pv, pvc, pa, pac, pd, pv2;
    cpt_alltoallv_init(&pv, w, false, CPT_VARY, 100);
    cpt_alltoallv_init(&pvc, w, true, CPT_ZEROS, 7);
    cpt_alltoall_init(&pa, w, false, 5);
    cpt_alltoallv_init(&pd, d, false, CPT_VARY, 300);
    cpt_alltoallv(d, CPT_BLOCKING, CPT_VARY, 301, false);

    cpt_start(&pv);
    cpt_start(&pa);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 4, false);
    cpt_start(&pv);
    cpt_alltoall(w, CPT_NONBLOCKING_LARGE, 4, false);
    cpt_persistent *batch[] = {&pv, &pa, &pvc, &pd};
    cpt_startall(batch, 4);
    cpt_start(&pvc);
    cpt_start(&pd);
    cpt_alltoall_init(&pac, w, true, 6);
    cpt_start(&pac);
    cpt_alltoallv(w, CPT_NONBLOCKING, CPT_SYMMETRIC, 5, true);
    cpt_alltoall(w, CPT_NONBLOCKING, 3, true);

    cpt_persistent_free(&pv);
    cpt_alltoallv_init(&pv2, w, false, CPT_VARY, 200);
    cpt_start(&pv2);
    cpt_alltoallv(w, CPT_BLOCKING, CPT_VARY, 6, false);
    cpt_start(&pv2);

    cpt_persistent_free(&pv2);
    cpt_persistent_free(&pvc);
    cpt_persistent_free(&pa);
    cpt_persistent_free(&pac);
    cpt_persistent_free(&pd);
    MPI_Comm_free(&dupc);
    MPI_Finalize();
    int rc = cpt_verify();
    if (cpt_world_rank() == 0 && check_regions(n))
        rc = 1;
    return rc;
}
