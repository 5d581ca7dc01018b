#include "sample_cols.h"

#include <check.h>

cp_sample cols_of(const cp_timing_rec *r, size_t n)
{
    cp_sample s = {0};
    ck_assert_int_eq(cp_sample_alloc(&s, n), 0);
    for (size_t i = 0; i < n; i++)
        cp_timing_cols_put(&s.cols, i, r[i]);
    s.n = n;
    return s;
}
