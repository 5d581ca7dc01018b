/*
 * The profiler's own messages on stderr, prefixed "collprof: ".  A failure
 * of the profiler is reported once and the application carries on.
 */
#ifndef COLLPROF_LOG_H
#define COLLPROF_LOG_H

#include <stdbool.h>

void cp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print only the first time `*once` is false, then set it. */
void cp_log_once(bool *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
