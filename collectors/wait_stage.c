/* A member's sampled calls of one series up its tree and back down
 * (wait_stage.h). */
#include "wait_stage.h"

#include <string.h>

int cp_wseries_start(cp_wseries *s, const cp_timing_rec *recs, size_t n, int64_t rank)
{
    memset(s, 0, sizeof *s);
    return cp_wlist_leaf(&s->own, recs, n, rank) || cp_wlist_copy(&s->up, &s->own) ? -1 : 0;
}

void cp_wseries_top(cp_wseries *s, int64_t members)
{
    cp_wlist_complete(&s->up, (uint64_t)members);
    cp_wlist_free(&s->down);
    s->down = s->up;
    s->up = (cp_wlist){0};
    s->have_down = true;
}

void cp_wseries_free(cp_wseries *s)
{
    cp_wlist_free(&s->own);
    cp_wlist_free(&s->up);
    cp_wlist_free(&s->down);
    for (int r = 0; r < 64; r++)
        cp_wlist_free(&s->kid[r]);
}

static void up_pack(void *value, int round, cp_wbuf *b)
{
    (void)round;
    cp_wseries *s = value;
    cp_wlist_pack(b, &s->up, false);
}

static int up_merge(void *value, int round, cp_rbuf *rb)
{
    cp_wseries *s = value;
    cp_wlist l;
    if (round >= 64 || cp_wlist_unpack(rb, &l, false))
        return rb->bad ? CP_GROUP_MALFORMED : CP_GROUP_NOMEM;
    cp_wlist_free(&s->kid[round]);
    s->kid[round] = l; /* kept for the way down */
    return cp_wlist_merge(&s->up, &l) ? CP_GROUP_NOMEM : CP_GROUP_OK;
}

static void down_pack(void *value, int round, cp_wbuf *b)
{
    cp_wseries *s = value;
    cp_wlist l = {0};
    if (!s->have_down || cp_wlist_for_child(&l, &s->down, &s->own, s->kid, round)) {
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
