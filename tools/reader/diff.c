/*
 * Two profiles side by side (`collprof diff A B`): per (communicator,
 * collective) its calls, bytes, time and waiting in each, and which of its
 * send matrices are in both, only in B (new) or only in A (gone).
 *
 * Matrices are matched by content, whatever the form or grouping of their
 * rows: a fingerprint sums, over the ranks, a hash of each rank's non-zero
 * (peer, bytes) in peer order, so that dense, sparse and relative rows of
 * the same matrix agree, and bytes make two datatype sizes of the same
 * traffic agree.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

uint64_t cp_block_fingerprint(const cp_block *b)
{
    int64_t unit = b->counts_in_bytes ? 1 : b->dtsize;
    uint64_t sum = mix(mix(0x5851f42d4c957f2dull, (uint64_t)b->nranks), (uint64_t)b->root);
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        for (size_t t = 0; t < row->ranks.n; t++)
            for (int64_t r = row->ranks.v[t].lo; r <= row->ranks.v[t].hi; r++) {
                uint64_t h = mix(0x2545f4914f6cdd1dull, (uint64_t)r); /* a row, even empty */
                for (size_t k = 0, n = cp_row_nitems(row); k < n; k++) {
                    int64_t c, peer = cp_row_item(row, r, k, &c);
                    if (c != 0)
                        h = mix(mix(h, (uint64_t)peer), (uint64_t)(c * unit));
                }
                sum += h; /* commutative: rows in any order */
            }
    }
    return sum;
}

typedef struct side {
    const cp_profile *p;
    cp_summary_row *rows;
    size_t nrows;
    cp_timings t;
    bool timed;
} side;

static const cp_timing_row *timing_of(const side *s, int64_t comm, const char *coll)
{
    for (size_t i = 0; s->timed && i < s->t.nrows; i++)
        if (s->t.rows[i].comm == comm && !cp_reader_collective_cmp(s->t.rows[i].collective, coll))
            return &s->t.rows[i];
    return NULL;
}

static const cp_summary_row *row_of(const side *s, int64_t comm, const char *coll)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i].comm == comm && !cp_reader_collective_cmp(s->rows[i].collective, coll))
            return &s->rows[i];
    return NULL;
}

static int add_matrix(cp_diff_series *d, const cp_block *b, int which, uint64_t fp)
{
    for (size_t i = 0; i < d->nmatrices; i++)
        if (d->matrices[i].fingerprint == fp && !d->matrices[i].block[which]) {
            d->matrices[i].block[which] = b;
            return 0;
        }
    cp_diff_matrix *nm = realloc(d->matrices, (d->nmatrices + 1) * sizeof *nm);
    if (!nm)
        return -1;
    d->matrices = nm;
    memset(&nm[d->nmatrices], 0, sizeof *nm);
    nm[d->nmatrices].fingerprint = fp;
    nm[d->nmatrices++].block[which] = b;
    return 0;
}

/* The series of (comm, coll), added when new. */
static cp_diff_series *series_of(cp_diff *d, int64_t comm, const char *coll)
{
    for (size_t i = 0; i < d->nseries; i++)
        if (d->series[i].comm == comm && !cp_reader_collective_cmp(d->series[i].collective, coll))
            return &d->series[i];
    cp_diff_series *ns = realloc(d->series, (d->nseries + 1) * sizeof *ns);
    if (!ns)
        return NULL;
    d->series = ns;
    cp_diff_series *s = &ns[d->nseries++];
    memset(s, 0, sizeof *s);
    s->comm = comm;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    return s;
}

static int cmp_series(const void *x, const void *y)
{
    const cp_diff_series *a = x, *b = y;
    if (a->comm != b->comm)
        return (a->comm > b->comm) - (a->comm < b->comm);
    return cp_reader_collective_cmp(a->collective, b->collective);
}

int cp_profile_diff(const cp_profile *a, const cp_profile *b, cp_diff *out, cp_error *err)
{
    memset(out, 0, sizeof *out);
    side s[2] = {{.p = a}, {.p = b}};
    int rc = -1;
    for (int k = 0; k < 2; k++) {
        if (cp_profile_summarize(s[k].p, &s[k].rows, &s[k].nrows, err))
            goto out;
        cp_error ignored; /* without timings.cpt: no times, not an error */
        s[k].timed = s[k].p->has_timings && cp_profile_timings(s[k].p, &s[k].t, &ignored) == 0;
    }
    out->timed[0] = s[0].timed;
    out->timed[1] = s[1].timed;
    for (int k = 0; k < 2; k++)
        for (size_t f = 0; f < s[k].p->nfiles; f++) {
            const cp_counts_file *cf = &s[k].p->files[f];
            for (size_t i = 0; cf->direction == CP_SEND && i < cf->nblocks; i++) {
                const cp_block *blk = &cf->blocks[i];
                cp_diff_series *ds = series_of(out, blk->comm_id, blk->collective);
                if (!ds || add_matrix(ds, blk, k, cp_block_fingerprint(blk)))
                    goto oom;
            }
        }
    /* Series with calls but no send block (Barrier): from the summaries. */
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < s[k].nrows; i++)
            if (!series_of(out, s[k].rows[i].comm, s[k].rows[i].collective))
                goto oom;
    for (size_t i = 0; i < out->nseries; i++) {
        cp_diff_series *ds = &out->series[i];
        for (int k = 0; k < 2; k++) {
            const cp_summary_row *r = row_of(&s[k], ds->comm, ds->collective);
            const cp_timing_row *t = timing_of(&s[k], ds->comm, ds->collective);
            ds->present[k] = r != NULL;
            ds->calls[k] = r ? r->calls : 0;
            ds->bytes[k] = r ? r->bytes_sent : 0;
            ds->time[k] = t ? t->total : 0;
            for (int q = 0; t && q < CP_READER_NPATTERNS; q++)
                ds->wait[k] += t->wait[q];
        }
        for (size_t m = 0; m < ds->nmatrices; m++) {
            const cp_diff_matrix *x = &ds->matrices[m];
            ds->both += x->block[0] && x->block[1];
            ds->added += !x->block[0];
            ds->gone += !x->block[1];
        }
    }
    qsort(out->series, out->nseries, sizeof *out->series, cmp_series);
    rc = 0;
    goto out;
oom:
    cp_error_set(err, "out of memory while comparing the profiles");
out:
    for (int k = 0; k < 2; k++) {
        free(s[k].rows);
        if (s[k].timed)
            cp_timings_free(&s[k].t);
    }
    if (rc)
        cp_diff_free(out);
    return rc;
}

void cp_diff_free(cp_diff *d)
{
    for (size_t i = 0; i < d->nseries; i++)
        free(d->series[i].matrices);
    free(d->series);
    memset(d, 0, sizeof *d);
}
