/*
 * collprof report DIR -o FILE [--max-matrices N]
 * One self-contained HTML file: the summary, a heat map per distinct count
 * matrix, the bytes per rank (the page itself is written by tools/report/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report/report.h"

/* Write to a temporary file beside `path`, then rename it: an interrupted
 * or failed run never leaves half a report where the last good one was. */
static int write_file(const char *path, const cp_profile *p, const rp_options *opt,
                      rp_stats *stats, long *size)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof ".tmpXXXXXX");
    if (!tmp) {
        fprintf(stderr, "collprof: out of memory\n");
        return CLI_BAD_INPUT;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        /* mkstemp makes it private; a report is an ordinary file */
        mode_t mask = umask(0);
        umask(mask);
        (void)!fchmod(fd, 0666 & ~mask); /* failing, it stays private: still a report */
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "collprof: %s: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return CLI_BAD_INPUT;
    }
    cp_error err = {{0}};
    int rc = rp_write_report(f, p, opt, stats, &err);
    *size = ftell(f);
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        saved = errno;
        rc = cp_error_set(&err, "cannot write the report");
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        saved = errno;
        rc = cp_error_set(&err, "cannot write the report");
    }
    if (rc != 0) {
        fprintf(stderr, "collprof: %s: %s (%s)\n", path, err.msg, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc == 0 ? CLI_OK : CLI_BAD_INPUT;
}

static int run(const cli_command *self, int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *max_s = NULL;
    bool only_args = false;
    for (int i = 1; i < argc; i++) {
        int r = 0;
        if (!only_args && argv[i][0] == '-' && argv[i][1] != '\0') {
            if (strcmp(argv[i], "--") == 0) {
                only_args = true;
                continue;
            }
            if ((r = cli_option(self, argc, argv, &i, "-o", &out)) ||
                (r = cli_option(self, argc, argv, &i, "--output", &out)) ||
                (r = cli_option(self, argc, argv, &i, "--max-matrices", &max_s))) {
                if (r < 0)
                    return CLI_USAGE;
                continue;
            }
            return cli_usage_error(self, "unknown option '%s'", argv[i]);
        }
        if (dir)
            return cli_usage_error(self, "expected one directory, got '%s' and '%s'", dir, argv[i]);
        dir = argv[i];
    }
    if (!dir)
        return cli_usage_error(self, "expected a directory");
    if (!out || !out[0])
        return cli_usage_error(self, "-o FILE is required (- for standard output)");
    rp_options opt = {RP_DEFAULT_MAX_MATRICES, RP_DEFAULT_MAX_CELLS, RP_DEFAULT_CELL_BUDGET};
    if (max_s) {
        int64_t m;
        if (cli_int64(self, "--max-matrices", max_s, &m) < 0)
            return CLI_USAGE;
        opt.max_matrices = (size_t)m;
    }

    cp_profile p;
    int rc = cli_load(dir, &p);
    if (rc != CLI_OK)
        return rc;
    rp_stats stats;
    if (strcmp(out, "-") == 0) {
        cp_error err = {{0}};
        if (rp_write_report(stdout, &p, &opt, &stats, &err) != 0) {
            fprintf(stderr, "collprof: standard output: %s\n", err.msg);
            rc = CLI_BAD_INPUT;
        }
    } else {
        long size = 0;
        rc = write_file(out, &p, &opt, &stats, &size);
        if (rc == CLI_OK) {
            char human[32];
            rp_human_bytes(human, sizeof human, size);
            printf("%s: %zu communicator%s, %zu heat map%s", out, stats.communicators,
                   stats.communicators == 1 ? "" : "s", stats.heatmaps,
                   stats.heatmaps == 1 ? "" : "s");
            if (stats.not_drawn)
                printf(" (%zu more matri%s not drawn, see the page)", stats.not_drawn,
                       stats.not_drawn == 1 ? "x" : "ces");
            printf(", %s\n", human);
        }
    }
    cp_profile_free(&p);
    return rc;
}

const cli_command cli_cmd_report = {
    .name = "report",
    .synopsis = "report DIR -o FILE [--max-matrices N]",
    .brief = "one self-contained HTML page: summary, heat maps, bytes per rank",
    .help =
        "options:\n"
        "  -o, --output FILE   the HTML file to write (- for standard output)\n"
        "  --max-matrices N    heat maps per communicator, collective and side, most\n"
        "                      frequent matrices first (default 8; 0: all)\n"
        "\n"
        "The page needs nothing but a browser (no network, no other file).  It has\n"
        "the summary (as `collprof summary`), one SVG heat map per distinct count\n"
        "matrix (sender rows, receiver columns, log colour scale, grey for zero;\n"
        "hover a cell for its ranks, count and bytes), and the bytes each rank sends\n"
        "and receives.  Matrices of more than 128 ranks are drawn aggregated: a cell\n"
        "sums a tile of ranks.  A receive matrix that draws the same picture as the\n"
        "send matrix of its calls is not drawn again.  Prints the file name, what\n"
        "was drawn and the size.\n",
    .run = run,
};
