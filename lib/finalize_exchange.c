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
#include "log.h"
#include "pack.h"
#include "runtime.h"


typedef struct outbox {
    int lead;
    cp_wbuf b;
    uint32_t nrecords;
} outbox;

static outbox *box_for(outbox **boxes, size_t *n, int lead)
{
    for (size_t i = 0; i < *n; i++)
        if ((*boxes)[i].lead == lead)
            return &(*boxes)[i];
    outbox *nb = realloc(*boxes, (*n + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    *boxes = nb;
    nb[*n] = (outbox){.lead = lead};
    return &nb[(*n)++];
}

static void put_list(cp_wbuf *b, const int *v, int64_t n)
{
    cp_put_u32(b, (uint32_t)n);
    for (int64_t i = 0; i < n; i++)
        cp_put_i64(b, v[i]);
}

/* Each record: communicator key, sender's rank in it, collective, its
 * neighbours when the communicator has a topology, then the tables. */
static int pack_records(outbox **boxes, size_t *nboxes)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        outbox *ob = NULL;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            cp_counts *t = &c->counts[k];
            if (t->ncalls == 0)
                continue;
            if (!ob && !(ob = box_for(boxes, nboxes, (int)c->lead)))
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
static void unpack_message(fin *f, const char *p, size_t len)
{
    cp_rbuf rb = {.p = p, .len = len};
    uint32_t nrec = cp_get_u32(&rb);
    for (uint32_t i = 0; i < nrec && !rb.bad && !f->failed; i++) {
        uint64_t hash = cp_get_u64(&rb);
        uint32_t ordinal = cp_get_u32(&rb);
        int64_t crank = cp_get_i64(&rb);
        uint32_t k = cp_get_u32(&rb);
        uint32_t topo = cp_get_u32(&rb);
        size_t j = 0;
        while (j < f->nled && !(f->led[j].comm->key_hash == hash &&
                                f->led[j].comm->key_ordinal == ordinal))
            j++;
        bool mine = j < f->nled && k < CP_NCOLLECTIVES && crank >= 0 &&
                    crank < f->led[j].comm->size;
        cp_led *l = mine ? &f->led[j] : NULL;
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
    if (rb.bad)
        cp_fin_fail(f, "malformed counts received from another rank");
}

void cp_fin_exchange(fin *f)
{
    outbox *boxes = NULL;
    size_t nboxes = 0;
    if (pack_records(&boxes, &nboxes))
        cp_fin_fail(f, "out of memory while packing counts");
    int *want = calloc((size_t)f->size, sizeof *want);
    if (!want)
        cp_fin_fail(f, "out of memory");
    for (size_t i = 0; i < nboxes && want; i++)
        if (!boxes[i].b.failed)
            want[boxes[i].lead] = 1;
    /* How many messages each lead will receive: one per sender. */
    int nrecv = 0;
    int *ones = want ? want : calloc((size_t)f->size, sizeof *ones);
    PMPI_Reduce_scatter_block(ones, &nrecv, 1, MPI_INT, MPI_SUM, f->w);
    MPI_Request *reqs = calloc(nboxes ? nboxes : 1, sizeof *reqs);
    size_t nreqs = 0;
    for (size_t i = 0; i < nboxes && reqs && want; i++) {
        if (boxes[i].b.failed)
            continue;
        cp_wbuf *b = &boxes[i].b;
        /* Prefix the record count. */
        cp_wbuf msg = {0};
        cp_put_u32(&msg, boxes[i].nrecords);
        cp_put(&msg, b->p, b->len);
        cp_wbuf_free(b);
        *b = msg;
        if (PMPI_Isend_c(b->p, (MPI_Count)b->len, MPI_BYTE, boxes[i].lead, TAG_COUNTS, f->w,
                         &reqs[nreqs]) == MPI_SUCCESS)
            nreqs++;
        if (cp_rt.cfg.verbose >= 2)
            cp_log("rank %d sends %zu bytes of counts (%u tables) to lead rank %d", f->rank,
                   b->len, boxes[i].nrecords, boxes[i].lead);
    }
    /* Every expected message is received, even after a failure, so that no
     * rank is left waiting. */
    for (int i = 0; i < nrecv; i++) {
        MPI_Status st;
        MPI_Count n = 0;
        PMPI_Probe(MPI_ANY_SOURCE, TAG_COUNTS, f->w, &st);
        PMPI_Get_count_c(&st, MPI_BYTE, &n);
        char *buf = malloc(n > 0 ? (size_t)n : 1);
        PMPI_Recv_c(buf ? buf : (char[1]){0}, buf ? n : 0, MPI_BYTE, st.MPI_SOURCE, TAG_COUNTS,
                    f->w, MPI_STATUS_IGNORE);
        if (!buf)
            cp_fin_fail(f, "out of memory while receiving counts");
        else
            unpack_message(f, buf, (size_t)n);
        free(buf);
    }
    for (size_t i = 0; i < nreqs; i++)
        PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    for (size_t i = 0; i < nboxes; i++)
        cp_wbuf_free(&boxes[i].b);
    free(boxes);
    free(reqs);
    if (ones != want)
        free(ones);
    free(want);
}
