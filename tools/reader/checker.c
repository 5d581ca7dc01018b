/* The checker's problem lines (check_internal.h), which every part of
 * cp_profile_check prints through. */
#include <stdarg.h>
#include <stdio.h>

#include "check_internal.h"

void cp_check_problem(checker *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (c->out) {
        vfprintf(c->out, fmt, ap);
        fputc('\n', c->out);
    }
    va_end(ap);
    c->problems++;
}
