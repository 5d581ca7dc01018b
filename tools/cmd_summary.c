/*
 * collprof summary DIR: what the run was, then one line per (communicator,
 * collective).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "mpi_names.h"
#include "ranges.h"
#include "table.h"
#include "file_names.h"

/* A manifest string on one line: its first line, control characters (tabs)
 * as spaces.  MPI libraries return several lines; the first names them. */
static void print_field(const char *label, const char *value, size_t size)
{
    printf("%-18s", label);
    size_t n = strnlen(value, size);
    const char *nl = memchr(value, '\n', n);
    if (nl)
        n = (size_t)(nl - value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < n; i++)
        putchar((unsigned char)value[i] < 0x20 ? ' ' : value[i]);
    putchar('\n');
}

void cli_summary_header(const cp_profile *p)
{
    size_t nsend = 0;
    for (size_t i = 0; i < p->nfiles; i++)
        nsend += p->files[i].direction == CP_SEND;
    if (p->has_manifest) {
        const cp_manifest *m = &p->manifest;
        if (p->npartials)
            printf("%-18s%s\n", "manifest:", "none of the run's own: the partial profiles "
                                              "(" CP_FILE_PARTIAL "<R>/) of the ranks below, merged");
        else
            printf("%-18s%s\n", "manifest:", CP_FILE_MANIFEST);
        print_field("job:", m->job, sizeof m->job);
        printf("%-18s%" PRId64 "\n", "world size:", m->world_size);
        print_field("MPI library:", m->mpi_version, sizeof m->mpi_version);
        print_field("collprof version:", m->collprof_version, sizeof m->collprof_version);
        print_field("start time:", m->start_time, sizeof m->start_time);
        if (m->partial)
            print_field("partial:", m->partial_reason[0] ? m->partial_reason : "yes",
                        sizeof m->partial_reason);
        else
            printf("%-18s%s\n", "partial:", "no");
        /* Merged partial profiles: why each rank stopped, who left none. */
        for (size_t i = 0; i < p->nstops; i++) {
            char line[2048];
            snprintf(line, sizeof line, "rank%s %s: %s", strpbrk(p->stops[i].key, ",-") ? "s" : "",
                     p->stops[i].key, p->stops[i].value);
            print_field("stopped:", line, sizeof line);
        }
        if (p->absent.n) {
            char *r = cp_ranges_to_string(&p->absent);
            char line[2048];
            snprintf(line, sizeof line, "rank%s %s: left no partial profile (killed before "
                     "writing it, or never started)",
                     cp_ranges_count(&p->absent) > 1 ? "s" : "", r ? r : "?");
            print_field("no profile:", line, sizeof line);
            free(r);
        }
        /* Series whose ranks made different calls: named, not hidden. */
        for (size_t i = 0; i < m->ndisagreements; i++) {
            char line[2048];
            snprintf(line, sizeof line, "%s: %s", m->disagreements[i].key,
                     m->disagreements[i].value);
            print_field("disagreement:", line, sizeof line);
        }
        /* Files the run could not write: what follows lacks them. */
        for (size_t i = 0; i < m->nmissing; i++) {
            char line[2048];
            snprintf(line, sizeof line, "%s not written: %s", m->missing[i].key,
                     m->missing[i].value);
            print_field("missing:", line, sizeof line);
        }
    } else {
        printf("%-18s%s\n", "manifest:", "none (counts files of another tool: "
                                          "communicator ids are synthetic)");
        static const char *const unknown[] = {"job:", "world size:", "MPI library:",
                                              "collprof version:", "start time:", "partial:"};
        for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
            printf("%-18s%s\n", unknown[i], "unknown");
    }
    printf("%-18s%zu (%zu send, %zu receive)\n", "counts files:", p->nfiles, nsend,
           p->nfiles - nsend);
}

/* "2 calls (0-1)", the list cut after 40 characters. */
static int top_cell(cli_table *t, const cp_summary_row *r)
{
    if (!r->top_send)
        return cli_table_cell(t, "-");
    char *list = cp_ranges_to_string(&r->top_send->calls);
    if (!list)
        return -1;
    if (strlen(list) > 40) {
        size_t keep = 40;
        while (keep > 0 && list[keep] != ',')
            keep--;
        strcpy(list + keep, keep ? ",..." : "...");
    }
    int rc = cli_table_cell(t, "%" PRId64 " call%s (%s)", r->top_send_calls,
                            r->top_send_calls == 1 ? "" : "s", list);
    free(list);
    return rc;
}

/* Time in the calls and waiting time of the row's (communicator,
 * collective); "-" when it was not timed. */
static int time_cells(cli_table *t, const cp_timings *tm, const cp_summary_row *r)
{
    for (size_t i = 0; i < tm->nrows; i++) {
        const cp_timing_row *x = &tm->rows[i];
        if (x->comm != r->comm || strcasecmp(x->collective, r->collective))
            continue;
        double wait = 0, var = 0;
        for (int p = 0; p < CP_READER_NPATTERNS; p++) {
            wait += x->wait[p];
            var += x->wait_se[p] * x->wait_se[p];
        }
        /* A whole-run estimate from sampled calls carries its uncertainty. */
        return cli_table_cell(t, "%.6f", x->total) ||
                       (x->wait_unknown     ? cli_table_cell(t, "-")
                        : x->wait_weight > 1 ? cli_table_cell(t, "%.6f ±%.6f", wait, sqrt(var))
                                             : cli_table_cell(t, "%.6f", wait))
                   ? -1
                   : 0;
    }
    return cli_table_cell(t, "-") || cli_table_cell(t, "-") ? -1 : 0;
}

/* Calls that passed a negative count (blocks marked "Invalid:"), one line
 * per communicator and collective after the table: the table counts them
 * as calls that moved nothing.  Such calls are rare: a list will do. */
typedef struct invalid_group {
    int64_t comm;
    const char *collective;
    cp_ranges calls;
} invalid_group;

static void print_invalid(const cp_profile *p)
{
    invalid_group *g = NULL;
    size_t n = 0;
    bool oom = false;
    for (size_t f = 0; f < p->nfiles && !oom; f++)
        for (size_t b = 0; b < p->files[f].nblocks && !oom; b++) {
            const cp_block *blk = &p->files[f].blocks[b];
            if (!blk->invalid)
                continue;
            size_t i = 0;
            while (i < n && !(g[i].comm == blk->comm_id &&
                              !strcasecmp(g[i].collective, blk->collective)))
                i++;
            if (i == n) {
                invalid_group *ng = realloc(g, (n + 1) * sizeof *ng);
                if (!ng) {
                    oom = true;
                    break;
                }
                g = ng;
                g[n++] = (invalid_group){blk->comm_id, blk->collective, {0}};
            }
            for (size_t k = 0; k < blk->calls.n && !oom; k++) {
                const cp_range *r = &blk->calls.v[k];
                for (int64_t c = r->lo; c <= r->hi && !oom; c += r->step > 1 ? r->step : 1)
                    oom = cp_ranges_add(&g[i].calls, c) != 0;
            }
        }
    for (size_t i = 0; i < n; i++) {
        char *calls = cp_ranges_to_string(&g[i].calls);
        printf("invalid calls: communicator %" PRId64 ", %s, calls %s: a negative count was "
               "passed (the MPI library refuses such a call: nothing moved)\n",
               g[i].comm, g[i].collective, calls ? calls : "?");
        free(calls);
        cp_ranges_free(&g[i].calls);
    }
    free(g);
}

/* Calls the MPI library refused (rows of a "Failed:" line), one line per
 * block and error class, from the send side (each call is in both). */
static void print_failed(const cp_profile *p)
{
    for (size_t f = 0; f < p->nfiles; f++) {
        if (p->files[f].direction != CP_SEND)
            continue;
        for (size_t b = 0; b < p->files[f].nblocks; b++) {
            const cp_block *blk = &p->files[f].blocks[b];
            int32_t done = 0;
            for (;;) { /* each class once, in increasing order */
                int32_t code = INT32_MAX;
                for (size_t r = 0; r < blk->nrows; r++)
                    if (blk->rows[r].err > done && blk->rows[r].err < code)
                        code = blk->rows[r].err;
                if (code == INT32_MAX)
                    break;
                cp_ranges ranks = {0};
                for (size_t r = 0; r < blk->nrows; r++)
                    if (blk->rows[r].err == code)
                        cp_ranges_union(&ranks, &blk->rows[r].ranks);
                char name[48];
                cp_error_class_name(code, name, sizeof name);
                char *calls = cp_ranges_to_string(&blk->calls), *who = cp_ranges_to_string(&ranks);
                printf("failed calls: communicator %" PRId64 ", %s, call%s %s: refused with %s "
                       "on rank%s %s (the MPI library moved nothing for them)\n",
                       blk->comm_id, blk->collective, cp_ranges_count(&blk->calls) > 1 ? "s" : "",
                       calls ? calls : "?", name, cp_ranges_count(&ranks) > 1 ? "s" : "",
                       who ? who : "?");
                free(calls);
                free(who);
                cp_ranges_free(&ranks);
                done = code;
            }
        }
    }
}

/* The findings, by the time each explains: FINDINGS_SHOWN of them unless
 * all; what the profile leaves out (coverage) always, since it says what
 * the numbers above it are. */
#define FINDINGS_SHOWN 5
int cli_summary_findings(const cp_profile *p, bool all)
{
    cp_finding *f;
    size_t n;
    cp_error err;
    if (cp_profile_findings(p, &f, &n, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return -1;
    }
    if (n) {
        printf("findings, by the time each explains:\n");
        size_t shown = 0;
        for (size_t i = 0; i < n; i++)
            if (all || i < FINDINGS_SHOWN || f[i].kind == CP_FINDING_COVERAGE) {
                printf("  %s\n", f[i].text);
                shown++;
            }
        if (shown < n)
            printf("  (%zu more: --all)\n", n - shown);
        putchar('\n');
    }
    free(f);
    return 0;
}

int cli_summary_run(const cli_command *self, int argc, char **argv)
{
    const char *dir, *callsite = NULL;
    bool all = false;
    const cli_opt opts[] = {{"--callsite", &callsite, NULL}, {"--all", NULL, &all}, {NULL}};
    int rc = cli_parse_args(self, argc, argv, opts, &dir);
    if (rc != CLI_OK)
        return rc;
    cp_profile p;
    if ((rc = cli_load_callsite(self, dir, callsite, &p)) != CLI_OK)
        return rc;
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    if (cli_summarize(&p, &rows, &nrows) != CLI_OK) {
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    cli_summary_header(&p);
    putchar('\n');
    if (!callsite && cli_summary_findings(&p, all) < 0) {
        free(rows);
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    if (nrows == 0) {
        printf("no collective calls recorded\n");
    } else {
        static const char *const headers[] = {"comm", "size", "lead", "collective", "calls",
                                              "send matrices", "recv matrices", "bytes sent",
                                              "most frequent send matrix", "time (s)",
                                              "waiting (s)"};
        static const bool right[] = {true, true, true, false, true, true, true, true, false,
                                     true, true};
        /* The time columns when the run was timed (timings.cpt). */
        cp_timings tm;
        bool timed = false;
        if (p.has_timings) {
            cp_error err;
            if (cp_profile_timings(&p, &tm, &err)) {
                fprintf(stderr, "collprof: %s\n", err.msg);
                free(rows);
                cp_profile_free(&p);
                return CLI_BAD_INPUT;
            }
            timed = true;
        }
        cli_table *t = cli_table_new(timed ? 11 : 9, headers, right);
        int ok = t != NULL;
        for (size_t i = 0; ok && i < nrows; i++) {
            const cp_summary_row *r = &rows[i];
            ok = cli_table_cell(t, "%" PRId64, r->comm) == 0 &&
                 cli_table_cell(t, "%" PRId64, r->size) == 0 &&
                 (r->lead >= 0 ? cli_table_cell(t, "%" PRId64, r->lead)
                               : cli_table_cell(t, "-")) == 0 &&
                 cli_table_cell(t, "%s", r->collective) == 0 &&
                 cli_table_cell(t, "%" PRId64, r->calls) == 0 &&
                 cli_table_cell(t, "%zu", r->send_matrices) == 0 &&
                 cli_table_cell(t, "%zu", r->recv_matrices) == 0 &&
                 cli_table_cell(t, "%" PRId64, r->bytes_sent) == 0 && top_cell(t, r) == 0 &&
                 (!timed || time_cells(t, &tm, r) == 0);
        }
        bool barrier = timed && tm.barrier;
        if (timed)
            cp_timings_free(&tm);
        if (!ok) {
            fprintf(stderr, "collprof: out of memory\n");
            cli_table_free(t);
            free(rows);
            cp_profile_free(&p);
            return CLI_BAD_INPUT;
        }
        cli_table_print(t, stdout);
        cli_table_free(t);
        if (barrier)
            printf("%s\n", cp_reader_barrier_note);
        print_invalid(&p);
        print_failed(&p);
    }
    free(rows);
    cp_profile_free(&p);
    return CLI_OK;
}
