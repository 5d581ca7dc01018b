/*
 * One row of a counts tree (counts_tree.h) and how it holds its values.
 *
 * The lead of a world holds one row per rank and pattern: four million at
 * a million ranks of sparse exchanges.  So a row's values are held as the
 * finalize messages carry them, in variable-length integers (pack.h), in
 * one allocation: a listed row gives its first peer and that count, then
 * for each further value the distance from the previous peer less one and
 * the count; a dense row gives its counts.  Eight peers and counts of a
 * million-rank job take about 40 bytes there, where two arrays of int64
 * took 160 with their allocations.
 *
 * The encoding is the shortest one, so equal values are equal bytes, and a
 * row read relative to its rank (peers as offsets) differs from its
 * absolute reading in the first integer only: the distances and counts
 * after it are the same bytes.  Pure data, no MPI.
 */
#ifndef COLLPROF_TREE_ROW_H
#define COLLPROF_TREE_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"

/* The kinds of a row: one rank's vector; a vector several ranks passed; a
 * vector relative to each rank (peers held as offsets). */
enum cp_trow_kind { CP_TROW_ONE = 0, CP_TROW_SAME = 1, CP_TROW_RELATIVE = 2 };

typedef struct cp_trow {
    cp_ranges ranks; /* communicator ranks, increasing */
    int16_t kind;    /* enum cp_trow_kind */
    bool in_bytes;   /* counts are bytes (per-peer datatypes) */
    bool listed;     /* values are (peer, count) pairs; else dense: n == len */
    int32_t err;     /* the MPI library refused these ranks' call: its error code
                        (model/mpi_facts.h); 0: carried out */
    int64_t dtsize;
    int64_t len;     /* peers addressed */
    int64_t n;       /* values held */
    uint8_t *vals;   /* the values, encoded as above */
    size_t nbytes;
} cp_trow;
_Static_assert(sizeof(cp_trow) == 72, "cp_trow's small fields share a word");

/* Bytes of v in the encoding. */
static inline size_t cp_trow_uv_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        n++;
    return n;
}
static inline uint64_t cp_trow_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}
static inline uint8_t *cp_trow_put_uv(uint8_t *p, uint64_t v)
{
    for (; v >= 0x80; v >>= 7)
        *p++ = (uint8_t)(v | 0x80);
    *p++ = (uint8_t)v;
    return p;
}
/* Read back (the row's own bytes: checked when they were made). */
static inline uint64_t cp_trow_get_uv(const uint8_t **p)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t c = *(*p)++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
}
static inline int64_t cp_trow_get_sv(const uint8_t **p)
{
    uint64_t u = cp_trow_get_uv(p);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Hold n values: peers (increasing; NULL: dense) and counts.  Replaces
 * what r held.  0, or -1 when memory ran out (r keeps its old values). */
int cp_trow_set(cp_trow *r, const int64_t *peers, const int64_t *counts, int64_t n);

/* The values of a row in order. */
typedef struct cp_trow_iter {
    const uint8_t *p;
    int64_t peer;
    bool listed, first;
} cp_trow_iter;

static inline void cp_trow_iter_init(cp_trow_iter *it, const cp_trow *r)
{
    *it = (cp_trow_iter){.p = r->vals, .peer = -1, .listed = r->listed, .first = true};
}
/* The next value (r->n of them): its peer, returned (a dense row: its
 * index; a relative row: its offset), and its count. */
static inline int64_t cp_trow_next(cp_trow_iter *it, int64_t *count)
{
    if (!it->listed)
        it->peer++;
    else if (it->first)
        it->peer = cp_trow_get_sv(&it->p);
    else
        it->peer += 1 + (int64_t)cp_trow_get_uv(&it->p);
    it->first = false;
    *count = cp_trow_get_sv(&it->p);
    return it->peer;
}

#endif
