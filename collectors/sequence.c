/*
 * Compressed call sequences: runs of equal ids, and groups of runs that
 * repeat back to back (see sequence.h).
 */
#include "sequence.h"

#include "grow.h"

#include <stdlib.h>
#include <string.h>

/* The sequence may have moved or reshaped its runs: tails taken before are
 * refused (cp_seq_tail_add). */
static void changed(cp_seq *s)
{
    s->changes++;
}

void cp_seq_init(cp_seq *s)
{
    memset(s, 0, sizeof *s);
    s->changes = 1;
}

cp_seq_tail cp_seq_tail_of(const cp_seq *s, uint32_t id)
{
    if (s->repeating || s->failed || s->nruns == 0 || s->ngroups == 0 ||
        s->runs[s->nruns - 1].id != id || s->groups[s->ngroups - 1].nruns == 0)
        return (cp_seq_tail){0};
    return (cp_seq_tail){.changes = s->changes, .run = &s->runs[s->nruns - 1]};
}

void cp_seq_free(cp_seq *s)
{
    uint64_t changes = s->changes;
    free(s->runs);
    free(s->groups);
    free(s->lastpos);
    cp_seq_init(s);
    s->changes = changes + 1; /* empty again, but not the same */
}

/* Run `at` has this id: how far back did the id run last (s->last_gap),
 * and remember this run.  A new id grows the table (as the signature
 * tables do); failing to grow only loses the shortcut. */
static void note_run(cp_seq *s, uint32_t id, size_t at)
{
    s->last_gap = CP_SEQ_GAP_UNKNOWN;
    if (id == UINT32_MAX || at >= UINT32_MAX)
        return;
    if (id >= s->nlastpos) {
        size_t n = s->nlastpos;
        if (cp_grow((void **)&s->lastpos, &n, (size_t)id + 1, sizeof *s->lastpos, 16) ||
            n > UINT32_MAX)
            return;
        memset(s->lastpos + s->nlastpos, 0, (n - s->nlastpos) * sizeof *s->lastpos);
        s->nlastpos = (uint32_t)n;
    }
    uint32_t prev = s->lastpos[id];
    if (prev == 0)
        s->last_gap = CP_SEQ_GAP_NEVER;
    else if (prev - 1 < at && s->runs[prev - 1].id == id)
        s->last_gap = at - (prev - 1);
    /* else: stale after a fold, unknown */
    s->lastpos[id] = (uint32_t)at + 1;
}

/* Can the last run end a repetition of at most CP_SEQ_MAX_PERIOD runs?
 * Every period p needs a run of the same id p runs back: not when the id
 * never ran before, or last ran further back than the longest period. */
static bool may_fold(const cp_seq *s)
{
    return s->last_gap == CP_SEQ_GAP_UNKNOWN ||
           (s->last_gap != CP_SEQ_GAP_NEVER && s->last_gap <= CP_SEQ_MAX_PERIOD);
}

/* Runs and groups grow from 2 (grow.h). */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return cp_grow(p, cap, need, elem, 2);
}

static int push_run(cp_seq *s, uint32_t id, uint64_t len)
{
    if (grow((void **)&s->runs, &s->cap_runs, s->nruns + 1, sizeof *s->runs))
        return -1;
    note_run(s, id, s->nruns);
    s->runs[s->nruns].id = id;
    s->runs[s->nruns].len = len;
    s->nruns++;
    s->groups[s->ngroups - 1].nruns++;
    return 0;
}

/* Open a new, empty, building group after the last one. */
static int open_group(cp_seq *s)
{
    if (grow((void **)&s->groups, &s->cap_groups, s->ngroups + 1, sizeof *s->groups))
        return -1;
    s->groups[s->ngroups] = (cp_group){.first = s->nruns, .nruns = 0, .reps = 1};
    s->ngroups++;
    return 0;
}

static bool same_run(const cp_run *a, const cp_run *b)
{
    return a->id == b->id && a->len == b->len;
}

/* The runs of the open group have all ended: if its last p runs repeat the
 * p before them, fold them into a group of p runs seen twice. */
static int try_fold(cp_seq *s)
{
    cp_group *g = &s->groups[s->ngroups - 1];
    size_t end = g->first + g->nruns;
    /* p == 1 cannot repeat: adjacent runs always have different ids. */
    for (uint32_t p = 2; p <= CP_SEQ_MAX_PERIOD && 2 * (size_t)p <= g->nruns; p++) {
        const cp_run *a = &s->runs[end - 2 * p], *b = &s->runs[end - p];
        uint32_t i = 0;
        while (i < p && same_run(&a[i], &b[i]))
            i++;
        if (i < p)
            continue;
        uint32_t prefix = g->nruns - 2 * p;
        if (prefix > 0) {
            g->nruns = prefix;
            if (grow((void **)&s->groups, &s->cap_groups, s->ngroups + 1, sizeof *s->groups))
                return -1;
            g = &s->groups[s->ngroups++];
            g->first = end - 2 * p;
        }
        g->nruns = p;
        g->reps = 2;
        s->nruns -= p;
        s->repeating = true;
        s->rk = 0;
        s->ro = 0;
        return 1;
    }
    return 0;
}

/* Copy runs [0, k) of the last group's pattern plus `partial` calls of run k
 * into a new building group. */
static int materialize(cp_seq *s, uint32_t k, uint64_t partial)
{
    size_t first = s->groups[s->ngroups - 1].first;
    if (open_group(s))
        return -1;
    for (uint32_t i = 0; i < k; i++) {
        cp_run r = s->runs[first + i]; /* copy: push_run may move the array */
        if (push_run(s, r.id, r.len))
            return -1;
    }
    if (partial > 0 && push_run(s, s->runs[first + k].id, partial))
        return -1;
    return 0;
}

/* The next call (id) does not continue the repetition: keep what was seen of
 * the unfinished repetition as plain runs. */
static int break_repeat(cp_seq *s, uint32_t id)
{
    cp_group *g = &s->groups[s->ngroups - 1];
    const cp_run *p = &s->runs[g->first];
    s->repeating = false;
    if (s->rk == 0 && s->ro == 0) {
        if (id == p[g->nruns - 1].id) {
            /* The last repetition's final run goes on: it was not a
             * repetition after all. */
            g->reps--;
            return materialize(s, g->nruns, 0);
        }
        return open_group(s);
    }
    return materialize(s, s->rk, s->ro);
}

static int build_append(cp_seq *s, uint32_t id, uint64_t count);

static int repeat_append(cp_seq *s, uint32_t id, uint64_t count)
{
    cp_group *g = &s->groups[s->ngroups - 1];
    while (count > 0) {
        const cp_run *r = &s->runs[g->first + s->rk];
        if (id != r->id) {
            if (break_repeat(s, id))
                return -1;
            return build_append(s, id, count);
        }
        uint64_t m = r->len - s->ro;
        if (m > count)
            m = count;
        s->ro += m;
        count -= m;
        if (s->ro == r->len) {
            s->ro = 0;
            if (++s->rk == g->nruns) {
                s->rk = 0;
                g->reps++;
            }
        }
    }
    return 0;
}

static int build_append(cp_seq *s, uint32_t id, uint64_t count)
{
    if (s->ngroups == 0 && open_group(s))
        return -1;
    cp_group *g = &s->groups[s->ngroups - 1];
    if (g->nruns > 0 && s->runs[s->nruns - 1].id == id) {
        s->runs[s->nruns - 1].len += count;
        return 0;
    }
    int folded = may_fold(s) ? try_fold(s) : 0;
    if (folded < 0)
        return -1;
    if (folded)
        return repeat_append(s, id, count);
    return push_run(s, id, count);
}

int cp_seq_append(cp_seq *s, uint32_t id, uint64_t count)
{
    changed(s);
    if (s->failed || count == 0)
        return s->failed ? -1 : 0;
    int rc = s->repeating ? repeat_append(s, id, count) : build_append(s, id, count);
    if (rc) {
        s->failed = true;
        return -1;
    }
    s->total += count;
    return 0;
}

static void shrink(void **p, size_t n, size_t *cap, size_t elem)
{
    if (n == 0 || n >= *cap)
        return;
    void *np = realloc(*p, n * elem);
    if (np) {
        *p = np;
        *cap = n;
    }
}

void cp_seq_compact(cp_seq *s)
{
    changed(s);
    shrink((void **)&s->runs, s->nruns, &s->cap_runs, sizeof *s->runs);
    shrink((void **)&s->groups, s->ngroups, &s->cap_groups, sizeof *s->groups);
}

int cp_seq_finish(cp_seq *s)
{
    changed(s);
    if (!s->repeating || s->failed)
        return s->failed ? -1 : 0;
    s->repeating = false;
    /* Either way the repeating group is closed: later runs go to a new one. */
    if (s->rk == 0 && s->ro == 0 ? open_group(s) : materialize(s, s->rk, s->ro)) {
        s->failed = true;
        return -1;
    }
    return 0;
}

/* The calls of one repetition of group g. */
static uint64_t group_calls(const cp_seq *s, const cp_group *g)
{
    uint64_t t = 0;
    for (uint32_t k = 0; k < g->nruns; k++)
        t += s->runs[g->first + k].len;
    return t;
}

int cp_seq_repeat_last(cp_seq *s, uint64_t period, uint64_t more)
{
    changed(s);
    if (s->failed || !s->repeating || s->rk != 0 || s->ro != 0 || s->ngroups == 0 || more == 0)
        return 0;
    cp_group *g = &s->groups[s->ngroups - 1];
    uint64_t calls = group_calls(s, g);
    /* The last `period` calls are whole repetitions of the group: more of
     * them are more repetitions. */
    if (calls == 0 || period % calls != 0 || g->reps * calls < period)
        return 0;
    g->reps += more * (period / calls);
    s->total += more * period;
    return 1;
}

/* ------------------------------------------------------------- iteration */

static void iter_settle(cp_seq_iter *it)
{
    const cp_seq *s = it->s;
    while (it->g < s->ngroups && (s->groups[it->g].nruns == 0 || s->groups[it->g].reps == 0))
        it->g++;
    it->left = it->g < s->ngroups ? s->runs[s->groups[it->g].first + it->k].len : 0;
}

void cp_seq_iter_init(cp_seq_iter *it, const cp_seq *s)
{
    *it = (cp_seq_iter){.s = s};
    iter_settle(it);
}

uint32_t cp_seq_iter_peek(const cp_seq_iter *it, uint64_t *left)
{
    if (it->g >= it->s->ngroups) {
        *left = UINT64_MAX;
        return CP_SEQ_NONE;
    }
    *left = it->left;
    return it->s->runs[it->s->groups[it->g].first + it->k].id;
}

void cp_seq_iter_skip(cp_seq_iter *it, uint64_t n)
{
    if (it->g >= it->s->ngroups)
        return;
    it->left -= n;
    if (it->left > 0)
        return;
    const cp_group *g = &it->s->groups[it->g];
    if (++it->k == g->nruns) {
        it->k = 0;
        if (++it->rep == g->reps) {
            it->rep = 0;
            it->g++;
        }
    }
    iter_settle(it);
}

/* Is the iterator at the start of a repetition of its group, with that
 * one and at least one more left? */
static bool at_repetition_start(const cp_seq_iter *it)
{
    const cp_seq *s = it->s;
    if (it->g >= s->ngroups || it->k != 0)
        return false;
    const cp_group *g = &s->groups[it->g];
    return g->reps - it->rep >= 2 && it->left == s->runs[g->first].len;
}

bool cp_seq_iter_at_repetition(const cp_seq_iter *it, uint64_t *period, uint64_t *reps_left)
{
    if (!at_repetition_start(it))
        return false;
    const cp_group *g = &it->s->groups[it->g];
    *period = group_calls(it->s, g);
    *reps_left = g->reps - it->rep;
    return true;
}

void cp_seq_iter_skip_reps(cp_seq_iter *it, uint64_t n)
{
    const cp_group *g = &it->s->groups[it->g];
    it->rep += n;
    if (it->rep >= g->reps) {
        it->rep = 0;
        it->g++;
    }
    it->k = 0;
    iter_settle(it);
}

/* The calls of one repetition of the iterator's group. */
static uint64_t iter_period(cp_seq_iter *it)
{
    if (it->period_of != it->g + 1) {
        it->period = group_calls(it->s, &it->s->groups[it->g]);
        it->period_of = it->g + 1;
    }
    return it->period;
}

/* Whole repetitions at a time from the start of one (while two or more are
 * left), else run by run in a tight loop within the repetition: a sample
 * of a million calls of a 32-pattern cycle seeks 16 runs ahead 62,500
 * times at finalize, and the general step (peek, skip, settle, the
 * repetition test) cost ~900 instructions a seek. */
uint32_t cp_seq_iter_seek(cp_seq_iter *it, uint64_t *at, uint64_t call)
{
    const cp_seq *s = it->s;
    while (it->g < s->ngroups) {
        const cp_group *g = &s->groups[it->g];
        const cp_run *r = &s->runs[g->first];
        if (call < *at || call - *at < it->left)
            return r[it->k].id;
        uint64_t d = call - *at;
        if (at_repetition_start(it)) {
            uint64_t period = iter_period(it);
            if (d >= period) {
                uint64_t n = d / period, reps_left = g->reps - it->rep;
                n = n < reps_left ? n : reps_left;
                cp_seq_iter_skip_reps(it, n);
                *at += n * period;
                continue;
            }
        }
        while (d >= it->left && it->k + 1 < g->nruns) {
            d -= it->left;
            *at += it->left;
            it->left = r[++it->k].len;
        }
        if (d >= it->left) { /* past the repetition's last run */
            *at += it->left;
            it->k = 0;
            if (++it->rep == g->reps) {
                it->rep = 0;
                it->g++;
            }
            iter_settle(it);
        }
    }
    return CP_SEQ_NONE;
}

uint32_t *cp_seq_expand(const cp_seq *s)
{
    uint32_t *out = malloc((s->total ? s->total : 1) * sizeof *out);
    if (!out)
        return NULL;
    cp_seq_iter it;
    cp_seq_iter_init(&it, s);
    uint64_t i = 0;
    while (i < s->total) {
        uint64_t left;
        uint32_t id = cp_seq_iter_peek(&it, &left);
        if (left > s->total - i)
            left = s->total - i;
        for (uint64_t j = 0; j < left; j++)
            out[i++] = id;
        cp_seq_iter_skip(&it, left);
    }
    return out;
}
