/*
 * Where the tests find count files in the other tools' dialect.
 *
 * The project's own fixtures (tests/data/dialect/, written for collprof's
 * tests) are always there: CP_DIALECT_DIR names them.  The other tool's real
 * files live outside the project, beside the checkout (CP_TESTDATA_DIR, its
 * collective_profiler/ folder): a test program run with --other-tools checks
 * only those, and skips (exit code 77, as meson and automake read it) when
 * they are absent, as in a user's clone.
 */
#ifndef COLLPROF_TEST_DIALECT_DATA_H
#define COLLPROF_TEST_DIALECT_DATA_H

#include <stdbool.h>

/* CP_DIALECT_DIR/<name> (the project's fixtures); a static buffer. */
const char *dialect_path(const char *name);
/* CP_TESTDATA_DIR/collective_profiler/<name> (the other tool's files). */
const char *other_tools_path(const char *name);

/* Was the program run with --other-tools?  If so and the other tool's files
 * are absent, says so on stdout and exits 77 (skipped). */
bool other_tools_mode(int argc, char **argv);

#endif
