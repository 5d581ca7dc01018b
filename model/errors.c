/*
 * cp_error: the one way every writer and parser reports failure, a complete
 * message that the caller prints as it is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "collprof/profile.h"

int cp_error_set(cp_error *err, const char *fmt, ...)
{
    if (err) {
        /* Format into a copy first, so that err->msg may itself be an
         * argument: cp_error_set(err, "%s: %s", path, err->msg). */
        char tmp[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tmp, sizeof tmp, fmt, ap);
        va_end(ap);
        memcpy(err->msg, tmp, sizeof tmp);
    }
    return -1;
}

int cp_error_item(cp_error *err, const char *where, const char *item, size_t index,
                  const char *name, size_t name_max, const char *fmt, va_list ap)
{
    char why[512];
    vsnprintf(why, sizeof why, fmt, ap);
    return cp_error_set(err, "%s: %s %zu (%.*s): %s", where, item, index, (int)name_max, name,
                        why);
}
