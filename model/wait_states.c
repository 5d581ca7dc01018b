/* Wait-state patterns (see wait_states.h). */
#include "wait_states.h"

#include "collprof/profile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <strings.h>

const cp_wait_metric cp_wait_metrics[CP_NWAIT_PATTERNS] = {
    [CP_WAIT_NXN] = {"mpi_wait_nxn", "Wait at N x N",
                     "Time spent waiting in front of an N-to-N collective operation until the "
                     "last process has entered it"},
    [CP_NXN_COMPLETION] = {"mpi_nxn_completion", "N x N Completion",
                           "Time needed to finish an N-to-N collective operation after the "
                           "first process has left it"},
    [CP_BARRIER_WAIT] = {"mpi_barrier_wait", "Wait at Barrier",
                         "Time spent waiting in front of a barrier until the last process "
                         "has entered it"},
    [CP_BARRIER_COMPLETION] = {"mpi_barrier_completion", "Barrier Completion",
                               "Time needed to finish a barrier after the first process has "
                               "left it"},
    [CP_LATE_BROADCAST] = {"mpi_latebroadcast", "Late Broadcast",
                           "Waiting time of the destination processes of a 1-to-N collective "
                           "operation that enter it before the root"},
    [CP_EARLY_REDUCE] = {"mpi_earlyreduce", "Early Reduce",
                         "Waiting time of the root of an N-to-1 collective operation that "
                         "enters it before the last other process"},
    [CP_EARLY_SCAN] = {"mpi_earlyscan", "Early Scan",
                       "Waiting time of a process in a prefix reduction until the last "
                       "process of lower rank has entered it"},
};

int cp_wait_family(const char *collective)
{
    static const struct {
        const char *name;
        int family;
    } table[] = {
        {"Alltoall", CP_FAMILY_NXN},        {"Alltoallv", CP_FAMILY_NXN},
        {"Alltoallw", CP_FAMILY_NXN},       {"Allgather", CP_FAMILY_NXN},
        {"Allgatherv", CP_FAMILY_NXN},      {"Allreduce", CP_FAMILY_NXN},
        {"Reduce_scatter", CP_FAMILY_NXN},  {"Reduce_scatter_block", CP_FAMILY_NXN},
        {"Barrier", CP_FAMILY_BARRIER},     {"Bcast", CP_FAMILY_ONE_TO_N},
        {"Scatter", CP_FAMILY_ONE_TO_N},    {"Scatterv", CP_FAMILY_ONE_TO_N},
        {"Reduce", CP_FAMILY_N_TO_ONE},     {"Gather", CP_FAMILY_N_TO_ONE},
        {"Gatherv", CP_FAMILY_N_TO_ONE},    {"Scan", CP_FAMILY_SCAN},
        {"Exscan", CP_FAMILY_SCAN},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcasecmp(collective, table[i].name))
            return table[i].family;
    return CP_FAMILY_NONE;
}

void cp_wait_family_patterns(int family, int pattern[2])
{
    pattern[0] = pattern[1] = -1;
    switch (family) {
    case CP_FAMILY_NXN: pattern[0] = CP_WAIT_NXN; pattern[1] = CP_NXN_COMPLETION; break;
    case CP_FAMILY_BARRIER: pattern[0] = CP_BARRIER_WAIT; pattern[1] = CP_BARRIER_COMPLETION; break;
    case CP_FAMILY_ONE_TO_N: pattern[0] = CP_LATE_BROADCAST; break;
    case CP_FAMILY_N_TO_ONE: pattern[0] = CP_EARLY_REDUCE; break;
    case CP_FAMILY_SCAN: pattern[0] = CP_EARLY_SCAN; break;
    default: break;
    }
}

void cp_wait_states_call(int family, size_t n, const double *enter, const double *exit,
                         int64_t root, double *sev0, double *sev1)
{
    for (size_t r = 0; r < n; r++)
        sev0[r] = sev1[r] = 0;
    if (n < 2)
        return;
    bool rooted = family == CP_FAMILY_ONE_TO_N || family == CP_FAMILY_N_TO_ONE;
    if (rooted && (root < 0 || (size_t)root >= n))
        return;
    switch (family) {
    case CP_FAMILY_NXN:
    case CP_FAMILY_BARRIER: {
        double last_in = enter[0], first_out = exit[0];
        for (size_t r = 1; r < n; r++) {
            if (enter[r] > last_in)
                last_in = enter[r];
            if (exit[r] < first_out)
                first_out = exit[r];
        }
        for (size_t r = 0; r < n; r++) {
            sev0[r] = cp_wait_until(enter[r], last_in, exit[r]);
            sev1[r] = cp_wait_completion(enter[r], exit[r], first_out, sev0[r]);
        }
        break;
    }
    case CP_FAMILY_ONE_TO_N:
        for (size_t r = 0; r < n; r++)
            if ((int64_t)r != root)
                sev0[r] = cp_wait_until(enter[r], enter[root], exit[r]);
        break;
    case CP_FAMILY_N_TO_ONE: {
        double last_in = -1e300;
        for (size_t r = 0; r < n; r++)
            if ((int64_t)r != root && enter[r] > last_in)
                last_in = enter[r];
        sev0[root] = cp_wait_until(enter[root], last_in, exit[root]);
        break;
    }
    case CP_FAMILY_SCAN: {
        double last_lower = enter[0];
        for (size_t r = 1; r < n; r++) {
            sev0[r] = cp_wait_until(enter[r], last_lower, exit[r]);
            if (enter[r] > last_lower)
                last_lower = enter[r];
        }
        break;
    }
    default: break;
    }
}

int cp_wait_states_series(const char *collective, size_t n, const cp_wait_member *m,
                          cp_wait_sink sink, void *ctx)
{
    int family = cp_wait_family(collective);
    int pats[2];
    cp_wait_family_patterns(family, pats);
    if (family == CP_FAMILY_NONE || n < 2)
        return 0;
    double *enter = malloc(n * sizeof *enter), *exit = malloc(n * sizeof *exit);
    double *sev[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    size_t *pos = calloc(n, sizeof *pos);
    int rc = enter && exit && sev[0] && sev[1] && pos ? 0 : -1;
    while (rc == 0) {
        /* The next call index that every member may have. */
        uint64_t call = 0;
        bool end = false, all = true;
        for (size_t r = 0; r < n && !end; r++) {
            end = pos[r] >= m[r].n;
            if (!end && m[r].call[pos[r]] > call)
                call = m[r].call[pos[r]];
        }
        for (size_t r = 0; r < n && !end; r++) {
            while (pos[r] < m[r].n && m[r].call[pos[r]] < call)
                pos[r]++;
            end = pos[r] >= m[r].n;
            all &= !end && m[r].call[pos[r]] == call;
        }
        if (end)
            break;
        if (!all)
            continue;
        bool blocking = true;
        for (size_t r = 0; r < n; r++) {
            enter[r] = m[r].enter[pos[r]];
            exit[r] = m[r].exit[pos[r]];
            blocking &= !m[r].flags || !(m[r].flags[pos[r]] & (CP_CPT_NONBLOCKING | CP_CPT_FAILED));
        }
        if (blocking) {
            cp_wait_states_call(family, n, enter, exit, m[0].root[pos[0]], sev[0], sev[1]);
            for (size_t r = 0; r < n; r++)
                for (int q = 0; q < 2; q++)
                    if (pats[q] >= 0 && sev[q][r] > 0)
                        sink(ctx, pats[q], r, call, enter[r], exit[r], sev[q][r]);
        }
        for (size_t r = 0; r < n; r++)
            pos[r]++;
    }
    free(enter);
    free(exit);
    free(sev[0]);
    free(sev[1]);
    free(pos);
    return rc;
}
