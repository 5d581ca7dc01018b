/*
 * Writes the manual page collprof-replay(1) from the command's own usage
 * text (replay_usage, tools/replay/options.c), so that the two cannot
 * disagree.  Run by the build.
 *
 * usage: gen_replay_man VERSION OUTPUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "roff.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_replay_man VERSION OUTPUT\n");
        return 2;
    }
    char *usage = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&usage, &len);
    if (!mem)
        return 1;
    replay_usage(mem);
    if (fclose(mem) != 0 || strncmp(usage, "usage: ", 7) != 0)
        return 1;
    /* The usage lines, then the description (the first line not indented
     * under them). */
    char *desc = usage + 7;
    for (char *nl; (nl = strchr(desc, '\n')) && nl[1] == ' ';)
        desc = nl + 1;
    desc = strchr(desc, '\n');
    if (!desc)
        return 1;
    *desc++ = '\0';
    FILE *out = roff_page(argv[2], "COLLPROF-REPLAY", "collprof\\-replay",
                          "gen_replay_man.c from its usage text", argv[1],
                          "benchmark an application's own collective patterns");
    if (!out)
        return 1;
    fputs(".SH SYNOPSIS\n.nf\n", out);
    roff_text(out, usage + 7);
    fputs("\n.fi\n.SH DESCRIPTION\n.nf\n", out);
    roff_text(out, desc);
    fputs(".fi\n.SH SEE ALSO\n.BR collprof (1),\n.BR collprof (3),\n.BR mpiexec (1);\n"
          "replay.md in the documentation installed in share/doc/collprof.\n",
          out);
    free(usage);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
