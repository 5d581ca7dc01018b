/*
 * collprof check DIR: validate every file and their cross-consistency.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int run(const cli_command *self, int argc, char **argv)
{
    cp_profile p;
    int rc = cli_load_dir_arg(self, argc, argv, &p);
    if (rc != CLI_OK)
        return rc;
    long problems = cp_profile_check(&p, stdout);
    if (problems) {
        printf("%ld problem%s\n", problems, problems == 1 ? "" : "s");
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    size_t nblocks = 0;
    int64_t ncalls = 0;
    for (size_t i = 0; i < p.nfiles; i++)
        nblocks += p.files[i].nblocks;
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    if (cli_summarize(&p, &rows, &nrows) != CLI_OK) {
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    for (size_t i = 0; i < nrows; i++)
        ncalls += rows[i].calls;
    size_t nfiles = p.nfiles + (p.has_manifest ? 1 : 0);
    printf("OK: %zu file%s, %zu block%s, %" PRId64 " call%s checked\n", nfiles,
           nfiles == 1 ? "" : "s", nblocks, nblocks == 1 ? "" : "s", ncalls,
           ncalls == 1 ? "" : "s");
    free(rows);
    cp_profile_free(&p);
    return CLI_OK;
}

const cli_command cli_cmd_check = {
    .name = "check",
    .synopsis = "check DIR",
    .brief = "validate every file and their cross-consistency",
    .help =
        "Checks that every file parses; that the rows of each block name distinct\n"
        "ranks; that the blocks of a communicator and collective share out its calls\n"
        "exactly (files of collprof); that manifest.json's communicator table agrees\n"
        "with the count files and that every file it lists exists; and that for every\n"
        "call the send matrix is the transpose of the receive matrix, in bytes.\n"
        "\n"
        "Prints one line per problem and then 'N problems' (exit 1), or\n"
        "'OK: N files, B blocks, C calls checked' (exit 0).  C counts the distinct\n"
        "(communicator, collective, call index) recorded.\n",
    .run = run,
};
