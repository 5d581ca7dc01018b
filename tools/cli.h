/*
 * The `collprof` command: one table of subcommands (collprof.c), one file
 * per subcommand (cmd_<name>.c), and a few helpers shared by them (cli.c).
 *
 * Exit codes: 0 success, 1 bad input or problems found, 2 usage error.
 */
#ifndef COLLPROF_CLI_H
#define COLLPROF_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "collprof/reader.h"
#include "help_texts.h" /* cli_help_<command>, made from help/<command>.txt */

/* Exit statuses: CLI_DAMAGED when the command did its work on a profile
 * that lost files or blocks (named on stderr by cli_load). */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_USAGE = 2, CLI_DAMAGED = 3 };
/* Set by cli_load when the profile it loaded is damaged. */
extern bool cli_damaged;

typedef struct cli_command {
    const char *name;
    const char *synopsis; /* "summary DIR" */
    const char *brief;    /* one line for `collprof --help` */
    const char *help;     /* the rest of `collprof help <name>`: options, output */
    /* argv[0] is the subcommand name; returns the exit code. */
    int (*run)(const struct cli_command *self, int argc, char **argv);
    /* Instead of run, for a subcommand whose only argument is DIR: the
     * command loads the profile, calls this and frees it (cli_read_dir). */
    int (*read)(cp_profile *p);
    /* The one positional argument, for cli_parse_args' messages: its noun
     * ("file"; NULL: "directory") and what to say when it is missing
     * (NULL: "expected a directory"). */
    const char *operand, *operand_missing;
} cli_command;

/* The subcommands (defined in cmd_<name>.c, listed in collprof.c). */
/* commands.c: the subcommands in `collprof --help` order, and the texts of
 * the command as a whole. */
extern const cli_command cli_commands[];
extern const size_t cli_ncommands;
extern const char cli_description[];
extern const char cli_exit_status[];

/* What each subcommand does (cmd_<name>.c): a run function, or, for a
 * subcommand whose only argument is DIR, a read function. */
int cli_run_run(const cli_command *self, int argc, char **argv);
int cli_summary_run(const cli_command *self, int argc, char **argv);
int cli_matrix_run(const cli_command *self, int argc, char **argv);
int cli_patterns_read(cp_profile *p);
int cli_check_read(cp_profile *p);
int cli_report_run(const cli_command *self, int argc, char **argv);
int cli_export_run(const cli_command *self, int argc, char **argv);
int cli_stat_run(const cli_command *self, int argc, char **argv);
int cli_timings_read(cp_profile *p);
int cli_callsites_read(cp_profile *p);
int cli_complete_read(cp_profile *p);
int cli_diff_run(const cli_command *self, int argc, char **argv);
int cli_placement_run(const cli_command *self, int argc, char **argv);
int cli_watch_run(const cli_command *self, int argc, char **argv);

/* Print "collprof <cmd>: <message>", the usage line and a hint to stderr;
 * returns CLI_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* `collprof help <cmd>` text to stdout. */
void cli_print_help(const cli_command *cmd);

/* Option parsing, one argument at a time.  At argv[*i]: when it is `name`
 * ("--comm"), take the value from "--comm=V" or the next argument, advance *i
 * and return 1; return 0 when it is another argument; return -1 (usage error
 * printed) when the value is missing. */
int cli_option(const cli_command *cmd, int argc, char **argv, int *i, const char *name,
               const char **value);
/* Decimal integer >= 0; -1 (usage error printed) otherwise. */
int cli_int64(const cli_command *cmd, const char *option, const char *s, int64_t *out);
/* True when argv[i] is --help or -h. */
bool cli_is_help(const char *arg);

/* One option of a subcommand: a value option ("--comm C" or "--comm=C")
 * sets *value; a flag ("--recv") sets *flag. */
typedef struct cli_opt {
    const char *name;
    const char **value;
    bool *flag;
} cli_opt;

/* The one argument loop of the subcommands: options from `opts` (ended by a
 * {NULL}), "--" ends them, and exactly one positional DIR (or what
 * cmd->operand names).  Returns CLI_OK,
 * or CLI_USAGE with the message printed. */
int cli_parse_args(const cli_command *cmd, int argc, char **argv, const cli_opt *opts,
                   const char **dir);

/* Write `path` through a temporary file beside it, renamed when complete, so
 * that an interrupted or failed run never leaves half a file (as the formats'
 * writers do); the file gets the ordinary mode (umask).  `write` returns 0
 * or -1 with err set.  *size (may be NULL) receives the bytes written.
 * Returns CLI_OK, or CLI_BAD_INPUT with the message printed. */
int cli_write_file(const char *path, int (*write)(FILE *f, void *ctx, cp_error *err), void *ctx,
                   long *size);

/* Load dir, printing "collprof: <parser message>" on failure.  Returns
 * CLI_OK or CLI_BAD_INPUT. */
int cli_load(const char *dir, cp_profile *p);
/* For subcommands whose only argument is DIR: parse argv and load it.
 * Returns CLI_OK (p loaded), CLI_USAGE or CLI_BAD_INPUT (message printed). */
int cli_load_dir_arg(const cli_command *cmd, int argc, char **argv, cp_profile *p);
/* A subcommand with `read`: load DIR, read it, free it; its exit code. */
int cli_read_dir(const cli_command *cmd, int argc, char **argv);
/* cli_load, then, when callsite is not NULL, keep only what call path
 * `callsite` (an id) issued (cp_profile_keep_callsite). */
int cli_load_callsite(const cli_command *cmd, const char *dir, const char *callsite,
                      cp_profile *p);
/* What `collprof summary` prints first (cmd_summary.c), for `watch` too:
 * what the run was (manifest, why ranks stopped, what is missing); the
 * findings (all of them, or the first 5).  The findings return 0, or -1
 * with the error printed. */
void cli_summary_header(const cp_profile *p);
int cli_summary_findings(const cp_profile *p, bool all);

/* cp_profile_summarize, printing its error; returns CLI_OK or CLI_BAD_INPUT. */
int cli_summarize(const cp_profile *p, cp_summary_row **rows, size_t *nrows);

/* s as a JSON string on stdout (quotes, backslashes and control characters
 * escaped). */
void cli_json_string(const char *s);

#endif
