/*
 * Helpers shared by the fuzz targets (fuzz_common.h).
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[4096];
static char tmp_path[8192];

/* Files of a round trip never outlive the process: remove the directory at
 * normal exit (libFuzzer exits normally after -runs / -max_total_time). */
static void remove_tmp_dir(void)
{
    if (!tmp_dir[0])
        return;
    DIR *d = opendir(tmp_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(tmp_path, sizeof tmp_path, "%s/%s", tmp_dir, e->d_name);
            unlink(tmp_path);
        }
        closedir(d);
    }
    rmdir(tmp_dir);
    tmp_dir[0] = '\0';
}

const char *fuzz_tmp_path(const char *name)
{
    if (!tmp_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/collprof-fuzz-XXXXXX",
                 base && *base ? base : P_tmpdir);
        if (!mkdtemp(tmp_dir)) {
            /* Not the parser's fault: say so plainly instead of letting a
             * failed round trip look like a bug. */
            perror("collprof fuzz: cannot create a temporary directory (set TMPDIR)");
            exit(2);
        }
        atexit(remove_tmp_dir);
    }
    snprintf(tmp_path, sizeof tmp_path, "%s/%s", tmp_dir, name);
    return tmp_path;
}

void fuzz_tmp_remove(const char *name)
{
    unlink(fuzz_tmp_path(name));
}

int fuzz_error_names_line(const cp_error *err, const char *name)
{
    size_t n = strlen(name);
    const char *m = err->msg;
    if (strncmp(m, name, n) != 0 || m[n] != ':')
        return 0;
    m += n + 1;
    if (*m < '0' || *m > '9')
        return 0;
    while (*m >= '0' && *m <= '9')
        m++;
    return *m == ':';
}

int fuzz_is_normal_set(const cp_ranges *r)
{
    if (r->n == 0 || !r->v)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].lo < 0 || r->v[i].lo > r->v[i].hi)
            return 0;
        /* lo - 1 cannot overflow: lo >= 0 */
        if (i > 0 && r->v[i].lo - 1 <= r->v[i - 1].hi)
            return 0;
    }
    return 1;
}
