/*
 * Termination and fatal signals: a rank that is killed (SIGTERM at a batch
 * system's time limit, SIGINT, SIGXCPU, SIGUSR1/2 where configured) or
 * crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes its partial
 * profile, then the signal takes its course as without collprof.
 *
 * Writing needs allocation, stdio and zlib, none of which is safe in a
 * signal handler: the handler only wakes a watcher thread (write() on a
 * pipe) and waits for its answer (poll() with a time limit), both
 * async-signal-safe; the watcher writes.  docs/internals.md, "Signals".
 */
#ifndef COLLPROF_SIGNALS_H
#define COLLPROF_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"

/* Names accepted by COLLPROF_SIGNALS, as a mask of signal numbers. */
uint64_t cp_signals_default(void);
/* Parse "TERM,INT,..." (with or without "SIG"), "default" or "none";
 * -1 on a name it does not know. */
int cp_signals_parse(const char *v, uint64_t *mask);
/* The mask as a list of names, for the manifest. */
void cp_signals_show(uint64_t mask, char *out, size_t len);

/* What the watcher does when a signal came: write what the rank holds.
 * reason is why the run stops; always_say asks every rank, not only rank 0,
 * to say where it went (a crash concerns one rank). */
typedef void (*cp_signal_writer)(const char *reason, bool always_say);

/* Install the handlers of the signals in mask (not those the application
 * ignores) and start the watcher thread, which calls write.  With
 * snapshot_s > 0 the watcher's timer also marks a snapshot due at every
 * multiple of snapshot_s seconds of the wall clock (on every rank at once,
 * and never more often than keeps a rank's snapshots to 1 % of its time);
 * the next wrapper takes it (cp_signals_snapshot).  After recording has
 * started.  The watcher is made here unless cp_signals_prepare made it. */
void cp_signals_start(uint64_t mask, uint64_t snapshot_s, cp_signal_writer write);

/* Make the watcher and its pipes now, idle until cp_signals_start: before
 * the MPI library sets itself up (MPI_Init), so that the thread's own
 * allocations come before the library's and leave its heap as without
 * collprof.  Made after, they changed where MPICH's per-call buffers of
 * MPI_Alltoall(v) fall, which then merged with a free neighbour at every
 * call: 2 to 3 memory lines a call (docs/performance.md).  mask and
 * snapshot_s as the configuration has them (cp_config: no signal and no
 * snapshot, no watcher).  Failures are said by cp_signals_start, on rank 0. */
void cp_signals_prepare(uint64_t mask, uint64_t snapshot_s);

/* A snapshot is due (cp_hot.state is CP_STATE_SNAPSHOT): the calling thread,
 * between calls, has the watcher write the partial profile of the state so
 * far (write(NULL, false)) and waits for it; recording goes on.  Errno is
 * kept. */
__attribute__((cold, noinline)) void cp_signals_snapshot(void);

/* Collprof's tables are being changed by this thread: a termination
 * signal arriving now is held back until cp_busy_leave, so the watcher
 * never reads a table half-way through a change.  The counter's top bit
 * (CP_BUSY_HELD) says that this thread holds a signal back: its last
 * leave delivers it.  The thread's own counter: the signal came to the
 * thread that was busy, and leaving needs to read nothing else. */
extern _Thread_local unsigned cp_busy;
#define CP_BUSY_HELD 0x80000000u
/* The signal handler, in a thread inside collprof's tables: hold sig back
 * (true), else false (signals.c). */
bool cp_signal_hold(int sig);
/* A leave found CP_BUSY_HELD: when it was the last, deliver the signal. */
void cp_signal_release(void);

/* On x86-64 the counter is reached at its offset from the thread pointer,
 * kept in cp_hot's line: the
 * compiler's own access loads that offset from the GOT, one more memory
 * line per timed call where the application's work evicts the caches
 * between collectives.  The offset is the same in every thread (the
 * static TLS block) and is set by the library's constructor, before any
 * call (signals.c).  One instruction each way, which a signal cannot
 * split; leaving tests the instruction's sign: the held bit. */
#if defined(__x86_64__) && defined(__GNUC__)
#define CP_BUSY_BY_OFFSET 1
#endif

static inline __attribute__((always_inline)) void cp_busy_enter(void)
{
#ifdef CP_BUSY_BY_OFFSET
    __asm__ volatile("addl $1, %%fs:(%0)" : : "r"(cp_hot.busy_tpoff) : "memory");
#else
    cp_busy++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline __attribute__((always_inline)) void cp_busy_leave(void)
{
#ifdef CP_BUSY_BY_OFFSET
    bool held;
    __asm__ volatile("subl $1, %%fs:(%1)" : "=@ccs"(held) : "r"(cp_hot.busy_tpoff) : "memory");
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    bool held = --cp_busy & CP_BUSY_HELD;
#endif
    if (__builtin_expect(held, 0))
        cp_signal_release();
}

/* The quiet section: on x86-64 the code of a repeated call that changes
 * its memo (the front, call_memo.h, and what the wrapper runs after the
 * MPI call) is placed in a section of its own, and that is its busy mark:
 * a termination signal whose handler finds the interrupted instruction
 * there is sent again by the watcher a moment later (signals.c), when the
 * thread has left it.  The thread-local counter is another memory line a
 * call, where the application's work evicts the caches between
 * collectives; the section costs the call nothing.  It covers the code
 * placed in it, not what that code calls: a quiet function calls out only
 * before its first change or inside a busy mark (cp_busy_enter).
 * Elsewhere CP_QUIET is nothing and the quiet marks are busy marks. */
#ifdef CP_BUSY_BY_OFFSET
#define CP_QUIET_SECTION 1
#define CP_QUIET __attribute__((section("cp_quiet")))
#define cp_quiet_enter() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define cp_quiet_leave() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#else
#define CP_QUIET
#define cp_quiet_enter() cp_busy_enter()
#define cp_quiet_leave() cp_busy_leave()
#endif
/* Is the interrupted instruction pc in the quiet section? */
bool cp_signal_in_quiet(const void *pc);

#endif
