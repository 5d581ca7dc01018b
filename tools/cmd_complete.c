/*
 * collprof complete DIR: add to profile.cubex what finalize does not look
 * up - the source lines of the user regions and of the MPI call sites - as
 * Scalasca post-processes its reports (cp_profile_complete_cube).
 */
#include <stdio.h>

#include "cli.h"

static int read_profile(cp_profile *p)
{
    int rc = CLI_OK;
    cp_complete_stats st;
    cp_error err;
    if (cp_profile_complete_cube(p, &st, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        rc = CLI_BAD_INPUT;
    } else {
        printf("%s/profile.cubex: source lines of %zu of %zu user regions, file and line of %zu "
               "of %zu MPI call sites\n",
               p->dir, st.regions_done, st.regions, st.callsites_done, st.callsites);
        if (st.changed)
            printf("%s: %zu regions and call sites left without lines: their module was rebuilt "
                   "since the run (its build-id is not the one manifest.json recorded)\n", p->dir,
                   st.changed);
    }
    return rc;
}

const cli_command cli_cmd_complete = {
    .name = "complete",
    .synopsis = "complete DIR",
    .brief = "add source lines to profile.cubex: user regions, MPI call sites",
    .help =
        "DIR is a collprof output directory of a run with call paths.  Finalize\n"
        "records each frame as (module, function, address) and leaves the source\n"
        "alone: looking it up means running tools on every rank inside the job.\n"
        "This command does it afterwards, as Scalasca post-processes its reports,\n"
        "and writes profile.cubex back (atomically):\n"
        "  - each user region (a function of the call tree) gets its source file\n"
        "    and its first and last line (nm and addr2line on the module);\n"
        "  - each MPI call site (a collective's node under the function that\n"
        "    called it) gets the file and line of the call, as `collprof callsites`\n"
        "    shows it.\n"
        "Regions that already have lines are kept; running it again changes\n"
        "nothing.  Without the modules (moved, deleted) or their debug information\n"
        "the lines stay unknown; the counts say how many were found.\n",
    .read = read_profile,
};
