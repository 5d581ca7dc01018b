/*
 * Finalize: each lead merges its communicators' trees, collective by
 * collective, into blocks (cp_fin_make_blocks, before the communicators
 * are numbered, so that rank 0 learns how many blocks and calls each holds
 * for the manifest), then, numbered, writes its two count files under
 * .part names (renamed once every rank has succeeded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "counts_merge.h"
#include "finalize.h"
#include "runtime.h"

static void write_counts(fin *f, fin_count_files *cf, cp_counts_file out[2])
{
    static const char *const names[2] = {"send-counters", "recv-counters"};
    for (int d = 0; d < 2 && !f->failed; d++) {
        snprintf(cf->final[d], sizeof cf->final[d], "%s/%s.rank%d.txt%s", f->dir, names[d], f->rank,
                 cp_rt.cfg.gzip ? ".gz" : "");
        snprintf(cf->part[d], sizeof cf->part[d], "%s.part", cf->final[d]);
        out[d].version = CP_COUNTS_FORMAT_VERSION;
        out[d].direction = d;
        out[d].lead_rank = f->rank;
        cf->nblocks[d] = out[d].nblocks;
        /* A file that cannot be written is missing alone (and its twin,
         * which is half the story): the profile goes on. */
        if (!cf->failed &&
            cp_compact_write_file(cf->part[d], cp_rt.cfg.gzip, &out[d], &cf->err))
            cf->failed = true;
    }
}

static int by_id(const void *a, const void *b)
{
    const cp_led *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

void cp_fin_make_blocks(fin *f, fin_leads *L)
{
    /* The tree writes into files: one pair for every led communicator,
     * holding its arrays while blocks are added to them. */
    cp_counts_file files[2];
    memset(files, 0, sizeof files);
    for (size_t j = 0; j < L->n && !f->failed; j++) {
        cp_led *l = &L->led[j];
        const cp_comm *c = l->comm;
        for (int k = 0; k < CP_NCOLLECTIVES && !f->failed; k++) {
            if (!l->tree[k])
                continue;
            cp_block tmpl;
            memset(&tmpl, 0, sizeof tmpl);
            tmpl.comm_id = -1; /* numbered later */
            tmpl.comm_size = c->size;
            tmpl.comm_world_ranks = c->members; /* borrowed: copied by the merge */
            snprintf(tmpl.collective, sizeof tmpl.collective, "%s", cp_collective_names[k]);
            cp_error err;
            size_t first[2] = {l->nblocks[0], l->nblocks[1]};
            l->calls[k] = (int64_t)l->tree[k]->seq.total;
            for (int d = 0; d < 2; d++) {
                files[d].blocks = l->blocks[d];
                files[d].nblocks = l->nblocks[d];
            }
            /* The blocks take the tree (it is left empty: still there, as
             * the mark that the collective was called). */
            if (cp_counts_tree_blocks(l->tree[k], &tmpl, files, &err))
                cp_fin_fail(f, err.msg);
            else if (cp_counts_compact_rows(files, first, cp_rt.cfg.dense_rows))
                cp_fin_fail(f, "out of memory while writing rows in rank space");
            for (int d = 0; d < 2; d++) {
                l->blocks[d] = files[d].blocks;
                l->nblocks[d] = files[d].nblocks;
                l->nblocks_of[k][d] = (int64_t)(l->nblocks[d] - first[d]);
            }
        }
    }
}

/* Move led communicator l's blocks of direction d to the end of `to`. */
static int append_blocks(cp_counts_file *to, cp_led *l, int d)
{
    if (!l->nblocks[d])
        return 0;
    cp_block *nb = realloc(to->blocks, (to->nblocks + l->nblocks[d]) * sizeof *nb);
    if (!nb)
        return -1;
    to->blocks = nb;
    for (size_t i = 0; i < l->nblocks[d]; i++) {
        l->blocks[d][i].comm_id = l->id;
        to->blocks[to->nblocks++] = l->blocks[d][i];
    }
    free(l->blocks[d]);
    l->blocks[d] = NULL;
    l->nblocks[d] = 0;
    return 0;
}

void cp_fin_merge_and_write(fin *f, fin_leads *L, fin_count_files *cf)
{
    if (L->n == 0)
        return;
    cp_counts_file out[2];
    memset(out, 0, sizeof out);
    /* Blocks in order of communicator id, then collective. */
    qsort(L->led, L->n, sizeof *L->led, by_id);
    cp_fin_index_led(L);
    for (size_t j = 0; j < L->n && !f->failed; j++)
        for (int d = 0; d < 2; d++)
            if (append_blocks(&out[d], &L->led[j], d))
                cp_fin_fail(f, "out of memory while writing the count files");
    write_counts(f, cf, out);
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
}
