/*
 * A full file system for one file, for the tests: preloaded before
 * libcollprof, it makes every write to a file named $CPT_FAIL_FILE (its base
 * name, e.g. "timings.cpt" or "send-counters.rank0.txt") or to one of the
 * names collprof writes it under first (that name, then ".part" and/or
 * ".tmp.<pid>.<8 hex digits>") fail with ENOSPC,
 * whichever way it is written: write/pwrite (zlib, MPI-IO) or stdio
 * (fwrite, fflush).  Opening and creating such a file succeed, as on a full
 * disk.
 */
/* The real names: not open64 for open, as _FILE_OFFSET_BITS=64 would make
 * them. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAXFD 4096
static bool doomed[MAXFD];

/* s is "" or ".tmp.<pid>.<8 hex digits>" */
static bool temporary_or_nothing(const char *s)
{
    if (!*s)
        return true;
    if (strncmp(s, ".tmp.", 5) != 0)
        return false;
    s += 5;
    size_t digits = strspn(s, "0123456789");
    if (!digits || s[digits] != '.')
        return false;
    s += digits + 1;
    return strspn(s, "0123456789abcdef") == 8 && !s[8];
}

static bool matches(const char *path)
{
    const char *want = getenv("CPT_FAIL_FILE");
    if (!want || !*want || !path)
        return false;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(want);
    if (strncmp(base, want, n) != 0)
        return false;
    /* not the MPI library's own files named after it (Open MPI's shared
     * file pointer's) */
    const char *rest = base + n;
    if (!strncmp(rest, ".part", 5))
        rest += 5;
    return temporary_or_nothing(rest);
}

static int track(int fd, const char *path)
{
    if (fd >= 0 && fd < MAXFD)
        doomed[fd] = matches(path);
    return fd;
}

static bool is_doomed(int fd)
{
    return fd >= 0 && fd < MAXFD && doomed[fd];
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return track(NEXT(open)(path, flags, m), path);
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return track(NEXT(open64)(path, flags, m), path);
}

EXPORT int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return track(NEXT(openat)(dir, path, flags, m), path);
}

EXPORT int close(int fd)
{
    if (fd >= 0 && fd < MAXFD)
        doomed[fd] = false;
    return NEXT(close)(fd);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    if (is_doomed(fd) && n > 0) {
        errno = ENOSPC;
        return -1;
    }
    return NEXT(write)(fd, buf, n);
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (is_doomed(fd) && n > 0) {
        errno = ENOSPC;
        return -1;
    }
    return NEXT(pwrite)(fd, buf, n, off);
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    if (is_doomed(fd) && n > 0) {
        errno = ENOSPC;
        return -1;
    }
    return NEXT(pwrite64)(fd, buf, n, off);
}

EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (is_doomed(fileno(f)) && size * n > 0) {
        errno = ENOSPC;
        return 0;
    }
    return NEXT(fwrite)(p, size, n, f);
}

EXPORT int fflush(FILE *f)
{
    if (f && is_doomed(fileno(f))) {
        errno = ENOSPC;
        return EOF;
    }
    return NEXT(fflush)(f);
}
