/*
 * Each rank's run, from MPI_Init to MPI_Finalize, and the part of it spent
 * in collectives, from profile.cubex: finalize puts each rank's time
 * outside its timed collectives at the root of the call tree and the time
 * in them at the collectives' nodes (plus, in barrier mode, the barrier
 * collprof adds before each call: late_arrival), so a rank's run is the sum
 * of its time over every node.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cubex.h"
#include "reader_internal.h"
#include "wait_states.h"
#include "file_names.h"

int cp_profile_rank_times(const cp_profile *p, cp_rank_time **out, size_t *n, cp_error *err)
{
    *out = NULL;
    *n = 0;
    const cp_cube *cube;
    cp_cube own;
    bool owned;
    if (cp_reader_cube(p, &cube, &own, &owned, err))
        return -1;
    const cp_cube *const c = cube;
    int64_t time = cp_cube_find_metric(c, "time"), late = cp_cube_find_metric(c, "late_arrival");
    int rc = 0;
    if (time < 0) {
        char why[1200];
        rc = cp_error_set(err, "%s/" CP_FILE_CUBE ": no time metric (%s)", p->dir,
                          cp_reader_no_timings(p, why, sizeof why));
    } else if (!(*out = calloc(c->nlocations ? c->nlocations : 1, sizeof **out))) {
        rc = cp_error_set(err, "out of memory");
    } else {
        *n = c->nlocations;
        int64_t wm[CP_NWAIT_PATTERNS];
        for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
            wm[p] = cp_cube_find_metric(c, cp_wait_metrics[p].uniq_name);
        for (size_t l = 0; l < c->nlocations; l++) {
            cp_rank_time *r = &(*out)[l];
            int64_t h = c->location_host[l];
            snprintf(r->host, sizeof r->host, "%s",
                     h >= 0 && (size_t)h < c->nhosts ? c->hosts[h].name : "");
            for (size_t k = 0; k < c->ncnodes; k++) {
                /* Time holds the metrics below it (MPI, late arrival); a
                 * file of a flat metric list (before the metric tree) has
                 * late arrival beside it. */
                double t = cp_cube_get_double(c, (size_t)time, k, l);
                double w = late >= 0 && !c->metrics[late].parent[0]
                               ? cp_cube_get_double(c, (size_t)late, k, l)
                               : 0;
                for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
                    r->waiting += wm[p] >= 0 ? cp_cube_get_double(c, (size_t)wm[p], k, l) : 0;
                r->run += t + w;
                if (c->cnodes[k].parent >= 0)
                    r->collectives += t + w;
                else
                    r->collectives += w; /* a root holds only the time outside */
            }
        }
    }
    if (owned)
        cp_cube_free(&own);
    return rc;
}
