/*
 * A finalize stage: number the communicators job-wide.  Each lead describes
 * the communicators it leads (key, size, members, remote group, topology)
 * to world rank 0, which sorts them (largest first, then lead rank, then the
 * lead's order of first use), fills the manifest's communicator table and
 * scatters the ids back.  A lead also says which of a communicator's
 * collectives its members disagree on (the number of calls each made,
 * calls_said.h); rank 0 names them in the manifest and on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls_said.h"
#include "collectives.h"
#include "finalize.h"
#include "log.h"
#include "pack.h"
#include "transport.h"
#include "wait_states.h"
#include "file_names.h"
#include "search.h"


typedef struct desc {
    uint64_t hash;
    uint32_t ordinal, reg_index;
    int64_t size, lead;
    int from;    /* world rank that described it */
    size_t pos;  /* its position in that rank's list */
    cp_ranges members, remote;
    cp_neighbors *neighbors;
    /* Allocated to their size: rank 0 holds a description per communicator. */
    uint32_t nseries;    /* what its count files hold, per collective */
    cp_series_info *series;
    uint32_t ndis;       /* collectives its members disagree on */
    uint32_t *dis_k;
    char **dis_text;
} desc;

static int desc_order(const void *a, const void *b)
{
    const desc *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1; /* the largest (world) first */
    CP_ORDER_BY(x->lead, y->lead);
    return (x->reg_index > y->reg_index) - (x->reg_index < y->reg_index);
}

static void put_ranges(cp_wbuf *b, const cp_ranges *r)
{
    cp_put_u64(b, r->n);
    for (size_t i = 0; i < r->n; i++) {
        cp_put_i64(b, r->v[i].lo);
        cp_put_i64(b, r->v[i].hi);
    }
}

static void get_ranges(cp_rbuf *b, cp_ranges *r)
{
    uint64_t n = cp_get_u64(b);
    for (uint64_t j = 0; j < n && !b->bad; j++) {
        int64_t lo = cp_get_i64(b), hi = cp_get_i64(b);
        for (int64_t v = lo; v <= hi && !b->bad; v++)
            if (cp_ranges_push(r, v))
                b->bad = true;
    }
}

static void put_list(cp_wbuf *b, const int64_t *v, size_t n)
{
    cp_put_u64(b, n);
    cp_put(b, v, n * sizeof *v);
}

static int get_list(cp_rbuf *b, int64_t **v, size_t *n)
{
    uint64_t len = cp_get_u64(b);
    if (!cp_rbuf_has(b, len, sizeof **v) || !(*v = malloc((len ? len : 1) * sizeof **v)))
        return -1;
    *n = len;
    cp_get(b, *v, len * sizeof **v);
    return 0;
}

/* Every rank's neighbour lists (empty for ranks that sent none). */
static void put_neighbours(cp_wbuf *b, const cp_led *l)
{
    cp_put_u32(b, l->neighbors != NULL);
    for (int64_t r = 0; l->neighbors && r < l->comm->size; r++) {
        put_list(b, l->neighbors[r].sources, l->neighbors[r].nsources);
        put_list(b, l->neighbors[r].destinations, l->neighbors[r].ndestinations);
    }
}

static void get_neighbours(cp_rbuf *b, desc *x)
{
    if (!cp_get_u32(b))
        return;
    if (x->size < 0 || !cp_rbuf_has(b, (uint64_t)x->size, 16) ||
        !(x->neighbors = calloc(x->size ? (size_t)x->size : 1, sizeof *x->neighbors))) {
        b->bad = true;
        return;
    }
    for (int64_t r = 0; r < x->size && !b->bad; r++)
        if (get_list(b, &x->neighbors[r].sources, &x->neighbors[r].nsources) ||
            get_list(b, &x->neighbors[r].destinations, &x->neighbors[r].ndestinations))
            b->bad = true;
}

/* The collectives of l whose members made different numbers of calls,
 * each with what the profile says of it. */
static void put_disagreements(const fin *f, cp_wbuf *b, const cp_led *l)
{
    uint32_t n = 0;
    CP_SLOTS_EACH(k, &l->c)
        n += cp_led_at(l, k)->held.said && !cp_said_agreed(cp_led_at(l, k)->held.said);
    cp_put_u32(b, n);
    CP_SLOTS_EACH(k, &l->c)
    {
        const cp_calls_said *said = cp_led_at(l, k)->held.said;
        if (!said || cp_said_agreed(said))
            continue;
        char who[600], text[800];
        cp_said_text(said, who, sizeof who);
        /* The wait-state stage leaves such a series out (wait_stage.h). */
        bool waits = f->cfg->timing != CP_TIMING_OFF && !l->comm->inter &&
                     l->comm->size >= 2 &&
                     cp_wait_family(cp_collective_names[k]) != CP_FAMILY_NONE;
        snprintf(text, sizeof text, "ranks disagree on the number of calls (%s)%s", who,
                 waits ? "; wait states left out for it" : "");
        cp_put_u32(b, (uint32_t)k);
        cp_put_str(b, text);
    }
}

/* Per collective called: its calls and blocks (the manifest's "series"). */
static void put_series(cp_wbuf *b, const cp_led *l)
{
    uint32_t n = 0;
    CP_SLOTS_EACH(k, &l->c)
        n += cp_led_at(l, k)->held.tree != NULL;
    cp_put_u32(b, n);
    CP_SLOTS_EACH(k, &l->c)
    {
        const cp_led_coll *x = cp_led_at(l, k);
        if (x->held.tree) {
            cp_put_u32(b, (uint32_t)k);
            cp_put_i64(b, x->calls);
            cp_put_i64(b, x->nblocks[0]);
            cp_put_i64(b, x->nblocks[1]);
        }
    }
}

static void get_series(cp_rbuf *b, desc *x)
{
    uint32_t n = cp_get_u32(b);
    if (n > CP_NCOLLECTIVES || (n && !(x->series = calloc(n, sizeof *x->series)))) {
        b->bad = true;
        return;
    }
    for (; x->nseries < n && !b->bad; x->nseries++) {
        uint32_t k = cp_get_u32(b);
        cp_series_info *s = &x->series[x->nseries];
        s->calls = cp_get_i64(b);
        s->blocks[0] = cp_get_i64(b);
        s->blocks[1] = cp_get_i64(b);
        b->bad |= k >= CP_NCOLLECTIVES;
        cp_collective_name_to(s->collective, sizeof s->collective, k < CP_NCOLLECTIVES ? k : 0);
    }
}

static void get_disagreements(cp_rbuf *b, desc *x)
{
    uint32_t n = cp_get_u32(b);
    if (n > CP_NCOLLECTIVES ||
        (n && (!(x->dis_k = calloc(n, sizeof *x->dis_k)) ||
               !(x->dis_text = calloc(n, sizeof *x->dis_text))))) {
        b->bad = true;
        return;
    }
    for (; x->ndis < n && !b->bad; x->ndis++) {
        char text[800];
        uint32_t k = cp_get_u32(b);
        cp_get_str(b, text, sizeof text);
        x->dis_k[x->ndis] = k < CP_NCOLLECTIVES ? k : 0;
        b->bad |= k >= CP_NCOLLECTIVES;
        x->dis_text[x->ndis] = strdup(text);
    }
}

/* Rank 0: the manifest's "disagreements", by communicator id, and the
 * first few on stderr. */
static void name_disagreements(cp_manifest *m, const desc *d, size_t nd)
{
    size_t n = 0, said = 0;
    for (size_t i = 0; i < nd; i++)
        n += d[i].ndis;
    if (!n)
        return;
    m->disagreements = calloc(n, sizeof *m->disagreements);
    for (size_t i = 0; i < nd; i++)
        for (uint32_t j = 0; j < d[i].ndis; j++) {
            char key[128];
            snprintf(key, sizeof key, "communicator %zu, %s", i,
                     cp_collective_names[d[i].dis_k[j]]);
            const char *text = d[i].dis_text[j] ? d[i].dis_text[j] : "ranks disagree";
            if (said++ < 3)
                cp_log("%s: %s", key, text);
            if (!m->disagreements)
                continue;
            cp_kv *kv = &m->disagreements[m->ndisagreements];
            kv->key = strdup(key);
            kv->value = strdup(text);
            if (kv->key && kv->value) {
                m->ndisagreements++;
            } else {
                free(kv->key);
                free(kv->value);
            }
        }
    if (said > 3)
        cp_log("and %zu more series whose ranks disagree on their calls (" CP_FILE_MANIFEST ", "
               "\"disagreements\")", said - 3);
}

void cp_fin_number(fin *f, fin_leads *L, fin_ids *ids_out, cp_manifest *man)
{
    cp_wbuf b = {0};
    for (size_t i = 0; i < L->n; i++) {
        const cp_comm *c = L->led[i].comm;
        cp_put_u64(&b, c->key_hash);
        cp_put_u32(&b, c->key_ordinal);
        cp_put_u32(&b, c->reg_index);
        cp_put_i64(&b, c->size);
        put_ranges(&b, &c->members);
        put_ranges(&b, &c->remote);
        put_neighbours(&b, &L->led[i]);
        put_series(&b, &L->led[i]);
        put_disagreements(f, &b, &L->led[i]);
    }
    if (b.failed)
        cp_fin_fail(f, "out of memory while describing communicators");
    int mylen = b.failed ? 0 : (int)b.len, nled = b.failed ? 0 : (int)L->n;
    int *lens = NULL, *displs = NULL, *nleds = NULL, *idispls = NULL;
    char *all = NULL;
    int64_t *ids = NULL;
    desc *d = NULL;
    size_t nd = 0;
    if (f->rank == 0) {
        lens = calloc((size_t)f->size, sizeof *lens);
        displs = calloc((size_t)f->size, sizeof *displs);
        nleds = calloc((size_t)f->size, sizeof *nleds);
        idispls = calloc((size_t)f->size, sizeof *idispls);
    }
    cp_tp_gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, f->w);
    cp_tp_gather(&nled, 1, MPI_INT, nleds, 1, MPI_INT, 0, f->w);
    if (f->rank == 0) {
        size_t total = 0, totald = 0;
        for (int r = 0; r < f->size; r++) {
            displs[r] = (int)total;
            idispls[r] = (int)totald;
            total += (size_t)lens[r];
            totald += (size_t)nleds[r];
        }
        all = malloc(total ? total : 1);
        d = calloc(totald ? totald : 1, sizeof *d);
        ids = calloc(totald ? totald : 1, sizeof *ids);
        nd = totald;
    }
    cp_tp_gatherv(b.p, mylen, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, f->w);
    if (f->rank == 0) {
        size_t k = 0;
        for (int r = 0; r < f->size && all && d; r++) {
            cp_rbuf rb = {.p = all + displs[r], .len = (size_t)lens[r]};
            for (int i = 0; i < nleds[r]; i++, k++) {
                desc *x = &d[k];
                x->hash = cp_get_u64(&rb);
                x->ordinal = cp_get_u32(&rb);
                x->reg_index = cp_get_u32(&rb);
                x->size = cp_get_i64(&rb);
                x->lead = r;
                x->from = r;
                x->pos = (size_t)i;
                get_ranges(&rb, &x->members);
                get_ranges(&rb, &x->remote);
                get_neighbours(&rb, x);
                get_series(&rb, x);
                get_disagreements(&rb, x);
            }
            if (rb.bad)
                cp_fin_fail(f, "malformed communicator descriptions");
        }
        qsort(d, nd, sizeof *d, desc_order);
        man->comms = calloc(nd ? nd : 1, sizeof *man->comms);
        for (size_t i = 0; i < nd && ids && man->comms; i++) {
            ids[idispls[d[i].from] + (int)d[i].pos] = (int64_t)i;
            cp_comm_info *ci = &man->comms[man->ncomms++];
            ci->id = (int64_t)i;
            ci->size = d[i].size;
            ci->lead = d[i].lead;
            ci->members = d[i].members; /* moved */
            ci->remote_members = d[i].remote;
            ci->neighbors = d[i].neighbors;
            ci->series = d[i].series; /* moved */
            ci->nseries = d[i].nseries;
            d[i].series = NULL;
            memset(&d[i].members, 0, sizeof d[i].members);
            memset(&d[i].remote, 0, sizeof d[i].remote);
            d[i].neighbors = NULL;
        }
        if (!all || !d || !ids || !man->comms)
            cp_fin_fail(f, "out of memory while numbering communicators");
        else
            name_disagreements(man, d, nd);
    }
    /* Every rank learns every id (the timing chunks name communicators). */
    uint64_t nids = 0;
    if (f->rank == 0 && ids && d)
        nids = nd;
    cp_tp_bcast(&nids, 1, MPI_UINT64_T, 0, f->w);
    ids_out->hash = calloc(nids ? nids : 1, sizeof *ids_out->hash);
    ids_out->ordinal = calloc(nids ? nids : 1, sizeof *ids_out->ordinal);
    if (ids_out->hash && ids_out->ordinal && f->rank == 0)
        for (size_t i = 0; i < nids; i++) {
            ids_out->hash[i] = d[i].hash;
            ids_out->ordinal[i] = d[i].ordinal;
        }
    if (!ids_out->hash || !ids_out->ordinal) {
        cp_fin_fail(f, "out of memory while numbering communicators");
        nids = 0; /* still take part in the broadcasts below */
        cp_tp_bcast((uint64_t[1]){0}, 0, MPI_UINT64_T, 0, f->w);
        cp_tp_bcast((uint32_t[1]){0}, 0, MPI_UINT32_T, 0, f->w);
    } else {
        cp_tp_bcast(ids_out->hash, (int)nids, MPI_UINT64_T, 0, f->w);
        cp_tp_bcast(ids_out->ordinal, (int)nids, MPI_UINT32_T, 0, f->w);
        ids_out->n = nids;
        cp_fin_index_ids(ids_out);
    }
    int64_t *led_ids = calloc(L->n ? L->n : 1, sizeof *led_ids);
    cp_tp_scatterv(ids, nleds, idispls, MPI_INT64_T, led_ids, nled, MPI_INT64_T, 0, f->w);
    if (!led_ids)
        cp_fin_fail(f, "out of memory");
    for (size_t i = 0; led_ids && i < L->n; i++)
        L->led[i].id = led_ids[i];
    free(led_ids);
    for (size_t i = 0; i < nd; i++) {
        cp_ranges_free(&d[i].members);
        cp_ranges_free(&d[i].remote);
        cp_neighbors_free(d[i].neighbors, d[i].size);
        for (uint32_t j = 0; j < d[i].ndis; j++)
            free(d[i].dis_text[j]);
        free(d[i].dis_text);
        free(d[i].dis_k);
        free(d[i].series);
    }
    free(d);
    free(all);
    free(ids);
    free(lens);
    free(displs);
    free(nleds);
    free(idispls);
    cp_wbuf_free(&b);
}

