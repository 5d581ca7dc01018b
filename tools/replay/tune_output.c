/*
 * --tune's answer, on world rank 0: per pattern each algorithm's time and
 * the fastest, called a winner only beyond the spread of the rounds; per
 * collective the one setting that serves all its patterns best and the run
 * time it would save (recorded calls x the difference); the settings that
 * choose the winners.  --algorithms: the library's algorithms, no profile.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* A duration in text (the reader's units; buf of 32 bytes). */
static const char *dur(double s, char *buf)
{
    return cp_reader_duration(s, "us", buf, 32);
}

bool replay_tune_seen(const replay_tuned *t, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (t[j].algos.n && strcmp(t[j].algos.cvar, t[i].algos.cvar) == 0)
            return true;
    return false;
}

static void print_pattern(FILE *out, const replay_comms *c, const replay_pattern *pt,
                          const replay_tuned *tu, size_t i)
{
    const replay_comm *rc = &c->v[pt->comm];
    char label[48];
    replay_comm_label(rc, label, sizeof label);
    fprintf(out, "\npattern %zu: comm %s (%lld ranks) %s%s, %lld calls recorded, %lld bytes per "
            "call", i + 1, label, (long long)replay_comm_ranks(rc), pt->collective,
            pt->nonblocking ? " (non-blocking)" : "", (long long)pt->calls, (long long)pt->bytes);
    if (pt->skipped) {
        fprintf(out, "\n  not measured: %s\n", pt->why);
        return;
    }
    if (tu->algos.n == 0) {
        fprintf(out, "\n  no algorithm can be chosen: %s\n", tu->algos.why);
        return;
    }
    fprintf(out, "; %s\n  %-32s %12s  %-27s %s\n", tu->algos.cvar, "algorithm", "median[usec]",
            "rounds: fastest..slowest", "vs own choice");
    const replay_tune_time *own = &tu->t[0];
    for (int k = 0; k < tu->algos.n; k++) {
        const replay_tune_time *t = &tu->t[k];
        char name[REPLAY_ALGO_NAME + 24];
        snprintf(name, sizeof name, "%s%s", tu->algos.names[k], k ? "" : " (library's own)");
        if (t->refused) {
            fprintf(out, "  %-32s refused: the library returned an error, it cannot serve this "
                    "pattern\n", name);
            continue;
        }
        if (t->untried) {
            fprintf(out, "  %-32s not tried: %s\n", name, t->untried);
            continue;
        }
        if (!t->rounds) {
            fprintf(out, "  %-32s not measured\n", name);
            continue;
        }
        char range[64];
        snprintf(range, sizeof range, "%.3f..%.3f", t->lo * 1e6, t->hi * 1e6);
        fprintf(out, "  %-32s %12.3f  %-27s", name, t->median * 1e6, range);
        if (k && own->rounds && own->median > 0)
            fprintf(out, " %+.1f %%", 100 * (t->median - own->median) / own->median);
        fputc('\n', out);
    }
    if (tu->cut[0])
        fprintf(out, "  cut short: %s\n", tu->cut);
    const char *b = tu->algos.names[tu->best];
    if (!tu->t[tu->best].rounds)
        fprintf(out, "  fastest: none measured\n");
    else if (tu->best == 0)
        fprintf(out, "  fastest: %s, the library's own choice\n", b);
    else if (tu->clear)
        fprintf(out, "  fastest: %s, beyond the noise (its slowest round beats %s's fastest)\n", b,
                tu->algos.names[0]);
    else
        fprintf(out, "  fastest median: %s, but within the spread of %s's rounds: no winner\n", b,
                tu->algos.names[0]);
}

replay_tune_use *replay_tune_uses(const replay_patterns *ps, const replay_tuned *t)
{
    replay_tune_use *uses = malloc((ps->n ? ps->n : 1) * sizeof *uses);
    for (size_t i = 0; uses && i < ps->n; i++) {
        const replay_pattern *pt = &ps->v[i];
        uses[i] = (replay_tune_use){.t = &t[i], .calls = pt->calls, .size = t[i].ranks,
                                    .recorded = pt->rec_instances
                                                    ? pt->rec_median * (double)pt->calls
                                                    : -1};
    }
    return uses;
}

size_t replay_tune_settings(const replay_patterns *ps, const replay_tuned *t,
                            replay_setting *out, size_t max)
{
    replay_tune_use *uses = replay_tune_uses(ps, t);
    if (!uses)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < ps->n && n < max; i++)
        if (t[i].algos.n && t[i].t[0].rounds && !replay_tune_seen(t, i))
            out[n++] = (replay_setting){i, replay_tune_choose(uses, ps->n, t[i].algos.cvar, -1)};
    free(uses);
    return n;
}

/* Per collective the one setting, the whole run's saving, the settings. */
static void print_settings(FILE *out, const replay_patterns *ps, const replay_tuned *t)
{
    fprintf(out, "\nper collective (one setting serves all its patterns; a refused algorithm "
                 "leaves a pattern to the library's own choice):\n");
    replay_setting set[REPLAY_SETTINGS_MAX];
    size_t nset = replay_tune_settings(ps, t, set, REPLAY_SETTINGS_MAX);
    double total = 0, total_lo = 0, total_hi = 0, recorded = 0;
    bool all_recorded = true;
    size_t chosen = 0;
    char v[4][32];
    for (size_t s = 0; s < nset; s++) {
        const replay_tune_choice *ch = &set[s].ch;
        const replay_algos *al = &t[set[s].pattern].algos;
        fprintf(out, "  %-20s %-40s ", ps->v[set[s].pattern].collective, al->cvar);
        if (!ch->clear) {
            fprintf(out, "keep %s (no algorithm saves time beyond the noise", al->names[0]);
            if (ch->k)
                fprintf(out, "; %s would save %s [%s..%s]", al->names[ch->k],
                        dur(ch->saving, v[0]), dur(ch->lo, v[1]),
                        dur(ch->hi, v[2]));
            fprintf(out, ")\n");
            continue;
        }
        fprintf(out, "%s saves %s [%s..%s] over %lld recorded calls", al->names[ch->k],
                dur(ch->saving, v[0]), dur(ch->lo, v[1]), dur(ch->hi, v[2]),
                (long long)ch->calls);
        if (ch->recorded >= 0)
            fprintf(out, " (recorded: calls x median = %s)", dur(ch->recorded, v[0]));
        fputc('\n', out);
        total += ch->saving;
        total_lo += ch->lo;
        total_hi += ch->hi;
        recorded += ch->recorded;
        all_recorded = all_recorded && ch->recorded >= 0;
        chosen++;
    }
    if (nset == 0)
        fprintf(out, "  none: no pattern has algorithms to choose from\n");
    if (chosen == 0)
        fprintf(out, "\nwhole run: no setting saves time beyond the noise\n");
    else if (all_recorded)
        fprintf(out, "\nwhole run: projected saving %s [%s..%s] of %s recorded in those "
                "collectives (calls x median)\n", dur(total, v[0]), dur(total_lo, v[1]),
                dur(total_hi, v[2]), dur(recorded, v[3]));
    else
        fprintf(out, "\nwhole run: projected saving %s [%s..%s] (the profile has no timings: "
                "the time recorded in those collectives is not known)\n", dur(total, v[0]),
                dur(total_lo, v[1]), dur(total_hi, v[2]));
    fprintf(out, "\nsettings (environment of the application's ranks):\n");
    for (size_t s = 0; s < nset; s++)
        if (set[s].ch.clear) {
            char env[256];
            replay_algos_setting(&t[set[s].pattern].algos, set[s].ch.k, env, sizeof env);
            fprintf(out, "  %s\n", env);
        }
    if (chosen == 0)
        fprintf(out, "  none: keep the library's own choices\n");
}

static void print_validation(FILE *out, const replay_validation *v)
{
    char a[6][32];
    if (!v->done) {
        fprintf(out, "\nvalidation: not done: %s\n", v->why);
        return;
    }
    fprintf(out, "\nvalidation: the recorded sequence (%lld calls on the busiest rank) replayed "
            "%d times with the library's own choices and %d times with the settings, "
            "alternately; seconds of the whole sequence (slowest rank):\n",
            (long long)v->calls, v->rounds, v->rounds);
    fprintf(out, "  own choices  median %s [%s..%s]\n", dur(v->own.median, a[0]),
            dur(v->own.lo, a[1]), dur(v->own.hi, a[2]));
    fprintf(out, "  settings     median %s [%s..%s]\n", dur(v->set.median, a[0]),
            dur(v->set.lo, a[1]), dur(v->set.hi, a[2]));
    double saved = v->own.median - v->set.median;
    fprintf(out, "  measured saving %s [%s..%s] (%.1f %% of the own choices' median)",
            dur(saved, a[0]), dur(v->own.lo - v->set.hi, a[1]),
            dur(v->own.hi - v->set.lo, a[2]),
            v->own.median > 0 ? 100 * saved / v->own.median : 0.0);
    if (v->projected_known)
        fprintf(out, ", projected %s [%s..%s]", dur(v->projected, a[3]),
                dur(v->projected_lo, a[4]), dur(v->projected_hi, a[5]));
    else
        fprintf(out, " (settings given: no projection)");
    fputc('\n', out);
}

void replay_print_tune(FILE *out, const cp_profile *p, const replay_comms *c,
                       const replay_patterns *ps, const replay_tuned *t, const replay_options *o,
                       int nranks, const replay_validation *v)
{
    char lib[256];
    replay_library_line(lib, sizeof lib);
    fprintf(out, "collprof-replay --tune: %zu pattern%s of %s, %d ranks, %s\n", ps->n,
            ps->n == 1 ? "" : "s", p->dir, nranks, lib);
    fprintf(out, "method: every algorithm %s offers (found through MPI_T), measured in %lld "
            "rounds that interleave them, each as IMB measures (at most %g s of timed calls a "
            "round and algorithm); a time is the slowest rank's per call (t_max; t_pure when "
            "non-blocking), the median of the rounds, with the fastest and slowest round\n",
            replay_algos_library(), (long long)o->rounds,
            o->seconds / (double)o->rounds);
    if (ps->note[0])
        fprintf(out, "note: %s\n", ps->note);
    for (size_t i = 0; i < ps->n; i++)
        print_pattern(out, c, &ps->v[i], &t[i], i);

    print_settings(out, ps, t);
    if (o->rules)
        fprintf(out, "  or, one algorithm per communicator size, Open MPI's rules file %s:\n"
                     "  OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                     "OMPI_MCA_coll_tuned_dynamic_rules_filename=%s\n",
                o->rules, o->rules);
    if (v)
        print_validation(out, v);
}

void replay_print_validation(FILE *out, const cp_profile *p, const replay_options *o, int nranks,
                             const replay_validation *v)
{
    char lib[256];
    replay_library_line(lib, sizeof lib);
    fprintf(out, "collprof-replay --validate: %s, %d ranks, %s; settings:", p->dir, nranks, lib);
    for (int i = 0; i < o->nsettings; i++)
        fprintf(out, " %s", o->settings[i]);
    fputc('\n', out);
    print_validation(out, v);
}

void replay_print_algorithms(FILE *out)
{
    char lib[256];
    replay_library_line(lib, sizeof lib);
    fprintf(out, "collprof-replay --algorithms: %s (%s, through MPI_T)\n", lib,
            replay_algos_library());
    for (size_t i = 0; i < replay_ncolls; i++)
        for (int nb = 0; nb < 2; nb++)
            for (int inter = 0; inter < 2; inter++) {
                replay_algos a;
                replay_algos_find(replay_colls[i].name, nb, inter, &a);
                const char *name = replay_colls[i].name;
                if (nb)
                    fprintf(out, "I%c%s", tolower((unsigned char)name[0]), name + 1);
                else
                    fputs(name, out);
                fprintf(out, " %s: ", inter ? "inter" : "intra");
                if (a.n == 0) {
                    fprintf(out, "none: %s\n", a.why);
                    continue;
                }
                fprintf(out, "%s =", a.cvar);
                for (int k = 0; k < a.n; k++)
                    fprintf(out, " %s%s", a.names[k], k ? "" : " (own choice)");
                fputc('\n', out);
            }
}

/* A pattern's algorithms in replay.json's model (algos freed by the caller). */
static int tuned_json(cp_replay_tuned *x, const replay_tuned *t)
{
    const replay_algos *al = &t->algos;
    snprintf(x->variable, sizeof x->variable, "%s", al->cvar);
    snprintf(x->why, sizeof x->why, "%s", al->n ? "" : al->why);
    if (al->n == 0)
        return 0;
    x->algos = calloc((size_t)al->n, sizeof *x->algos);
    if (!x->algos)
        return -1;
    for (int k = 0; k < al->n; k++) {
        const replay_tune_time *tt = &t->t[k];
        x->algos[k] = (cp_replay_algo){.value = al->values[k], .refused = tt->refused || tt->untried,
                                       .rounds = tt->rounds, .median = tt->median,
                                       .fastest = tt->lo, .slowest = tt->hi};
        snprintf(x->algos[k].name, sizeof x->algos[k].name, "%s", al->names[k]);
    }
    x->nalgos = (size_t)al->n;
    snprintf(x->best, sizeof x->best, "%s", al->names[t->best]);
    x->beyond_noise = t->clear;
    return 0;
}

static void validation_json(cp_replay *r, const replay_validation *v)
{
    r->has_validation = true;
    r->val_done = v->done;
    snprintf(r->val_why, sizeof r->val_why, "%s", v->why);
    r->val_rounds = v->rounds;
    r->val_calls = v->calls;
    r->val_own = (cp_replay_span){v->own.median, v->own.lo, v->own.hi};
    r->val_settings = (cp_replay_span){v->set.median, v->set.lo, v->set.hi};
    r->val_has_projected = v->projected_known;
    r->val_projected = v->projected;
    r->val_projected_lo = v->projected_lo;
    r->val_projected_hi = v->projected_hi;
}

int replay_write_tune_json(const char *path, const cp_profile *p, const replay_comms *c,
                           const replay_patterns *ps, const replay_options *o, int nranks,
                           const replay_tuned *t, const replay_validation *v, cp_error *err)
{
    cp_replay r;
    replay_json_header(&r, p, ps, o, nranks);
    r.tune = true;
    r.rounds = o->rounds;
    replay_setting set[REPLAY_SETTINGS_MAX];
    size_t nset = replay_tune_settings(ps, t, set, REPLAY_SETTINGS_MAX);
    r.patterns = calloc(ps->n + 1, sizeof *r.patterns);
    r.settings = calloc(nset + 1, sizeof *r.settings);
    int rc = r.patterns && r.settings ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < ps->n; i++) {
        replay_json_pattern(&r.patterns[r.npatterns], c, &ps->v[i]);
        rc = tuned_json(&r.patterns[r.npatterns++].tune, &t[i]);
    }
    for (size_t s = 0; rc == 0 && s < nset; s++) {
        const replay_algos *al = &t[set[s].pattern].algos;
        const replay_tune_choice *ch = &set[s].ch;
        cp_replay_setting *x = &r.settings[r.nsettings++];
        *x = (cp_replay_setting){.beyond_noise = ch->clear, .saving = ch->saving,
                                 .saving_lo = ch->lo, .saving_hi = ch->hi, .calls = ch->calls,
                                 .has_recorded = ch->recorded >= 0, .recorded = ch->recorded};
        snprintf(x->collective, sizeof x->collective, "%s", ps->v[set[s].pattern].collective);
        snprintf(x->variable, sizeof x->variable, "%s", al->cvar);
        snprintf(x->own, sizeof x->own, "%s", al->names[0]);
        snprintf(x->algorithm, sizeof x->algorithm, "%s", al->names[ch->k]);
        if (ch->clear)
            replay_algos_setting(al, ch->k, x->setting, sizeof x->setting);
    }
    if (v)
        validation_json(&r, v);
    if (rc == 0)
        rc = cp_replay_write_file(path, &r, err);
    else
        cp_error_set(err, "out of memory");
    cp_replay_free(&r);
    return rc;
}
