/*
 * The one table of the reader's subcommands, in the order `collprof --help`
 * lists them, and what the command as a whole says of itself: shared by the
 * command (collprof.c) and its manual page (man/gen_man.c).
 */
#include "cli.h"

const cli_command *const cli_commands[] = {
    &cli_cmd_run,
    &cli_cmd_summary,
    &cli_cmd_matrix,
    &cli_cmd_patterns,
    &cli_cmd_check,
    &cli_cmd_report,
    &cli_cmd_export,
    &cli_cmd_stat,
    &cli_cmd_timings,
    &cli_cmd_callsites,
    &cli_cmd_complete,
    &cli_cmd_diff,
    &cli_cmd_placement,
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

const char cli_description[] =
    "Runs an MPI program under collprof (run), reads the output directory of a\n"
    "collprof run (or a directory of count files written by collective_profiler)\n"
    "and reports on it.\n";

const char cli_exit_status[] = "Exit status: 0 success, 1 bad input or problems found, 2 usage "
                               "error.\n";
