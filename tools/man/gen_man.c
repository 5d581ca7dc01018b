/*
 * Writes the manual page collprof(1) from the command's own table
 * (tools/commands.c): the synopsis, the description and, for every
 * subcommand, its synopsis, its one-line summary and its help text as
 * `collprof help <command>` prints them.  So the page and the help cannot
 * disagree.  Run by the build.
 *
 * usage: gen_man VERSION OUTPUT
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "roff.h"

static const char *const examples[] = {
    "collprof summary collprof.local.20261124\\-101500",
    "collprof matrix DIR \\-\\-comm 0 \\-\\-collective alltoallv \\-\\-call 5 \\-\\-format csv",
    "collprof check DIR",
    "collprof timings DIR",
    "collprof report DIR \\-o report.html",
    "collprof help matrix",
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_man VERSION OUTPUT\n");
        return 2;
    }
    FILE *out = roff_page(argv[2], "COLLPROF", "collprof", "gen_man.c from the command's own help",
                          argv[1], "read, check and report collprof profiles of MPI collectives");
    if (!out)
        return 1;
    fputs(".SH SYNOPSIS\n.B collprof\n.I command\n.RI [ arguments ]\n.br\n.B collprof\n"
          "\\-\\-help | \\-\\-version |\n.B help\n.I command\n.SH DESCRIPTION\n",
          out);
    roff_text(out, cli_description);
    fputs(".PP\nThe profiles are written by the collprof library (libcollprof.so, preloaded\n"
          "into an MPI application or linked with it), see\n.BR collprof (3)\n"
          "and\n.BR collprof\\-config (7).\n.SH COMMANDS\n",
          out);
    for (size_t i = 0; i < cli_ncommands; i++) {
        const cli_command *c = &cli_commands[i];
        fputs(".SS ", out);
        roff_text(out, c->name);
        fputs("\n.B collprof ", out);
        roff_text(out, c->synopsis);
        fputs("\n.PP\n", out);
        roff_text(out, c->brief);
        fputs("\n", out);
        if (c->help && c->help[0]) {
            fputs(".PP\n.nf\n", out);
            roff_text(out, c->help);
            fputs(".fi\n", out);
        }
    }
    fputs(".SH EXIT STATUS\n", out);
    roff_text(out, cli_exit_status);
    fputs(".SH EXAMPLES\n.nf\n", out);
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
        fprintf(out, "%s\n", examples[i]);
    fputs(".fi\n.SH SEE ALSO\n.BR collprof (3),\n.BR collprof\\-config (7),\n"
          ".BR mpiexec (1);\nthe documentation installed in share/doc/collprof.\n",
          out);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
