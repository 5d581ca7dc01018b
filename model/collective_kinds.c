/* What the model knows of a collective by its name (include/collprof/profile.h):
 * whether its rows vary by rank, whether its single count is per peer. */
#include <strings.h>

#include "collprof/profile.h"

bool cp_collective_rows_vary(const char *collective)
{
    return strncasecmp(collective, "Neighbor_", 9) == 0;
}

/* Collectives whose single send count is an amount for each peer (the
 * others' single count is one contribution: a reduction's, a Bcast buffer, a
 * Gather item).  Not the same question as patterns_reach.c's "whom does the
 * data reach": an Allreduce's count reaches every rank but is one amount. */
bool cp_collective_single_count_per_peer(const char *collective)
{
    static const char *const per_peer[] = {
        "Alltoall", "Allgather",          "Allgatherv",          "Reduce_scatter_block",
        "Scatter",  "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall"};
    for (size_t i = 0; i < sizeof per_peer / sizeof per_peer[0]; i++)
        if (strcasecmp(collective, per_peer[i]) == 0)
            return true;
    return false;
}
