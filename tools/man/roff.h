/* Text as roff, for the manual pages made from the commands' own help
 * texts (gen_man.c, gen_replay_man.c). */
#ifndef COLLPROF_ROFF_H
#define COLLPROF_ROFF_H

#include <stdio.h>

/* Backslashes escaped, '-' as a minus sign (options), a line that starts
 * with '.' or '\'' guarded, UTF-8 as groff's escapes, one output line per
 * input line. */
void roff_text(FILE *out, const char *s);

/* The page at path opened, with its first lines: what made it (from), its
 * title (.TH name 1, of collprof version), and its NAME section (name and
 * what: "collprof\\-replay", "benchmark ..."), as roff.  NULL with the
 * reason on stderr when path cannot be written. */
FILE *roff_page(const char *path, const char *name, const char *title, const char *from,
                const char *version, const char *what);

#endif
