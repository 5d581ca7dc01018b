/* Keeping a repeat call's raw arguments (see call_memo.h). */
#include "call_memo.h"

#include <stdlib.h>
#include <string.h>

/* Room for n counts in m; false when memory ran out (the memo is then only
 * left empty: nothing is lost, calls take the general path). */
static bool room(cp_memo *m, int64_t n)
{
    if (m->cap >= n)
        return true;
    int saved = errno;
    int *p = realloc(m->counts, (size_t)n * sizeof *p);
    errno = saved;
    if (!p)
        return false;
    m->counts = p;
    m->cap = n;
    return true;
}

void cp_memo_keep(const cp_call *call, cp_comm *c, bool in_place, const void *scounts,
                  MPI_Datatype stype, int64_t slen, const void *rcounts, MPI_Datatype rtype,
                  int64_t rlen, int width)
{
    cp_coll_tables *x = c->coll[call->coll];
    if (width != sizeof(int) || !x || call->sig == CP_SEQ_NONE)
        return;
    cp_memo *m = &x->memo;
    if (m->seen != call->sig) {
        m->seen = call->sig;
        return;
    }
    if (in_place)
        slen = 0;
    /* A call path other than the call site's address alone (deeper paths,
     * or one the callsite collector could not key by address) is not the
     * arguments': cp_call_record then did not keep the site as the last. */
    bool paths = cp_rt.cfg.callsite_depth != 0;
    if ((paths && x->counts.last_ra != call->ra) || rlen < 0 || slen < 0 ||
        slen + rlen > CP_MEMO_MAX || !cp_type_predefined(rtype) ||
        (!in_place && !cp_type_predefined(stype)) || (rlen && !rcounts) ||
        (slen && !scounts))
        return;
    m->sig = CP_MEMO_EMPTY;
    if (room(m, slen + rlen > 0 ? slen + rlen : 1)) {
        if (slen)
            memcpy(m->counts, scounts, (size_t)slen * sizeof(int));
        if (rlen)
            memcpy(m->counts + slen, rcounts, (size_t)rlen * sizeof(int));
        m->form = (uint8_t)call->form;
        m->in_place = in_place;
        m->ra = paths ? call->ra : NULL;
        m->types[0] = stype;
        m->types[1] = rtype;
        m->len[0] = slen;
        m->len[1] = rlen;
        m->sig = call->sig;
        m->tail = cp_seq_tail_of(&x->counts.seq, call->sig);
    }
}

__attribute__((cold)) uint64_t cp_memo_append(cp_coll_tables *x)
{
    cp_memo *m = &x->memo;
    uint64_t idx = cp_call_count(&x->counts, m->sig);
    m->tail = cp_seq_tail_of(&x->counts.seq, m->sig);
    return idx;
}
