/*
 * collprof stat FILE: the wait-state statistics of a profile.stat (the file
 * that CubeGUI's statistics plugin shows beside profile.cubex), one table of
 * patterns and then the most severe instances of each.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "stat.h"
#include "table.h"
#include "file_names.h"

/* A value as the file has it: mean and median with 7 decimals, the rest
 * with 10. */
static int value_cell(cli_table *t, double v, bool mean)
{
    return cli_table_cell(t, "%.*f", mean ? CP_STAT_MEAN_DECIMALS : CP_STAT_VALUE_DECIMALS,
                          v == 0 ? 0.0 : v); /* never "-0.0..." */
}

static int print_patterns(const cp_stat_file *s)
{
    bool doc = s->layout == CP_STAT_LAYOUT_DOCUMENTED;
    static const char *const gui_headers[] = {"pattern", "count", "mean",     "median", "minimum",
                                              "maximum", "sum",   "variance", "q25",    "q75"};
    static const char *const doc_headers[] = {"pattern",  "metric id", "count",   "mean",
                                              "median",   "minimum",   "maximum", "sum",
                                              "variance", "q25",       "q75"};
    static const bool right[] = {false, true, true, true, true, true, true, true, true, true, true};
    size_t ncols = doc ? 11 : 10;
    cli_table *t = cli_table_new(ncols, doc ? doc_headers : gui_headers, right);
    int ok = t != NULL;
    for (size_t i = 0; ok && i < s->npatterns; i++) {
        const cp_stat_pattern *p = &s->patterns[i];
        ok = cli_table_cell(t, "%s", p->name) == 0 &&
             (!doc || cli_table_cell(t, "%" PRId64, p->metric_id) == 0) &&
             cli_table_cell(t, "%" PRIu64, p->count) == 0 && value_cell(t, p->mean, true) == 0 &&
             value_cell(t, p->median, true) == 0 && value_cell(t, p->minimum, false) == 0 &&
             value_cell(t, p->maximum, false) == 0 && value_cell(t, p->sum, false) == 0 &&
             (p->count >= 2 ? value_cell(t, p->variance, false) : cli_table_cell(t, "-")) == 0 &&
             (p->count >= 5 ? value_cell(t, p->q25, false) : cli_table_cell(t, "-")) == 0 &&
             (p->count >= 5 ? value_cell(t, p->q75, false) : cli_table_cell(t, "-")) == 0;
    }
    return cli_table_done(t, ok);
}

static int print_instances(const cp_stat_pattern *p, bool ranks)
{
    if (p->nevents == 0) {
        printf("%s: no instances listed\n", p->name);
        return 0;
    }
    printf("%s: most severe instances (%zu of %" PRIu64 ", at most one per call path)\n", p->name,
           p->nevents, p->count);
    static const char *const headers[] = {"cnode", "rank", "enter", "exit", "waiting time"};
    static const bool right[] = {true, true, true, true, true};
    cli_table *t = cli_table_new(5, headers, right);
    int ok = t != NULL;
    for (size_t k = 0; ok && k < p->nevents; k++) {
        const cp_stat_event *e = &p->events[k];
        ok = cli_table_cell(t, "%" PRId64, e->cnode) == 0 &&
             (ranks ? cli_table_cell(t, "%" PRId64, e->rank) : cli_table_cell(t, "-")) == 0 &&
             value_cell(t, e->enter, false) == 0 && value_cell(t, e->exit, false) == 0 &&
             value_cell(t, e->duration, false) == 0;
    }
    return cli_table_done(t, ok);
}

/* The file's patterns and instances; from (a note) says where they come
 * from when not from a file. */
static int print_stat(const cp_stat_file *s, const char *file, const char *from)
{
    bool gui = s->layout == CP_STAT_LAYOUT_CUBEGUI;
    if (from)
        printf("from:      %s\n", from);
    else
        printf("file:      %s\n", file);
    printf("layout:    %s\n", gui ? "CubeGUI (instances with their rank)"
                                  : "documented (MetricID column, instances without rank)");
    printf("patterns:  %zu\n", s->npatterns);
    printf("times in seconds; an instance is one rank's wait in one call\n");
    int ok = 0;
    if (s->npatterns > 0) {
        putchar('\n');
        ok = print_patterns(s);
        for (size_t i = 0; ok == 0 && i < s->npatterns; i++) {
            putchar('\n');
            ok = print_instances(&s->patterns[i], gui);
        }
    }
    return ok;
}

/* Partial profiles: the statistics the reader found in their timed calls. */
static int partial_stat(const char *dir)
{
    cp_profile p;
    cp_error err;
    if (cp_profile_load(dir, &p, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    const cp_stat_file *s = cp_profile_partial_stat(&p);
    int rc = CLI_OK;
    if (!s) {
        fprintf(stderr, "collprof: %s: no " CP_FILE_STAT " and no wait states in its partial "
                        "profiles (" CP_FILE_PARTIAL "<R>/): no timed calls (COLLPROF_TIMING=off, "
                        "or none written: `collprof summary %s` says which)\n", dir, dir);
        rc = CLI_BAD_INPUT;
    } else {
        char from[4400];
        snprintf(from, sizeof from, "%.4000s: the partial profiles of %zu ranks (no MPI_Finalize), "
                 "the wait states found in their timed calls; cnodes are those of the joined "
                 CP_FILE_CUBE " (`collprof complete` writes both)", dir, p.npartials);
        if (print_stat(s, NULL, from) != 0) {
            fprintf(stderr, "collprof: out of memory\n");
            rc = CLI_BAD_INPUT;
        }
    }
    cp_profile_free(&p);
    return rc;
}

int cli_stat_run(const cli_command *self, int argc, char **argv)
{
    const char *arg;
    static const cli_opt none[] = {{NULL}};
    int rc = cli_parse_args(self, argc, argv, none, &arg);
    if (rc != CLI_OK)
        return rc;

    /* An output directory stands for its profile.stat. */
    char *path = NULL;
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(arg);
        path = malloc(n + sizeof "/" CP_FILE_STAT);
        if (!path) {
            fprintf(stderr, "collprof: out of memory\n");
            return CLI_BAD_INPUT;
        }
        memcpy(path, arg, n);
        while (n > 1 && path[n - 1] == '/')
            n--;
        memcpy(path + n, "/" CP_FILE_STAT, sizeof "/" CP_FILE_STAT);
    }

    /* A run that stopped before MPI_Finalize left partial profiles, and
     * profile.stat is made at MPI_Finalize: the reader finds the wait
     * states in the ranks' timed calls when it merges them. */
    char partial[4200];
    if (path && stat(path, &st) != 0 && errno == ENOENT) {
        glob_t g;
        snprintf(partial, sizeof partial, "%.4000s/" CP_FILE_PARTIAL "*", arg);
        bool partials = glob(partial, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
        globfree(&g);
        if (partials) {
            free(path);
            return partial_stat(arg);
        }
    }
    cp_stat_file s;
    cp_error err = {{0}};
    if (cp_stat_read(path ? path : arg, &s, &err) != 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        free(path);
        return CLI_BAD_INPUT;
    }
    int ok = print_stat(&s, path ? path : arg, NULL);
    cp_stat_file_free(&s);
    free(path);
    if (ok != 0) {
        fprintf(stderr, "collprof: out of memory\n");
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}
