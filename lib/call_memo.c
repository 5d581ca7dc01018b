/* Keeping a repeat call's description (see call_memo.h). */
#include "call_memo.h"

/* Can side a be kept (enum cp_memo_kind), -1 when not. */
static int keepable(const cp_side *a)
{
    int kind = cp_memo_kind_of(a);
    if (kind == CP_MEMO_ABSENT)
        return kind;
    if (a->dtsize < 0 || a->dtsize > INT32_MAX || a->n < 0 || a->typed)
        return -1;
    return kind;
}

static void put_side(cp_memo *m, int i, const cp_side *a, int kind)
{
    m->kind[i] = (uint8_t)kind;
    m->dtsize[i] = (int32_t)a->dtsize;
    m->n[i] = kind == CP_MEMO_SINGLE ? a->n : (int64_t)cp_memo_key(a);
}

/* Keep the call's description, if it is of the kind the memo knows. */
static void keep(cp_memo *m, const cp_coll_tables *x, const cp_call *call, void (*mpi)(void))
{
    /* A call path other than the call site's address alone (deeper paths,
     * or one the callsite collector could not key by address) is not the
     * call's own: cp_call_record then did not keep the site as the last. */
    bool paths = cp_rt.cfg.callsite_depth != 0;
    int kind[2] = {-1, -1};
    if ((paths && x->counts.last_ra != call->ra) || (kind[0] = keepable(&call->send)) < 0 ||
        (kind[1] = keepable(&call->recv)) < 0)
        return;
    m->sig = CP_MEMO_EMPTY;
    put_side(m, 0, &call->send, kind[0]);
    put_side(m, 1, &call->recv, kind[1]);
    m->form = (uint8_t)call->form;
    m->root = (int32_t)call->root;
    m->ra = paths ? call->ra : NULL;
    m->mpi = mpi;
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
