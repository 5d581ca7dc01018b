/* Keeping a repeat call's description (see call_memo.h). */
#include "call_memo.h"

#include <stdlib.h>

/* Room for `bytes` of kept arrays in m (where cp_memo_kept finds them):
 * inline when they fit, else on the heap; NULL when memory ran out (the
 * memo is then only left empty: nothing is lost, calls take the general
 * path). */
static unsigned char *room(cp_memo *m, int64_t bytes)
{
    if (bytes <= CP_MEMO_INLINE)
        return m->inline_;
    if (m->cap < bytes) {
        int saved = errno;
        void *p = realloc(m->heap, (size_t)bytes);
        errno = saved;
        if (!p)
            return NULL;
        m->heap = p;
        m->cap = (uint32_t)bytes;
    }
    return m->heap;
}

/* How side a is kept (enum cp_memo_kind, CP_MEMO_HASHED added for a
 * digest), -1 when it cannot be (its counts kept as they are at most
 * `left`).  Its kept bytes in *bytes. */
static int keepable(const cp_side *a, int64_t *left, int64_t *bytes)
{
    int kind = cp_memo_kind_of(a);
    *bytes = 0;
    if (kind == CP_MEMO_ABSENT)
        return kind;
    if (a->dtsize < 0 || a->dtsize > INT32_MAX)
        return -1;
    if (kind == CP_MEMO_SINGLE)
        return kind;
    if (a->n < 0)
        return -1;
    if (!a->typed && (kind == CP_MEMO_INTS || kind == CP_MEMO_LONGS) && a->n > CP_MEMO_WHOLE)
        kind |= CP_MEMO_HASHED;
    else if (a->n > *left)
        return -1;
    else
        *left -= a->n;
    *bytes = cp_memo_side_bytes(kind, a->n);
    return kind;
}

static void put_side(cp_memo *m, int i, const cp_side *a, int kind, unsigned char **at)
{
    m->kind[i] = (uint8_t)kind;
    m->dtsize[i] = (int32_t)a->dtsize;
    m->n[i] = a->n;
    if (kind & CP_MEMO_HASHED) {
        uint64_t d = cp_memo_digest(a->counts, a->n, a->width);
        memcpy(*at, &d, sizeof d);
        *at += sizeof d;
    } else if (kind >= CP_MEMO_INTS && a->n) {
        memcpy(*at, a->counts, (size_t)(a->n * a->width));
        *at += cp_memo_side_bytes(kind, a->n);
    }
}

/* Keep the call's description, if it is of the kind the memo knows. */
static void keep(cp_memo *m, const cp_coll_tables *x, const cp_call *call, void (*mpi)(void))
{
    /* A call path other than the call site's address alone (deeper paths,
     * or one the callsite collector could not key by address) is not the
     * call's own: cp_call_record then did not keep the site as the last. */
    bool paths = cp_rt.cfg.callsite_depth != 0;
    int64_t left = CP_MEMO_MAX, bytes[2];
    int kind[2] = {-1, -1};
    if ((paths && x->counts.last_ra != call->ra) ||
        (kind[0] = keepable(&call->send, &left, &bytes[0])) < 0 ||
        (kind[1] = keepable(&call->recv, &left, &bytes[1])) < 0)
        return;
    m->sig = CP_MEMO_EMPTY;
    unsigned char *at = room(m, bytes[0] + bytes[1]);
    if (!at)
        return;
    put_side(m, 0, &call->send, kind[0], &at);
    put_side(m, 1, &call->recv, kind[1], &at);
    m->form = (uint8_t)call->form;
    m->root = (int32_t)call->root;
    m->ra = paths ? call->ra : NULL;
    m->mpi = mpi;
    m->times.tpoff = (int32_t)cp_hot.busy_tpoff;
    m->sig = call->sig;
    m->tail = cp_seq_tail_of(&x->counts.seq, call->sig);
}

void cp_memo_keep(const cp_call *call, cp_comm *c, void (*mpi)(void))
{
    cp_coll_tables *x = cp_comm_coll(c, call->coll);
    if (!x)
        return;
    cp_busy_enter();
    cp_memo_settled(x);
    cp_memo *m = &x->memo;
    if (call->sig != CP_SEQ_NONE && !x->counts.partial) {
        if (m->seen != call->sig)
            m->seen = call->sig;
        else
            keep(m, x, call, mpi);
    }
    cp_busy_leave();
}

cp_sample_rec *cp_memo_slot(cp_coll_tables *x, uint64_t idx)
{
    cp_memo_times *mt = &x->memo.times;
    /* The sample changes: held as one change (signals.h). */
    cp_busy_enter();
    cp_memo_unreserve(x); /* a reservation the calls left (idx is not its next) */
    x->memo.next++;
    cp_sample_rec *r = cp_timing_slot(&x->timing, idx);
    /* The slots of the next calls of r's block, while every call is kept:
     * the next fifteen repeated calls read neither the series' timing nor
     * the sampler. */
    mt->rsv = r ? (uint8_t)cp_timing_reserve(&x->timing, &mt->slot) : 0;
    mt->gate = mt->rsv ? idx + 1 : x->timing.gate;
    cp_busy_leave();
    return r;
}
