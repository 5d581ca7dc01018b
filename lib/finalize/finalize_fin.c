/*
 * Finalize's shared state (finalize.h): recording a failure, a file that
 * will be missing, finding a led communicator or a communicator's
 * job-wide id, freeing it all.  Used by every stage; the driver is
 * finalize.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finalize.h"
#include "log.h"

void cp_fin_fail(fin *f, const char *msg)
{
    if (!f->failed) {
        f->failed = true;
        cp_error_set(&f->err, "%s", msg);
    }
}

void cp_fin_cpt_fail(fin *f, const char *msg)
{
    if (!f->cpt_failed) {
        f->cpt_failed = true;
        cp_error_set(&f->cpt_err, "rank %d: %s", f->rank, msg);
    }
}

void cp_fin_missing(fin *f, const char *name, const char *why, bool say)
{
    /* Every reason names the rank that had it: rank 0 writes these files. */
    char reason[sizeof f->cpt_err.msg + 16];
    snprintf(reason, sizeof reason, "%s%s", strncmp(why, "rank ", 5) ? "rank 0: " : "", why);
    if (say)
        cp_log("%s is missing from the profile: %s", name, reason);
    cp_manifest *m = &f->man;
    cp_kv *kv = realloc(m->missing, (m->nmissing + 1) * sizeof *kv);
    if (!kv)
        return;
    m->missing = kv;
    kv[m->nmissing].key = strdup(name);
    kv[m->nmissing].value = strdup(reason);
    if (kv[m->nmissing].key && kv[m->nmissing].value) {
        m->nmissing++;
    } else {
        free(kv[m->nmissing].key);
        free(kv[m->nmissing].value);
    }
}

/* ------------------------------------------- communicators by key */

static uint64_t key_of(uint64_t hash, uint32_t ordinal)
{
    return cp_hash_mix(hash, ordinal);
}

struct key_ctx {
    const fin *f;
    uint64_t hash;
    uint32_t ordinal;
};

static bool led_match(const void *ctx, uint32_t j)
{
    const struct key_ctx *k = ctx;
    const cp_comm *c = k->f->led[j].comm;
    return c->key_hash == k->hash && c->key_ordinal == k->ordinal;
}

static bool id_match(const void *ctx, uint32_t i)
{
    const struct key_ctx *k = ctx;
    return k->f->id_hash[i] == k->hash && k->f->id_ordinal[i] == k->ordinal;
}

void cp_fin_index_led(fin *f)
{
    cp_index_free(&f->led_ix);
    f->led_ix_ok = true;
    for (size_t j = 0; j < f->nled && f->led_ix_ok; j++) {
        const cp_comm *c = f->led[j].comm;
        f->led_ix_ok = cp_index_put(&f->led_ix, key_of(c->key_hash, c->key_ordinal),
                                    (uint32_t)j) == 0;
    }
}

void cp_fin_index_ids(fin *f)
{
    cp_index_free(&f->id_ix);
    f->id_ix_ok = true;
    for (size_t i = 0; i < f->nids && f->id_ix_ok; i++)
        f->id_ix_ok = cp_index_put(&f->id_ix, key_of(f->id_hash[i], f->id_ordinal[i]),
                                   (uint32_t)i) == 0;
}

cp_led *cp_fin_led_find(fin *f, uint64_t hash, uint32_t ordinal)
{
    struct key_ctx k = {f, hash, ordinal};
    if (f->led_ix_ok) {
        uint32_t j = cp_index_find(&f->led_ix, key_of(hash, ordinal), led_match, &k);
        return j == CP_INDEX_EMPTY ? NULL : &f->led[j];
    }
    for (size_t j = 0; j < f->nled; j++)
        if (led_match(&k, (uint32_t)j))
            return &f->led[j];
    return NULL;
}

int64_t cp_fin_comm_id(const fin *f, const cp_comm *c)
{
    struct key_ctx k = {f, c->key_hash, c->key_ordinal};
    if (f->id_ix_ok) {
        uint32_t i = cp_index_find(&f->id_ix, key_of(k.hash, k.ordinal), id_match, &k);
        return i == CP_INDEX_EMPTY ? -1 : (int64_t)i;
    }
    for (size_t i = 0; i < f->nids; i++)
        if (id_match(&k, (uint32_t)i))
            return (int64_t)i;
    return -1;
}

void cp_fin_free(fin *f)
{
    cp_index_free(&f->led_ix);
    cp_index_free(&f->id_ix);
    free(f->id_hash);
    free(f->id_ordinal);
    for (size_t j = 0; j < f->nled; j++) {
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            free(f->led[j].said[k]);
        cp_counts_file_free(&f->led[j].blocks[0]);
        cp_counts_file_free(&f->led[j].blocks[1]);
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            if (f->led[j].tree[k]) {
                cp_tree_free(f->led[j].tree[k]);
                free(f->led[j].tree[k]);
            }
        cp_neighbors_free(f->led[j].neighbors, f->led[j].comm->size);
    }
    free(f->led);
    cp_manifest_free(&f->man);
}

int cp_fin_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

