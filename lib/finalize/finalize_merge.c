/*
 * Finalize: each lead merges its communicators' trees, collective by
 * collective, into blocks (cp_fin_make_blocks, before the communicators
 * are numbered, so that rank 0 learns how many blocks and calls each holds
 * for the manifest), each written as the count file's text as it is made
 * (the lead of a million ranks holds its tree and one block, not a
 * world's blocks); then, numbered, writes its two count files under .part
 * names (renamed once every rank has succeeded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "counts_merge.h"
#include "finalize.h"

/* Each block as it is made: its rows in rank space (or dense), then its
 * text, into the communicator's spool of its direction. */
typedef struct sink {
    cp_led *l;
    bool dense;       /* COLLPROF_DENSE_ROWS: rows as written, never compacted */
} sink;

static int spool_sink(void *ctx, int d, cp_block *b, cp_error *err)
{
    const sink *k = ctx;
    cp_led *l = k->l;
    int rc = 0;
    if ((k->dense ? cp_block_dense_rows : cp_block_compact_rows)(b))
        rc = cp_error_set(err, "out of memory while writing rows in rank space");
    else
        rc = cp_compact_spool_block(&l->spool[d], b, err);
    cp_block_free(b);
    return rc;
}

void cp_fin_make_blocks(fin *f, fin_leads *L)
{
    for (size_t j = 0; j < L->n && !f->failed; j++) {
        cp_led *l = &L->led[j];
        const cp_comm *c = l->comm;
        for (int d = 0; d < 2; d++)
            l->spool[d].store = &L->store[d];
        CP_SLOTS_EACH(k, &l->c)
        {
            cp_led_coll *x = cp_led_at(l, k);
            if (f->failed)
                break;
            if (!x->held.tree)
                continue;
            cp_block tmpl;
            memset(&tmpl, 0, sizeof tmpl);
            tmpl.comm_id = -1; /* numbered later: the spool's head names it */
            tmpl.comm_size = c->size;
            snprintf(tmpl.collective, sizeof tmpl.collective, "%s", cp_collective_names[k]);
            cp_error err;
            size_t first[2] = {l->spool[0].n, l->spool[1].n};
            x->calls = (int64_t)x->held.tree->seq.total;
            /* The blocks take the tree (it is left empty: still there, as
             * the mark that the collective was called). */
            if (cp_counts_tree_emit(x->held.tree, &tmpl, spool_sink,
                                    &(sink){l, f->cfg->dense_rows}, &err))
                cp_fin_fail(f, err.msg);
            for (int d = 0; d < 2; d++)
                x->nblocks[d] = (int64_t)(l->spool[d].n - first[d]);
        }
    }
}

static int by_id(const void *a, const void *b)
{
    const cp_led *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

void cp_fin_merge_and_write(fin *f, fin_leads *L, fin_count_files *cf)
{
    if (L->n == 0)
        return;
    /* Blocks in order of communicator id, then collective. */
    qsort(L->led, L->n, sizeof *L->led, by_id);
    cp_fin_index_led(L);
    cp_compact_spool **s = malloc(L->n * sizeof *s);
    if (!s) {
        cp_fin_fail(f, "out of memory while writing the count files");
        return;
    }
    for (int d = 0; d < 2 && !f->failed; d++) {
        cf->nblocks[d] = 0;
        for (size_t j = 0; j < L->n; j++) {
            cp_led *l = &L->led[j];
            s[j] = &l->spool[d];
            s[j]->comm_id = l->id;
            s[j]->comm_size = l->comm->size;
            s[j]->world = &l->comm->members;
            cf->nblocks[d] += s[j]->n;
        }
        char name[96];
        cp_compact_file_name(name, sizeof name, d == 0 ? CP_SEND : CP_RECV, f->rank,
                             f->cfg->gzip);
        snprintf(cf->final[d], sizeof cf->final[d], "%s/%s", f->dir, name);
        snprintf(cf->part[d], sizeof cf->part[d], "%s.part", cf->final[d]);
        /* A file that cannot be written is missing alone (and its twin,
         * which is half the story): the profile goes on. */
        if (!cf->failed && cp_compact_write_spools_file(cf->part[d], f->cfg->gzip, s, L->n,
                                                        &cf->err))
            cf->failed = true;
        /* written: the text goes */
        for (size_t j = 0; j < L->n; j++)
            *s[j] = (cp_compact_spool){.store = &L->store[d]};
        cp_compact_store_free(&L->store[d]);
    }
    free(s);
}
