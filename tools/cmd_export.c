/*
 * collprof export DIR [--format json] [-o FILE]: the whole profile (manifest
 * and every block of every counts file) as one JSON document, for scripts
 * (docs/export-schema.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Write to FILE through "<FILE>.tmp.<pid>", renamed when complete, so that
 * FILE is never left half-written (as the formats' writers do). */
static int export_to_file(const cp_profile *p, const char *path)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "collprof: out of memory\n");
        return CLI_BAD_INPUT;
    }
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        fprintf(stderr, "collprof: %s: cannot create: %s\n", tmp, strerror(errno));
        free(tmp);
        return CLI_BAD_INPUT;
    }
    cp_error err = {{0}};
    int rc = cp_export_json(p, fp, &err);
    if (fclose(fp) != 0 && rc == 0)
        rc = cp_error_set(&err, "cannot write the export: %s", strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = cp_error_set(&err, "cannot rename %s to it: %s", tmp, strerror(errno));
    if (rc < 0) {
        fprintf(stderr, "collprof: %s: %s\n", path, err.msg);
        remove(tmp);
    }
    free(tmp);
    return rc < 0 ? CLI_BAD_INPUT : CLI_OK;
}

static int run(const cli_command *self, int argc, char **argv)
{
    const char *dir = NULL, *fmt = "json", *output = NULL;
    bool only_args = false;
    for (int i = 1; i < argc; i++) {
        int r = 0;
        if (!only_args && argv[i][0] == '-' && argv[i][1] != '\0') {
            if (strcmp(argv[i], "--") == 0) {
                only_args = true;
                continue;
            }
            if ((r = cli_option(self, argc, argv, &i, "--format", &fmt)) ||
                (r = cli_option(self, argc, argv, &i, "--output", &output)) ||
                (r = cli_option(self, argc, argv, &i, "-o", &output))) {
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
    if (strcmp(fmt, "json") != 0)
        return cli_usage_error(self, "--format expects json, not '%s'", fmt);
    if (output && output[0] == '\0')
        return cli_usage_error(self, "-o expects a file name");

    cp_profile p;
    int rc = cli_load(dir, &p);
    if (rc != CLI_OK)
        return rc;
    if (output && strcmp(output, "-") != 0) {
        rc = export_to_file(&p, output);
    } else {
        cp_error err = {{0}};
        if (cp_export_json(&p, stdout, &err) < 0) {
            fprintf(stderr, "collprof: %s\n", err.msg);
            rc = CLI_BAD_INPUT;
        }
    }
    cp_profile_free(&p);
    return rc;
}

const cli_command cli_cmd_export = {
    .name = "export",
    .synopsis = "export DIR [--format json] [-o FILE]",
    .brief = "the whole profile as JSON, for scripts",
    .help =
        "options:\n"
        "  --format json      the only format (and the default)\n"
        "  -o, --output FILE  write to FILE (replaced only once complete) instead of\n"
        "                     standard output; '-' is standard output\n"
        "\n"
        "One JSON document: \"schema_version\" (1), the manifest (null without one) and\n"
        "every counts file with every block: communicator, collective, root, number of\n"
        "ranks, datatype size, calls as [lo, hi] pairs, and the rows (ranks as [lo, hi]\n"
        "pairs, counts).  The schema, with a pandas example: docs/export-schema.md.\n",
    .run = run,
};
