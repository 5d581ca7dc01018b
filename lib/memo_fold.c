/* The calls a call memo counted, put into its series' tables (see
 * comm_registry.h and call_memo.h). */
#include "comm_registry.h"
#include "runtime.h"

void cp_memo_fold(cp_coll_tables *x)
{
    cp_memo *m = &x->memo;
    uint64_t k = m->next - m->base;
    if (!k)
        return;
    cp_counts *t = &x->counts;
    t->last_sig = m->sig;
    /* All at once through the sequence's last run while it is still the
     * memo's; else one call appended as the sequence appends it (a new
     * run, a repetition going on), and its place taken again. */
    while (k > 0 && !cp_seq_tail_add_n(&t->seq, &m->tail, k)) {
        cp_counts_record(t, m->sig);
        k--;
        m->tail = cp_seq_tail_of(&t->seq, m->sig);
    }
    t->ncalls += k;
    /* `next` stays: a call that read it before this fold (a signal's) adds
     * to it after. */
    m->base = m->next;
}

/* How many calls from index next on are inside the recording window
 * (cp_call_recording), at most 2^32 - 1. */
static uint32_t window_left(uint64_t next)
{
    if (next < cp_hot.start_call || next - cp_hot.start_call >= cp_hot.max_calls)
        return 0;
    uint64_t left = cp_hot.max_calls - (next - cp_hot.start_call);
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

void cp_memo_settled(cp_coll_tables *x)
{
    x->memo.base = x->memo.next = x->counts.ncalls;
    x->memo.left = window_left(x->memo.next);
    if (x->counts.partial)
        x->memo.sig = CP_MEMO_EMPTY;
}

void cp_memo_fold_all(void)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            if (c->coll[k])
                cp_memo_fold(c->coll[k]);
}
