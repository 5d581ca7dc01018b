/* The bytes of a call's arguments (capture.h): datatype sizes asked of MPI
 * or cached, and per-peer counts turned into bytes.  Out of line: the cold
 * halves of capture.h's inline functions. */
#include "capture.h"

#include <stdlib.h>

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

const int64_t *cp_typed_in_bytes(int which, const cp_side *s)
{
    if (scratch[which].cap < s->n) {
        int64_t *nv = realloc(scratch[which].v, (size_t)s->n * sizeof *nv);
        if (!nv)
            return NULL;
        scratch[which].v = nv;
        scratch[which].cap = s->n;
    }
    int64_t *v = scratch[which].v;
    for (int64_t i = 0; i < s->n; i++)
        v[i] = cp_typed_bytes(s, i);
    return v;
}
