/* Where the job's ranks ran (job_hosts.h). */
#include "job_hosts.h"

#include <stdlib.h>
#include <string.h>

void cp_job_hosts_free(cp_job_hosts *h)
{
    for (uint32_t i = 0; h->name && i < h->nnodes; i++)
        free(h->name[i]);
    free(h->name);
    free(h->node);
    memset(h, 0, sizeof *h);
}
