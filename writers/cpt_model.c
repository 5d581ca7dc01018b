/* timings.cpt's model (cpt.h): freeing, comparing, naming a series. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpt_layout.h"

void cp_cpt_series_free(cp_cpt_series *s)
{
    if (!s)
        return;
    if (s->block) {
        free(s->block);
        memset(s, 0, sizeof *s);
        return;
    }
    free(s->call);
    free(s->enter);
    free(s->start);
    free(s->exit);
    free(s->root);
    free(s->flags);
    free(s->hist);
    free(s->site_time);
    free(s->site_calls);
    free(s->site);
    free(s->site_path);
    free(s->site_form);
    memset(s, 0, sizeof *s);
}

void cp_cpt_chunk_free(cp_cpt_chunk *c)
{
    if (!c)
        return;
    free(c->agg.colls);
    free(c->agg.slowest);
    for (size_t i = 0; i < c->nseries; i++)
        cp_cpt_series_free(&c->series[i]);
    free(c->series);
    memset(c, 0, sizeof *c);
}

void cp_cpt_file_free(cp_cpt_file *f)
{
    if (!f)
        return;
    if (f->chunks)
        for (uint64_t i = 0; i < f->world_size; i++)
            cp_cpt_chunk_free(&f->chunks[i]);
    free(f->chunks);
    memset(f, 0, sizeof *f);
}

static bool same(const void *a, const void *b, size_t n)
{
    return n == 0 || (a && b && memcmp(a, b, n) == 0);
}

/* Strings compare up to their NUL (bounded by the array). */
#define SAME_STR(a, b) (strncmp((a), (b), sizeof(a)) == 0)
/* Doubles compare bitwise: a NaN equals itself, 0.0 differs from -0.0. */
#define SAME_F64(a, b) same(&(a), &(b), sizeof(double))

static bool series_equal(const cp_cpt_series *a, const cp_cpt_series *b)
{
    size_t n = (size_t)a->n;
    return a->comm_id == b->comm_id && SAME_STR(a->collective, b->collective) &&
           a->naggregated == b->naggregated && SAME_F64(a->agg_time, b->agg_time) &&
           a->stride == b->stride && SAME_F64(a->tick, b->tick) && a->hist_lo == b->hist_lo &&
           a->hist_n == b->hist_n && same(a->hist, b->hist, a->hist_n * sizeof *a->hist) &&
           a->n == b->n && same(a->call, b->call, n * sizeof *a->call) &&
           same(a->enter, b->enter, n * sizeof *a->enter) &&
           same(a->start, b->start, n * sizeof *a->start) &&
           same(a->exit, b->exit, n * sizeof *a->exit) &&
           same(a->root, b->root, n * sizeof *a->root) &&
           same(a->flags, b->flags, n * sizeof *a->flags) && a->nsites == b->nsites &&
           same(a->site_time, b->site_time, a->nsites * sizeof *a->site_time) &&
           same(a->site_calls, b->site_calls, a->nsites * sizeof *a->site_calls) &&
           (a->nsites == 0 || same(a->site, b->site, n * sizeof *a->site)) &&
           !a->site_path == !b->site_path && !a->site_form == !b->site_form &&
           (!a->site_path || same(a->site_path, b->site_path, a->nsites * sizeof *a->site_path)) &&
           (!a->site_form || same(a->site_form, b->site_form, a->nsites * sizeof *a->site_form));
}

static bool agg_equal(const cp_cpt_aggregates *a, const cp_cpt_aggregates *b)
{
    if (!SAME_STR(a->start_time, b->start_time) || !SAME_STR(a->end_time, b->end_time) ||
        a->ncolls != b->ncolls || a->nslowest != b->nslowest)
        return false;
    for (size_t i = 0; i < a->ncolls; i++) {
        const cp_cpt_coll_stat *x = &a->colls[i], *y = &b->colls[i];
        if (!SAME_STR(x->collective, y->collective) || x->calls != y->calls ||
            !SAME_F64(x->min, y->min) || !SAME_F64(x->avg, y->avg) || !SAME_F64(x->max, y->max))
            return false;
    }
    for (size_t i = 0; i < a->nslowest; i++) {
        const cp_cpt_slow *x = &a->slowest[i], *y = &b->slowest[i];
        if (!SAME_STR(x->collective, y->collective) || x->comm_id != y->comm_id ||
            x->call != y->call || x->rank != y->rank || !SAME_F64(x->duration, y->duration))
            return false;
    }
    return true;
}

bool cp_cpt_chunk_equal(const cp_cpt_chunk *a, const cp_cpt_chunk *b)
{
    if (a->rank != b->rank || !SAME_STR(a->hostname, b->hostname) || a->core != b->core ||
        a->pid != b->pid || a->node != b->node || a->has_aggregates != b->has_aggregates ||
        a->nseries != b->nseries)
        return false;
    if (a->has_aggregates && !agg_equal(&a->agg, &b->agg))
        return false;
    for (size_t i = 0; i < a->nseries; i++)
        if (!series_equal(&a->series[i], &b->series[i]))
            return false;
    return true;
}

bool cp_cpt_file_equal(const cp_cpt_file *a, const cp_cpt_file *b)
{
    if (memcmp(a->version, b->version, sizeof a->version) != 0 ||
        !SAME_STR(a->git_hash, b->git_hash) || !SAME_STR(a->mode, b->mode) ||
        a->flags != b->flags || a->world_size != b->world_size)
        return false;
    if (!a->chunks || !b->chunks)
        return a->chunks == b->chunks;
    for (uint64_t i = 0; i < a->world_size; i++)
        if (!cp_cpt_chunk_equal(&a->chunks[i], &b->chunks[i]))
            return false;
    return true;
}

void cp_cpt_series_where(char *buf, size_t cap, int64_t rank, size_t index,
                         const cp_cpt_series *s)
{
    snprintf(buf, cap, "chunk of rank %" PRId64 ", series %zu (%.*s, communicator %" PRId64 ")",
             rank, index, (int)sizeof s->collective - 1, s->collective, s->comm_id);
}
