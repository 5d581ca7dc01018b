/*
 * tmpdir.h: a test's temporary directory.  nftw removes it depth first
 * (files, then their directory), without a shell and without following
 * links out of it.
 */
#include "tmpdir.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char tmpdir[256];

void tmpdir_make(void)
{
    const char *base = getenv("TMPDIR");
    int n = snprintf(tmpdir, sizeof tmpdir, "%s/cp-%s-XXXXXX", base && *base ? base : P_tmpdir,
                     program_invocation_short_name);
    ck_assert_msg(n > 0 && (size_t)n < sizeof tmpdir, "TMPDIR is too long for the tests: %s",
                  base);
    ck_assert_msg(mkdtemp(tmpdir) != NULL, "cannot create %s: %s", tmpdir, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    /* FTW_DNR: a directory we may not read, still removable when empty */
    bool is_dir = type == FTW_DP || type == FTW_DNR;
    return (is_dir ? rmdir(path) : unlink(path)) == 0 ? 0 : -1;
}

void tmpdir_remove(void)
{
    if (!tmpdir[0])
        return;
    int rc = nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    ck_assert_msg(rc == 0, "cannot remove %s: %s", tmpdir, strerror(errno));
    tmpdir[0] = '\0';
}

int tmpdir_entries_like(const char *prefix)
{
    DIR *d = opendir(tmpdir);
    ck_assert_msg(d != NULL, "cannot read %s: %s", tmpdir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

int tmpdir_entries(void)
{
    return tmpdir_entries_like("");
}
