/*
 * The one way to grow an array (model/grow.h): the capacity doubles, from
 * the first room asked for, until it holds what is needed; nothing changes
 * when the size would overflow; the implicit form reallocates only at 0
 * and at powers of two from 8, and the array holds every element appended.
 * The aligned form grows the same way and keeps its boundary and contents,
 * growing and shrinking.
 * Per-collective entries (model/coll_slots.h): only the collectives added
 * have one, each keeps its value whatever order they came in, and a walk
 * visits them in order of collective.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "coll_slots.h"
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

START_TEST(aligned_growth_keeps_boundary_and_contents)
{
    uint64_t *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(cp_grow_aligned((void **)&v, &cap, 3, sizeof *v, 1, 64), 0);
    ck_assert_uint_eq(cap, 4);
    ck_assert_uint_eq((uintptr_t)v % 64, 0);
    for (uint64_t i = 0; i < 4; i++)
        v[i] = 100 + i;
    ck_assert_int_eq(cp_grow_aligned((void **)&v, &cap, 4, sizeof *v, 1, 64), 0);
    ck_assert_uint_eq(cap, 4); /* room enough: untouched */
    ck_assert_int_eq(cp_grow_aligned((void **)&v, &cap, 13, sizeof *v, 1, 64), 0);
    ck_assert_uint_eq(cap, 16);
    ck_assert_uint_eq((uintptr_t)v % 64, 0);
    for (uint64_t i = 0; i < 4; i++)
        ck_assert_uint_eq(v[i], 100 + i);
    uint64_t *before = v;
    ck_assert_int_eq(cp_grow_aligned((void **)&v, &cap, SIZE_MAX / 2, sizeof *v, 1, 64), -1);
    ck_assert_ptr_eq(v, before);
    ck_assert_uint_eq(cap, 16);
    uint64_t *shrunk = cp_realloc_aligned(v, 3 * sizeof *v, 3 * sizeof *v, 64);
    ck_assert_ptr_nonnull(shrunk);
    ck_assert_uint_eq((uintptr_t)shrunk % 64, 0);
    for (uint64_t i = 0; i < 3; i++)
        ck_assert_uint_eq(shrunk[i], 100 + i);
    free(shrunk);
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

typedef struct entry {
    uint64_t k, sq;
} entry;

START_TEST(slots_hold_only_what_was_added)
{
    cp_slots s = {0};
    ck_assert_ptr_null(cp_slots_at(&s, 0, sizeof(entry)));
    ck_assert_uint_eq(cp_slots_next(&s, 0), CP_SLOTS_MAX);
    /* Out of order, both ends of the mask, one added twice. */
    const unsigned order[] = {40, 3, 63, 0, 17, 3, 41, 2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        unsigned k = order[i];
        entry *e = cp_slots_add(&s, k, sizeof *e);
        ck_assert_ptr_nonnull(e);
        if (e->k) { /* the second add of 3 finds the first */
            ck_assert_uint_eq(k, 3);
            ck_assert_uint_eq(e->sq, 9);
            continue;
        }
        ck_assert_uint_eq(e->sq, 0); /* made zeroed */
        *e = (entry){k + 1, (uint64_t)k * k};
    }
    ck_assert_uint_eq(cp_slots_count(&s), 7);
    ck_assert_ptr_null(cp_slots_add(&s, CP_SLOTS_MAX, sizeof(entry)));
    unsigned seen = 0, last = 0;
    for (unsigned k = 0; k < CP_SLOTS_MAX; k++) {
        entry *e = cp_slots_at(&s, k, sizeof *e);
        bool added = k == 0 || k == 2 || k == 3 || k == 17 || k == 40 || k == 41 || k == 63;
        ck_assert_msg((e != NULL) == added, "collective %u", k);
        if (e) {
            ck_assert_uint_eq(e->k, k + 1);
            ck_assert_uint_eq(e->sq, (uint64_t)k * k);
        }
    }
    CP_SLOTS_EACH(k, &s)
    {
        ck_assert(seen == 0 || k > last);
        last = k;
        seen++;
    }
    ck_assert_uint_eq(seen, 7);
    ck_assert_ptr_null(cp_slots_at(&s, CP_SLOTS_MAX, sizeof(entry)));
    cp_slots_free(&s);
    ck_assert_uint_eq(cp_slots_count(&s), 0);
    ck_assert_ptr_null(cp_slots_at(&s, 3, sizeof(entry)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grow");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, capacity_doubles);
    tcase_add_test(tc, aligned_growth_keeps_boundary_and_contents);
    tcase_add_test(tc, implicit_capacity_holds_every_append);
    tcase_add_test(tc, slots_hold_only_what_was_added);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
