/* The rank graph of a profile (see rank_graph.h). */
#include "rank_graph.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grow.h"
#include "reader_internal.h"
#include "file_names.h"
#include "search.h"

/* ------------------------------------------------- pairs, hashed by key */

typedef struct pair_map {
    uint64_t *key; /* a * nranks + b + 1; 0: empty */
    uint64_t *bytes;
    size_t n, cap;
} pair_map;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return x;
}

static int map_grow(pair_map *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *k = calloc(cap, sizeof *k), *v = calloc(cap, sizeof *v);
    if (!k || !v) {
        free(k), free(v);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i])
            continue;
        size_t j = mix(m->key[i]) & (cap - 1);
        while (k[j])
            j = (j + 1) & (cap - 1);
        k[j] = m->key[i], v[j] = m->bytes[i];
    }
    free(m->key), free(m->bytes);
    m->key = k, m->bytes = v, m->cap = cap;
    return 0;
}

typedef struct builder {
    const cp_profile *p;
    cp_rank_graph *g;
    pair_map map;
    cp_error *err;
} builder;

static int add_pair(builder *bd, int64_t from, int64_t to, cp_u128 bytes)
{
    if (bytes == 0)
        return 0;
    if (from == to) {
        bd->g->self += bytes;
        return 0;
    }
    int64_t a = from < to ? from : to, b = from < to ? to : from;
    pair_map *m = &bd->map;
    if (2 * (m->n + 1) > m->cap && map_grow(m))
        return cp_error_set(bd->err, "out of memory");
    uint64_t key = (uint64_t)a * (uint64_t)bd->g->nranks + (uint64_t)b + 1;
    size_t j = mix(key) & (m->cap - 1);
    while (m->key[j] && m->key[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->key[j])
        m->key[j] = key, m->n++;
    cp_u128 sum = (cp_u128)m->bytes[j] + bytes;
    if (sum > UINT64_MAX) {
        sum = UINT64_MAX;
        bd->g->saturated = true;
    }
    m->bytes[j] = (uint64_t)sum;
    return 0;
}

static int leave_out(builder *bd, const char *collective, cp_u128 bytes, const char *why)
{
    cp_rank_graph *g = bd->g;
    for (size_t i = 0; i < g->nleft; i++)
        if (!strcasecmp(g->left[i].collective, collective) && g->left[i].why == why) {
            g->left[i].bytes += bytes;
            return 0;
        }
    if (cp_grow_implicit((void **)&g->left, g->nleft, sizeof *g->left))
        return cp_error_set(bd->err, "out of memory");
    cp_left_out *l = &g->left[g->nleft++];
    memset(l, 0, sizeof *l);
    snprintf(l->collective, sizeof l->collective, "%s", collective);
    l->bytes = bytes;
    l->why = why;
    return 0;
}

/* ------------------------------------------------ what each block moves */

static const char WHY_REDUCTION[] =
    "reductions, scans and barriers: the MPI standard fixes no path for their data";
static const char WHY_ROOTED_INTER[] =
    "rooted collectives on intercommunicators: the root's group is not recorded per call";
static const char WHY_FANOUT[] =
    "one amount to every peer of a communicator above 4,096 ranks: its pairs alone would be "
    "more than 16 million";
static const char WHY_UNPLACED[] =
    "ranks not placed in the world (no communicator membership in the profile)";

static bool is(const char *c, const char *name)
{
    return strcasecmp(c, name) == 0;
}

static bool is_reduction(const char *c)
{
    return is(c, "Reduce") || is(c, "Allreduce") || is(c, "Reduce_scatter") ||
           is(c, "Reduce_scatter_block") || is(c, "Scan") || is(c, "Exscan") || is(c, "Barrier");
}

/* One block's communicator: its ranks in world ranks (local order), and the
 * remote group's on an intercommunicator. */
typedef struct group {
    int64_t *local, *remote;
    int64_t nlocal, nremote;
    const cp_comm_info *ci;
} group;

static int64_t *expand(const cp_ranges *r, int64_t *n)
{
    *n = cp_ranges_count(r);
    int64_t *v = malloc((size_t)(*n ? *n : 1) * sizeof *v), k = 0;
    for (size_t i = 0; v && i < r->n; i++)
        for (int64_t x = r->v[i].lo; x <= r->v[i].hi; x++)
            v[k++] = x;
    return v;
}

static int group_of(const cp_profile *p, const cp_block *b, group *gr)
{
    memset(gr, 0, sizeof *gr);
    gr->ci = cp_reader_manifest_comm(p, b->comm_id);
    const cp_ranges *loc = gr->ci ? &gr->ci->members : &b->comm_world_ranks;
    if (!loc->n)
        return 1; /* cannot be placed */
    gr->local = expand(loc, &gr->nlocal);
    if (gr->ci && gr->ci->remote_members.n)
        gr->remote = expand(&gr->ci->remote_members, &gr->nremote);
    if (!gr->local || (gr->ci && gr->ci->remote_members.n && !gr->remote))
        return -1;
    return 0;
}

static void group_free(group *gr)
{
    free(gr->local), free(gr->remote);
}

/* World rank of peer k of a rank's row: the remote group's on an
 * intercommunicator, the out-neighbour's in a topology, else the
 * communicator's; -1 when out of range. */
static int64_t peer_world(const group *gr, const cp_block *b, int64_t rank, int64_t k)
{
    if (cp_collective_rows_vary(b->collective)) {
        if (!gr->ci || !gr->ci->neighbors || rank >= gr->ci->size)
            return -1;
        const cp_neighbors *nb = &gr->ci->neighbors[rank];
        if (k < 0 || (size_t)k >= nb->ndestinations)
            return -1;
        k = nb->destinations[k];
    } else if (gr->remote) {
        return k >= 0 && k < gr->nremote ? gr->remote[k] : -1;
    }
    return k >= 0 && k < gr->nlocal ? gr->local[k] : -1;
}

/* Peers a single count goes to when it is an amount for each peer. */
static int64_t npeers(const group *gr, const cp_block *b, int64_t rank)
{
    if (cp_collective_rows_vary(b->collective))
        return gr->ci && gr->ci->neighbors && rank < gr->ci->size
                   ? (int64_t)gr->ci->neighbors[rank].ndestinations
                   : 0;
    return gr->remote ? gr->nremote : gr->nlocal;
}

static int rank_row(builder *bd, const group *gr, const cp_block *b, const cp_row *row,
                    int64_t rank, cp_u128 calls)
{
    const char *c = b->collective;
    int64_t me = rank < gr->nlocal ? gr->local[rank] : -1;
    if (me < 0 || me >= bd->g->nranks)
        return leave_out(bd, c, calls * (cp_u128)cp_reader_bytes(b, cp_row_sum(row)), WHY_UNPLACED);
    if (is(c, "Gather") || is(c, "Gatherv")) { /* each contribution to the root */
        int64_t root = b->root >= 0 && b->root < gr->nlocal ? gr->local[b->root] : -1;
        if (root < 0)
            return leave_out(bd, c, calls * (cp_u128)cp_reader_bytes(b, cp_row_sum(row)),
                             WHY_UNPLACED);
        return add_pair(bd, me, root, calls * (cp_u128)cp_reader_bytes(b, cp_row_sum(row)));
    }
    if (is(c, "Bcast")) { /* the root's buffer to every other rank */
        if (rank != b->root)
            return 0;
        cp_u128 each = calls * (cp_u128)cp_reader_bytes(b, cp_row_sum(row));
        for (int64_t k = 0; k < gr->nlocal; k++)
            if (add_pair(bd, me, gr->local[k], each))
                return -1;
        return 0;
    }
    if (row->len == 1 && cp_collective_single_count_per_peer(c)) { /* one amount per peer */
        int64_t count = row->counts[0], n = npeers(gr, b, rank);
        for (int64_t k = 0; k < n; k++) {
            int64_t to = peer_world(gr, b, rank, k);
            cp_u128 bytes = calls * (cp_u128)cp_reader_bytes(b, count);
            if (to < 0 ? leave_out(bd, c, bytes, WHY_UNPLACED) : add_pair(bd, me, to, bytes))
                return -1;
        }
        return 0;
    }
    for (size_t k = 0, n = cp_row_nitems(row); k < n; k++) { /* one amount per listed peer */
        int64_t count, peer = cp_row_item(row, rank, k, &count);
        if (count <= 0)
            continue;
        int64_t to = peer_world(gr, b, rank, peer);
        cp_u128 bytes = calls * (cp_u128)cp_reader_bytes(b, count);
        if (to < 0 ? leave_out(bd, c, bytes, WHY_UNPLACED) : add_pair(bd, me, to, bytes))
            return -1;
    }
    return 0;
}

static int add_block(builder *bd, const cp_block *b)
{
    if (b->invalid)
        return 0; /* the MPI library refused the calls: nothing moved */
    cp_u128 calls = (cp_u128)cp_ranges_count(&b->calls);
    if (is_reduction(b->collective))
        return leave_out(bd, b->collective,
                         calls * (cp_u128)cp_profile_call_bytes(bd->p, b), WHY_REDUCTION);
    group gr;
    int rc = group_of(bd->p, b, &gr);
    if (rc < 0) {
        group_free(&gr);
        return cp_error_set(bd->err, "out of memory");
    }
    bool rooted = is(b->collective, "Gather") || is(b->collective, "Gatherv") ||
                  is(b->collective, "Scatter") || is(b->collective, "Scatterv") ||
                  is(b->collective, "Bcast");
    bool fanout = cp_collective_single_count_per_peer(b->collective) &&
                  !cp_collective_rows_vary(b->collective) &&
                  !rooted && (gr.remote ? gr.nremote : gr.nlocal) > 4096;
    if (rc > 0 || (rooted && gr.remote) || fanout) {
        group_free(&gr);
        return leave_out(bd, b->collective, calls * (cp_u128)cp_profile_call_bytes(bd->p, b),
                         rc > 0 ? WHY_UNPLACED : fanout ? WHY_FANOUT : WHY_ROOTED_INTER);
    }
    for (size_t r = 0; r < b->nrows && rc == 0; r++) {
        const cp_row *row = &b->rows[r];
        if (row->err)
            continue; /* refused on these ranks: nothing moved */
        for (size_t i = 0; i < row->ranks.n && rc == 0; i++)
            for (int64_t rank = row->ranks.v[i].lo; rank <= row->ranks.v[i].hi && rc == 0;
                 rank++)
                rc = rank_row(bd, &gr, b, row, rank, calls);
    }
    group_free(&gr);
    return rc;
}

static int cmp_edge(const void *x, const void *y)
{
    const cp_rank_edge *a = x, *b = y;
    CP_ORDER_BY(a->a, b->a);
    return (a->b > b->b) - (a->b < b->b);
}

static int64_t world_size(const cp_profile *p)
{
    if (p->has_manifest && p->manifest.world_size > 0)
        return p->manifest.world_size;
    int64_t n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t i = 0; i < p->files[f].nblocks; i++) {
            const cp_ranges *w = &p->files[f].blocks[i].comm_world_ranks;
            for (size_t k = 0; k < w->n; k++)
                n = w->v[k].hi + 1 > n ? w->v[k].hi + 1 : n;
        }
    return n;
}

int cp_rank_graph_build(const cp_profile *p, cp_rank_graph *g, cp_error *err)
{
    memset(g, 0, sizeof *g);
    g->nranks = world_size(p);
    if (g->nranks <= 0)
        return cp_error_set(err, "%s: the ranks cannot be placed: %s", p->dir,
                            p->has_manifest ? "the manifest gives no world size"
                                            : "no " CP_FILE_MANIFEST ", and the count files name no "
                                              "world ranks (Communicator: lines)");
    builder bd = {.p = p, .g = g, .err = err};
    int rc = 0;
    for (size_t f = 0; f < p->nfiles && rc == 0; f++) {
        if (p->files[f].direction != CP_SEND)
            continue; /* the send side says who sends what to whom */
        for (size_t i = 0; i < p->files[f].nblocks && rc == 0; i++)
            rc = add_block(&bd, &p->files[f].blocks[i]);
    }
    if (rc == 0) {
        g->edges = malloc((bd.map.n ? bd.map.n : 1) * sizeof *g->edges);
        if (!g->edges)
            rc = cp_error_set(err, "out of memory");
    }
    for (size_t i = 0; rc == 0 && i < bd.map.cap; i++) {
        if (!bd.map.key[i])
            continue;
        uint64_t k = bd.map.key[i] - 1;
        g->edges[g->nedges++] = (cp_rank_edge){(int64_t)(k / (uint64_t)g->nranks),
                                               (int64_t)(k % (uint64_t)g->nranks),
                                               bd.map.bytes[i]};
        g->total += bd.map.bytes[i];
    }
    free(bd.map.key), free(bd.map.bytes);
    if (rc) {
        cp_rank_graph_free(g);
        return -1;
    }
    qsort(g->edges, g->nedges, sizeof *g->edges, cmp_edge);
    return 0;
}

void cp_rank_graph_free(cp_rank_graph *g)
{
    free(g->edges), free(g->left);
    memset(g, 0, sizeof *g);
}

const char *cp_u128_str(cp_u128 u, char *buf, size_t size)
{
    char tmp[48];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u && n < sizeof tmp);
    size_t k = 0;
    while (n && k + 1 < size)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
    return buf;
}
