/* Messages to the leads at finalize (see finalize_mail.h). */
#include "finalize_mail.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "transport.h"

cp_box *cp_mail_box(cp_mail *m, int dest)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->boxes[i].dest == dest)
            return &m->boxes[i];
    cp_box *nb = realloc(m->boxes, (m->n + 1) * sizeof *nb);
    if (!nb) {
        m->failed = true;
        return NULL;
    }
    m->boxes = nb;
    nb[m->n] = (cp_box){.dest = dest};
    cp_put_u32(&nb[m->n].b, 0); /* the record count, filled in when sent */
    return &nb[m->n++];
}

void cp_mail_exchange(fin *f, cp_mail *m, int tag, const char *what,
                      void (*deliver)(fin *f, void *ctx, int source, uint32_t nrecords,
                                      cp_rbuf *rb),
                      void *ctx)
{
    char msg[160];
    if (m->failed) {
        snprintf(msg, sizeof msg, "out of memory while packing %s", what);
        cp_fin_fail(f, msg);
    }
    for (size_t i = 0; i < m->n; i++)
        if (!m->boxes[i].b.failed && !cp_bytes_fit(m->boxes[i].b.len)) {
            /* Left out before the count of messages is agreed on. */
            snprintf(msg, sizeof msg, "%s for rank %d: %zu bytes, more than this MPI library "
                     "sends at once", what, m->boxes[i].dest, m->boxes[i].b.len);
            cp_fin_fail(f, msg);
            m->boxes[i].b.failed = true;
        }
    int *want = calloc((size_t)f->size, sizeof *want);
    if (!want)
        cp_fin_fail(f, "out of memory");
    for (size_t i = 0; i < m->n && want; i++)
        if (!m->boxes[i].b.failed)
            want[m->boxes[i].dest] = 1;
    /* How many messages each rank will receive: one per sender. */
    int nrecv = 0;
    int *ones = want ? want : calloc((size_t)f->size, sizeof *ones);
    cp_tp_reduce_scatter_block(ones, &nrecv, 1, MPI_INT, MPI_SUM, f->w);
    MPI_Request *reqs = calloc(m->n ? m->n : 1, sizeof *reqs);
    size_t nreqs = 0;
    for (size_t i = 0; i < m->n && reqs && want; i++) {
        cp_wbuf *b = &m->boxes[i].b;
        if (b->failed)
            continue;
        memcpy(b->p, &m->boxes[i].nrecords, sizeof m->boxes[i].nrecords);
        if (cp_isend_bytes(b->p, b->len, m->boxes[i].dest, tag, f->w, &reqs[nreqs]) ==
            MPI_SUCCESS)
            nreqs++;
        if (f->cfg->verbose >= 2)
            cp_log("rank %d sends %zu bytes of %s (%u records) to rank %d", f->rank, b->len,
                   what, m->boxes[i].nrecords, m->boxes[i].dest);
    }
    for (int i = 0; i < nrecv; i++) {
        int source;
        size_t n;
        char *buf = cp_tp_recv_message(MPI_ANY_SOURCE, tag, f->w, &source, &n);
        if (!buf) {
            snprintf(msg, sizeof msg, "out of memory while receiving %s", what);
            cp_fin_fail(f, msg);
        } else {
            cp_rbuf rb = {.p = buf, .len = n};
            uint32_t nrec = cp_get_u32(&rb);
            if (!f->failed)
                deliver(f, ctx, source, nrec, &rb);
            if (rb.bad) {
                snprintf(msg, sizeof msg, "malformed %s received from rank %d", what,
                         source);
                cp_fin_fail(f, msg);
            }
        }
        free(buf);
    }
    for (size_t i = 0; i < nreqs; i++)
        cp_tp_wait(&reqs[i], NULL);
    for (size_t i = 0; i < m->n; i++)
        cp_wbuf_free(&m->boxes[i].b);
    free(m->boxes);
    *m = (cp_mail){0};
    free(reqs);
    if (ones != want)
        free(ones);
    free(want);
}

static char *cp_fin_world_recv(void *ctx, int64_t from, size_t *len)
{
    cp_fin_world_io *w = ctx;
    return cp_tp_recv_message((int)from, w->tag, w->f->w, NULL, len);
}

/* Room for one more posted send (false: send and wait instead). */
static bool world_room(cp_fin_world_io *w)
{
    if (w->n < w->cap)
        return true;
    size_t cap = w->cap ? 2 * w->cap : 16;
    MPI_Request *r = realloc(w->reqs, cap * sizeof *r);
    if (r)
        w->reqs = r;
    char **c = realloc(w->copies, cap * sizeof *c);
    if (c)
        w->copies = c;
    if (!r || !c)
        return false;
    w->cap = cap;
    return true;
}

static void cp_fin_world_send(void *ctx, int64_t to, const void *p, size_t len)
{
    cp_fin_world_io *w = ctx;
    if (w->f->cfg->verbose >= 2)
        cp_log("rank %d sends %zu bytes of %s to rank %d", w->f->rank, len,
               w->what ? w->what : "finalize data", (int)to);
    char *copy = world_room(w) ? malloc(len ? len : 1) : NULL;
    MPI_Request r;
    if (!copy) { /* no room to keep it: wait for this one */
        if (cp_isend_bytes(p, len, (int)to, w->tag, w->f->w, &r) == MPI_SUCCESS)
            cp_tp_wait(&r, NULL);
        return;
    }
    memcpy(copy, p, len);
    if (cp_isend_bytes(copy, len, (int)to, w->tag, w->f->w, &w->reqs[w->n]) != MPI_SUCCESS) {
        free(copy);
        return;
    }
    w->copies[w->n++] = copy;
}

void cp_fin_world_finish(cp_fin_world_io *w)
{
    for (size_t i = 0; i < w->n; i++) {
        cp_tp_wait(&w->reqs[i], NULL);
        free(w->copies[i]);
    }
    free(w->reqs);
    free(w->copies);
    w->reqs = NULL;
    w->copies = NULL;
    w->n = w->cap = 0;
}

cp_tree_io cp_fin_world_carrier(cp_fin_world_io *w)
{
    return (cp_tree_io){w, CP_BYTES_MAX, cp_fin_world_recv, cp_fin_world_send};
}

int64_t cp_fin_member_world(const void *members, int64_t m)
{
    return cp_ranges_nth(members, m);
}

bool cp_fin_groups_said(fin *f, const cp_groups_report *rep, const char *what)
{
    char msg[200];
    if (rep->malformed_from >= 0) {
        snprintf(msg, sizeof msg, "malformed %s received from rank %" PRId64, what,
                 rep->malformed_from);
        cp_fin_fail(f, msg);
    }
    if (rep->too_big) {
        snprintf(msg, sizeof msg, "%s larger than this MPI library sends at once", what);
        cp_fin_fail(f, msg);
    }
    return rep->out_of_memory;
}

bool cp_fin_up_tree(fin *f, int tag, const cp_tree_op *op, void *value, bool ok)
{
    cp_fin_world_io w = {.f = f, .tag = tag};
    cp_tree_io io = cp_fin_world_carrier(&w);
    ok = cp_tree_reduce_up(f->rank, f->size, &io, op, value, ok);
    cp_fin_world_finish(&w);
    return ok;
}
