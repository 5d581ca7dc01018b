/*
 * A site: a collective, the form of it that was called and the call path
 * it was called from, with one rank's sums over it.  A rank's sites are its
 * column of the Cube profile; the job's distinct site keys its call tree's
 * MPI nodes.  Pure data, no MPI.
 */
#ifndef COLLPROF_SITES_H
#define COLLPROF_SITES_H

#include <stdint.h>

#include "wait_states.h"

/* One rank's sums over one site (all its communicators). */
typedef struct cp_coll_sums {
    uint64_t visits;     /* calls recorded */
    uint64_t bytes_sent, bytes_recv;
    uint64_t ntimed;     /* calls timed: records + aggregated */
    uint64_t naggregated;
    uint64_t nrecords;   /* calls timed with their own record */
    double time;         /* execution: exit - start */
    double late;         /* barrier mode: start - enter */
    double min, max;     /* of exit - start over every timed call (ntimed > 0) */
    double wait[CP_NWAIT_PATTERNS]; /* severities of this rank's instances */
} cp_coll_sums;

/* A site: collective, the form of it that was called (enum cp_form: the
 * MPI function, a Cube region of its own) and call path (call-tree id,
 * CP_SEQ_NONE: none). */
typedef struct cp_site {
    int64_t rank;        /* world rank */
    uint32_t coll;
    uint32_t form;
    uint32_t path;
    cp_coll_sums s;
} cp_site;

/* A site as one number, in the order (path, collective, form); also the
 * placeholder cnode of an instance until the Cube call tree exists. */
static inline int64_t cp_site_key(uint32_t coll, uint32_t form, uint32_t path)
{
    return (int64_t)((uint64_t)path << 16 | (uint64_t)(coll & 0xff) << 8 | (form & 0xff));
}
static inline uint32_t cp_site_key_coll(int64_t key) { return (uint32_t)(key >> 8 & 0xff); }
static inline uint32_t cp_site_key_form(int64_t key) { return (uint32_t)(key & 0xff); }
static inline uint32_t cp_site_key_path(int64_t key) { return (uint32_t)((uint64_t)key >> 16); }

#endif
