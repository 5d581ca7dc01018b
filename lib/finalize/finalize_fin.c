/*
 * Finalize's context and products (finalize.h): recording a failure, a
 * file that will be missing, finding a led communicator or a
 * communicator's job-wide id, freeing the products.  Used by every stage;
 * the driver is finalize.c.
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

void cp_fin_cpt_fail(const fin *f, fin_cpt *cpt, const char *msg)
{
    if (!cpt->failed) {
        cpt->failed = true;
        cp_error_set(&cpt->err, "rank %d: %s", f->rank, msg);
    }
}

void cp_fin_missing(fin *f, const char *name, const char *why, bool say)
{
    /* Every reason names the rank that had it: rank 0 writes these files. */
    char reason[sizeof f->err.msg + 16];
    snprintf(reason, sizeof reason, "%s%s", strncmp(why, "rank ", 5) ? "rank 0: " : "", why);
    if (say)
        cp_log("%s is missing from the profile: %s", name, reason);
    (void)cp_kv_add(&f->missing, &f->nmissing, name, reason); /* no room: said above only */
}

/* ------------------------------------------- communicators by key */

static uint64_t key_of(uint64_t hash, uint32_t ordinal)
{
    return cp_hash_mix(hash, ordinal);
}

struct key_ctx {
    const void *of; /* the fin_leads or fin_ids looked in */
    uint64_t hash;
    uint32_t ordinal;
};

static bool led_match(const void *ctx, uint32_t j)
{
    const struct key_ctx *k = ctx;
    const cp_comm *c = ((const fin_leads *)k->of)->led[j].comm;
    return c->key_hash == k->hash && c->key_ordinal == k->ordinal;
}

static bool id_match(const void *ctx, uint32_t i)
{
    const struct key_ctx *k = ctx;
    const fin_ids *ids = k->of;
    return ids->hash[i] == k->hash && ids->ordinal[i] == k->ordinal;
}

void cp_fin_index_led(fin_leads *L)
{
    cp_index_free(&L->ix);
    L->ix_ok = true;
    for (size_t j = 0; j < L->n && L->ix_ok; j++) {
        const cp_comm *c = L->led[j].comm;
        L->ix_ok = cp_index_put(&L->ix, key_of(c->key_hash, c->key_ordinal), (uint32_t)j) == 0;
    }
}

void cp_fin_index_ids(fin_ids *ids)
{
    cp_index_free(&ids->ix);
    ids->ix_ok = true;
    for (size_t i = 0; i < ids->n && ids->ix_ok; i++)
        ids->ix_ok = cp_index_put(&ids->ix, key_of(ids->hash[i], ids->ordinal[i]),
                                  (uint32_t)i) == 0;
}

cp_led *cp_fin_led_find(fin_leads *L, uint64_t hash, uint32_t ordinal)
{
    struct key_ctx k = {L, hash, ordinal};
    if (L->ix_ok) {
        uint32_t j = cp_index_find(&L->ix, key_of(hash, ordinal), led_match, &k);
        return j == CP_INDEX_EMPTY ? NULL : &L->led[j];
    }
    for (size_t j = 0; j < L->n; j++)
        if (led_match(&k, (uint32_t)j))
            return &L->led[j];
    return NULL;
}

int64_t cp_fin_comm_id(const fin_ids *ids, const cp_comm *c)
{
    struct key_ctx k = {ids, c->key_hash, c->key_ordinal};
    if (ids->ix_ok) {
        uint32_t i = cp_index_find(&ids->ix, key_of(k.hash, k.ordinal), id_match, &k);
        return i == CP_INDEX_EMPTY ? -1 : (int64_t)i;
    }
    for (size_t i = 0; i < ids->n; i++)
        if (id_match(&k, (uint32_t)i))
            return (int64_t)i;
    return -1;
}

void cp_fin_ids_free(fin_ids *ids)
{
    cp_index_free(&ids->ix);
    free(ids->hash);
    free(ids->ordinal);
    memset(ids, 0, sizeof *ids);
}

void cp_fin_leads_free(fin_leads *L)
{
    cp_index_free(&L->ix);
    for (size_t j = 0; j < L->n; j++) {
        cp_led *l = &L->led[j];
        CP_SLOTS_EACH(k, &l->c)
            cp_hold_coll_clear(&cp_led_at(l, k)->held);
        cp_slots_free(&l->c);
        cp_neighbors_free(l->neighbors, l->comm->size);
    }
    free(L->led);
    for (int d = 0; d < 2; d++)
        cp_compact_store_free(&L->store[d]);
    memset(L, 0, sizeof *L);
}

int cp_fin_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

