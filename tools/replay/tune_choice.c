/* --tune's numbers, without MPI (tuning.h): a pattern's rounds, its winner,
 * a collective's one setting. */
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void replay_tune_summarise(double *v, int n, replay_tune_time *t)
{
    t->rounds = n;
    if (n == 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    t->lo = v[0];
    t->hi = v[n - 1];
    t->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void replay_tune_winner(replay_tuned *tu)
{
    tu->best = 0;
    for (int k = 1; k < tu->algos.n; k++)
        if (tu->t[k].rounds &&
            (!tu->t[tu->best].rounds || tu->t[k].median < tu->t[tu->best].median))
            tu->best = k;
    tu->clear = tu->best > 0 && tu->t[0].rounds && tu->t[tu->best].hi < tu->t[0].lo;
}

/* Algorithm k's time on a pattern, or the own choice's where k was refused. */
static const replay_tune_time *time_of(const replay_tuned *t, int k)
{
    return t->t[k].rounds ? &t->t[k] : &t->t[0];
}

/* Does use u count for (cvar, size)? */
static bool counts(const replay_tune_use *u, const char *cvar, int64_t size)
{
    return u->t->algos.n && strcmp(u->t->algos.cvar, cvar) == 0 && u->t->t[0].rounds &&
           (size < 0 || u->size == size);
}

replay_tune_choice replay_tune_choose(const replay_tune_use *u, size_t n, const char *cvar,
                                      int64_t size)
{
    replay_tune_choice best = {.recorded = -1};
    int nalgs = 0;
    for (size_t i = 0; i < n; i++)
        if (counts(&u[i], cvar, size))
            nalgs = u[i].t->algos.n;
    for (int k = 0; k < nalgs; k++) {
        replay_tune_choice ck = {.k = k};
        bool timed = true;
        for (size_t i = 0; i < n; i++) {
            const replay_tuned *t = u[i].t;
            if (!counts(&u[i], cvar, size))
                continue;
            const replay_tune_time *own = &t->t[0], *alg = time_of(t, k);
            double calls = (double)u[i].calls;
            ck.saving += calls * (own->median - alg->median);
            if (alg != own) {
                ck.lo += calls * (own->lo - alg->hi);
                ck.hi += calls * (own->hi - alg->lo);
            }
            ck.calls += u[i].calls;
            ck.recorded += u[i].recorded;
            timed = timed && u[i].recorded >= 0;
        }
        if (!timed)
            ck.recorded = -1;
        if (k == 0 || ck.saving > best.saving)
            best = ck;
    }
    best.clear = best.k > 0 && best.lo > 0;
    return best;
}
