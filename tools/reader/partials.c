/*
 * A run that ended without MPI_Finalize leaves one folder per rank that
 * wrote its partial profile, partial.rank<R>/, each holding that rank's own
 * row of every call it recorded, with communicator ids of its own.  Loading
 * the output directory then merges them into one profile (reader.h):
 *
 *  - communicators are matched across ranks by their members (and remote
 *    group), the k-th of a rank's communicators with the same members
 *    being the k-th of every other rank's (they are created collectively,
 *    in the same order), and numbered job-wide: largest first, then by lead
 *    and members;
 *  - per (communicator, collective, direction), the ranks' blocks are swept
 *    together by call index: each stretch of calls in which every rank
 *    stays in one block of its own becomes one merged block with the rows
 *    of those blocks.  Calls some ranks did not record (they stopped
 *    earlier) get the rows of the ranks that did;
 *  - which ranks left a profile, why each stopped (grouped by reason), and
 *    which left none, go to the profile's stops and absent.
 * Folders of another run (another job or world size, or started more than
 * CP_PARTIAL_SAME_RUN_S earlier than the latest) and unreadable ones are
 * left out, and said so in stops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "compact.h"
#include "ranges.h"
#include "reader_internal.h"
#include "file_names.h"
#include "search.h"
#include "grow.h"

/* Ranks of one run pass MPI_Init together; folders whose start times are
 * further apart than this are from different runs. */
#define CP_PARTIAL_SAME_RUN_S 600
/* Progressions (lo-hi/step) are swept value by value: at most this many. */
#define CP_PARTIAL_MAX_VALUES 50000000

typedef struct part {
    int64_t rank;
    cp_profile prof;
    bool used;         /* of this run and readable */
    char why[1100];    /* why this rank stopped, or why its folder is left out */
    int64_t calls;     /* the calls its files hold (a snapshot's state) */
    /* Its communicators' ids -> their job-wide ids, by local id (a search:
     * a rank may have used thousands of communicators). */
    struct id_pair {
        int64_t local, global;
    } *ids;
    int64_t *paths; /* its call-tree ids -> the job's */
} part;

static int cmp_ranges(const cp_ranges *a, const cp_ranges *b)
{
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        const cp_range *x = &a->v[i], *y = &b->v[i];
        CP_ORDER_BY(x->lo, y->lo);
        CP_ORDER_BY(x->hi, y->hi);
        CP_ORDER_BY(x->step, y->step);
    }
    return a->n == b->n ? 0 : a->n < b->n ? -1 : 1;
}

/* ------------------------------------------------ communicators job-wide */

typedef struct comm_key {
    const cp_comm_info *ci; /* of the first part that has it */
    int64_t k;              /* k-th with these members on its rank */
    size_t part, index;     /* where it is */
} comm_key;

static int cmp_key(const void *pa, const void *pb)
{
    const comm_key *a = pa, *b = pb;
    if (a->ci->size != b->ci->size)
        return a->ci->size > b->ci->size ? -1 : 1;
    CP_ORDER_BY(a->ci->lead, b->ci->lead);
    int c = cmp_ranges(&a->ci->members, &b->ci->members);
    if (!c)
        c = cmp_ranges(&a->ci->remote_members, &b->ci->remote_members);
    if (!c && a->k != b->k)
        c = a->k < b->k ? -1 : 1;
    return c;
}

static bool same_comm(const comm_key *a, const comm_key *b)
{
    return a->ci->size == b->ci->size && a->k == b->k &&
           !cmp_ranges(&a->ci->members, &b->ci->members) &&
           !cmp_ranges(&a->ci->remote_members, &b->ci->remote_members);
}

static int by_local(const void *pa, const void *pb)
{
    const struct id_pair *a = pa, *b = pb;
    return a->local < b->local ? -1 : a->local > b->local;
}

/* Number the communicators of all parts job-wide; p->manifest.comms gets
 * one entry per job-wide id. */
static int number_comms(cp_profile *p, part *parts, size_t nparts, cp_error *err)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < nparts; i++)
        n += parts[i].used ? parts[i].prof.manifest.ncomms : 0;
    comm_key *keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys)
        return cp_error_set(err, "%s: out of memory", p->dir);
    for (size_t i = 0; i < nparts; i++) {
        if (!parts[i].used)
            continue;
        const cp_manifest *m = &parts[i].prof.manifest;
        parts[i].ids = calloc(m->ncomms ? m->ncomms : 1, sizeof *parts[i].ids);
        if (!parts[i].ids) {
            free(keys);
            return cp_error_set(err, "%s: out of memory", p->dir);
        }
        for (size_t c = 0; c < m->ncomms; c++) {
            comm_key key = {&m->comms[c], 0, i, c};
            for (size_t e = 0; e < c; e++)
                key.k += !cmp_ranges(&m->comms[e].members, &m->comms[c].members) &&
                         !cmp_ranges(&m->comms[e].remote_members, &m->comms[c].remote_members);
            keys[k++] = key;
        }
    }
    qsort(keys, n, sizeof *keys, cmp_key);
    cp_manifest *out = &p->manifest;
    out->comms = calloc(n ? n : 1, sizeof *out->comms);
    if (!out->comms) {
        free(keys);
        return cp_error_set(err, "%s: out of memory", p->dir);
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_comm(&keys[i - 1], &keys[i])) {
            cp_comm_info *ci = &out->comms[out->ncomms++];
            cp_comm_info *from = &parts[keys[i].part].prof.manifest.comms[keys[i].index];
            *ci = *from;
            ci->id = (int64_t)out->ncomms - 1;
            from->neighbors = NULL; /* taken over: the part is freed after the merge */
            /* What each rank's files held is not the merged blocks'. */
            ci->series = NULL;
            ci->nseries = 0;
            if (cp_ranges_copy(&ci->members, &from->members) ||
                cp_ranges_copy(&ci->remote_members, &from->remote_members)) {
                ci->remote_members = (cp_ranges){0};
                free(keys);
                return cp_error_set(err, "%s: out of memory", p->dir);
            }
        }
        const cp_comm_info *local = &parts[keys[i].part].prof.manifest.comms[keys[i].index];
        parts[keys[i].part].ids[keys[i].index] =
            (struct id_pair){local->id, (int64_t)out->ncomms - 1};
    }
    free(keys);
    for (size_t i = 0; i < nparts; i++)
        if (parts[i].used)
            qsort(parts[i].ids, parts[i].prof.manifest.ncomms, sizeof *parts[i].ids, by_local);
    return 0;
}

/* The job-wide id of part ctx's communicator `id` (as its files name it),
 * or -1 when its manifest does not list it. */
static int64_t global_id(const void *ctx, int64_t id)
{
    const part *pt = ctx;
    struct id_pair key = {id, 0};
    const struct id_pair *at =
        bsearch(&key, pt->ids, pt->prof.manifest.ncomms, sizeof *pt->ids, by_local);
    return at ? at->global : -1;
}

/* -------------------------------------------------- blocks swept together */

typedef struct entry {
    int64_t comm;
    const cp_block *b;
    int direction;
    size_t part;
} entry;

static int cmp_entry(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    CP_ORDER_BY(a->comm, b->comm);
    int c = cp_reader_collective_cmp(a->b->collective, b->b->collective);
    if (c)
        return c;
    CP_ORDER_BY(a->direction, b->direction);
    return a->part < b->part ? -1 : a->part > b->part;
}

typedef struct span {
    int64_t lo, hi;
    int block; /* index among the group's entries of this part */
} span;

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* One part's calls in the group: its blocks' calls as sorted spans. */
typedef struct lane {
    span *v;
    size_t n, at;
    const entry *e; /* its entries */
} lane;

static int lane_fill(lane *l, const entry *e, size_t ne, int64_t *budget)
{
    size_t n = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t r = 0; r < e[i].b->calls.n; r++) {
            const cp_range *x = &e[i].b->calls.v[r];
            n += x->step >= 2 ? (size_t)((x->hi - x->lo) / x->step + 1) : 1;
        }
    if ((int64_t)n > *budget) {
        errno = E2BIG;
        return -1;
    }
    *budget -= (int64_t)n;
    l->v = malloc((n ? n : 1) * sizeof *l->v);
    if (!l->v)
        return -1;
    for (size_t i = 0; i < ne; i++)
        for (size_t r = 0; r < e[i].b->calls.n; r++) {
            const cp_range *x = &e[i].b->calls.v[r];
            if (x->step >= 2)
                for (int64_t v = x->lo; v <= x->hi; v += x->step)
                    l->v[l->n++] = (span){v, v, (int)i};
            else
                l->v[l->n++] = (span){x->lo, x->hi, (int)i};
        }
    qsort(l->v, l->n, sizeof *l->v, cmp_span);
    l->e = e;
    return 0;
}

/* Merged blocks of one group, found by the tuple of the parts' blocks. */
typedef struct tuple_map {
    int *tuples;   /* nblocks x width */
    size_t width, nblocks, cap;
    size_t *slots; /* open addressing: block index + 1, 0 empty */
    size_t nslots;
} tuple_map;

static uint64_t hash_tuple(const int *t, size_t w)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < w; i++)
        h = (h ^ (uint64_t)(unsigned)t[i]) * 1099511628211ull;
    return h;
}

/* Index of the tuple's block; *fresh when it is new. -1: no memory. */
static long tuple_find(tuple_map *m, const int *t, bool *fresh)
{
    if (2 * (m->nblocks + 1) > m->nslots) {
        size_t ns = m->nslots ? m->nslots * 2 : 64;
        size_t *s = calloc(ns, sizeof *s);
        if (!s)
            return -1;
        for (size_t b = 0; b < m->nblocks; b++) {
            size_t h = hash_tuple(m->tuples + b * m->width, m->width) & (ns - 1);
            while (s[h])
                h = (h + 1) & (ns - 1);
            s[h] = b + 1;
        }
        free(m->slots);
        m->slots = s;
        m->nslots = ns;
    }
    size_t h = hash_tuple(t, m->width) & (m->nslots - 1);
    for (; m->slots[h]; h = (h + 1) & (m->nslots - 1))
        if (!memcmp(m->tuples + (m->slots[h] - 1) * m->width, t, m->width * sizeof *t)) {
            *fresh = false;
            return (long)m->slots[h] - 1;
        }
    if (cp_grow((void **)&m->tuples, &m->cap, m->nblocks + 1, m->width * sizeof *t, 16))
        return -1;
    memcpy(m->tuples + m->nblocks * m->width, t, m->width * sizeof *t);
    m->slots[h] = m->nblocks + 1;
    *fresh = true;
    return (long)m->nblocks++;
}

static cp_counts_file *file_of(cp_profile *p, int direction, int64_t lead)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (p->files[i].direction == direction && p->files[i].lead_rank == lead)
            return &p->files[i];
    cp_counts_file *f = realloc(p->files, (p->nfiles + 1) * sizeof *f);
    if (!f)
        return NULL;
    p->files = f;
    f = &p->files[p->nfiles++];
    memset(f, 0, sizeof *f);
    f->version = CP_COUNTS_FORMAT_VERSION;
    f->direction = direction;
    f->lead_rank = lead;
    char name[96];
    cp_compact_file_name(name, sizeof name, direction, lead, false);
    snprintf(f->path, sizeof f->path, "%.3900s/" CP_FILE_PARTIAL "%" PRId64 "/%s", p->dir, lead,
             name);
    return f;
}

/* A merged block from the parts' blocks of tuple t (-1: no block). */
static int make_block(cp_block *out, int64_t comm, lane *lanes, const int *t, size_t w)
{
    cp_block_init(out);
    const cp_block *first = NULL;
    bool mixed = false;
    for (size_t j = 0; j < w; j++) {
        if (t[j] < 0)
            continue;
        const cp_block *b = lanes[j].e[t[j]].b;
        if (!first)
            first = b;
        else if (b->dtsize != first->dtsize || b->counts_in_bytes != first->counts_in_bytes)
            mixed = true;
    }
    out->comm_id = comm;
    out->comm_size = first->comm_size;
    out->root = first->root;
    out->nranks = first->nranks;
    out->dtsize = mixed ? 1 : first->dtsize;
    out->counts_in_bytes = mixed || first->counts_in_bytes;
    memcpy(out->collective, first->collective, sizeof out->collective);
    if (cp_ranges_copy(&out->comm_world_ranks, &first->comm_world_ranks))
        return -1;
    for (size_t j = 0; j < w; j++) {
        if (t[j] < 0)
            continue;
        const cp_block *b = lanes[j].e[t[j]].b;
        out->invalid |= b->invalid;
        if (cp_ranges_union(&out->callsites, &b->callsites)) /* the job's ids by now */
            return -1;
        int64_t scale = mixed && !b->counts_in_bytes ? b->dtsize : 1;
        cp_row *rows = realloc(out->rows, (out->nrows + b->nrows) * sizeof *rows);
        if (!rows)
            return -1;
        out->rows = rows;
        for (size_t r = 0; r < b->nrows; r++) {
            cp_row *row = &out->rows[out->nrows];
            memset(row, 0, sizeof *row);
            const cp_row *from = &b->rows[r];
            size_t n = cp_row_nitems(from);
            row->len = from->len;
            row->form = from->form;
            row->err = from->err;
            row->nnz = from->nnz;
            row->counts = malloc((n ? n : 1) * sizeof *row->counts);
            row->peers = from->form == CP_ROW_DENSE ? NULL : malloc((n ? n : 1) * sizeof *row->peers);
            if (!row->counts || (from->form != CP_ROW_DENSE && !row->peers) ||
                cp_ranges_copy(&row->ranks, &from->ranks)) {
                free(row->counts);
                free(row->peers);
                return -1;
            }
            for (size_t c = 0; c < n; c++)
                row->counts[c] = from->counts[c] * scale;
            if (row->peers && n)
                memcpy(row->peers, from->peers, n * sizeof *row->peers);
            out->nrows++;
        }
        if (b->row_len > out->row_len)
            out->row_len = b->row_len;
    }
    return 0;
}

/* One (communicator, collective, direction): entries e[0..n), sorted by part. */
static int merge_group(cp_profile *p, const entry *e, size_t n, int64_t *budget, cp_error *err)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += i == 0 || e[i].part != e[i - 1].part;
    lane *lanes = calloc(w, sizeof *lanes);
    int *t = calloc(w, sizeof *t);
    tuple_map map = {.width = w};
    cp_block *blocks = NULL;
    cp_ranges all = {0};
    int rc = lanes && t ? 0 : -1;
    for (size_t i = 0, j = 0; rc == 0 && i < n; j++) {
        size_t k = i;
        while (k < n && e[k].part == e[i].part)
            k++;
        rc = lane_fill(&lanes[j], e + i, k - i, budget);
        i = k;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = cp_ranges_append(&all, &e[i].b->all_calls);
    if (rc == 0)
        rc = cp_ranges_normalise(&all, false);
    /* The sweep: from call x, the longest stretch in which no part changes
     * block (or starts or stops having one). */
    int64_t x = INT64_MIN;
    while (rc == 0) {
        int64_t lo = INT64_MAX;
        for (size_t j = 0; j < w; j++)
            if (lanes[j].at < lanes[j].n && lanes[j].v[lanes[j].at].lo < lo)
                lo = lanes[j].v[lanes[j].at].lo;
        if (lo == INT64_MAX)
            break;
        x = x > lo ? x : lo;
        int64_t end = INT64_MAX;
        for (size_t j = 0; j < w; j++) {
            t[j] = -1;
            if (lanes[j].at == lanes[j].n)
                continue;
            const span *s = &lanes[j].v[lanes[j].at];
            if (s->lo <= x) {
                t[j] = s->block;
                end = s->hi < end ? s->hi : end;
            } else if (s->lo - 1 < end) {
                end = s->lo - 1;
            }
        }
        bool fresh;
        long b = tuple_find(&map, t, &fresh);
        if (b < 0) {
            rc = -1;
            break;
        }
        if (fresh) {
            cp_block *nb = realloc(blocks, map.cap * sizeof *nb);
            if (!nb) {
                map.nblocks--;
                rc = -1;
                break;
            }
            blocks = nb;
            if (make_block(&blocks[b], e[0].comm, lanes, t, w)) {
                rc = -1; /* blocks[b] is freed below */
                break;
            }
        }
        rc = cp_ranges_add_range(&blocks[b].calls, x, end);
        for (size_t j = 0; j < w; j++)
            if (t[j] >= 0 && lanes[j].v[lanes[j].at].hi == end)
                lanes[j].at++;
        if (end == INT64_MAX)
            break;
        x = end + 1;
    }
    /* into the file of the communicator's lead */
    const cp_comm_info *ci = cp_reader_manifest_comm(p, e[0].comm);
    cp_counts_file *f = rc == 0 ? file_of(p, e[0].direction, ci ? ci->lead : 0) : NULL;
    cp_block *fb = f ? realloc(f->blocks, (f->nblocks + map.nblocks) * sizeof *fb) : NULL;
    if (fb)
        f->blocks = fb;
    for (size_t b = 0; b < map.nblocks; b++) {
        if (fb && cp_ranges_copy(&blocks[b].all_calls, &all) == 0)
            fb[f->nblocks++] = blocks[b];
        else
            cp_block_free(&blocks[b]);
    }
    if (!fb && map.nblocks)
        rc = -1;
    free(blocks);
    cp_ranges_free(&all);
    for (size_t j = 0; j < w && lanes; j++)
        free(lanes[j].v);
    free(lanes);
    free(t);
    free(map.tuples);
    free(map.slots);
    if (rc)
        return cp_error_set(err, "%s: %s while merging the partial profiles", p->dir,
                            errno == E2BIG ? "too many calls in progressions" : "out of memory");
    return 0;
}

/* The calls each rank of a (communicator, collective) recorded, when they
 * differ: a rank stopped inside a call its peers never entered (or they
 * stopped before it).  Named in the manifest's disagreements, as finalize
 * names ranks that disagree, with the call that only some ranks entered. */
typedef struct made {
    int64_t rank;
    int64_t calls;
} made;

static int by_calls(const void *pa, const void *pb)
{
    const made *a = pa, *b = pb;
    CP_ORDER_BY(b->calls, a->calls); /* most first */
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static bool is_snapshot(const part *pt)
{
    return pt->prof.manifest.has_state && pt->prof.manifest.state.snapshot;
}

/* The part of world rank r among the used parts (sorted by rank), or NULL. */
static const part *part_of(const part *parts, size_t nparts, int64_t r)
{
    size_t lo = 0, hi = nparts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (parts[mid].rank < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nparts && parts[lo].rank == r && parts[lo].used ? &parts[lo] : NULL;
}

static int by_rank(const void *pa, const void *pb)
{
    const made *a = pa, *b = pb;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static int say_disagreement(cp_profile *p, const part *parts, size_t nparts, const entry *e,
                            size_t n)
{
    /* Every member that left a profile: those without a block of the
     * series made none of its calls (so far as their profile knows). */
    const cp_ranges *members = (size_t)e[0].comm < p->manifest.ncomms
                                   ? &p->manifest.comms[e[0].comm].members
                                   : NULL;
    size_t cap = n;
    for (size_t i = 0; members && i < members->n; i++) {
        const cp_range *x = &members->v[i];
        cap += (size_t)((x->hi - x->lo) / (x->step > 1 ? x->step : 1) + 1);
    }
    made *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const cp_ranges *all = &e[i].b->all_calls;
        int64_t calls = all->n ? all->v[all->n - 1].hi + 1 : 0;
        if (m && v[m - 1].rank == parts[e[i].part].rank) {
            v[m - 1].calls = calls > v[m - 1].calls ? calls : v[m - 1].calls;
            continue;
        }
        v[m++] = (made){parts[e[i].part].rank, calls};
    }
    size_t with_blocks = m;
    qsort(v, with_blocks, sizeof *v, by_rank);
    for (size_t i = 0; members && i < members->n; i++) {
        const cp_range *x = &members->v[i];
        for (int64_t r = x->lo; r <= x->hi; r += x->step > 1 ? x->step : 1) {
            made key = {r, 0};
            if (!bsearch(&key, v, with_blocks, sizeof *v, by_rank) && part_of(parts, nparts, r))
                v[m++] = key;
        }
    }
    qsort(v, m, sizeof *v, by_calls);
    int rc = 0;
    if (m > 1 && v[0].calls != v[m - 1].calls) {
        char key[128], text[1024];
        size_t at = 0, entered = 0;
        snprintf(key, sizeof key, "communicator %" PRId64 ", %s", e[0].comm, e[0].b->collective);
        at += (size_t)snprintf(text, sizeof text, "ranks disagree on the number of calls (");
        for (size_t i = 0; i < m && at < sizeof text; i++) {
            entered += v[i].calls == v[0].calls;
            if (i < 8)
                at += (size_t)snprintf(text + at, sizeof text - at, "%srank %" PRId64 ": %" PRId64,
                                       i ? ", " : "", v[i].rank, v[i].calls);
            else if (i == 8)
                at += (size_t)snprintf(text + at, sizeof text - at, ", %zu more ranks", m - 8);
        }
        /* The ranks short of the call: those whose last word is a snapshot
         * may have entered it after; the others never did. */
        size_t nlate = 0;
        for (size_t i = entered; i < m; i++) {
            const part *pt = part_of(parts, nparts, v[i].rank);
            nlate += pt && is_snapshot(pt);
        }
        if (at < sizeof text)
            at += (size_t)snprintf(text + at, sizeof text - at,
                                   "): call %" PRId64 " was entered by %zu of the %zu ranks that "
                                   "left a profile (rank %" PRId64 "%s)",
                                   v[0].calls - 1, entered, m, v[0].rank,
                                   entered > 1 ? " and more" : "");
        if (nlate < m - entered && at < sizeof text)
            at += (size_t)snprintf(text + at, sizeof text - at,
                                   ", never by %s: the run stopped inside it",
                                   nlate ? "the others whose process ended with a word" : "the others");
        /* Those of the snapshots, up to 8 named: "rank 1, rank 4, 3 more". */
        for (size_t i = entered, named = 0; nlate && i < m && at < sizeof text; i++) {
            const part *pt = part_of(parts, nparts, v[i].rank);
            if (!pt || !is_snapshot(pt))
                continue;
            const char *sep = named ? ", " : "; ";
            if (named == 8) {
                at += (size_t)snprintf(text + at, sizeof text - at, "%s%zu more", sep, nlate - 8);
                break;
            }
            at += (size_t)snprintf(text + at, sizeof text - at, "%srank %" PRId64, sep, v[i].rank);
            named++;
        }
        if (nlate && at < sizeof text)
            snprintf(text + at, sizeof text - at,
                     " left only a snapshot taken before it: whether %s entered it after "
                     "is not known",
                     nlate > 1 ? "they" : "it");
        rc = cp_kv_add(&p->manifest.disagreements, &p->manifest.ndisagreements, key, text);
    }
    free(v);
    return rc;
}

static int merge_blocks(cp_profile *p, part *parts, size_t nparts, cp_error *err)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < nparts; i++)
        for (size_t f = 0; parts[i].used && f < parts[i].prof.nfiles; f++)
            n += parts[i].prof.files[f].nblocks;
    entry *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return cp_error_set(err, "%s: out of memory", p->dir);
    for (size_t i = 0; i < nparts; i++)
        for (size_t f = 0; parts[i].used && f < parts[i].prof.nfiles; f++) {
            const cp_counts_file *cf = &parts[i].prof.files[f];
            for (size_t b = 0; b < cf->nblocks; b++) {
                int64_t g = global_id(&parts[i], cf->blocks[b].comm_id);
                if (g < 0) {
                    free(e);
                    return cp_error_set(err, "%s: communicator %" PRId64
                                             " is not in the communicator table of its "
                                             CP_FILE_MANIFEST,
                                        cf->path, cf->blocks[b].comm_id);
                }
                e[k++] = (entry){g, &cf->blocks[b], cf->direction, i};
            }
        }
    qsort(e, n, sizeof *e, cmp_entry);
    int64_t budget = CP_PARTIAL_MAX_VALUES;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].comm == e[i].comm && e[j].direction == e[i].direction &&
               !cp_reader_collective_cmp(e[j].b->collective, e[i].b->collective))
            j++;
        rc = merge_group(p, e + i, j - i, &budget, err);
        /* once per (communicator, collective): its first direction */
        bool first = i == 0 || e[i - 1].comm != e[i].comm ||
                     cp_reader_collective_cmp(e[i - 1].b->collective, e[i].b->collective);
        if (rc == 0 && first && say_disagreement(p, parts, nparts, e + i, j - i))
            rc = cp_error_set(err, "%s: out of memory", p->dir);
        i = j;
    }
    free(e);
    return rc;
}

/* ------------------------------------------------------ runs and reasons */

static bool parse_time(const char *s, time_t *t)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || *end)
        return false;
    *t = timegm(&tm); /* local time read as UTC: only differences matter */
    return true;
}

/* Parts of another run than the latest are left out. */
static void select_run(part *parts, size_t nparts)
{
    time_t latest = 0;
    const part *ref = NULL;
    for (size_t i = 0; i < nparts; i++) {
        time_t t;
        if (parts[i].used && parse_time(parts[i].prof.manifest.start_time, &t) &&
            (!ref || t > latest)) {
            latest = t;
            ref = &parts[i];
        }
    }
    for (size_t i = 0; ref && i < nparts; i++) {
        part *pt = &parts[i];
        const cp_manifest *m = &pt->prof.manifest, *r = &ref->prof.manifest;
        time_t t;
        if (!pt->used)
            continue;
        if (strcmp(m->job, r->job) || m->world_size != r->world_size ||
            !parse_time(m->start_time, &t) || latest - t > CP_PARTIAL_SAME_RUN_S) {
            pt->used = false;
            snprintf(pt->why, sizeof pt->why,
                     "left out: " CP_FILE_PARTIAL "%" PRId64 " is of an earlier run (job %.64s, %" PRId64
                     " ranks, started %.32s)",
                     pt->rank, m->job, m->world_size, m->start_time);
        }
    }
}

/* A process that ended but is not reaped yet (its parent, the launcher,
 * may be ending too) still answers kill(pid, 0). */
static bool zombie(int64_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%" PRId64 "/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool z = false;
    if (fgets(line, sizeof line, f)) {
        const char *close = strrchr(line, ')');
        z = close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
    }
    fclose(f);
    return z;
}

/* Is the process that wrote a snapshot still running?  Known only on its
 * own host (the host name as collprof recorded it, the process id). */
static const char *process_now(const cp_manifest *m)
{
    char here[256] = "";
    const char *set = getenv("COLLPROF_HOSTNAME");
    if (set && *set)
        snprintf(here, sizeof here, "%s", set);
    else if (gethostname(here, sizeof here - 1) != 0)
        here[0] = '\0';
    if (!m->state.pid || strcmp(here, m->state.host) != 0)
        return "whether it still runs is not known here (another host): killed without a "
               "signal collprof could catch (SIGKILL, the OOM killer, a lost node), or still "
               "running";
    if ((kill((pid_t)m->state.pid, 0) == 0 || errno == EPERM) && !zombie(m->state.pid))
        return "its process is still running";
    return "its process is gone: killed without a signal collprof could catch (SIGKILL, the "
           "OOM killer) or ended without a word";
}

/* Why a rank stopped: its partial_reason without "; rank R's own data
 * only"; for a snapshot, that it is the last state there is, and whether
 * its process still runs. */
static void reason_of(part *pt)
{
    const cp_manifest *m = &pt->prof.manifest;
    const char *r = m->partial_reason;
    const char *own = strstr(r, "; rank ");
    int len = own ? (int)(own - r) : (int)strlen(r);
    pt->calls = 0;
    for (size_t c = 0; c < m->ncomms; c++)
        for (size_t k = 0; k < m->comms[c].nseries; k++)
            pt->calls += m->comms[c].series[k].calls;
    if (is_snapshot(pt)) {
        const char *every = strstr(r, "(one every ");
        int elen = every && every < r + len ? (int)(r + len - every) : 0;
        snprintf(pt->why, sizeof pt->why, "the last snapshot%s%.*s, no word since: %s",
                 elen ? " " : "", elen, every ? every : "", process_now(m));
    }
    else
        snprintf(pt->why, sizeof pt->why, "%.*s", len, r[0] ? r : "no reason given");
}

/* A group of snapshots: the state each holds, "after 2,687 calls,
 * 14:02:11" (one rank), or the range over the group's ranks. */
static void state_of_group(const part *parts, size_t nparts, const char *why, char *out,
                           size_t len)
{
    int64_t lo = INT64_MAX, hi = -1;
    const char *first = NULL, *last = NULL;
    for (size_t i = 0; i < nparts; i++) {
        const cp_manifest *m = &parts[i].prof.manifest;
        if (!parts[i].used || strcmp(parts[i].why, why) || !is_snapshot(&parts[i]))
            continue;
        lo = parts[i].calls < lo ? parts[i].calls : lo;
        hi = parts[i].calls > hi ? parts[i].calls : hi;
        if (!first || strcmp(m->state.at, first) < 0)
            first = m->state.at;
        if (!last || strcmp(m->state.at, last) > 0)
            last = m->state.at;
    }
    out[0] = '\0';
    if (hi < 0)
        return;
    const char *t1 = strchr(first, 'T') ? strchr(first, 'T') + 1 : first;
    const char *t2 = strchr(last, 'T') ? strchr(last, 'T') + 1 : last;
    char calls[64], when[80];
    if (lo == hi)
        snprintf(calls, sizeof calls, "%" PRId64, lo);
    else
        snprintf(calls, sizeof calls, "%" PRId64 " to %" PRId64, lo, hi);
    if (!strcmp(first, last))
        snprintf(when, sizeof when, "%.31s", t1);
    else
        snprintf(when, sizeof when, "%.31s to %.31s", t1, t2);
    snprintf(out, len, "; state after %.63s calls, %.79s", calls, when);
}

/* stops: one entry per distinct reason, with the ranks that gave it */
static int group_stops(cp_profile *p, part *parts, size_t nparts)
{
    bool *done = calloc(nparts ? nparts : 1, sizeof *done);
    if (!done)
        return -1;
    for (size_t i = 0; i < nparts; i++) {
        if (done[i])
            continue;
        cp_ranges ranks = {0};
        for (size_t j = i; j < nparts; j++)
            if (!done[j] && !strcmp(parts[j].why, parts[i].why)) {
                done[j] = true;
                if (cp_ranges_add(&ranks, parts[j].rank))
                    goto oom;
            }
        cp_kv *kv = realloc(p->stops, (p->nstops + 1) * sizeof *kv);
        char state[256], text[sizeof parts[i].why + sizeof state];
        state_of_group(parts, nparts, parts[i].why, state, sizeof state);
        snprintf(text, sizeof text, "%s%s", parts[i].why, state);
        char *key = cp_ranges_to_string(&ranks), *value = strdup(text);
        cp_ranges_free(&ranks);
        if (kv)
            p->stops = kv;
        if (!kv || !key || !value) {
            free(key);
            free(value);
            goto oom;
        }
        kv[p->nstops++] = (cp_kv){key, value};
    }
    free(done);
    return 0;
oom:
    free(done);
    return -1;
}

/* The merged profile's manifest: the latest run's, marked partial. */
static int make_manifest(cp_profile *p, part *parts, size_t nparts, size_t used)
{
    part *ref = NULL;
    for (size_t i = 0; i < nparts && !ref; i++)
        if (parts[i].used)
            ref = &parts[i];
    cp_manifest *m = &p->manifest, *r = &ref->prof.manifest;
    m->format_version = r->format_version;
    m->counts_format_version = r->counts_format_version;
    memcpy(m->collprof_version, r->collprof_version, sizeof m->collprof_version);
    memcpy(m->mpi_version, r->mpi_version, sizeof m->mpi_version);
    memcpy(m->job, r->job, sizeof m->job);
    memcpy(m->start_time, r->start_time, sizeof m->start_time);
    m->world_size = r->world_size;
    m->partial = true;
    size_t snapshots = 0;
    for (size_t i = 0; i < nparts; i++)
        snapshots += parts[i].used && is_snapshot(&parts[i]);
    if (snapshots == used)
        snprintf(m->partial_reason, sizeof m->partial_reason,
                 "no MPI_Finalize (yet): the last snapshots of %zu of %" PRId64
                 " ranks, merged, each exact up to its state",
                 used, r->world_size);
    else
        snprintf(m->partial_reason, sizeof m->partial_reason,
                 "no MPI_Finalize: the partial profiles of %zu of %" PRId64
                 " ranks, merged%s",
                 used, r->world_size, snapshots ? " (some are snapshots: see stopped)" : "");
    for (size_t i = 0; i < nparts; i++)
        if (parts[i].used)
            cp_reader_add_partial_clock(m, &parts[i].prof.manifest);
    m->config = r->config; /* taken over */
    m->nconfig = r->nconfig;
    r->config = NULL;
    r->nconfig = 0;
    p->has_manifest = true;
    /* files a rank could not write */
    for (size_t i = 0; i < nparts; i++)
        for (size_t k = 0; parts[i].used && k < parts[i].prof.manifest.nmissing; k++) {
            const cp_kv *x = &parts[i].prof.manifest.missing[k];
            cp_kv *kv = realloc(m->missing, (m->nmissing + 1) * sizeof *kv);
            if (!kv)
                return -1;
            m->missing = kv;
            size_t len = strlen(x->key) + 40;
            char *key = malloc(len), *value = strdup(x->value);
            if (!key || !value) {
                free(key);
                free(value);
                return -1;
            }
            snprintf(key, len, CP_FILE_PARTIAL "%" PRId64 "/%s", parts[i].rank, x->key);
            kv[m->nmissing++] = (cp_kv){key, value};
        }
    for (int64_t rank = 0, i = 0; rank < m->world_size; rank++) {
        while ((size_t)i < nparts && parts[i].rank < rank)
            i++;
        if (((size_t)i == nparts || parts[i].rank != rank) && cp_ranges_add(&p->absent, rank))
            return -1;
    }
    return 0;
}

/* The ranks' call trees as one, their Callsites renamed (before the blocks
 * merge: trees true); their Cube profiles as one (after: trees false).
 * Each used part's map of call-tree ids to the job's is its `paths`. */
static int merge_paths(cp_profile *p, part *parts, size_t nparts, bool trees, cp_error *err)
{
    cp_profile **used = malloc((nparts ? nparts : 1) * sizeof *used);
    int64_t *ranks = malloc((nparts ? nparts : 1) * sizeof *ranks);
    int64_t **maps = calloc(nparts ? nparts : 1, sizeof *maps);
    size_t n = 0;
    for (size_t i = 0; used && ranks && maps && i < nparts; i++)
        if (parts[i].used) {
            ranks[n] = parts[i].rank;
            maps[n] = parts[i].paths;
            used[n++] = &parts[i].prof;
        }
    int rc = used && ranks && maps ? 0 : -1;
    if (rc == 0 && trees) {
        rc = cp_reader_merge_partial_trees(p, used, n, maps);
        for (size_t i = 0, k = 0; i < nparts; i++)
            if (parts[i].used)
                parts[i].paths = maps[k++];
    } else if (rc == 0) {
        rc = cp_reader_merge_partial_cubes(p, used, ranks, n, maps);
    }
    free(used);
    free(ranks);
    free(maps);
    return rc ? cp_error_set(err, "%s: out of memory", p->dir) : 0;
}

static int cmp_part(const void *pa, const void *pb)
{
    const part *a = pa, *b = pb;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

int cp_reader_load_partials(cp_profile *p, char **names, size_t nnames, cp_part_loader load,
                            cp_error *err)
{
    size_t nparts = 0, used = 0;
    for (size_t i = 0; i < nnames; i++)
        nparts += cp_reader_partial_rank(names[i]) >= 0;
    if (nparts == 0)
        return cp_error_set(err,
                            "%s: no " CP_FILE_MANIFEST ", no counts files (" CP_FILE_SEND_COUNTS ".*, "
                            CP_FILE_RECV_COUNTS ".*) and no partial profiles (" CP_FILE_PARTIAL "<R>/): "
                            "not a collprof output directory",
                            p->dir);
    part *parts = calloc(nparts, sizeof *parts);
    if (!parts)
        return cp_error_set(err, "%s: out of memory", p->dir);
    size_t k = 0;
    for (size_t i = 0; i < nnames; i++) {
        int64_t r = cp_reader_partial_rank(names[i]);
        if (r < 0)
            continue;
        part *pt = &parts[k++];
        pt->rank = r;
        char sub[sizeof p->dir + 64];
        snprintf(sub, sizeof sub, "%s/%s", p->dir, names[i]);
        cp_error e2 = {{0}};
        if (load(sub, &pt->prof, &e2) < 0)
            snprintf(pt->why, sizeof pt->why, "left out: %s", e2.msg);
        else if (!pt->prof.has_manifest || !pt->prof.manifest.partial || pt->prof.npartials)
            snprintf(pt->why, sizeof pt->why, "left out: %s has no partial " CP_FILE_MANIFEST,
                     names[i]);
        else
            pt->used = true;
    }
    qsort(parts, nparts, sizeof *parts, cmp_part);
    select_run(parts, nparts);
    for (size_t i = 0; i < nparts; i++)
        if (parts[i].used) {
            reason_of(&parts[i]);
            used++;
        }
    /* What each rank's loader found damaged (a file cut short, changed or
     * absent against its manifest) is the merged profile's to name, under
     * the rank's folder: its whole blocks are merged, the rest is lost. */
    for (size_t i = 0; i < nparts; i++)
        for (size_t d = 0; parts[i].used && d < parts[i].prof.ndamaged; d++) {
            char name[600];
            snprintf(name, sizeof name, CP_FILE_PARTIAL "%" PRId64 "/%.500s", parts[i].rank,
                     parts[i].prof.damaged[d].key);
            cp_reader_damage(p, name, "%s", parts[i].prof.damaged[d].value);
        }
    int rc = 0;
    if (used == 0) {
        rc = cp_error_set(err, "%s: none of its %zu partial profiles can be read; first: %s",
                          p->dir, nparts, parts[0].why);
    } else if (make_manifest(p, parts, nparts, used) || group_stops(p, parts, nparts)) {
        rc = cp_error_set(err, "%s: out of memory", p->dir);
    } else if ((rc = number_comms(p, parts, nparts, err)) == 0) {
        rc = merge_paths(p, parts, nparts, true, err) || merge_blocks(p, parts, nparts, err)
                 ? -1
                 : 0;
    }
    /* Each rank's timed calls at its place, by the job-wide ids. */
    for (size_t i = 0; rc == 0 && i < nparts; i++)
        if (parts[i].used && cp_reader_add_partial_timings(p, parts[i].rank, &parts[i].prof,
                                                           global_id, &parts[i], parts[i].paths))
            rc = cp_error_set(err, "%s: out of memory", p->dir);
    p->npartials = used;
    /* Their Cube profiles as one, with the waiting per call site found in
     * the timed calls just placed. */
    if (rc == 0 && merge_paths(p, parts, nparts, false, err))
        rc = -1;
    for (size_t i = 0; i < nparts; i++) {
        cp_profile_free(&parts[i].prof);
        free(parts[i].ids);
        free(parts[i].paths);
    }
    free(parts);
    return rc;
}
