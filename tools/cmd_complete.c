/*
 * collprof complete DIR: add to profile.cubex what finalize does not look
 * up - the source lines of the user regions and of the MPI call sites - as
 * Scalasca post-processes its reports (cp_profile_complete_cube).
 */
#include <stdio.h>

#include "cli.h"
#include "file_names.h"

int cli_complete_read(cp_profile *p)
{
    int rc = CLI_OK;
    cp_complete_stats st;
    cp_error err;
    if (cp_profile_complete_cube(p, &st, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        rc = CLI_BAD_INPUT;
    } else {
        printf("%s/" CP_FILE_CUBE ": source lines of %zu of %zu user regions, file and line of %zu "
               "of %zu MPI call sites\n",
               p->dir, st.regions_done, st.regions, st.callsites_done, st.callsites);
        if (cp_profile_partial_stat(p))
            printf("%s/" CP_FILE_STAT ": the wait states of the partial profiles, found in their "
                   "timed calls\n", p->dir);
        if (st.changed)
            printf("%s: %zu regions and call sites left without lines: their module was rebuilt "
                   "since the run (its build-id is not the one " CP_FILE_MANIFEST " recorded)\n", p->dir,
                   st.changed);
    }
    return rc;
}
