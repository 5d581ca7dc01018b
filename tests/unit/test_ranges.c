/*
 * Range lists: the model's operations (profile.h) and the text grammar
 * (ranges.h), with exact expected values.
 */
#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "tmpdir.h"

/* The text form of r, compared with want, then freed. */
static void assert_text(const cp_ranges *r, const char *want)
{
    char *s = cp_ranges_to_string(r);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, want);
    free(s);
}

/* Parse s as a set and check its text form and size. */
static void assert_parses(const char *s, const char *want, int64_t count)
{
    cp_ranges r = {0};
    const char *why = NULL;
    ck_assert_msg(cp_ranges_parse(s, strlen(s), &r, &why) == 0, "'%s' rejected: %s", s,
                  why ? why : "?");
    assert_text(&r, want);
    ck_assert_int_eq(cp_ranges_count(&r), count);
    cp_ranges_free(&r);
}

static void assert_rejected(const char *s)
{
    cp_ranges r = {0};
    const char *why = NULL;
    ck_assert_msg(cp_ranges_parse(s, strlen(s), &r, &why) == -1, "'%s' accepted", s);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strlen(why) > 0, "no reason for '%s'", s);
    ck_assert_uint_eq(r.n, 0);
    why = NULL;
    ck_assert_msg(cp_ranges_parse_ordered(s, strlen(s), &r, &why) == -1, "'%s' accepted (ordered)",
                  s);
    ck_assert_ptr_nonnull(why);
}

START_TEST(empty)
{
    cp_ranges r = {0};
    assert_text(&r, "");
    ck_assert_int_eq(cp_ranges_count(&r), 0);
    ck_assert(!cp_ranges_contains(&r, 0));
    ck_assert_int_eq(cp_ranges_nth(&r, 0), -1);
    ck_assert_int_eq(cp_ranges_index_of(&r, 0), -1);
    cp_ranges e = {0};
    ck_assert(cp_ranges_equal(&r, &e));
    cp_ranges_free(&r);
}
END_TEST

START_TEST(single_and_lone_values)
{
    cp_ranges r = {0};
    ck_assert_int_eq(cp_ranges_add(&r, 7), 0);
    assert_text(&r, "7"); /* never "7-7" */
    ck_assert_int_eq(cp_ranges_add(&r, 9), 0);
    ck_assert_int_eq(cp_ranges_add(&r, 11), 0);
    assert_text(&r, "7,9,11");
    ck_assert_int_eq(cp_ranges_count(&r), 3);
    ck_assert(cp_ranges_contains(&r, 9));
    ck_assert(!cp_ranges_contains(&r, 8));
    ck_assert(!cp_ranges_contains(&r, 12));
    ck_assert_int_eq(cp_ranges_nth(&r, 2), 11);
    ck_assert_int_eq(cp_ranges_index_of(&r, 11), 2);
    cp_ranges_free(&r);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_ptr_null(r.v);
}
END_TEST

START_TEST(adjacent_merge)
{
    cp_ranges r = {0};
    ck_assert_int_eq(cp_ranges_add_range(&r, 0, 2), 0);
    assert_text(&r, "0-2");
    ck_assert_int_eq(cp_ranges_add(&r, 3), 0);
    assert_text(&r, "0-3");
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(cp_ranges_add(&r, 5), 0);
    assert_text(&r, "0-3,5");
    ck_assert_int_eq(cp_ranges_add(&r, 4), 0); /* joins both sides */
    assert_text(&r, "0-5");
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(cp_ranges_add(&r, 2), 0); /* already there */
    assert_text(&r, "0-5");
    cp_ranges_free(&r);
}
END_TEST

START_TEST(unordered_set)
{
    cp_ranges r = {0};
    int64_t vals[] = {12, 9, 0, 5, 3, 4, 1, 2, 7, 10, 11};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        ck_assert_int_eq(cp_ranges_add(&r, vals[i]), 0);
    assert_text(&r, "0-5,7,9-12");
    ck_assert_int_eq(cp_ranges_count(&r), 11);
    ck_assert_int_eq(cp_ranges_nth(&r, 6), 7);
    ck_assert_int_eq(cp_ranges_nth(&r, 7), 9);
    ck_assert_int_eq(cp_ranges_nth(&r, 11), -1);
    ck_assert_int_eq(cp_ranges_index_of(&r, 10), 8);
    ck_assert_int_eq(cp_ranges_index_of(&r, 6), -1);
    /* An interval covering several: one interval remains. */
    ck_assert_int_eq(cp_ranges_add_range(&r, 2, 20), 0);
    assert_text(&r, "0-20");
    ck_assert_int_eq(cp_ranges_add_range(&r, 30, 40), 0);
    ck_assert_int_eq(cp_ranges_add_range(&r, 25, 26), 0);
    ck_assert_int_eq(cp_ranges_add_range(&r, 22, 23), 0);
    assert_text(&r, "0-20,22-23,25-26,30-40");
    ck_assert_int_eq(cp_ranges_add_range(&r, 21, 29), 0);
    assert_text(&r, "0-40");
    /* Invalid intervals are refused and change nothing. */
    ck_assert_int_eq(cp_ranges_add_range(&r, 5, 4), -1);
    ck_assert_int_eq(cp_ranges_add(&r, -1), -1);
    assert_text(&r, "0-40");
    cp_ranges_free(&r);
}
END_TEST

static cp_ranges set_of(const char *s)
{
    cp_ranges r = {0};
    const char *why = NULL;
    ck_assert_msg(!*s || cp_ranges_parse(s, strlen(s), &r, &why) == 0, "%s", why ? why : "?");
    return r; /* "": the empty set */
}

/* Union by one merge, and many sets appended then normalised once. */
START_TEST(union_and_append)
{
    static const struct {
        const char *a, *b, *want;
    } cases[] = {
        {"", "3-4", "3-4"},
        {"0-2", "", "0-2"},
        {"0-2", "5-6", "0-2,5-6"},          /* after: appended */
        {"0-2", "3,9", "0-3,9"},            /* touching */
        {"0,2,4,6", "1,3,5,7", "0-7"},      /* interleaved */
        {"5-9", "0-1,7-12,20", "0-1,5-12,20"}, /* overlapping, before and after */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cp_ranges a = set_of(cases[i].a), b = set_of(cases[i].b);
        ck_assert_int_eq(cp_ranges_union(&a, &b), 0);
        assert_text(&a, cases[i].want);
        cp_ranges_free(&a);
        a = set_of(cases[i].a);
        ck_assert_int_eq(cp_ranges_append(&a, &b), 0);
        ck_assert_int_eq(cp_ranges_normalise(&a, false), 0);
        assert_text(&a, cases[i].want);
        cp_ranges_free(&a);
        cp_ranges_free(&b);
    }
    /* 200 scattered sets of 1,000 values each: the union is every value */
    cp_ranges all = {0}, acc = {0};
    for (int64_t k = 0; k < 200; k++) {
        cp_ranges one = {0};
        for (int64_t v = k; v < 200000; v += 200)
            ck_assert_int_eq(cp_ranges_add(&one, v), 0);
        ck_assert_int_eq(cp_ranges_append(&all, &one), 0);
        if (k % 20 == 0)
            ck_assert_int_eq(cp_ranges_union(&acc, &one), 0);
        cp_ranges_free(&one);
    }
    ck_assert_int_eq(cp_ranges_normalise(&all, false), 0);
    assert_text(&all, "0-199999");
    ck_assert_int_eq(cp_ranges_count(&acc), 10000);
    cp_ranges_free(&all);
    cp_ranges_free(&acc);
}
END_TEST

START_TEST(ordered_list)
{
    cp_ranges r = {0};
    ck_assert_int_eq(cp_ranges_push(&r, 4), 0);
    ck_assert_int_eq(cp_ranges_push(&r, 2), 0);
    ck_assert_int_eq(cp_ranges_push(&r, 0), 0);
    assert_text(&r, "4,2,0");
    ck_assert_int_eq(cp_ranges_nth(&r, 0), 4);
    ck_assert_int_eq(cp_ranges_nth(&r, 2), 0);
    ck_assert_int_eq(cp_ranges_index_of(&r, 2), 1);
    ck_assert_int_eq(cp_ranges_index_of(&r, 0), 2);

    cp_ranges back = {0};
    const char *why = NULL;
    ck_assert_int_eq(cp_ranges_parse_ordered("4,2,0", 5, &back, &why), 0);
    ck_assert(cp_ranges_equal(&r, &back));
    cp_ranges_free(&back);
    cp_ranges_free(&r);

    /* Runs extend the last interval. */
    for (int64_t v = 8; v < 12; v++)
        ck_assert_int_eq(cp_ranges_push(&r, v), 0);
    ck_assert_int_eq(cp_ranges_push(&r, 0), 0);
    ck_assert_int_eq(cp_ranges_push(&r, 1), 0);
    assert_text(&r, "8-11,0-1");
    ck_assert_uint_eq(r.n, 2);
    ck_assert_int_eq(cp_ranges_index_of(&r, 1), 5);

    /* parse_ordered builds what push builds: "0-2,3" -> 0-3. */
    ck_assert_int_eq(cp_ranges_parse_ordered("8-9,10-11, 0,1", 14, &back, &why), 0);
    ck_assert(cp_ranges_equal(&r, &back));
    cp_ranges_free(&back);
    cp_ranges_free(&r);
}
END_TEST

START_TEST(ordered_rejects_duplicates)
{
    const char *bad[] = {"1,1", "0-3,2", "4,2,0,4", "5-9,0-5", "0-9,3-4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cp_ranges r = {0};
        const char *why = NULL;
        ck_assert_msg(cp_ranges_parse_ordered(bad[i], strlen(bad[i]), &r, &why) == -1,
                      "'%s' accepted", bad[i]);
        ck_assert_str_eq(why, "a value appears twice in an ordered list");
        ck_assert_uint_eq(r.n, 0);
        /* As a set, overlaps are fine. */
        ck_assert_int_eq(cp_ranges_parse(bad[i], strlen(bad[i]), &r, &why), 0);
        cp_ranges_free(&r);
    }
}
END_TEST

START_TEST(round_trips)
{
    assert_parses("0", "0", 1);
    assert_parses("0-5,7,9-12", "0-5,7,9-12", 11);
    assert_parses("9-12,0-5,7", "0-5,7,9-12", 11); /* sets are sorted */
    assert_parses("0-2,3", "0-3", 4);               /* adjacent merge */
    assert_parses("1,0,2", "0-2", 3);
    assert_parses("0-0", "0", 1);                   /* other tools write "0-0" */
    assert_parses("0-4,2-8", "0-8", 9);             /* overlap */
    assert_parses("0, 2", "0,2", 2);                /* ", " separator */
    assert_parses(" 0 ,  2-3 , 5 ", "0,2-3,5", 4);  /* spaces around items */
    assert_parses("9223372036854775807", "9223372036854775807", 1);

    /* Text -> model -> text through the cp_out writer as well. */
    cp_ranges r = {0};
    const char *why;
    ck_assert_int_eq(cp_ranges_parse("3,5-6,100-1000", 14, &r, &why), 0);
    ck_assert_int_eq(cp_ranges_count(&r), 904);
    cp_ranges c;
    ck_assert_int_eq(cp_ranges_copy(&c, &r), 0);
    ck_assert(cp_ranges_equal(&c, &r));
    ck_assert_ptr_ne(c.v, r.v);
    cp_ranges_free(&c);
    cp_ranges_free(&r);
}
END_TEST

START_TEST(parse_only_len_bytes)
{
    /* The parser reads s[0..len) only: "1,2" from "1,2,3". */
    cp_ranges r = {0};
    const char *why;
    ck_assert_int_eq(cp_ranges_parse("1,2,3", 3, &r, &why), 0);
    assert_text(&r, "1-2");
    cp_ranges_free(&r);
}
END_TEST

START_TEST(malformed)
{
    const char *bad[] = {"",   ",",    "1,",   "3-1",  "-1",  "a",     "1--2",
                         "99999999999999999999", "1 2", " ", ",1", "1,,2", "1-", "1-a",
                         "0x10", "+1", "1;2", "1-2-3", "9223372036854775808"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_rejected(bad[i]);

    /* The reasons say what was expected. */
    cp_ranges r = {0};
    const char *why;
    ck_assert_int_eq(cp_ranges_parse("3-1", 3, &r, &why), -1);
    ck_assert_str_eq(why, "expected N-M with N <= M");
    ck_assert_int_eq(cp_ranges_parse("1,", 2, &r, &why), -1);
    ck_assert_str_eq(why, "empty item in range list (expected N or N-M)");
    ck_assert_int_eq(cp_ranges_parse("1 2", 3, &r, &why), -1);
    ck_assert_str_eq(why, "expected ',' between items");
    ck_assert_int_eq(cp_ranges_parse("-1", 2, &r, &why), -1);
    ck_assert_str_eq(why, "expected a non-negative integer");
    ck_assert_int_eq(cp_ranges_parse("99999999999999999999", 20, &r, &why), -1);
    ck_assert_str_eq(why, "number too large (more than 9223372036854775807)");
    ck_assert_int_eq(cp_ranges_parse("", 0, &r, &why), -1);
    ck_assert_str_eq(why, "expected a range list such as 0-5,7, found nothing");
}
END_TEST

START_TEST(huge_intervals)
{
    /* Counting never loops over values and never overflows. */
    cp_ranges r = {0};
    const char *why;
    const char *s = "0-9223372036854775807";
    ck_assert_int_eq(cp_ranges_parse(s, strlen(s), &r, &why), 0);
    ck_assert_int_eq(cp_ranges_count(&r), INT64_MAX); /* saturated */
    ck_assert(cp_ranges_contains(&r, INT64_MAX));
    ck_assert_int_eq(cp_ranges_nth(&r, 5), 5);
    cp_ranges_free(&r);
    ck_assert_int_eq(cp_ranges_push(&r, INT64_MAX), 0);
    ck_assert_int_eq(cp_ranges_push(&r, 0), 0);
    assert_text(&r, "9223372036854775807,0");
    cp_ranges_free(&r);
}
END_TEST

START_TEST(write_to_out)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/ranges.txt", tmpdir);
    cp_error err;
    cp_out *o = cp_out_open(path, false, &err);
    ck_assert_ptr_nonnull(o);
    cp_ranges r = {0};
    cp_ranges_add_range(&r, 0, 5);
    cp_ranges_add(&r, 7);
    cp_ranges_add_range(&r, 9, 12);
    ck_assert_int_eq(cp_ranges_write(o, &r), 0);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    cp_ranges_free(&r);
    cp_in *in = cp_in_open(path, &err);
    ck_assert_ptr_nonnull(in);
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "0-5,7,9-12");
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

START_TEST(strided_and_extreme_items_written)
{
    /* Every form of the writer, by hand (the model holds strided items
     * where the compact writer found them): a progression, one of two
     * values (two items), an interval, a lone value, the extremes. */
    cp_range items[] = {{0, 8, 2},   {10, 12, 2}, {20, 20, 0},
                        {30, 35, 1}, {40, 49, 0}, {INT64_MIN, INT64_MAX, 3}};
    cp_ranges r = {items, sizeof items / sizeof *items, 0};
    assert_text(&r, "0-8/2,10,12,20,30-35,40-49,"
                    "-9223372036854775808-9223372036854775807/3");
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/strided.txt", tmpdir);
    cp_error err;
    cp_out *o = cp_out_open(path, false, &err);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(cp_ranges_write(o, &r), 0);
    ck_assert_int_eq(cp_out_i64(o, INT64_MIN), 0);
    ck_assert_int_eq(cp_out_str(o, " and "), 0);
    ck_assert_int_eq(cp_out_i64(o, 0), 0);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    cp_in *in = cp_in_open(path, &err);
    ck_assert_ptr_nonnull(in);
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "0-8/2,10,12,20,30-35,40-49,"
                           "-9223372036854775808-9223372036854775807/3"
                           "-9223372036854775808 and 0");
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ranges");
    TCase *tc = tcase_create("ranges");
    tcase_add_test(tc, empty);
    tcase_add_test(tc, single_and_lone_values);
    tcase_add_test(tc, adjacent_merge);
    tcase_add_test(tc, unordered_set);
    tcase_add_test(tc, union_and_append);
    tcase_add_test(tc, ordered_list);
    tcase_add_test(tc, ordered_rejects_duplicates);
    tcase_add_test(tc, round_trips);
    tcase_add_test(tc, parse_only_len_bytes);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, huge_intervals);
    tcase_add_test(tc, write_to_out);
    tcase_add_test(tc, strided_and_extreme_items_written);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
