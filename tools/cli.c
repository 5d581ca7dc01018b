/*
 * Helpers shared by the subcommands of `collprof`.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "collprof %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: collprof %s\nTry 'collprof help %s' for more information.\n",
            cmd->synopsis, cmd->name);
    return CLI_USAGE;
}

void cli_print_help(const cli_command *cmd)
{
    printf("usage: collprof %s\n\n%s\n", cmd->synopsis, cmd->brief);
    if (cmd->help && cmd->help[0])
        printf("\n%s", cmd->help);
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_option(const cli_command *cmd, int argc, char **argv, int *i, const char *name,
               const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "option %s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_int64(const cli_command *cmd, const char *option, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno == ERANGE || v < 0) {
        cli_usage_error(cmd, "%s expects a non-negative integer, not '%s'", option, s);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int cli_load(const char *dir, cp_profile *p)
{
    cp_error err = {{0}};
    if (cp_profile_load(dir, p, &err) < 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int cli_load_dir_arg(const cli_command *cmd, int argc, char **argv, cp_profile *p)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        if (dir)
            return cli_usage_error(cmd, "expected one directory, got '%s' and '%s'", dir, argv[i]);
        dir = argv[i];
    }
    if (!dir)
        return cli_usage_error(cmd, "expected a directory");
    return cli_load(dir, p);
}

int cli_summarize(const cp_profile *p, cp_summary_row **rows, size_t *nrows)
{
    cp_error err = {{0}};
    if (cp_profile_summarize(p, rows, nrows, &err) < 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}
