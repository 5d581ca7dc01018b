/* Recording a call: numbering, recording window, pause (see call.h). */
#include "call.h"

#include <stdlib.h>

#include "callsite.h"
#include "mpi_names.h"

#include "persistent.h"
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
static SLOW_PART(uint32_t, signature_other, (cp_counts *t, const cp_call *call, uint32_t path),
                 cp_counts_signature_other(t, &call->send, &call->recv, call->root, path,
                                           call->form))
static SLOW_PART(cp_coll_tables *, tables_new, (cp_comm *c, int coll), cp_comm_tables(c, coll))
SLOW_PART(uint64_t, cp_call_append, (cp_counts *t, uint32_t sig),
          cp_counts_record_append(t, sig))
SLOW_PART(cp_sample_rec *, cp_call_sample, (cp_timing *t, uint64_t idx),
          cp_timing_slot_kept(t, idx))

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
    cp_busy_enter();
    cp_coll_tables *x = c->coll[call->coll];
    if (__builtin_expect(!x, 0) && !(x = tables_new(c, call->coll))) {
        call->sig = CP_SEQ_NONE;
        cp_busy_leave();
        return; /* memory ran out: not recorded, not timed (call->timed) */
    }
    cp_counts *t = &x->counts;
    uint32_t sig = CP_SEQ_NONE;
    bool rec = cp_call_recording(t->ncalls);
    if (rec) {
        uint32_t path = callpath_of(t, call->ra);
        sig = cp_counts_last_is(t, &call->send, &call->recv, call->root, path, call->form)
                  ? t->last_sig
                  : signature_other(t, call, path);
    }
    cp_call_numbered(x, call, cp_call_count(t, sig), sig, rec);
    cp_busy_leave();
}

/* The size of t from MPI in *size; false for MPI_DATATYPE_NULL or when MPI
 * refuses.  MPI 4 has the MPI_Count form _c, MPI 3.1 (Open MPI 4.1) _x. */
static bool type_size_from_mpi(MPI_Datatype t, MPI_Count *size)
{
#if MPI_VERSION >= 4
    return t != MPI_DATATYPE_NULL && PMPI_Type_size_c(t, size) == MPI_SUCCESS;
#else
    return t != MPI_DATATYPE_NULL && PMPI_Type_size_x(t, size) == MPI_SUCCESS;
#endif
}

/* A datatype neither built in (MPICH) nor cached (Open MPI): capture.h. */
int64_t cp_type_size_asked(MPI_Datatype t)
{
    MPI_Count size = 0;
    return type_size_from_mpi(t, &size) ? (int64_t)size : 0;
}

/* The code of MPI error class cls (writers/mpi_names.h). */
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

void cp_call_failed(cp_comm *c, const cp_call *call, int rc)
{
    int saved = errno;
    cp_busy_enter();
    cp_coll_tables *x = c->coll[call->coll];
    if (x && call->sig != CP_SEQ_NONE)
        cp_counts_failed(&x->counts, call->idx, call->sig, error_code_of(rc));
    cp_busy_leave();
    errno = saved;
}

void cp_record_signature(cp_comm *c, int coll, uint32_t sig)
{
    int saved = errno;
    cp_busy_enter();
    cp_coll_tables *x = cp_comm_tables(c, coll);
    if (x)
        cp_counts_record(&x->counts, cp_call_recording(x->counts.ncalls) ? sig : CP_SEQ_NONE);
    cp_busy_leave();
    errno = saved;
}

void cp_call_register_persistent(cp_comm *c, cp_call *call, int rc, MPI_Request *request)
{
    int saved = errno;
    cp_coll_tables *x;
    cp_busy_enter();
    if (request && (x = cp_comm_tables(c, call->coll)) != NULL) {
        /* The counts are fixed at creation: resolve the signature now. */
        /* The path of the _init call: where the request was made. */
        bool rec = rc == MPI_SUCCESS || cp_call_recording(x->counts.ncalls);
        uint32_t sig = rec ? cp_counts_signature_form(&x->counts, &call->send, &call->recv,
                                                      call->root,
                                                      callpath_of(&x->counts, call->ra),
                                                      call->form)
                           : CP_SEQ_NONE;
        if (rc == MPI_SUCCESS) {
            cp_persistent_add(*request, c, call->coll, sig);
        } else {
            /* Refused at creation: no request to start, so the attempt is
             * one call, numbered and marked failed. */
            uint64_t idx = cp_counts_record(&x->counts, sig);
            cp_counts_failed(&x->counts, idx, sig, error_code_of(rc));
        }
    }
    cp_busy_leave();
    errno = saved;
}

void cp_comm_created(int rc, const MPI_Comm *newcomm)
{
    if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL ||
        atomic_load_explicit(&cp_state, memory_order_relaxed) != CP_STATE_ON)
        return;
    int saved = errno;
    cp_busy_enter();
    cp_comm_get(*newcomm);
    cp_busy_leave();
    errno = saved;
}

#ifdef OPEN_MPI
#include <dlfcn.h>

_Atomic uint64_t cp_dt_cache[CP_DT_SLOTS];

/* A handle not in the cache (capture.h): its size from MPI, and whether it
 * is one of the library's predefined objects (an address inside the loaded
 * MPI library), which the cache then keeps. */
int64_t cp_type_size_miss(MPI_Datatype t)
{
    MPI_Count size = 0;
    if (!type_size_from_mpi(t, &size))
        return 0;
    uintptr_t h = (uintptr_t)t;
    if (h >> 48)
        return (int64_t)size; /* not a user-space address of 48 bits: not cached */
    Dl_info info;
    void *mpi_object = (void *)&ompi_mpi_int; /* an object of the MPI library */
    Dl_info mpi;
    bool predefined = dladdr((void *)t, &info) && dladdr(mpi_object, &mpi) &&
                      info.dli_fbase == mpi.dli_fbase && size >= 0 && size < CP_DT_NOT_PREDEFINED;
    uint64_t e = (uint64_t)h << 16 | (predefined ? (uint64_t)size : CP_DT_NOT_PREDEFINED);
    atomic_store_explicit(cp_dt_slot(h), e, memory_order_relaxed);
    return (int64_t)size;
}
#endif

/* Per-thread scratch for counts turned into bytes (capture.h).  Allocated
 * once per size reached; the vectors only live during one wrapper call. */
static _Thread_local struct {
    int64_t *v;
    int64_t cap;
} scratch[2];

cp_vec_arg cp_bytes(int which, const void *counts, int width, int64_t len,
                    const MPI_Datatype *types)
{
    if (len == 0)
        return (cp_vec_arg){.present = true, .counts = cp_no_counts, .width = 4, .dtsize = 1,
                            .in_bytes = true};
    if (!counts || !types || len < 0)
        return (cp_vec_arg){0};
    if (scratch[which].cap < len) {
        int64_t *nv = realloc(scratch[which].v, (size_t)len * sizeof *nv);
        if (!nv)
            return (cp_vec_arg){0};
        scratch[which].v = nv;
        scratch[which].cap = len;
    }
    int64_t *v = scratch[which].v;
    for (int64_t i = 0; i < len; i++) {
        int64_t c = width == 4 ? ((const int *)counts)[i] : ((const MPI_Count *)counts)[i];
        v[i] = c * cp_type_size(types[i]);
    }
    return (cp_vec_arg){.present = true, .counts = v, .width = 8, .len = len, .dtsize = 1,
                        .in_bytes = true};
}
