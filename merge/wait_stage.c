/* A member's sampled calls of one series up its tree and back down
 * (wait_stage.h). */
#include "wait_stage.h"

#include <stdlib.h>
#include <string.h>

int cp_wseries_start(cp_wseries *s, const cp_timing_cols *recs, size_t n, int64_t rank)
{
    memset(s, 0, sizeof *s);
    s->up_is_own = true;
    return cp_wlist_leaf(&s->own, recs, n, rank) ? -1 : 0;
}

/* What goes up from s. */
static const cp_wlist *up_of(const cp_wseries *s)
{
    return s->up_is_own ? &s->own : &s->up;
}

/* s's up list as its own copy, before it changes.  0, or -1 (no memory). */
static int up_apart(cp_wseries *s)
{
    if (!s->up_is_own)
        return 0;
    if (cp_wlist_copy(&s->up, &s->own))
        return -1;
    s->up_is_own = false;
    return 0;
}

int cp_wseries_top(cp_wseries *s, int64_t members)
{
    if (up_apart(s))
        return -1;
    cp_wlist_complete(&s->up, (uint64_t)members);
    cp_wlist_free(&s->down);
    s->down = s->up;
    s->up = (cp_wlist){0};
    s->have_down = true;
    return 0;
}

void cp_wseries_free(cp_wseries *s)
{
    cp_wlist_free(&s->own);
    cp_wlist_free(&s->up);
    cp_wlist_free(&s->down);
    for (int r = 0; s->kid && r < s->nkid; r++)
        cp_wlist_free(&s->kid[r]);
    free(s->kid);
    s->kid = NULL;
    s->nkid = 0;
}

/* The list child `round` sent up, kept for the way down (s takes l). */
static int keep_kid(cp_wseries *s, int round, cp_wlist l)
{
    if (!s->kid && !(s->kid = calloc(CP_WSERIES_ROUNDS, sizeof *s->kid))) {
        cp_wlist_free(&l);
        return -1;
    }
    cp_wlist_free(&s->kid[round]);
    s->kid[round] = l;
    if (round >= s->nkid)
        s->nkid = round + 1;
    return 0;
}

static void up_pack(void *value, int round, cp_wbuf *b)
{
    (void)round;
    cp_wseries *s = value;
    cp_wlist_pack(b, up_of(s), false);
}

static int up_merge(void *value, int round, cp_rbuf *rb)
{
    cp_wseries *s = value;
    cp_wlist l;
    if (round >= CP_WSERIES_ROUNDS || cp_wlist_unpack(rb, &l, false))
        return rb->bad ? CP_GROUP_MALFORMED : CP_GROUP_NOMEM;
    if (keep_kid(s, round, l) || up_apart(s))
        return CP_GROUP_NOMEM;
    return cp_wlist_merge(&s->up, &s->kid[round]) ? CP_GROUP_NOMEM : CP_GROUP_OK;
}

static void down_pack(void *value, int round, cp_wbuf *b)
{
    cp_wseries *s = value;
    cp_wlist l = {0};
    static const cp_wlist no_kids[CP_WSERIES_ROUNDS];
    if (!s->have_down || round >= CP_WSERIES_ROUNDS ||
        cp_wlist_for_child(&l, &s->down, &s->own, s->kid ? s->kid : no_kids, round)) {
        b->failed = true; /* the engine sends the failed mark instead */
        return;
    }
    cp_wlist_pack(b, &l, true);
    cp_wlist_free(&l);
}

static int down_merge(void *value, int round, cp_rbuf *rb)
{
    (void)round;
    cp_wseries *s = value;
    cp_wlist_free(&s->down);
    if (cp_wlist_unpack(rb, &s->down, true))
        return rb->bad ? CP_GROUP_MALFORMED : CP_GROUP_NOMEM;
    s->have_down = true;
    return CP_GROUP_OK;
}

const cp_group_op cp_wseries_up_op = {up_pack, up_merge, false};
const cp_group_op cp_wseries_down_op = {down_pack, down_merge, false};

/* ------------------------------------------- a communicator's series */

void cp_wcomm_init(cp_wcomm *w)
{
    memset(w, 0, sizeof *w);
}

int cp_wcomm_add(cp_wcomm *w, uint32_t k, uint64_t ncalls, const cp_timing_cols *recs,
                 size_t n, int64_t rank, uint32_t level)
{
    if (k >= CP_WCOMM_COLLS || cp_wcomm_at(w, k))
        return -1;
    cp_wseries *s = malloc(sizeof *s);
    if (!s)
        return -1;
    cp_wcoll *e;
    if (cp_wseries_start(s, recs, n, rank) || !(e = cp_slots_add(&w->c, k, sizeof *e))) {
        cp_wseries_free(s);
        free(s);
        return -1;
    }
    *e = (cp_wcoll){.s = s, .min_calls = ncalls, .max_calls = ncalls, .level = level};
    return 0;
}

void cp_wcomm_free(cp_wcomm *w)
{
    CP_SLOTS_EACH(k, &w->c)
    {
        cp_wcoll *e = cp_wcomm_at(w, k);
        if (e->s) {
            cp_wseries_free(e->s);
            free(e->s);
        }
    }
    cp_slots_free(&w->c);
}

const cp_wseries *cp_wcomm_series(const cp_wcomm *w, uint32_t k)
{
    const cp_wcoll *e = cp_wcomm_at(w, k);
    return e ? e->s : NULL;
}

bool cp_wcomm_down(const cp_wcomm *w, uint32_t k)
{
    const cp_wseries *s = cp_wcomm_series(w, k);
    return s && s->have_down;
}

void cp_wcomm_top(cp_wcomm *w, int64_t members, uint32_t *disagreed)
{
    uint32_t out = 0;
    CP_SLOTS_EACH(k, &w->c)
    {
        cp_wcoll *e = cp_wcomm_at(w, k);
        /* left out: nothing of it goes down */
        if (e->min_calls != e->max_calls || !e->s || cp_wseries_top(e->s, members))
            out |= 1u << k;
    }
    if (disagreed)
        *disagreed = out;
}

/* Up: per series seen at or below this member, its collective, the fewest
 * and most calls, and the list (empty where this member has none). */
static void wcomm_up_pack(void *value, int round, cp_wbuf *b)
{
    (void)round;
    cp_wcomm *w = value;
    cp_put_u32(b, cp_slots_count(&w->c));
    CP_SLOTS_EACH(k, &w->c)
    {
        const cp_wcoll *e = cp_wcomm_at(w, k);
        cp_put_u32(b, k);
        cp_put_u64(b, e->min_calls);
        cp_put_u64(b, e->max_calls);
        cp_put_u32(b, e->level);
        cp_wlist none = {0};
        cp_wlist_pack(b, e->s ? up_of(e->s) : &none, false);
    }
}

static int wcomm_up_merge(void *value, int round, cp_rbuf *rb)
{
    cp_wcomm *w = value;
    uint32_t n = cp_get_u32(rb);
    uint64_t got = 0;
    if (rb->bad || n > CP_WCOMM_COLLS || round >= CP_WSERIES_ROUNDS)
        return CP_GROUP_MALFORMED;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = cp_get_u32(rb);
        uint64_t lo = cp_get_u64(rb), hi = cp_get_u64(rb);
        uint32_t level = cp_get_u32(rb);
        if (rb->bad || k >= CP_WCOMM_COLLS || (got >> k & 1) || lo > hi || level > 63)
            return CP_GROUP_MALFORMED;
        got |= UINT64_C(1) << k;
        cp_wcoll *e = cp_wcomm_at(w, k);
        if (!e) {
            /* Members on this side without the series made 0 calls of it. */
            if (!(e = cp_slots_add(&w->c, k, sizeof *e)))
                return CP_GROUP_NOMEM;
            e->min_calls = 0;
            e->max_calls = hi;
        } else {
            e->min_calls = lo < e->min_calls ? lo : e->min_calls;
            e->max_calls = hi > e->max_calls ? hi : e->max_calls;
        }
        if (level > e->level)
            e->level = level; /* the coarsest sample below */
        cp_wlist l;
        if (cp_wlist_unpack(rb, &l, false))
            return rb->bad ? CP_GROUP_MALFORMED : CP_GROUP_NOMEM;
        if (!e->s) { /* this member has none: the child's list goes no further */
            cp_wlist_free(&l);
            continue;
        }
        if (keep_kid(e->s, round, l) || up_apart(e->s) ||
            cp_wlist_merge(&e->s->up, &e->s->kid[round]))
            return CP_GROUP_NOMEM;
    }
    /* Series below this member that the child's members never called. */
    CP_SLOTS_EACH(k, &w->c)
        if (!(got >> k & 1))
            cp_wcomm_at(w, k)->min_calls = 0;
    return CP_GROUP_OK;
}

/* Down: the series that came down to this member, each as its child of
 * this round must see it. */
static void wcomm_down_pack(void *value, int round, cp_wbuf *b)
{
    cp_wcomm *w = value;
    uint32_t n = 0;
    CP_SLOTS_EACH(k, &w->c)
        n += cp_wcomm_down(w, k);
    cp_put_u32(b, n);
    CP_SLOTS_EACH(k, &w->c)
    {
        if (!cp_wcomm_down(w, k))
            continue;
        const cp_wcoll *e = cp_wcomm_at(w, k);
        cp_put_u32(b, k);
        cp_put_u32(b, e->level);
        cp_wseries_down_op.pack(e->s, round, b);
    }
}

static int wcomm_down_merge(void *value, int round, cp_rbuf *rb)
{
    cp_wcomm *w = value;
    uint32_t n = cp_get_u32(rb);
    if (rb->bad || n > CP_WCOMM_COLLS)
        return CP_GROUP_MALFORMED;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = cp_get_u32(rb), level = cp_get_u32(rb);
        if (rb->bad || k >= CP_WCOMM_COLLS || level > 63)
            return CP_GROUP_MALFORMED;
        cp_wcoll *e = cp_wcomm_at(w, k);
        if (e)
            e->level = level; /* the lead's: the coarsest of all members */
        if (!e || !e->s) { /* the lead agreed on calls this member never made */
            cp_wlist skip;
            if (cp_wlist_unpack(rb, &skip, true))
                return rb->bad ? CP_GROUP_MALFORMED : CP_GROUP_NOMEM;
            cp_wlist_free(&skip);
            continue;
        }
        int rc = cp_wseries_down_op.merge(e->s, round, rb);
        if (rc != CP_GROUP_OK)
            return rc;
    }
    return CP_GROUP_OK;
}

const cp_group_op cp_wcomm_up_op = {wcomm_up_pack, wcomm_up_merge, false};
const cp_group_op cp_wcomm_down_op = {wcomm_down_pack, wcomm_down_merge, false};
