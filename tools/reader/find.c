/*
 * Lookups: which block holds a call, which calls exist; and the small
 * texts every command shares (a file's base name, a duration).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ranges.h"
#include "reader_internal.h"
#include "search.h"

int cp_reader_collective_cmp(const char *a, const char *b)
{
    return strcasecmp(a, b);
}

int cp_reader_series_cmp(int64_t ca, const char *na, int64_t cb, const char *nb)
{
    if (ca != cb)
        return (ca > cb) - (ca < cb);
    return cp_reader_collective_cmp(na, nb);
}

struct series_key {
    cp_reader_series_key_fn key;
    const void *ctx;
    int64_t comm;
    const char *coll;
};

static int series_cmp_at(const struct series_key *k, size_t i)
{
    int64_t comm;
    const char *coll;
    k->key(k->ctx, i, &comm, &coll);
    return cp_reader_series_cmp(comm, coll, k->comm, k->coll);
}

static bool series_before(const void *ctx, size_t i)
{
    return series_cmp_at(ctx, i) < 0;
}

size_t cp_reader_series_find(size_t n, cp_reader_series_key_fn key, const void *ctx, int64_t comm,
                             const char *coll)
{
    /* binary search: thousands of communicators */
    struct series_key k = {key, ctx, comm, coll};
    size_t i = cp_lower_bound(n, series_before, &k);
    return i < n && series_cmp_at(&k, i) == 0 ? i : n;
}

static void timing_key(const void *ctx, size_t i, int64_t *comm, const char **coll)
{
    const cp_timing_row *r = &((const cp_timings *)ctx)->rows[i];
    *comm = r->comm;
    *coll = r->collective;
}

const cp_timing_row *cp_reader_timing_row(const cp_timings *t, int64_t comm, const char *coll)
{
    size_t n = t ? t->nrows : 0, i = cp_reader_series_find(n, timing_key, t, comm, coll);
    return i < n ? &t->rows[i] : NULL;
}

const char *cp_reader_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

const char *cp_reader_duration(double s, const char *micro, char *buf, size_t size)
{
    double a = fabs(s);
    if (a >= 1)
        snprintf(buf, size, "%.3f s", s);
    else if (a >= 1e-3)
        snprintf(buf, size, "%.3f ms", s * 1e3);
    else
        snprintf(buf, size, "%.3f %s", s * 1e6, micro);
    return buf;
}

const cp_comm_info *cp_reader_manifest_comm(const cp_profile *p, int64_t id)
{
    if (!p->has_manifest)
        return NULL;
    for (size_t i = 0; i < p->manifest.ncomms; i++)
        if (p->manifest.comms[i].id == id)
            return &p->manifest.comms[i];
    return NULL;
}

const cp_block *cp_profile_find(const cp_profile *p, int64_t comm, const char *collective,
                                int direction, int64_t call)
{
    if (!p || !collective)
        return NULL;
    for (size_t f = 0; f < p->nfiles; f++) {
        const cp_counts_file *file = &p->files[f];
        if (file->direction != direction)
            continue;
        for (size_t b = 0; b < file->nblocks; b++) {
            const cp_block *blk = &file->blocks[b];
            if (blk->comm_id == comm && cp_reader_collective_cmp(blk->collective, collective) == 0 &&
                cp_ranges_contains(&blk->calls, call))
                return blk;
        }
    }
    return NULL;
}

int cp_profile_calls(const cp_profile *p, int64_t comm, const char *collective, int direction,
                     cp_ranges *out)
{
    out->n = 0;
    for (size_t f = 0; f < p->nfiles; f++) {
        const cp_counts_file *file = &p->files[f];
        if (direction >= 0 && file->direction != direction)
            continue;
        for (size_t b = 0; b < file->nblocks; b++) {
            const cp_block *blk = &file->blocks[b];
            if (blk->comm_id != comm || cp_reader_collective_cmp(blk->collective, collective) != 0)
                continue;
            if (cp_ranges_append(out, &blk->calls) < 0)
                return -1;
        }
    }
    return cp_ranges_normalise(out, false); /* appended: one sort, not one insert each */
}

const char *cp_reader_calls_label(const cp_ranges *calls, char *buf, size_t size)
{
    char *s = cp_ranges_to_string(calls);
    const char *word = cp_ranges_count(calls) == 1 ? "call" : "calls";
    if (!s) {
        snprintf(buf, size, "%s ?", word);
        return buf;
    }
    size_t len = strlen(s);
    if (size > 16 && len + strlen(word) + 2 > size) {
        /* keep whole items: cut at a comma */
        size_t keep = size - strlen(word) - 6;
        while (keep > 0 && s[keep] != ',')
            keep--;
        s[keep] = '\0';
        snprintf(buf, size, "%s %s%s...", word, s, keep ? "," : "");
    } else {
        snprintf(buf, size, "%s %s", word, s);
    }
    free(s);
    return buf;
}

static int cmp_entry(const void *x, const void *y)
{
    const cp_reader_entry *a = x, *b = y;
    CP_ORDER_BY(a->b->comm_id, b->b->comm_id);
    int c = cp_reader_collective_cmp(a->b->collective, b->b->collective);
    if (c)
        return c;
    CP_ORDER_BY(a->f->direction, b->f->direction);
    /* files and blocks are in arrays: their addresses give file, then block order */
    CP_ORDER_BY(a->f, b->f);
    return a->b < b->b ? -1 : a->b > b->b;
}

int cp_reader_sorted_entries(const cp_profile *p, cp_reader_entry **out, size_t *n)
{
    size_t total = 0, k = 0;
    *out = NULL;
    *n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        total += p->files[f].nblocks;
    if (total == 0)
        return 0;
    cp_reader_entry *e = malloc(total * sizeof *e);
    if (!e)
        return -1;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++)
            e[k++] = (cp_reader_entry){&p->files[f].blocks[b], &p->files[f]};
    qsort(e, total, sizeof *e, cmp_entry);
    *out = e;
    *n = total;
    return 0;
}

bool cp_reader_same_group(const cp_reader_entry *a, const cp_reader_entry *b)
{
    return a->b->comm_id == b->b->comm_id &&
           cp_reader_collective_cmp(a->b->collective, b->b->collective) == 0;
}
