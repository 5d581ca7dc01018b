/*
 * textio: atomic output (temporary name, rename on commit), gzip, and line
 * input from files (plain or gzip) and memory.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "textio.h"
#include "tmpdir.h"

/* ------------------------------------------------------------- helpers */

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static const char *lines[] = {"first line", "", "  spaces and\ttab  ", "# Raw counters",
                              "last line without newline"};
enum { NLINES = sizeof lines / sizeof *lines };

static void write_lines(const char *path, bool gzip)
{
    cp_error err;
    cp_out *o = cp_out_open(path, gzip, &err);
    ck_assert_msg(o != NULL, "%s", err.msg);
    for (int i = 0; i < NLINES; i++) {
        if (i + 1 < NLINES)
            ck_assert_int_eq(cp_out_printf(o, "%s\n", lines[i]), 0);
        else
            ck_assert_int_eq(cp_out_write(o, lines[i], strlen(lines[i])), 0);
    }
    ck_assert_int_eq(cp_out_status(o, &err), 0);
    ck_assert_msg(cp_out_commit(o, &err) == 0, "%s", err.msg);
}

static void read_lines(const char *path)
{
    cp_error err;
    cp_in *in = cp_in_open(path, &err);
    ck_assert_msg(in != NULL, "%s", err.msg);
    ck_assert_str_eq(cp_in_name(in), path);
    char *line;
    size_t len;
    for (int i = 0; i < NLINES; i++) {
        ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
        ck_assert_str_eq(line, lines[i]);
        ck_assert_uint_eq(len, strlen(lines[i]));
        ck_assert_int_eq(cp_in_lineno(in), i + 1);
    }
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
}

/* --------------------------------------------------------------- tests */

START_TEST(plain_round_trip)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/plain.txt", tmpdir);
    write_lines(path, false);
    read_lines(path);
    /* Really plain. */
    FILE *fp = fopen(path, "rb");
    char head[6] = {0};
    ck_assert_uint_eq(fread(head, 1, 5, fp), 5);
    fclose(fp);
    ck_assert_str_eq(head, "first");
    tmpdir_remove();
}
END_TEST

START_TEST(gzip_round_trip)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/gz.txt.gz", tmpdir);
    write_lines(path, true);
    read_lines(path);
    /* Really gzip: magic 1f 8b. */
    FILE *fp = fopen(path, "rb");
    unsigned char head[2];
    ck_assert_uint_eq(fread(head, 1, 2, fp), 2);
    fclose(fp);
    ck_assert_uint_eq(head[0], 0x1f);
    ck_assert_uint_eq(head[1], 0x8b);
    /* Slurp decompresses as well. */
    cp_error err;
    cp_in *in = cp_in_open(path, &err);
    char *data;
    size_t len;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    const char *want = "first line\n\n  spaces and\ttab  \n# Raw counters\nlast line without newline";
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_str_eq(data, want);
    free(data);
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

/* A link planted at the final name is replaced, never written through; the
 * temporary file is created exclusively (a second writer of the same path
 * in the same process gets its own). */
START_TEST(links_are_not_followed)
{
    tmpdir_make();
    char path[8192], victim[8192];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    snprintf(victim, sizeof victim, "%s/victim", tmpdir);
    FILE *v = fopen(victim, "w");
    ck_assert_ptr_nonnull(v);
    fputs("victim\n", v);
    fclose(v);
    ck_assert_int_eq(symlink(victim, path), 0);
    cp_error err;
    cp_out *a = cp_out_open(path, false, &err);
    cp_out *b = cp_out_open(path, false, &err);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(tmpdir_entries(), 4);
    cp_out_printf(a, "a\n");
    cp_out_printf(b, "b\n");
    ck_assert_int_eq(cp_out_commit(a, &err), 0);
    ck_assert_int_eq(cp_out_commit(b, &err), 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    cp_in *in = cp_in_open(victim, &err);
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "victim");
    cp_in_close(in);
    in = cp_in_open(path, &err);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "b");
    cp_in_close(in);
    ck_assert_int_eq(tmpdir_entries(), 2);
    tmpdir_remove();
}
END_TEST

START_TEST(commit_is_atomic)
{
    tmpdir_make();
    char path[8192], tmp[64];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    snprintf(tmp, sizeof tmp, "out.txt.tmp.%ld.", (long)getpid()); /* and a random part */
    cp_error err;
    cp_out *o = cp_out_open(path, false, &err);
    ck_assert_ptr_nonnull(o);
    ck_assert_str_eq(cp_out_path(o), path);
    ck_assert_int_eq(cp_out_printf(o, "hello %d\n", 42), 0);
    /* Before commit: only the temporary file. */
    ck_assert(!exists(path));
    ck_assert_int_eq(tmpdir_entries_like(tmp), 1);
    ck_assert_int_eq(tmpdir_entries(), 1);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    /* After: only the file. */
    ck_assert(exists(path));
    ck_assert_int_eq(tmpdir_entries_like(tmp), 0);
    ck_assert_int_eq(tmpdir_entries(), 1);

    /* Committing over an existing file replaces it. */
    o = cp_out_open(path, false, &err);
    cp_out_printf(o, "second\n");
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    cp_in *in = cp_in_open(path, &err);
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "second");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

START_TEST(abort_leaves_nothing)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/aborted.txt", tmpdir);
    cp_error err;
    cp_out *o = cp_out_open(path, false, &err);
    ck_assert_ptr_nonnull(o);
    cp_out_printf(o, "some data\n");
    cp_out_abort(o);
    ck_assert_int_eq(tmpdir_entries(), 0);

    o = cp_out_open(path, true, &err);
    ck_assert_ptr_nonnull(o);
    cp_out_printf(o, "some data\n");
    cp_out_abort(o);
    ck_assert_int_eq(tmpdir_entries(), 0);
    cp_out_abort(NULL);
    tmpdir_remove();
}
END_TEST

START_TEST(unwritable_directory)
{
    tmpdir_make();
    char path[8192];
    cp_error err;

    /* A directory that does not exist. */
    snprintf(path, sizeof path, "%s/missing/out.txt", tmpdir);
    ck_assert_ptr_null(cp_out_open(path, false, &err));
    ck_assert_msg(strstr(err.msg, path) != NULL, "path not in '%s'", err.msg);
    ck_assert_msg(strstr(err.msg, strerror(ENOENT)) != NULL, "reason not in '%s'", err.msg);

    /* A "directory" that is a regular file. */
    char file[4200];
    snprintf(file, sizeof file, "%s/plain-file", tmpdir);
    FILE *fp = fopen(file, "w");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/out.txt", file);
    ck_assert_ptr_null(cp_out_open(path, false, &err));
    ck_assert_msg(strstr(err.msg, path) != NULL, "path not in '%s'", err.msg);
    ck_assert_msg(strstr(err.msg, strerror(ENOTDIR)) != NULL, "reason not in '%s'", err.msg);

    /* A directory without write permission (root ignores permissions). */
    if (geteuid() != 0) {
        char ro[4200];
        snprintf(ro, sizeof ro, "%s/ro", tmpdir);
        ck_assert_int_eq(mkdir(ro, 0500), 0);
        snprintf(path, sizeof path, "%s/out.txt", ro);
        ck_assert_ptr_null(cp_out_open(path, true, &err));
        ck_assert_msg(strstr(err.msg, path) != NULL, "path not in '%s'", err.msg);
        ck_assert_msg(strstr(err.msg, strerror(EACCES)) != NULL, "reason not in '%s'", err.msg);
        rmdir(ro);
    }
    /* Commit of a NULL output reports, does not crash. */
    ck_assert_int_eq(cp_out_commit(NULL, &err), -1);
    tmpdir_remove();
}
END_TEST

/* A write error (here EFBIG from a file size limit, as ENOSPC would be)
 * is remembered, reported with the path, and no file is left behind. */
static void write_error(bool gzip)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/big.txt", tmpdir);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 4096;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);

    /* No assertion until the limit is restored (a failed assertion would
     * leave it in place for the next tests). */
    cp_error err;
    cp_out *o = cp_out_open(path, gzip, &err);
    /* Incompressible-ish data so that gzip output exceeds the limit too. */
    char buf[1024];
    unsigned x = 12345;
    for (int i = 0; i < 1000; i++) {
        for (size_t j = 0; j < sizeof buf; j++) {
            x = x * 1103515245u + 12345u;
            buf[j] = (char)(x >> 16);
        }
        cp_out_write(o, buf, sizeof buf);
    }
    cp_error status_err;
    int status = cp_out_status(o, &status_err);
    int commit = cp_out_commit(o, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    ck_assert_int_eq(status, -1);
    ck_assert_int_eq(commit, -1);
    ck_assert_str_eq(status_err.msg, err.msg);
    ck_assert_msg(strstr(err.msg, path) != NULL, "path not in '%s'", err.msg);
    ck_assert_msg(strstr(err.msg, strerror(EFBIG)) != NULL, "reason not in '%s'", err.msg);
    ck_assert_int_eq(tmpdir_entries(), 0);
    tmpdir_remove();
}

START_TEST(write_error_plain)
{
    write_error(false);
}
END_TEST

START_TEST(write_error_gzip)
{
    write_error(true);
}
END_TEST

START_TEST(open_errors)
{
    cp_error err;
    ck_assert_ptr_null(cp_in_open("no-such-tmpdir/no-such-file.txt", &err));
    ck_assert_str_eq(err.msg, "no-such-tmpdir/no-such-file.txt: cannot open: No such file or directory");
    tmpdir_make();
    ck_assert_ptr_null(cp_in_open(tmpdir, &err));
    ck_assert_msg(strstr(err.msg, "not a regular file (a directory): refused") != NULL, "%s",
                  err.msg);
    /* A FIFO is refused at once: nothing waits for a writer. */
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/send-counters.rank0.txt", tmpdir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_ptr_null(cp_in_open(fifo, &err));
    ck_assert_msg(strstr(err.msg, "not a regular file (a FIFO): refused") != NULL, "%s", err.msg);
    unlink(fifo);
    tmpdir_remove();
}
END_TEST

START_TEST(nul_byte_is_an_error)
{
    const char data[] = "line one\nline two\nbad \0 line\nline four\n";
    cp_in *in = cp_in_open_mem(data, sizeof data - 1, "mem.txt");
    cp_error err;
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), -1);
    ck_assert_str_eq(err.msg, "mem.txt:3: NUL byte inside a line (not a text file?)");
    ck_assert_int_eq(cp_in_lineno(in), 3);
    /* Stays failed. */
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), -1);
    cp_in_close(in);

    /* Same from a file, NUL far beyond the first read buffer. */
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/nul.txt", tmpdir);
    FILE *fp = fopen(path, "wb");
    for (int i = 0; i < 20000; i++)
        fputs("0123456789\n", fp);
    fputs("abc", fp);
    fputc('\0', fp);
    fputs("def\n", fp);
    fclose(fp);
    in = cp_in_open(path, &err);
    int r;
    while ((r = cp_in_getline(in, &line, &len, &err)) == 1)
        ;
    ck_assert_int_eq(r, -1);
    char want[8300];
    snprintf(want, sizeof want, "%s:20001: NUL byte inside a line (not a text file?)", path);
    ck_assert_str_eq(err.msg, want);
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

START_TEST(long_line)
{
    size_t n = 1024 * 1024;
    char *big = malloc(n + 20);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    memcpy(big + n, "\nshort\n", 8);

    /* From memory. */
    cp_in *in = cp_in_open_mem(big, n + 7, "big");
    cp_error err;
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_uint_eq(len, n);
    ck_assert(memcmp(line, big, n) == 0);
    ck_assert_int_eq(line[n], '\0');
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "short");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);

    /* Through a gzip file (many read buffers). */
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/big.gz", tmpdir);
    cp_out *o = cp_out_open(path, true, &err);
    ck_assert_int_eq(cp_out_write(o, big, n + 7), 0);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    in = cp_in_open(path, &err);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_uint_eq(len, n);
    ck_assert(memcmp(line, big, n) == 0);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "short");
    ck_assert_int_eq(cp_in_lineno(in), 2);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
    tmpdir_remove();
    free(big);
}
END_TEST

START_TEST(crlf)
{
    const char data[] = "a\r\nb\r\n\r\nlast\r";
    cp_in *in = cp_in_open_mem(data, sizeof data - 1, "crlf");
    cp_error err;
    char *line;
    size_t len;
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "a");
    ck_assert_uint_eq(len, 1);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "b");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "");
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_str_eq(line, "last");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    ck_assert_int_eq(cp_in_lineno(in), 4);
    cp_in_close(in);
}
END_TEST

START_TEST(memory_input)
{
    cp_error err;
    char *line;
    size_t len;
    /* Empty input: no line at all. */
    cp_in *in = cp_in_open_mem("", 0, NULL);
    ck_assert_str_eq(cp_in_name(in), "<memory>");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
    in = cp_in_open_mem(NULL, 0, "none");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
    /* One newline: one empty line. */
    in = cp_in_open_mem("\n", 1, "nl");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 0);
    cp_in_close(in);
    /* Slurp after a line: the rest. */
    in = cp_in_open_mem("one\ntwo\nthree", 13, "s");
    ck_assert_int_eq(cp_in_getline(in, &line, &len, &err), 1);
    char *data;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    ck_assert_uint_eq(len, 9);
    ck_assert_str_eq(data, "two\nthree");
    free(data);
    cp_in_close(in);
    cp_in_close(NULL);
}
END_TEST

START_TEST(truncated_gzip)
{
    tmpdir_make();
    char path[8192];
    snprintf(path, sizeof path, "%s/t.gz", tmpdir);
    cp_error err;
    cp_out *o = cp_out_open(path, true, &err);
    for (int i = 0; i < 5000; i++)
        cp_out_printf(o, "line %d of a file that will be cut short\n", i);
    ck_assert_int_eq(cp_out_commit(o, &err), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
    cp_in *in = cp_in_open(path, &err);
    char *line;
    size_t len;
    int r;
    long n = 0;
    while ((r = cp_in_getline(in, &line, &len, &err)) == 1)
        n++;
    ck_assert_int_eq(r, -1);
    ck_assert_int_lt(n, 5000);
    ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);
    cp_in_close(in);
    tmpdir_remove();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("textio");
    TCase *tc = tcase_create("textio");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, plain_round_trip);
    tcase_add_test(tc, gzip_round_trip);
    tcase_add_test(tc, commit_is_atomic);
    tcase_add_test(tc, links_are_not_followed);
    tcase_add_test(tc, abort_leaves_nothing);
    tcase_add_test(tc, unwritable_directory);
    tcase_add_test(tc, write_error_plain);
    tcase_add_test(tc, write_error_gzip);
    tcase_add_test(tc, open_errors);
    tcase_add_test(tc, nul_byte_is_an_error);
    tcase_add_test(tc, long_line);
    tcase_add_test(tc, crlf);
    tcase_add_test(tc, memory_input);
    tcase_add_test(tc, truncated_gzip);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
