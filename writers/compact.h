/*
 * Compact counts format (DESIGN.md section 4 / docs/formats.md): writer and
 * parser of `send-counters.rank<LEAD>.txt` and `recv-counters.rank<LEAD>.txt`.
 */
#ifndef COLLPROF_COMPACT_H
#define COLLPROF_COMPACT_H

#include "collprof/profile.h"
#include "bytes.h"
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

/* The text of blocks spooled before their communicators are numbered, one
 * buffer for every spool of a file (a lead's communicators, one
 * direction): 10,000 churned communicators each growing a buffer of its own
 * were 20,000 buffers allocated, regrown and freed in finalize.
 * Zero-initialised: empty. */
typedef struct cp_compact_store {
    cp_bytes text;     /* the blocks from their "Collective:" line on */
    size_t *ends;      /* where each block's text ends */
    size_t n, cap;
} cp_compact_store;
void cp_compact_store_free(cp_compact_store *st);

/* A lead's blocks of one communicator, written as they are made and kept
 * as text until the communicator is numbered (finalize makes the blocks
 * first): the lead of a million ranks holds the file's text, not every
 * block of the profile model at once.  Its blocks are consecutive blocks of
 * its store.  Zero-initialised with the store set: empty. */
typedef struct cp_compact_spool {
    cp_compact_store *store; /* where its blocks' text is */
    size_t first, n;   /* its blocks: the store's first .. first + n - 1 */
    int version;       /* the lowest version that carries them (0: none yet) */
    int64_t comm_id;   /* the head, set before writing: id (-1: none), */
    int64_t comm_size; /* size */
    const cp_ranges *world; /* and world ranks (may be empty, not NULL) */
} cp_compact_spool;
/* Add block b at the end of s's store (checked as cp_compact_write checks;
 * its comm_id is not read: the head comes from the spool); a spool's
 * blocks come one after another, no other spool's between them.  0, or -1
 * with err set (nothing added). */
int cp_compact_spool_block(cp_compact_spool *s, const cp_block *b, cp_error *err);
/* Write the version line that carries them all, then every block of s[0],
 * s[1], ... under its spool's head: the same file as cp_compact_write of
 * those blocks. */
int cp_compact_write_spools(cp_out *out, cp_compact_spool *const *s, size_t n, cp_error *err);
int cp_compact_write_spools_file(const char *path, bool gzip, cp_compact_spool *const *s,
                                 size_t n, cp_error *err);

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
/* The name of a counts file: "send-counters.rank12.txt[.gz]" for
 * direction CP_SEND and lead 12 (snprintf's result). */
int cp_compact_file_name(char *buf, size_t size, int direction, int64_t lead, bool gz);

#endif
