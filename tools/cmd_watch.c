/*
 * collprof watch DIR: the profile of a job while it runs, refreshed every few
 * seconds: what the run is (the ranks' last snapshots, or the whole profile
 * once it ended), the findings, the costliest series and the calls so far.
 * It only reads DIR: the job is never slowed or waited for.  A frame read
 * while a rank replaced its snapshot (the exchange is one step, but the
 * files of one folder are read one after the other) is read again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "table.h"

#define WATCH_TOP 10

static int by_bytes(const void *pa, const void *pb)
{
    const cp_summary_row *a = pa, *b = pb;
    if (a->bytes_sent != b->bytes_sent)
        return a->bytes_sent > b->bytes_sent ? -1 : 1;
    if (a->calls != b->calls)
        return a->calls > b->calls ? -1 : 1;
    return a->comm < b->comm ? -1 : a->comm > b->comm;
}

/* The calls so far and the costliest series, by bytes sent. */
static int print_series(const cp_profile *p, size_t top)
{
    cp_summary_row *rows = NULL;
    size_t n = 0;
    if (cli_summarize(p, &rows, &n) != CLI_OK)
        return -1;
    int64_t calls = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        calls += rows[i].calls;
        bytes = rows[i].bytes_sent > INT64_MAX - bytes ? INT64_MAX : bytes + rows[i].bytes_sent;
    }
    printf("calls so far:     %" PRId64 " collective calls in %zu series (communicator, "
           "collective), %" PRId64 " bytes sent\n\n",
           calls, n, bytes);
    qsort(rows, n, sizeof *rows, by_bytes);
    static const char *const headers[] = {"comm", "size", "collective", "calls", "bytes sent",
                                          "send matrices"};
    static const bool right[] = {true, true, false, true, true, true};
    cli_table *t = cli_table_new(6, headers, right);
    int ok = t != NULL;
    size_t shown = n < top ? n : top;
    for (size_t i = 0; ok && i < shown; i++)
        ok = cli_table_cell(t, "%" PRId64, rows[i].comm) == 0 &&
             cli_table_cell(t, "%" PRId64, rows[i].size) == 0 &&
             cli_table_cell(t, "%s", rows[i].collective) == 0 &&
             cli_table_cell(t, "%" PRId64, rows[i].calls) == 0 &&
             cli_table_cell(t, "%" PRId64, rows[i].bytes_sent) == 0 &&
             cli_table_cell(t, "%zu", rows[i].send_matrices) == 0;
    if (ok && shown) {
        printf("the costliest series, by bytes sent%s:\n",
               shown < n ? " (the first of them)" : "");
        cli_table_print(t, stdout);
        if (shown < n)
            printf("(%zu more series)\n", n - shown);
    }
    cli_table_free(t);
    free(rows);
    if (!ok)
        fprintf(stderr, "collprof: out of memory\n");
    return ok ? 0 : -1;
}

/* Load DIR; a frame that read a folder while its rank replaced it is
 * damaged, and read once more. */
static int load(const char *dir, cp_profile *p, cp_error *err)
{
    for (int attempt = 0;; attempt++) {
        if (cp_profile_load(dir, p, err) < 0)
            return -1;
        if (!p->ndamaged || !p->npartials || attempt == 1)
            return 0;
        cp_profile_free(p);
        struct timespec t = {0, 300000000L};
        nanosleep(&t, NULL);
    }
}

/* One frame.  Returns CLI_OK, CLI_DAMAGED (shown, with what was lost) or
 * CLI_BAD_INPUT (nothing to show yet: the message says why). */
static int frame(const char *dir, size_t top, unsigned every, bool once)
{
    time_t now = time(NULL);
    struct tm tm;
    char when[16];
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    if (once)
        printf("collprof watch: %s at %s\n", dir, when);
    else
        printf("collprof watch: %s at %s (every %u s; Ctrl-C ends)\n", dir, when, every);
    cp_profile p;
    cp_error err = {{0}};
    if (load(dir, &p, &err) < 0) {
        printf("\nnothing to show yet: %s\n(a running job's ranks leave their first snapshots "
               "COLLPROF_SNAPSHOT seconds after MPI_Init: 30 by default)\n",
               err.msg);
        return CLI_BAD_INPUT;
    }
    for (size_t i = 0; i < p.ndamaged; i++)
        printf("damaged:          %s: %s\n", p.damaged[i].key, p.damaged[i].value);
    if (!p.has_manifest || !p.manifest.partial)
        printf("run:              ended: the whole profile, written at MPI_Finalize\n");
    else if (p.npartials)
        printf("run:              no MPI_Finalize so far: what each rank left, below\n");
    putchar('\n');
    cli_summary_header(&p);
    putchar('\n');
    int rc = cli_summary_findings(&p, false) == 0 && print_series(&p, top) == 0 ? CLI_OK
                                                                               : CLI_BAD_INPUT;
    if (rc == CLI_OK && p.ndamaged)
        rc = CLI_DAMAGED;
    cp_profile_free(&p);
    return rc;
}

int cli_watch_run(const cli_command *self, int argc, char **argv)
{
    const char *dir, *every_s = NULL, *top_s = NULL;
    bool once = false;
    const cli_opt opts[] = {
        {"--once", NULL, &once}, {"--every", &every_s, NULL}, {"--top", &top_s, NULL}, {NULL}};
    int rc = cli_parse_args(self, argc, argv, opts, &dir);
    if (rc != CLI_OK)
        return rc;
    int64_t every = 5, top = WATCH_TOP;
    if ((every_s && cli_int64(self, "--every", every_s, &every) < 0) ||
        (top_s && cli_int64(self, "--top", top_s, &top) < 0))
        return CLI_USAGE;
    if (every < 1 || every > 86400)
        return cli_usage_error(self, "--every takes 1 to 86400 seconds, not %" PRId64, every);
    if (once)
        return frame(dir, (size_t)top, (unsigned)every, true);
    bool tty = isatty(STDOUT_FILENO);
    for (;;) {
        if (tty)
            fputs("\033[H\033[2J", stdout); /* the next frame in place of the last */
        frame(dir, (size_t)top, (unsigned)every, false);
        fflush(stdout);
        sleep((unsigned)every);
    }
}
