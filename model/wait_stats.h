/*
 * The statistics of a wait-state pattern's instances (profile.stat: count,
 * sum, mean, variance, minimum, maximum, median, quartiles), kept so that
 * they merge up finalize's tree of ranks in bounded size (packed for its
 * messages by merge/wait_stats_pack.c), and the reader keeps those of
 * partial profiles the same way.
 *
 * Count, sum, minimum and maximum are exact; mean and variance merge with
 * Chan's pairwise update (exact up to rounding).  The quantiles are exact
 * while the instances number at most CP_WSTAT_EXACT (the values are kept
 * as they are); beyond that the values go into logarithmic bins of ratio
 * (1 + a) / (1 - a), a = CP_WSTAT_ACCURACY, and each quantile is within a
 * relative error a of the exact one (the bin's representative, between the
 * minimum and the maximum).  Bins of severities from 1 ns to 1 day: at
 * most about 3,200, whatever the number of instances.
 */
#ifndef COLLPROF_WAIT_STATS_H
#define COLLPROF_WAIT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"
#include "wait_states.h"

#define CP_WSTAT_EXACT 4096
#define CP_WSTAT_ACCURACY 0.005

typedef struct cp_wstat {
    uint64_t n;
    double sum, mean, m2, min, max;
    bool binned;            /* the values went into bins */
    double *vals;           /* not binned: the n values */
    size_t capvals;
    int32_t *bin;           /* binned: bin indices, ascending */
    uint64_t *cnt;          /* and the values in each */
    size_t nbins, capbins;
    bool oom;               /* memory ran out: the quantiles are lost */
} cp_wstat;

void cp_wstat_add(cp_wstat *w, double v);
/* v as `weight` instances (a sampled instance standing for the calls of
 * the run it estimates, cp_wait_factor): the sum grows by v x weight, the
 * count by weight rounded (at least 1), the quantiles go to bins. */
void cp_wstat_add_weighted(cp_wstat *w, double v, double weight);
/* into += from.  (from unchanged.) */
void cp_wstat_merge(cp_wstat *into, const cp_wstat *from);
void cp_wstat_free(cp_wstat *w);

/* The statistics into p (count, mean, median, minimum, maximum, sum,
 * variance, q25, q75 with cp_stat_summarize's definitions and rules; the
 * name, metric_id and events are left alone).  Returns 0, or -1 when
 * memory ran out. */
int cp_wstat_summarize(const cp_wstat *w, cp_stat_pattern *p);

/* The file profile.stat holds, from each pattern's statistics stat[] and
 * most severe instances top[] (their cnodes placeholders, made the Cube's
 * by cnode(ctx, placeholder), -1: left out): the patterns with instances,
 * in pattern order, each named by its Cube metric, with its MetricID
 * metric_id[p] in the documented layout.  Returns 0, or -1 when memory
 * ran out (st then holds what was made: free it). */
int cp_wstat_file(cp_stat_file *st, bool documented, const cp_wstat stat[CP_NWAIT_PATTERNS],
                  const cp_stat_pattern top[CP_NWAIT_PATTERNS], const int64_t *metric_id,
                  int64_t (*cnode)(const void *ctx, int64_t placeholder), const void *ctx);

#endif
