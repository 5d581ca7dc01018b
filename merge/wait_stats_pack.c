/*
 * Wait-state statistics packed for finalize's messages (wait_stats_pack.h).
 */
#include "wait_stats_pack.h"

#include <stdlib.h>
#include <string.h>

void cp_wstat_pack(cp_wbuf *b, const cp_wstat *w)
{
    cp_put_u64(b, w->n);
    double m[5] = {w->sum, w->mean, w->m2, w->min, w->max};
    cp_put(b, m, sizeof m);
    cp_put_u32(b, (uint32_t)w->binned | (uint32_t)w->oom << 1);
    if (!w->binned) {
        cp_put(b, w->vals, w->n * sizeof *w->vals);
        return;
    }
    cp_put_u64(b, w->nbins);
    cp_put(b, w->bin, w->nbins * sizeof *w->bin);
    cp_put(b, w->cnt, w->nbins * sizeof *w->cnt);
}

int cp_wstat_unpack(cp_rbuf *b, cp_wstat *w)
{
    memset(w, 0, sizeof *w);
    w->n = cp_get_u64(b);
    double m[5];
    cp_get(b, m, sizeof m);
    w->sum = m[0], w->mean = m[1], w->m2 = m[2], w->min = m[3], w->max = m[4];
    uint32_t flags = cp_get_u32(b);
    w->binned = flags & 1;
    w->oom = flags & 2;
    if (!w->binned) {
        if (b->bad || w->n > CP_WSTAT_EXACT || !cp_rbuf_has(b, w->n, sizeof(double)))
            b->bad = true;
        else if (w->n && !(w->vals = malloc(w->n * sizeof *w->vals)))
            return -1;
        if (!b->bad)
            cp_get(b, w->vals, w->n * sizeof *w->vals);
        w->capvals = w->n;
    } else {
        uint64_t nb = cp_get_u64(b);
        if (b->bad || !cp_rbuf_has(b, nb, sizeof(int32_t) + sizeof(uint64_t)))
            b->bad = true;
        else if (nb && (!(w->bin = malloc(nb * sizeof *w->bin)) ||
                        !(w->cnt = malloc(nb * sizeof *w->cnt))))
            return cp_wstat_free(w), -1;
        if (!b->bad) {
            cp_get(b, w->bin, nb * sizeof *w->bin);
            cp_get(b, w->cnt, nb * sizeof *w->cnt);
            w->nbins = w->capbins = nb;
        }
        uint64_t total = 0;
        for (size_t i = 0; i < w->nbins; i++) {
            total += w->cnt[i];
            if (i && w->bin[i] <= w->bin[i - 1])
                b->bad = true;
        }
        if (total != w->n && !w->oom)
            b->bad = true;
    }
    if (b->bad)
        cp_wstat_free(w);
    return b->bad ? -1 : 0;
}
