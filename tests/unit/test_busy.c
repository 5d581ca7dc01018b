/*
 * The busy mark (lib/signals.h): while a thread changes collprof's tables a
 * termination signal is held back, and delivered when the thread's last
 * mark is left.  The marks reach the thread's counter by its offset from
 * the thread pointer (set when the library loads); the signal handler reads
 * the counter as a thread-local variable.  Both must be the same counter,
 * each thread's own.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>

#include "runtime.h"
#include "signals.h"

/* What lib/signals.c takes from the rest of the library. */
_Alignas(64) cp_hot_line cp_hot;
cp_runtime cp_rt;
void cp_log(const char *fmt, ...)
{
    (void)fmt;
}
/* The snapshot's state changes publish the gates (comm_registry.c): no
 * snapshot is taken here. */
void cp_hot_publish(void)
{
}

START_TEST(marks_count_the_threads_own_counter)
{
    ck_assert_int_eq(cp_busy, 0);
    cp_busy_enter();
    ck_assert_int_eq(cp_busy, 1);
    cp_busy_enter();
    ck_assert_int_eq(cp_busy, 2);
    cp_busy_leave();
    ck_assert_int_eq(cp_busy, 1);
    cp_busy_leave();
    ck_assert_int_eq(cp_busy, 0);
}
END_TEST

static void *mark_in_thread(void *arg)
{
    int *seen = arg;
    seen[0] = cp_busy;
    cp_busy_enter();
    seen[1] = cp_busy;
    cp_busy_enter();
    seen[2] = cp_busy;
    cp_busy_leave();
    cp_busy_leave();
    seen[3] = cp_busy;
    return NULL;
}

START_TEST(another_threads_marks_are_its_own)
{
    cp_busy_enter();
    int seen[4] = {-1, -1, -1, -1};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, mark_in_thread, seen), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(seen[0], 0);
    ck_assert_int_eq(seen[1], 1);
    ck_assert_int_eq(seen[2], 2);
    ck_assert_int_eq(seen[3], 0);
    ck_assert_int_eq(cp_busy, 1); /* this thread's mark untouched */
    cp_busy_leave();
    ck_assert_int_eq(cp_busy, 0);
}
END_TEST

static volatile sig_atomic_t delivered;
static void count_signal(int sig)
{
    (void)sig;
    delivered++;
}

START_TEST(a_held_signal_is_delivered_when_the_last_mark_is_left)
{
    struct sigaction sa = {.sa_handler = count_signal};
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    delivered = 0;
    ck_assert(!cp_signal_hold(SIGUSR1)); /* not busy: the handler handles it */
    cp_busy_enter();
    cp_busy_enter();
    ck_assert(cp_signal_hold(SIGUSR1)); /* what the handler does while busy */
    cp_busy_leave();
    ck_assert_int_eq(delivered, 0);
    ck_assert_uint_eq(cp_busy, 1 | CP_BUSY_HELD);
    cp_busy_enter(); /* a mark inside still counts */
    cp_busy_leave();
    ck_assert_int_eq(delivered, 0);
    cp_busy_leave();
    ck_assert_int_eq(delivered, 1);
    ck_assert_uint_eq(cp_busy, 0);
    cp_busy_enter();
    cp_busy_leave(); /* nothing held: nothing delivered */
    ck_assert_int_eq(delivered, 1);
}
END_TEST

static void *enter_and_leave(void *arg)
{
    (void)arg;
    cp_busy_enter();
    cp_busy_leave();
    return NULL;
}

/* The signal waits for the thread it came to: another thread's leave,
 * whose tables were never half-changed, does not deliver it. */
START_TEST(a_held_signal_waits_for_its_own_thread)
{
    struct sigaction sa = {.sa_handler = count_signal};
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    delivered = 0;
    cp_busy_enter();
    ck_assert(cp_signal_hold(SIGUSR1));
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, enter_and_leave, NULL), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(delivered, 0);
    cp_busy_leave();
    ck_assert_int_eq(delivered, 1);
}
END_TEST

#ifdef CP_QUIET_SECTION
/* The quiet section (signals.h): a signal that interrupts its code waits
 * until the thread has left it, sent again by the watcher, with the
 * original's sender and cause; outside it a signal is handled at once. */
static atomic_int quiet_stay, quiet_in, quiet_done;
static atomic_int writes, app_seen, app_code, app_pid;
static char write_reason[160];

static void test_writer(const char *reason, bool always_say)
{
    (void)always_say;
    snprintf(write_reason, sizeof write_reason, "%s", reason ? reason : "(snapshot)");
    atomic_fetch_add(&writes, 1);
}

static void app_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)ctx;
    atomic_store(&app_code, si->si_code);
    atomic_store(&app_pid, (int)si->si_pid);
    atomic_fetch_add(&app_seen, 1);
}

/* Changes nothing: it stays in the section while told to.  noinline: the
 * loop is this function's code, in the section. */
static CP_QUIET __attribute__((noinline)) void spin_in_quiet(void)
{
    atomic_store(&quiet_in, 1);
    while (atomic_load(&quiet_stay))
        ;
}

static void *quiet_thread(void *arg)
{
    (void)arg;
    spin_in_quiet();
    while (!atomic_load(&quiet_done)) /* outside the section now */
        ;
    return NULL;
}

static bool wait_for(atomic_int *v, int want, int ms)
{
    for (int i = 0; i < ms && atomic_load(v) < want; i++) {
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
    return atomic_load(v) >= want;
}

START_TEST(a_signal_in_the_quiet_section_waits_until_the_thread_left_it)
{
    struct sigaction sa = {.sa_sigaction = app_handler, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    cp_signals_start(1ull << SIGUSR1, 0, test_writer);
    atomic_store(&cp_hot.state, CP_STATE_ON);
    ck_assert(cp_signal_in_quiet((const void *)spin_in_quiet));
    ck_assert(!cp_signal_in_quiet((const void *)quiet_thread));

    /* outside the section: written and passed on at once */
    atomic_store(&quiet_stay, 0);
    atomic_store(&quiet_done, 0);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, quiet_thread, NULL), 0);
    ck_assert(wait_for(&quiet_in, 1, 10000));
    ck_assert_int_eq(pthread_kill(t, SIGUSR1), 0);
    ck_assert(wait_for(&app_seen, 1, 10000));
    ck_assert_int_eq(atomic_load(&writes), 1);
    atomic_store(&quiet_done, 1);
    ck_assert_int_eq(pthread_join(t, NULL), 0);

    /* inside: nothing until the thread leaves it, then once */
    atomic_store(&quiet_in, 0);
    atomic_store(&quiet_stay, 1);
    atomic_store(&quiet_done, 0);
    ck_assert_int_eq(pthread_create(&t, NULL, quiet_thread, NULL), 0);
    ck_assert(wait_for(&quiet_in, 1, 10000));
    ck_assert_int_eq(pthread_kill(t, SIGUSR1), 0);
    struct timespec wait = {0, 200000000L};
    nanosleep(&wait, NULL);
    ck_assert_int_eq(atomic_load(&writes), 1);   /* not written while in it */
    ck_assert_int_eq(atomic_load(&app_seen), 1); /* nor passed on */
    atomic_store(&quiet_stay, 0);
    ck_assert(wait_for(&app_seen, 2, 10000));
    ck_assert_int_eq(atomic_load(&writes), 2);
    /* the application sees the signal as it was sent (pthread_kill: from
     * this process, by tgkill), not as the watcher sent it again */
    ck_assert_int_eq(atomic_load(&app_code), SI_TKILL);
    ck_assert_int_eq(atomic_load(&app_pid), (int)getpid());
    ck_assert_msg(strstr(write_reason, "SIGUSR1 raised by the process itself"), "%s",
                  write_reason);
    atomic_store(&quiet_done, 1);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(atomic_load(&app_seen), 2); /* once */
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("busy");
    TCase *tc = tcase_create("busy");
    tcase_add_test(tc, marks_count_the_threads_own_counter);
    tcase_add_test(tc, another_threads_marks_are_its_own);
    tcase_add_test(tc, a_held_signal_is_delivered_when_the_last_mark_is_left);
    tcase_add_test(tc, a_held_signal_waits_for_its_own_thread);
#ifdef CP_QUIET_SECTION
    tcase_add_test(tc, a_signal_in_the_quiet_section_waits_until_the_thread_left_it);
#endif
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
