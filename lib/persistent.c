/*
 * Persistent collective requests (see persistent.h), and the wrappers of
 * MPI_Start, MPI_Startall and MPI_Request_free.  The map is small (one entry
 * per live persistent collective) and guarded by a mutex; a Start on a
 * point-to-point request costs one atomic load while the map is empty.
 */
#include "persistent.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "call.h"
#include "capture.h"
#include "export.h"
#include "log.h"
#include "runtime.h"
#include "grow.h"

typedef struct entry {
    MPI_Request req;
    cp_comm *comm;
    int coll;
    uint32_t sig;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static size_t n, cap;
static _Atomic size_t live; /* == n, readable without the lock */
static bool failed_once;

static void persistent_add(MPI_Request req, cp_comm *c, int coll, uint32_t sig)
{
    pthread_mutex_lock(&lock);
    if (cp_grow((void **)&entries, &cap, n + 1, sizeof *entries, 16)) {
        pthread_mutex_unlock(&lock);
        cp_log_once(&failed_once, "out of memory: starts of persistent collectives "
                                  "are not recorded");
        return;
    }
    entries[n++] = (entry){req, c, coll, sig};
    atomic_store(&c->persistent, true);
    atomic_store(&live, n);
    pthread_mutex_unlock(&lock);
}

/* A persistent collective made (its _init call): its signature resolved now,
 * since its counts are fixed (call.h). */
void cp_call_register_persistent(cp_comm *c, cp_call *call, int rc, MPI_Request *request)
{
    int saved = errno;
    cp_coll_tables *x;
    cp_busy_enter();
    if (request && (x = cp_comm_tables(c, call->coll)) != NULL) {
        cp_memo_fold(x);
        /* The counts are fixed at creation: resolve the signature now. */
        /* The path of the _init call: where the request was made. */
        bool rec = rc == MPI_SUCCESS || cp_call_recording(x->counts.ncalls);
        cp_side_bytes(&call->send, 0);
        cp_side_bytes(&call->recv, 1);
        cp_vec_arg send = cp_side_arg(&call->send), recv = cp_side_arg(&call->recv);
        uint32_t sig = rec ? cp_counts_signature_form(&x->counts, &send, &recv,
                                                      call->root,
                                                      cp_call_path(&x->counts, call->ra),
                                                      call->form)
                           : CP_SEQ_NONE;
        if (rc == MPI_SUCCESS) {
            persistent_add(*request, c, call->coll, sig);
        } else {
            /* Refused at creation: no request to start, so the attempt is
             * one call, numbered and marked failed. */
            uint64_t idx = cp_counts_record(&x->counts, sig);
            cp_counts_failed(&x->counts, idx, sig, cp_call_error_code(rc));
        }
        cp_memo_settled(x);
    }
    cp_busy_leave();
    errno = saved;
}

static bool active(void)
{
    return cp_state_recording(atomic_load_explicit(&cp_hot.state, memory_order_relaxed)) &&
           atomic_load_explicit(&live, memory_order_relaxed) > 0;
}

/* A started persistent collective: one call of the signature resolved at
 * creation (MPI_Start). */
static void record_signature(cp_comm *c, int coll, uint32_t sig)
{
    int saved = errno;
    cp_busy_enter();
    cp_coll_tables *x = cp_comm_tables(c, coll);
    if (x) {
        cp_memo_fold(x);
        cp_counts_record(&x->counts, cp_call_recording(x->counts.ncalls) ? sig : CP_SEQ_NONE);
        cp_memo_settled(x);
    }
    cp_busy_leave();
    errno = saved;
}

/* Record a start of req if it is a persistent collective we know. */
static void started(MPI_Request req)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n; i++)
        if (entries[i].req == req) {
            record_signature(entries[i].comm, entries[i].coll, entries[i].sig);
            break;
        }
    pthread_mutex_unlock(&lock);
}

CP_EXPORT int MPI_Start(MPI_Request *request)
{
    if (active() && request) {
        int saved = errno;
        started(*request);
        errno = saved;
    }
    return PMPI_Start(request);
}

CP_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (active() && array_of_requests) {
        int saved = errno;
        for (int i = 0; i < count; i++)
            started(array_of_requests[i]);
        errno = saved;
    }
    return PMPI_Startall(count, array_of_requests);
}

CP_EXPORT int MPI_Request_free(MPI_Request *request)
{
    if (atomic_load_explicit(&live, memory_order_relaxed) > 0 && request) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < n; i++)
            if (entries[i].req == *request) {
                entries[i] = entries[--n];
                atomic_store(&live, n);
                break;
            }
        pthread_mutex_unlock(&lock);
    }
    return PMPI_Request_free(request);
}
