/*
 * GNU build-ids (the NT_GNU_BUILD_ID note that the linker writes into an
 * ELF module): what names one build of a program or library.  The runtime
 * records the build-id of every module of the job's call tree in
 * manifest.json ("modules"); the reader looks up source lines in a module
 * file only when its build-id is the one recorded, so that a program
 * rebuilt after the run can never relabel a call site.
 */
#ifndef COLLPROF_BUILD_ID_H
#define COLLPROF_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>

/* Hex digits of a build-id (up to 64 bytes of id) and the NUL. */
#define CP_BUILD_ID_MAX 129

/* The build-id of the module file at path, as lower-case hex into
 * out[size].  Returns 0, or -1 (out "") when the file cannot be read, is not
 * an ELF file of this machine's class, or has no build-id. */
int cp_build_id_of_file(const char *path, char *out, size_t size);

/* The same, from the image loaded in this process: path as the dynamic
 * loader names the module, NULL for the executable.  -1 when no such module
 * is loaded or it has no build-id. */
int cp_build_id_loaded(const char *path, char *out, size_t size);

#endif
