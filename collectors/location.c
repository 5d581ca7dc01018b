/* Location collector (see location.h). */
#include "location.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cp_location_capture(cp_location *loc, const char *override)
{
    memset(loc, 0, sizeof *loc);
    if (override && *override)
        snprintf(loc->hostname, sizeof loc->hostname, "%s", override);
    else if (gethostname(loc->hostname, sizeof loc->hostname - 1) != 0 || !loc->hostname[0])
        snprintf(loc->hostname, sizeof loc->hostname, "unknown");
    loc->core = sched_getcpu();
    if (loc->core < 0)
        loc->core = -1;
    loc->pid = (int32_t)getpid();
}

int cp_location_host_color(const cp_location *loc)
{
    /* FNV-1a, folded to a non-negative int (MPI_Comm_split's color). */
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)loc->hostname; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(h & 0x7fffffff);
}
