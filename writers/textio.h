/*
 * Text input and output for the formats: plain or gzip (zlib), written to a
 * temporary name and renamed on success so that a reader never sees half a
 * file; read line by line with line numbers for error messages.  Reading is
 * transparent: gzip and plain files are both accepted.
 */
#ifndef COLLPROF_TEXTIO_H
#define COLLPROF_TEXTIO_H

#include <stdbool.h>
#include <stddef.h>
#include "collprof/profile.h"

typedef struct cp_out cp_out;

/* Open `path` for writing ("path" plus ".gz" is NOT added here: the caller
 * names the file).  Data goes to a temporary file beside it. */
cp_out *cp_out_open(const char *path, bool gzip, cp_error *err);
int cp_out_write(cp_out *o, const void *data, size_t len);
int cp_out_printf(cp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flush, close and rename into place.  Returns 0, or -1 with err set (the
 * temporary file is removed).  Frees o in every case. */
int cp_out_commit(cp_out *o, cp_error *err);
/* Close and remove the temporary file.  Frees o. */
void cp_out_abort(cp_out *o);

typedef struct cp_in cp_in;

cp_in *cp_in_open(const char *path, cp_error *err);
/* Read from memory (fuzzing, tests); `name` is used in messages. */
cp_in *cp_in_open_mem(const void *data, size_t len, const char *name);
/* Next line without its '\n' (and without a '\r' before it).  Returns 1 with
 * *line set (valid until the next call), 0 at end of input, -1 on a read
 * error or a NUL byte inside a line (err set).  Lines may be any length. */
int cp_in_getline(cp_in *in, char **line, size_t *len, cp_error *err);
/* Number of the line last returned (1-based) and the name of the input. */
long cp_in_lineno(const cp_in *in);
const char *cp_in_name(const cp_in *in);
/* Read the whole input (binary or text) into a malloc'ed buffer. */
int cp_in_slurp(cp_in *in, char **data, size_t *len, cp_error *err);
void cp_in_close(cp_in *in);

#endif
