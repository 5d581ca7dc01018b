/*
 * Repeat calls known by their raw arguments.  A program that calls
 * MPI_Alltoallv with the same counts over and over makes the same
 * signature each time; describing the counts (capture.h) and comparing
 * them with the kept vectors (counts.h) is most of what collprof adds to
 * such a call.  When a call of a communicator's collective came twice in a
 * row with the same signature, its raw arguments are kept beside the
 * tables (cp_memo, comm_registry.h): the count arrays as the program
 * passed them, its datatypes by handle, its call site.  A call that passes
 * the same again is that signature, counted at once.
 *
 * The arguments decide the signature: capture reads nothing else, and the
 * communicator is the memo's own.  Only datatypes of the MPI library's own
 * are kept (their size is fixed; a freed derived type's handle can come
 * back with another size), and only int counts, at most CP_MEMO_MAX of
 * them, send and receive together.  Everything else, and any call outside the recording window, takes
 * the general path (cp_call_record).
 */
#ifndef COLLPROF_CALL_MEMO_H
#define COLLPROF_CALL_MEMO_H

#include "call.h"

/* Count arrays kept, send and receive together, at most. */
#define CP_MEMO_MAX 512

/* Number a call of the memo's signature whose sequence changed since its
 * tail was taken (call_memo.c): appended, and the tail taken again. */
uint64_t cp_memo_append(cp_coll_tables *x);

/* Are n ints at a those kept at k? */
CP_HOT bool cp_memo_same(const int *k, const int *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (k[i] != a[i])
            return false;
    return true;
}

/* Is the call one of the memo's (a call of a count array each way, of
 * slen and rlen counts of width bytes)?  Then it is numbered and recorded
 * as cp_call_record would, and true; else false and nothing changed. */
CP_HOT bool cp_memo_hit(cp_call *call, cp_comm *c, bool in_place, const void *scounts,
                        MPI_Datatype stype, int64_t slen, const void *rcounts,
                        MPI_Datatype rtype, int64_t rlen, int width)
{
    cp_coll_tables *x = c->coll[call->coll];
    if (width != sizeof(int) || !x)
        return false;
    const cp_memo *m = &x->memo;
    cp_counts *t = &x->counts;
    if (m->sig == CP_MEMO_EMPTY || m->form != call->form || (m->ra && m->ra != call->ra) ||
        m->in_place != in_place || m->types[1] != rtype || m->len[1] != rlen ||
        __builtin_expect(t->partial, 0) || !cp_call_recording(t->ncalls))
        return false;
    /* A NULL array where counts are due is the general path's to describe
     * (capture.h): never read here. */
    if (!in_place && (m->types[0] != stype || m->len[0] != slen || (slen && !scounts) ||
                      !cp_memo_same(m->counts, scounts, slen)))
        return false;
    if ((rlen && !rcounts) || !cp_memo_same(m->counts + m->len[0], rcounts, rlen))
        return false;
    cp_busy_enter();
    t->last_sig = m->sig;
    cp_call_numbered(x, call, cp_seq_tail_add(&t->seq, &m->tail) ? t->ncalls++ : cp_memo_append(x),
                     m->sig, true);
    cp_busy_leave();
    return true;
}

/* After cp_call_record: keep the call's arguments when they gave the same
 * signature as the call before that missed (a cycle of patterns is not
 * copied at every call), and are of the kind cp_memo_hit knows. */
void cp_memo_keep(const cp_call *call, cp_comm *c, bool in_place, const void *scounts,
                  MPI_Datatype stype, int64_t slen, const void *rcounts, MPI_Datatype rtype,
                  int64_t rlen, int width);

#endif
