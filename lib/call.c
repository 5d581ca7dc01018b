/* Recording a call: numbering, recording window, pause (see call.h). */
#include "call.h"
#include "call_memo.h"
#include "capture.h"

#include <stdlib.h>

#include "callsite.h"
#include "mpi_facts.h"

#include "code_padding.h"

/* The slow parts of cp_call_record, kept out of its common path: a new
 * call site, a signature other than the last, a collective's first call,
 * a new run of the sequence, a call the timing sample keeps.  Each may
 * allocate or unwind, and leaves errno as it found it (call.h). */
#define SLOW_PART(type, name, params, call)                                                \
    __attribute__((noinline, cold)) type name params                                      \
    {                                                                                     \
        int saved_ = errno;                                                               \
        type r_ = call;                                                                   \
        errno = saved_;                                                                   \
        return r_;                                                                        \
    }

static SLOW_PART(uint32_t, path_capture, (void *ra, bool *by_address),
                 cp_callsite_capture(ra, by_address))
static SLOW_PART(uint32_t, signature_other,
                 (cp_counts *t, const cp_vec_arg *send, const cp_vec_arg *recv,
                  const cp_call *call, uint32_t path),
                 cp_counts_signature_other(t, send, recv, call->root, path, call->form))
static SLOW_PART(cp_coll_tables *, tables_new, (cp_comm *c, int coll), cp_comm_tables(c, coll))
SLOW_PART(uint64_t, cp_call_append, (cp_counts *t, uint32_t sig),
          cp_counts_record_append(t, sig))

/* The call path of a call on table t: at depth 1 a call from the same
 * site as the last one has the same path (no hashing, no lookup). */
static inline uint32_t callpath_of(cp_counts *t, void *ra)
{
    if (!cp_rt.cfg.callsite_depth)
        return CP_SEQ_NONE;
    if (ra == t->last_ra)
        return t->last_path;
    bool by_address;
    uint32_t p = path_capture(ra, &by_address);
    if (by_address) {
        t->last_ra = ra;
        t->last_path = p;
    }
    return p;
}

#ifdef CP_PAD_RECORD
CP_PLACEMENT_PAD(cp_pad_record, CP_PAD_RECORD)
#endif

/* Changes collprof's tables: a termination signal waits (signals.h). */
void cp_call_record(cp_comm *c, cp_call *call)
{
    cp_side_bytes(&call->send, 0); /* per-peer datatypes: the collector's bytes */
    cp_side_bytes(&call->recv, 1);
    cp_busy_enter();
    cp_coll_tables *x = cp_comm_coll(c, call->coll);
    if (__builtin_expect(!x, 0) && !(x = tables_new(c, call->coll))) {
        call->sig = CP_SEQ_NONE;
        cp_busy_leave();
        return; /* memory ran out: not recorded, not timed (call->timed) */
    }
    cp_memo_fold(x);
    cp_counts *t = &x->counts;
    uint32_t sig = CP_SEQ_NONE;
    bool rec = cp_call_recording(t->ncalls);
    if (rec) {
        uint32_t path = callpath_of(t, call->ra);
        cp_vec_arg send = cp_side_arg(&call->send), recv = cp_side_arg(&call->recv);
        sig = cp_counts_last_is(t, &send, &recv, call->root, path, call->form)
                  ? t->last_sig
                  : signature_other(t, &send, &recv, call, path);
    }
    cp_call_numbered(x, call, cp_call_count(t, sig), sig, rec);
    cp_busy_leave();
}

/* The code of MPI error class cls (model/mpi_facts.h). */
static int32_t error_code(int cls)
{
    int32_t i = 0;
#define CP_CODE_OF(name)                                                                  \
    i++;                                                                                  \
    if (cls == name)                                                                      \
        return i;
    CP_ERROR_CLASSES(CP_CODE_OF)
#undef CP_CODE_OF
    return CP_ERROR_CLASS_OTHER + (cls > 0 ? cls : 0);
}

static int32_t error_code_of(int rc)
{
    int cls = rc;
    if (PMPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = rc;
    return error_code(cls);
}

/* Call idx of x, of signature sig, failed with rc (held busy). */
static void tables_failed(cp_coll_tables *x, uint64_t idx, uint32_t sig, int rc)
{
    if (x && sig != CP_SEQ_NONE) {
        cp_memo_fold(x); /* the call may be one the memo counted */
        cp_counts_failed(&x->counts, idx, sig, error_code_of(rc));
        cp_memo_settled(x);
    }
}

void cp_call_failed(cp_comm *c, int coll, uint64_t idx, uint32_t sig, int rc)
{
    int saved = errno;
    cp_busy_enter();
    tables_failed(cp_comm_coll(c, coll), idx, sig, rc);
    cp_busy_leave();
    errno = saved;
}

/* The memo's last call: the one it numbered last (next - 1), for no other
 * call of the same communicator's collective can come between it and its
 * return (MPI orders them). */
int cp_memo_failed(cp_memo *m, int rc)
{
    int saved = errno;
    cp_busy_enter();
    tables_failed((cp_coll_tables *)m, m->next - 1, m->sig, rc);
    cp_busy_leave();
    errno = saved;
    return rc;
}

static inline int after(cp_memo *m, cp_sample_rec *rec, uint64_t enter, int rc, bool blocking)
{
    cp_memo_time(m, rec, enter, enter, cp_clock_ticks_of(true), blocking);
    return __builtin_expect(rc != MPI_SUCCESS, 0) ? cp_memo_failed(m, rc) : rc;
}
CP_QUIET int cp_memo_after_blocking(cp_memo *m, cp_sample_rec *rec, uint64_t enter, int rc)
{
    return after(m, rec, enter, rc, true);
}
CP_QUIET int cp_memo_after_nonblocking(cp_memo *m, cp_sample_rec *rec, uint64_t enter, int rc)
{
    return after(m, rec, enter, rc, false);
}

void cp_memo_time_far(cp_memo *m, cp_sample_rec *rec, uint64_t enter, uint64_t start,
                      uint64_t exit, bool blocking)
{
    cp_call call = {.rec = rec, .sig = m->sig, .enter = enter, .start = start};
    cp_call_timed_at(&((cp_coll_tables *)m)->timing, &call, exit, blocking);
}

/* The call path and the error code of a call, for the calls recorded
 * outside cp_call_record (persistent.c). */
uint32_t cp_call_path(cp_counts *t, void *ra)
{
    return callpath_of(t, ra);
}

int32_t cp_call_error_code(int rc)
{
    return error_code_of(rc);
}

void cp_comm_created(int rc, const MPI_Comm *newcomm, MPI_Comm like)
{
    if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL ||
        !cp_state_recording(atomic_load_explicit(&cp_hot.state, memory_order_relaxed)))
        return;
    int saved = errno;
    cp_busy_enter();
    cp_comm_lookup_like(*newcomm, like);
    cp_busy_leave();
    errno = saved;
}
