/*
 * Compact counts format: the grammar that its writer (compact_write.c) and
 * parser (compact_parse.c) share, and the checks both hold a block to
 * (compact.h has the interface, docs/formats.md the description).
 *
 * One grammar, in one place.  A file is
 *
 *   [version line]  "# collprof counts 1"   (absent in other tools' files)
 *   block*          each:
 *     "# Raw counters"
 *     ["Communicator: ID (size S[, world ranks LIST])"]
 *     ["Collective: NAME"]                  (always written, version >= 1)
 *     ["Root: R"]
 *     "Number of ranks: N"
 *     "Datatype size: D" | "Datatype size: 1 (bytes)"
 *     "NAME calls LIST"
 *     "Count: K calls - LIST"               (version >= 3: LIST may hold
 *                                            strided items "N-M/S", ranges.h)
 *     ["Callsites: LIST"]                   (version >= 2: call-tree ids)
 *     ["Invalid: negative count"]           (version >= 4: the rows may hold
 *                                            negative counts, as passed)
 *     ["Failed: CLASS LIST[; CLASS LIST]*"] (version >= 6: the MPI library
 *                                            refused the calls of these
 *                                            ranks with that error class)
 *     ["Row length: L"]                     (version >= 5: with sparse or
 *                                            relative rows)
 *     "BEGINNING DATA"
 *     ("Rank(s) LIST: c0 c1 ..."            dense
 *      | "Rank(s) LIST: sparse P=C ..."      (version >= 5) non-zero peers
 *      | "Rank(s) LIST: relative +O=C ...")* (version >= 5) peer = rank + O
 *     "END DATA"
 *
 * Header lines come in this order; blank lines may stand between any lines
 * outside the data section.  The parser also reads other tools' dialect
 * (collective_profiler): no version line, ", " in lists, trailing spaces, a
 * stray empty field "Rank(s) 1-5: : 0 1", "NAME calls  0-2".  Every parser
 * error is "<input>:<line>: expected ..."; nothing is ever read outside the
 * line buffer that textio hands over (the parser is fuzzed).
 */
#ifndef COLLPROF_COMPACT_GRAMMAR_H
#define COLLPROF_COMPACT_GRAMMAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compact.h"

/* The longest collective name a block holds. */
#define CP_COMPACT_NAME_MAX (sizeof(((cp_block *)0)->collective) - 1)

/* A character of a collective's name. */
bool cp_compact_name_char(char c);
/* Two rows of b that share a rank: 0 when there are none, 1 with
 * *ra < *rb and *rank set when there are, -1 when out of memory. */
int cp_compact_shared_rank(const cp_block *b, size_t *ra, size_t *rb, int64_t *rank);
/* Is every value of set a in set b?  Both normalised. */
bool cp_compact_subset(const cp_ranges *a, const cp_ranges *b);
/* What is wrong with a sparse or relative row of b, or NULL. */
const char *cp_compact_row_problem(const cp_block *b, const cp_row *row);
/* Has the block a sparse or relative row (version 5, "Row length:")? */
bool cp_compact_listed_rows(const cp_block *b);

#endif
