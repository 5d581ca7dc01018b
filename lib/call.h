/*
 * What the generated wrappers (wrappers.c, from wrappers.tbl) call: begin a
 * call, capture its count vectors, record it.  The capture helpers are
 * inline: they only take pointers and sizes, copying nothing.
 */
#ifndef COLLPROF_CALL_H
#define COLLPROF_CALL_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <mpi.h>

#include "comm_registry.h"
#include "counts.h"
#include "mpi_facts.h"
#include "clock.h"
#include "runtime.h"
#include "signals.h"

/* The wrappers' common path is one function: the compiler is told to
 * inline what it would otherwise call (it weighs each helper's many call
 * sites, not the one path that runs). */
#define CP_HOT static inline __attribute__((always_inline))

/* One side of a call as its capture described it.  Half the size of the
 * counts collector's cp_vec_arg, which is made from it off a repeated
 * call's path (cp_side_arg): a call's two sides are one line of the
 * wrapper's frame, and every line the frame spans is written on every
 * call, a trip to memory where the application's work evicts the caches
 * between collectives. */
typedef struct cp_side {
    const void *counts; /* n counts of `width` bytes, or NULL: n is the one count */
    int64_t n;
    union {
        int64_t dtsize;            /* the datatype's size in bytes (1 when in_bytes) */
        const MPI_Datatype *types; /* typed: each peer's datatype */
    };
    uint16_t width;     /* sizeof(int) or sizeof(MPI_Count) */
    bool present;       /* false: this rank contributes no vector */
    bool in_bytes;      /* counts in bytes (per-peer datatypes) */
    bool typed;         /* in bytes, but still as the program passed them: the
                           counts with their datatypes, turned into bytes off
                           a repeated call's path (cp_side_bytes, capture.h)
                           and compared as they are on it (call_memo.h) */
} cp_side;
_Static_assert(sizeof(cp_side) == 32, "a call's two sides are one line");

/* The counts collector's description of side s. */
static inline cp_vec_arg cp_side_arg(const cp_side *s)
{
    if (!s->present)
        return (cp_vec_arg){0};
    return (cp_vec_arg){.counts = s->counts, .single = s->counts ? 0 : s->n,
                        .len = s->counts ? s->n : 1, .dtsize = s->dtsize, .width = s->width,
                        .present = true, .in_bytes = s->in_bytes};
}

/* In the wrapper's frame.  First what every call writes, together (a
 * repeated call counted only writes nothing else), then the timed call's. */
typedef struct cp_call {
    cp_side send, recv;
    int64_t root;    /* communicator-local root, -1 when not rooted */
    void *ra;        /* the wrapper's return address (callsite collector) */
    uint64_t idx;    /* its call index */
    uint16_t coll;
    uint16_t form;   /* enum cp_form: which of the collective's functions */
    uint32_t sig;    /* its signature (counts collector), CP_SEQ_NONE: none */
    bool timed;      /* record its times (timing on, call recorded) */
    bool quick;      /* the gate said: recording, not paused, and counted
                        only, or (timed) timed passively, stamped by the
                        time-stamp counter (cp_call_begin, read off the
                        communicator's cache entry): cp_hot is not read */
    cp_sample_rec *rec; /* its record when the timing sample keeps it */
    uint64_t enter, start; /* ticks (clock.h): arrival, start of the MPI call */
} cp_call;

#include "capture.h"

/* The application's errno is left as it was: the common path touches
 * nothing that sets it, and every function off that path (allocation, the
 * registry's slow look-up, unwinding) keeps it itself. */

/* What the call reads of its communicator, in v; NULL when the profiler is
 * off: the wrapper is then a plain pass-through. */
CP_HOT cp_comm_view *cp_call_begin(cp_call *call, cp_comm_view *v, MPI_Comm comm, int coll,
                                   int form, void *ra)
{
    call->coll = (uint16_t)coll;
    call->form = (uint16_t)form;
    call->root = -1;
    call->ra = ra;
    call->timed = false;
    /* Recording, not paused, counted only or timed passively by the
     * counter: the gate on the communicator's cache entry says so, and
     * cp_hot's line is not read; the entry's line is all the call reads
     * of its communicator (comm_cache.h). */
    uint64_t bits = cp_comm_bits(comm), h = cp_comm_place_hash(bits);
    uint64_t gate = atomic_load_explicit(&cp_comm_first(h)->gate, memory_order_relaxed) >> coll;
    if (__builtin_expect((gate | gate >> CP_GATE_TIMED) & 1, 1) &&
        __builtin_expect(cp_comm_view_cached(bits, h, coll, v), 1)) {
        call->quick = true;
        call->timed = gate >> CP_GATE_TIMED & 1;
        return v;
    }
    call->quick = false;
    int state = atomic_load_explicit(&cp_hot.state, memory_order_relaxed);
    if (__builtin_expect(state != CP_STATE_ON, 0)) {
        if (state == CP_STATE_DONE)
            return NULL;
        if (state == CP_STATE_SNAPSHOT) {
            cp_signals_snapshot(); /* before this call: the state between calls */
        } else {
            int saved = errno;
            cp_runtime_lazy_start();
            errno = saved;
        }
        if (atomic_load(&cp_hot.state) != CP_STATE_ON)
            return NULL;
    }
    if (!(cp_hot.enabled >> coll & 1))
        return NULL; /* not asked for: not even numbered */
    if (cp_comm_view_cached(bits, h, coll, v))
        return v;
    cp_comm *c = cp_comm_lookup(comm);
    return c ? cp_comm_view_of(c, coll, v) : NULL;
}

/* Number the call on its (communicator, collective) and record its counts
 * when inside the recording window and not paused.  Out of line: measured,
 * the wrappers are faster calling it than with it inline in each (the
 * common case, the last signature again, makes no further call). */
void cp_call_record(cp_comm *c, cp_call *call);

/* Is a table's call number idx inside the recording window (and recording
 * not paused)? */
CP_HOT bool cp_call_recording(uint64_t idx)
{
    return !atomic_load_explicit(&cp_hot.paused, memory_order_relaxed) && idx >= cp_hot.start_call &&
           idx - cp_hot.start_call < cp_hot.max_calls;
}

/* The slow part of numbering a call (call.c): a new run of the sequence.
 * It leaves errno as it found it.  (A call the timing sample keeps goes to
 * cp_timing_slot_kept directly: it allocates nothing and keeps errno, and
 * while a series keeps every call, its first ones, it is every call's.) */
uint64_t cp_call_append(cp_counts *t, uint32_t sig);

/* The call, numbered idx on its tables x with signature sig (CP_SEQ_NONE:
 * not recorded; rec: recorded), takes its place in the timing sample. */
CP_HOT void cp_call_numbered(cp_coll_tables *x, cp_call *call, uint64_t idx, uint32_t sig,
                             bool rec)
{
    call->idx = idx;
    call->sig = sig;
    call->timed = false;
    if (cp_hot.timing != CP_TIMING_OFF) {
        /* Every numbered call, recorded or not, so that the sample's slots
         * are the same calls on every member. */
        call->rec = call->idx < x->timing.gate ? NULL : cp_timing_slot_kept(&x->timing, call->idx);
        call->timed = rec;
    }
}

/* Number the next call on table t, of signature sig (CP_SEQ_NONE: not
 * recorded): its index. */
CP_HOT uint64_t cp_call_count(cp_counts *t, uint32_t sig)
{
    return cp_counts_lengthen(t, sig) ? t->ncalls++ : cp_call_append(t, sig);
}

/* A communicator constructor returned rc: register *newcomm now; `like`
 * (MPI_COMM_NULL: none) is the communicator whose groups and topology it
 * has (a duplicate's), taken from collprof's own state when registered. */
void cp_comm_created(int rc, const MPI_Comm *newcomm, MPI_Comm like);

/* The clock a timed call is stamped by: the counter when the gate said so
 * (cp_call_begin), else as cp_hot says. */
CP_HOT bool cp_call_tsc(const cp_call *call)
{
    return call->quick || cp_hot.clock_tsc;
}
/* Timed calls, around the MPI call: barrier mode synchronises the
 * communicator first (blocking forms only: a barrier before a non-blocking
 * call could deadlock a correct program); then the end of the call. */
CP_HOT void cp_call_sync(cp_call *call, MPI_Comm comm, bool blocking)
{
    /* Arrival is stamped here, after collprof's own counting, so that the
     * times are the MPI library's. */
    call->enter = cp_clock_ticks_of(cp_call_tsc(call));
    if (!call->quick && cp_hot.timing == CP_TIMING_BARRIER && blocking &&
        call->coll != CP_COLL_BARRIER) {
        int saved = errno;
        PMPI_Barrier(comm);
        call->start = cp_clock_ticks_of(cp_hot.clock_tsc);
        errno = saved;
    } else {
        call->start = call->enter;
    }
}
/* The call's times, with its end at exit, into the series' timing t.  The
 * stamps are the clock's own: the record keeps enter's low 56 bits, and
 * finalize takes the clock's origin off (merge/series_sums.c), so that
 * no call reads it. */
CP_HOT void cp_call_timed_at(cp_timing *t, const cp_call *call, uint64_t exit, bool blocking)
{
    cp_busy_enter();
    cp_timing_add(t, call->rec, call->sig, call->enter, call->start, exit,
                  blocking ? 0 : CP_CPT_NONBLOCKING);
    cp_busy_leave(); /* errno: as the MPI call left it (cp_timing_add keeps it) */
}
CP_HOT void cp_call_timed(cp_comm *c, const cp_call *call, bool blocking)
{
    uint64_t exit = cp_clock_ticks_of(cp_call_tsc(call));
    cp_call_timed_at(&cp_comm_coll(c, call->coll)->timing, call, exit, blocking);
}
/* The MPI library refused call idx of collective coll, of signature sig
 * (CP_SEQ_NONE: not recorded), with rc: it stays recorded with its
 * counts, marked failed with the error class (it moved nothing).  Only
 * refused calls come here: the wrapper tests rc.  Cold: the wrapper's
 * common path stays as short as it was (measured: the test costs about
 * 4 ns a call where the plain call was a tail call).  The call's fields,
 * not the record: a record whose address is taken lives in the frame. */
__attribute__((cold)) void cp_call_failed(cp_comm *c, int coll, uint64_t idx, uint32_t sig,
                                          int rc);

/* The call path of a call from ra on t, and the error code of a return
 * code, for calls recorded outside cp_call_record (persistent.c). */
uint32_t cp_call_path(cp_counts *t, void *ra);
int32_t cp_call_error_code(int rc);

#endif
