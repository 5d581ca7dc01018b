/*
 * collprof report DIR -o FILE [--max-matrices N] [--nodes N]
 * One self-contained HTML file: the summary, a heat map per distinct count
 * matrix, the bytes per rank (the page itself is written by tools/report/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report/report.h"

struct report_run {
    const cp_profile *p;
    const report_options *opt;
    report_stats *stats;
};

static int write_report(FILE *f, void *vctx, cp_error *err)
{
    struct report_run *c = vctx;
    return report_write_report(f, c->p, c->opt, c->stats, err);
}

int cli_report_run(const cli_command *self, int argc, char **argv)
{
    const char *dir, *out = NULL, *max_s = NULL, *nodes_s = NULL;
    const cli_opt opts[] = {{"-o", &out, NULL},
                            {"--output", &out, NULL},
                            {"--max-matrices", &max_s, NULL},
                            {"--nodes", &nodes_s, NULL},
                            {NULL}};
    int rc = cli_parse_args(self, argc, argv, opts, &dir);
    if (rc != CLI_OK)
        return rc;
    if (!out || !out[0])
        return cli_usage_error(self, "-o FILE is required (- for standard output)");
    report_options opt = {REPORT_DEFAULT_MAX_MATRICES, REPORT_DEFAULT_MAX_CELLS,
                          REPORT_DEFAULT_CELL_BUDGET, 0};
    if (max_s) {
        int64_t m;
        if (cli_int64(self, "--max-matrices", max_s, &m) < 0)
            return CLI_USAGE;
        opt.max_matrices = (size_t)m;
    }
    if (nodes_s) {
        if (cli_int64(self, "--nodes", nodes_s, &opt.nodes) < 0)
            return CLI_USAGE;
        if (opt.nodes < 1)
            return cli_usage_error(self, "--nodes expects at least 1, not %s", nodes_s);
    }

    cp_profile p;
    if ((rc = cli_load(dir, &p)) != CLI_OK)
        return rc;
    report_stats stats;
    if (strcmp(out, "-") == 0) {
        cp_error err = {{0}};
        if (report_write_report(stdout, &p, &opt, &stats, &err) != 0) {
            fprintf(stderr, "collprof: standard output: %s\n", err.msg);
            rc = CLI_BAD_INPUT;
        }
    } else {
        long size = 0;
        struct report_run ctx = {&p, &opt, &stats};
        rc = cli_write_file(out, write_report, &ctx, &size);
        if (rc == CLI_OK) {
            char human[32];
            report_human_bytes(human, sizeof human, size);
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
