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
    for (cp_comm *c = comms; c; c = c->next) {
        cp_sample *v = NULL;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            if (!c->coll[k])
                continue;
            if (!v && !(v = S->of[c->reg_index] = calloc(CP_NCOLLECTIVES, sizeof *v)))
                return -1;
            if (cp_sample_make(&c->coll[k]->counts, &c->coll[k]->timing, tl, &v[k]))
                return -1;
        }
    }
    return 0;
}

const cp_sample *cp_fin_sample(const fin_samples *S, const cp_comm *c, int k)
{
    static const cp_sample none;
    return c->reg_index < S->n && S->of[c->reg_index] ? &S->of[c->reg_index][k] : &none;
}

void cp_fin_samples_free(fin_samples *S)
{
    for (size_t i = 0; i < S->n; i++) {
        for (int k = 0; S->of[i] && k < CP_NCOLLECTIVES; k++) {
            free(S->of[i][k].recs);
            free(S->of[i][k].paths);
        }
        free(S->of[i]);
    }
    free(S->of);
    *S = (fin_samples){0};
}
