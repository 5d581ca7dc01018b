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

int main(void)
{
    Suite *s = suite_create("busy");
    TCase *tc = tcase_create("busy");
    tcase_add_test(tc, marks_count_the_threads_own_counter);
    tcase_add_test(tc, another_threads_marks_are_its_own);
    tcase_add_test(tc, a_held_signal_is_delivered_when_the_last_mark_is_left);
    tcase_add_test(tc, a_held_signal_waits_for_its_own_thread);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
