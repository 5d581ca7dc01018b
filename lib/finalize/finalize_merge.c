/*
 * Finalize, step 3: each lead merges its communicators' views, collective by
 * collective, into blocks and writes its two count files under .part names
 * (renamed once every rank has succeeded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "counts_merge.h"
#include "finalize.h"
#include "runtime.h"

static void write_counts(fin *f, cp_counts_file out[2])
{
    static const char *const names[2] = {"send-counters", "recv-counters"};
    for (int d = 0; d < 2 && !f->failed; d++) {
        snprintf(f->final[d], sizeof f->final[d], "%s/%s.rank%d.txt%s", f->dir, names[d], f->rank,
                 cp_rt.cfg.gzip ? ".gz" : "");
        snprintf(f->part[d], sizeof f->part[d], "%s.part", f->final[d]);
        out[d].version = CP_COUNTS_FORMAT_VERSION;
        out[d].direction = d;
        out[d].lead_rank = f->rank;
        f->nblocks[d] = out[d].nblocks;
        /* A file that cannot be written is missing alone (and its twin,
         * which is half the story): the profile goes on. */
        if (!f->counts_failed &&
            cp_compact_write_file(f->part[d], cp_rt.cfg.gzip, &out[d], &f->counts_err))
            f->counts_failed = true;
    }
}

static int by_id(const void *a, const void *b)
{
    const cp_led *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

void cp_fin_merge_and_write(fin *f)
{
    if (f->nled == 0)
        return;
    cp_counts_file out[2];
    memset(out, 0, sizeof out);
    /* Blocks in order of communicator id, then collective. */
    qsort(f->led, f->nled, sizeof *f->led, by_id);
    cp_fin_index_led(f);
    for (size_t j = 0; j < f->nled && !f->failed; j++) {
        const cp_comm *c = f->led[j].comm;
        for (int k = 0; k < CP_NCOLLECTIVES && !f->failed; k++) {
            if (!f->led[j].tree[k])
                continue;
            cp_block tmpl;
            memset(&tmpl, 0, sizeof tmpl);
            tmpl.comm_id = f->led[j].id;
            tmpl.comm_size = c->size;
            tmpl.comm_world_ranks = c->members; /* borrowed: copied by the merge */
            snprintf(tmpl.collective, sizeof tmpl.collective, "%s", cp_collective_names[k]);
            cp_error err;
            size_t first[2] = {out[0].nblocks, out[1].nblocks};
            if (cp_counts_tree_blocks(f->led[j].tree[k], &tmpl, out, &err))
                cp_fin_fail(f, err.msg);
            else if (cp_counts_compact_rows(out, first, cp_rt.cfg.dense_rows))
                cp_fin_fail(f, "out of memory while writing rows in rank space");
        }
    }
    write_counts(f, out);
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
}
