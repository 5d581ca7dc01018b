/*
 * Harness of the MPI integration tests: programs that KNOW the exact counts
 * they pass to every collective, run under collprof, and compare the profile
 * the reader library loads back with that ground truth, call by call.
 *
 * How a test is written:
 *  - every rank declares the same communicators (cpt_comm_declare), with
 *    their members as world ranks in communicator rank order, whether or not
 *    it belongs to them (its handle is then MPI_COMM_NULL);
 *  - every rank makes the same sequence of cpt_* calls; a rank that is not
 *    a member of the communicator only notes the call in the plan.  So every
 *    rank, rank 0 in particular, knows the whole plan: which counts every
 *    rank passed in every call of every communicator, without communicating;
 *  - counts are a deterministic function of (pattern kind, seed, rank, peer);
 *    a repeating pattern reuses a seed, a never-repeating one changes it;
 *  - after MPI_Finalize (collprof writes its output inside it), rank 0 calls
 *    cpt_verify, which loads COLLPROF_OUTPUT_DIR with the reader library and
 *    compares every call of every (communicator, collective, direction).
 *
 * Every mismatch is printed on stderr as one line naming the communicator,
 * the collective, the call, the direction, the rank, the peer, the expected
 * and the actual value.  The test fails when there is any.
 */
#ifndef CPT_HARNESS_H
#define CPT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>

/* Which forms the MPI library has (CP_HAVE_LARGE, CP_HAVE_PERSISTENT), and
 * its persistent collectives under the MPI 4.0 names (generated with the
 * wrappers from model/wrappers.tbl). */
#include "mpi_forms.h"

#include "collprof/reader.h"

#define CPT_MAXRANKS 16
#define CPT_MAXCALLS 64
#define CPT_MAXCOMMS 24

/* Kinds of count patterns (see cpt_count in harness.c). */
enum cpt_kind {
    CPT_VARY,      /* every entry depends on the seed: a new seed, a new matrix */
    CPT_ZEROS,     /* about a third of the entries 0 */
    CPT_SILENT,    /* like CPT_ZEROS, and rank (seed % n) sends nothing at all */
    CPT_DEAF,      /* like CPT_ZEROS, and rank (seed % n) receives nothing at all */
    CPT_NOTHING,   /* every count 0 */
    CPT_SYMMETRIC, /* s(r,p) == s(p,r): what MPI_IN_PLACE requires */
    CPT_EVEN,      /* every count even and non-zero (for cpt_alltoallv_mixed) */
    CPT_SINGLE,    /* Alltoall: the seed is the one count, the same on every rank */
    CPT_HALO       /* seed + 1 to each neighbour on a line of ranks (r - 1, r + 1) */
};

/* How the collective is called. */
enum cpt_form {
    CPT_BLOCKING,       /* MPI_Alltoallv */
    CPT_NONBLOCKING,    /* MPI_Ialltoallv + MPI_Wait */
    CPT_LARGE,          /* MPI_Alltoallv_c */
    CPT_NONBLOCKING_LARGE /* MPI_Ialltoallv_c + MPI_Wait */
};

/* The form actually called: an MPI library without the large-count forms
 * (MPI 3.x) gets the int form instead, which collprof records the same. */
static inline bool cpt_large_ok(bool large)
{
    return large && CP_HAVE_LARGE;
}
static inline int cpt_form(int form)
{
    if (CP_HAVE_LARGE)
        return form;
    return form == CPT_LARGE ? CPT_BLOCKING : form == CPT_NONBLOCKING_LARGE ? CPT_NONBLOCKING : form;
}

/* One call as the plan remembers it. */
typedef struct cpt_call {
    int kind, seed;
    bool recorded; /* inside the recording window and not paused */
    bool mixed;    /* ranks used datatypes of different sizes: counts in bytes */
} cpt_call;

/* The calls of one (communicator, collective). */
typedef struct cpt_series {
    const char *collective; /* "Alltoallv" or "Alltoall" */
    int64_t dtsize;         /* size of the datatype the test passes */
    int ncalls;
    cpt_call calls[CPT_MAXCALLS];
} cpt_series;

enum { CPT_V = 0, CPT_A = 1, CPT_NCOLL = 2 }; /* Alltoallv, Alltoall */

/* Expectations of any collective (cpt_plan below): one rank's row. */
typedef struct cpt_grow {
    int64_t dtsize; /* bytes per count; CPT_DT_BYTES, CPT_DT_ANY (see cpt_plan_row) */
    int len;        /* -1: this rank has no row */
    int64_t *v;
} cpt_grow;

/* One call of a collective as the plan remembers it. */
typedef struct cpt_gcall {
    int64_t root;      /* expected "Root:", -1 for none */
    bool recorded;
    cpt_grow *rows[2]; /* [direction][communicator rank] */
} cpt_gcall;

/* The calls of one (communicator, collective), any collective. */
typedef struct cpt_gseries {
    char collective[32]; /* as in the files: "Gatherv" */
    int ncalls, cap;
    cpt_gcall *calls;
} cpt_gseries;

typedef struct cpt_comm {
    char label[48];
    int n;                     /* size */
    int members[CPT_MAXRANKS]; /* world rank of each communicator rank */
    int rank;                  /* this process's rank in it, -1 when not a member */
    MPI_Comm comm;             /* MPI_COMM_NULL when not a member */
    MPI_Datatype type[CPT_NCOLL]; /* datatypes used for Alltoallv / Alltoall */
    MPI_Datatype pair[CPT_NCOLL]; /* two of them, contiguous (mixed calls) */
    cpt_series s[CPT_NCOLL];
    /* Every other collective (cpt_plan). */
    cpt_gseries *g;
    int ng, gcap;
    /* One group of an intercommunicator (cpt_comm_declare_inter): the
     * remote group's world ranks in its rank order; nremote 0 otherwise. */
    int nremote;
    int remote[CPT_MAXRANKS];
    /* A communicator with a topology (cpt_comm_set_neighbors): each rank's
     * in- and out-neighbours as communicator ranks, -1 for MPI_PROC_NULL. */
    bool topo;
    int indeg[CPT_MAXRANKS], outdeg[CPT_MAXRANKS];
    int sources[CPT_MAXRANKS][CPT_MAXRANKS], dests[CPT_MAXRANKS][CPT_MAXRANKS];
} cpt_comm;

/* ------------------------------------------------------------- set-up */

/* After MPI_Init: checks that COLLPROF_OUTPUT_DIR names a directory that does
 * not exist yet (so that a stale output cannot make a test pass), reads the
 * recording window (COLLPROF_START_CALL, COLLPROF_MAX_CALLS) that the plan
 * must apply, and the self-test switch CPT_SABOTAGE. */
void cpt_init(const char *test_name);
int cpt_world_rank(void);
int cpt_world_size(void);
/* Write this process's pid into $CPT_PID_DIR/rank<rank>.pid (or ./): the
 * file a test that kills ranks waits for (faults.sh, run_killed). */
void cpt_pid_file(int rank);

/* Declare a communicator.  members: world ranks in communicator rank order;
 * comm: this rank's handle, MPI_COMM_NULL when not a member (checked against
 * the members).  vtype / atype: the datatypes its Alltoallv / Alltoall calls
 * use. */
cpt_comm *cpt_comm_declare(const char *label, int n, const int *members, MPI_Comm comm,
                           MPI_Datatype vtype, MPI_Datatype atype);
/* Without MPI (a checker of files an earlier run wrote): the plan only;
 * datatype sizes given in bytes.  Use with cpt_init_offline. */
void cpt_init_offline(const char *test_name, int world_size);
cpt_comm *cpt_comm_plan(const char *label, int n, const int *members, int64_t vdtsize,
                        int64_t adtsize);

/* A communicator whose handle is freed before the end of the run keeps its
 * expectations: cpt_comm_forget just sets the handle to MPI_COMM_NULL. */
void cpt_comm_forget(cpt_comm *c);

/* MPI_Pcontrol(level), and the plan notes that the following calls are
 * (not) recorded.  cpt_set_paused: the plan only (after collprof_pause /
 * collprof_resume in a program linked with the library). */
void cpt_pcontrol(int level);
void cpt_set_paused(bool paused); /* the plan only */

/* One group of an intercommunicator: members are the local group's world
 * ranks (in its rank order), remote the remote group's; comm the
 * intercommunicator on members of this group, else MPI_COMM_NULL (checked
 * against MPI_Comm_remote_group).  cpt_comm_plan_inter: the plan only. */
cpt_comm *cpt_comm_declare_inter(const char *label, int n, const int *members, MPI_Comm comm,
                                 int nremote, const int *remote);
cpt_comm *cpt_comm_plan_inter(const char *label, int n, const int *members, int nremote,
                              const int *remote);
/* The neighbours of communicator rank `rank` of a communicator with a
 * topology, as communicator ranks, -1 for MPI_PROC_NULL, in the order MPI
 * gives them; declare every rank's.  The manifest must list them. */
void cpt_comm_set_neighbors(cpt_comm *c, int rank, int indeg, const int *sources, int outdeg,
                            const int *dests);

/* ------------------------------------------- any collective: the plan */

/* Expectations of any collective, by name as the files write it
 * ("Gatherv", "Neighbor_alltoallw", also "Alltoall" on communicators whose
 * Alltoall calls are not made with cpt_alltoall).  Every rank plans every
 * call of every communicator, with every rank's rows, as for the other calls.
 *
 * cpt_plan: the next call of `collective` on c (all forms share one
 * numbering); returns its index.  root: the block's expected "Root:" value,
 * -1 for a collective without a root.  The call is recorded unless the
 * recording window, MPI_Pcontrol or COLLPROF_COLLECTIVES exclude it.
 * cpt_plan_row: the count vector communicator rank `rank` passed in
 * direction dir (CP_SEND / CP_RECV): len counts of dtsize bytes each;
 * CPT_DT_BYTES: the counts are bytes and the block must say so
 * ("Datatype size: 1 (bytes)", Alltoallw); CPT_DT_ANY: the datatype size is
 * not checked (Barrier, len 0).  A rank that passes no vector gets no row.
 * The block's datatype size must be the common size of its rows; when the
 * rows' sizes differ, counts in bytes.  A direction without rows in a call
 * may be absent or a block without rows. */
enum { CPT_DT_BYTES = 0, CPT_DT_ANY = -1 };
int cpt_plan(cpt_comm *c, const char *collective, int64_t root);
void cpt_plan_row(cpt_comm *c, const char *collective, int call, int dir, int rank,
                  int64_t dtsize, int len, const int64_t *counts);
/* A row of one count. */
void cpt_plan_row1(cpt_comm *c, const char *collective, int call, int dir, int rank,
                   int64_t dtsize, int64_t count);
/* Whether COLLPROF_COLLECTIVES (of the environment) selects this collective:
 * unset, "all", or holding a name collprof does not accept (which profiles
 * everything): yes; otherwise only the names listed, case-insensitively. */
bool cpt_collective_selected(const char *collective);

/* ---------------------------------------------------------- the calls */

/* Alltoallv on c with the counts of (kind, seed); in_place: MPI_IN_PLACE
 * (kind must be CPT_SYMMETRIC).  The data received is checked. */
void cpt_alltoallv(cpt_comm *c, int form, int kind, int seed, bool in_place);
/* Alltoall with count `count` on every rank. */
void cpt_alltoall(cpt_comm *c, int form, int count, bool in_place);
/* Mixed datatypes (blocking calls): odd communicator ranks pass their counts
 * in units of a contiguous pair of the datatype (half the count); the type
 * signatures match, the datatype sizes differ, so collprof must give these
 * calls' counts in bytes ("Datatype size: 1 (bytes)").  kind must give even
 * counts (CPT_EVEN), count must be even. */
void cpt_alltoallv_mixed(cpt_comm *c, int kind, int seed);
void cpt_alltoall_mixed(cpt_comm *c, int count);

/* Persistent collectives: each start is one call. */
typedef struct cpt_persistent {
    cpt_comm *c;
    int coll;            /* CPT_V or CPT_A */
    bool large;
    int kind, seed;
    MPI_Request req;
    void *sbuf, *rbuf;
    void *scounts, *rcounts, *sdispls, *rdispls;
} cpt_persistent;

void cpt_alltoallv_init(cpt_persistent *p, cpt_comm *c, bool large, int kind, int seed);
void cpt_alltoall_init(cpt_persistent *p, cpt_comm *c, bool large, int count);
/* MPI_Start + MPI_Wait, then check the data. */
void cpt_start(cpt_persistent *p);
/* MPI_Startall of k requests (in array order) + MPI_Waitall. */
void cpt_startall(cpt_persistent **ps, int k);
void cpt_persistent_free(cpt_persistent *p);

/* Counts of a call: what `rank` sends to `peer` (communicator ranks). */
int64_t cpt_count(int kind, int seed, int rank, int peer, int n);

/* Wrong data received by this rank in call `call` of `collective` on c,
 * from communicator rank `from` (-1: unknown): printed, and the test
 * fails (the profiled run must give the application the same results). */
void cpt_data_error(const cpt_comm *c, const char *collective, int call, int from);

/* A fatal problem in the program itself (not in the profile): print and
 * abort the job. */
void cpt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ------------------------------------------------------- verification */

/* Rank 0, after MPI_Finalize: wait for the output to be complete (every file
 * the manifest lists), load it, compare everything with the plan of every
 * declared communicator.  Returns the number of problems (0: pass) and
 * prints a verdict line.  Other ranks: returns 0. */
int cpt_verify(void);

/* The partial profile that world rank `rank` wrote into dir (exit without
 * MPI_Finalize): marked partial, and holding exactly that rank's rows of
 * every recorded call of the communicators it is a member of.  flags:
 * CPT_CHECK_PROFILE: cp_profile_check must find no problem either;
 * CPT_CHECK_CONFIG: the manifest's configuration must show the COLLPROF_*
 * variables of the environment.  Returns the number of problems (printed). */
enum { CPT_CHECK_PROFILE = 1, CPT_CHECK_CONFIG = 2, CPT_CHECK_MERGED = 4 };
int cpt_verify_partial(const char *dir, int rank, int flags);
/* Offline: the reader, pointed at dir, merges the partial profiles of every
 * rank into the complete profile (marked partial): every count of every call
 * as planned.  Returns the number of problems (printed). */
long cpt_verify_merged(const char *dir);
/* Rank 0, after MPI_Finalize: load COLLPROF_OUTPUT_DIR once complete (for
 * tests that compare by themselves).  0, or -1 (printed). */
int cpt_load_output(cp_profile *p);

/* Rank 0, after MPI_Finalize: read COLLPROF_OUTPUT_DIR/profile.cubex into
 * c.  0, or 1 (printed, prefixed with who). */
int cpt_read_output_cube(cp_cube *c, const char *who);
/* The visits of MPI function `region` (a region of paradigm "mpi") by
 * location l of a Cube file read by cp_cubex_read, every call path summed;
 * UINT64_MAX when the file has no visits metric. */
uint64_t cpt_cube_mpi_visits(const cp_cube *c, const char *region, int l);

/* Offline (cpt_init_offline): everything cpt_verify checks, of the complete
 * output an earlier run wrote into dir.  Returns the exit status. */
int cpt_verify_dir(const char *dir);
/* Exit status for a checker: prints the verdict (self-test aware). */
int cpt_offline_verdict(long problems);

/* Pieces of the verification: compare the plan of one communicator with the
 * blocks of p whose communicator id is `id`.  only_world >= 0: a partial
 * profile of that world rank (only its rows expected). */
long cpt_compare_comm(const cp_profile *p, const cpt_comm *c, int64_t id, int only_world,
                      bool report);
/* The manifest communicators whose members are exactly those of c, in id
 * order; returns how many (at most max). */
int cpt_find_comms(const cp_profile *p, const cpt_comm *c, int64_t *ids, int max);
/* Checks that every counts file of p is gzip (name ends in .gz, magic bytes)
 * when gzip is true, and plain text otherwise. */
long cpt_check_compression(const cp_profile *p, bool gzip);

#endif
