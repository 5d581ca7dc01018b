/*
 * A block's counts as a grid of cells, sender rows and receiver columns,
 * aggregated into tiles of ranks when the matrix is larger than the picture.
 *
 * Rows of the block are placed by what they mean (docs/collectives.md):
 *  - one count per peer: count k goes to peer k;
 *  - a single count: to every peer, except in rooted collectives, where
 *    only the root's row (on the root's side) is spread over every rank and
 *    every other rank's count goes to the root, and in prefix reductions
 *    (Scan, Exscan), where it goes to the higher ranks;
 *  - neighbourhood rows: through the manifest's neighbour lists, else as
 *    given (column k = k-th neighbour).
 * Rows are shared by ranges of ranks, so work is done per range and per
 * tile, never per (rank, peer) pair: a 32768-rank Alltoall stays cheap.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "report.h"

__extension__ typedef __int128 i128;

static i128 sat_add(i128 a, i128 b)
{
    i128 s = a + b; /* both <= 2^126: cannot overflow */
    return s > INT64_MAX ? INT64_MAX : s;
}

typedef struct placer {
    report_grid *g;
    i128 *sum;            /* rows * cols */
    bool transpose;       /* receive side: the row's rank is the receiver */
    int64_t nrank, npeer; /* extent of the row's ranks and of its peers */
} placer;

/* Cell of (rank tile, peer tile), whichever axis each lies on. */
static i128 *tile(placer *pl, size_t rank_tile, size_t peer_tile)
{
    size_t r = pl->transpose ? peer_tile : rank_tile, c = pl->transpose ? rank_tile : peer_tile;
    return &pl->sum[r * pl->g->cols + c];
}

static int64_t rank_step(const placer *pl)
{
    return pl->transpose ? pl->g->tc : pl->g->tr;
}

static int64_t peer_step(const placer *pl)
{
    return pl->transpose ? pl->g->tr : pl->g->tc;
}

static size_t peer_tiles(const placer *pl)
{
    return pl->transpose ? pl->g->rows : pl->g->cols;
}

/* Ranks lo..hi all add psum[t] to each peer tile t. */
static void add_range(placer *pl, int64_t lo, int64_t hi, const i128 *psum)
{
    int64_t step = rank_step(pl);
    for (int64_t t = lo / step; t <= hi / step; t++) {
        int64_t a = t * step > lo ? t * step : lo;
        int64_t b = (t + 1) * step - 1 < hi ? (t + 1) * step - 1 : hi;
        i128 overlap = b - a + 1;
        for (size_t p = 0; p < peer_tiles(pl); p++)
            if (psum[p])
                *tile(pl, (size_t)t, p) = sat_add(*tile(pl, (size_t)t, p), overlap * psum[p]);
    }
}

static void add_one(placer *pl, int64_t rank, int64_t peer, int64_t count)
{
    if (rank < 0 || rank >= pl->nrank || peer < 0 || peer >= pl->npeer || count < 0) {
        pl->g->notes |= REPORT_NOTE_IGNORED;
        return;
    }
    i128 *c = tile(pl, (size_t)(rank / rank_step(pl)), (size_t)(peer / peer_step(pl)));
    *c = sat_add(*c, count);
}

/* One count per peer, for ranks lo..hi. */
static void place_vector(placer *pl, int64_t lo, int64_t hi, const cp_row *row, i128 *psum)
{
    if (row->form != CP_ROW_DENSE) { /* its listed counts, rank by rank */
        for (int64_t r = lo; r <= hi; r++)
            for (size_t i = 0; i < row->nnz; i++) {
                int64_t count, peer = cp_row_item(row, r, i, &count);
                add_one(pl, r, peer, count);
            }
        return;
    }
    memset(psum, 0, peer_tiles(pl) * sizeof *psum);
    for (size_t k = 0; k < row->len; k++) {
        if ((int64_t)k >= pl->npeer || row->counts[k] < 0) {
            pl->g->notes |= REPORT_NOTE_IGNORED;
            continue;
        }
        size_t t = k / (size_t)peer_step(pl);
        psum[t] = sat_add(psum[t], row->counts[k]);
    }
    add_range(pl, lo, hi, psum);
}

/* The same count to every peer, for ranks lo..hi. */
static void place_spread(placer *pl, int64_t lo, int64_t hi, int64_t count, i128 *psum)
{
    if (count < 0) {
        pl->g->notes |= REPORT_NOTE_IGNORED;
        return;
    }
    int64_t step = peer_step(pl);
    for (size_t t = 0; t < peer_tiles(pl); t++) {
        int64_t first = (int64_t)t * step, last = first + step - 1;
        if (last >= pl->npeer)
            last = pl->npeer - 1;
        psum[t] = (i128)count * (last - first + 1);
    }
    add_range(pl, lo, hi, psum);
}

/* The same count to peers plo..phi, for rank r. */
static void place_span(placer *pl, int64_t r, int64_t plo, int64_t phi, int64_t count,
                       i128 *psum)
{
    int64_t step = peer_step(pl);
    phi = phi < pl->npeer - 1 ? phi : pl->npeer - 1;
    memset(psum, 0, peer_tiles(pl) * sizeof *psum);
    for (size_t t = 0; t < peer_tiles(pl); t++) {
        int64_t a = (int64_t)t * step > plo ? (int64_t)t * step : plo;
        int64_t b = ((int64_t)t + 1) * step - 1 < phi ? ((int64_t)t + 1) * step - 1 : phi;
        if (a <= b)
            psum[t] = (i128)count * (b - a + 1);
    }
    add_range(pl, r, r, psum);
}

/* A single count of a prefix reduction (Scan, Exscan), for ranks lo..hi:
 * per rank, since each reaches its own span of ranks. */
static void place_prefix(placer *pl, enum report_reach reach, bool self, int64_t lo, int64_t hi,
                         int64_t count, i128 *psum)
{
    if (count < 0 || pl->npeer != pl->nrank) {
        pl->g->notes |= REPORT_NOTE_IGNORED; /* not a prefix over one group */
        return;
    }
    for (int64_t r = lo; r <= hi; r++) {
        if (reach == REPORT_REACH_AFTER)
            place_span(pl, r, self ? r : r + 1, pl->npeer - 1, count, psum);
        else
            place_span(pl, r, 0, self ? r : r - 1, count, psum);
    }
}

/* The same count to one peer, for ranks lo..hi. */
static void place_to_peer(placer *pl, int64_t lo, int64_t hi, int64_t peer, int64_t count,
                          i128 *psum)
{
    if (lo > hi)
        return;
    if (peer < 0 || peer >= pl->npeer || count < 0) {
        pl->g->notes |= REPORT_NOTE_IGNORED;
        return;
    }
    memset(psum, 0, peer_tiles(pl) * sizeof *psum);
    psum[peer / peer_step(pl)] = count;
    add_range(pl, lo, hi, psum);
}

/* A single count of a rooted collective, for ranks lo..hi (see the top of
 * the file). */
static void place_rooted(placer *pl, const cp_block *b, int dir, bool inter, int64_t lo,
                         int64_t hi, int64_t count, i128 *psum)
{
    bool root_side = report_root_side(b->collective, dir);
    if (inter) {
        /* The root's group and the other group write separate blocks: on the
         * root's side the rows are the root's (the rest of its group passes
         * MPI_PROC_NULL and has none), on the other side Root is the root's
         * rank in the remote group. */
        if (root_side)
            place_spread(pl, lo, hi, count, psum);
        else
            place_to_peer(pl, lo, hi, b->root, count, psum);
        return;
    }
    if (!root_side || b->root < lo || b->root > hi) {
        place_to_peer(pl, lo, hi, b->root, count, psum);
        return;
    }
    place_to_peer(pl, lo, b->root - 1, b->root, count, psum);
    place_to_peer(pl, b->root + 1, hi, b->root, count, psum);
    place_spread(pl, b->root, b->root, count, psum);
    if (report_root_skips_itself(b->collective)) {
        /* the spread added it to the root's own cell just now */
        size_t t = (size_t)(b->root / rank_step(pl)), u = (size_t)(b->root / peer_step(pl));
        if (*tile(pl, t, u) < INT64_MAX)
            *tile(pl, t, u) -= count;
    }
}

/* Neighbourhood row of rank r through its neighbour lists. */
static void place_neighbors(placer *pl, const cp_neighbors *nb, int dir, int64_t r,
                            const cp_row *row)
{
    const int64_t *peers = dir == CP_SEND ? nb->destinations : nb->sources;
    size_t n = dir == CP_SEND ? nb->ndestinations : nb->nsources;
    for (size_t k = 0; k < n; k++) {
        if (peers[k] < 0)
            continue; /* MPI_PROC_NULL: nothing moves */
        add_one(pl, r, peers[k], row->counts[row->len == 1 ? 0 : k]);
    }
}

/* Every row has the degree its rank has in the manifest (or one count). */
static bool rows_match_lists(const cp_block *b, const cp_comm_info *ci, int dir)
{
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        for (size_t k = 0; k < row->ranks.n; k++)
            for (int64_t r = row->ranks.v[k].lo; r <= row->ranks.v[k].hi; r++) {
                if (r >= ci->size)
                    return false;
                size_t deg = dir == CP_SEND ? ci->neighbors[r].ndestinations
                                            : ci->neighbors[r].nsources;
                if (row->len != 1 && row->len != deg)
                    return false;
            }
    }
    return true;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int shape(report_grid *g, int64_t nsenders, int64_t nreceivers, size_t max_cells)
{
    int64_t m = max_cells ? (int64_t)max_cells : 1;
    g->nsenders = nsenders > 0 ? nsenders : 1;
    g->nreceivers = nreceivers > 0 ? nreceivers : 1;
    g->tr = ceil_div(g->nsenders, m);
    g->tc = ceil_div(g->nreceivers, m);
    g->rows = (size_t)ceil_div(g->nsenders, g->tr);
    g->cols = (size_t)ceil_div(g->nreceivers, g->tc);
    g->count = calloc(g->rows * g->cols, sizeof *g->count);
    return g->count ? 0 : -1;
}

int report_grid_build(report_grid *g, const cp_profile *p, const cp_block *b, int dir,
                      size_t max_cells)
{
    memset(g, 0, sizeof *g);
    const cp_comm_info *ci = cp_reader_manifest_comm(p, b->comm_id);
    int64_t n = b->nranks > 0 ? b->nranks : 1;
    bool inter = ci && ci->remote_members.n > 0;
    int64_t npeers = inter ? cp_ranges_count(&ci->remote_members) : n;
    bool vary = cp_collective_rows_vary(b->collective);
    bool placed = vary && ci && ci->neighbors && ci->size == n && !inter &&
                  rows_match_lists(b, ci, dir);
    g->unit = b->counts_in_bytes ? 1 : b->dtsize;
    g->by_index = vary && !placed;
    if (g->by_index) {
        size_t widest = b->row_len;
        for (size_t i = 0; i < b->nrows; i++)
            widest = b->rows[i].len > widest ? b->rows[i].len : widest;
        g->notes |= REPORT_NOTE_AS_GIVEN | (ci && ci->neighbors ? REPORT_NOTE_LISTS_DIFFER : 0);
        npeers = (int64_t)widest;
    }
    placer pl = {.g = g, .transpose = dir == CP_RECV && !g->by_index, .nrank = n,
                 .npeer = npeers};
    if (shape(g, pl.transpose ? npeers : n, pl.transpose ? n : npeers, max_cells) < 0)
        return -1;
    g->notes |= (placed ? REPORT_NOTE_NEIGHBORS : 0) | (inter ? REPORT_NOTE_INTERCOMM : 0) |
                (b->root >= 0 ? REPORT_NOTE_ROOTED : 0);
    pl.sum = calloc(g->rows * g->cols, sizeof *pl.sum);
    i128 *psum = calloc(g->rows > g->cols ? g->rows : g->cols, sizeof *psum);
    if (!pl.sum || !psum) {
        free(pl.sum);
        free(psum);
        report_grid_free(g);
        return -1;
    }
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        if (row->len == 0)
            continue;
        for (size_t k = 0; k < row->ranks.n; k++) {
            int64_t lo = row->ranks.v[k].lo, hi = row->ranks.v[k].hi;
            if (hi >= n) {
                g->notes |= REPORT_NOTE_IGNORED; /* `collprof check` reports it */
                hi = n - 1;
            }
            if (lo > hi)
                continue;
            if (placed) {
                for (int64_t r = lo; r <= hi; r++)
                    place_neighbors(&pl, &ci->neighbors[r], dir, r, row);
            } else if (row->len > 1 || g->by_index) {
                place_vector(&pl, lo, hi, row, psum);
            } else if (b->root >= 0) {
                g->notes |= REPORT_NOTE_SINGLE;
                place_rooted(&pl, b, dir, inter, lo, hi, row->counts[0], psum);
            } else {
                bool self;
                enum report_reach reach = report_single_count_reach(b->collective, dir, &self);
                g->notes |= reach == REPORT_REACH_ALL ? REPORT_NOTE_SINGLE : REPORT_NOTE_PREFIX;
                if (reach == REPORT_REACH_ALL)
                    place_spread(&pl, lo, hi, row->counts[0], psum);
                else
                    place_prefix(&pl, reach, self, lo, hi, row->counts[0], psum);
            }
        }
    }
    for (size_t i = 0; i < g->rows * g->cols; i++)
        g->count[i] = (int64_t)pl.sum[i];
    free(pl.sum);
    free(psum);
    return 0;
}

void report_grid_free(report_grid *g)
{
    free(g->count);
    g->count = NULL;
}

bool report_grid_same_picture(const report_grid *a, const report_grid *b)
{
    if (a->rows != b->rows || a->cols != b->cols || a->tr != b->tr || a->tc != b->tc ||
        a->nsenders != b->nsenders || a->nreceivers != b->nreceivers || a->by_index != b->by_index)
        return false;
    for (size_t i = 0; i < a->rows * a->cols; i++)
        if ((i128)a->count[i] * a->unit != (i128)b->count[i] * b->unit)
            return false;
    return true;
}

void report_grid_row_ranks(const report_grid *g, size_t i, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)i * g->tr;
    *hi = *lo + g->tr - 1 < g->nsenders - 1 ? *lo + g->tr - 1 : g->nsenders - 1;
}

void report_grid_col_ranks(const report_grid *g, size_t j, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)j * g->tc;
    *hi = *lo + g->tc - 1 < g->nreceivers - 1 ? *lo + g->tc - 1 : g->nreceivers - 1;
}
