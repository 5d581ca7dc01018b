#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int cp_outdir_check(const char *path, bool link_ok, cp_error *err)
{
    struct stat st;
    if ((link_ok ? stat(path, &st) : lstat(path, &st)) != 0)
        return cp_error_set(err, "cannot use directory %s: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return cp_error_set(err, "%s is a symbolic link: collprof does not write through links "
                                 "inside its output directory", path);
    if (!S_ISDIR(st.st_mode))
        return cp_error_set(err, "%s exists and is not a directory", path);
    if (st.st_uid != geteuid())
        return cp_error_set(err, "output directory %s belongs to another user (uid %ld): "
                                 "collprof writes only into its own user's directories; "
                                 "choose another COLLPROF_OUTPUT_DIR",
                            path, (long)st.st_uid);
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return cp_error_set(err, "output directory %s is writable by every user (mode %04o): "
                                 "another user could plant files or links in it; "
                                 "choose another COLLPROF_OUTPUT_DIR or remove that permission",
                            path, (unsigned)(st.st_mode & 07777));
    return 0;
}

int cp_outdir_make(const char *path, bool link_ok, cp_error *err)
{
    return cp_mkdirs(path, err) ? -1 : cp_outdir_check(path, link_ok, err);
}

int cp_outdir_create(const cp_config *cfg, const char *job, const char *stamp, bool unique,
                     char *out, size_t len, cp_error *err)
{
    if (cfg->output_dir[0]) {
        if (snprintf(out, len, "%s", cfg->output_dir) >= (int)len)
            return cp_error_set(err, "output directory name too long: %s", cfg->output_dir);
        return cp_outdir_make(out, true, err);
    }
    for (int n = 1; n < 1000; n++) {
        if (n == 1)
            snprintf(out, len, "collprof.%s.%s", job, stamp);
        else
            snprintf(out, len, "collprof.%s.%s-%d", job, stamp, n);
        if (!unique)
            return cp_outdir_make(out, false, err);
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST)
            return cp_error_set(err, "cannot create directory %s: %s", out, strerror(errno));
    }
    return cp_error_set(err, "cannot find a free directory name like %s", out);
}
