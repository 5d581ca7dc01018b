/* Where the dialect files are (see dialect_data.h). */
#include "dialect_data.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *env_dir(const char *var)
{
    const char *d = getenv(var);
    if (!d || !*d)
        ck_abort_msg("%s is not set (run the tests through meson test)", var);
    return d;
}

const char *dialect_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", env_dir("CP_DIALECT_DIR"), name);
    return path;
}

const char *other_tools_path(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/collective_profiler/%s", env_dir("CP_TESTDATA_DIR"), name);
    return path;
}

bool other_tools_mode(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--other-tools") != 0)
        return false;
    const char *d = getenv("CP_TESTDATA_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/collective_profiler", d ? d : "");
    struct stat st;
    if (!d || !*d || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: the other tool's count files are not here (%s)\n", path);
        exit(77);
    }
    return true;
}
