/*
 * Finalize, step 1: every rank sends, per lead, its tables of every
 * (communicator, collective) over the duplicate of MPI_COMM_WORLD; a
 * reduce-scatter tells each lead how many messages to expect; leads unpack
 * them into views of each communicator's ranks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finalize.h"
#include "finalize_mail.h"
#include "log.h"
#include "pack.h"
#include "runtime.h"


static void put_list(cp_wbuf *b, const int *v, int64_t n)
{
    cp_put_u32(b, (uint32_t)n);
    for (int64_t i = 0; i < n; i++)
        cp_put_i64(b, v[i]);
}

/* Each record: communicator key, sender's rank in it, collective, its
 * neighbours when the communicator has a topology, then the tables. */
static int pack_records(cp_mail *m)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        cp_box *ob = NULL;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k] || c->coll[k]->counts.ncalls == 0)
                continue;
            cp_counts *t = &c->coll[k]->counts;
            if (!ob && !(ob = cp_mail_box(m, (int)c->lead)))
                return -1;
            if (cp_seq_finish(&t->seq))
                t->partial = true;
            cp_put_u64(&ob->b, c->key_hash);
            cp_put_u32(&ob->b, c->key_ordinal);
            cp_put_i64(&ob->b, c->rank);
            cp_put_u32(&ob->b, (uint32_t)k);
            cp_put_u32(&ob->b, c->topology != MPI_UNDEFINED);
            if (c->topology != MPI_UNDEFINED) {
                put_list(&ob->b, c->sources, c->indegree);
                put_list(&ob->b, c->destinations, c->outdegree);
            }
            cp_counts_pack(&ob->b, t);
            ob->nrecords++;
        }
    }
    return 0;
}

static int get_list(cp_rbuf *b, int64_t **v, size_t *n)
{
    uint32_t len = cp_get_u32(b);
    if (!cp_rbuf_has(b, len, 8) || !(*v = malloc((len ? len : 1) * sizeof **v)))
        return -1;
    *n = len;
    for (uint32_t i = 0; i < len; i++)
        (*v)[i] = cp_get_i64(b);
    return 0;
}

/* The neighbour lists of rank crank, kept the first time they come. */
static int unpack_neighbours(cp_rbuf *b, cp_led *l, int64_t crank)
{
    cp_neighbors nb = {0};
    if (get_list(b, &nb.sources, &nb.nsources) || get_list(b, &nb.destinations, &nb.ndestinations)) {
        free(nb.sources);
        free(nb.destinations);
        return -1;
    }
    if (l && !l->neighbors)
        l->neighbors = calloc((size_t)l->comm->size, sizeof *l->neighbors);
    if (l && l->neighbors && !l->neighbors[crank].sources) {
        l->neighbors[crank] = nb;
        return 0;
    }
    free(nb.sources);
    free(nb.destinations);
    return l && !l->neighbors ? -1 : 0;
}

/* One received message: records into views of the communicators led here. */
static void unpack_message(fin *f, void *ctx, int source, uint32_t nrec, cp_rbuf *rbp)
{
    (void)ctx;
    (void)source;
    cp_rbuf rb = *rbp;
    for (uint32_t i = 0; i < nrec && !rb.bad && !f->failed; i++) {
        uint64_t hash = cp_get_u64(&rb);
        uint32_t ordinal = cp_get_u32(&rb);
        int64_t crank = cp_get_i64(&rb);
        uint32_t k = cp_get_u32(&rb);
        uint32_t topo = cp_get_u32(&rb);
        cp_led *l = cp_fin_led_find(f, hash, ordinal);
        bool mine = l && k < CP_NCOLLECTIVES && crank >= 0 && crank < l->comm->size;
        if (!mine)
            l = NULL;
        if (topo && unpack_neighbours(&rb, l, crank)) {
            cp_fin_fail(f, "out of memory or malformed data while receiving neighbour lists");
            return;
        }
        cp_counts_unpacked *u = malloc(sizeof *u);
        cp_counts_unpacked **ns = realloc(f->store, (f->nstore + 1) * sizeof *ns);
        if (!u || !ns) {
            free(u);
            cp_fin_fail(f, "out of memory while merging counts");
            return;
        }
        f->store = ns;
        if (cp_counts_unpack(&rb, u)) {
            free(u);
            cp_fin_fail(f, "malformed counts received from another rank");
            return;
        }
        ns[f->nstore++] = u;
        if (!mine) {
            cp_log("rank %d received counts of a communicator it does not lead; "
                   "they are left out", f->rank);
            continue;
        }
        if (!l->views[k] && !(l->views[k] = calloc((size_t)l->comm->size, sizeof *l->views[k]))) {
            cp_fin_fail(f, "out of memory while merging counts");
            return;
        }
        if (!l->views[k][crank])
            l->views[k][crank] = &u->view;
    }
    rbp->bad |= rb.bad;
}

void cp_fin_exchange(fin *f)
{
    cp_mail m = {0};
    if (pack_records(&m))
        m.failed = true;
    cp_mail_exchange(f, &m, TAG_COUNTS, "counts", unpack_message, NULL);
}
