/*
 * Fuzz target: the range-list grammar (writers/ranges.c), "0-5,7,9-12".
 *
 * The input is one list.  Both parsers run on it, and their results must
 * agree with each other and with the model's own functions:
 *  - cp_ranges_parse gives a normal set (sorted, disjoint, not adjacent);
 *  - what cp_ranges_parse_ordered accepts, cp_ranges_parse accepts too, and
 *    the ordered list's intervals added one by one with cp_ranges_add_range
 *    (in written order: the model's insertion in any order) give that set;
 *  - the text form (cp_ranges_to_string) parses back to the same list;
 *  - in the ordered list, position and value agree (cp_ranges_index_of and
 *    cp_ranges_nth).
 */
#include <inttypes.h>
#include <string.h>

#include "fuzz_common.h"
#include "ranges.h"

typedef int (*parse_fn)(const char *, size_t, cp_ranges *, const char **);

static void text_round_trip(const cp_ranges *r, parse_fn parse, const char *what)
{
    char *text = cp_ranges_to_string(r);
    FUZZ_CHECK(text, "out of memory");
    cp_ranges back = {0};
    const char *why = NULL;
    FUZZ_CHECK(parse(text, strlen(text), &back, &why) == 0, "%s: '%s' does not parse back: %s",
               what, text, why ? why : "?");
    FUZZ_CHECK(cp_ranges_equal(r, &back), "%s: '%s' parses to another list", what, text);
    cp_ranges_free(&back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    cp_ranges set = {0}, ord = {0};
    const char *why_set = NULL, *why_ord = NULL;
    int rs = cp_ranges_parse(s, size, &set, &why_set);
    int ro = cp_ranges_parse_ordered(s, size, &ord, &why_ord);

    if (rs != 0) {
        FUZZ_CHECK(why_set && *why_set, "no reason for a refused set");
        FUZZ_CHECK(set.n == 0 && set.v == NULL, "a refused set keeps intervals");
        FUZZ_CHECK(ro != 0, "the ordered parser accepts what the set parser refuses");
    } else {
        FUZZ_CHECK(fuzz_is_normal_set(&set), "not a normal set");
        text_round_trip(&set, cp_ranges_parse, "set");
    }

    if (ro != 0) {
        FUZZ_CHECK(why_ord && *why_ord, "no reason for a refused ordered list");
        FUZZ_CHECK(ord.n == 0 && ord.v == NULL, "a refused ordered list keeps intervals");
    } else {
        /* As cp_ranges_push builds it: no interval continues the one before. */
        for (size_t i = 1; i < ord.n; i++)
            FUZZ_CHECK(ord.v[i].lo - 1 != ord.v[i - 1].hi, "intervals %zu and %zu not joined",
                       i - 1, i);
        text_round_trip(&ord, cp_ranges_parse_ordered, "ordered list");

        cp_ranges built = {0};
        for (size_t i = 0; i < ord.n; i++)
            FUZZ_CHECK(cp_ranges_add_range(&built, ord.v[i].lo, ord.v[i].hi) == 0,
                       "cp_ranges_add_range refuses [%" PRId64 ", %" PRId64 "]", ord.v[i].lo,
                       ord.v[i].hi);
        FUZZ_CHECK(cp_ranges_equal(&built, &set),
                   "the ordered list's values differ from the set's");
        cp_ranges_free(&built);

        /* Position and value; linear each, so only the first intervals. */
        for (size_t i = 0; i < ord.n && i < 32; i++) {
            int64_t pos = cp_ranges_index_of(&ord, ord.v[i].hi);
            if (pos >= 0 && pos < INT64_MAX)
                FUZZ_CHECK(cp_ranges_nth(&ord, pos) == ord.v[i].hi,
                           "nth(index_of(%" PRId64 ")) differs", ord.v[i].hi);
        }
    }
    cp_ranges_free(&set);
    cp_ranges_free(&ord);
    return 0;
}
