#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cp_outdir_job(char *out, size_t len)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"};
    const char *job = "local";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            job = v;
            break;
        }
    }
    snprintf(out, len, "%s", job);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
}

int cp_mkdirs(const char *path, cp_error *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return cp_error_set(err, "output directory name too long: %s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return cp_error_set(err, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return cp_error_set(err, "cannot create directory %s: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) || !S_ISDIR(st.st_mode))
        return cp_error_set(err, "%s exists and is not a directory", buf);
    return 0;
}

int cp_outdir_create(const cp_config *cfg, const char *job, const char *stamp, bool unique,
                     char *out, size_t len, cp_error *err)
{
    if (cfg->output_dir[0]) {
        if (snprintf(out, len, "%s", cfg->output_dir) >= (int)len)
            return cp_error_set(err, "output directory name too long: %s", cfg->output_dir);
        return cp_mkdirs(out, err);
    }
    for (int n = 1; n < 1000; n++) {
        if (n == 1)
            snprintf(out, len, "collprof.%s.%s", job, stamp);
        else
            snprintf(out, len, "collprof.%s.%s-%d", job, stamp, n);
        if (!unique)
            return cp_mkdirs(out, err);
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST)
            return cp_error_set(err, "cannot create directory %s: %s", out, strerror(errno));
    }
    return cp_error_set(err, "cannot find a free directory name like %s", out);
}
