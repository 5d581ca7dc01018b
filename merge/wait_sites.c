/* The strata of a whole-run waiting estimate (see wait_sites.h). */
#include "wait_sites.h"

#include <stdlib.h>

#include "counts.h"
#include "grow.h"
#include "timing.h"
#include "wait_states.h"

cp_wsite *cp_wsites_get(cp_wsites *s, uint32_t form, uint32_t path)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].form == form && s->v[i].path == path)
            return &s->v[i];
    if (s->n == s->cap && cp_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 4) != 0) {
        s->oom = true;
        return NULL;
    }
    s->v[s->n] = (cp_wsite){.form = form, .path = path};
    return &s->v[s->n++];
}

void cp_wsites_totals(cp_wsites *s, const cp_counts *c, const cp_timing *t, double tick)
{
    for (uint32_t sig = 0; sig < t->nagg && sig < c->nsigs; sig++) {
        if (!t->agg[sig].n)
            continue;
        cp_wsite *w = cp_wsites_get(s, c->sigs[sig].form, c->sigs[sig].callpath);
        if (w) {
            w->t += (double)t->agg[sig].time * tick;
            w->timed += t->agg[sig].n;
        }
    }
}

void cp_wsites_finish(cp_wsites *s, bool bounded)
{
    for (size_t i = 0; i < s->n; i++) {
        cp_wsite *w = &s->v[i];
        w->factor = cp_wait_factor(w->x, w->y, w->t, w->analysed >= w->timed, bounded);
    }
}

void cp_wsites_free(cp_wsites *s)
{
    free(s->v);
    *s = (cp_wsites){0};
}
