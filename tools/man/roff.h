/* Text as roff, for the manual pages made from the commands' own help
 * texts (gen_man.c, gen_replay_man.c). */
#ifndef COLLPROF_ROFF_H
#define COLLPROF_ROFF_H

#include <stdio.h>

/* Backslashes escaped, '-' as a minus sign (options), a line that starts
 * with '.' or '\'' guarded, UTF-8 as groff's escapes, one output line per
 * input line. */
void roff_text(FILE *out, const char *s);

#endif
