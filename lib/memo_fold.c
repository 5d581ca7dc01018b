/* The calls a call memo counted, put into its series' tables (see
 * comm_registry.h and call_memo.h). */
#include "comm_registry.h"
#include "runtime.h"

#include <string.h>

/* The memo's buckets into the series' histogram, emptied. */
static void hist_fold(cp_timing *t, cp_memo_times *mt)
{
    for (uint32_t i = 0; i < CP_MEMO_HIST; i++)
        if (mt->hist[i]) {
            cp_timing_hist_add(t, mt->lo + i, mt->hist[i]);
            mt->hist[i] = 0;
        }
}

void cp_memo_hist_spill(cp_coll_tables *x, uint32_t b)
{
    cp_memo_times *mt = &x->memo.times;
    uint32_t i = b - mt->lo;
    if (i < CP_MEMO_HIST) { /* a full bucket: its calls and this one */
        cp_timing_hist_add(&x->timing, b, (uint64_t)mt->hist[i] + 1);
        mt->hist[i] = 0;
        return;
    }
    cp_timing_hist_add(&x->timing, b, 1);
    mt->out += mt->out < UINT8_MAX;
    uint32_t in = 0;
    for (uint32_t k = 0; k < CP_MEMO_HIST; k++)
        in += mt->hist[k];
    if (mt->out >= 16 && mt->out * 4u > mt->n && mt->out > in) {
        hist_fold(&x->timing, mt); /* the durations moved: so do the buckets */
        mt->lo = cp_memo_hist_lo(b);
        mt->out = 0;
    }
}

void cp_memo_unreserve(cp_coll_tables *x)
{
    cp_memo_times *mt = &x->memo.times;
    if (mt->rsv) {
        cp_timing_unreserve(&x->timing, mt->rsv);
        mt->rsv = 0;
        mt->gate = x->timing.gate;
    }
}

/* The times the memo's timed calls added, into the series' timing: the
 * signature's aggregate and the histogram (the slots reserved and not
 * handed out given back first). */
static void fold_times(cp_coll_tables *x)
{
    cp_memo_times *mt = &x->memo.times;
    cp_memo_unreserve(x);
    if (!mt->n)
        return; /* every bucket counted here came with a call */
    cp_timing *t = &x->timing;
    uint32_t sig = x->memo.sig;
    cp_timing_agg *a = sig < t->nagg ? &t->agg[sig] : cp_timing_agg_grow(t, sig);
    if (a) {
        a->min = a->n == 0 || mt->min < a->min ? mt->min : a->min;
        a->max = mt->max > a->max ? mt->max : a->max;
        a->n += mt->n;
        a->time += mt->time;
    }
    hist_fold(t, mt);
    uint64_t gate = mt->gate;
    memset(mt, 0, sizeof *mt);
    mt->gate = gate;
}

void cp_memo_fold(cp_coll_tables *x)
{
    cp_memo *m = &x->memo;
    fold_times(x);
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
    fold_times(x); /* of the signature kept until now */
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
