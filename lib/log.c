#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static void vlog(const char *fmt, va_list ap)
{
    int saved = errno;
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "collprof: %s\n", line);
    errno = saved;
}

void cp_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void cp_log_once(bool *once, const char *fmt, ...)
{
    if (*once)
        return;
    *once = true;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}
