/*
 * Helpers shared by the subcommands of `collprof`.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

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

bool cli_damaged;

int cli_load(const char *dir, cp_profile *p)
{
    cp_error err = {{0}};
    if (cp_profile_load(dir, p, &err) < 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    /* What the profile lost, before anything is shown of the rest. */
    for (size_t i = 0; i < p->ndamaged; i++)
        fprintf(stderr, "collprof: %s: damaged: %s: %s\n", p->dir, p->damaged[i].key,
                p->damaged[i].value);
    if (p->ndamaged) {
        fprintf(stderr, "collprof: %s: what follows is read from the rest of the profile\n",
                p->dir);
        cli_damaged = true;
    }
    return CLI_OK;
}

int cli_parse_args(const cli_command *cmd, int argc, char **argv, const cli_opt *opts,
                   const char **dir)
{
    bool only_args = false;
    *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!only_args && argv[i][0] == '-' && argv[i][1] != '\0') {
            if (strcmp(argv[i], "--") == 0) {
                only_args = true;
                continue;
            }
            const cli_opt *o = opts;
            int r = 0;
            for (; o->name; o++) {
                if (o->flag && strcmp(argv[i], o->name) == 0) {
                    *o->flag = true;
                    r = 1;
                } else if (o->value) {
                    r = cli_option(cmd, argc, argv, &i, o->name, o->value);
                }
                if (r)
                    break;
            }
            if (r < 0)
                return CLI_USAGE;
            if (r)
                continue;
            return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        }
        if (*dir)
            return cli_usage_error(cmd, "expected one %s, got '%s' and '%s'",
                                   cmd->operand ? cmd->operand : "directory", *dir, argv[i]);
        *dir = argv[i];
    }
    if (!*dir)
        return cli_usage_error(cmd, "%s",
                               cmd->operand_missing ? cmd->operand_missing : "expected a directory");
    return CLI_OK;
}

int cli_load_callsite(const cli_command *cmd, const char *dir, const char *callsite,
                      cp_profile *p)
{
    int64_t id = -1;
    if (callsite && cli_int64(cmd, "--callsite", callsite, &id) < 0)
        return CLI_USAGE;
    int rc = cli_load(dir, p);
    if (rc != CLI_OK || !callsite)
        return rc;
    cp_error err;
    if (cp_profile_keep_callsite(p, id, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        cp_profile_free(p);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

int cli_load_dir_arg(const cli_command *cmd, int argc, char **argv, cp_profile *p)
{
    static const cli_opt none[] = {{NULL}};
    const char *dir;
    int rc = cli_parse_args(cmd, argc, argv, none, &dir);
    return rc == CLI_OK ? cli_load(dir, p) : rc;
}

int cli_read_dir(const cli_command *cmd, int argc, char **argv)
{
    cp_profile p;
    int rc = cli_load_dir_arg(cmd, argc, argv, &p);
    if (rc != CLI_OK)
        return rc;
    rc = cmd->read(&p);
    cp_profile_free(&p);
    return rc;
}

int cli_write_file(const char *path, int (*write)(FILE *f, void *ctx, cp_error *err), void *ctx,
                   long *size)
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
        /* mkstemp makes it private; the result is an ordinary file */
        mode_t mask = umask(0);
        umask(mask);
        (void)!fchmod(fd, 0666 & ~mask); /* failing, it stays private: still usable */
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
    int rc = write(f, ctx, &err);
    if (size)
        *size = ftell(f);
    int saved = 0;
    if (fclose(f) != 0 && rc == 0) {
        saved = errno;
        rc = cp_error_set(&err, "cannot write it");
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        saved = errno;
        rc = cp_error_set(&err, "cannot rename %s to it", tmp);
    }
    if (rc != 0) {
        if (saved)
            fprintf(stderr, "collprof: %s: %s (%s)\n", path, err.msg, strerror(saved));
        else
            fprintf(stderr, "collprof: %s: %s\n", path, err.msg);
        unlink(tmp);
    }
    free(tmp);
    return rc == 0 ? CLI_OK : CLI_BAD_INPUT;
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

static int put_stdout(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    return fwrite(p, 1, n, stdout) == n ? 0 : -1;
}

void cli_json_string(const char *s)
{
    cp_json_escape(s, strlen(s), put_stdout, NULL);
}
