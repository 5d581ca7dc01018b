/*
 * Cube statistics file `profile.stat` (DESIGN.md section 5, docs/formats.md):
 * writer and parser of the pattern statistics that CubeGUI's statistics
 * plugin shows beside profile.cubex, plus the two computations the runtime
 * needs to fill the model (cp_stat_summarize, cp_stat_offer_event).
 *
 * The model (cp_stat_file, cp_stat_pattern, cp_stat_event) lives in
 * collprof/profile.h.  The file is always plain text, never gzip: the Cube
 * GUI opens it by name and reads it as it is.
 */
#ifndef COLLPROF_STAT_H
#define COLLPROF_STAT_H

#include <stdbool.h>
#include <stddef.h>

#include "collprof/profile.h"
#include "statistics.h"
#include "textio.h"

/* Decimals written per column: Mean and Median 7, every other value
 * (Minimum, Maximum, Sum, Variance, quartiles, enter, exit, duration) 10.
 * Two files are "equal" when their values print alike at these precisions
 * (cp_stat_file_equal). */
#define CP_STAT_MEAN_DECIMALS 7
#define CP_STAT_VALUE_DECIMALS 10

/* ------------------------------------------------------------ the model */

/* An empty pattern named `name` (cut at 63 characters): all statistics 0,
 * no events, metric_id -1. */
void cp_stat_pattern_init(cp_stat_pattern *p, const char *name);
/* Append a pattern initialised as above to s and return it, or NULL when out
 * of memory.  Pointers to earlier patterns may move (realloc). */
cp_stat_pattern *cp_stat_file_add(cp_stat_file *s, const char *name);

/* Release the patterns; s->patterns becomes NULL, npatterns 0 (the layout is
 * kept).  NULL is allowed.  (Declared in profile.h.) */
/* void cp_stat_file_free(cp_stat_file *s); */

/* Equal as far as the text carries it: same layout, same patterns in the
 * same order with the same names and counts, values equal when printed at
 * the file's precision (above), variance only when count >= 2, quartiles only
 * when count >= 5, metric_id only in the documented layout, ranks only in the
 * CubeGUI layout, the same events in the same order. */
bool cp_stat_file_equal(const cp_stat_file *a, const cp_stat_file *b);

/* --------------------------------------------------------------- writer */

/* The whole file as text (malloc'ed, NUL-terminated, *len excludes the NUL),
 * in s->layout.  What the parser would reject is refused before anything is
 * formatted, with err saying "stat file: pattern <i> (<name>): <why>": a
 * name empty, longer than 63, with a blank or a non-printable character or
 * starting with '-', two patterns of one name, a statistic negative or not
 * finite, minimum > maximum, more events than count or than
 * CP_STAT_MAX_EVENTS, events not most severe first, a cnode listed twice, a
 * negative cnode, an event with exit < enter, a duration outside
 * [minimum, maximum] or an enter/exit not finite; in the CubeGUI layout a
 * negative rank, in the documented layout a negative metric_id. */
int cp_stat_format(const cp_stat_file *s, char **text, size_t *len, cp_error *err);
/* The same, written to out (the caller commits); messages name the output
 * file instead of "stat file". */
int cp_stat_write_out(cp_out *out, const cp_stat_file *s, cp_error *err);
/* Write s to path atomically (temporary file + rename), plain text: on any
 * error nothing is left at path (nor a temporary file); err then names
 * path. */
int cp_stat_write(const char *path, const cp_stat_file *s, cp_error *err);

/* --------------------------------------------------------------- parser */

/* Parse a whole .stat file, either layout (told by the header line).  Every
 * malformed line is rejected with "<input>:<line>: expected ..." and nothing
 * is kept (out->patterns NULL).  Accepts exactly what cp_stat_format can
 * write, plus blanks (spaces, tabs) of any width between columns, several
 * empty lines between patterns, CRLF line ends and numbers written with
 * other precisions or an exponent.  Returns 0 or -1. */
int cp_stat_parse(cp_in *in, cp_stat_file *out, cp_error *err);
/* Open path (plain or gzip) and parse it. */
int cp_stat_read(const char *path, cp_stat_file *out, cp_error *err);

#endif
