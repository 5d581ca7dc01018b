/*
 * The one way to grow an array (model/grow.h): the capacity doubles, from
 * the first room asked for, until it holds what is needed; nothing changes
 * when the size would overflow; the implicit form reallocates only at 0
 * and at powers of two from 8, and the array holds every element appended.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

START_TEST(capacity_doubles)
{
    int *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(cp_grow((void **)&v, &cap, 1, sizeof *v, 4), 0);
    ck_assert_uint_eq(cap, 4);
    ck_assert_int_eq(cp_grow((void **)&v, &cap, 4, sizeof *v, 4), 0);
    ck_assert_uint_eq(cap, 4); /* room enough: untouched */
    ck_assert_int_eq(cp_grow((void **)&v, &cap, 9, sizeof *v, 4), 0);
    ck_assert_uint_eq(cap, 16);
    for (int i = 0; i < 16; i++)
        v[i] = i;
    int *before = v;
    ck_assert_int_eq(cp_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof *v, 4), -1);
    ck_assert_ptr_eq(v, before);
    ck_assert_uint_eq(cap, 16);
    free(v);
}
END_TEST

START_TEST(implicit_capacity_holds_every_append)
{
    long *v = NULL;
    for (size_t n = 0; n < 1000; n++) {
        ck_assert_int_eq(cp_grow_implicit((void **)&v, n, sizeof *v), 0);
        v[n] = (long)n * 3;
    }
    for (size_t n = 0; n < 1000; n++)
        ck_assert_int_eq(v[n], (long)n * 3);
    free(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grow");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, capacity_doubles);
    tcase_add_test(tc, implicit_capacity_holds_every_append);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
