/*
 * --tune --validate: does the projection hold?  The whole recorded sequence
 * (sequence.c, as --sequence replays it) is replayed with the library's own
 * choices and with the proposed settings, alternately, --rounds times each,
 * the order swapped every round; the medians' difference is the measured
 * saving, set beside the projected one.  The settings apply as the
 * application would run with them: MPICH's fallback as at launch (an
 * algorithm that cannot serve a call leaves it to the library's own
 * choice), and for a library that takes a choice when a communicator is
 * made, every communicator duplicated after the choice.
 */
#include <string.h>

#include "replay.h"

/* Choose, on this rank, the settings (with) or the own choices (without). */
static void apply(const replay_choice *set, int n, bool with)
{
    for (int s = 0; s < n; s++)
        replay_algos_select(set[s].algos, with ? set[s].k : 0);
}

/* One replay of the sequence; its seconds on world rank 0, -1 on failure. */
static double one_run(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                      const replay_options *o, bool new_comms, void *sbuf, void *rbuf,
                      int64_t *calls, char *why, size_t whysize)
{
    replay_comms dup;
    const replay_comms *use = c;
    if (new_comms) {
        if (replay_comms_dup(c, &dup) != 0) {
            snprintf(why, whysize, "out of memory");
            return -1;
        }
        use = &dup;
    }
    replay_sequence_result res = {0};
    cp_error err = {{0}};
    int rc = replay_sequence(p, use, ps, o, sbuf, rbuf, &res, &err);
    int bad = rc != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (new_comms)
        replay_comms_free_dup(&dup);
    if (any) {
        snprintf(why, whysize, "the sequence failed: %.200s", rc ? err.msg : "on another rank");
        return -1;
    }
    *calls = res.calls;
    return res.seconds;
}

/* Collective over MPI_COMM_WORLD, the same settings on every rank. */
static void validate(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                     const replay_options *o, const replay_choice *set, int n, void *sbuf,
                     void *rbuf, replay_validation *v)
{
    bool new_comms = false;
    for (int s = 0; s < n; s++)
        new_comms = new_comms || set[s].algos->new_comm;
    replay_algos_strict(false);
    static double times[2][REPLAY_ROUNDS_MAX];
    bool failed = false;
    for (int r = 0; r < o->rounds && !failed; r++)
        for (int j = 0; j < 2 && !failed; j++) {
            bool with = (j + r) % 2 == 1;
            apply(set, n, with);
            double s = one_run(p, c, ps, o, new_comms, sbuf, rbuf, &v->calls, v->why,
                               sizeof v->why);
            /* rank 0's word: the seconds are only its (the others' may be anything) */
            int bad = s < 0;
            MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
            failed = bad;
            times[with][r] = s;
        }
    apply(set, n, false);
    replay_algos_strict(true);
    if (failed)
        return;
    v->rounds = (int)o->rounds;
    replay_tune_summarise(times[0], v->rounds, &v->own);
    replay_tune_summarise(times[1], v->rounds, &v->set);
    v->done = true;
}

void replay_tune_validate(const cp_profile *p, const replay_comms *c, const replay_patterns *ps,
                          const replay_options *o, const replay_tuned *t, void *sbuf, void *rbuf,
                          replay_validation *v)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    memset(v, 0, sizeof *v);
    v->projected_known = true;
    /* World rank 0's settings, as (pattern, algorithm) pairs, to every rank. */
    int64_t pairs[2 * REPLAY_SETTINGS_MAX];
    int n = 0;
    if (wrank == 0) {
        replay_setting s[REPLAY_SETTINGS_MAX];
        size_t ns = replay_tune_settings(ps, t, s, REPLAY_SETTINGS_MAX);
        for (size_t i = 0; i < ns; i++)
            if (s[i].ch.clear) {
                pairs[2 * n] = (int64_t)s[i].pattern;
                pairs[2 * n + 1] = s[i].ch.k;
                v->projected += s[i].ch.saving;
                v->projected_lo += s[i].ch.lo;
                v->projected_hi += s[i].ch.hi;
                n++;
            }
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (n == 0) {
        snprintf(v->why, sizeof v->why, "no setting to check (none saves time beyond the noise)");
        return;
    }
    MPI_Bcast(pairs, 2 * n, MPI_INT64_T, 0, MPI_COMM_WORLD);
    replay_choice set[REPLAY_SETTINGS_MAX];
    for (int s = 0; s < n; s++)
        set[s] = (replay_choice){&t[pairs[2 * s]].algos, (int)pairs[2 * s + 1]};
    validate(p, c, ps, o, set, n, sbuf, rbuf, v);
}

void replay_validate_settings(const cp_profile *p, const replay_comms *c,
                              const replay_patterns *ps, const replay_options *o,
                              const replay_choice *set, int n, void *sbuf, void *rbuf,
                              replay_validation *v)
{
    memset(v, 0, sizeof *v);
    validate(p, c, ps, o, set, n, sbuf, rbuf, v);
}
