/*
 * Raw chunk file `timings.cpt` (DESIGN.md section 7, docs/formats.md):
 * writer and parser of the binary file of every rank's timed calls.
 *
 * The layout (all integers little-endian whatever the host, doubles as
 * IEEE-754 binary64 little-endian; "str" is a uint32 length counting the NUL,
 * then the bytes and the NUL):
 *
 *   header   "CPROF", u32 major, minor, patch, char[41] git hash (NUL-padded),
 *            str mode (MPI library version), u8 flags, u64 world size,
 *            u64 offset[world size] (of each rank's chunk, from byte 0)
 *   chunk    str hostname, i32 core, i32 pid, u32 node, u8 has_aggregates,
 *            [aggregates], u32 nseries, series[nseries], "END_BLOCK"
 *   series   i64 comm id, str collective, u64 naggregated, f64 agg_time,
 *            u64 n, u64 uncompressed length (= 37 n), u64 compressed length,
 *            u32 CRC32 of the compressed bytes, then the zlib stream of the
 *            arrays call u64[n], enter f64[n], start f64[n], exit f64[n],
 *            root i32[n], flags u8[n].
 *
 * The runtime writes the file in parallel: every rank encodes its own chunk
 * (cp_cpt_encode_chunk), an exclusive scan of the chunk sizes starting at
 * cp_cpt_header_size gives each rank its offset, rank 0 encodes the header
 * (cp_cpt_encode_header) and every rank writes its bytes at its offset.
 * Chunks need not be contiguous: a chunk may end before the next one's
 * offset (alignment padding is allowed and skipped by the parser).
 *
 * The encoders refuse a model that the parser would reject, so that a file
 * written by collprof always parses back equal.
 */
#ifndef COLLPROF_CPT_H
#define COLLPROF_CPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "collprof/profile.h"
#include "statistics.h"

/* Size in bytes of the header of f: it depends on the mode string and the
 * world size only, so every rank can compute it.  0 when the mode string is
 * not NUL-terminated within its array or the size does not fit a size_t. */
size_t cp_cpt_header_size(const cp_cpt_file *f);

/* The encoders APPEND to out.  They return 0, or -1 with err set (out is
 * then left as it was, the failed flag included).  Names in messages are
 * "timings.cpt". */

/* The header of f, stamped with this collprof's version
 * (CP_CPT_VERSION_*, whatever f->version says), with offsets[world_size]
 * the offset of each rank's chunk: offsets[0] must be cp_cpt_header_size(f)
 * and each one at least 31 bytes (the smallest chunk) past the previous. */
int cp_cpt_encode_header(const cp_cpt_file *f, const uint64_t *offsets, cp_bytes *out,
                         cp_error *err);
/* One rank's chunk, END_BLOCK included; each series compressed with zlib at
 * its fastest level.  c->rank is not written (a chunk's rank is its
 * position) but names the chunk in messages. */
int cp_cpt_encode_chunk(const cp_cpt_chunk *c, cp_bytes *out, cp_error *err);
/* The whole file, serially: the header and the chunks back to back.
 * chunks[i].rank must be i. */
int cp_cpt_encode(const cp_cpt_file *f, cp_bytes *out, cp_error *err);
/* cp_cpt_encode into a file, atomically (a temporary name renamed on
 * success: on error nothing is left at path). */
int cp_cpt_write(const char *path, const cp_cpt_file *f, cp_error *err);

/* Parse a whole file held in memory; name is used in messages.  On success
 * *out holds the model (chunks[i].rank = i, version as read); free it with
 * cp_cpt_file_free.  On error *out is zeroed and err says what is wrong,
 * where, and what was expected, e.g.
 *   "timings.cpt: truncated: the file ends at byte 812 inside the chunk of
 *    rank 2 (expected at least 1040 bytes)".
 * Nothing outside data[0..len) is ever read. */
int cp_cpt_parse_mem(const void *data, size_t len, const char *name, cp_cpt_file *out,
                     cp_error *err);
/* Read the file at path whole, then cp_cpt_parse_mem (name = path). */
int cp_cpt_read(const char *path, cp_cpt_file *out, cp_error *err);

/* Deep equality (doubles compared bitwise; the aggregates only when
 * has_aggregates). */
bool cp_cpt_file_equal(const cp_cpt_file *a, const cp_cpt_file *b);

bool cp_cpt_chunk_equal(const cp_cpt_chunk *a, const cp_cpt_chunk *b);

#endif
