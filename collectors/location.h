/*
 * Location collector: where each rank ran - host name, core, process id
 * and the index of its node (hosts numbered in the order of their lowest
 * world rank, set by lib/clock.c, which groups ranks by host).
 */
#ifndef COLLPROF_LOCATION_H
#define COLLPROF_LOCATION_H

#include <stdint.h>

typedef struct cp_location {
    char hostname[256];
    int32_t core; /* sched_getcpu() when captured, -1 if unknown */
    int32_t pid;
    uint32_t node;
} cp_location;

/* Where the job's ranks ran, as rank 0 keeps it at finalize: each rank's
 * node and each node's host name (the Cube profile's system tree), not a
 * host name per rank (268 bytes a rank: 27 MB at 100,000 ranks). */
typedef struct cp_job_hosts {
    uint32_t *node;  /* per rank */
    int64_t nranks;
    char **name;     /* per node, NULL: no rank said (named "unknown") */
    uint32_t nnodes;
} cp_job_hosts;

void cp_job_hosts_free(cp_job_hosts *h);

/* Fill hostname (override when non-empty: COLLPROF_HOSTNAME, so that
 * several nodes can be tested on one machine), core and pid. */
void cp_location_capture(cp_location *loc, const char *override);

/* A non-negative hash of the host name, to group the ranks of one host
 * (lib/clock.c then tells apart names that share a hash). */
int cp_location_host_color(const cp_location *loc);

#endif
