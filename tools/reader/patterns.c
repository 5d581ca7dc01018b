/*
 * The pattern of one matrix (`collprof patterns`, docs/reader.md): how many
 * other ranks each rank addresses, and the classes of a send matrix
 * (empty, uniform, sparse, banded, concentrated on few ranks).
 *
 * A row is what one rank passed; which peers it reaches depends on the
 * collective (patterns_reach.c): one count per peer, one count to every
 * peer, one count to or from the root, ...  Rows shared by many ranks and single
 * counts to every peer are accumulated per interval of ranks, with a
 * difference array for the bytes each peer receives, so that a 100 000-rank
 * Alltoall costs O(ranks), not O(ranks^2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns_reach.h"
#include "reader_internal.h"

/* ------------------------------------------------------ the accumulator */

#define NO_ROW (-2)

typedef struct acc {
    const cp_block *b;
    int direction;
    int64_t n;              /* ranks of the block: rows are indexed by them */
    int64_t npeers;         /* peers a row addresses: n, or the remote group's size */
    bool inter;             /* peers are the remote group: no diagonal */
    bool neighbourhood;     /* rows address the topology's neighbours */
    const cp_neighbors *nb; /* their lists, when the manifest has them */
    int64_t *peers;         /* per rank: other ranks addressed, NO_ROW, CP_PEERS_UNKNOWN */
    cp_i128 *sent;          /* per rank: bytes to other ranks */
    cp_i128 *recv;          /* per peer: bytes from other ranks, as a difference array */
    int64_t *stamp;         /* neighbourhood: stamp[j] == i once rank i counted peer j */
    bool positions;         /* every non-zero is at a known (rank, peer) */
    int64_t band;           /* largest cyclic distance of a non-zero, -1 */
    bool any_nonzero;
    bool uniform, have_value;
    int64_t value;
} acc;

static int64_t dist(int64_t i, int64_t j, int64_t n)
{
    int64_t d = i > j ? i - j : j - i;
    return d < n - d ? d : n - d;
}

/* The largest cyclic distance between peer j and a rank of [lo, hi]
 * (0 <= lo <= hi < n).  Along [0, n) the distance to j only peaks at the
 * points opposite j (distance n/2), so without one of them inside the
 * interval it is largest at an end. */
static int64_t max_dist(int64_t j, int64_t lo, int64_t hi, int64_t n)
{
    int64_t half = n / 2, a = (j + half) % n, c = (j + n - half) % n;
    if ((a >= lo && a <= hi) || (c >= lo && c <= hi))
        return half;
    int64_t x = dist(lo, j, n), y = dist(hi, j, n);
    return x > y ? x : y;
}

/* Bytes of one count, capped at 2^62 (4 EiB, more than an MPI call can
 * move): sums over all pairs of ranks of a file with absurd counts then stay
 * far from the 128-bit limit. */
static cp_i128 bytes_of(const cp_block *b, int64_t c)
{
    const cp_i128 cap = (cp_i128)1 << 62;
    cp_i128 v = cp_reader_bytes(b, c);
    return v > cap ? cap : v < 0 ? 0 : v;
}

/* a*b > c*d: exact while the factors are below 2^62 (every real profile),
 * approximate beyond rather than overflowing. */
static bool product_greater(cp_i128 a, cp_i128 b, cp_i128 c, cp_i128 d)
{
    const cp_i128 lim = (cp_i128)1 << 62;
    if (a < lim && b < lim && c < lim && d < lim)
        return a * b > c * d;
    return (long double)a * (long double)b > (long double)c * (long double)d;
}

static void widen_band(acc *a, int64_t d)
{
    if (d > a->band)
        a->band = d;
}

/* Peers lo..hi each receive v more bytes. */
static void recv_add(acc *a, int64_t lo, int64_t hi, cp_i128 v)
{
    if (lo > hi || lo < 0 || hi >= a->npeers)
        return;
    a->recv[lo] += v;
    a->recv[hi + 1] -= v;
}

static void see_count(acc *a, int64_t c)
{
    if (c == 0 || (a->have_value && c != a->value))
        a->uniform = false;
    else if (!a->have_value) {
        a->value = c;
        a->have_value = true;
    }
}

/* Interval r of a row's ranks, clipped to [0, n); false when nothing is
 * left.  Ranks beyond are reported by `collprof check` (the parser refuses
 * them anyway). */
static bool clip(const acc *a, const cp_range *r, int64_t *lo, int64_t *hi)
{
    *lo = r->lo < 0 ? 0 : r->lo;
    *hi = r->hi >= a->n ? a->n - 1 : r->hi;
    return *lo <= *hi;
}

/* One count per peer. */
static void vector_row(acc *a, const cp_row *row)
{
    const int64_t *c = row->counts;
    size_t len = row->len;
    /* Column i of rank i's row is its own count when rows address the
     * communicator's ranks (DESIGN.md: "other ranks"). */
    bool diag = !a->inter && (int64_t)len == a->n;
    int64_t nz = 0, nranks = 0, only = -1;
    cp_i128 total = 0;
    for (size_t k = 0; k < len; k++)
        if (c[k] != 0) {
            nz++;
            total += bytes_of(a->b, c[k]);
        }
    for (size_t k = (size_t)a->npeers; k < len; k++)
        if (c[k] != 0)
            a->positions = false; /* columns beyond the peers go nowhere we know */
    a->any_nonzero |= nz > 0;
    for (size_t iv = 0; iv < row->ranks.n; iv++) {
        int64_t lo, hi;
        if (!clip(a, &row->ranks.v[iv], &lo, &hi))
            continue;
        for (int64_t i = lo; i <= hi; i++) {
            bool self = diag && (size_t)i < len;
            a->peers[i] = nz - (self && c[i] != 0);
            a->sent[i] = total - (self ? bytes_of(a->b, c[i]) : 0);
        }
        nranks += hi - lo + 1;
        only = lo;
        size_t cols = len < (size_t)a->npeers ? len : (size_t)a->npeers;
        for (size_t j = 0; j < cols; j++) {
            if (c[j] == 0)
                continue;
            int64_t senders = hi - lo + 1 - (diag && (int64_t)j >= lo && (int64_t)j <= hi);
            recv_add(a, (int64_t)j, (int64_t)j, bytes_of(a->b, c[j]) * senders);
            if (!a->inter)
                widen_band(a, max_dist((int64_t)j, lo, hi, a->n));
        }
    }
    /* Uniform looks at counts towards other ranks: a column is skipped only
     * when it is the own column of every rank of the row. */
    for (size_t k = 0; k < len; k++)
        if (!(diag && nranks == 1 && (int64_t)k == only))
            see_count(a, c[k]);
}

/* A sparse or relative row: what vector_row finds, rank by rank from the
 * listed counts (the others are 0), so that a stencil of 100,000 ranks costs
 * its listed counts, not 10^10. */
static void listed_row(acc *a, const cp_row *row)
{
    size_t len = row->len;
    bool diag = !a->inter && (int64_t)len == a->n;
    for (size_t iv = 0; iv < row->ranks.n; iv++) {
        int64_t lo, hi;
        if (!clip(a, &row->ranks.v[iv], &lo, &hi))
            continue;
        for (int64_t i = lo; i <= hi; i++) {
            int64_t nz = 0;
            cp_i128 total = 0;
            for (size_t k = 0; k < row->nnz; k++) {
                int64_t c, p = cp_row_item(row, i, k, &c);
                if (p >= a->npeers)
                    a->positions = false;
                if (diag && p == i)
                    continue; /* a rank's count to itself */
                nz++;
                total += bytes_of(a->b, c);
                see_count(a, c);
                recv_add(a, p, p, bytes_of(a->b, c));
                if (!a->inter)
                    widen_band(a, dist(i, p, a->n));
            }
            if ((size_t)nz < len - (diag && (size_t)i < len))
                see_count(a, 0); /* a peer it sends nothing */
            a->any_nonzero |= row->nnz > 0;
            a->peers[i] = nz;
            a->sent[i] = total;
        }
    }
}

/* One count to every peer, to the root, to higher or from lower ranks. */
static void single_row(acc *a, const cp_row *row, enum cp_reach r)
{
    int64_t c = row->counts[0], n = a->n, root = a->b->root;
    cp_i128 v = bytes_of(a->b, c);
    bool root_known = root >= 0 && root < a->npeers;
    bool reaches_other = false;
    if (r == CP_REACH_ROOT && !root_known)
        a->positions = false;
    if ((r == CP_REACH_ABOVE || r == CP_REACH_BELOW) && a->inter)
        r = CP_REACH_ALL; /* no scan on an intercommunicator: read it as a reduction */
    a->any_nonzero |= c != 0;
    for (size_t iv = 0; iv < row->ranks.n; iv++) {
        int64_t lo, hi;
        if (!clip(a, &row->ranks.v[iv], &lo, &hi))
            continue;
        int64_t cnt = hi - lo + 1;
        for (int64_t i = lo; i <= hi; i++) {
            int64_t k = r == CP_REACH_ALL     ? (a->inter ? a->npeers : n - 1)
                        : r == CP_REACH_ROOT  ? (!a->inter && i == root ? 0 : 1)
                        : r == CP_REACH_ABOVE ? n - 1 - i
                                              : i;
            a->peers[i] = c != 0 ? k : 0;
            a->sent[i] = v * k;
            reaches_other |= k > 0;
            if (r == CP_REACH_ABOVE)
                recv_add(a, i + 1, n - 1, v);
            else if (r == CP_REACH_BELOW)
                recv_add(a, 0, i - 1, v);
        }
        if (r == CP_REACH_ALL) {
            recv_add(a, 0, a->npeers - 1, v * cnt);
            if (!a->inter)
                recv_add(a, lo, hi, -v); /* nobody counts its own share */
        } else if (r == CP_REACH_ROOT && root_known) {
            recv_add(a, root, root, v * (cnt - (!a->inter && root >= lo && root <= hi)));
        }
        if (c == 0 || a->inter)
            continue;
        if (r == CP_REACH_ALL)
            widen_band(a, n / 2);
        else if (r == CP_REACH_ROOT && root_known)
            widen_band(a, max_dist(root, lo, hi, n));
        else if (r == CP_REACH_ABOVE && n - 1 - lo > 0)
            widen_band(a, n - 1 - lo < n / 2 ? n - 1 - lo : n / 2);
        else if (r == CP_REACH_BELOW && hi > 0)
            widen_band(a, hi < n / 2 ? hi : n / 2);
    }
    if (reaches_other)
        see_count(a, c); /* the root's count to itself is not looked at */
}

/* Neighbourhood rows: entry k goes to the k-th neighbour of the rank's list
 * (a single count to every neighbour).  Without the lists (or with a row
 * whose length is not the degree), each non-zero entry counts as one peer
 * and a single count's number of peers is unknown. */
static void neighbour_row(acc *a, const cp_row *row, bool single)
{
    const int64_t *c = row->counts;
    for (size_t iv = 0; iv < row->ranks.n; iv++) {
        int64_t lo, hi;
        if (!clip(a, &row->ranks.v[iv], &lo, &hi))
            continue;
        for (int64_t i = lo; i <= hi; i++) {
            const int64_t *list = NULL;
            size_t deg = 0;
            if (a->nb) {
                bool send = a->direction == CP_SEND;
                list = send ? a->nb[i].destinations : a->nb[i].sources;
                deg = send ? a->nb[i].ndestinations : a->nb[i].nsources;
            }
            if (!a->nb || (!single && row->len != deg) || (deg && !list)) {
                int64_t nz = 0;
                for (size_t k = 0; k < row->len; k++)
                    nz += c[k] != 0;
                a->peers[i] = single && nz ? CP_PEERS_UNKNOWN : nz;
                a->positions = false;
                a->any_nonzero |= nz > 0;
                for (size_t k = 0; k < row->len; k++)
                    see_count(a, c[k]);
                continue;
            }
            int64_t peers = 0;
            a->sent[i] = 0;
            for (size_t k = 0; k < deg; k++) {
                int64_t j = list[k], ck = c[single ? 0 : k];
                if (j < 0 || j >= a->n)
                    continue; /* MPI_PROC_NULL: nothing moves */
                if (j != i)
                    see_count(a, ck);
                if (ck == 0)
                    continue;
                a->any_nonzero = true;
                widen_band(a, dist(i, j, a->n));
                if (j == i)
                    continue;
                cp_i128 v = bytes_of(a->b, ck);
                a->sent[i] += v;
                recv_add(a, j, j, v);
                if (a->stamp[j] != i) {
                    a->stamp[j] = i;
                    peers++;
                }
            }
            a->peers[i] = peers;
        }
    }
}

/* ---------------------------------------------------------- the classes */

typedef struct ranked {
    cp_i128 bytes;
    int64_t rank;
} ranked;

/* Most bytes first, then the lowest rank: the same order on every machine. */
static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *x = pa, *y = pb;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The fewest ranks, at most max(1, pop/10), holding more than half of the
 * bytes and more than twice their even share (2j/pop): "concentrated", one
 * hot rank when a single one does.  v[0..pop) are the bytes per rank. */
static int find_hot(const cp_i128 *v, int64_t pop, cp_hot_ranks *hot)
{
    cp_i128 total = 0;
    for (int64_t i = 0; i < pop; i++)
        total += v[i];
    if (total <= 0 || pop < 3)
        return 0;
    ranked *idx = malloc((size_t)pop * sizeof *idx);
    if (!idx)
        return -1;
    for (int64_t i = 0; i < pop; i++)
        idx[i] = (ranked){v[i], i};
    qsort(idx, (size_t)pop, sizeof *idx, cmp_ranked);
    int64_t k = pop / 10 > 1 ? pop / 10 : 1;
    cp_i128 top = 0;
    int rc = 0;
    for (int64_t j = 1; j <= k; j++) {
        top += idx[j - 1].bytes;
        if (product_greater(top, 2, total, 1) && product_greater(top, pop, 2 * (cp_i128)j, total)) {
            for (int64_t x = 0; x < j && rc == 0; x++)
                rc = cp_ranges_add(&hot->ranks, idx[x].rank);
            hot->count = j;
            hot->population = pop;
            hot->percent = top < ((cp_i128)1 << 62)
                               ? (int)(top * 100 / total)
                               : (int)(100.0L * (long double)top / (long double)total);
            break;
        }
    }
    free(idx);
    return rc;
}

static int classify(acc *a, cp_pattern *pat)
{
    if (!a->any_nonzero) {
        pat->classes |= CP_PATTERN_EMPTY;
        return 0;
    }
    if (a->uniform && a->have_value)
        pat->classes |= CP_PATTERN_UNIFORM;
    if (pat->pairs > 0 && 2 * (cp_i128)pat->pairs < pat->possible_pairs)
        pat->classes |= CP_PATTERN_SPARSE;
    if (!a->positions)
        return 0; /* where the bytes go is not known */
    if (!a->inter) {
        pat->band = a->band;
        if (a->band >= 0 && 4 * a->band + 2 <= a->n)
            pat->classes |= CP_PATTERN_BANDED;
    }
    for (int64_t j = 0; j < a->npeers; j++)
        a->recv[j + 1] += a->recv[j]; /* the difference array becomes the sums */
    if (find_hot(a->recv, a->npeers, &pat->hot_recv) < 0 ||
        find_hot(a->sent, a->n, &pat->hot_send) < 0)
        return -1;
    if (pat->hot_recv.count)
        pat->classes |= CP_PATTERN_HOT_RECEIVERS;
    if (pat->hot_send.count)
        pat->classes |= CP_PATTERN_HOT_SENDERS;
    return 0;
}

/* ------------------------------------------------------------- driver */

static int cmp_peers_desc(const void *pa, const void *pb)
{
    int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
    return x > y ? -1 : x < y; /* CP_PEERS_UNKNOWN (-1) sorts last */
}

/* Group ranks by their number of peers (sorts a->peers). */
static int make_groups(acc *a, cp_pattern *pat)
{
    size_t m = 0;
    for (int64_t i = 0; i < a->n; i++)
        if (a->peers[i] != NO_ROW)
            a->peers[m++] = a->peers[i];
    pat->ranks_with_row = (int64_t)m;
    qsort(a->peers, m, sizeof *a->peers, cmp_peers_desc);
    bool unknown = false;
    int64_t pairs = 0;
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || a->peers[i] != a->peers[i - 1])
            pat->ngroups++;
        if (a->peers[i] == CP_PEERS_UNKNOWN)
            unknown = true;
        else
            pairs += a->peers[i];
    }
    pat->pairs = unknown ? -1 : pairs;
    pat->possible_pairs = (int64_t)m * (a->inter ? a->npeers : a->n - 1);
    if (pat->pairs >= 0 && pat->possible_pairs > 0)
        pat->percent_peers = (int)((cp_i128)pat->pairs * 100 / pat->possible_pairs);
    if (pat->ngroups && !(pat->groups = calloc(pat->ngroups, sizeof *pat->groups)))
        return -1;
    size_t g = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && a->peers[i] != a->peers[i - 1])
            g++;
        pat->groups[g].peers = a->peers[i];
        pat->groups[g].ranks++;
    }
    return 0;
}

static void acc_free(acc *a)
{
    free(a->peers);
    free(a->sent);
    free(a->recv);
    free(a->stamp);
}

static int acc_init(acc *a, const cp_profile *p, const cp_block *b, int direction)
{
    const cp_comm_info *ci = p ? cp_reader_manifest_comm(p, b->comm_id) : NULL;
    memset(a, 0, sizeof *a);
    a->b = b;
    a->direction = direction;
    a->n = b->nranks > 0 ? b->nranks : 0;
    a->inter = ci && ci->remote_members.n > 0;
    a->npeers = a->inter ? cp_ranges_count(&ci->remote_members) : a->n;
    a->neighbourhood = cp_collective_rows_vary(b->collective);
    if (a->neighbourhood && ci && ci->neighbors && ci->size == a->n)
        a->nb = ci->neighbors;
    a->positions = true;
    a->band = -1;
    a->uniform = true;
    /* A file may claim any number of ranks: refuse what cannot be counted
     * in memory rather than let a size overflow. */
    const int64_t most = (int64_t)(SIZE_MAX / (2 * sizeof(cp_i128))) - 1;
    if (a->n > most || a->npeers > most)
        return -1;
    size_t n = (size_t)a->n + 1, np = (size_t)a->npeers + 1;
    a->peers = malloc(n * sizeof *a->peers);
    a->sent = calloc(n, sizeof *a->sent);
    a->recv = calloc(np, sizeof *a->recv);
    if (a->nb)
        a->stamp = malloc(n * sizeof *a->stamp);
    if (!a->peers || !a->sent || !a->recv || (a->nb && !a->stamp))
        return -1;
    for (size_t i = 0; i < n; i++) {
        a->peers[i] = NO_ROW;
        if (a->stamp)
            a->stamp[i] = -1;
    }
    return 0;
}

int cp_pattern_analyze(const cp_profile *p, const cp_block *b, int direction, cp_pattern *out,
                       cp_error *err)
{
    memset(out, 0, sizeof *out);
    out->b = b;
    out->direction = direction;
    out->band = -1;
    out->percent_peers = -1;
    out->calls = cp_ranges_count(&b->calls);
    cp_i128 bytes = (cp_i128)out->calls * (p ? cp_profile_call_bytes(p, b) : cp_block_call_bytes(b));
    out->bytes = bytes > (cp_i128)INT64_MAX ? INT64_MAX : (int64_t)bytes;
    acc a;
    int rc = acc_init(&a, p, b, direction);
    out->inter = a.inter;
    for (size_t r = 0; rc == 0 && r < b->nrows; r++) {
        const cp_row *row = &b->rows[r];
        enum cp_reach reach = cp_reach_of(b, direction, row->len);
        if (a.neighbourhood)
            neighbour_row(&a, row, reach != CP_REACH_VECTOR);
        else if (reach == CP_REACH_VECTOR)
            (row->form == CP_ROW_DENSE ? vector_row : listed_row)(&a, row);
        else
            single_row(&a, row, reach);
    }
    if (rc == 0)
        rc = make_groups(&a, out);
    if (rc == 0 && direction == CP_SEND)
        rc = classify(&a, out);
    acc_free(&a);
    if (rc < 0) {
        cp_pattern_free(out);
        return cp_error_set(err, "%s: out of memory for the patterns of %" PRId64 " ranks",
                            b->collective, b->nranks);
    }
    return 0;
}

void cp_pattern_free(cp_pattern *pat)
{
    if (!pat)
        return;
    free(pat->groups);
    cp_ranges_free(&pat->hot_recv.ranks);
    cp_ranges_free(&pat->hot_send.ranks);
    pat->groups = NULL;
    pat->ngroups = 0;
}
