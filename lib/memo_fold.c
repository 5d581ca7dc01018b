/* The calls a call memo counted, put into its series' tables (see
 * comm_registry.h and call_memo.h). */
#include "comm_registry.h"

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

void cp_memo_settled(cp_coll_tables *x)
{
    x->memo.base = x->memo.next = x->counts.ncalls;
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
