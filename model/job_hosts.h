/*
 * Where the job's ranks ran, as rank 0 keeps it at finalize and the Cube
 * profile's system tree shows it: each rank's node and each node's host
 * name, not a host name per rank (268 bytes a rank: 27 MB at 100,000
 * ranks).  Pure data: the location recorder (collectors/location.h)
 * captures a rank's, the merge engine gathers them (merge/job_sites.h),
 * the Cube writer lays them out (writers/cubex_build.h).
 */
#ifndef COLLPROF_JOB_HOSTS_H
#define COLLPROF_JOB_HOSTS_H

#include <stdint.h>

typedef struct cp_job_hosts {
    uint32_t *node;  /* per rank */
    int64_t nranks;
    char **name;     /* per node, NULL: no rank said (named "unknown") */
    uint32_t nnodes;
} cp_job_hosts;

void cp_job_hosts_free(cp_job_hosts *h);

#endif
