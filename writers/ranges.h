/*
 * The range-list grammar shared by every text format: "0-5,7,9-12".
 *   list  := item ( sep item )*
 *   item  := N | N "-" M        (N <= M, non-negative decimal integers)
 *          | N "-" M "/" S      (strided, count files version 3 only: N, N+S,
 *                               ..., M; S >= 2, N < M, M - N a multiple of
 *                               S; no value twice; progressions may
 *                               interleave; the writer orders items by N and
 *                               writes a progression of two values as "N,M")
 *   sep   := "," | ", "        (the writer uses ","; the parser also reads
 *                               the ", " of other tools)
 */
#ifndef COLLPROF_RANGES_H
#define COLLPROF_RANGES_H

#include "collprof/profile.h"
#include "textio.h"

/* Append the text form of r to out.  An empty set writes nothing. */
int cp_ranges_write(cp_out *out, const cp_ranges *r);
/* Same, into a malloc'ed NUL-terminated string (NULL on allocation failure). */
char *cp_ranges_to_string(const cp_ranges *r);
/* Parse s[0..len) as a whole range list into r (cleared first).  On failure
 * returns -1 and sets *why to a static description of what was expected.
 * cp_ranges_parse builds a SET: items may come in any order and may overlap
 * (other tools' files).  cp_ranges_parse_ordered keeps the written order
 * (communicator members) and rejects a value that appears twice. */
int cp_ranges_parse(const char *s, size_t len, cp_ranges *r, const char **why);
/* cp_ranges_parse that also reads strided items, into the plain SET of
 * their values (at most CP_RANGES_MAX_STRIDED values in all, so that a
 * hostile list cannot make it slow or large). */
#define CP_RANGES_MAX_STRIDED (INT64_C(1) << 24)
int cp_ranges_parse_strided(const char *s, size_t len, cp_ranges *r, const char **why);
int cp_ranges_parse_ordered(const char *s, size_t len, cp_ranges *r, const char **why);

#endif
