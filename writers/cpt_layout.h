/*
 * timings.cpt's layout, which its writer (cpt_write.c) and its parser
 * (cpt_parse.c) share (cpt.h has the interface, docs/formats.md the fields).
 *
 * One layout, in one place: the encoders of cpt_write.c and the parser of cpt_parse.c
 * read and write the same fields in the same order, each through one helper
 * per width (u8, u32, u64; signed values and doubles go through the
 * unsigned helper of their width), byte by byte, so that the file is
 * little-endian on every host.
 *
 * The parser trusts nothing: every read is checked against the end of the
 * region it belongs to (the next chunk's offset, or the end of the file), a
 * count is checked against the bytes left before anything is allocated for
 * it, and a series' payload is checked (CRC32) before it is inflated into a
 * buffer whose size is bounded by zlib's best compression ratio.  It is
 * fuzzed (tests/fuzz/fuzz_cpt.c).
 */
#ifndef COLLPROF_CPT_LAYOUT_H
#define COLLPROF_CPT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "cpt.h"
#include "file_names.h"

#define TAG "CPROF"
#define TAG_LEN 5
#define FOOTER "END_BLOCK"
#define FOOTER_LEN 9
#define HASH_LEN 41
#define DEFAULT_NAME CP_FILE_TIMINGS

/* One call in a series' uncompressed payload: call u64, enter, start and
 * exit f64, root i32, flags u8; from version 3 its site u32. */
#define CALL_BYTES_V2 (8 + 8 + 8 + 8 + 4 + 1)
#define CALL_BYTES (CALL_BYTES_V2 + 4)
/* The smallest encodings, to bound counts by the bytes left: a chunk with an
 * empty hostname, no aggregates and no series; a series record without its
 * payload (collective name of one character); an aggregate entry. */
#define MIN_CHUNK (4 + 1 + 4 + 4 + 4 + 1 + 4 + FOOTER_LEN)
#define MIN_SERIES (8 + 4 + 2 + 8 + 8 + 8 + 8 + 8 + 4)
#define MIN_COLL (4 + 2 + 8 + 3 * 8)
#define MIN_SLOW (4 + 2 + 8 + 8 + 8 + 8)
/* deflate cannot do better than 1032:1 (258 bytes per 2 bits): a larger
 * uncompressed length is a lie that we refuse before allocating it. */
#define MAX_RATIO 1032

/* Version 5 stores the payload's columns so that deflate finds what repeats
 * in them (on 65,536 timed calls: 0.53 MB instead of 1.25, deflated in a
 * third of the time, docs/formats.md): each 8-byte column as the
 * differences that stay small (a call index from the one before it, an enter
 * time's bits from the one before, a start's bits from its enter's, an
 * exit's from its start's; unsigned, modulo 2^64, so exactly invertible
 * whatever the values), and every column of width w as w planes, all the
 * low bytes of the column first: the high bytes of small differences are
 * runs of zeros.  The writer puts, the parser gets, through these two. */
#define CPT_PLANES_MAJOR 5

/* The writer's deflate settings, which the hand-made file of the tests
 * repeats to compare bytes: a payload of at most CPT_SMALL_PAYLOAD bytes
 * (about 25 calls) is stored in the stream as it is (level 0: deflate
 * would build Huffman trees to save a few bytes, which 10,000 one-call
 * series paid for in finalize), with zlib's smallest memory level (its
 * hash table, which every stream clears, 256 entries); a larger one at the
 * fastest level that compresses, with the usual memory level 8. */
#define CPT_SMALL_PAYLOAD 1024
static inline int cpt_level(size_t payload)
{
    return payload > CPT_SMALL_PAYLOAD ? 1 : 0;
}
static inline int cpt_mem_level(size_t payload)
{
    return payload > CPT_SMALL_PAYLOAD ? 8 : 1;
}

static inline uint64_t cpt_planes_get(const unsigned char *col, size_t n, size_t i, int width)
{
    uint64_t v = 0;
    for (int k = width - 1; k >= 0; k--)
        v = v << 8 | col[(size_t)k * n + i];
    return v;
}

_Static_assert(MIN_CHUNK == 31, "cpt.h documents the smallest chunk as 31 bytes");

/* "chunk of rank 2, series 3 (Alltoallv, communicator 0)": where a series
 * is, in the messages of the writer and of the parser. */
void cp_cpt_series_where(char *buf, size_t cap, int64_t rank, size_t index,
                         const cp_cpt_series *s);

#endif
