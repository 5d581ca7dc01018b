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

#include "collprof/reader.h"

#define CPT_MAXRANKS 16
#define CPT_MAXCALLS 64
#define CPT_MAXCOMMS 16

/* Kinds of count patterns (see cpt_count in harness.c). */
enum cpt_kind {
    CPT_VARY,      /* every entry depends on the seed: a new seed, a new matrix */
    CPT_ZEROS,     /* about a third of the entries 0 */
    CPT_SILENT,    /* like CPT_ZEROS, and rank (seed % n) sends nothing at all */
    CPT_DEAF,      /* like CPT_ZEROS, and rank (seed % n) receives nothing at all */
    CPT_NOTHING,   /* every count 0 */
    CPT_SYMMETRIC, /* s(r,p) == s(p,r): what MPI_IN_PLACE requires */
    CPT_EVEN,      /* every count even and non-zero (for cpt_alltoallv_mixed) */
    CPT_SINGLE     /* Alltoall: the seed is the one count, the same on every rank */
};

/* How the collective is called. */
enum cpt_form {
    CPT_BLOCKING,       /* MPI_Alltoallv */
    CPT_NONBLOCKING,    /* MPI_Ialltoallv + MPI_Wait */
    CPT_LARGE,          /* MPI_Alltoallv_c */
    CPT_NONBLOCKING_LARGE /* MPI_Ialltoallv_c + MPI_Wait */
};

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

typedef struct cpt_comm {
    char label[48];
    int n;                     /* size */
    int members[CPT_MAXRANKS]; /* world rank of each communicator rank */
    int rank;                  /* this process's rank in it, -1 when not a member */
    MPI_Comm comm;             /* MPI_COMM_NULL when not a member */
    MPI_Datatype type[CPT_NCOLL]; /* datatypes used for Alltoallv / Alltoall */
    MPI_Datatype pair[CPT_NCOLL]; /* two of them, contiguous (mixed calls) */
    cpt_series s[CPT_NCOLL];
} cpt_comm;

/* ------------------------------------------------------------- set-up */

/* After MPI_Init: checks that COLLPROF_OUTPUT_DIR names a directory that does
 * not exist yet (so that a stale output cannot make a test pass), reads the
 * recording window (COLLPROF_START_CALL, COLLPROF_MAX_CALLS) that the plan
 * must apply, and the self-test switch CPT_SABOTAGE. */
void cpt_init(const char *test_name);
int cpt_world_rank(void);
int cpt_world_size(void);

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
enum { CPT_CHECK_PROFILE = 1, CPT_CHECK_CONFIG = 2 };
int cpt_verify_partial(const char *dir, int rank, int flags);
/* Rank 0, after MPI_Finalize: load COLLPROF_OUTPUT_DIR once complete (for
 * tests that compare by themselves).  0, or -1 (printed). */
int cpt_load_output(cp_profile *p);

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
