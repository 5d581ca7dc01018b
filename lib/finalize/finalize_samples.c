/* The timing stage's product: every series' sample in seconds
 * (finalize_samples.h). */
#include "finalize_samples.h"

#include <stdlib.h>


int cp_fin_make_samples(cp_comm *comms, const cp_time_line *tl, fin_samples *S)
{
    size_t n = 0;
    for (cp_comm *c = comms; c; c = c->next)
        n = c->reg_index + 1 > n ? (size_t)c->reg_index + 1 : n;
    S->of = calloc(n ? n : 1, sizeof *S->of);
    if (!S->of)
        return -1;
    S->n = n;
    _Static_assert(CP_NCOLLECTIVES < UINT8_MAX, "a slot is a byte");
    for (cp_comm *c = comms; c; c = c->next) {
        uint8_t called = 0;
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            called += c->coll[k] != NULL;
        if (called == 0)
            continue;
        fin_comm_samples *v = calloc(1, sizeof *v + called * sizeof v->v[0]);
        if (!(S->of[c->reg_index] = v))
            return -1;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            v->slot[k] = ++v->n;
            if (cp_sample_make(&c->coll[k]->counts, &c->coll[k]->timing, tl, &v->v[v->n - 1]))
                return -1;
        }
    }
    return 0;
}

const cp_sample *cp_fin_sample(const fin_samples *S, const cp_comm *c, int k)
{
    static const cp_sample none;
    const fin_comm_samples *v = c->reg_index < S->n ? S->of[c->reg_index] : NULL;
    return v && v->slot[k] ? &v->v[v->slot[k] - 1] : &none;
}

void cp_fin_samples_free(fin_samples *S)
{
    for (size_t i = 0; i < S->n; i++) {
        for (int j = 0; S->of[i] && j < S->of[i]->n; j++) {
            cp_sample_free(&S->of[i]->v[j]);
        }
        free(S->of[i]);
    }
    free(S->of);
    *S = (fin_samples){0};
}
