/*
 * The profile model (include/collprof/profile.h): count blocks and
 * key-value lists.  Range lists are in ranges.c, row forms in row_forms.c,
 * the manifest's functions in writers/manifest.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collprof/profile.h"

/* ------------------------------------------------------------- count data */

void cp_block_init(cp_block *b)
{
    memset(b, 0, sizeof *b);
    b->comm_id = -1;
    b->comm_size = -1;
    b->root = -1;
}

void cp_block_free(cp_block *b)
{
    if (!b)
        return;
    cp_ranges_free(&b->comm_world_ranks);
    cp_ranges_free(&b->all_calls);
    cp_ranges_free(&b->calls);
    cp_ranges_free(&b->callsites);
    for (size_t i = 0; i < b->nrows; i++) {
        cp_ranges_free(&b->rows[i].ranks);
        free(b->rows[i].counts);
        free(b->rows[i].peers);
    }
    free(b->rows);
    cp_block_init(b);
}

void cp_counts_file_free(cp_counts_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nblocks; i++)
        cp_block_free(&f->blocks[i]);
    free(f->blocks);
    f->blocks = NULL;
    f->nblocks = 0;
}

bool cp_block_equal(const cp_block *a, const cp_block *b)
{
    if (a->comm_id != b->comm_id || a->comm_size != b->comm_size ||
        a->root != b->root || a->nranks != b->nranks || a->dtsize != b->dtsize ||
        a->counts_in_bytes != b->counts_in_bytes || a->invalid != b->invalid ||
        a->row_len != b->row_len ||
        a->nrows != b->nrows)
        return false;
    if (strncmp(a->collective, b->collective, sizeof a->collective) != 0)
        return false;
    if (!cp_ranges_equal(&a->comm_world_ranks, &b->comm_world_ranks) ||
        !cp_ranges_equal(&a->all_calls, &b->all_calls) ||
        !cp_ranges_equal(&a->calls, &b->calls) || !cp_ranges_equal(&a->callsites, &b->callsites))
        return false;
    for (size_t i = 0; i < a->nrows; i++) {
        const cp_row *x = &a->rows[i], *y = &b->rows[i];
        size_t n = cp_row_nitems(x);
        if (!cp_ranges_equal(&x->ranks, &y->ranks) || x->len != y->len || x->form != y->form ||
            x->err != y->err || n != cp_row_nitems(y))
            return false;
        if (n > 0 && memcmp(x->counts, y->counts, n * sizeof(int64_t)) != 0)
            return false;
        if (x->form != CP_ROW_DENSE && n > 0 && memcmp(x->peers, y->peers, n * sizeof(int64_t)) != 0)
            return false;
    }
    return true;
}

bool cp_block_has_failed(const cp_block *b)
{
    for (size_t i = 0; i < b->nrows; i++)
        if (b->rows[i].err)
            return true;
    return false;
}

const cp_row *cp_block_row(const cp_block *b, int64_t rank)
{
    for (size_t i = 0; i < b->nrows; i++)
        if (cp_ranges_contains(&b->rows[i].ranks, rank))
            return &b->rows[i];
    return NULL;
}

int64_t cp_block_count(const cp_block *b, int64_t rank, size_t peer)
{
    const cp_row *row = cp_block_row(b, rank);
    if (!row || peer >= row->len)
        return -1;
    return cp_row_value(row, rank, peer);
}

/* ---------------------------------------------------------- key-value lists */

int cp_kv_add(cp_kv **v, size_t *n, const char *key, const char *value)
{
    cp_kv *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    char *k = strdup(key), *val = strdup(value);
    if (!k || !val) {
        free(k);
        free(val);
        return -1;
    }
    nv[(*n)++] = (cp_kv){k, val};
    return 0;
}

const char *cp_kv_get(const cp_kv *v, size_t n, const char *key)
{
    for (size_t i = 0; v && i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return v[i].value;
    return NULL;
}

void cp_kv_free(cp_kv *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].key);
        free(v[i].value);
    }
    free(v);
}
