/*
 * A test program's failed checks: each said on stderr after the program's
 * name (TEST_NAME, defined before this header is included), and counted in
 * nerrors, which the program's exit status follows.
 */
#ifndef CPT_FAIL_H
#define CPT_FAIL_H

#include <stdio.h>

static int nerrors;

#define FAIL(...)                                                                                 \
    do {                                                                                          \
        fprintf(stderr, TEST_NAME ": " __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                                      \
        nerrors++;                                                                                \
    } while (0)

#endif
