/*
 * Fuzz target: the Cube statistics parser (writers/stat.c), both layouts.
 *
 * The input is a whole profile.stat, read from memory.  Beyond "no crash,
 * no leak, no undefined behaviour", an accepted file must satisfy what
 * docs/formats.md promises of it (the invariants below), and must survive a
 * round trip: written back and parsed again, it is equal (at the file's
 * precision), and writing that again gives the same bytes.  A rejected file
 * must be rejected with "<input>:<line>: ...".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "stat.h"

#define INPUT_NAME "fuzz-input"

static void check_pattern(const cp_stat_file *s, size_t i)
{
    const cp_stat_pattern *p = &s->patterns[i];
    size_t nl = strnlen(p->name, sizeof p->name);
    FUZZ_CHECK(nl > 0 && nl < sizeof p->name && p->name[0] != '-', "pattern %zu: name", i);
    for (size_t k = 0; k < i; k++)
        FUZZ_CHECK(strcmp(s->patterns[k].name, p->name) != 0, "pattern %zu: name twice", i);
    FUZZ_CHECK(s->layout == CP_STAT_LAYOUT_DOCUMENTED ? p->metric_id >= 0 : p->metric_id == -1,
               "pattern %zu: metric id %" PRId64, i, p->metric_id);
    FUZZ_CHECK(p->mean >= 0 && p->median >= 0 && p->minimum >= 0 && p->sum >= 0 &&
                   p->variance >= 0 && p->q25 >= 0 && p->q75 >= 0,
               "pattern %zu: a negative statistic", i);
    FUZZ_CHECK(p->minimum <= p->maximum, "pattern %zu: minimum > maximum", i);
    if (p->count < 2)
        FUZZ_CHECK(p->variance == 0, "pattern %zu: variance without its column", i);
    if (p->count < 5)
        FUZZ_CHECK(p->q25 == 0 && p->q75 == 0, "pattern %zu: quartiles without columns", i);
    FUZZ_CHECK(p->nevents <= CP_STAT_MAX_EVENTS && p->nevents <= p->count,
               "pattern %zu: %zu events for count %" PRIu64, i, p->nevents, p->count);
    for (size_t k = 0; k < p->nevents; k++) {
        const cp_stat_event *e = &p->events[k];
        FUZZ_CHECK(e->cnode >= 0, "pattern %zu event %zu: cnode", i, k);
        FUZZ_CHECK(s->layout == CP_STAT_LAYOUT_CUBEGUI ? e->rank >= 0 : e->rank == -1,
                   "pattern %zu event %zu: rank %" PRId64, i, k, e->rank);
        FUZZ_CHECK(e->exit >= e->enter, "pattern %zu event %zu: exit < enter", i, k);
        FUZZ_CHECK(e->duration >= p->minimum && e->duration <= p->maximum,
                   "pattern %zu event %zu: duration outside [min, max]", i, k);
        if (k > 0)
            FUZZ_CHECK(e->duration <= p->events[k - 1].duration,
                       "pattern %zu event %zu: not most severe first", i, k);
        for (size_t j = 0; j < k; j++)
            FUZZ_CHECK(p->events[j].cnode != e->cnode, "pattern %zu: cnode twice", i);
    }
}

/* Parse text from memory; 0 or -1. */
static int parse(const char *text, size_t len, cp_stat_file *s, cp_error *err)
{
    cp_in *in = cp_in_open_mem(text, len, "round-trip");
    FUZZ_CHECK(in != NULL, "out of memory");
    int rc = cp_stat_parse(in, s, err);
    cp_in_close(in);
    return rc;
}

static void round_trip(const cp_stat_file *f, size_t size)
{
    cp_error err = {{0}};
    char *text;
    size_t len;
    /* Through the file writer for one input in eight (temporary file and
     * rename), from memory otherwise: the same bytes either way. */
    if (size % 8 == 0) {
        const char *path = fuzz_tmp_path("profile.stat");
        FUZZ_CHECK(cp_stat_write(path, f, &err) == 0, "the writer refuses a parsed file: %s",
                   err.msg);
        cp_stat_file g;
        FUZZ_CHECK(cp_stat_read(fuzz_tmp_path("profile.stat"), &g, &err) == 0,
                   "the parser refuses what the writer wrote: %s", err.msg);
        FUZZ_CHECK(cp_stat_file_equal(f, &g), "differs after a round trip through the file");
        cp_stat_file_free(&g);
        fuzz_tmp_remove("profile.stat");
    }
    FUZZ_CHECK(cp_stat_format(f, &text, &len, &err) == 0, "the writer refuses a parsed file: %s",
               err.msg);
    cp_stat_file g;
    FUZZ_CHECK(parse(text, len, &g, &err) == 0, "the parser refuses what the writer wrote: %s",
               err.msg);
    FUZZ_CHECK(g.layout == f->layout, "layout %d, then %d", f->layout, g.layout);
    FUZZ_CHECK(cp_stat_file_equal(f, &g), "differs after a round trip");
    char *again;
    size_t len2;
    FUZZ_CHECK(cp_stat_format(&g, &again, &len2, &err) == 0, "second write: %s", err.msg);
    FUZZ_CHECK(len == len2 && memcmp(text, again, len) == 0, "the text changes when rewritten");
    free(again);
    free(text);
    cp_stat_file_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_in *in = cp_in_open_mem(data, size, INPUT_NAME);
    if (!in)
        return 0;
    cp_stat_file s;
    memset(&s, 0, sizeof s);
    cp_error err = {{0}};
    int rc = cp_stat_parse(in, &s, &err);
    cp_in_close(in);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_error_names_line(&err, INPUT_NAME), "error without a line: '%s'", err.msg);
        FUZZ_CHECK(s.patterns == NULL && s.npatterns == 0, "patterns left after a failure");
        return 0;
    }
    FUZZ_CHECK(s.layout == CP_STAT_LAYOUT_CUBEGUI || s.layout == CP_STAT_LAYOUT_DOCUMENTED,
               "layout %d", s.layout);
    for (size_t i = 0; i < s.npatterns; i++)
        check_pattern(&s, i);
    round_trip(&s, size);
    cp_stat_file_free(&s);
    return 0;
}
