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
#include "grow.h"

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
    cp_summary_row *rows; /* sorted by communicator, then collective */
    size_t nrows;
    cp_timings t;         /* rows sorted the same way */
    bool timed;
} side;

/* One send block of either profile, for the sort that pairs them. */
typedef struct entry {
    int64_t comm;
    const char *collective;
    uint64_t fp;
    int which; /* 0: A, 1: B */
    const cp_block *b;
} entry;

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int c = cp_reader_series_cmp(a->comm, a->collective, b->comm, b->collective);
    if (c)
        return c;
    if (a->fp != b->fp)
        return (a->fp > b->fp) - (a->fp < b->fp);
    if (a->which != b->which)
        return a->which - b->which;
    /* the same matrix twice in one profile (the same bytes in another
     * datatype): paired with the other profile's in call order */
    int64_t fa = a->b && a->b->calls.n ? a->b->calls.v[0].lo : -1;
    int64_t fb = b->b && b->b->calls.n ? b->b->calls.v[0].lo : -1;
    return (fa > fb) - (fa < fb);
}

static void row_key(const void *ctx, size_t i, int64_t *comm, const char **coll)
{
    const cp_summary_row *r = &((const side *)ctx)->rows[i];
    *comm = r->comm;
    *coll = r->collective;
}

static const cp_summary_row *row_of(const side *s, int64_t comm, const char *coll)
{
    size_t i = cp_reader_series_find(s->nrows, row_key, s, comm, coll);
    return i < s->nrows ? &s->rows[i] : NULL;
}

/* A new series at the end of d (entries come sorted). */
static cp_diff_series *new_series(cp_diff *d, size_t *cap, int64_t comm, const char *coll)
{
    if (d->nseries == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        cp_diff_series *ns = realloc(d->series, nc * sizeof *ns);
        if (!ns)
            return NULL;
        d->series = ns;
        *cap = nc;
    }
    cp_diff_series *s = &d->series[d->nseries++];
    memset(s, 0, sizeof *s);
    s->comm = comm;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    return s;
}

/* Matrices in order of their first call (A's, else B's). */
static int64_t first_call(const cp_diff_matrix *m)
{
    const cp_block *b = m->block[0] ? m->block[0] : m->block[1];
    return b->calls.n ? b->calls.v[0].lo : -1;
}

static int cmp_matrix(const void *x, const void *y)
{
    int64_t a = first_call(x), b = first_call(y);
    if (a != b)
        return (a > b) - (a < b);
    return (((const cp_diff_matrix *)x)->block[0] == NULL) -
           (((const cp_diff_matrix *)y)->block[0] == NULL); /* gone before new */
}

static int add_entry(entry **v, size_t *n, size_t *cap, const entry *e)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        entry *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = *e;
    return 0;
}

int cp_profile_diff(const cp_profile *a, const cp_profile *b, cp_diff *out, cp_error *err)
{
    memset(out, 0, sizeof *out);
    side s[2] = {{.p = a}, {.p = b}};
    entry *v = NULL;
    size_t n = 0, cap = 0, scap = 0;
    int rc = -1;
    for (int k = 0; k < 2; k++) {
        if (cp_profile_summarize(s[k].p, &s[k].rows, &s[k].nrows, err))
            goto out;
        cp_error ignored; /* without timings.cpt: no times, not an error */
        s[k].timed = s[k].p->has_timings && cp_profile_timings(s[k].p, &s[k].t, &ignored) == 0;
    }
    out->timed[0] = s[0].timed;
    out->timed[1] = s[1].timed;
    /* Every send block, and one entry without block per summary row (so
     * that series without send blocks, Barrier, are there too). */
    for (int k = 0; k < 2; k++) {
        for (size_t f = 0; f < s[k].p->nfiles; f++) {
            const cp_counts_file *cf = &s[k].p->files[f];
            for (size_t i = 0; cf->direction == CP_SEND && i < cf->nblocks; i++) {
                const cp_block *blk = &cf->blocks[i];
                entry e = {blk->comm_id, blk->collective, cp_block_fingerprint(blk), k, blk};
                if (add_entry(&v, &n, &cap, &e))
                    goto oom;
            }
        }
        for (size_t i = 0; i < s[k].nrows; i++) {
            entry e = {s[k].rows[i].comm, s[k].rows[i].collective, 0, k, NULL};
            if (add_entry(&v, &n, &cap, &e))
                goto oom;
        }
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_entry);
    cp_diff_series *ds = NULL;
    size_t mcap = 0;
    for (size_t i = 0; i < n;) {
        if (!ds || cp_reader_series_cmp(ds->comm, ds->collective, v[i].comm, v[i].collective)) {
            if (!(ds = new_series(out, &scap, v[i].comm, v[i].collective)))
                goto oom;
            mcap = 0;
        }
        if (!v[i].b) {
            i++;
            continue;
        }
        /* the group of one content: A's blocks, then B's; the t-th of A
         * pairs with the t-th of B */
        size_t j = i, na = 0;
        while (j < n && v[j].b && v[j].fp == v[i].fp &&
               !cp_reader_series_cmp(v[j].comm, v[j].collective, v[i].comm, v[i].collective))
            na += v[j++].which == 0;
        size_t nb = j - i - na, pairs = na < nb ? na : nb, need = na + nb - pairs;
        if (cp_grow((void **)&ds->matrices, &mcap, ds->nmatrices + need, sizeof *ds->matrices,
                    8))
            goto oom;
        for (size_t t = 0; t < na || t < nb; t++) {
            cp_diff_matrix *m = &ds->matrices[ds->nmatrices++];
            memset(m, 0, sizeof *m);
            m->fingerprint = v[i].fp;
            m->block[0] = t < na ? v[i + t].b : NULL;
            m->block[1] = t < nb ? v[i + na + t].b : NULL;
        }
        i = j;
    }
    for (size_t i = 0; i < out->nseries; i++) {
        cp_diff_series *x = &out->series[i];
        for (int k = 0; k < 2; k++) {
            const cp_summary_row *r = row_of(&s[k], x->comm, x->collective);
            const cp_timing_row *t =
                s[k].timed ? cp_reader_timing_row(&s[k].t, x->comm, x->collective) : NULL;
            x->present[k] = r != NULL;
            x->calls[k] = r ? r->calls : 0;
            x->bytes[k] = r ? r->bytes_sent : 0;
            x->time[k] = t ? t->total : 0;
            for (int q = 0; t && q < CP_READER_NPATTERNS; q++)
                x->wait[k] += t->wait[q];
        }
        if (x->nmatrices)
            qsort(x->matrices, x->nmatrices, sizeof *x->matrices, cmp_matrix);
        for (size_t m = 0; m < x->nmatrices; m++) {
            const cp_diff_matrix *y = &x->matrices[m];
            x->both += y->block[0] && y->block[1];
            x->added += !y->block[0];
            x->gone += !y->block[1];
        }
    }
    if (cp_diff_sites(a, b, out))
        goto oom;
    rc = 0;
    goto out;
oom:
    cp_error_set(err, "out of memory while comparing the profiles");
out:
    free(v);
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
    free(d->sites);
    memset(d, 0, sizeof *d);
}
