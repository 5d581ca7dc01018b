/*
 * Text input and output for the formats: plain or gzip (zlib), written to a
 * temporary name and renamed on success so that a reader never sees half a
 * file; read line by line with line numbers for error messages.  Reading is
 * transparent: gzip and plain files are both accepted.
 */
#ifndef COLLPROF_TEXTIO_H
#define COLLPROF_TEXTIO_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include "collprof/profile.h"

typedef struct cp_out cp_out;

/* Create a new, empty file "<path>.tmp.<pid>.<random>" (its name into
 * tmp[size]) exclusively and never through a symbolic link: a name taken
 * by another file or link makes it try another.  Returns the open,
 * write-only descriptor, or -1 with errno set. */
int cp_create_temporary(const char *path, char *tmp, size_t size);

/* Open `path` for writing ("path" plus ".gz" is NOT added here: the caller
 * names the file).  Data goes to a temporary file beside it, made by
 * cp_create_temporary, renamed to path by cp_out_commit.  NULL with err set
 * ("<path>: cannot create temporary file <tmp>: Permission denied") on
 * failure. */
cp_out *cp_out_open(const char *path, bool gzip, cp_error *err);
int cp_out_write(cp_out *o, const void *data, size_t len);
int cp_out_printf(cp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A string as it is, and an integer in decimal: what a row of thousands of
 * the same shape needs, without formatting each time (a manifest after
 * 10,000 communicators spent a tenth of finalize in vsnprintf). */
int cp_out_str(cp_out *o, const char *s);
int cp_out_i64(cp_out *o, int64_t v);
/* Flush, close and rename into place.  Returns 0, or -1 with err set (the
 * temporary file is removed).  Frees o in every case. */
int cp_out_commit(cp_out *o, cp_error *err);
/* Close and remove the temporary file.  Frees o (NULL is allowed). */
void cp_out_abort(cp_out *o);
/* The name the file gets on commit (as given to cp_out_open). */
const char *cp_out_path(const cp_out *o);
/* 0 while every write so far succeeded; otherwise -1 with err set to the
 * first failure, e.g. "out/x.txt: cannot write: No space left on device".
 * cp_out_write and cp_out_printf return -1 from the first failure on and
 * write nothing more; cp_out_commit then fails with that same message. */
int cp_out_status(const cp_out *o, cp_error *err);

/* Decimal text of v without snprintf (the writers print millions of counts):
 * written at the end of buf, returns its start; the length is buf + 24 minus
 * that. */
char *cp_format_i64(char buf[24], int64_t v);

/* Length of the valid UTF-8 sequence at s[0..n) (n >= 1), or 0 when it is
 * not one (overlong forms, surrogates and values above U+10FFFF are
 * invalid).  1 for an ASCII byte. */
size_t cp_utf8_len(const unsigned char *s, size_t n);

typedef struct cp_in cp_in;

/* The size of the regular file at path and its CRC-32 (zlib's): what
 * manifest.json records of each file and the reader holds it against.
 * When the file is larger than max_bytes only its size is read (*crc -1).
 * Returns 0, or -1 with errno set (not there, not a regular file, a read
 * error). */
int cp_file_fingerprint(const char *path, int64_t max_bytes, int64_t *bytes, int64_t *crc);
/* What a file of this mode is, when it is not a regular file ("a FIFO",
 * "a directory", ...); NULL for a regular file. */
const char *cp_file_kind(mode_t mode);
/* Open a plain or gzip file (zlib tells them apart).  NULL with err set. */
cp_in *cp_in_open(const char *path, cp_error *err);
/* Read from memory (fuzzing, tests); `name` is used in messages.  data is
 * not copied and must outlive the cp_in.  NULL only when out of memory. */
cp_in *cp_in_open_mem(const void *data, size_t len, const char *name);
/* Next line without its '\n' (and without a '\r' before it).  Returns 1 with
 * *line set (valid until the next call), 0 at end of input, -1 on a read
 * error or a NUL byte inside a line (err set).  Lines may be any length.
 * *line is NUL-terminated (*len excludes the NUL); the last line needs no
 * '\n'.  A truncated gzip stream is a read error, not an early end. */
int cp_in_getline(cp_in *in, char **line, size_t *len, cp_error *err);
/* Number of the line last returned (1-based) and the name of the input. */
long cp_in_lineno(const cp_in *in);
const char *cp_in_name(const cp_in *in);
/* Read the whole input (binary or text) into a malloc'ed buffer: what has not
 * been returned by cp_in_getline yet.  The buffer holds one extra NUL after
 * the *len bytes.  Returns 0, or -1 with err set. */
int cp_in_slurp(cp_in *in, char **data, size_t *len, cp_error *err);
/* Close and free (NULL is allowed). */
void cp_in_close(cp_in *in);

/* Read the whole file at path (plain or gzip) into a malloc'ed buffer with
 * one extra NUL after the *len bytes: cp_in_open, then cp_in_slurp.
 * Returns 0, or -1 with err set. */
int cp_read_file(const char *path, char **data, size_t *len, cp_error *err);

/* The whole-file forms of every format: open path, hand it to `parse` (with
 * what) or `write` (with what, gzip-compressed when gzip), close; a write
 * is committed, or leaves nothing there.  Returns what parse or write did:
 * 0, or -1 with err set. */
int cp_in_parse_path(const char *path, int (*parse)(cp_in *, void *what, cp_error *), void *what,
                     cp_error *err);
int cp_out_write_path(const char *path, bool gzip,
                      int (*write)(cp_out *, const void *what, cp_error *), const void *what,
                      cp_error *err);

#endif
