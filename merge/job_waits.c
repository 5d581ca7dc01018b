/* The wait states' statistics and the slowest calls up the world's tree
 * (job_waits.h). */
#include "job_waits.h"
#include "wait_stats_pack.h"

#include <string.h>

static void pack(void *ctx, cp_wbuf *b, bool failed)
{
    const cp_job_waits *fd = ctx;
    cp_put_u32(b, failed);
    cp_put_u32(b, (uint32_t)fd->nslowest); /* kept even when the rest failed */
    cp_put(b, fd->slowest, fd->nslowest * sizeof *fd->slowest);
    for (int p = 0; p < CP_NWAIT_PATTERNS && !failed; p++) {
        cp_wstat_pack(b, &fd->stat[p]);
        cp_put_u32(b, (uint32_t)fd->top[p].nevents);
        cp_put(b, fd->top[p].events, fd->top[p].nevents * sizeof(cp_stat_event));
    }
}

static bool merge(void *ctx, const char *buf, size_t len)
{
    cp_job_waits *fd = ctx;
    cp_rbuf rb = {.p = buf, .len = len};
    bool failed = cp_get_u32(&rb) != 0;
    uint32_t ns = cp_get_u32(&rb);
    for (uint32_t i = 0; i < ns && i < CP_SLOWEST && !rb.bad; i++) {
        cp_cpt_slow s;
        cp_get(&rb, &s, sizeof s);
        s.collective[sizeof s.collective - 1] = '\0';
        if (!rb.bad)
            cp_cpt_slow_offer(fd->slowest, &fd->nslowest, CP_SLOWEST, &s);
    }
    if (failed || ns > CP_SLOWEST)
        return false;
    for (int p = 0; p < CP_NWAIT_PATTERNS && !rb.bad; p++) {
        cp_wstat w;
        if (cp_wstat_unpack(&rb, &w))
            return false;
        cp_wstat_merge(&fd->stat[p], &w);
        cp_wstat_free(&w);
        uint32_t ne = cp_get_u32(&rb);
        for (uint32_t e = 0; e < ne && e < CP_STAT_MAX_EVENTS && !rb.bad; e++) {
            cp_stat_event ev;
            cp_get(&rb, &ev, sizeof ev);
            if (!rb.bad)
                cp_stat_offer_event(&fd->top[p], &ev);
        }
        if (ne > CP_STAT_MAX_EVENTS)
            rb.bad = true;
    }
    return !rb.bad;
}

const cp_tree_op cp_job_waits_op = {pack, merge};

void cp_job_waits_free(cp_job_waits *j)
{
    for (int p = 0; p < CP_NWAIT_PATTERNS; p++)
        cp_wstat_free(&j->stat[p]);
    memset(j, 0, sizeof *j);
}
