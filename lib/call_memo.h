/*
 * Repeat calls known by their description.  A program that calls a
 * collective with the same counts over and over makes the same signature
 * each time; finding it in the signature tables (the last signature, its
 * vectors, their kept counts: counts.h) touches lines spread over the
 * tables, and in an application whose own work evicts the caches between
 * collectives each is a trip to memory.  When a call of a communicator's
 * collective came twice in a row with the same signature, what its capture
 * described is kept beside the tables (cp_memo, comm_registry.h): each
 * side's count, or its count array as one 8-byte key (the array itself
 * when it fits, else its digest: cp_memo_key), its datatype's size, the
 * root, the form, the call site.  A call described the same again is that
 * signature, counted at once in the memo itself (`next`): the memo's first
 * line alone, for communicators of any size.  The calls it counts are
 * folded into the tables (the call counter, the sequence's last run)
 * before anything else reads or changes them: the general path, a failed
 * call, a persistent start, a communicator's freeing, finalize and every
 * partial profile (cp_memo_fold, comm_registry.h).
 *
 * The memo holds what a signature is made of (cp_sig_is), so it serves
 * every shape: single and vector counts, int and large counts, the
 * per-peer datatypes' bytes (Alltoallw), rooted collectives.  A repeated
 * call reads the program's arrays alone, which the MPI library reads next
 * anyway, not a copy of them.  A call outside the recording window, and
 * every call of a series whose memory ran out, takes the general path
 * (cp_call_record).
 */
#ifndef COLLPROF_CALL_MEMO_H
#define COLLPROF_CALL_MEMO_H

#include <string.h>

#include "call.h"
#include "capture.h"

/* A side's array as the memo keeps it, in one 8-byte key on the memo's
 * first line (n[]): the array itself when it fits 8 bytes (two int counts
 * or one MPI_Count, exact), else its digest.  Nothing else of it is kept,
 * so that a repeated call reads the program's arrays alone, which the MPI
 * library reads next anyway, and the memo's one line, for communicators of
 * any size.  The array's length is the communicator's (its size, remote
 * size or degree, with the root's role), the same at every call of a
 * memo's series; the digest takes it in as well. */
CP_HOT bool cp_memo_fits(const cp_side *a)
{
    return a->n * (a->typed ? 8 : a->width) <= 8;
}

/* The digest of a side's n counts, 8 bytes a word (a count of 8 bytes, in
 * bytes when typed, or two int counts): four chains of cp_hash_mix, started
 * from the length, word k to chain k mod 4 (they run side by side), the
 * words past the last whole group of four to the first chain; then the
 * chains joined.  Each step of a chain, and each join, is a one-to-one
 * function of the state for a given word, so two arrays of the same length
 * that differ in one count never have the same digest; arrays that differ
 * in several have the same one by chance, about once in 2^64
 * (docs/internals.md). */
#define CP_MEMO_DIGEST(WORDS, WORD)                                                               \
    do {                                                                                          \
        for (; i + 4 <= (WORDS); i += 4) {                                                        \
            h0 = cp_hash_mix(h0, WORD(i));                                                        \
            h1 = cp_hash_mix(h1, WORD(i + 1));                                                    \
            h2 = cp_hash_mix(h2, WORD(i + 2));                                                    \
            h3 = cp_hash_mix(h3, WORD(i + 3));                                                    \
        }                                                                                         \
        for (; i < (WORDS); i++)                                                                  \
            h0 = cp_hash_mix(h0, WORD(i));                                                        \
    } while (0)
CP_HOT uint64_t cp_memo_digest(const cp_side *a)
{
    int64_t n = a->n, i = 0;
    uint64_t h0 = 0x243F6A8885A308D3ull ^ (uint64_t)n, h1 = 0x13198A2E03707344ull,
             h2 = 0xA4093822299F31D0ull, h3 = 0x082EFA98EC4E6C89ull;
    if (a->typed) {
#define CP_TYPED_WORD(k) ((uint64_t)cp_typed_bytes(a, k))
        CP_MEMO_DIGEST(n, CP_TYPED_WORD);
#undef CP_TYPED_WORD
    } else if (a->width == 4) {
        const uint32_t *c = a->counts;
#define CP_INT_WORD(k) ((uint64_t)c[2 * (k)] | (2 * (k) + 1 < n ? (uint64_t)c[2 * (k) + 1] << 32 : 0))
        CP_MEMO_DIGEST((n + 1) / 2, CP_INT_WORD);
#undef CP_INT_WORD
    } else {
        const uint64_t *c = a->counts;
#define CP_LONG_WORD(k) (c[k])
        CP_MEMO_DIGEST(n, CP_LONG_WORD);
#undef CP_LONG_WORD
    }
    return cp_hash_mix(cp_hash_mix(cp_hash_mix(h0, h1), h2), h3);
}
#undef CP_MEMO_DIGEST

/* A side's key: its counts themselves when they fit (cp_memo_fits). */
CP_HOT uint64_t cp_memo_key(const cp_side *a)
{
    if (!cp_memo_fits(a))
        return cp_memo_digest(a);
    if (a->n == 0)
        return 0;
    if (a->typed)
        return (uint64_t)cp_typed_bytes(a, 0);
    if (a->width == 8)
        return *(const uint64_t *)a->counts;
    const uint32_t *c = a->counts;
    return a->n == 1 ? c[0] : c[0] | (uint64_t)c[1] << 32;
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

/* Is side i of the memo what a describes? */
CP_HOT bool cp_memo_side_is(const cp_memo *m, int i, const cp_side *a)
{
    int kind = m->kind[i];
    if (kind != cp_memo_kind_of(a))
        return false;
    if (kind == CP_MEMO_ABSENT)
        return true;
    /* A typed side's datatypes are in its key (bytes). */
    if (!a->typed && a->dtsize != m->dtsize[i])
        return false;
    if (kind == CP_MEMO_SINGLE)
        return a->n == m->n[i];
    return cp_memo_key(a) == (uint64_t)m->n[i];
}

/* A timed repeated call idx at or past the memo's copy of the sample's
 * gate, counted in the memo: its record when the sample keeps it, else
 * NULL; the copy taken again, and while the series keeps every call the
 * slots of the rest of the record's block reserved (call_memo.c). */
__attribute__((noinline)) cp_sample_rec *cp_memo_slot(cp_coll_tables *x, uint64_t idx);

/* As cp_memo_slot: the next reserved slot when the call is the one it was
 * reserved for, taken on the memo's third line alone (a quiet mark,
 * signals.h), marked untimed until cp_memo_timed fills it (a profile
 * written from a signal meanwhile sees it so). */
CP_HOT cp_sample_rec *cp_memo_take(cp_coll_tables *x, uint64_t idx)
{
    cp_memo_times *mt = &x->memo.times;
    if (__builtin_expect(!mt->rsv || idx != mt->gate, 0))
        return cp_memo_slot(x, idx);
    cp_quiet_enter();
    cp_sample_rec *r = mt->slot++;
    cp_sample_untimed(r);
    mt->rsv--;
    mt->gate = idx + 1;
    x->memo.next++;
    cp_quiet_leave();
    return r;
}

/* Count a call in the memo: one instruction where the compiler can be told
 * so (x86-64), so that a signal sees the call counted or not, and a fold
 * in its handler (a partial profile) stays right: the call needs no busy
 * mark (signals.h), whose thread-local counter is another memory line. */
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
CP_HOT cp_memo *cp_memo_hit(cp_call *call, const cp_comm_view *c)
{
    cp_coll_tables *x = c->x;
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
    if (!cp_memo_side_is(m, 0, &call->send) || !cp_memo_side_is(m, 1, &call->recv))
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

/* A timed repeated call's times beyond the memo's line (late arrival in
 * barrier mode, a duration of 2^32 ticks or more, 2^32 - 1 calls since the
 * last fold): into the series' timing directly (memo_fold.c). */
__attribute__((cold, noinline)) void cp_memo_time_far(cp_memo *m, cp_sample_rec *rec,
                                                      uint64_t enter, uint64_t start,
                                                      uint64_t exit, bool blocking);

/* A bucket that filled, or a duration outside the memo's buckets, into the
 * series' histogram (memo_fold.c), inside a busy mark: the quiet section
 * (signals.h) covers the code in it, not the function it calls. */
static inline __attribute__((always_inline)) void cp_memo_spill_marked(cp_memo *m, uint32_t b)
{
    cp_busy_enter();
    cp_memo_hist_spill((cp_coll_tables *)m, b);
    cp_busy_leave();
}

/* After the MPI call, a timed repeated call's times (its record rec when
 * the sample keeps it, arrival, start and end of the MPI call) go to the
 * memo's third line (cp_memo_times), folded into the series' aggregate and
 * histogram with the calls; a kept call's record is written as
 * cp_timing_add writes it.  As cp_call_timed, held as one change: a quiet
 * mark (signals.h), so the functions that inline it are CP_QUIET. */
CP_HOT void cp_memo_time(cp_memo *m, cp_sample_rec *rec, uint64_t enter, uint64_t start,
                         uint64_t exit, bool blocking)
{
    uint64_t dur = exit > start ? exit - start : 0;
    cp_memo_times *mt = &m->times;
    if (__builtin_expect(start != enter || dur > UINT32_MAX || mt->n == UINT32_MAX, 0)) {
        cp_memo_time_far(m, rec, enter, start, exit, blocking);
        return;
    }
    uint32_t b = cp_timing_hist_index(dur);
    cp_quiet_enter();
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
        cp_memo_spill_marked(m, b);
    if (rec)
        cp_sample_put(rec, enter, 0, dur, blocking ? 0 : CP_CPT_NONBLOCKING);
    cp_quiet_leave();
}

/* The same for a call whose record is `call` (the wrapper's slow half). */
CP_HOT void cp_memo_timed(cp_memo *m, const cp_call *call, bool blocking)
{
    cp_memo_time(m, call->rec, call->enter, call->start, cp_clock_ticks_of(cp_call_tsc(call)),
                 blocking);
}

/* A repeated call's front (the wrapper's out-of-line half, gen_wrappers.py)
 * tells the wrapper, in two registers, what to do: call the MPI library
 * as the program did (the profiler is off), take the slow half (the gate
 * did not say "quick": cp_call_begin), take the general path (a quick
 * call that is not the memo's), or call the MPI library through the memo
 * it returns, which counted the call; CP_QUICK_TIMED added when the call
 * is timed, with its sample record (NULL: not kept).  So that nothing of
 * the call's record lives in the frame around the MPI call: a frame's
 * lines are written on every call, below the application's own, and in an
 * application whose work evicts the caches each is a trip to memory. */
typedef struct cp_quick {
    uintptr_t word; /* CP_QUICK_OFF, _SLOW, _NEW, or the memo (| CP_QUICK_TIMED) */
    cp_sample_rec *rec;
} cp_quick;
enum { CP_QUICK_OFF, CP_QUICK_SLOW, CP_QUICK_NEW, CP_QUICK_MEMO = 64, CP_QUICK_TIMED = 1 };
_Static_assert(_Alignof(cp_memo) >= CP_QUICK_MEMO, "a memo's address is above the codes, its "
                                                    "low bit free");

/* The front's answer for a call the gate said is quick, as captured. */
CP_HOT cp_quick cp_memo_quick(cp_call *call, const cp_comm_view *c)
{
    cp_memo *m = cp_memo_hit(call, c);
    if (!m)
        return (cp_quick){CP_QUICK_NEW, NULL};
    return (cp_quick){(uintptr_t)m | (call->timed ? CP_QUICK_TIMED : 0), call->rec};
}

/* The memo of a front's answer. */
CP_HOT cp_memo *cp_quick_memo(cp_quick q)
{
    return (cp_memo *)(q.word & ~(uintptr_t)CP_QUICK_TIMED);
}

/* The MPI library refused the memo's last call with rc: as cp_call_failed
 * (call.c), for the call the memo numbered last; rc returned. */
__attribute__((cold, noinline)) int cp_memo_failed(cp_memo *m, int rc);

/* After a timed repeated call returned rc: its end stamped, its times
 * added (cp_memo_time), a failure noted; rc returned (the wrapper jumps
 * here with its frame gone). */
int cp_memo_after_blocking(cp_memo *m, cp_sample_rec *rec, uint64_t enter, int rc);
int cp_memo_after_nonblocking(cp_memo *m, cp_sample_rec *rec, uint64_t enter, int rc);

/* A wrapper's parts its assembly calls or jumps to (gen_wrappers.py):
 * emitted under their own names, whole. */
#define CP_WRAPPER_PART __attribute__((used, noinline, noclone))

/* Where the wrapper finds the MPI function on the memo's first line. */
#define CP_MEMO_MPI_AT 48
_Static_assert(offsetof(cp_memo, mpi) == CP_MEMO_MPI_AT, "the wrappers' assembly reads m->mpi here");
_Static_assert(MPI_SUCCESS == 0, "the wrappers' assembly tests rc against 0");

/* After cp_call_record: keep the call's description when it gave the same
 * signature as the call before that missed (a cycle of patterns is not
 * copied at every call), and it is of the kind cp_memo_hit knows; and take
 * the tables' call count again (the memo counts on from it).  mpi is the
 * MPI library's function the wrapper calls (PMPI_<name> of the call's
 * form): a memo serves one form, so the repeated call finds it here. */
void cp_memo_keep(const cp_call *call, cp_comm *c, void (*mpi)(void));

#endif
