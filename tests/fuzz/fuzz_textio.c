/*
 * Fuzz target: the line reader under every text parser (writers/textio.c),
 * over memory and over a file, plain or gzip (zlib detects which).
 *
 * Properties: every line is NUL-terminated with neither '\n' nor NUL inside;
 * a read error is sticky; cp_in_slurp returns exactly what cp_in_getline has
 * not returned yet; a plain file reads exactly like the same bytes in memory
 * (same lines, same count).  Inputs that start like gzip (0x1f) are only read
 * from the file: a corrupt or truncated stream must be an error, not a
 * crash.  Some inputs are repeated past the 64 KiB read buffer (below).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz_common.h"
#include "textio.h"

#define INPUT_NAME "fuzz-lines"

/* Read every line of in; returns the number read (or -1 after an error).
 * When ref is non-NULL, every line must equal the next one read from ref. */
static long read_lines(cp_in *in, cp_in *ref)
{
    long n = 0;
    for (;;) {
        char *line, *ref_line = NULL;
        size_t len, ref_len = 0;
        cp_error err = {{0}};
        int r = cp_in_getline(in, &line, &len, &err);
        int rr = ref ? cp_in_getline(ref, &ref_line, &ref_len, &err) : r;
        FUZZ_CHECK(r == rr, "file and memory differ at line %ld: %d vs %d", n + 1, r, rr);
        if (r < 0) {
            FUZZ_CHECK(err.msg[0], "read error without a message");
            /* Sticky: the same error again. */
            FUZZ_CHECK(cp_in_getline(in, &line, &len, &err) < 0, "error not sticky");
            return -1;
        }
        if (r == 0)
            return n;
        n++;
        FUZZ_CHECK(line[len] == '\0', "line %ld not NUL-terminated", n);
        FUZZ_CHECK(!memchr(line, '\n', len) && !memchr(line, '\0', len),
                   "line %ld holds a newline or a NUL", n);
        FUZZ_CHECK(cp_in_lineno(in) == n, "line number %ld, expected %ld", cp_in_lineno(in), n);
        if (ref)
            FUZZ_CHECK(ref_len == len && memcmp(ref_line, line, len) == 0,
                       "file and memory give another line %ld", n);
    }
}

/* After the first line, cp_in_slurp returns the rest of the bytes. */
static void check_slurp(const uint8_t *data, size_t size)
{
    cp_in *in = cp_in_open_mem(data, size, INPUT_NAME);
    FUZZ_CHECK(in, "out of memory");
    char *line, *rest;
    size_t len, rest_len;
    cp_error err = {{0}};
    int r = cp_in_getline(in, &line, &len, &err);
    size_t used = 0;
    if (r > 0) {
        const uint8_t *nl = memchr(data, '\n', size);
        used = nl ? (size_t)(nl - data) + 1 : size;
    }
    if (r >= 0) {
        FUZZ_CHECK(cp_in_slurp(in, &rest, &rest_len, &err) == 0, "slurp failed: %s", err.msg);
        FUZZ_CHECK(rest_len == size - used && memcmp(rest, data + used, rest_len) == 0,
                   "slurp returned %zu bytes, expected the %zu after the first line", rest_len,
                   size - used);
        FUZZ_CHECK(rest[rest_len] == '\0', "slurp without a final NUL");
        free(rest);
    }
    cp_in_close(in);
}

/* The file's content: the input itself, or for one input in sixteen the
 * input repeated past the reader's 64 KiB read buffer, so that lines (and a
 * "\r\n") also cross a buffer boundary, at an offset that varies with the
 * input's length.  *owned is set when the buffer must be freed. */
static const uint8_t *file_content(const uint8_t *data, size_t size, size_t *len, bool *owned)
{
    *owned = false;
    *len = size;
    if (size == 0 || size % 16 != 1)
        return data;
    size_t copies = (70 * 1024) / size + 1;
    uint8_t *buf = malloc(copies * size);
    FUZZ_CHECK(buf, "out of memory");
    for (size_t i = 0; i < copies; i++)
        memcpy(buf + i * size, data, size);
    *owned = true;
    *len = copies * size;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t input_size)
{
    size_t size;
    bool owned;
    const uint8_t *data = file_content(input, input_size, &size, &owned);
    bool gz_like = size > 0 && data[0] == 0x1f;

    /* From memory. */
    cp_in *mem = cp_in_open_mem(data, size, INPUT_NAME);
    FUZZ_CHECK(mem, "out of memory");
    long mem_lines = read_lines(mem, NULL);
    cp_in_close(mem);
    check_slurp(data, size);

    /* From a file: the same lines (plain), or any outcome but a crash (gzip). */
    const char *path = fuzz_tmp_path("lines.txt");
    FILE *fp = fopen(path, "wb");
    FUZZ_CHECK(fp, "cannot write a temporary file");
    FUZZ_CHECK(fwrite(data, 1, size, fp) == size && fclose(fp) == 0,
               "cannot write a temporary file");
    cp_error err = {{0}};
    cp_in *file = cp_in_open(fuzz_tmp_path("lines.txt"), &err);
    FUZZ_CHECK(file, "cannot open the temporary file: %s", err.msg);
    mem = gz_like ? NULL : cp_in_open_mem(data, size, INPUT_NAME);
    long file_lines = read_lines(file, mem);
    if (!gz_like)
        FUZZ_CHECK(file_lines == mem_lines, "%ld lines from the file, %ld from memory",
                   file_lines, mem_lines);
    cp_in_close(mem);
    cp_in_close(file);

    /* The whole file at once. */
    file = cp_in_open(fuzz_tmp_path("lines.txt"), &err);
    FUZZ_CHECK(file, "cannot open the temporary file: %s", err.msg);
    char *all;
    size_t all_len;
    if (cp_in_slurp(file, &all, &all_len, &err) == 0) {
        FUZZ_CHECK(all[all_len] == '\0', "slurp without a final NUL");
        if (!gz_like)
            FUZZ_CHECK(all_len == size && memcmp(all, data, size) == 0,
                       "slurp of a plain file differs from its bytes");
        free(all);
    } else {
        FUZZ_CHECK(gz_like, "slurp of a plain file fails: %s", err.msg);
    }
    cp_in_close(file);
    fuzz_tmp_remove("lines.txt");
    if (owned)
        free((void *)data);
    return 0;
}
