/*
 * Repeat calls known by their description.  A program that calls a
 * collective with the same counts over and over makes the same signature
 * each time; finding it in the signature tables (the last signature, its
 * vectors, their kept counts: counts.h) touches lines spread over the
 * tables, and in an application whose own work evicts the caches between
 * collectives each is a trip to memory.  When a call of a communicator's
 * collective came twice in a row with the same signature, what its capture
 * described is kept beside the tables (cp_memo, comm_registry.h): each
 * side's count (or its count array), its datatype's size, the root, the
 * form, the call site.  A call described the same again is that signature,
 * counted at once in the memo itself (`next`): one line for single counts,
 * two for arrays of up to 16 ints.  The calls it counts are folded into the tables
 * (the call counter, the sequence's last run) before anything else reads
 * or changes them: the general path, a failed call, a persistent start, a
 * communicator's freeing, finalize and every partial profile
 * (cp_memo_fold, comm_registry.h).
 *
 * The memo holds exactly what a signature is made of (cp_sig_is), so it
 * serves every shape: single and vector counts, int and large counts, the
 * per-peer datatypes' bytes (Alltoallw), rooted collectives.  Arrays of up
 * to CP_MEMO_WHOLE counts a side are kept as they are; a longer int or
 * MPI_Count array (a communicator of more ranks) as its digest, so that a
 * repeated call reads the program's array alone, which the MPI library
 * reads next anyway, not a copy of it as long.  Per-peer datatypes' bytes
 * of up to CP_MEMO_MAX counts, send and receive together, are kept; a call
 * outside the recording window, and every call of a series whose memory
 * ran out, takes the general path (cp_call_record).
 */
#ifndef COLLPROF_CALL_MEMO_H
#define COLLPROF_CALL_MEMO_H

#include <string.h>

#include "call.h"
#include "capture.h"

/* Counts kept as they are, send and receive together, at most; and of
 * one side, beyond which an int or MPI_Count array is kept as its digest. */
#define CP_MEMO_MAX 512
#define CP_MEMO_WHOLE 256

/* The digest of n counts of `width` bytes (4 or 8): four chains of
 * cp_hash_mix over the array's 8-byte words (a count of 8 bytes, or two of
 * 4), word k to chain k mod 4 (they run side by side), the words past the
 * last whole group of four to the first chain; then the chains joined.
 * Each step of a chain, and each join, is a one-to-one function of the
 * state for a given word, so two arrays of the same length that differ in
 * one count never have the same digest; arrays that differ in several
 * have the same one by chance, about once in 2^64 (docs/internals.md). */
CP_HOT uint64_t cp_memo_digest(const void *counts, int64_t n, int width)
{
    uint64_t h0 = 0x243F6A8885A308D3ull, h1 = 0x13198A2E03707344ull, h2 = 0xA4093822299F31D0ull,
             h3 = 0x082EFA98EC4E6C89ull;
    int64_t i = 0;
    if (width == 4) {
        const uint32_t *c = counts;
#define CP_WORD(k) ((uint64_t)c[i + 2 * (k)] | (uint64_t)c[i + 2 * (k) + 1] << 32)
        for (; i + 8 <= n; i += 8) {
            h0 = cp_hash_mix(h0, CP_WORD(0));
            h1 = cp_hash_mix(h1, CP_WORD(1));
            h2 = cp_hash_mix(h2, CP_WORD(2));
            h3 = cp_hash_mix(h3, CP_WORD(3));
        }
#undef CP_WORD
        for (; i < n; i += 2)
            h0 = cp_hash_mix(h0, (uint64_t)c[i] | (i + 1 < n ? (uint64_t)c[i + 1] << 32 : 0));
    } else {
        const uint64_t *c = counts;
        for (; i + 4 <= n; i += 4) {
            h0 = cp_hash_mix(h0, c[i]);
            h1 = cp_hash_mix(h1, c[i + 1]);
            h2 = cp_hash_mix(h2, c[i + 2]);
            h3 = cp_hash_mix(h3, c[i + 3]);
        }
        for (; i < n; i++)
            h0 = cp_hash_mix(h0, c[i]);
    }
    return cp_hash_mix(cp_hash_mix(cp_hash_mix(h0, h1), h2), h3);
}

/* The kind of side a describes (enum cp_memo_kind). */
CP_HOT int cp_memo_kind_of(const cp_side *a)
{
    if (!a->present)
        return CP_MEMO_ABSENT;
    if (!a->counts)
        return CP_MEMO_SINGLE;
    return a->in_bytes ? CP_MEMO_BYTES : a->width == 4 ? CP_MEMO_INTS : CP_MEMO_LONGS;
}

/* Are the n counts of a (4 or 8 bytes each) those kept at k? */
CP_HOT bool cp_memo_same(const void *k, const void *a, int64_t n, int width)
{
    if (width == 4) {
        const int32_t *x = k, *y = a;
        for (int64_t i = 0; i < n; i++)
            if (x[i] != y[i])
                return false;
        return true;
    }
    const int64_t *x = k, *y = a;
    for (int64_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

/* The bytes a side's kept array takes (8-byte aligned), 0 for a single
 * count or an absent side. */
static inline int64_t cp_memo_side_bytes(int kind, int64_t n)
{
    if (kind & CP_MEMO_HASHED)
        return 8;
    if (kind == CP_MEMO_INTS)
        return (n * 4 + 7) / 8 * 8;
    return kind >= CP_MEMO_LONGS ? n * 8 : 0;
}

/* Where the memo's kept arrays are. */
CP_HOT const unsigned char *cp_memo_kept(const cp_memo *m)
{
    int64_t bytes = cp_memo_side_bytes(m->kind[0], m->n[0]) + cp_memo_side_bytes(m->kind[1], m->n[1]);
    return bytes <= CP_MEMO_INLINE ? m->inline_ : (const unsigned char *)m->heap;
}

/* Is side i of the memo what a describes?  *kept walks the kept arrays. */
CP_HOT bool cp_memo_side_is(const cp_memo *m, int i, const cp_side *a,
                            const unsigned char **kept)
{
    int kind = m->kind[i];
    if ((kind & ~CP_MEMO_HASHED) != cp_memo_kind_of(a))
        return false;
    if (kind == CP_MEMO_ABSENT)
        return true;
    if (a->typed) { /* each count times its datatype's size, against the bytes kept */
        if (a->n != m->n[i])
            return false;
        const int64_t *k = (const int64_t *)*kept;
        for (int64_t j = 0; j < a->n; j++)
            if (cp_typed_bytes(a, j) != k[j])
                return false;
        *kept += cp_memo_side_bytes(kind, a->n);
        return true;
    }
    if (a->dtsize != m->dtsize[i])
        return false;
    if (kind == CP_MEMO_SINGLE)
        return a->n == m->n[i];
    if (a->n != m->n[i])
        return false;
    if (kind & CP_MEMO_HASHED) {
        uint64_t d;
        memcpy(&d, *kept, sizeof d);
        if (cp_memo_digest(a->counts, a->n, a->width) != d)
            return false;
    } else if (!cp_memo_same(*kept, a->counts, a->n, a->width)) {
        return false;
    }
    *kept += cp_memo_side_bytes(kind, a->n);
    return true;
}

/* A timed repeated call idx at or past the memo's copy of the sample's
 * gate, counted in the memo: its record when the sample keeps it, else
 * NULL; the copy taken again, and while the series keeps every call the
 * slots of the rest of the record's block reserved (call_memo.c). */
__attribute__((noinline)) cp_sample_rec *cp_memo_slot(cp_coll_tables *x, uint64_t idx);

/* As cp_memo_slot: the next reserved slot when the call is the one it was
 * reserved for, taken on the memo's fourth line alone, marked untimed
 * until cp_memo_timed fills it (a profile written from a signal meanwhile
 * sees it so). */
CP_HOT cp_sample_rec *cp_memo_take(cp_coll_tables *x, uint64_t idx)
{
    cp_memo_times *mt = &x->memo.times;
    if (__builtin_expect(!mt->rsv || idx != mt->gate, 0))
        return cp_memo_slot(x, idx);
    cp_busy_enter_at(mt->tpoff);
    cp_sample_rec *r = mt->slot++;
    cp_sample_untimed(r);
    mt->rsv--;
    mt->gate = idx + 1;
    x->memo.next++;
    cp_busy_leave_at(mt->tpoff);
    return r;
}

/* Count a call in the memo: one instruction where the compiler can be told
 * so (x86-64), so that a signal sees the call counted or not, and a fold
 * in its handler (a partial profile) stays right: the call needs no busy
 * mark (signals.h), whose thread-local counter is two more memory lines. */
CP_HOT void cp_memo_count(cp_memo *m)
{
#if defined(__x86_64__)
    __asm__ volatile("addq $1, %0" : "+m"(m->next));
#else
    cp_busy_enter();
    m->next++;
    cp_busy_leave();
#endif
}

/* Is the call, as captured, the memo's?  Then it is numbered and recorded
 * as cp_call_record would, and the memo is returned: the wrapper calls the
 * MPI library through its `mpi`, the function of the call's form; else
 * NULL and nothing changed. */
CP_HOT cp_memo *cp_memo_hit(cp_call *call, cp_comm *c)
{
    cp_coll_tables *x = cp_comm_coll(c, call->coll);
    if (__builtin_expect(!x, 0))
        return NULL;
    cp_memo *m = &x->memo;
    uint64_t idx = m->next;
    /* The recording window is the memo's `left`; a quick call (the gate:
     * not paused; counted only, or timed passively) reads nothing of
     * cp_hot. */
    if (m->sig == CP_MEMO_EMPTY || m->form != call->form || m->root != call->root ||
        (m->ra && m->ra != call->ra) || !m->left ||
        (!call->quick && atomic_load_explicit(&cp_hot.paused, memory_order_relaxed)))
        return NULL;
    const unsigned char *kept = cp_memo_kept(m);
    if (!cp_memo_side_is(m, 0, &call->send, &kept) || !cp_memo_side_is(m, 1, &call->recv, &kept))
        return NULL;
    call->idx = idx;
    call->sig = m->sig;
    if (!call->quick) /* else the gate said */
        call->timed = cp_hot.timing != CP_TIMING_OFF;
    call->rec = NULL;
    /* Timed: the sample's gate as the memo last read it says whether the
     * call may be one the sample keeps; only then is the series' timing
     * read, and the call counted with the sample's change. */
    if (__builtin_expect(call->timed && idx >= m->times.gate, 0))
        call->rec = cp_memo_take(x, idx);
    else
        cp_memo_count(m);
    m->left--;
    return m;
}

/* After the MPI call, a timed repeated call's times go to the memo's
 * fourth line (cp_memo_times), folded into the series' aggregate and
 * histogram with the calls; a kept call's record is written as
 * cp_timing_add writes it.  As cp_call_timed, held as one change. */
CP_HOT void cp_memo_timed(cp_memo *m, const cp_call *call, bool blocking)
{
    uint64_t exit = cp_clock_ticks_of(cp_call_tsc(call));
    uint64_t dur = exit > call->start ? exit - call->start : 0;
    cp_memo_times *mt = &m->times;
    /* Late arrival (barrier mode), or beyond the line's 32-bit fields. */
    if (__builtin_expect(call->start != call->enter || dur > UINT32_MAX || mt->n == UINT32_MAX, 0)) {
        cp_call_timed_at(&((cp_coll_tables *)m)->timing, call, exit, blocking);
        return;
    }
    uint32_t b = cp_timing_hist_index(dur);
    cp_busy_enter_at(mt->tpoff);
    if (mt->n == 0) { /* the first since a fold: the buckets around it */
        mt->lo = cp_memo_hist_lo(b);
        mt->min = (uint32_t)dur;
    }
    mt->min = dur < mt->min ? (uint32_t)dur : mt->min;
    mt->max = dur > mt->max ? (uint32_t)dur : mt->max;
    mt->n++;
    mt->time += dur;
    uint32_t i = b - mt->lo;
    if (__builtin_expect(i < CP_MEMO_HIST && mt->hist[i] < UINT8_MAX, 1))
        mt->hist[i]++;
    else
        cp_memo_hist_spill((cp_coll_tables *)m, b);
    if (call->rec)
        cp_sample_put(call->rec, call->enter, 0, dur, blocking ? 0 : CP_CPT_NONBLOCKING);
    cp_busy_leave_at(mt->tpoff);
}

/* After cp_call_record: keep the call's description when it gave the same
 * signature as the call before that missed (a cycle of patterns is not
 * copied at every call), and it is of the kind cp_memo_hit knows; and take
 * the tables' call count again (the memo counts on from it).  mpi is the
 * MPI library's function the wrapper calls (PMPI_<name> of the call's
 * form): a memo serves one form, so the repeated call finds it here. */
void cp_memo_keep(const cp_call *call, cp_comm *c, void (*mpi)(void));

#endif
