/*
 * Compact counts format (DESIGN.md section 4 / docs/formats.md): writer and
 * parser of `send-counters.rank<LEAD>.txt` and `recv-counters.rank<LEAD>.txt`.
 */
#ifndef COLLPROF_COMPACT_H
#define COLLPROF_COMPACT_H

#include "collprof/profile.h"
#include "textio.h"

/* Write f (version line CP_COUNTS_FORMAT_VERSION, then every block) to out.
 * Blocks the parser would reject are refused before anything is written,
 * with err naming the block and the problem: a collective name other than
 * letters, digits and '_' (at most 31), nranks < 1, a communicator id with
 * size < 1 or a world ranks list of another length, an empty call list,
 * calls outside all_calls, call and rank lists that are not sets as
 * cp_ranges_add builds them, a row without ranks, a rank >= nranks or in two
 * rows, a negative count.  A negative root / comm_id writes no Root: /
 * Communicator: line. */
int cp_compact_write(cp_out *out, const cp_counts_file *f, cp_error *err);
/* Write f to path (gzip-compressed when gzip), atomically: on any error
 * nothing is left at path (nor a temporary file). */
int cp_compact_write_file(const char *path, bool gzip, const cp_counts_file *f, cp_error *err);

/* Parse a whole counts file, in this format (any version up to ours) or in
 * other tools' dialect.  Sets f->version, f->blocks.  Direction and lead rank
 * are left as the caller set them.  Returns 0, or -1 with err naming the
 * input, the line and what was expected. */
int cp_compact_parse(cp_in *in, cp_counts_file *f, cp_error *err);
/* A damaged file: as cp_compact_parse_file, but on an error f keeps the
 * whole blocks read before it (the reader shows what is left of a file cut
 * short).  Returns 0, or -1 with err set (f then holds those blocks). */
int cp_compact_salvage_file(const char *path, cp_counts_file *f, cp_error *err);
int cp_compact_parse_file(const char *path, cp_counts_file *f, cp_error *err);

/* "send-counters.rank12.txt" -> direction CP_SEND, lead 12.  Also accepts
 * other tools' "send-counters.job0.rank0.txt" and a ".gz" suffix.
 * Returns 0 when the name is a counts file name, -1 otherwise. */
int cp_compact_parse_name(const char *basename, int *direction, int64_t *lead);

#endif
