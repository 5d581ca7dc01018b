#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compact.h"
#include "textio.h"
#include "file_names.h"

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
    /* Slurm's steps of one job are apart: "<job>.<step>", as Slurm writes
     * them (sacct, scancel).  Other batch systems run one step a job. */
    const char *step = getenv("SLURM_STEP_ID");
    if (step && *step && job == getenv("SLURM_JOB_ID"))
        snprintf(out, len, "%s.%s", job, step);
    else
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

/* Can files be created in it?  A directory of our own may still be
 * read-only (mode, or a read-only mount): one message then, not one per
 * file. */
static int check_writable(const char *path, cp_error *err)
{
    char probe[4200], tmp[4300];
    snprintf(probe, sizeof probe, "%s/.collprof-probe", path);
    int fd = cp_create_temporary(probe, tmp, sizeof tmp);
    if (fd < 0)
        return cp_error_set(err, "cannot write into output directory %s: %s", path,
                            strerror(errno));
    close(fd);
    unlink(tmp);
    return 0;
}

int cp_outdir_precheck(const cp_config *cfg, cp_error *err)
{
    if (!cfg->output_dir[0]) {
        if (access(".", W_OK | X_OK) != 0)
            return cp_error_set(err, "the working directory cannot be written (%s): the "
                                     "default output directory cannot be made there; set "
                                     "COLLPROF_OUTPUT_DIR",
                                strerror(errno));
        return 0;
    }
    char path[4096];
    if (snprintf(path, sizeof path, "%s", cfg->output_dir) >= (int)sizeof path)
        return cp_error_set(err, "output directory name too long: %s", cfg->output_dir);
    struct stat st;
    if (stat(path, &st) == 0)
        return cp_outdir_check(path, true, err) ? -1 : check_writable(path, err);
    /* Not there yet: the nearest ancestor that is must be a directory we
     * may create in. */
    for (;;) {
        char *slash = strrchr(path, '/');
        while (slash && slash > path && slash[1] == '\0') { /* trailing slashes */
            *slash = '\0';
            slash = strrchr(path, '/');
        }
        if (!slash) {
            snprintf(path, sizeof path, ".");
        } else if (slash == path) {
            path[1] = '\0';
        } else {
            *slash = '\0';
        }
        if (stat(path, &st) == 0)
            break;
        if (errno != ENOENT || !strcmp(path, ".") || !strcmp(path, "/"))
            return cp_error_set(err, "cannot create directory %s: %s", cfg->output_dir,
                                strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return cp_error_set(err, "cannot create directory %s: %s is not a directory",
                            cfg->output_dir, path);
    if (access(path, W_OK | X_OK) != 0)
        return cp_error_set(err, "cannot create directory %s: %s: %s", cfg->output_dir, path,
                            strerror(errno));
    return 0;
}

int cp_outdir_make(const char *path, bool link_ok, cp_error *err)
{
    if (cp_mkdirs(path, err) || cp_outdir_check(path, link_ok, err))
        return -1;
    return check_writable(path, err);
}

/* A name collprof writes in an output directory, or a leftover of writing
 * one (".part", ".tmp.<pid>.<random>"); never another tool's files. */
static bool ours(const char *name)
{
    static const char *const fixed[] = {CP_FILE_MANIFEST, CP_FILE_MANIFEST ".gz", CP_FILE_CUBE,
                                        CP_FILE_STAT, CP_FILE_TIMINGS};
    char base[256];
    const char *tmp = strstr(name, ".tmp.");
    size_t n = tmp ? (size_t)(tmp - name) : strlen(name);
    if (n >= 5 && !strncmp(name + n - 5, ".part", 5))
        n -= 5;
    if (n >= sizeof base)
        return false;
    memcpy(base, name, n);
    base[n] = '\0';
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(base, fixed[i]))
            return true;
    int direction;
    int64_t lead;
    return cp_compact_parse_name(base, &direction, &lead) == 0 && !strstr(base, ".job");
}

static bool partial_folder(const char *name)
{
    const char *p = CP_FILE_PARTIAL;
    size_t n = strlen(p);
    if (strncmp(name, p, n) || !name[n])
        return false;
    size_t digits = strspn(name + n, "0123456789");
    return digits && (!name[n + digits] || !strcmp(name + n + digits, CP_PARTIAL_NEXT));
}

/* Remove what is ours in the open directory dfd; with folders, also the
 * partial.rank<R> folders (what is ours in them, then the folder if it is
 * empty).  Links are removed, never followed. */
static void clear_at(int dfd, bool folders)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (ours(e->d_name) && !S_ISDIR(st.st_mode)) {
            unlinkat(dfd, e->d_name, 0);
        } else if (folders && partial_folder(e->d_name)) {
            if (!S_ISDIR(st.st_mode)) {
                unlinkat(dfd, e->d_name, 0);
                continue;
            }
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                clear_at(sub, false);
            unlinkat(dfd, e->d_name, AT_REMOVEDIR); /* fails if something else is left */
        }
    }
    closedir(d);
}

void cp_outdir_clear(const char *path, bool folders)
{
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0)
        clear_at(dfd, folders);
}

void cp_outdir_remove_folder(const char *path)
{
    cp_outdir_clear(path, false);
    rmdir(path); /* fails if something else is left */
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
