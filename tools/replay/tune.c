/*
 * --tune: each algorithm the library offers, measured on each selected
 * pattern with replay's method (measure.c).  The algorithms are interleaved
 * and repeated: R rounds, each measuring every algorithm once, the order
 * rotated from round to round, so that a machine that slows down for a
 * while slows every algorithm down rather than one, and shows as spread.
 * Each measurement's timed calls take at most S / (R x algorithms) seconds,
 * so a pattern is tuned in about S (--seconds) plus warm-up calls.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* One measurement of algorithm k on pattern pt (every world rank) with this
 * rank's arguments a (made once per pattern; a member's buffers set). */
static void measure_one(const replay_comms *c, const replay_pattern *pt, const replay_algos *al,
                        int k, const replay_options *mo, replay_args *a, double *t,
                        bool *refused)
{
    replay_comm rc = c->v[pt->comm];
    replay_algos_select(al, k);
    MPI_Comm dup = MPI_COMM_NULL;
    if (al->new_comm && rc.side >= 0) {
        MPI_Comm_dup(rc.comm, &dup);
        rc.comm = dup;
        if (!rc.inter)
            rc.sync = dup;
    }
    a->comm = rc.comm;
    replay_pattern tmp = *pt;
    tmp.skipped = false;
    replay_measure(&rc, a, &tmp, mo);
    if (dup != MPI_COMM_NULL)
        MPI_Comm_free(&dup);
    *refused = tmp.skipped;
    *t = pt->nonblocking ? tmp.t_pure : tmp.t_max;
}

/* This rank's arguments of pt into a (a member's; a non-member's stay
 * empty): true when every member could make them (agreed over the world). */
static bool arguments_made(const replay_comms *c, const replay_pattern *pt,
                           const replay_options *o, replay_args *a, void *sbuf, void *rbuf)
{
    int ok = 1, all;
    if (c->v[pt->comm].side >= 0) {
        char why[160];
        ok = replay_args_make(c, pt, o->scale, a, why, sizeof why) == 0;
        a->sbuf = sbuf;
        a->rbuf = rbuf;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
}

void replay_tune(const replay_comms *c, const replay_patterns *ps, const replay_options *o,
                 void *sbuf, void *rbuf, replay_tuned *out)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (size_t i = 0; i < ps->n; i++) {
        const replay_pattern *pt = &ps->v[i];
        replay_tuned *tu = &out[i];
        memset(tu, 0, sizeof *tu);
        replay_algos_find(pt->collective, pt->nonblocking, c->v[pt->comm].inter, &tu->algos);
        tu->ranks = replay_comm_ranks(&c->v[pt->comm]);
        int n = tu->algos.n;
        if (pt->skipped || n == 0)
            continue;
        replay_args a = {0};
        if (!arguments_made(c, pt, o, &a, sbuf, rbuf)) {
            replay_args_free(&a);
            tu->algos.n = 0;
            snprintf(tu->algos.why, sizeof tu->algos.why, "a rank cannot make the pattern's "
                     "arguments (a count beyond int, or out of memory)");
            continue;
        }
        replay_options mo = *o;
        mo.seconds = o->seconds / (double)(o->rounds * n);
        double t0 = MPI_Wtime();
        static double times[REPLAY_ALGO_MAX][REPLAY_ROUNDS_MAX];
        int nt[REPLAY_ALGO_MAX] = {0};
        for (int r = 0; r < o->rounds; r++)
            for (int j = 0; j < n; j++) {
                int k = (j + r) % n;
                if (tu->t[k].refused)
                    continue; /* the same on every rank: world rank 0 broadcast it */
                double t;
                bool refused;
                measure_one(c, pt, &tu->algos, k, &mo, &a, &t, &refused);
                int flag = refused;
                MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (flag)
                    tu->t[k].refused = true;
                else if (wrank == 0)
                    times[k][nt[k]++] = t;
            }
        replay_args_free(&a);
        replay_algos_select(&tu->algos, 0);
        for (int k = 0; k < n; k++)
            replay_tune_summarise(times[k], tu->t[k].refused ? 0 : nt[k], &tu->t[k]);
        replay_tune_winner(tu);
        if (wrank == 0)
            fprintf(stderr, "collprof-replay: tuned pattern %zu of %zu (%s, %d algorithms): "
                    "%.2f s\n", i + 1, ps->n, pt->collective, n, MPI_Wtime() - t0);
    }
}
