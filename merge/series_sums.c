/*
 * One series' sample and this rank's sums per site (series_sums.h), MPI-free:
 * finalize's timing stage runs them over every series of the rank.
 */
#include <stdlib.h>
#include <string.h>

#include "series_sums.h"
#include "collectives.h"
#include "collprof/profile.h"
#include "grow.h"

/* The path and root of signature id of a table (none when not recorded). */
static uint32_t path_of_sig(const cp_counts *t, uint32_t id)
{
    return id != CP_SEQ_NONE && id < t->nsigs ? t->sigs[id].callpath : CP_SEQ_NONE;
}

static uint8_t form_of_sig(const cp_counts *t, uint32_t id)
{
    return id != CP_SEQ_NONE && id < t->nsigs ? t->sigs[id].form : 0;
}

/* Did the MPI library refuse the calls of signature id? */
static bool failed_sig(const cp_counts *t, uint32_t id)
{
    return id < t->nsigs && t->sigs[id].err != 0;
}

static int32_t root_of_sig(const cp_counts *t, uint32_t id)
{
    if (id == CP_SEQ_NONE || id >= t->nsigs)
        return -1;
    int64_t r = t->sigs[id].root;
    return r >= 0 && r <= INT32_MAX ? (int32_t)r : -1;
}

/* The sample of one series as records in seconds on world rank 0's time
 * line, each with its call index, root and path (from the call sequence:
 * both are in call order); the calls timed but not kept, and their time,
 * from the exact aggregates.  Returns 0, or -1 when memory ran out. */
/* The columns and paths carved from block (NULL: their size only),
 * largest elements first. */
static size_t sample_arrays(cp_sample *s, char *block, size_t n)
{
    size_t at = 0;
    s->cols.call = cp_carve(block, &at, n, sizeof *s->cols.call);
    s->cols.enter = cp_carve(block, &at, n, sizeof *s->cols.enter);
    s->cols.start = cp_carve(block, &at, n, sizeof *s->cols.start);
    s->cols.exit = cp_carve(block, &at, n, sizeof *s->cols.exit);
    s->cols.root = cp_carve(block, &at, n, sizeof *s->cols.root);
    s->paths = cp_carve(block, &at, n, sizeof *s->paths);
    s->cols.flags = cp_carve(block, &at, n, sizeof *s->cols.flags);
    s->cols.form = cp_carve(block, &at, n, sizeof *s->cols.form);
    return at;
}

int cp_sample_alloc(cp_sample *out, size_t n)
{
    n = n ? n : 1;
    size_t per = sample_arrays(out, NULL, 1);
    if (n > SIZE_MAX / per || !(out->block = malloc(sample_arrays(out, NULL, n))))
        return -1;
    sample_arrays(out, out->block, n);
    return 0;
}

void cp_sample_free(cp_sample *s)
{
    free(s->block);
    s->block = NULL;
    s->cols = (cp_timing_cols){0};
    s->paths = NULL;
}

int cp_sample_make(const cp_counts *c, const cp_timing *t, const cp_time_line *tl, cp_sample *out)
{
    uint64_t kept = cp_timing_kept(t);
    if (kept > SIZE_MAX || cp_sample_alloc(out, (size_t)kept))
        return -1;
    double tick = tl->tick;
    cp_seq_iter it;
    cp_seq_iter_init(&it, &c->seq);
    uint64_t at = 0; /* call index at the start of the iterator's run */
    const cp_tblock *b = t->head;
    double sampled_time = 0, sampled_late = 0;
    out->n = 0;
    for (uint64_t j = 0; j < kept && b; j++) {
        const cp_sample_rec *s = &b->r[j % CP_TBLOCK_RECS];
        if (j % CP_TBLOCK_RECS == CP_TBLOCK_RECS - 1)
            b = b->next;
        if (s->enter == CP_SAMPLE_UNTIMED)
            continue;
        uint64_t call = cp_timing_chosen(j, t->level);
        uint32_t id = cp_seq_iter_seek(&it, &at, call);
        /* The record holds the clock's stamp (56 bits): ticks since the
         * origin, modulo 2^56 (a run shorter than 2^56 ticks: 278 days at
         * 3 GHz). */
        uint64_t ticks = (s->enter - tl->origin) & ((UINT64_C(1) << CP_SAMPLE_FLAG_SHIFT) - 1);
        double enter = cp_time_line_seconds(tl, (double)ticks);
        double start = enter + (double)s->late * tick, exit = start + (double)s->dur * tick;
        sampled_time += exit - start;
        sampled_late += start - enter;
        out->paths[out->n] = path_of_sig(c, id);
        cp_timing_cols_put(&out->cols, out->n++, (cp_timing_rec){.call = call,
                                          .enter = cp_time_line_align(tl, enter),
                                          .start = cp_time_line_align(tl, start),
                                          .exit = cp_time_line_align(tl, exit),
                                          .root = root_of_sig(c, id),
                                          .form = form_of_sig(c, id),
                                          .flags = (uint8_t)(s->enter >> CP_SAMPLE_FLAG_SHIFT |
                                                             (failed_sig(c, id) ? CP_CPT_FAILED
                                                                                : 0))});
    }
    uint64_t timed = 0;
    double time = 0, late = 0;
    for (uint32_t i = 0; i < t->nagg; i++) {
        timed += t->agg[i].n;
        time += (double)t->agg[i].time * tick;
        late += (double)t->agg[i].late * tick;
    }
    out->naggregated = timed > out->n ? timed - out->n : 0;
    out->agg_time = time > sampled_time ? time - sampled_time : 0;
    out->agg_late = late > sampled_late ? late - sampled_late : 0;
    return 0;
}

/* Bytes of one of this rank's vectors in one call: a single count that goes
 * to every peer counts once per peer (the reader's rule). */
static uint64_t vec_bytes(const cp_counts *t, uint32_t v, int k, uint64_t peers)
{
    if (v == CP_SEQ_NONE || v >= t->nvecs)
        return 0;
    const cp_vec *x = &t->vecs[v];
    uint64_t sum = 0;
    for (int64_t i = 0, n = x->peers ? x->nnz : x->len; i < n; i++)
        sum += (uint64_t)x->counts[i];
    sum *= (uint64_t)x->dtsize;
    if (x->len == 1 && cp_collective_single_count_per_peer(cp_collective_names[k]))
        sum *= peers;
    return sum;
}


cp_coll_sums *cp_site_list_get(cp_site_list *st, int k, uint32_t form, uint32_t path)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].coll == (uint32_t)k && st->v[i].path == path && st->v[i].form == form)
            return &st->v[i].s;
    if (cp_grow((void **)&st->v, &st->cap, st->n + 1, sizeof *st->v, 16)) {
        st->oom = true;
        return NULL;
    }
    st->v[st->n] = (cp_site){.rank = st->rank, .coll = (uint32_t)k, .form = form,
                             .path = path};
    return &st->v[st->n++].s;
}

/* The calls of the run at the iterator, times `times`, into their site. */
static uint64_t add_run(cp_site_list *st, const cp_counts *t, int k, uint64_t out, uint64_t in,
                        cp_seq_iter *it, uint64_t times)
{
    uint64_t left;
    uint32_t id = cp_seq_iter_peek(it, &left);
    if (left == UINT64_MAX)
        return 0;
    cp_coll_sums *s = id != CP_SEQ_NONE && id < t->nsigs
                          ? cp_site_list_get(st, k, form_of_sig(t, id), path_of_sig(t, id)) : NULL;
    if (s) {
        uint64_t calls = left * times;
        s->visits += calls;
        s->bytes_sent += calls * vec_bytes(t, t->sigs[id].send, k, out);
        s->bytes_recv += calls * vec_bytes(t, t->sigs[id].recv, k, in);
    }
    cp_seq_iter_skip(it, left);
    return left;
}

/* A group that repeats is summed once and multiplied by its repetitions:
 * a cycle of 32 patterns called a million times is 32 runs here, not a
 * million. */
void cp_sums_of_counts(cp_site_list *st, const cp_counts *t, int k, uint64_t out, uint64_t in)
{
    cp_seq_iter it;
    cp_seq_iter_init(&it, &t->seq);
    for (;;) {
        uint64_t period, reps;
        if (cp_seq_iter_at_repetition(&it, &period, &reps)) {
            uint64_t done = 0;
            while (done < period) {
                uint64_t got = add_run(st, t, k, out, in, &it, reps);
                if (got == 0)
                    break;
                done += got;
            }
            if (done < period)
                break; /* the sequence ended inside a repetition: cannot be */
            cp_seq_iter_skip_reps(&it, reps - 1);
        } else if (add_run(st, t, k, out, in, &it, 1) == 0) {
            break;
        }
    }
}

/* This rank's sums per site: every timed call exactly, from the
 * aggregates per signature; the kept calls for how many have their own
 * record (series_sums.h). */
void cp_sums_of_timing(cp_site_list *st, const cp_counts *cn, const cp_timing *t, int k,
                       const cp_sample *sm, double tick)
{
    for (uint32_t i = 0; i < t->nagg; i++) {
        const cp_timing_agg *a = &t->agg[i];
        if (a->n == 0)
            continue;
        cp_coll_sums *s = cp_site_list_get(st, k, form_of_sig(cn, i), path_of_sig(cn, i));
        if (!s)
            return; /* st->oom is set */
        double mn = (double)a->min * tick, mx = (double)a->max * tick;
        s->min = s->ntimed == 0 || mn < s->min ? mn : s->min;
        s->max = s->ntimed == 0 || mx > s->max ? mx : s->max;
        s->ntimed += a->n;
        s->naggregated += a->n;
        s->time += (double)a->time * tick;
        s->late += (double)a->late * tick;
    }
    for (size_t i = 0; i < sm->n; i++) {
        cp_coll_sums *s = cp_site_list_get(st, k, sm->cols.form[i], sm->paths[i]);
        if (!s)
            return; /* st->oom is set */
        s->nrecords++;
        if (s->naggregated)
            s->naggregated--;
    }
}
