/*
 * Finalize, step 4c: what rank 0 must know of every rank's sites to build
 * the Cube profile's metadata and timings.cpt's aggregates, without
 * gathering the sites: the sorted set of site keys (collective, form, call
 * path) of the job, the number of calls timed in aggregate only, and per
 * collective the timed calls, their time and the shortest and longest call;
 * and how the ranks stamped their calls (the manifest's clock).
 * Reduced up the world's binomial tree (cp_fin_up_tree): identical keys
 * collapse at every step, so rank 0 receives ceil(log2 P) messages of
 * O(distinct sites), not P lists.  Each rank keeps its own sites: its
 * column of values goes to rank 0 row by row when profile.cubex is written
 * (finalize_profile.c).
 */
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"

#define TAG_SITES 0x6375

typedef struct job {
    int64_t *keys; /* ascending, distinct */
    size_t n;
    uint64_t naggregated;
    cp_coll_agg colls[CP_NCOLLECTIVES];
    int64_t clock[4]; /* sums, sums, maximum, maximum (cp_run_times.clock) */
    bool oom;
} job;

static void add_clock(int64_t a[4], const int64_t b[4])
{
    a[0] += b[0];
    a[1] += b[1];
    a[2] = b[2] > a[2] ? b[2] : a[2];
    a[3] = b[3] > a[3] ? b[3] : a[3];
}

/* keys := keys U add (both ascending, distinct). */
static void add_keys(job *j, const int64_t *add, size_t n)
{
    if (n == 0)
        return;
    int64_t *out = malloc((j->n + n) * sizeof *out);
    if (!out) {
        j->oom = true;
        return;
    }
    size_t a = 0, b = 0, k = 0;
    while (a < j->n || b < n) {
        if (b == n || (a < j->n && j->keys[a] < add[b]))
            out[k++] = j->keys[a++];
        else if (a == j->n || add[b] < j->keys[a])
            out[k++] = add[b++];
        else
            out[k++] = j->keys[a++], b++;
    }
    free(j->keys);
    j->keys = out;
    j->n = k;
}

static void add_coll(cp_coll_agg *a, const cp_coll_agg *b)
{
    a->calls += b->calls;
    a->time += b->time;
    if (b->any) {
        a->min = !a->any || b->min < a->min ? b->min : a->min;
        a->max = !a->any || b->max > a->max ? b->max : a->max;
        a->any = 1;
    }
}

static void pack(void *ctx, cp_wbuf *b, bool failed)
{
    const job *j = ctx;
    cp_put_u32(b, failed);
    if (failed)
        return;
    cp_put_u64(b, j->naggregated);
    cp_put(b, j->colls, sizeof j->colls);
    cp_put(b, j->clock, sizeof j->clock);
    cp_put_u64(b, j->n);
    cp_put(b, j->keys, j->n * sizeof *j->keys);
}

static bool merge(void *ctx, const char *buf, size_t len)
{
    job *j = ctx;
    cp_rbuf rb = {.p = buf, .len = len};
    if (cp_get_u32(&rb) != 0)
        return false;
    uint64_t nagg = cp_get_u64(&rb);
    cp_coll_agg colls[CP_NCOLLECTIVES];
    cp_get(&rb, colls, sizeof colls);
    int64_t clock[4];
    cp_get(&rb, clock, sizeof clock);
    uint64_t n = cp_get_u64(&rb);
    if (rb.bad || !cp_rbuf_has(&rb, n, sizeof(int64_t)))
        return false;
    int64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) {
        j->oom = true;
        return false;
    }
    cp_get(&rb, keys, n * sizeof *keys);
    bool sorted = true;
    for (uint64_t i = 1; i < n; i++)
        sorted &= keys[i - 1] < keys[i];
    if (sorted && !rb.bad) {
        add_keys(j, keys, n);
        j->naggregated += nagg;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            add_coll(&j->colls[k], &colls[k]);
        add_clock(j->clock, clock);
    }
    free(keys);
    return sorted && !rb.bad && !j->oom;
}

void cp_fin_job_sites(fin *f, cp_run_times *rt)
{
    job j = {0};
    memcpy(j.clock, rt->clock, sizeof j.clock);
    int64_t *own = malloc((rt->nmine ? rt->nmine : 1) * sizeof *own);
    bool ok = own != NULL;
    for (size_t i = 0; own && i < rt->nmine; i++) {
        const cp_site *s = &rt->mine[i];
        own[i] = cp_site_key(s->coll, s->form, s->path);
        j.naggregated += s->s.naggregated;
        if (s->coll < CP_NCOLLECTIVES) {
            cp_coll_agg a = {.calls = s->s.ntimed, .time = s->s.time, .min = s->s.min,
                             .max = s->s.max, .any = s->s.nrecords > 0};
            add_coll(&j.colls[s->coll], &a);
        }
    }
    if (own) {
        qsort(own, rt->nmine, sizeof *own, cp_fin_cmp_i64);
        size_t n = 0;
        for (size_t i = 0; i < rt->nmine; i++)
            if (n == 0 || own[n - 1] != own[i])
                own[n++] = own[i];
        add_keys(&j, own, n);
    }
    free(own);
    ok = cp_fin_up_tree(f, TAG_SITES, pack, merge, &j, ok && !j.oom);
    if (f->rank == 0) {
        rt->keys = j.keys;
        rt->nkeys = j.n;
        rt->naggregated = j.naggregated;
        memcpy(rt->colls, j.colls, sizeof rt->colls);
        memcpy(rt->clock, j.clock, sizeof rt->clock);
        rt->sites_lost = !ok;
        j.keys = NULL;
    }
    free(j.keys);
}
