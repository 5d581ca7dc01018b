/*
 * Finalize, step 4c: what rank 0 must know of every rank's sites to build
 * the Cube profile's metadata and timings.cpt's aggregates, without
 * gathering the sites: the sorted set of site keys (collective, form, call
 * path) of the job, the number of calls timed in aggregate only, and per
 * collective the timed calls, their time and the shortest and longest call;
 * how the ranks stamped their calls (the manifest's clock); and where each
 * rank ran (host, core, pid: the Cube profile's system tree, O(P) at rank
 * 0 as the file's locations are, a few dozen bytes a rank).
 * Reduced up the world's binomial tree (cp_fin_up_tree): identical keys
 * collapse at every step, so rank 0 receives ceil(log2 P) messages of
 * O(distinct sites), not P lists; the locations of a subtree's ranks (a
 * contiguous range of them) follow their root's, so they arrive in rank
 * order, on the same messages (no gather of its own, whose three
 * collectives cost a round of the scheduler each where ranks outnumber
 * cores).  Each rank keeps its own sites: its
 * column of values goes to rank 0 row by row when profile.cubex is written
 * (finalize_profile.c).
 */
#include <stdlib.h>
#include <string.h>

#include "finalize_mail.h"
#include "finalize_timing.h"
#include "runtime.h"

#define TAG_SITES 0x6375

typedef struct job {
    int64_t *keys; /* ascending, distinct */
    size_t n;
    uint64_t naggregated;
    cp_coll_agg colls[CP_NCOLLECTIVES];
    int64_t clock[4]; /* sums, sums, maximum, maximum (cp_run_times.clock) */
    cp_wbuf locs;     /* the locations of ranks first.. first + nlocs - 1, packed */
    int64_t first;
    uint64_t nlocs;
    bool oom;
} job;

/* A location as it travels. */
static void put_location(cp_wbuf *b, const cp_location *loc)
{
    cp_put_str(b, loc->hostname);
    cp_put(b, &loc->core, sizeof loc->core);
    cp_put(b, &loc->pid, sizeof loc->pid);
    cp_put_u32(b, loc->node);
}

static void get_location(cp_rbuf *b, cp_location *loc)
{
    cp_get_str(b, loc->hostname, sizeof loc->hostname);
    cp_get(b, &loc->core, sizeof loc->core);
    cp_get(b, &loc->pid, sizeof loc->pid);
    loc->node = cp_get_u32(b);
}

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
    cp_put_i64(b, j->first);
    cp_put_u64(b, j->nlocs);
    cp_put_u64(b, j->locs.len);
    cp_put(b, j->locs.p, j->locs.len);
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
    /* the child's subtree begins where this one's ranks so far end */
    int64_t first = cp_get_i64(&rb);
    uint64_t nlocs = cp_get_u64(&rb), bytes = cp_get_u64(&rb);
    sorted &= first == j->first + (int64_t)j->nlocs && cp_rbuf_has(&rb, bytes, 1);
    if (sorted && !rb.bad) {
        cp_put(&j->locs, rb.p + rb.off, (size_t)bytes);
        j->nlocs += nlocs;
        j->oom |= j->locs.failed;
        add_keys(j, keys, n);
        j->naggregated += nagg;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            add_coll(&j->colls[k], &colls[k]);
        add_clock(j->clock, clock);
    }
    free(keys);
    return sorted && !rb.bad && !j->oom;
}

/* Rank 0: every rank's location, in rank order, from the tree's bytes. */
static bool unpack_locations(fin *f, const job *j, cp_run_times *rt)
{
    rt->nranks = f->size;
    rt->loc = calloc((size_t)f->size, sizeof *rt->loc);
    if (!rt->loc || j->nlocs != (uint64_t)f->size)
        return false;
    cp_rbuf rb = {.p = j->locs.p, .len = j->locs.len};
    for (int r = 0; r < f->size; r++)
        get_location(&rb, &rt->loc[r]);
    return !rb.bad && rb.off == rb.len;
}

void cp_fin_job_sites(fin *f, cp_run_times *rt)
{
    job j = {.first = f->rank, .nlocs = 1};
    put_location(&j.locs, &cp_rt.loc);
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
    ok = cp_fin_up_tree(f, TAG_SITES, pack, merge, &j, ok && !j.oom && !j.locs.failed);
    if (f->rank == 0)
        ok = unpack_locations(f, &j, rt) && ok;
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
    cp_wbuf_free(&j.locs);
}
