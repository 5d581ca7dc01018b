/*
 * collprof export DIR [--format json] [-o FILE]: the whole profile (manifest
 * and every block of every counts file) as one JSON document, for scripts
 * (docs/export-schema.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int write_json(FILE *f, void *ctx, cp_error *err)
{
    return cp_export_json(ctx, f, err);
}

int cli_export_run(const cli_command *self, int argc, char **argv)
{
    const char *dir, *fmt = "json", *output = NULL;
    const cli_opt opts[] = {
        {"--format", &fmt, NULL}, {"--output", &output, NULL}, {"-o", &output, NULL}, {NULL}};
    int rc = cli_parse_args(self, argc, argv, opts, &dir);
    if (rc != CLI_OK)
        return rc;
    if (strcmp(fmt, "json") != 0)
        return cli_usage_error(self, "--format expects json, not '%s'", fmt);
    if (output && output[0] == '\0')
        return cli_usage_error(self, "-o expects a file name");

    cp_profile p;
    if ((rc = cli_load(dir, &p)) != CLI_OK)
        return rc;
    if (output && strcmp(output, "-") != 0) {
        rc = cli_write_file(output, write_json, &p, NULL);
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
