/*
 * The one symboliser: where an address of a module is in the source, and
 * where a function of it begins and ends, read from the module file with
 * elfutils' libdwfl (its symbol table and DWARF line table).  Finalize names
 * the job's call sites with it (merge/callsite_lines.c), the reader the
 * sites and functions of a profile written without lines
 * (tools/reader/symbolize.c).  No process is spawned, nothing but the file
 * is read.
 */
#ifndef COLLPROF_SOURCE_LINES_H
#define COLLPROF_SOURCE_LINES_H

#include <stddef.h>
#include <stdint.h>

/* A place in the source: file "" and line -1 where none is known. */
typedef struct cp_line_at {
    char file[1024];
    int64_t line;
} cp_line_at;

/* The file and line of the call before each return address addresses[i]
 * (the module's own addresses, as placed at link time) in the module file
 * at path; relative file names are made whole with their compilation's
 * directory, as addr2line gives them.  Returns how many were found, or -1
 * when the file cannot be read as an ELF module (then every out[i] is
 * unknown). */
long cp_source_lines(const char *path, const uint64_t *addresses, size_t n, cp_line_at *out);

/* The address and size of each function names[i] in the module's symbol
 * table (size 0 where it has none).  Returns how many were found, or -1
 * when the file cannot be read as an ELF module. */
long cp_function_extents(const char *path, const char *const *names, size_t n, uint64_t *start,
                         uint64_t *size);

#endif
