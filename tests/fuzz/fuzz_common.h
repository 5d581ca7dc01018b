/*
 * Helpers shared by the libFuzzer targets of tests/fuzz (docs/fuzzing.md).
 *
 * A target checks properties of what a parser accepts (round trips,
 * invariants of the profile model).  A violated property must look like a
 * crash to libFuzzer, so that it saves the input: FUZZ_CHECK prints what
 * failed and aborts.
 */
#ifndef COLLPROF_FUZZ_COMMON_H
#define COLLPROF_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collprof/profile.h"

#define FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: fuzz property violated: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* The entry point every target defines (declared here so that -Wextra's
 * missing-prototypes checks are satisfied in every target). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Full path of `name` inside a directory private to this process, created
 * on first use under $TMPDIR and removed (with what is in it) at exit, for
 * the round trips that go through the writers' files.  The returned string
 * is valid until the next call. */
const char *fuzz_tmp_path(const char *name);
/* Remove a file made in that directory (ignores a missing file). */
void fuzz_tmp_remove(const char *name);

/* Is the error message "<name>:<line>:..." as every parser promises, with
 * the input's name and a line number? */
int fuzz_error_names_line(const cp_error *err, const char *name);

/* Is r a set as cp_ranges_add keeps it: non-empty intervals of
 * non-negative values, sorted, disjoint and not adjacent? */
int fuzz_is_normal_set(const cp_ranges *r);

#endif
