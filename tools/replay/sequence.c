/*
 * --sequence: every recorded call of the selected (communicator,
 * collective) series, with its own recorded matrix, in the recorded order.
 *
 * Order.  The count files number the calls of each (communicator,
 * collective) in order, but do not say how the series interleave.  Each
 * call gets a key: its enter time on the communicator's lead when
 * timings.cpt holds it, interpolated between the sampled calls of that
 * series otherwise, and, without any timings, its position in its series
 * (0 to 1).  Every rank computes the same keys from the same files and
 * replays its calls in the order of (key, communicator, collective, call):
 * one total order that all ranks follow, each on its own communicators.
 * Such an order cannot deadlock: the earliest call in it that has not
 * completed has every member either in it or on its way to it, as nothing
 * earlier in the order is left for them to wait in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay.h"

typedef struct series {
    size_t comm;               /* replay_comms index */
    int64_t id;                /* recorded id (group 0) */
    char coll[32];
    cp_ranges calls;
    size_t ri;                 /* iterator: range, next call */
    int64_t next;
    bool done;
    int64_t pos, ncalls;       /* position of `next` among the calls */
    const cp_cpt_series *ts;   /* the lead's timed calls, or NULL */
    size_t ti;
    double key;
    size_t *pats;              /* patterns of this series */
    size_t npats, last;
} series;

static double key_of(series *s, double span)
{
    if (!s->ts || s->ts->n == 0)
        return span * (double)s->pos / (double)(s->ncalls ? s->ncalls : 1);
    const cp_cpt_series *t = s->ts;
    while (s->ti + 1 < t->n && (int64_t)t->call[s->ti + 1] <= s->next)
        s->ti++;
    int64_t c0 = (int64_t)t->call[s->ti];
    if (s->ti + 1 < t->n) {
        int64_t c1 = (int64_t)t->call[s->ti + 1];
        double f = c1 > c0 ? (double)(s->next - c0) / (double)(c1 - c0) : 0;
        return t->enter[s->ti] + f * (t->enter[s->ti + 1] - t->enter[s->ti]);
    }
    /* past the last sampled call: the series' average gap */
    double gap = t->n > 1 && t->call[t->n - 1] > t->call[0]
                     ? (t->enter[t->n - 1] - t->enter[0]) / (double)(t->call[t->n - 1] - t->call[0])
                     : 0;
    return t->enter[s->ti] + gap * (double)(s->next - c0);
}

/* Start s at its first call. */
static void start(series *s, double span)
{
    s->ri = 0;
    s->pos = 0;
    s->done = s->calls.n == 0;
    if (!s->done) {
        s->next = s->calls.v[0].lo;
        s->key = key_of(s, span);
    }
}

/* Move s to its next call. */
static void step(series *s, double span)
{
    const cp_range *r = &s->calls.v[s->ri];
    int64_t st = r->step > 1 ? r->step : 1;
    s->pos++;
    if (s->next + st <= r->hi) {
        s->next += st;
    } else if (++s->ri < s->calls.n) {
        s->next = s->calls.v[s->ri].lo;
    } else {
        s->done = true;
        return;
    }
    s->key = key_of(s, span);
}

static int before(const series *a, const series *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->comm != b->comm)
        return a->comm < b->comm;
    int c = strcasecmp(a->coll, b->coll);
    if (c)
        return c < 0;
    return a->next < b->next;
}

/* A binary heap of the series not done, earliest call on top. */
static void sift_down(series **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (r < n && before(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        series *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* This rank's recorded seconds in its calls of (id, coll). */
static double recorded(const cp_profile *p, int wrank, int64_t id, const char *coll)
{
    const cp_cpt_series *s = replay_timed_series(p, wrank, id, coll);
    if (!s)
        return 0;
    double t = s->agg_time;
    for (uint64_t k = 0; k < s->n; k++)
        t += s->exit[k] - s->start[k];
    return t;
}

int replay_sequence(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                    const replay_options *o, void *sbuf, void *rbuf, replay_sequence_result *res,
                    cp_error *err)
{
    (void)o;
    *res = (replay_sequence_result){.has_recorded = p->has_timings};
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    series *sv = calloc(ps->n + 1, sizeof *sv);
    series **heap = calloc(ps->n + 1, sizeof *heap);
    replay_args *args = calloc(ps->n + 1, sizeof *args);
    signed char *made = calloc(ps->n + 1, 1); /* 0 not yet, 1 made, -1 cannot */
    size_t ns = 0;
    int rc = 0;
    double span = 1, mine_recorded = 0;
    if (!sv || !heap || !args || !made)
        rc = cp_error_set(err, "out of memory");
    /* the run's span, so that untimed series spread over the timed ones */
    for (size_t r = 0; rc == 0 && p->has_timings && r < p->timings.world_size && r < 1; r++)
        for (size_t i = 0; i < p->timings.chunks[r].nseries; i++) {
            const cp_cpt_series *s = &p->timings.chunks[r].series[i];
            if (s->n && s->exit[s->n - 1] > span)
                span = s->exit[s->n - 1];
        }
    /* one series per selected (communicator, collective) of this rank */
    for (size_t i = 0; rc == 0 && i < ps->n; i++) {
        const replay_pattern *pt = &ps->v[i];
        const replay_comm *rcm = &c->v[pt->comm];
        if (rcm->side < 0 || pt->skipped)
            continue;
        series *s = NULL;
        for (size_t k = 0; k < ns && !s; k++)
            if (sv[k].comm == pt->comm && strcasecmp(sv[k].coll, pt->collective) == 0)
                s = &sv[k];
        if (!s) {
            s = &sv[ns++];
            s->comm = pt->comm;
            s->id = rcm->id[0];
            snprintf(s->coll, sizeof s->coll, "%s", pt->collective);
            s->pats = calloc(ps->n, sizeof *s->pats);
            /* either direction: a group may only receive (the leaves of
             * an intercommunicator's broadcast) */
            if (!s->pats || cp_profile_calls(p, s->id, s->coll, -1, &s->calls)) {
                rc = cp_error_set(err, "out of memory");
                break;
            }
            s->ncalls = cp_ranges_count(&s->calls);
            s->ts = replay_timed_series(p, replay_comm_lead(p, s->id), s->id, s->coll);
            mine_recorded += recorded(p, wrank, rcm->id[rcm->side], s->coll);
        }
        s->pats[s->npats++] = i;
    }
    size_t nh = 0;
    for (size_t k = 0; rc == 0 && k < ns; k++) {
        start(&sv[k], span);
        if (!sv[k].done)
            heap[nh++] = &sv[k];
    }
    for (size_t i = nh / 2; i-- > 0;)
        sift_down(heap, nh, i);
    /* a rank that could not prepare must not leave the others waiting */
    int bad = rc != 0, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad && rc == 0)
        rc = cp_error_set(err, "another rank ran out of memory");
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int64_t ncalls = 0;
    int mpirc = MPI_SUCCESS;
    while (rc == 0 && nh > 0 && mpirc == MPI_SUCCESS) {
        series *s = heap[0];
        /* the pattern of this call: the one before, or the one holding it */
        size_t pi = s->pats[s->last];
        if (!cp_ranges_contains(&ps->v[pi].key->calls, s->next)) {
            size_t k = 0;
            while (k < s->npats && !cp_ranges_contains(&ps->v[s->pats[k]].key->calls, s->next))
                k++;
            pi = k < s->npats ? s->pats[k] : SIZE_MAX;
            if (k < s->npats)
                s->last = k;
        }
        if (pi != SIZE_MAX && made[pi] == 0) {
            char why[160];
            int m = replay_args_make(c, &ps->v[pi], o->scale, &args[pi], why, sizeof why);
            made[pi] = m == 0 ? 1 : -1;
            args[pi].sbuf = sbuf;
            args[pi].rbuf = rbuf;
        }
        if (pi != SIZE_MAX && made[pi] == 1) {
            if (ps->v[pi].nonblocking) {
                MPI_Request req;
                mpirc = replay_colls[args[pi].coll].call(&args[pi], &req);
                if (mpirc == MPI_SUCCESS)
                    mpirc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                mpirc = replay_colls[args[pi].coll].call(&args[pi], NULL);
            }
            ncalls++;
        }
        step(s, span);
        if (s->done)
            heap[0] = heap[--nh];
        sift_down(heap, nh, 0);
    }
    double t = MPI_Wtime() - t0;
    if (rc == 0 && mpirc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(mpirc, s, &len);
        rc = cp_error_set(err, "rank %d: the MPI library returned an error: %s", wrank, s);
    }
    double mx[2] = {t, mine_recorded}, gmx[2];
    int64_t calls = ncalls, gcalls = 0;
    MPI_Reduce(mx, gmx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&calls, &gcalls, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    res->seconds = gmx[0];
    res->recorded = gmx[1];
    res->calls = gcalls;
    for (size_t k = 0; k < ns; k++) {
        cp_ranges_free(&sv[k].calls);
        free(sv[k].pats);
    }
    for (size_t i = 0; args && i < ps->n; i++)
        replay_args_free(&args[i]);
    free(sv);
    free(heap);
    free(args);
    free(made);
    return rc;
}
