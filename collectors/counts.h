/*
 * Counts collector: what each call was asked to move.
 *
 * Per (communicator, collective) and rank: a table of the distinct count
 * vectors this rank passed, a table of distinct call signatures (send
 * vector, receive vector, root), and the compressed sequence of signature
 * ids, one per call.  No communication per call; memory grows with distinct
 * vectors and non-repeating changes, not with calls.
 */
#ifndef COLLPROF_COUNTS_H
#define COLLPROF_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hash_index.h"
#include "sequence.h"

/* One count vector as an MPI call passed it: not copied on the hot path. */
typedef struct cp_vec_arg {
    /* (The wrappers describe a call's sides more compactly, cp_side in
     * lib/call.h, and make this of them off a repeated call's path.) */
    const void *counts; /* array of `len` counts of `width` bytes, or NULL:
                           then `single` is the only count */
    int64_t single;
    int64_t len;        /* row length (1 for a single count) */
    int64_t dtsize;     /* datatype size in bytes (1 when in_bytes) */
    /* Or the counts by their non-zeros (the scale simulator, whose virtual
     * ranks would otherwise pass arrays of P counts): nnz of the len, at
     * nz_peers (ascending) with nz_counts; counts is then NULL.  A table
     * takes one form or the other for all its calls: the two hash apart. */
    const int64_t *nz_peers, *nz_counts;
    int64_t nnz;
    uint16_t width;     /* sizeof(int) or sizeof(MPI_Count) */
    bool present;       /* false: this rank contributes no vector */
    bool in_bytes;      /* counts already in bytes (per-peer datatypes) */
} cp_vec_arg;

/* A distinct vector kept by the table.  Mostly zeros (fewer than half the
 * peers non-zero, len > 1) it keeps its non-zero counts only: a rank of
 * 100,000 that sends to 4 neighbours holds 8 numbers, not 100,000, and so
 * does every message and merge at finalize. */
typedef struct cp_vec {
    uint64_t hash;
    bool in_bytes;
    int64_t dtsize;
    int64_t len;
    int64_t *counts; /* dense: len counts; sparse: nnz counts at peers[] */
    int64_t *peers;  /* sparse: increasing peer indices; NULL when dense */
    int64_t nnz;     /* sparse: counts held */
} cp_vec;

/* Should a vector of len counts, nnz of them non-zero, be kept sparse? */
static inline bool cp_vec_sparse(int64_t len, int64_t nnz)
{
    return len > 1 && 2 * nnz < len;
}

/* The root of an intercommunicator's rooted collective, in the root's group
 * (it passed MPI_ROOT); the merge turns it into that rank's number. */
#define CP_ROOT_HERE (-2)

/* A distinct call signature: vector ids (CP_SEQ_NONE when absent). */
typedef struct cp_sig {
    uint32_t send, recv;
    int64_t root;
    uint32_t callpath; /* callsite collector's path id, CP_SEQ_NONE when off;
                          at finalize, the job-wide call-tree id */
    uint8_t form;      /* enum cp_form (model/mpi_facts.h): the function
                          called; 0 when not told */
    int32_t err;       /* the MPI library refused the call: its error class
                          (code of model/mpi_facts.h); 0: it succeeded */
    uint32_t next; /* the signature that followed this one last time: checked
                      before hashing, so cycles of patterns cost a compare */
} cp_sig;

/* Calls the MPI library refused: calls first, first + step, ..., last took
 * signature sig (their signature made failed, cp_counts_failed_sig) in
 * place of the one they were recorded with before the call. */
typedef struct cp_failed_run {
    uint64_t first, last, step;
    uint32_t sig;
} cp_failed_run;
/* Runs of refused calls a table keeps; past that the table is partial. */
#define CP_FAILED_RUNS_MAX 4096

/* What a repeated call reads and writes first (ncalls, last_sig, partial,
 * the sequence's total and changes): one cache line. */
typedef struct cp_counts {
    uint64_t ncalls; /* every call numbered, recorded or not */
    uint32_t last_sig; /* fast path: most calls repeat the last signature */
    bool partial;      /* memory ran out: calls after that are not recorded */
    cp_seq seq;
    cp_vec *vecs;
    uint32_t nvecs, cap_vecs;
    cp_index vec_index;
    cp_sig *sigs;
    uint32_t nsigs, cap_sigs;
    cp_index sig_index;
    const void *last_ra; /* the last call site whose path is its address alone */
    uint32_t last_path;  /* ... and that path (callsite collector, depth 1) */
    cp_failed_run *failed; /* in increasing order of calls */
    uint32_t nfailed, cap_failed;
} cp_counts;

void cp_counts_init(cp_counts *t);
void cp_counts_free(cp_counts *t);

/* ------------------------------------------------------------ hot path
 * Most calls repeat the table's last signature: that test and the count of
 * the call are inline, so that the wrapper's common path makes no call of
 * its own (measured: 543 instructions a call through the general functions,
 * docs/performance.md).  The rest is in counts.c. */

/* The cases cp_vec_is leaves, once it has found the sizes equal and a's
 * counts an array: a vector kept sparse, counts given by their non-zeros,
 * counts of 64 bits against a dense vector. */
bool cp_vec_matches(const cp_vec *v, const cp_vec_arg *a);

/* Does kept vector v hold what a passes? */
static inline bool cp_vec_is(const cp_vec *v, const cp_vec_arg *a)
{
    if (v->dtsize != a->dtsize || v->len != a->len || v->in_bytes != a->in_bytes)
        return false;
    if (!a->counts && !a->nz_peers)
        return v->counts[0] == a->single; /* a single count: kept dense */
    if (__builtin_expect(a->width != 4 || a->nz_peers || v->peers, 0))
        return cp_vec_matches(v, a);
    const int *c = a->counts;
    for (int64_t i = 0; i < a->len; i++)
        if (v->counts[i] != c[i])
            return false;
    return true;
}

/* Is signature id (CP_SEQ_NONE: none) that of this call? */
static inline bool cp_sig_is(const cp_counts *t, uint32_t id, const cp_vec_arg *send,
                             const cp_vec_arg *recv, int64_t root, uint32_t callpath, int form)
{
    if (id == CP_SEQ_NONE)
        return false;
    const cp_sig *s = &t->sigs[id];
    if (s->root != root || s->callpath != callpath || s->form != form || s->err ||
        (s->send != CP_SEQ_NONE) != send->present || (s->recv != CP_SEQ_NONE) != recv->present)
        return false;
    return (!send->present || cp_vec_is(&t->vecs[s->send], send)) &&
           (!recv->present || cp_vec_is(&t->vecs[s->recv], recv));
}

/* Does the call repeat the table's last signature (and the table still
 * records)? */
static inline bool cp_counts_last_is(const cp_counts *t, const cp_vec_arg *send,
                                     const cp_vec_arg *recv, int64_t root, uint32_t callpath,
                                     int form)
{
    return __builtin_expect(!t->partial, 1) &&
           cp_sig_is(t, t->last_sig, send, recv, root, callpath, form);
}

/* The signature of a call that is not the last one's (counts.c): the one
 * that followed it last time, else found by hash or added. */
uint32_t cp_counts_signature_other(cp_counts *t, const cp_vec_arg *send,
                                   const cp_vec_arg *recv, int64_t root, uint32_t callpath,
                                   int form);

/* The signature id of a call of a given form (enum cp_form: calls of
 * different forms have different signatures; the series still groups
 * them), added when new.  CP_SEQ_NONE when memory ran out (t->partial is
 * set). */
static inline uint32_t cp_counts_signature_form(cp_counts *t, const cp_vec_arg *send,
                                                const cp_vec_arg *recv, int64_t root,
                                                uint32_t callpath, int form)
{
    return cp_counts_last_is(t, send, recv, root, callpath, form)
               ? t->last_sig
               : cp_counts_signature_other(t, send, recv, root, callpath, form);
}

/* The same, form 0 (not told). */
static inline uint32_t cp_counts_signature(cp_counts *t, const cp_vec_arg *send,
                                           const cp_vec_arg *recv, int64_t root,
                                           uint32_t callpath)
{
    return cp_counts_signature_form(t, send, recv, root, callpath, 0);
}
/* Give back the room the tables' arrays hold beyond what they use (MPI
 * freed the communicator: they will grow little more, if at all). */
void cp_counts_compact(cp_counts *t);
/* Number the next call and record it with signature `sig` (CP_SEQ_NONE:
 * numbered but not recorded).  Returns the call's index. */
uint64_t cp_counts_record_append(cp_counts *t, uint32_t sig);

/* When a call of signature sig only lengthens the sequence's last run (the
 * common case), count it there and return true; the caller numbers it
 * (t->ncalls++).  Else false: cp_counts_record_append. */
static inline __attribute__((always_inline)) bool cp_counts_lengthen(cp_counts *t, uint32_t sig)
{
    cp_seq *q = &t->seq;
    if (__builtin_expect(!q->repeating && !q->failed && q->nruns > 0, 1) &&
        q->runs[q->nruns - 1].id == sig && q->groups[q->ngroups - 1].nruns > 0) {
        q->runs[q->nruns - 1].len++;
        q->total++;
        return true;
    }
    return false;
}

static inline uint64_t cp_counts_record(cp_counts *t, uint32_t sig)
{
    return cp_counts_lengthen(t, sig) ? t->ncalls++ : cp_counts_record_append(t, sig);
}

/* Call idx, recorded with signature sig, was refused by the MPI library
 * with error code err (model/mpi_facts.h): it is kept with the same
 * counts, marked failed.  Off the hot path: only refused calls come here. */
void cp_counts_failed(cp_counts *t, uint64_t idx, uint32_t sig, int32_t err);
/* Finish the sequence for reading (cp_seq_finish), the refused calls
 * given their failed signatures.  Returns 0, or -1 when memory ran out. */
int cp_counts_settle(cp_counts *t);

#endif
