/*
 * Counts collector, finalize side: what a rank sends to the lead of each of
 * its communicators (its distinct vectors, signatures and call sequence of
 * one collective), and the lead's unpacking of it into a merge view.
 */
#ifndef COLLPROF_COUNTS_PACK_H
#define COLLPROF_COUNTS_PACK_H

#include "counts.h"
#include "counts_merge.h"
#include "pack.h"

/* t's sequence must be finished (cp_seq_finish). */
void cp_counts_pack(cp_wbuf *b, const cp_counts *t);

typedef struct cp_counts_unpacked {
    cp_vec *vecs;
    uint32_t nvecs;
    cp_sig *sigs;
    uint32_t nsigs;
    cp_seq seq;
    cp_counts_view view;
} cp_counts_unpacked;

/* Returns 0, or -1 when the buffer is malformed or memory ran out. */
int cp_counts_unpack(cp_rbuf *b, cp_counts_unpacked *u);
void cp_counts_unpacked_free(cp_counts_unpacked *u);

#endif
