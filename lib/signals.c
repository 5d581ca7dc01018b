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
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <limits.h>
#include <ucontext.h>
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

_Thread_local unsigned cp_busy;
/* The signal this thread holds back (cp_signal_hold), delivered by its
 * last leave. */
static _Thread_local volatile sig_atomic_t signal_held;

/* Is this thread inside collprof's tables (a mark not left)? */
static bool busy(void)
{
    return cp_busy & ~CP_BUSY_HELD;
}

#ifdef CP_BUSY_BY_OFFSET
/* cp_busy's offset from the thread pointer, for cp_busy_enter/leave: set
 * when the library is loaded, before anything can call into it.  First
 * among constructors. */
__attribute__((constructor(101))) static void busy_offset(void)
{
    cp_hot.busy_tpoff = (char *)&cp_busy - (char *)__builtin_thread_pointer();
}
#endif

static struct sigaction previous[65];
static pid_t owner;
static int request_pipe[2] = {-1, -1}, answer_pipe[2] = {-1, -1};
/* A request byte: 1 from a handler or a snapshot, CP_WAKE from
 * cp_signals_start, CP_AGAIN from a handler that found its thread in the
 * quiet section, followed in the same write by a cp_again. */
#define CP_WAKE 2
#define CP_AGAIN 3
typedef struct cp_again {
    char kind; /* CP_AGAIN */
    pid_t tid;
    siginfo_t info;
} cp_again;
_Static_assert(sizeof(cp_again) <= PIPE_BUF, "a request is written whole");
static cp_signal_writer writer;
static atomic_int taken; /* 1: a handler is waiting for the watcher; 2: a snapshot */
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

/* Snapshots: the watcher's timer, in milliseconds of the wall clock
 * (CLOCK_REALTIME, which the job's hosts keep in step).  A snapshot is due
 * at multiples of the interval, on every rank at once: in a job whose
 * ranks wait for each other in collectives, ranks that paused one after the
 * other would stall the job for the sum of their pauses, at once for the
 * longest.  And a snapshot never costs more than 1 % of a rank's time: the
 * next is not due before SNAPSHOT_COST_FACTOR times the last one's length
 * has passed (a state that takes long to write is written less often). */
#define SNAPSHOT_COST_FACTOR 100
static int64_t snapshot_ms, next_due_ms, seen_ms;

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The first multiple of the interval after `after`. */
static int64_t next_multiple(int64_t after)
{
    return (after / snapshot_ms + 1) * snapshot_ms;
}

/* Wait for a request; at each tick of the snapshot timer meanwhile, mark a
 * snapshot due (only while recording: the state then goes back to
 * CP_STATE_ON through the wrapper that takes it).  Returns read's result. */
static ssize_t next_request(char *b)
{
    for (;;) {
        int timeout = -1;
        if (snapshot_ms > 0) {
            int64_t now = now_ms();
            if (now < seen_ms) /* the wall clock was set back: as far as it went */
                next_due_ms -= seen_ms - now;
            seen_ms = now;
            int64_t left = next_due_ms - now;
            if (left <= 0) {
                int expected = CP_STATE_ON;
                if (atomic_compare_exchange_strong(&cp_hot.state, &expected, CP_STATE_SNAPSHOT))
                    cp_hot_publish();
                next_due_ms = next_multiple(next_due_ms - left);
                continue;
            }
            timeout = left > INT32_MAX ? INT32_MAX : (int)left;
        }
        struct pollfd p = {.fd = request_pipe[0], .events = POLLIN};
        int rc = poll(&p, 1, timeout);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc > 0) {
            ssize_t n = read(request_pipe[0], b, 1);
            if (n < 0 && errno == EINTR)
                continue;
            return n;
        }
    }
}

/* Signals the watcher sent again (CP_AGAIN): the original's information,
 * found by the handler through the number the new one carries (its value:
 * AGAIN_MARK + the slot).  The kernel lets a thread send another thread a
 * signal that claims to come from kill() only in its own name, so the
 * handler takes sender and cause from here. */
#define AGAIN_SLOTS 16
#define AGAIN_MARK 0x63700000 /* "cp" */
static siginfo_t again_info[AGAIN_SLOTS];
static unsigned again_next;

/* The original of a signal the watcher sent again, else si itself. */
static siginfo_t *original(siginfo_t *si)
{
    if (si && si->si_code == SI_QUEUE && si->si_pid == owner &&
        (si->si_value.sival_int & ~(AGAIN_SLOTS - 1)) == AGAIN_MARK)
        return &again_info[si->si_value.sival_int & (AGAIN_SLOTS - 1)];
    return si;
}

/* A handler found its thread in the quiet section: a moment later (the
 * section is a few dozen instructions; the pause keeps a thread that was
 * descheduled there from a storm of signals), the signal to the same
 * thread again, or, when the thread has ended, to the process. */
static void send_again(int fd)
{
    cp_again a;
    char *rest = (char *)&a + 1;
    size_t want = sizeof a - 1, got = 0;
    while (got < want) {
        ssize_t n = read(fd, rest + got, want - got);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            return;
        got += n > 0 ? (size_t)n : 0;
    }
    struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
    unsigned slot = again_next++ % AGAIN_SLOTS;
    again_info[slot] = a.info;
    siginfo_t q;
    memset(&q, 0, sizeof q);
    q.si_signo = a.info.si_signo;
    q.si_code = SI_QUEUE;
    q.si_pid = owner;
    q.si_uid = getuid();
    q.si_value.sival_int = (int)(AGAIN_MARK | slot);
    if (syscall(SYS_rt_tgsigqueueinfo, owner, a.tid, q.si_signo, &q))
        syscall(SYS_rt_sigqueueinfo, owner, q.si_signo, &q);
}

static void *watcher(void *arg)
{
    (void)arg;
    for (;;) {
        char b;
        if (next_request(&b) <= 0)
            return NULL;
        if (b == CP_WAKE)
            continue; /* the snapshots' period changed: next_request takes it */
        if (b == CP_AGAIN) {
            send_again(request_pipe[0]);
            continue;
        }
        if (request.sig == 0) { /* a snapshot, its thread waiting between calls */
            int64_t t0 = now_ms();
            if (cp_state_recording(atomic_load(&cp_hot.state)))
                writer(NULL, false);
            int64_t t1 = now_ms(), took = t1 > t0 ? t1 - t0 : 0;
            if (t1 + SNAPSHOT_COST_FACTOR * took > next_due_ms)
                next_due_ms = next_multiple(t1 + SNAPSHOT_COST_FACTOR * took);
            while (write(answer_pipe[1], &b, 1) < 0 && errno == EINTR)
                ;
            continue;
        }
        char why[160];
        describe(why, sizeof why);
        if (!ends_process(request.sig)) {
            /* The application handles it and may go on: a snapshot, and
             * recording continues. */
            if (cp_state_recording(atomic_load(&cp_hot.state)))
                writer(why, is_fatal(request.sig));
        } else {
            if (cp_state_stop()) {
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
            say(sig ? "collprof: the partial profile was not written in time; the signal goes on\n"
                    : "collprof: the snapshot was not written in time; the run goes on\n");
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

/* Taken by a snapshot (taken == 2): a signal on another thread waits for
 * it to end, within the handler's time limit, then writes its own. */
static bool take_for_signal(void)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&taken, &expected, 1))
            return true;
        if (expected != 2 || elapsed_ms(&t0) > CP_SIGNAL_WAIT_MS)
            return false;
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
}

void cp_signals_snapshot(void)
{
    int expected = CP_STATE_SNAPSHOT;
    if (!atomic_compare_exchange_strong(&cp_hot.state, &expected, CP_STATE_ON))
        return; /* another thread took it */
    cp_hot_publish();
    if (getpid() != owner)
        return; /* a child forked after MPI_Init */
    int saved = errno;
    cp_busy_enter(); /* a termination signal meanwhile waits for the snapshot */
    int free_ = 0;
    if (atomic_compare_exchange_strong(&taken, &free_, 2)) {
        write_and_wait(0, NULL);
        atomic_store(&taken, 0);
    }
    cp_busy_leave();
    errno = saved;
}

extern const char __start_cp_quiet[] __attribute__((weak, visibility("hidden")));
extern const char __stop_cp_quiet[] __attribute__((weak, visibility("hidden")));

bool cp_signal_in_quiet(const void *pc)
{
    const char *p = pc;
    return __start_cp_quiet && p >= __start_cp_quiet && p < __stop_cp_quiet;
}

/* The instruction the signal interrupted. */
static const void *interrupted_at(const void *ctx)
{
#if defined(__x86_64__) && defined(__linux__)
    return ctx ? (const void *)((const ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP] : NULL;
#else
    (void)ctx;
    return NULL;
#endif
}

/* The thread was in the quiet section (signals.h): the watcher sends the
 * signal again.  False when it cannot be asked: then the signal is
 * handled now. */
static bool hold_quiet(int sig, const siginfo_t *si)
{
    cp_again a;
    memset(&a, 0, sizeof a);
    a.kind = CP_AGAIN;
    a.tid = (pid_t)syscall(SYS_gettid);
    if (si)
        a.info = *si;
    else
        a.info.si_code = SI_USER;
    a.info.si_signo = sig;
    ssize_t n;
    while ((n = write(request_pipe[1], &a, sizeof a)) < 0 && errno == EINTR)
        ;
    return n == (ssize_t)sizeof a;
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    si = original(si);
    if (getpid() == owner && cp_state_recording(atomic_load(&cp_hot.state))) {
        bool quiet = cp_signal_in_quiet(interrupted_at(ctx));
        if (!is_fatal(sig) && (cp_signal_hold(sig) || (quiet && hold_quiet(sig, si)))) {
            errno = saved;
            return;
        }
        if (busy() || quiet) {
            say("collprof: a fatal signal inside collprof's own code: no partial profile\n");
        } else {
            if (take_for_signal()) {
                write_and_wait(sig, si);
                if (!ends_process(sig))
                    atomic_store(&taken, 0);
            }
        }
    }
    pass_on(sig, si, ctx);
    errno = saved;
}

bool cp_signal_hold(int sig)
{
    if (!busy())
        return false;
    signal_held = sig;
    cp_busy |= CP_BUSY_HELD; /* the thread is stopped here: no change of its own is lost */
    return true;
}

void cp_signal_release(void)
{
    if (cp_busy != CP_BUSY_HELD)
        return; /* still inside an outer mark: its leave delivers */
    int sig = signal_held;
    signal_held = 0;
    cp_busy = 0; /* a signal from here on is handled as it comes */
    if (sig)
        raise(sig);
}

/* ------------------------------------------------------------ start */

/* The watcher and its pipes, made once (cp_signals_prepare or start): 0,
 * or the system's reason why not (said by cp_signals_start, on rank 0). */
static bool prepared;
static int prepare_error;
static const char *prepare_what;

static void prepare(void)
{
    if (prepared)
        return;
    prepared = true;
    owner = getpid();
    if (pipe2(request_pipe, O_CLOEXEC) || pipe2(answer_pipe, O_CLOEXEC | O_NONBLOCK)) {
        prepare_error = errno;
        prepare_what = "cannot set up signal handling";
        return;
    }
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
        prepare_error = rc;
        prepare_what = "cannot start the signal watcher";
    }
}

void cp_signals_prepare(uint64_t mask, uint64_t snapshot_s)
{
    if (!mask && !snapshot_s)
        return; /* nothing for a watcher to do */
    prepare();
}

void cp_signals_start(uint64_t mask, uint64_t snapshot_s, cp_signal_writer w)
{
    if ((!mask && !snapshot_s) || !w)
        return;
    writer = w;
    bool waiting = prepared && !prepare_error; /* an idle watcher, made before MPI_Init */
    if (snapshot_s) {
        snapshot_ms = (int64_t)(snapshot_s > INT64_MAX / 1000 ? INT64_MAX / 1000 : snapshot_s) * 1000;
        next_due_ms = next_multiple(now_ms());
    }
    prepare();
    if (prepare_error) {
        if (cp_rt.world_rank == 0)
            cp_log("%s (%s): no partial profile on a signal", prepare_what, strerror(prepare_error));
        return;
    }
    /* The idle watcher waits without a time limit: woken, it takes the
     * snapshots' period (a request of its own, CP_WAKE, answered by nothing). */
    if (waiting && snapshot_s) {
        char b = CP_WAKE;
        while (write(request_pipe[1], &b, 1) < 0 && errno == EINTR)
            ;
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
