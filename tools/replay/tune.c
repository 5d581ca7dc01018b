/*
 * --tune: each algorithm the library offers, measured on each selected
 * pattern with replay's method (measure.c).  The algorithms are interleaved
 * and repeated: R rounds, each measuring every algorithm once, the order
 * rotated from round to round, so that a machine that slows down for a
 * while slows every algorithm down rather than one, and shows as spread.
 * Each measurement's timed calls take at most S / (R x algorithms) seconds,
 * so a pattern is tuned in about S (--seconds) plus warm-up calls.
 */
#include <signal.h>
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

volatile sig_atomic_t replay_interrupted;

/* The word of every rank on what comes next, after one measurement: the
 * library refused the algorithm (world rank 0 knows), the pattern's time
 * budget ran out (world rank 0's clock), some rank was interrupted.  Every
 * decision that changes which collective a rank calls next is taken from
 * this, the same on every rank. */
typedef struct next_step {
    int refused, over_budget, interrupted;
} next_step;

static next_step agree_next(bool refused, bool over_budget)
{
    int wrank, mine[3], all[3] = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    mine[0] = wrank == 0 && refused;
    mine[1] = wrank == 0 && over_budget;
    mine[2] = replay_interrupted; /* the signal's number, 0: none */
    if (MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        all[0] = 1; /* the library failed even here: nothing more of this algorithm */
    return (next_step){all[0], all[1], all[2]};
}

/* Did algorithm k become the library's choice on every rank? */
static bool selected_everywhere(const replay_algos *al, int k)
{
    int bad = replay_algos_select(al, k) != 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

/* The patterns and measurements ahead, said before the first one: the
 * time tuning will take. */
static void say_budget(const replay_patterns *ps, const replay_tuned *out,
                       const replay_options *o)
{
    int npat = 0, nmeas = 0;
    for (size_t i = 0; i < ps->n; i++)
        if (!ps->v[i].skipped && out[i].algos.n > 0) {
            npat++;
            nmeas += out[i].algos.n * (int)o->rounds;
        }
    fprintf(stderr, "collprof-replay: tuning %d pattern%s, %d measurements (each algorithm "
            "%lld times): at most %.3g s a pattern, warm-up included (--seconds; one measurement "
            "when a single one takes longer), %.3g s in all; Ctrl-C stops and prints what was "
            "measured\n",
            npat, npat == 1 ? "" : "s", nmeas, (long long)o->rounds, o->seconds,
            o->seconds * npat);
}

void replay_tune(const replay_comms *c, const replay_patterns *ps, const replay_options *o,
                 void *sbuf, void *rbuf, replay_tuned *out)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (size_t i = 0; i < ps->n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        replay_algos_find(ps->v[i].collective, ps->v[i].nonblocking,
                          c->v[ps->v[i].comm].inter, &out[i].algos);
        out[i].ranks = replay_comm_ranks(&c->v[ps->v[i].comm]);
    }
    if (wrank == 0)
        say_budget(ps, out, o);
    bool interrupted = false; /* the whole run stops */
    size_t i = 0;
    for (; i < ps->n && !interrupted; i++) {
        const replay_pattern *pt = &ps->v[i];
        replay_tuned *tu = &out[i];
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
        /* The pattern's budget, warm-up included: half of it for the timed
         * calls, the rest for warm-up calls and barriers. */
        replay_options mo = *o;
        mo.seconds = o->seconds / 2 / (double)(o->rounds * n);
        for (int k = 0; k < n; k++) /* the same on every rank: the library's version */
            tu->t[k].untried = tu->algos.untried[k];
        bool cut = false; /* this pattern stops: its budget ran out, or the run stops */
        double t0 = MPI_Wtime();
        static double times[REPLAY_ALGO_MAX][REPLAY_ROUNDS_MAX];
        int nt[REPLAY_ALGO_MAX] = {0}, done = 0;
        for (int r = 0; r < o->rounds && !cut; r++)
            for (int j = 0; j < n && !cut; j++) {
                int k = (j + r) % n;
                if (tu->t[k].refused || tu->t[k].untried)
                    continue; /* the same on every rank: agreed below, or the version */
                double t = 0, m0 = MPI_Wtime();
                bool refused = !selected_everywhere(&tu->algos, k);
                if (!refused)
                    measure_one(c, pt, &tu->algos, k, &mo, &a, &t, &refused);
                done++;
                /* Over budget when another measurement as long as this one
                 * would end past it (world rank 0's clock decides). */
                double now = MPI_Wtime();
                next_step next = agree_next(refused, now - t0 + (now - m0) > o->seconds);
                if (next.refused)
                    tu->t[k].refused = true;
                else if (wrank == 0)
                    times[k][nt[k]++] = t;
                if (next.interrupted) {
                    snprintf(tu->cut, sizeof tu->cut, "interrupted (%s) after %d of %d "
                             "measurements", next.interrupted == SIGTERM ? "SIGTERM" : "SIGINT",
                             done, n * (int)o->rounds);
                    cut = interrupted = true;
                } else if (next.over_budget && done < n * (int)o->rounds) {
                    snprintf(tu->cut, sizeof tu->cut, "its time budget of %.3g s (--seconds) "
                             "ran out after %d of %d measurements", o->seconds, done,
                             n * (int)o->rounds);
                    cut = true;
                }
            }
        replay_args_free(&a);
        replay_algos_select(&tu->algos, 0);
        for (int k = 0; k < n; k++)
            replay_tune_summarise(times[k], tu->t[k].refused || tu->t[k].untried ? 0 : nt[k],
                                  &tu->t[k]);
        replay_tune_winner(tu);
        if (wrank == 0)
            fprintf(stderr, "collprof-replay: tuned pattern %zu of %zu (%s, %d algorithms): "
                    "%.2f s%s%s\n", i + 1, ps->n, pt->collective, n, MPI_Wtime() - t0,
                    tu->cut[0] ? ": " : "", tu->cut);
    }
    for (; i < ps->n; i++) /* the patterns after an interruption */
        if (!ps->v[i].skipped && out[i].algos.n)
            snprintf(out[i].cut, sizeof out[i].cut, "not reached: interrupted");
}
