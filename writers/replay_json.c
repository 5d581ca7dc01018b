/*
 * replay.json: collprof-replay's results.  Grammar (docs/replay.md):
 *   {"collprof_replay": 1, "profile": STR, "mpi_library": STR, "ranks": INT,
 *    "mode": "patterns"|"sequence"|"tune",
 *    "options": {"comm": INT|null, "collective": STR, "top": INT,
 *                "top_by": "time"|"bytes", "scale_counts": NUM,
 *                "repetitions": INT},
 *    "note": STR,
 *    "patterns": [PATTERN...],
 *    "sequence": {"calls": INT, "seconds": NUM, "recorded": NUM|null} | null,
 *    "tune": {"rounds": INT, "settings": [SETTING...],
 *             "validation": VALIDATION | null} | null}   (version 2; absent in 1)
 *   PATTERN: {"comm": INT, "remote_comm": INT|null, "ranks": INT,
 *    "collective": STR, "first_call": INT, "calls": INT,
 *    "bytes_per_call": INT, "nonblocking": BOOL, "skipped": STR|null,
 *    and when not skipped: "n_sample": INT, "t_min", "t_avg", "t_max",
 *    "projected": NUM, "recorded": {"instances": INT, "min", "median",
 *    "max", "wait": NUM} | null, "nbc": {"t_pure", "t_ovrl", "t_cpu",
 *    "overlap_percent": NUM} | null}; in mode "tune" instead of those:
 *    "tune": {"variable": STR|null, "why": STR|null, "algorithms": [{"name": STR,
 *    "value": INT, "refused": BOOL, "rounds": INT, "median", "fastest",
 *    "slowest": NUM|null}...], "best": STR|null, "beyond_noise": BOOL}
 *   SETTING: {"collective": STR, "variable": STR, "own": STR,
 *    "algorithm": STR, "beyond_noise": BOOL, "saving", "saving_lo",
 *    "saving_hi": NUM, "calls": INT, "recorded": NUM|null,
 *    "setting": STR|null}
 *   VALIDATION: {"done": BOOL, "why": STR|null, and when done: "rounds": INT,
 *    "calls": INT, "own": SPAN, "settings": SPAN, "projected": {"saving",
 *    "saving_lo", "saving_hi": NUM} | null};  SPAN: {"median", "fastest",
 *    "slowest": NUM}
 * Times in seconds.  The writer and the parser below follow it.
 */
#include "replay_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "textio.h"

/* ============================================================== writer */

static void num(cp_out *o, const char *key, double v)
{
    if (isfinite(v))
        cp_out_printf(o, "\"%s\":%.9g", key, v);
    else
        cp_out_printf(o, "\"%s\":null", key);
}

/* "k0":v0,"k1":v1,... */
static void nums(cp_out *o, const char *const *keys, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            cp_out_printf(o, ",");
        num(o, keys[i], v[i]);
    }
}

static void str(cp_out *o, const char *key, const char *s, size_t max)
{
    cp_out_printf(o, "\"%s\":", key);
    cp_json_write_string(o, s, strnlen(s, max));
}

/* "key":STR, or "key":null for "". */
static void str_or_null(cp_out *o, const char *key, const char *s, size_t max)
{
    if (s[0])
        str(o, key, s, max);
    else
        cp_out_printf(o, "\"%s\":null", key);
}

static void tuned(cp_out *o, const cp_replay_tuned *t)
{
    cp_out_printf(o, "\"tune\":{");
    str_or_null(o, "variable", t->variable, sizeof t->variable);
    cp_out_printf(o, ",");
    str_or_null(o, "why", t->why, sizeof t->why);
    cp_out_printf(o, ",\"algorithms\":[");
    static const char *const keys[] = {"median", "fastest", "slowest"};
    for (size_t k = 0; k < t->nalgos; k++) {
        const cp_replay_algo *a = &t->algos[k];
        cp_out_printf(o, "%s{", k ? "," : "");
        str(o, "name", a->name, sizeof a->name);
        cp_out_printf(o, ",\"value\":%lld,\"refused\":%s,\"rounds\":%lld,", (long long)a->value,
                      a->refused ? "true" : "false", (long long)a->rounds);
        nums(o, keys, (const double[]){a->rounds ? a->median : NAN, a->rounds ? a->fastest : NAN,
                                       a->rounds ? a->slowest : NAN}, 3);
        cp_out_printf(o, "}");
    }
    cp_out_printf(o, "],");
    str_or_null(o, "best", t->best, sizeof t->best);
    cp_out_printf(o, ",\"beyond_noise\":%s}", t->beyond_noise ? "true" : "false");
}

static void span(cp_out *o, const char *key, const cp_replay_span *x)
{
    static const char *const keys[] = {"median", "fastest", "slowest"};
    cp_out_printf(o, "\"%s\":{", key);
    nums(o, keys, (const double[]){x->median, x->fastest, x->slowest}, 3);
    cp_out_printf(o, "}");
}

static void tune_results(cp_out *o, const cp_replay *r)
{
    cp_out_printf(o, "{\"rounds\":%lld,\"settings\":[", (long long)r->rounds);
    static const char *const keys[] = {"saving", "saving_lo", "saving_hi"};
    for (size_t i = 0; i < r->nsettings; i++) {
        const cp_replay_setting *x = &r->settings[i];
        cp_out_printf(o, "%s{", i ? ",\n" : "\n");
        str(o, "collective", x->collective, sizeof x->collective);
        cp_out_printf(o, ",");
        str(o, "variable", x->variable, sizeof x->variable);
        cp_out_printf(o, ",");
        str(o, "own", x->own, sizeof x->own);
        cp_out_printf(o, ",");
        str(o, "algorithm", x->algorithm, sizeof x->algorithm);
        cp_out_printf(o, ",\"beyond_noise\":%s,", x->beyond_noise ? "true" : "false");
        nums(o, keys, (const double[]){x->saving, x->saving_lo, x->saving_hi}, 3);
        cp_out_printf(o, ",\"calls\":%lld,", (long long)x->calls);
        num(o, "recorded", x->has_recorded ? x->recorded : NAN);
        cp_out_printf(o, ",");
        str_or_null(o, "setting", x->setting, sizeof x->setting);
        cp_out_printf(o, "}");
    }
    cp_out_printf(o, "],\n\"validation\":");
    if (!r->has_validation) {
        cp_out_printf(o, "null}");
        return;
    }
    cp_out_printf(o, "{\"done\":%s,", r->val_done ? "true" : "false");
    str_or_null(o, "why", r->val_done ? "" : r->val_why, sizeof r->val_why);
    if (r->val_done) {
        cp_out_printf(o, ",\"rounds\":%lld,\"calls\":%lld,", (long long)r->val_rounds,
                      (long long)r->val_calls);
        span(o, "own", &r->val_own);
        cp_out_printf(o, ",");
        span(o, "settings", &r->val_settings);
        cp_out_printf(o, ",\"projected\":");
        if (r->val_has_projected) {
            cp_out_printf(o, "{");
            nums(o, keys, (const double[]){r->val_projected, r->val_projected_lo,
                                           r->val_projected_hi}, 3);
            cp_out_printf(o, "}");
        } else {
            cp_out_printf(o, "null");
        }
    }
    cp_out_printf(o, "}}");
}

static void pattern(cp_out *o, const cp_replay_pattern *p, bool tune)
{
    cp_out_printf(o, "{\"comm\":%lld,\"remote_comm\":", (long long)p->comm);
    if (p->remote_comm >= 0)
        cp_out_printf(o, "%lld", (long long)p->remote_comm);
    else
        cp_out_printf(o, "null");
    cp_out_printf(o, ",\"ranks\":%lld,", (long long)p->ranks);
    str(o, "collective", p->collective, sizeof p->collective);
    cp_out_printf(o, ",\"first_call\":%lld,\"calls\":%lld,\"bytes_per_call\":%lld,"
                     "\"nonblocking\":%s,",
                  (long long)p->first_call, (long long)p->calls, (long long)p->bytes_per_call,
                  p->nonblocking ? "true" : "false");
    if (p->skipped) {
        str(o, "skipped", p->why, sizeof p->why);
        cp_out_printf(o, "}");
        return;
    }
    if (tune) {
        cp_out_printf(o, "\"skipped\":null,");
        tuned(o, &p->tune);
        cp_out_printf(o, "}");
        return;
    }
    cp_out_printf(o, "\"skipped\":null,\"n_sample\":%lld,", (long long)p->n_sample);
    static const char *const times[] = {"t_min", "t_avg", "t_max", "projected"};
    static const char *const rec[] = {"min", "median", "max", "wait"};
    static const char *const nbc[] = {"t_pure", "t_ovrl", "t_cpu", "overlap_percent"};
    nums(o, times, (const double[]){p->t_min, p->t_avg, p->t_max, p->projected}, 4);
    cp_out_printf(o, ",\"recorded\":");
    if (p->has_recorded) {
        cp_out_printf(o, "{\"instances\":%llu,", (unsigned long long)p->rec_instances);
        nums(o, rec, (const double[]){p->rec_min, p->rec_median, p->rec_max, p->rec_wait}, 4);
        cp_out_printf(o, "}");
    } else {
        cp_out_printf(o, "null");
    }
    cp_out_printf(o, ",\"nbc\":");
    if (p->has_nbc) {
        cp_out_printf(o, "{");
        nums(o, nbc, (const double[]){p->t_pure, p->t_ovrl, p->t_cpu, p->overlap_percent}, 4);
        cp_out_printf(o, "}");
    } else {
        cp_out_printf(o, "null");
    }
    cp_out_printf(o, "}");
}

int cp_replay_write_file(const char *path, const cp_replay *r, cp_error *err)
{
    cp_out *o = cp_out_open(path, false, err);
    if (!o)
        return -1;
    cp_out_printf(o, "{\"collprof_replay\":%d,", CP_REPLAY_FORMAT_VERSION);
    str(o, "profile", r->profile, sizeof r->profile);
    cp_out_printf(o, ",");
    str(o, "mpi_library", r->mpi_library, sizeof r->mpi_library);
    cp_out_printf(o, ",\"ranks\":%lld,\"mode\":\"%s\",\"options\":{\"comm\":", (long long)r->ranks,
                  r->tune ? "tune" : r->sequence ? "sequence" : "patterns");
    if (r->comm >= 0)
        cp_out_printf(o, "%lld", (long long)r->comm);
    else
        cp_out_printf(o, "null");
    cp_out_printf(o, ",");
    str(o, "collective", r->collective, sizeof r->collective);
    cp_out_printf(o, ",\"top\":%lld,\"top_by\":\"%s\",", (long long)r->top,
                  r->top_by_bytes ? "bytes" : "time");
    num(o, "scale_counts", r->scale_counts);
    cp_out_printf(o, ",\"repetitions\":%lld},", (long long)r->repetitions);
    str(o, "note", r->note, sizeof r->note);
    cp_out_printf(o, ",\n\"patterns\":[");
    for (size_t i = 0; i < r->npatterns; i++) {
        cp_out_printf(o, i ? ",\n" : "\n");
        pattern(o, &r->patterns[i], r->tune);
    }
    cp_out_printf(o, "],\n\"sequence\":");
    if (r->sequence) {
        cp_out_printf(o, "{\"calls\":%lld,", (long long)r->seq_calls);
        num(o, "seconds", r->seq_seconds);
        cp_out_printf(o, ",");
        if (r->seq_has_recorded)
            num(o, "recorded", r->seq_recorded);
        else
            cp_out_printf(o, "\"recorded\":null");
        cp_out_printf(o, "}");
    } else {
        cp_out_printf(o, "null");
    }
    cp_out_printf(o, ",\n\"tune\":");
    if (r->tune)
        tune_results(o, r);
    else
        cp_out_printf(o, "null");
    cp_out_printf(o, "}\n");
    return cp_out_commit(o, err);
}

/* ============================================================== parser */

/* An optional member that may be null: *out NULL when absent or null. */
static int nullable(const jctx *cx, const jv *o, const char *key, jv_type want, const jv **out)
{
    if (cp_jget_member(cx, o, key, true, out) < 0)
        return -1;
    if ((*out)->type == JV_NULL) {
        *out = NULL;
        return 0;
    }
    if ((*out)->type != want && !(want == JV_NUM && (*out)->type == JV_INT))
        return cp_jfail(cx, *out, "expected %s or null for \"%s\", found %s",
                        cp_jtype_name(want), key, cp_jtype_name((*out)->type));
    return 0;
}

static int boolean(const jctx *cx, const jv *o, const char *key, bool *out)
{
    const jv *v;
    if (cp_jget_member(cx, o, key, true, &v) < 0)
        return -1;
    if (v->type != JV_BOOL)
        return cp_jfail(cx, v, "expected true or false for \"%s\", found %s", key,
                        cp_jtype_name(v->type));
    *out = v->b;
    return 0;
}

/* A string member that may be null ("" then). */
static int str_or_empty(const jctx *cx, const jv *o, const char *key, char *dst, size_t size)
{
    const jv *v;
    dst[0] = '\0';
    if (nullable(cx, o, key, JV_STR, &v) < 0)
        return -1;
    return v ? cp_jget_str(cx, o, key, dst, size) : 0;
}

/* A number member that may be null (*has false then). */
static int num_or_null(const jctx *cx, const jv *o, const char *key, bool *has, double *out)
{
    const jv *v;
    if (nullable(cx, o, key, JV_NUM, &v) < 0)
        return -1;
    *has = v != NULL;
    *out = v ? v->d : 0;
    return 0;
}

/* A member that must be of type want (an array, an object). */
static int member_of(const jctx *cx, const jv *o, const char *key, jv_type want, const jv **out)
{
    if (cp_jget_member(cx, o, key, true, out) < 0)
        return -1;
    if ((*out)->type != want)
        return cp_jfail(cx, *out, "expected %s for \"%s\", found %s", cp_jtype_name(want), key,
                        cp_jtype_name((*out)->type));
    return 0;
}

static int to_algo(const jctx *cx, const jv *o, cp_replay_algo *a)
{
    bool has[3];
    if (o->type != JV_OBJ)
        return cp_jfail(cx, o, "expected an object for an algorithm, found %s",
                        cp_jtype_name(o->type));
    if (cp_jget_str(cx, o, "name", a->name, sizeof a->name) < 0 ||
        cp_jget_int(cx, o, "value", INT64_MIN, INT64_MAX, &a->value) < 0 ||
        boolean(cx, o, "refused", &a->refused) < 0 ||
        cp_jget_int(cx, o, "rounds", 0, INT64_MAX, &a->rounds) < 0 ||
        num_or_null(cx, o, "median", &has[0], &a->median) < 0 ||
        num_or_null(cx, o, "fastest", &has[1], &a->fastest) < 0 ||
        num_or_null(cx, o, "slowest", &has[2], &a->slowest) < 0)
        return -1;
    if (a->rounds > 0 && !(has[0] && has[1] && has[2]))
        return cp_jfail(cx, o, "expected the times of an algorithm measured in %lld rounds",
                        (long long)a->rounds);
    return 0;
}

static int to_tuned(const jctx *cx, const jv *o, cp_replay_tuned *t)
{
    const jv *tv, *algos;
    if (member_of(cx, o, "tune", JV_OBJ, &tv) < 0 ||
        str_or_empty(cx, tv, "variable", t->variable, sizeof t->variable) < 0 ||
        str_or_empty(cx, tv, "why", t->why, sizeof t->why) < 0 ||
        member_of(cx, tv, "algorithms", JV_ARR, &algos) < 0 ||
        str_or_empty(cx, tv, "best", t->best, sizeof t->best) < 0 ||
        boolean(cx, tv, "beyond_noise", &t->beyond_noise) < 0)
        return -1;
    t->algos = calloc(algos->n + 1, sizeof *t->algos);
    if (!t->algos)
        return cp_jfail(cx, algos, "out of memory");
    for (size_t k = 0; k < algos->n; k++, t->nalgos++)
        if (to_algo(cx, &algos->items[k], &t->algos[k]) < 0)
            return -1;
    return 0;
}

static int to_span(const jctx *cx, const jv *o, const char *key, cp_replay_span *x)
{
    const jv *v;
    return member_of(cx, o, key, JV_OBJ, &v) < 0 || cp_jget_num(cx, v, "median", &x->median) < 0 ||
                   cp_jget_num(cx, v, "fastest", &x->fastest) < 0 ||
                   cp_jget_num(cx, v, "slowest", &x->slowest) < 0
               ? -1
               : 0;
}

static int to_setting(const jctx *cx, const jv *o, cp_replay_setting *x)
{
    if (o->type != JV_OBJ)
        return cp_jfail(cx, o, "expected an object for a setting, found %s",
                        cp_jtype_name(o->type));
    return cp_jget_str(cx, o, "collective", x->collective, sizeof x->collective) < 0 ||
                   cp_jget_str(cx, o, "variable", x->variable, sizeof x->variable) < 0 ||
                   cp_jget_str(cx, o, "own", x->own, sizeof x->own) < 0 ||
                   cp_jget_str(cx, o, "algorithm", x->algorithm, sizeof x->algorithm) < 0 ||
                   boolean(cx, o, "beyond_noise", &x->beyond_noise) < 0 ||
                   cp_jget_num(cx, o, "saving", &x->saving) < 0 ||
                   cp_jget_num(cx, o, "saving_lo", &x->saving_lo) < 0 ||
                   cp_jget_num(cx, o, "saving_hi", &x->saving_hi) < 0 ||
                   cp_jget_int(cx, o, "calls", 0, INT64_MAX, &x->calls) < 0 ||
                   num_or_null(cx, o, "recorded", &x->has_recorded, &x->recorded) < 0 ||
                   str_or_empty(cx, o, "setting", x->setting, sizeof x->setting) < 0
               ? -1
               : 0;
}

static int to_validation(const jctx *cx, const jv *v, cp_replay *r)
{
    const jv *proj;
    r->has_validation = true;
    if (boolean(cx, v, "done", &r->val_done) < 0 ||
        str_or_empty(cx, v, "why", r->val_why, sizeof r->val_why) < 0)
        return -1;
    if (!r->val_done)
        return 0;
    if (cp_jget_int(cx, v, "rounds", 1, INT64_MAX, &r->val_rounds) < 0 ||
        cp_jget_int(cx, v, "calls", 0, INT64_MAX, &r->val_calls) < 0 ||
        to_span(cx, v, "own", &r->val_own) < 0 ||
        to_span(cx, v, "settings", &r->val_settings) < 0 ||
        nullable(cx, v, "projected", JV_OBJ, &proj) < 0)
        return -1;
    r->val_has_projected = proj != NULL;
    return proj && (cp_jget_num(cx, proj, "saving", &r->val_projected) < 0 ||
                    cp_jget_num(cx, proj, "saving_lo", &r->val_projected_lo) < 0 ||
                    cp_jget_num(cx, proj, "saving_hi", &r->val_projected_hi) < 0)
               ? -1
               : 0;
}

static int to_tune_results(const jctx *cx, const jv *t, cp_replay *r)
{
    const jv *sets, *val;
    if (t->type != JV_OBJ)
        return cp_jfail(cx, t, "expected an object for \"tune\", found %s", cp_jtype_name(t->type));
    if (cp_jget_int(cx, t, "rounds", 1, INT64_MAX, &r->rounds) < 0 ||
        member_of(cx, t, "settings", JV_ARR, &sets) < 0 ||
        nullable(cx, t, "validation", JV_OBJ, &val) < 0)
        return -1;
    r->settings = calloc(sets->n + 1, sizeof *r->settings);
    if (!r->settings)
        return cp_jfail(cx, sets, "out of memory");
    for (size_t i = 0; i < sets->n; i++, r->nsettings++)
        if (to_setting(cx, &sets->items[i], &r->settings[i]) < 0)
            return -1;
    return val ? to_validation(cx, val, r) : 0;
}

static int to_pattern(const jctx *cx, const jv *o, cp_replay_pattern *p, bool tune)
{
    const jv *v;
    if (o->type != JV_OBJ)
        return cp_jfail(cx, o, "expected an object for a pattern, found %s", cp_jtype_name(o->type));
    p->remote_comm = -1;
    if (cp_jget_int(cx, o, "comm", 0, INT64_MAX, &p->comm) < 0 ||
        nullable(cx, o, "remote_comm", JV_INT, &v) < 0)
        return -1;
    if (v && cp_jget_int(cx, o, "remote_comm", 0, INT64_MAX, &p->remote_comm) < 0)
        return -1;
    if (cp_jget_int(cx, o, "ranks", 0, INT64_MAX, &p->ranks) < 0 ||
        cp_jget_str(cx, o, "collective", p->collective, sizeof p->collective) < 0 ||
        cp_jget_int(cx, o, "first_call", 0, INT64_MAX, &p->first_call) < 0 ||
        cp_jget_int(cx, o, "calls", 0, INT64_MAX, &p->calls) < 0 ||
        cp_jget_int(cx, o, "bytes_per_call", 0, INT64_MAX, &p->bytes_per_call) < 0 ||
        boolean(cx, o, "nonblocking", &p->nonblocking) < 0 ||
        nullable(cx, o, "skipped", JV_STR, &v) < 0)
        return -1;
    if (v) {
        p->skipped = true;
        return cp_jget_str(cx, o, "skipped", p->why, sizeof p->why);
    }
    if (tune)
        return to_tuned(cx, o, &p->tune);
    const jv *rec, *nbc;
    if (cp_jget_int(cx, o, "n_sample", 1, INT64_MAX, &p->n_sample) < 0 ||
        cp_jget_num(cx, o, "t_min", &p->t_min) < 0 || cp_jget_num(cx, o, "t_avg", &p->t_avg) < 0 ||
        cp_jget_num(cx, o, "t_max", &p->t_max) < 0 ||
        cp_jget_num(cx, o, "projected", &p->projected) < 0 ||
        nullable(cx, o, "recorded", JV_OBJ, &rec) < 0 || nullable(cx, o, "nbc", JV_OBJ, &nbc) < 0)
        return -1;
    if (rec) {
        int64_t n;
        p->has_recorded = true;
        if (cp_jget_int(cx, rec, "instances", 0, INT64_MAX, &n) < 0 ||
            cp_jget_num(cx, rec, "min", &p->rec_min) < 0 ||
            cp_jget_num(cx, rec, "median", &p->rec_median) < 0 ||
            cp_jget_num(cx, rec, "max", &p->rec_max) < 0 ||
            cp_jget_num(cx, rec, "wait", &p->rec_wait) < 0)
            return -1;
        p->rec_instances = (uint64_t)n;
    }
    if (nbc) {
        p->has_nbc = true;
        if (cp_jget_num(cx, nbc, "t_pure", &p->t_pure) < 0 ||
            cp_jget_num(cx, nbc, "t_ovrl", &p->t_ovrl) < 0 ||
            cp_jget_num(cx, nbc, "t_cpu", &p->t_cpu) < 0 ||
            cp_jget_num(cx, nbc, "overlap_percent", &p->overlap_percent) < 0)
            return -1;
    }
    return 0;
}

static int to_replay(const jctx *cx, const jv *root, cp_replay *r)
{
    int64_t version;
    char mode[16], top_by[8];
    const jv *opts, *v, *pats, *seq, *tune;
    if (root->type != JV_OBJ)
        return cp_jfail(cx, root, "expected an object, found %s", cp_jtype_name(root->type));
    if (cp_jget_int(cx, root, "collprof_replay", 1, INT64_MAX, &version) < 0)
        return -1;
    if (version > CP_REPLAY_FORMAT_VERSION)
        return cp_jfail(cx, root, "expected collprof_replay %d or older, found %lld",
                        CP_REPLAY_FORMAT_VERSION, (long long)version);
    if (cp_jget_str(cx, root, "profile", r->profile, sizeof r->profile) < 0 ||
        cp_jget_str(cx, root, "mpi_library", r->mpi_library, sizeof r->mpi_library) < 0 ||
        cp_jget_int(cx, root, "ranks", 1, INT64_MAX, &r->ranks) < 0 ||
        cp_jget_str(cx, root, "mode", mode, sizeof mode) < 0 ||
        cp_jget_member(cx, root, "options", true, &opts) < 0)
        return -1;
    if (strcmp(mode, "patterns") && strcmp(mode, "sequence") &&
        (strcmp(mode, "tune") || version < 2))
        return cp_jfail(cx, root, "expected \"mode\" %s, found \"%s\"",
                        version < 2 ? "patterns or sequence" : "patterns, sequence or tune", mode);
    r->sequence = strcmp(mode, "sequence") == 0;
    r->tune = strcmp(mode, "tune") == 0;
    if (opts->type != JV_OBJ)
        return cp_jfail(cx, opts, "expected an object for \"options\"");
    r->comm = -1;
    if (nullable(cx, opts, "comm", JV_INT, &v) < 0 ||
        (v && cp_jget_int(cx, opts, "comm", 0, INT64_MAX, &r->comm) < 0) ||
        cp_jget_str(cx, opts, "collective", r->collective, sizeof r->collective) < 0 ||
        cp_jget_int(cx, opts, "top", 0, INT64_MAX, &r->top) < 0 ||
        cp_jget_str(cx, opts, "top_by", top_by, sizeof top_by) < 0 ||
        cp_jget_num(cx, opts, "scale_counts", &r->scale_counts) < 0 ||
        cp_jget_int(cx, opts, "repetitions", 0, INT64_MAX, &r->repetitions) < 0 ||
        cp_jget_str(cx, root, "note", r->note, sizeof r->note) < 0 ||
        cp_jget_member(cx, root, "patterns", true, &pats) < 0 ||
        nullable(cx, root, "sequence", JV_OBJ, &seq) < 0)
        return -1;
    r->top_by_bytes = strcmp(top_by, "bytes") == 0;
    if (pats->type != JV_ARR)
        return cp_jfail(cx, pats, "expected an array for \"patterns\", found %s",
                        cp_jtype_name(pats->type));
    r->patterns = calloc(pats->n + 1, sizeof *r->patterns);
    if (!r->patterns)
        return cp_jfail(cx, pats, "out of memory");
    for (size_t i = 0; i < pats->n; i++, r->npatterns++)
        if (to_pattern(cx, &pats->items[i], &r->patterns[i], r->tune) < 0) {
            free(r->patterns[i].tune.algos); /* the pattern read in part */
            return -1;
        }
    if (seq) {
        if (cp_jget_int(cx, seq, "calls", 0, INT64_MAX, &r->seq_calls) < 0 ||
            cp_jget_num(cx, seq, "seconds", &r->seq_seconds) < 0 ||
            nullable(cx, seq, "recorded", JV_NUM, &v) < 0)
            return -1;
        r->seq_has_recorded = v != NULL;
        r->seq_recorded = v ? v->d : 0;
    }
    /* Version 2 has "tune" (null unless mode tune); version 1 has not. */
    if (cp_jget_member(cx, root, "tune", version >= 2, &tune) < 0)
        return -1;
    if (r->tune != (tune && tune->type != JV_NULL))
        return cp_jfail(cx, tune ? tune : root, r->tune ? "expected the \"tune\" results of mode "
                        "tune" : "expected \"tune\" null outside mode tune");
    return r->tune ? to_tune_results(cx, tune, r) : 0;
}

int cp_replay_read_file(const char *path, cp_replay *r, cp_error *err)
{
    memset(r, 0, sizeof *r);
    char *data;
    size_t len;
    if (cp_read_file(path, &data, &len, err) < 0)
        return -1;
    jv root;
    int rc = cp_json_parse(data, len, path, &root, err);
    free(data);
    if (rc == 0) {
        jctx cx = {path, err};
        rc = to_replay(&cx, &root, r);
        cp_jv_free(&root);
    }
    if (rc < 0)
        cp_replay_free(r);
    return rc;
}

void cp_replay_free(cp_replay *r)
{
    for (size_t i = 0; i < r->npatterns; i++)
        free(r->patterns[i].tune.algos);
    free(r->settings);
    r->settings = NULL;
    r->nsettings = 0;
    free(r->patterns);
    r->patterns = NULL;
    r->npatterns = 0;
}
