/* The job's sites, clocks and locations up the world's tree (job_sites.h). */
#include "job_sites.h"

#include <stdlib.h>
#include <string.h>

static void add_clock(int64_t a[4], const int64_t b[4])
{
    a[0] += b[0];
    a[1] += b[1];
    a[2] = b[2] > a[2] ? b[2] : a[2];
    a[3] = b[3] > a[3] ? b[3] : a[3];
}

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

int cp_job_sites_init(cp_job_sites *j, size_t ncolls, int64_t rank, const cp_location *loc,
                      const int64_t clock[4])
{
    memset(j, 0, sizeof *j);
    j->colls = calloc(ncolls ? ncolls : 1, sizeof *j->colls);
    j->ncolls = ncolls;
    j->first = rank;
    j->nlocs = 1;
    memcpy(j->clock, clock, sizeof j->clock);
    put_location(&j->locs, loc);
    if (!j->colls || j->locs.failed) {
        cp_job_sites_free(j);
        return -1;
    }
    return 0;
}

void cp_job_sites_add_keys(cp_job_sites *j, const int64_t *add, size_t n)
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

void cp_coll_agg_add(cp_coll_agg *a, const cp_coll_agg *b)
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
    const cp_job_sites *j = ctx;
    cp_put_u32(b, failed);
    if (failed)
        return;
    cp_put_u64(b, j->naggregated);
    cp_put_u64(b, j->ncolls);
    cp_put(b, j->colls, j->ncolls * sizeof *j->colls);
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
    cp_job_sites *j = ctx;
    cp_rbuf rb = {.p = buf, .len = len};
    if (cp_get_u32(&rb) != 0)
        return false;
    uint64_t nagg = cp_get_u64(&rb);
    if (cp_get_u64(&rb) != j->ncolls || !cp_rbuf_has(&rb, j->ncolls, sizeof *j->colls))
        return false;
    cp_coll_agg *colls = malloc((j->ncolls ? j->ncolls : 1) * sizeof *colls);
    int64_t clock[4];
    uint64_t n = 0;
    int64_t *keys = NULL;
    bool formed = false;
    if (colls) {
        cp_get(&rb, colls, j->ncolls * sizeof *colls);
        cp_get(&rb, clock, sizeof clock);
        n = cp_get_u64(&rb);
        formed = !rb.bad && cp_rbuf_has(&rb, n, sizeof(int64_t));
        if (formed)
            keys = malloc((n ? n : 1) * sizeof *keys);
    }
    if (!colls || !keys) {
        j->oom |= !colls || formed; /* else: malformed */
        free(colls);
        return false;
    }
    cp_get(&rb, keys, n * sizeof *keys);
    bool good = true;
    for (uint64_t i = 1; i < n; i++)
        good &= keys[i - 1] < keys[i];
    /* the child's subtree begins where this one's ranks so far end */
    int64_t first = cp_get_i64(&rb);
    uint64_t nlocs = cp_get_u64(&rb), bytes = cp_get_u64(&rb);
    good &= first == j->first + (int64_t)j->nlocs && cp_rbuf_has(&rb, bytes, 1) && !rb.bad;
    if (good) {
        cp_put(&j->locs, rb.p + rb.off, (size_t)bytes);
        j->nlocs += nlocs;
        j->oom |= j->locs.failed;
        cp_job_sites_add_keys(j, keys, n);
        j->naggregated += nagg;
        for (size_t k = 0; k < j->ncolls; k++)
            cp_coll_agg_add(&j->colls[k], &colls[k]);
        add_clock(j->clock, clock);
    }
    free(keys);
    free(colls);
    return good && !j->oom;
}

const cp_tree_op cp_job_sites_op = {pack, merge};

bool cp_job_sites_locations(const cp_job_sites *j, int64_t n, cp_location *out)
{
    if (j->first != 0 || j->nlocs != (uint64_t)n)
        return false;
    cp_rbuf rb = {.p = (const char *)j->locs.p, .len = j->locs.len};
    for (int64_t r = 0; r < n; r++)
        get_location(&rb, &out[r]);
    return !rb.bad && rb.off == rb.len;
}

bool cp_job_sites_hosts(const cp_job_sites *j, int64_t n, cp_job_hosts *out)
{
    memset(out, 0, sizeof *out);
    if (j->first != 0 || j->nlocs != (uint64_t)n ||
        !(out->node = malloc((n > 0 ? (size_t)n : 1) * sizeof *out->node)))
        return false;
    out->nranks = n;
    cp_rbuf rb = {.p = (const char *)j->locs.p, .len = j->locs.len};
    bool ok = true;
    for (int64_t r = 0; r < n && ok && !rb.bad; r++) {
        cp_location loc;
        get_location(&rb, &loc);
        out->node[r] = loc.node;
        if (loc.node >= out->nnodes) { /* nodes are numbered from 0, in rank order */
            if (loc.node > (uint32_t)n) {
                rb.bad = true;
                break;
            }
            char **nn = realloc(out->name, ((size_t)loc.node + 1) * sizeof *nn);
            if (!nn) {
                ok = false;
                break;
            }
            for (uint32_t i = out->nnodes; i <= loc.node; i++)
                nn[i] = NULL;
            out->name = nn;
            out->nnodes = loc.node + 1;
        }
        if (!out->name[loc.node] && !(out->name[loc.node] = strdup(loc.hostname)))
            ok = false;
    }
    return ok && !rb.bad && rb.off == rb.len;
}

void cp_job_sites_free(cp_job_sites *j)
{
    free(j->keys);
    free(j->colls);
    cp_wbuf_free(&j->locs);
    memset(j, 0, sizeof *j);
}
