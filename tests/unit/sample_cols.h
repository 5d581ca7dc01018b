/* Kept calls written as records, handed to the wait stage as the columns
 * finalize gives it (a sample, merge/series_sums.h). */
#ifndef COLLPROF_TEST_SAMPLE_COLS_H
#define COLLPROF_TEST_SAMPLE_COLS_H

#include <stddef.h>

#include "series_sums.h"

/* The n records r as a sample's columns (to cp_sample_free). */
cp_sample cols_of(const cp_timing_rec *r, size_t n);

#endif
