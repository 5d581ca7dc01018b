/*
 * collprof diff A B [--format text|json]: two profiles of the same
 * application side by side — per (communicator, collective) calls, bytes,
 * time and waiting with B/A ratios, and which send matrices are new in B or
 * gone from A.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranges.h"
#include "table.h"
#include "file_names.h"

/* B/A as "1.25x"; "=" when both are 0, "from 0" when only A is.  Two
 * different values never read as "1.00x": the ratio gets the digits that
 * show the difference (680704 vs 678720 bytes: "0.997x"). */
static const char *ratio(double a, double b, char *buf, size_t size)
{
    if (a == 0) {
        snprintf(buf, size, b == 0 ? "=" : "from 0");
        return buf;
    }
    double r = b / a, half_unit = 0.005;
    for (int digits = 2; digits <= 9; digits++, half_unit /= 10) {
        if (a == b || fabs(r - 1) >= half_unit) {
            snprintf(buf, size, "%.*fx", digits, r);
            return buf;
        }
    }
    snprintf(buf, size, b > a ? "~1x (B larger)" : "~1x (B smaller)");
    return buf;
}

/* Three cells: a value in A, in B (seconds) and their ratio B/A. */
static bool ab_seconds(cli_table *t, double a, double b)
{
    char r[32];
    return cli_table_cell(t, "%.6f", a) == 0 && cli_table_cell(t, "%.6f", b) == 0 &&
           cli_table_cell(t, "%s", ratio(a, b, r, sizeof r)) == 0;
}

static int series_table(const cp_diff *d)
{
    static const char *const headers[] = {"comm",   "collective", "calls A", "calls B",
                                          "bytes A", "bytes B",   "B/A",     "time A (s)",
                                          "time B (s)", "B/A",     "waiting A (s)",
                                          "waiting B (s)", "B/A"};
    static const bool right[] = {true, false, true, true, true, true, true,
                                 true, true,  true, true, true, true};
    cli_table *t = cli_table_new(13, headers, right);
    int ok = t != NULL;
    for (size_t i = 0; ok && i < d->nseries; i++) {
        const cp_diff_series *s = &d->series[i];
        char r1[32];
        ok = cli_table_cell(t, "%" PRId64, s->comm) == 0 &&
             cli_table_cell(t, "%s", s->collective) == 0 &&
             cli_table_cell(t, s->present[0] ? "%" PRId64 : "-", s->calls[0]) == 0 &&
             cli_table_cell(t, s->present[1] ? "%" PRId64 : "-", s->calls[1]) == 0 &&
             cli_table_cell(t, "%" PRId64, s->bytes[0]) == 0 &&
             cli_table_cell(t, "%" PRId64, s->bytes[1]) == 0 &&
             cli_table_cell(t, "%s", ratio((double)s->bytes[0], (double)s->bytes[1], r1,
                                            sizeof r1)) == 0 &&
             ab_seconds(t, s->time[0], s->time[1]) &&
             ab_seconds(t, s->wait[0], s->wait[1]);
    }
    return cli_table_done(t, ok);
}

/* Time and waiting per call site (call paths matched by names and lines). */
static int sites_table(const cp_diff *d)
{
    if (!d->has_sites[0] && !d->has_sites[1])
        return 0;
    printf("\ncall sites (" CP_FILE_CUBE ", summed over the ranks; matched by function path and "
           "line)%s\n",
           !d->has_sites[0] ? ": A has no call paths" : !d->has_sites[1] ? ": B has no call paths"
                                                                       : "");
    static const char *const headers[] = {"call site",  "rank-calls A",    "rank-calls B",
                                          "time A (s)", "time B (s)", "B/A",
                                          "waiting A (s)", "waiting B (s)", "B/A"};
    static const bool right[] = {false, true, true, true, true, true, true, true, true};
    cli_table *t = cli_table_new(9, headers, right);
    int ok = t != NULL;
    for (size_t i = 0; ok && i < d->nsites; i++) {
        const cp_diff_site *x = &d->sites[i];
        ok = cli_table_cell(t, "%s", x->key) == 0 &&
             cli_table_cell(t, x->present[0] ? "%" PRIu64 : "-", x->calls[0]) == 0 &&
             cli_table_cell(t, x->present[1] ? "%" PRIu64 : "-", x->calls[1]) == 0 &&
             ab_seconds(t, x->time[0], x->time[1]) &&
             ab_seconds(t, x->wait[0], x->wait[1]);
    }
    return cli_table_done(t, ok);
}

static void json_sites(const cp_diff *d)
{
    printf(",\"has_callsites\":[%s,%s],\"callsites\":[", d->has_sites[0] ? "true" : "false",
           d->has_sites[1] ? "true" : "false");
    for (size_t i = 0; i < d->nsites; i++) {
        const cp_diff_site *x = &d->sites[i];
        printf("%s\n{\"site\":", i ? "," : "");
        cli_json_string(x->key);
        printf(",\"present\":[%s,%s],\"calls\":[%" PRIu64 ",%" PRIu64 "],\"time\":[%.9g,%.9g],"
               "\"wait\":[%.9g,%.9g]}",
               x->present[0] ? "true" : "false", x->present[1] ? "true" : "false", x->calls[0],
               x->calls[1], x->time[0], x->time[1], x->wait[0], x->wait[1]);
    }
    printf("]");
}

/* "calls 4,6 (2 calls)" of a block. */
static void calls_of(const cp_block *b, const char *label)
{
    char *list = cp_ranges_to_string(&b->calls);
    int64_t n = cp_ranges_count(&b->calls);
    if (list && strlen(list) > 40) {
        size_t keep = 40;
        while (keep > 0 && list[keep] != ',')
            keep--;
        strcpy(list + keep, keep ? ",..." : "...");
    }
    printf("    %s: call%s %s (%" PRId64 " call%s, %" PRId64 " bytes each)\n", label,
           n == 1 ? "" : "s", list ? list : "?", n, n == 1 ? "" : "s", cp_block_call_bytes(b));
    free(list);
}

static void patterns_text(const cp_diff *d)
{
    for (size_t i = 0; i < d->nseries; i++) {
        const cp_diff_series *s = &d->series[i];
        if (!s->nmatrices)
            continue;
        printf("\ncommunicator %" PRId64 ", %s: %zu send matri%s in both, %zu new in B, %zu gone "
               "from A\n",
               s->comm, s->collective, s->both, s->both == 1 ? "x" : "ces", s->added, s->gone);
        for (size_t m = 0; m < s->nmatrices; m++) {
            const cp_diff_matrix *x = &s->matrices[m];
            if (x->block[0] && x->block[1]) {
                int64_t na = cp_ranges_count(&x->block[0]->calls),
                        nb = cp_ranges_count(&x->block[1]->calls);
                if (na != nb)
                    printf("    in both: %" PRId64 " call%s in A, %" PRId64 " in B (%" PRId64
                           " bytes each)\n",
                           na, na == 1 ? "" : "s", nb, cp_block_call_bytes(x->block[0]));
            } else {
                calls_of(x->block[0] ? x->block[0] : x->block[1], x->block[0] ? "gone" : "new");
            }
        }
    }
}

static void json_matrix(const cp_block *b, bool first)
{
    char *list = cp_ranges_to_string(&b->calls);
    printf("%s{\"calls\":\"%s\",\"ncalls\":%" PRId64 ",\"bytes_per_call\":%" PRId64 "}",
           first ? "" : ",", list ? list : "", cp_ranges_count(&b->calls), cp_block_call_bytes(b));
    free(list);
}

static void print_json(const cp_diff *d, const char *a, const char *b)
{
    printf("{\"a\":\"%s\",\"b\":\"%s\",\"timed\":[%s,%s],\"series\":[", a, b,
           d->timed[0] ? "true" : "false", d->timed[1] ? "true" : "false");
    for (size_t i = 0; i < d->nseries; i++) {
        const cp_diff_series *s = &d->series[i];
        printf("%s\n{\"comm\":%" PRId64 ",\"collective\":\"%s\",\"present\":[%s,%s],"
               "\"calls\":[%" PRId64 ",%" PRId64 "],\"bytes\":[%" PRId64 ",%" PRId64 "],"
               "\"time\":[%.9g,%.9g],\"wait\":[%.9g,%.9g],\"matrices_in_both\":%zu,",
               i ? "," : "", s->comm, s->collective, s->present[0] ? "true" : "false",
               s->present[1] ? "true" : "false", s->calls[0], s->calls[1], s->bytes[0],
               s->bytes[1], s->time[0], s->time[1], s->wait[0], s->wait[1], s->both);
        for (int k = 0; k < 2; k++) {
            printf(k ? ",\"gone\":[" : "\"new\":[");
            bool first = true;
            for (size_t m = 0; m < s->nmatrices; m++) {
                const cp_diff_matrix *x = &s->matrices[m];
                const cp_block *only = k ? (x->block[1] ? NULL : x->block[0])
                                         : (x->block[0] ? NULL : x->block[1]);
                if (only) {
                    json_matrix(only, first);
                    first = false;
                }
            }
            printf("]");
        }
        printf(",\"changed_calls\":[");
        bool first = true;
        for (size_t m = 0; m < s->nmatrices; m++) {
            const cp_diff_matrix *x = &s->matrices[m];
            if (!x->block[0] || !x->block[1])
                continue;
            int64_t na = cp_ranges_count(&x->block[0]->calls),
                    nb = cp_ranges_count(&x->block[1]->calls);
            if (na != nb) {
                printf("%s{\"ncalls\":[%" PRId64 ",%" PRId64 "],\"bytes_per_call\":%" PRId64 "}",
                       first ? "" : ",", na, nb, cp_block_call_bytes(x->block[0]));
                first = false;
            }
        }
        printf("]}");
    }
    printf("]");
    json_sites(d);
    printf("}\n");
}

int cli_diff_run(const cli_command *self, int argc, char **argv)
{
    const char *dirs[2] = {NULL, NULL}, *fmt = "text";
    int ndirs = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_option(self, argc, argv, &i, "--format", &fmt);
        if (r < 0)
            return CLI_USAGE;
        if (r)
            continue;
        if (argv[i][0] == '-')
            return cli_usage_error(self, "unknown option '%s'", argv[i]);
        if (ndirs == 2)
            return cli_usage_error(self, "expected two directories, got a third: '%s'", argv[i]);
        dirs[ndirs++] = argv[i];
    }
    if (ndirs != 2)
        return cli_usage_error(self, "expected two directories, A and B");
    if (strcmp(fmt, "text") && strcmp(fmt, "json"))
        return cli_usage_error(self, "--format expects text or json, not '%s'", fmt);
    cp_profile p[2];
    int rc = cli_load(dirs[0], &p[0]);
    if (rc != CLI_OK)
        return rc;
    if ((rc = cli_load(dirs[1], &p[1])) != CLI_OK) {
        cp_profile_free(&p[0]);
        return rc;
    }
    cp_diff d;
    cp_error err = {{0}};
    if (cp_profile_diff(&p[0], &p[1], &d, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        rc = CLI_BAD_INPUT;
    } else if (!strcmp(fmt, "json")) {
        print_json(&d, dirs[0], dirs[1]);
    } else {
        printf("A: %s (world size %" PRId64 ")\nB: %s (world size %" PRId64 ")\n", dirs[0],
               p[0].has_manifest ? p[0].manifest.world_size : -1, dirs[1],
               p[1].has_manifest ? p[1].manifest.world_size : -1);
        if (!d.timed[0] || !d.timed[1])
            printf("times: %s; %s\n",
                   !d.timed[0] && !d.timed[1] ? "neither A nor B has a " CP_FILE_TIMINGS
                   : !d.timed[0]              ? "A has no " CP_FILE_TIMINGS
                                              : "B has no " CP_FILE_TIMINGS,
                   !d.timed[0] && !d.timed[1] ? "their times read 0" : "its times read 0");
        printf("\n");
        if (series_table(&d) < 0) {
            fprintf(stderr, "collprof: out of memory\n");
            rc = CLI_BAD_INPUT;
        }
        patterns_text(&d);
        if (sites_table(&d) < 0) {
            fprintf(stderr, "collprof: out of memory\n");
            rc = CLI_BAD_INPUT;
        }
    }
    cp_diff_free(&d);
    cp_profile_free(&p[0]);
    cp_profile_free(&p[1]);
    return rc;
}
