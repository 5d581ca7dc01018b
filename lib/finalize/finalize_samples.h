/*
 * Finalize, internal: the product of the timing stage that the wait-state
 * search and the timings.cpt stage read: each series' sample as records in
 * seconds on world rank 0's time line (merge/series_sums.h), made from the
 * collectors' state, which is only read.
 */
#ifndef COLLPROF_FINALIZE_SAMPLES_H
#define COLLPROF_FINALIZE_SAMPLES_H

#include "comm_registry.h"
#include "series_sums.h"

/* One communicator's samples: of collective k, v[slot[k] - 1] (slot[k] 0:
 * none).  Only the collectives it called take room: finalize after 10,000
 * churned communicators first-touched 22 MB of pages for a slot per
 * collective each. */
typedef struct fin_comm_samples {
    uint8_t slot[CP_NCOLLECTIVES];
    uint8_t n;
    cp_sample v[];
} fin_comm_samples;

/* The samples of this rank's series: of[c->reg_index] (NULL: that
 * communicator has none). */
typedef struct fin_samples {
    fin_comm_samples **of;
    size_t n;
} fin_samples;

/* The sample of collective k on c; one with no calls when there is none. */
const cp_sample *cp_fin_sample(const fin_samples *S, const cp_comm *c, int k);
void cp_fin_samples_free(fin_samples *S);
/* Make the samples of every series of comms (a list), with this rank's
 * clock tl.  Returns 0, or -1 when memory ran out (what was made is in *S,
 * to free). */
int cp_fin_make_samples(cp_comm *comms, const cp_time_line *tl, fin_samples *S);

#endif
