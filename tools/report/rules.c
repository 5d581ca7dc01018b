/*
 * What the counts of each collective mean for the report: where a single
 * count goes (docs/collectives.md), and which blocks have anything to draw.
 * One table per question, so that a new collective is one line.
 */
#include <strings.h>

#include "reader_internal.h"
#include "report.h"

static bool in(const char *collective, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(collective, names[i]) == 0)
            return true;
    return false;
}

bool report_single_count_per_peer(const char *collective, int direction)
{
    /* recvcount of these is received from each peer; Gather's only at the
     * root, which receives it from every rank. */
    static const char *const recv[] = {"Alltoall", "Allgather", "Gather", "Neighbor_allgather",
                                       "Neighbor_alltoall"};
    /* The send side is the reader's rule, so that the bytes per rank add up
     * to `collprof summary`'s bytes sent. */
    if (direction == CP_SEND)
        return cp_collective_single_count_per_peer(collective);
    return in(collective, recv, sizeof recv / sizeof *recv);
}

bool report_root_side(const char *collective, int direction)
{
    static const char *const send[] = {"Bcast", "Scatter", "Scatterv"};
    static const char *const recv[] = {"Gather", "Gatherv", "Reduce"};
    if (direction == CP_SEND)
        return in(collective, send, sizeof send / sizeof *send);
    return in(collective, recv, sizeof recv / sizeof *recv);
}

enum report_reach report_single_count_reach(const char *collective, int direction, bool *self)
{
    /* A prefix reduction: rank i's contribution reaches the higher ranks;
     * rank i's result comes from the lower ones. */
    bool scan = strcasecmp(collective, "Scan") == 0;
    *self = true;
    if (!scan && strcasecmp(collective, "Exscan") != 0)
        return REPORT_REACH_ALL;
    *self = scan;
    return direction == CP_SEND ? REPORT_REACH_AFTER : REPORT_REACH_BEFORE;
}

bool report_root_skips_itself(const char *collective)
{
    return strcasecmp(collective, "Bcast") == 0;
}

bool report_block_has_counts(const cp_block *b)
{
    for (size_t r = 0; r < b->nrows; r++)
        if (b->rows[r].len > 0)
            return true;
    return false;
}
