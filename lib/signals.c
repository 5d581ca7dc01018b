/*
 * Partial profile on termination and fatal signals (see signals.h).
 *
 * The handler does only async-signal-safe things: it writes one byte to
 * the watcher's pipe and polls the answer pipe for at most
 * CP_SIGNAL_WAIT_MS, then passes the signal on to what was there before
 * (the application's handler, or the default action, re-raised so that the
 * exit status and a core dump are those of the signal).  The watcher thread,
 * started with every signal blocked, does the writing, which allocates and
 * uses stdio and zlib.  A fatal signal raised inside collprof's own code
 * writes nothing (its tables may be half-changed) and goes on at once.
 */
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runtime.h"

/* How long a handler waits for the watcher: a batch system's grace period
 * between SIGTERM and SIGKILL is typically 30 s or more, and a partial
 * profile takes milliseconds; a watcher stuck on a lock that the crashed
 * thread held (malloc's, after heap corruption) delays the crash no more. */
#define CP_SIGNAL_WAIT_MS 10000
/* How long a rank sent a termination signal stays after writing (linger). */
#define CP_SIGNAL_LINGER_MS 500

static const struct {
    int sig;
    const char *name; /* without "SIG" */
    bool fatal;       /* raised by a fault or abort() rather than sent */
    bool by_default;
} known[] = {
    {SIGTERM, "TERM", false, true}, {SIGINT, "INT", false, true},
    {SIGXCPU, "XCPU", false, true}, {SIGUSR1, "USR1", false, false},
    {SIGUSR2, "USR2", false, false}, {SIGHUP, "HUP", false, false},
    {SIGQUIT, "QUIT", false, false}, {SIGSEGV, "SEGV", true, true},
    {SIGBUS, "BUS", true, true},     {SIGFPE, "FPE", true, true},
    {SIGILL, "ILL", true, true},     {SIGABRT, "ABRT", true, true},
};
#define NKNOWN (sizeof known / sizeof known[0])

_Thread_local int cp_busy;
volatile sig_atomic_t cp_signal_held;

static struct sigaction previous[65];
static pid_t owner;
static int request_pipe[2] = {-1, -1}, answer_pipe[2] = {-1, -1};
static cp_signal_writer writer;
static atomic_int taken; /* a handler is waiting for the watcher */
static struct {
    int sig, code;
    pid_t sender;
    void *addr;
} request;

uint64_t cp_signals_default(void)
{
    uint64_t m = 0;
    for (size_t i = 0; i < NKNOWN; i++)
        if (known[i].by_default)
            m |= 1ull << known[i].sig;
    return m;
}

int cp_signals_parse(const char *v, uint64_t *mask)
{
    if (!strcasecmp(v, "default")) {
        *mask = cp_signals_default();
        return 0;
    }
    if (!strcasecmp(v, "none") || !strcasecmp(v, "off")) {
        *mask = 0;
        return 0;
    }
    uint64_t m = 0;
    const char *p = v;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *name = p;
        if (n > 3 && !strncasecmp(name, "SIG", 3)) {
            name += 3;
            n -= 3;
        }
        size_t i = 0;
        while (i < NKNOWN && !(strlen(known[i].name) == n && !strncasecmp(known[i].name, name, n)))
            i++;
        if (i == NKNOWN)
            return -1;
        m |= 1ull << known[i].sig;
        p = name + n;
        if (*p == ',')
            p++;
    }
    *mask = m;
    return 0;
}

void cp_signals_show(uint64_t mask, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NKNOWN && used < len; i++)
        if (mask & (1ull << known[i].sig))
            used += (size_t)snprintf(out + used, len - used, "%sSIG%s", used ? "," : "",
                                     known[i].name);
    if (!used)
        snprintf(out, len, "none");
}

static const char *name_of(int sig)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (known[i].sig == sig)
            return known[i].name;
    return "?";
}

static bool is_fatal(int sig)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (known[i].sig == sig)
            return known[i].fatal;
    return false;
}

/* The process goes on after the signal only if the application's own
 * handler lets it. */
static bool ends_process(int sig)
{
    const struct sigaction *o = &previous[sig];
    return !(o->sa_flags & SA_SIGINFO) && o->sa_handler == SIG_DFL;
}

/* ------------------------------------------------------------ watcher */

static bool sent(int code)
{
    return code == SI_USER || code == SI_QUEUE || code == SI_TKILL;
}

static void describe(char *out, size_t len)
{
    int sig = request.sig;
    if (sent(request.code) && request.sender == getpid())
        snprintf(out, len, "SIG%s raised by the process itself%s", name_of(sig),
                 sig == SIGABRT ? " (abort, a failed assert)" : "");
    else if (sent(request.code))
        snprintf(out, len, "SIG%s sent by process %ld", name_of(sig), (long)request.sender);
    else if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL)
        snprintf(out, len, "SIG%s at address %p", name_of(sig), request.addr);
    else
        snprintf(out, len, "SIG%s", name_of(sig));
}

/* A batch system signals every rank at once; the launcher, seeing the first
 * one end, kills the others (MPICH's with SIGKILL) perhaps before they have
 * written.  A rank that was sent a termination signal stays a moment after
 * writing, so that the others, writing at the same time, finish too. */
static void linger(void)
{
    struct timespec t = {0, CP_SIGNAL_LINGER_MS * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        char b;
        ssize_t n = read(request_pipe[0], &b, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL;
        char why[160];
        describe(why, sizeof why);
        if (!ends_process(request.sig)) {
            /* The application handles it and may go on: a snapshot, and
             * recording continues. */
            if (atomic_load(&cp_state) == CP_STATE_ON)
                writer(why, is_fatal(request.sig));
        } else {
            int expected = CP_STATE_ON;
            if (atomic_compare_exchange_strong(&cp_state, &expected, CP_STATE_DONE)) {
                writer(why, is_fatal(request.sig));
                if (sent(request.code))
                    linger();
            }
        }
        while (write(answer_pipe[1], &b, 1) < 0 && errno == EINTR)
            ;
    }
}

/* ------------------------------------------------------------ handler */

static void say(const char *text)
{
    ssize_t rc = write(STDERR_FILENO, text, strlen(text));
    (void)rc;
}

static int elapsed_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int)((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000);
}

/* Wake the watcher and wait for it, within the time limit. */
static void write_and_wait(int sig, const siginfo_t *si)
{
    char b;
    while (read(answer_pipe[0], &b, 1) > 0) /* an answer that came too late */
        ;
    request.sig = sig;
    request.code = si ? si->si_code : SI_USER;
    request.sender = si ? si->si_pid : 0;
    request.addr = si ? si->si_addr : NULL;
    b = 1;
    if (write(request_pipe[1], &b, 1) != 1)
        return;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int left = CP_SIGNAL_WAIT_MS - elapsed_ms(&t0);
        if (left <= 0) {
            say("collprof: the partial profile was not written in time; the signal goes on\n");
            return;
        }
        struct pollfd p = {.fd = answer_pipe[0], .events = POLLIN};
        int rc = poll(&p, 1, left);
        if (rc > 0 && read(answer_pipe[0], &b, 1) == 1)
            return;
        if (rc < 0 && errno != EINTR)
            return;
    }
}

/* Hand the signal to what was installed before collprof. */
static void pass_on(int sig, siginfo_t *si, void *ctx)
{
    struct sigaction *o = &previous[sig];
    if (o->sa_flags & SA_SIGINFO) {
        if (o->sa_sigaction)
            o->sa_sigaction(sig, si, ctx);
    } else if (o->sa_handler == SIG_DFL) {
        /* Blocked while this handler runs: delivered, with its default
         * action, as soon as it returns. */
        sigaction(sig, o, NULL);
        raise(sig);
    } else if (o->sa_handler != SIG_IGN) {
        o->sa_handler(sig);
    }
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    if (getpid() == owner && atomic_load(&cp_state) == CP_STATE_ON) {
        if (cp_busy > 0 && !is_fatal(sig)) {
            cp_signal_held = sig; /* delivered again by cp_busy_leave */
            errno = saved;
            return;
        }
        if (cp_busy > 0) {
            say("collprof: a fatal signal inside collprof's own code: no partial profile\n");
        } else {
            int expected = 0;
            if (atomic_compare_exchange_strong(&taken, &expected, 1)) {
                write_and_wait(sig, si);
                if (!ends_process(sig))
                    atomic_store(&taken, 0);
            }
        }
    }
    pass_on(sig, si, ctx);
    errno = saved;
}

void cp_signal_release(void)
{
    int sig = cp_signal_held;
    cp_signal_held = 0;
    if (sig)
        raise(sig);
}

/* ------------------------------------------------------------ start */

void cp_signals_start(uint64_t mask, cp_signal_writer write)
{
    if (!mask || !write)
        return;
    writer = write;
    if (pipe2(request_pipe, O_CLOEXEC) || pipe2(answer_pipe, O_CLOEXEC | O_NONBLOCK)) {
        if (cp_rt.world_rank == 0)
            cp_log("cannot set up signal handling (%s): no partial profile on a signal",
                   strerror(errno));
        return;
    }
    owner = getpid();
    /* The watcher takes no signal: they go to the application's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1 << 20);
    pthread_t t;
    int rc = pthread_create(&t, &attr, watcher, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        if (cp_rt.world_rank == 0)
            cp_log("cannot start the signal watcher (%s): no partial profile on a signal",
                   strerror(rc));
        return;
    }
    for (size_t i = 0; i < NKNOWN; i++) {
        int sig = known[i].sig;
        if (!(mask & (1ull << sig)))
            continue;
        struct sigaction cur, act;
        if (sigaction(sig, NULL, &cur))
            continue;
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
            continue; /* ignored by the application: nothing ends */
        memset(&act, 0, sizeof act);
        act.sa_sigaction = on_signal;
        act.sa_flags = SA_SIGINFO | SA_RESTART | (cur.sa_flags & SA_ONSTACK);
        sigfillset(&act.sa_mask);
        previous[sig] = cur;
        sigaction(sig, &act, NULL);
    }
}
