/*
 * The communicator cache (lib/comm_cache.h): a call finds what it reads of
 * its communicator in one entry, copied whole or not at all while another
 * thread writes it; each handle has two places; a freed communicator's
 * entry is gone; the gate is every entry's and no write of an entry
 * changes it.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "comm_cache.h"

/* Stand-ins for a communicator and its tables: only their addresses count. */
static char comms[4], tables[8];
#define COMM(i) ((struct cp_comm *)&comms[i])
#define TABLES(i) ((struct cp_coll_tables *)&tables[i])

/* An entry whose every field says `n`: a copy mixing two writes shows. */
static cp_comm_entry fields(int n)
{
    const uint8_t hot_coll[CP_COMM_HOT] = {5, CP_COMM_HOT_NONE, CP_COMM_HOT_NONE};
    cp_comm_entry e = {.comm = COMM(n), .peers = n, .size = n, .rank = n,
                       .tags = cp_comm_tags(n % 2, hot_coll), .hot = {TABLES(n)}};
    return e;
}

static bool read_bits(uint64_t bits, int coll, cp_comm_view *v)
{
    uint64_t h = cp_comm_place_hash(bits);
    return cp_comm_entry_read(cp_comm_first(h), bits, coll, v) ||
           cp_comm_entry_read(cp_comm_second(h), bits, coll, v);
}

static void empty_cache(void)
{
    for (int i = 0; i < CP_COMM_CACHE_N; i++)
        cp_comm_cache_drop(atomic_load(&cp_comm_cache[i].key) & CP_KEY_HANDLE,
                           cp_comm_cache[i].comm);
}

START_TEST(an_entry_holds_what_a_call_reads)
{
    empty_cache();
    cp_comm_entry e = fields(1);
    e.peers = 7, e.size = 3, e.rank = 2;
    e.tags = cp_comm_tags(true, (const uint8_t[]){5, 9, 2}), e.hot[1] = TABLES(4), e.hot[2] = TABLES(3);
    cp_comm_cache_put(0x44000002, &e, false);
    cp_comm_view v;
    ck_assert(read_bits(0x44000002, 9, &v));
    ck_assert_ptr_eq(v.comm, COMM(1));
    ck_assert_int_eq(v.peers, 7);
    ck_assert_int_eq(v.size, 3);
    ck_assert_int_eq(v.rank, 2);
    ck_assert(v.inter);
    ck_assert_ptr_eq(v.x, TABLES(4));
    ck_assert(read_bits(0x44000002, 5, &v));
    ck_assert_ptr_eq(v.x, TABLES(1));
    ck_assert(read_bits(0x44000002, 2, &v));
    ck_assert_ptr_eq(v.x, TABLES(3));
    ck_assert(read_bits(0x44000002, 6, &v)); /* not among its collectives */
    ck_assert_ptr_null(v.x);
    ck_assert(!read_bits(0x44000003, 5, &v)); /* another handle */
}
END_TEST

START_TEST(handles_the_cache_cannot_hold_match_nothing)
{
    empty_cache();
    ck_assert_uint_eq(cp_comm_bits((MPI_Comm)0), CP_KEY_NEVER);
    cp_comm_view v;
    /* An empty entry's word has no handle bits: a handle of none must not
     * match it. */
    ck_assert(!read_bits(CP_KEY_NEVER, 5, &v));
    cp_comm_entry e = fields(1);
    cp_comm_cache_put(CP_KEY_NEVER, &e, false);
    ck_assert(!read_bits(CP_KEY_NEVER, 5, &v));
    for (int i = 0; i < CP_COMM_CACHE_N; i++)
        ck_assert_uint_eq(atomic_load(&cp_comm_cache[i].key) & CP_KEY_HANDLE, 0);
}
END_TEST

/* Handles whose first place is the same, so that they meet in it. */
static int same_first_place(uint64_t *bits, int n)
{
    uint64_t first = cp_comm_place_hash(0x1000) % CP_COMM_CACHE_N;
    int k = 0;
    for (uint64_t b = 0x1000; k < n && b < 0x1000000; b++)
        if (cp_comm_place_hash(b) % CP_COMM_CACHE_N == first)
            bits[k++] = b;
    return k;
}

START_TEST(two_handles_of_one_place_both_stay)
{
    empty_cache();
    uint64_t b[2];
    ck_assert_int_eq(same_first_place(b, 2), 2);
    cp_comm_entry e1 = fields(1), e2 = fields(2);
    cp_comm_cache_put(b[0], &e1, false);
    cp_comm_cache_put(b[1], &e2, false);
    cp_comm_view v;
    ck_assert(read_bits(b[0], 5, &v));
    ck_assert_ptr_eq(v.comm, COMM(1));
    ck_assert(read_bits(b[1], 5, &v));
    ck_assert_ptr_eq(v.comm, COMM(2));
}
END_TEST

START_TEST(an_update_changes_only_its_own_communicators_entry)
{
    empty_cache();
    cp_comm_entry e1 = fields(1), e2 = fields(2);
    cp_comm_view v;
    /* Not there: an update puts nothing. */
    cp_comm_cache_put(0x84000010, &e1, true);
    ck_assert(!read_bits(0x84000010, 5, &v));
    cp_comm_cache_put(0x84000010, &e1, false);
    /* The handle is another communicator's now: an update for the old one
     * (its tables made after it was freed) leaves it. */
    cp_comm_cache_put(0x84000010, &e2, true);
    ck_assert(read_bits(0x84000010, 5, &v));
    ck_assert_ptr_eq(v.comm, COMM(1));
    /* Its own: written again where it is, with its new tables. */
    e1.tags = cp_comm_tags(true, (const uint8_t[]){5, 7, CP_COMM_HOT_NONE}), e1.hot[1] = TABLES(6);
    cp_comm_cache_put(0x84000010, &e1, true);
    ck_assert(read_bits(0x84000010, 7, &v));
    ck_assert_ptr_eq(v.x, TABLES(6));
}
END_TEST

START_TEST(a_freed_communicators_entry_is_gone)
{
    empty_cache();
    cp_comm_entry e1 = fields(1);
    cp_comm_view v;
    cp_comm_cache_put(0x84000011, &e1, false);
    cp_comm_cache_drop(0x84000011, COMM(2)); /* another communicator's: stays */
    ck_assert(read_bits(0x84000011, 5, &v));
    cp_comm_cache_drop(0x84000011, COMM(1));
    ck_assert(!read_bits(0x84000011, 5, &v));
}
END_TEST

START_TEST(the_gate_is_every_entrys_and_writes_leave_it)
{
    empty_cache();
    cp_comm_cache_gate(0x5a5a);
    cp_comm_entry e1 = fields(1);
    cp_comm_cache_put(0x84000012, &e1, false);
    cp_comm_cache_drop(0x84000012, COMM(1));
    for (int i = 0; i < CP_COMM_CACHE_N; i++)
        ck_assert_uint_eq(atomic_load(&cp_comm_cache[i].gate), 0x5a5a);
    cp_comm_cache_gate(0);
}
END_TEST

/* A writer rewrites one handle's entry, its fields all 1 or all 2 in turn,
 * while this thread reads it: every copy a read keeps is one write's.  A
 * read can only mix two writes when a write runs while it reads; on a
 * loaded machine the two threads seldom run side by side, so the test
 * reads until it has seen OVERLAPS reads during which the writer's count
 * moved (or fails saying it could not), rather than a fixed number. */
#define OVERLAPS 200000
static atomic_bool stop;
static _Atomic unsigned long writes;
static void *rewrite(void *arg)
{
    (void)arg;
    cp_comm_entry e[2] = {fields(1), fields(2)};
    for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
        cp_comm_cache_put(0x84000020, &e[i % 2], false);
        atomic_fetch_add_explicit(&writes, 1, memory_order_release);
    }
    return NULL;
}

START_TEST(a_read_never_mixes_two_writes)
{
    empty_cache();
    cp_comm_entry e = fields(1);
    cp_comm_cache_put(0x84000020, &e, false);
    atomic_store(&stop, false);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, rewrite, NULL), 0);
    long kept = 0, mixed = 0, overlapped = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; overlapped < OVERLAPS; i++) {
        if (i % 65536 == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - t0.tv_sec > 40)
                break;
        }
        unsigned long w0 = atomic_load_explicit(&writes, memory_order_acquire);
        cp_comm_view v;
        bool got = read_bits(0x84000020, 5, &v);
        overlapped += atomic_load_explicit(&writes, memory_order_acquire) != w0;
        if (!got)
            continue;
        kept++;
        int n = v.peers;
        if (v.comm != COMM(n) || v.size != n || v.rank != n || v.inter != (n % 2) ||
            v.x != TABLES(n))
            mixed++;
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    ck_assert_msg(overlapped >= OVERLAPS,
                  "the writer ran during only %ld reads in 40 s (%d needed): the test proves "
                  "nothing on a machine this loaded",
                  overlapped, OVERLAPS);
    ck_assert_int_gt(kept, 0);
    ck_assert_int_eq(mixed, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm_cache");
    TCase *tc = tcase_create("entries");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, an_entry_holds_what_a_call_reads);
    tcase_add_test(tc, handles_the_cache_cannot_hold_match_nothing);
    tcase_add_test(tc, two_handles_of_one_place_both_stay);
    tcase_add_test(tc, an_update_changes_only_its_own_communicators_entry);
    tcase_add_test(tc, a_freed_communicators_entry_is_gone);
    tcase_add_test(tc, the_gate_is_every_entrys_and_writes_leave_it);
    tcase_add_test(tc, a_read_never_mixes_two_writes);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
