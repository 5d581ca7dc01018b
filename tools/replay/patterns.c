/*
 * The patterns to replay: one per recorded send block, that is one per
 * distinct (communicator, collective, send matrix), with the receive block
 * (and, on an intercommunicator, the other group's blocks) of its first
 * call.  The recorded times of its calls come from timings.cpt (the
 * reader's time per pattern); whether they were non-blocking from the
 * per-call flags of its lead's series.  Selection (--comm, --collective)
 * and order (most recorded time first, or most bytes: --top-by) follow.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay.h"
#include "file_names.h"
#include "search.h"

/* Were calls of b, on the communicator of lead world rank `lead`, made
 * non-blocking (I... or persistent)?  timings.cpt's sample of that rank. */
static bool nonblocking(const cp_profile *p, const cp_block *b, int64_t lead)
{
    const cp_cpt_series *s = replay_timed_series(p, lead, b->comm_id, b->collective);
    for (uint64_t k = 0; s && k < s->n; k++)
        if ((s->flags[k] & CP_CPT_NONBLOCKING) && cp_ranges_contains(&b->calls, (int64_t)s->call[k]))
            return true;
    return false;
}

static const replay_options *order_by; /* qsort has no context argument */

static double cost(const replay_pattern *x)
{
    if (order_by->top_by == REPLAY_TOP_TIME && x->rec_instances)
        return x->rec_median * (double)x->calls;
    return (double)x->bytes * (double)x->calls;
}

static int by_cost(const void *a, const void *b)
{
    const replay_pattern *x = a, *y = b;
    double cx = cost(x), cy = cost(y);
    if (cx != cy)
        return cx < cy ? 1 : -1;
    CP_ORDER_BY(x->comm, y->comm);
    int c = strcasecmp(x->collective, y->collective);
    if (c)
        return c;
    return (x->first_call > y->first_call) - (x->first_call < y->first_call);
}

static bool selected(const replay_options *o, const replay_comm *rc, const cp_block *b)
{
    if (o->comm >= 0 && rc->id[0] != o->comm && rc->id[1] != o->comm)
        return false;
    return !o->collective[0] || strcasecmp(o->collective, b->collective) == 0;
}

int replay_patterns_find(const cp_profile *p, const replay_comms *c, const replay_options *o,
                         replay_patterns *out, cp_error *err)
{
    *out = (replay_patterns){0};
    size_t cap = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        cap += p->files[f].direction == CP_SEND ? p->files[f].nblocks : 0;
    out->v = calloc(cap + 1, sizeof *out->v);
    cp_pattern_time *times = NULL;
    size_t ntimes = 0;
    if (!out->v || cp_profile_pattern_times(p, &times, &ntimes, err)) {
        free(out->v);
        out->v = NULL;
        return cp_error_set(err, "out of memory");
    }
    bool any_timed = false;
    for (size_t f = 0; f < p->nfiles; f++) {
        if (p->files[f].direction != CP_SEND)
            continue;
        for (size_t k = 0; k < p->files[f].nblocks; k++) {
            const cp_block *b = &p->files[f].blocks[k];
            int side;
            const replay_comm *rc = replay_comms_find(c, b->comm_id, &side);
            if (!rc) {
                free(times);
                replay_patterns_free(out);
                return cp_error_set(err, "%s: communicator %lld of a %s block is not in "
                                         CP_FILE_MANIFEST, p->files[f].path,
                                    (long long)b->comm_id, b->collective);
            }
            if (!selected(o, rc, b))
                continue;
            /* An intercommunicator's patterns are keyed by the first group's
             * send matrices; the second group's join them, except where
             * the first group sent nothing (it holds the root of a
             * gather, or only receives from the other group's root). */
            if (side == 1 && (rc->id[1] < 0 ||
                              cp_profile_find(p, rc->id[0], b->collective, CP_SEND,
                                              cp_ranges_nth(&b->calls, 0))))
                continue;
            int coll = replay_coll_find(b->collective);
            if (coll < 0) {
                free(times);
                replay_patterns_free(out);
                return cp_error_set(err, "%s: communicator %lld: '%s' is not a collective "
                                         "collprof-replay knows how to call",
                                    p->files[f].path, (long long)b->comm_id, b->collective);
            }
            replay_pattern *pt = &out->v[out->n++];
            *pt = (replay_pattern){.comm = (size_t)(rc - c->v), .coll = coll};
            snprintf(pt->collective, sizeof pt->collective, "%s", replay_colls[coll].name);
            pt->first_call = cp_ranges_nth(&b->calls, 0);
            pt->calls = cp_ranges_count(&b->calls);
            pt->key = b;
            pt->bytes = 0;
            for (int g = 0; g < (rc->inter && rc->id[1] >= 0 ? 2 : 1); g++) {
                pt->send[g] = g == side ? b
                                        : cp_profile_find(p, rc->id[g], b->collective, CP_SEND,
                                                          pt->first_call);
                pt->recv[g] = cp_profile_find(p, rc->id[g], b->collective, CP_RECV,
                                              pt->first_call);
                int64_t more = pt->send[g] ? cp_profile_call_bytes(p, pt->send[g]) : 0;
                pt->bytes = more > INT64_MAX - pt->bytes ? INT64_MAX : pt->bytes + more;
            }
            pt->nonblocking = nonblocking(p, b, replay_comm_lead(p, b->comm_id));
            const cp_pattern_time *t = cp_pattern_time_find(times, ntimes, b);
            if (t && t->instances) {
                pt->rec_instances = t->instances;
                pt->rec_min = t->min;
                pt->rec_median = t->median;
                pt->rec_max = t->max;
                pt->rec_wait = t->wait;
                any_timed = true;
            }
            if (rc->why[0]) {
                pt->skipped = true;
                snprintf(pt->why, sizeof pt->why, "%s", rc->why);
            } else if (b->invalid) {
                pt->skipped = true;
                snprintf(pt->why, sizeof pt->why, "recorded with a negative count (an erroneous "
                                                  "call)");
            }
        }
    }
    free(times);
    order_by = o;
    if (o->top_by == REPLAY_TOP_TIME && !any_timed && o->top)
        snprintf(out->note, sizeof out->note, "no recorded times (" CP_FILE_TIMINGS "): --top ranks the "
                                              "patterns by bytes");
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_cost);
    if (o->top && !o->sequence && (size_t)o->top < out->n) {
        size_t left = out->n - (size_t)o->top;
        out->n = (size_t)o->top;
        size_t len = strlen(out->note);
        snprintf(out->note + len, sizeof out->note - len, "%s--top %lld: %zu more patterns left out",
                 len ? "; " : "", (long long)o->top, left);
    }
    return 0;
}

void replay_patterns_free(replay_patterns *ps)
{
    free(ps->v);
    *ps = (replay_patterns){0};
}
