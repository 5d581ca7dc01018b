/* The command line of collprof-replay (docs/replay.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* A positive number up to hi, or -1. */
static int positive(const char *s, double hi, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !(x > 0) || x > hi)
        return -1;
    *v = x;
    return 0;
}

static int integer(const char *s, int64_t lo, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo)
        return -1;
    *v = x;
    return 0;
}

int replay_options_parse(int argc, char **argv, replay_options *o, char *err, size_t errsize)
{
    *o = (replay_options){
        .comm = -1, .scale = 1, .top_by = REPLAY_TOP_TIME, .seconds = REPLAY_SECONDS_DEFAULT,
        .rounds = REPLAY_ROUNDS_DEFAULT};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = strcmp(a, "--comm") == 0 || strcmp(a, "--collective") == 0 ||
                     strcmp(a, "--top") == 0 || strcmp(a, "--top-by") == 0 ||
                     strcmp(a, "--scale-counts") == 0 || strcmp(a, "--repetitions") == 0 ||
                     strcmp(a, "--seconds") == 0 || strcmp(a, "--json") == 0 ||
                     strcmp(a, "--rounds") == 0 || strcmp(a, "--setting") == 0 ||
                     strcmp(a, "--rules") == 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (takes && !v) {
            snprintf(err, errsize, "%s needs a value", a);
            return 2;
        }
        if (strcmp(a, "--sequence") == 0) {
            o->sequence = true;
        } else if (strcmp(a, "--tune") == 0) {
            o->tune = true;
        } else if (strcmp(a, "--rules") == 0) {
            o->rules = v;
            i++;
        } else if (strcmp(a, "--validate") == 0) {
            o->validate = true;
        } else if (strcmp(a, "--setting") == 0) {
            if (o->nsettings == REPLAY_SETTINGS_MAX) {
                snprintf(err, errsize, "--setting: %d at the most", REPLAY_SETTINGS_MAX);
                return 2;
            }
            o->settings[o->nsettings++] = v;
            i++;
        } else if (strcmp(a, "--algorithms") == 0) {
            o->algorithms = true;
        } else if (strcmp(a, "--rounds") == 0) {
            if (integer(v, 2, &o->rounds) || o->rounds > REPLAY_ROUNDS_MAX) {
                snprintf(err, errsize, "--rounds: expected 2 to %d rounds, got '%s'",
                         REPLAY_ROUNDS_MAX, v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--comm") == 0) {
            if (integer(v, 0, &o->comm)) {
                snprintf(err, errsize, "--comm: expected a communicator id (0 or more), got '%s'", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--collective") == 0) {
            if (replay_coll_find(v) < 0) {
                snprintf(err, errsize, "--collective: '%s' is not a collective collprof records", v);
                return 2;
            }
            snprintf(o->collective, sizeof o->collective, "%s", v);
            i++;
        } else if (strcmp(a, "--top") == 0) {
            if (integer(v, 1, &o->top)) {
                snprintf(err, errsize, "--top: expected a number of patterns (1 or more), got '%s'", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--top-by") == 0) {
            if (strcmp(v, "time") && strcmp(v, "bytes")) {
                snprintf(err, errsize, "--top-by: expected time or bytes, got '%s'", v);
                return 2;
            }
            o->top_by = strcmp(v, "time") == 0 ? REPLAY_TOP_TIME : REPLAY_TOP_BYTES;
            i++;
        } else if (strcmp(a, "--scale-counts") == 0) {
            if (positive(v, 1e6, &o->scale)) {
                snprintf(err, errsize, "--scale-counts: expected a factor above 0, got '%s'", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--repetitions") == 0) {
            if (integer(v, 1, &o->repetitions)) {
                snprintf(err, errsize, "--repetitions: expected 1 or more, got '%s'", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--seconds") == 0) {
            if (positive(v, 86400, &o->seconds)) {
                snprintf(err, errsize, "--seconds: expected seconds per pattern above 0, got '%s'", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--json") == 0) {
            o->json = v;
            i++;
        } else if (a[0] == '-') {
            snprintf(err, errsize, "unknown option '%s'", a);
            return 2;
        } else if (o->dir) {
            snprintf(err, errsize, "one profile directory only ('%s', then '%s')", o->dir, a);
            return 2;
        } else {
            o->dir = a;
        }
    }
    if (o->algorithms)
        return 0; /* needs no profile */
    if (!o->dir) {
        snprintf(err, errsize, "no profile directory given");
        return 2;
    }
    if (o->tune && o->sequence) {
        snprintf(err, errsize, "--tune measures the patterns one by one: not with --sequence");
        return 2;
    }
    if (o->rules && !o->tune) {
        snprintf(err, errsize, "--rules writes the winners of --tune: give both");
        return 2;
    }
    if (o->validate && !o->tune && o->nsettings == 0) {
        snprintf(err, errsize, "--validate checks the settings of --tune, or those given with "
                 "--setting: give one or the other");
        return 2;
    }
    if (o->nsettings && (o->tune || !o->validate)) {
        snprintf(err, errsize, "--setting goes with --validate alone (not with --tune)");
        return 2;
    }
    if (o->validate && !o->tune && o->json) {
        snprintf(err, errsize, "--validate with --setting prints its answer, it writes no --json");
        return 2;
    }
    return 0;
}
