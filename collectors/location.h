/*
 * Location collector: where each rank ran - host name, core, process id
 * and the index of its node (hosts numbered in the order of their lowest
 * world rank, set by lib/clock.c, which groups ranks by host).
 */
#ifndef COLLPROF_LOCATION_H
#define COLLPROF_LOCATION_H

#include <stdint.h>

#include "job_hosts.h" /* where the job's ranks ran, as rank 0 keeps it */

typedef struct cp_location {
    char hostname[256];
    int32_t core; /* sched_getcpu() when captured, -1 if unknown */
    int32_t pid;
    uint32_t node;
} cp_location;


/* Fill hostname (override when non-empty: COLLPROF_HOSTNAME, so that
 * several nodes can be tested on one machine), core and pid. */
void cp_location_capture(cp_location *loc, const char *override);

/* A non-negative hash of the host name, to group the ranks of one host
 * (lib/clock.c then tells apart names that share a hash). */
int cp_location_host_color(const cp_location *loc);

#endif
