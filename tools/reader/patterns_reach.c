/*
 * Which peers a row reaches, per collective and side (patterns_reach.h).
 */
#include <string.h>
#include <strings.h>

#include "patterns_reach.h"

/* docs/collectives.md, read as "who does a count reach": a rooted
 * collective's root side (Scatter's or Bcast's send, Gather's or Reduce's
 * receive) has a row for the root only, which reaches every peer; the other
 * side's rows reach the root.  Barrier's rows are empty (any reach). */
static const struct {
    const char *name;
    enum cp_reach send, recv;
} reaches[] = {
    {"Alltoall", CP_REACH_ALL, CP_REACH_ALL},
    {"Alltoallv", CP_REACH_VECTOR, CP_REACH_VECTOR},
    {"Alltoallw", CP_REACH_VECTOR, CP_REACH_VECTOR},
    {"Allgather", CP_REACH_ALL, CP_REACH_ALL},
    {"Allgatherv", CP_REACH_ALL, CP_REACH_VECTOR},
    {"Gather", CP_REACH_ROOT, CP_REACH_ALL},
    {"Gatherv", CP_REACH_ROOT, CP_REACH_VECTOR},
    {"Scatter", CP_REACH_ALL, CP_REACH_ROOT},
    {"Scatterv", CP_REACH_VECTOR, CP_REACH_ROOT},
    {"Bcast", CP_REACH_ALL, CP_REACH_ROOT},
    {"Reduce", CP_REACH_ROOT, CP_REACH_ALL},
    {"Allreduce", CP_REACH_ALL, CP_REACH_ALL},
    {"Reduce_scatter", CP_REACH_VECTOR, CP_REACH_ALL},
    {"Reduce_scatter_block", CP_REACH_ALL, CP_REACH_ALL},
    {"Scan", CP_REACH_ABOVE, CP_REACH_BELOW},
    {"Exscan", CP_REACH_ABOVE, CP_REACH_BELOW},
    {"Barrier", CP_REACH_VECTOR, CP_REACH_VECTOR},
    {"Neighbor_allgather", CP_REACH_ALL, CP_REACH_ALL},
    {"Neighbor_allgatherv", CP_REACH_ALL, CP_REACH_VECTOR},
    {"Neighbor_alltoall", CP_REACH_ALL, CP_REACH_ALL},
    {"Neighbor_alltoallv", CP_REACH_VECTOR, CP_REACH_VECTOR},
    {"Neighbor_alltoallw", CP_REACH_VECTOR, CP_REACH_VECTOR},
};

static int lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof reaches / sizeof reaches[0]; i++)
        if (strlen(reaches[i].name) == len && strncasecmp(reaches[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* collprof names blocks by the collective ("Alltoall"), but other tools may
 * name the form ("Ialltoall", "Alltoall_init", "Alltoall_c"). */
static int find_reach(const char *name)
{
    size_t len = strlen(name);
    int i = lookup(name, len);
    if (i >= 0)
        return i;
    if (len > 2 && strcasecmp(name + len - 2, "_c") == 0)
        len -= 2;
    if (len > 5 && strncasecmp(name + len - 5, "_init", 5) == 0)
        len -= 5;
    if ((i = lookup(name, len)) >= 0)
        return i;
    if (len > 1 && (name[0] == 'I' || name[0] == 'i'))
        return lookup(name + 1, len - 1);
    return -1;
}

/* A single count (row of length 1) of a collective that passes one count
 * reaches what the table says; any other row is read per peer. */
enum cp_reach cp_reach_of(const cp_block *b, int direction, size_t len)
{
    if (len != 1)
        return CP_REACH_VECTOR;
    int i = find_reach(b->collective);
    if (i >= 0)
        return direction == CP_SEND ? reaches[i].send : reaches[i].recv;
    return b->root >= 0 ? CP_REACH_ROOT : CP_REACH_ALL; /* unknown collective: the likeliest */
}

