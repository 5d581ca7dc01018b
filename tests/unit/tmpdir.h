/*
 * The temporary directory of a unit test (and of tests/report): one fresh
 * directory under $TMPDIR (the system's P_tmpdir when TMPDIR is unset or
 * empty), named after the test program, removed with everything in it.
 * The one copy of what each test file used to do for itself.
 *
 * A test calls tmpdir_make() and tmpdir_remove() itself, or registers them
 * around every test of a case:
 *     tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
 * Failures (no directory, not removed) fail the running test.
 */
#ifndef COLLPROF_TEST_TMPDIR_H
#define COLLPROF_TEST_TMPDIR_H

/* The path of the directory tmpdir_make made; "" when there is none.
 * 256 bytes: the tests build their file names in buffers sized for it. */
extern char tmpdir[256];

/* Make "$TMPDIR/cp-<program>-XXXXXX" and put its path into tmpdir. */
void tmpdir_make(void);
/* Remove tmpdir and everything below it (links are not followed), then
 * forget it.  Nothing to do when there is none. */
void tmpdir_remove(void);
/* Entries of tmpdir other than . and .. (a writer that failed must leave
 * no file behind). */
int tmpdir_entries(void);
/* Entries of tmpdir whose name starts with prefix. */
int tmpdir_entries_like(const char *prefix);

#endif
