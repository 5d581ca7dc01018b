/*
 * collprof check DIR: validate every file and their cross-consistency.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "file_names.h"

/* The files of a timed run in dir (checked by cp_profile_check). */
static size_t timed_files(const char *dir)
{
    static const char *const names[] = {CP_FILE_CUBE, CP_FILE_STAT, CP_FILE_TIMINGS};
    size_t n = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[sizeof ((cp_profile *)0)->dir + 32];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        n += access(path, F_OK) == 0;
    }
    return n;
}

int cli_check_read(cp_profile *p)
{
    long problems = cp_profile_check(p, stdout);
    /* What the profile lost is a problem of its own (cli_load named it). */
    for (size_t i = 0; i < p->ndamaged; i++) {
        if (strcmp(p->damaged[i].value, CP_DAMAGE_ABSENT) == 0)
            continue; /* cp_profile_check said it: "lists X, which is not in the directory" */
        printf("%s: damaged: %s\n", p->damaged[i].key, p->damaged[i].value);
        problems++;
    }
    cli_damaged = false; /* check's own status says it: problems, exit 1 */
    if (problems) {
        printf("%ld problem%s\n", problems, problems == 1 ? "" : "s");
        return CLI_BAD_INPUT;
    }
    size_t nblocks = 0;
    int64_t ncalls = 0;
    for (size_t i = 0; i < p->nfiles; i++)
        nblocks += p->files[i].nblocks;
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    if (cli_summarize(p, &rows, &nrows) != CLI_OK) {
        return CLI_BAD_INPUT;
    }
    for (size_t i = 0; i < nrows; i++)
        ncalls += rows[i].calls;
    size_t nfiles = p->nfiles + (p->has_manifest ? 1 : 0) + timed_files(p->dir);
    printf("OK: %zu file%s, %zu block%s, %" PRId64 " call%s checked\n", nfiles,
           nfiles == 1 ? "" : "s", nblocks, nblocks == 1 ? "" : "s", ncalls,
           ncalls == 1 ? "" : "s");
    /* What was checked lacks the files the run could not write. */
    for (size_t i = 0; p->has_manifest && i < p->manifest.nmissing; i++)
        printf("missing: %s not written: %s\n", p->manifest.missing[i].key,
               p->manifest.missing[i].value);
    /* The run's ranks did not make the same calls (an erroneous program, a
     * call refused on some ranks): the files say what each did. */
    for (size_t i = 0; p->has_manifest && i < p->manifest.ndisagreements; i++)
        printf("disagreement: %s: %s\n", p->manifest.disagreements[i].key,
               p->manifest.disagreements[i].value);
    free(rows);
    return CLI_OK;
}
