/*
 * The scale simulator's shared parts (bench_scale.c runs the stages;
 * scale_waits.c is the wait-state stage): the virtual communicators and
 * what each virtual rank's finalize cost it.
 */
#ifndef COLLPROF_SCALE_SIM_H
#define COLLPROF_SCALE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tree_reduce.h"

typedef struct comm {
    int64_t n;
    int64_t first, stride; /* world rank of member i: first + i * stride */
    bool single;           /* MPI_Alltoall: one count */
} comm;

/* Per world rank, over every stage: bytes received, CPU seconds of its own
 * work, the most memory it held at once. */
extern double *rank_recv, *rank_cpu;
extern size_t *rank_peak;

double sim_cpu_now(void);
/* The generators' hash (murmur3's 64-bit finalizer); inline, as the wait
 * stage calls it for every record of every member. */
static inline uint64_t sim_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}
/* World rank w received recv bytes, worked cpu seconds, held `held` bytes
 * at once (the largest counts). */
void sim_charge(int64_t w, double recv, double cpu, size_t held);
/* The simulator cannot go on: says why on stderr, exits 1. */
_Noreturn void sim_die(const char *what);

/* Messages in flight between virtual ranks run one by one, from P - 1
 * down to 0 (scale_mailbox.c): a carrier for the stages (tree_reduce.h,
 * group_trees.h).  A rank receives only what was sent before it ran; one
 * source's messages come in the order they were sent, as MPI delivers
 * them.  Found by destination: thousands may be in flight (a column
 * communicator's members are far apart in the run's order). */
typedef struct sim_mail {
    int64_t from, to;
    char *p;
    size_t len;
    struct sim_mail *next;
} sim_mail;

typedef struct sim_mailbox {
    sim_mail **head, **tail; /* per bucket of destinations, in order of sending */
    size_t nbuckets;
    size_t n;         /* messages in flight */
    int64_t self;     /* the rank running: set before it runs */
    double received;  /* bytes it received (reset it before it runs) */
    size_t largest;   /* the largest message it received (likewise) */
    double sent;      /* bytes it sent (likewise) */
    /* Called after each message sent or received (NULL: none): the
     * running rank's memory probe. */
    void (*probe)(void *ctx);
    void *probe_ctx;
} sim_mailbox;

cp_tree_io sim_mailbox_io(sim_mailbox *b);
void sim_mailbox_free(sim_mailbox *b);

static inline int64_t sim_world_of(const comm *c, int64_t i)
{
    return c->first + i * c->stride;
}

/* The same for finalize's engine (cp_groups.world_of; members: a comm). */
static inline int64_t sim_member_world(const void *members, int64_t i)
{
    return sim_world_of(members, i);
}

/* The wait-state stage (scale_waits.c). */
typedef struct wait_truth {
    comm c;
    uint64_t salt;
    double *max_enter, *min_exit; /* the generator's, per sampled call */
} wait_truth;

typedef struct wait_sim {
    int64_t P;
    int calls;              /* sampled calls per series */
    wait_truth *truth;      /* per communicator */
    size_t ntruth;
    double expect_sum;      /* the generator's total waiting time */
    uint64_t expect_n;      /* and number of instances */
    double *recv, *cpu;     /* per world rank: this stage's alone */
    size_t *peak;
    bool exact;
} wait_sim;

void sim_waits_init(wait_sim *s, int64_t P, int calls);
/* One communicator's series: every member's sampled calls up and down its
 * binomial tree, each member's own waiting times checked against the
 * generator. */
void sim_waits_comm(wait_sim *s, const comm *c);
/* The statistics up the world's tree to rank 0, checked there. */
void sim_waits_stats(wait_sim *s);
void sim_waits_free(wait_sim *s);

/* The call-path stage (scale_paths.c): every rank's paths up the world's
 * tree, numbered at rank 0, the ids back down; *nodes: rank 0's distinct
 * nodes, *lead_recv: bytes rank 0 received; *exact: every rank's paths got
 * rank 0's ids.  Charges each rank (sim_charge). */
void sim_paths(int64_t P, double *lead_recv, size_t *nodes, bool *exact);
/* The sites stage (scale_sites.c): the job's sites, clocks and locations
 * up the world's tree through finalize's own reduction. */
void sim_sites(int64_t P, double *lead_recv_mib, double *lead_peak_mib, double *lead_cpu,
               size_t *nkeys, bool *exact);

/* The Cube stage (scale_cube.c): profile.cubex of P ranks written into dir
 * as finalize streams it; its bytes, what rank 0 received and held at
 * most, its CPU; every value read back equal (exact). */
void sim_cube(int64_t P, const char *dir, double *bytes, double *lead_recv_mib,
              double *lead_peak_mib, double *lead_cpu, bool *exact);

#endif
