/*
 * The names of the files in an output directory, in one place: the
 * finalize that writes them, the partial profile, the output directory's
 * check and the reader spell them from here.  The count files' names
 * ("send-counters.rank<R>.txt") are written and parsed by
 * writers/compact_grammar.c, with the format.
 */
#ifndef COLLPROF_FILE_NAMES_H
#define COLLPROF_FILE_NAMES_H

#define CP_FILE_MANIFEST "manifest.json"
#define CP_FILE_CUBE "profile.cubex"
#define CP_FILE_STAT "profile.stat"
#define CP_FILE_TIMINGS "timings.cpt"
/* A rank's partial profile: the folder partial.rank<R>. */
#define CP_FILE_PARTIAL "partial.rank"
/* ... while it is being written (partial.rank<R>.next), before it takes
 * the place of the one before in one step. */
#define CP_PARTIAL_NEXT ".next"
/* The count files, by direction (CP_SEND, CP_RECV). */
#define CP_FILE_SEND_COUNTS "send-counters"
#define CP_FILE_RECV_COUNTS "recv-counters"

#endif
