/*
 * The statistics of the profile model: what finalize (merge/) and the
 * reader compute over wait-state instances and timed calls, and the stat
 * and cpt formats write (their layout is theirs).
 */
#ifndef COLLPROF_STATISTICS_H
#define COLLPROF_STATISTICS_H

#include <stddef.h>

#include "collprof/profile.h"

/* Statistics of the severities values[0..n-1] into p (count, mean, median,
 * minimum, maximum, sum, variance, q25, q75; the name, metric_id and events
 * are left alone).  Sorts `values` in place (ascending).  Definitions, with
 * v sorted ascending:
 *   sum       the sum of the values (compensated summation);
 *   mean      sum / n;
 *   minimum   v[0]; maximum v[n-1];
 *   quantile(q)  linear interpolation between the closest ranks (numpy's
 *             default, "type 7"): h = q (n - 1), i = floor(h),
 *             quantile = v[i] + (h - i) (v[i+1] - v[i]);
 *   median    quantile(0.5): the middle value, or the mean of the two
 *             middle values;
 *   q25, q75  quantile(0.25), quantile(0.75) when n >= 5, else 0 (the file
 *             carries them only then);
 *   variance  sample variance, sum of (v - mean)^2 / (n - 1), when n >= 2,
 *             else 0 (the file carries it only then).
 * n == 0 gives count 0 and every value 0.  Example: 1..10 gives mean 5.5,
 * median 5.5, variance 9.1666..., q25 3.25, q75 7.75. */
void cp_stat_summarize(cp_stat_pattern *p, double *values, size_t n);

/* quantile(q) as defined above, of v[0..n) sorted ascending (n >= 1, q in
 * [0, 1]): the one definition of a median and of quartiles in collprof
 * (cp_stat_summarize, and the reader's median call duration). */
double cp_stat_quantile_sorted(const double *v, size_t n, double q);

/* Offer one instance to p's list of the most severe instances, which it
 * maintains in O(CP_STAT_MAX_EVENTS) per call (the runtime streams millions
 * of instances through it):
 *  - at most CP_STAT_MAX_EVENTS events, by duration, most severe first;
 *  - at most one event per cnode: an event for a cnode already listed
 *    replaces that one only when it is more severe;
 *  - ties keep the earlier one: an event as severe as a listed one goes
 *    after it, and is not taken when the list is full and it would be last.
 * The result is the most severe instance of each cnode, the
 * CP_STAT_MAX_EVENTS most severe of those.  Nothing else of p changes. */
void cp_stat_offer_event(cp_stat_pattern *p, const cp_stat_event *e);

/* Offer a call to a list of at most max slowest calls, slowest first (a tie
 * keeps the earlier one). */
void cp_cpt_slow_offer(cp_cpt_slow *list, size_t *n, size_t max, const cp_cpt_slow *s);

#endif
