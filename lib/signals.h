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
 * ignores) and start the watcher thread, which calls write.  After
 * recording has started. */
void cp_signals_start(uint64_t mask, cp_signal_writer write);

/* Collprof's tables are being changed by this thread: a termination
 * signal arriving now is held back until cp_busy_leave, so the watcher
 * never reads a table half-way through a change. */
extern _Thread_local int cp_busy;
extern volatile sig_atomic_t cp_signal_held;
void cp_signal_release(void);

static inline __attribute__((always_inline)) void cp_busy_enter(void)
{
    cp_busy++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline __attribute__((always_inline)) void cp_busy_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (--cp_busy == 0 && __builtin_expect(cp_signal_held != 0, 0))
        cp_signal_release();
}

#endif
