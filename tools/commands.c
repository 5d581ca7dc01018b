/*
 * The one table of the reader's subcommands, in the order `collprof --help`
 * lists them, and what the command as a whole says of itself: shared by the
 * command (collprof.c) and its manual page (man/gen_man.c).
 */
#include "cli.h"
#include "file_names.h"

const cli_command cli_commands[] = {
    {
        .name = "run",
        .synopsis = "run [--mpi mpich|openmpi] PROGRAM [ARGS...]",
        .brief = "run one rank of PROGRAM under collprof, for whichever MPI it uses",
        .help = cli_help_run,
        .run = cli_run_run,
    },
    {
        .name = "summary",
        .synopsis = "summary DIR [--all] [--callsite ID]",
        .brief = "what the run was, then one line per communicator and collective",
        .help = cli_help_summary,
        .run = cli_summary_run,
    },
    {
        .name = "matrix",
        .synopsis = "matrix DIR --comm C --collective NAME --call K [--recv] [--format text|csv|json] "
                    "[--sparse|--dense] [--callsite ID]",
        .brief = "the full send or receive count matrix of one call",
        .help = cli_help_matrix,
        .run = cli_matrix_run,
    },
    {
        .name = "patterns",
        .synopsis = "patterns DIR",
        .brief = "who talks to how many ranks, and the shape of every matrix",
        .help = cli_help_patterns,
        .read = cli_patterns_read,
    },
    {
        .name = "check",
        .synopsis = "check DIR",
        .brief = "validate every file and their cross-consistency",
        .help = cli_help_check,
        .read = cli_check_read,
    },
    {
        .name = "report",
        .synopsis = "report DIR -o FILE [--max-matrices N] [--nodes N]",
        .brief = "one self-contained HTML page: summary, heat maps, bytes per rank",
        .help = cli_help_report,
        .run = cli_report_run,
    },
    {
        .name = "export",
        .synopsis = "export DIR [--format json] [-o FILE]",
        .brief = "the whole profile as JSON, for scripts",
        .help = cli_help_export,
        .run = cli_export_run,
    },
    {
        .name = "stat",
        .synopsis = "stat FILE",
        .brief = "the wait-state statistics of a " CP_FILE_STAT ", and the worst instances",
        .help = cli_help_stat,
        .run = cli_stat_run,
        .operand = "file",
        .operand_missing = "expected a file (" CP_FILE_STAT ") or an output directory",
    },
    {
        .name = "timings",
        .synopsis = "timings DIR",
        .brief = "time, waiting time per pattern and slowest calls, from " CP_FILE_TIMINGS,
        .help = cli_help_timings,
        .read = cli_timings_read,
    },
    {
        .name = "callsites",
        .synopsis = "callsites DIR",
        .brief = "where the collectives were called: function, file:line, calls, bytes, time",
        .help = cli_help_callsites,
        .read = cli_callsites_read,
    },
    {
        .name = "complete",
        .synopsis = "complete DIR",
        .brief = "add source lines to " CP_FILE_CUBE ": user regions, MPI call sites",
        .help = cli_help_complete,
        .read = cli_complete_read,
    },
    {
        .name = "diff",
        .synopsis = "diff A B [--format text|json]",
        .brief = "two profiles side by side: what changed in patterns, time and waiting",
        .help = cli_help_diff,
        .run = cli_diff_run,
    },
    {
        .name = "placement",
        .synopsis = "placement DIR --nodes N [--ranks-per-node K] [--hosts a,b,...] "
                    "[--write-hostfile F] [--write-rankfile F] [--format text|json]",
        .brief = "where ranks should live: a node layout that crosses the fewest bytes",
        .help = cli_help_placement,
        .run = cli_placement_run,
    },
    {
        .name = "watch",
        .synopsis = "watch DIR [--once] [--every S] [--top N]",
        .brief = "a running job's profile so far, refreshed: findings, costliest series, calls",
        .help = cli_help_watch,
        .run = cli_watch_run,
    },
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

const char cli_description[] =
    "Runs an MPI program under collprof (run), reads the output directory of a\n"
    "collprof run (or a directory of count files written by collective_profiler)\n"
    "and reports on it.\n";

const char cli_exit_status[] = "Exit status: 0 success, 1 bad input or problems found, 2 usage "
                               "error.\n";
