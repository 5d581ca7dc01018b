/*
 * The numbers of `collprof summary`: one row per (communicator, collective).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

static int64_t sat(cp_i128 v)
{
    return v > (cp_i128)INT64_MAX ? INT64_MAX : v < 0 ? 0 : (int64_t)v;
}

int64_t cp_block_call_bytes(const cp_block *b)
{
    cp_i128 total = 0;
    for (size_t r = 0; r < b->nrows; r++) {
        cp_i128 row = 0;
        for (size_t k = 0; k < b->rows[r].len; k++) {
            row += cp_reader_bytes(b, b->rows[r].counts[k]);
            if (row > (cp_i128)INT64_MAX)
                return INT64_MAX;
        }
        total += row * cp_ranges_count(&b->rows[r].ranks);
        if (total > (cp_i128)INT64_MAX)
            return INT64_MAX;
    }
    if (b->row_len == 1 && b->root < 0 && b->nranks > 1)
        total *= b->nranks;
    return sat(total);
}

static int64_t first_call(const cp_block *b)
{
    return b->calls.n ? b->calls.v[0].lo : INT64_MAX;
}

static void fill_row(const cp_profile *p, const cp_reader_entry *e, size_t n, cp_summary_row *row,
                     cp_ranges *calls, int *rc)
{
    const cp_block *b0 = e[0].b;
    const cp_comm_info *ci = cp_reader_manifest_comm(p, b0->comm_id);
    memset(row, 0, sizeof *row);
    row->comm = b0->comm_id;
    snprintf(row->collective, sizeof row->collective, "%s", b0->collective);
    row->size = ci ? ci->size : b0->comm_size >= 0 ? b0->comm_size : b0->nranks;
    row->lead = ci ? ci->lead
                   : b0->comm_world_ranks.n ? b0->comm_world_ranks.v[0].lo : e[0].f->lead_rank;
    calls->n = 0;
    cp_i128 bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const cp_block *b = e[i].b;
        for (size_t r = 0; r < b->calls.n; r++)
            if (cp_ranges_add_range(calls, b->calls.v[r].lo, b->calls.v[r].hi) < 0)
                *rc = -1;
        if (e[i].f->direction != CP_SEND) {
            row->recv_matrices++;
            continue;
        }
        row->send_matrices++;
        int64_t ncalls = cp_ranges_count(&b->calls);
        bytes += (cp_i128)ncalls * cp_block_call_bytes(b);
        if (bytes > (cp_i128)INT64_MAX)
            bytes = INT64_MAX;
        if (!row->top_send || ncalls > row->top_send_calls ||
            (ncalls == row->top_send_calls && first_call(b) < first_call(row->top_send))) {
            row->top_send = b;
            row->top_send_calls = ncalls;
        }
    }
    row->bytes_sent = (int64_t)bytes;
    row->calls = cp_ranges_count(calls);
}

int cp_profile_summarize(const cp_profile *p, cp_summary_row **rows, size_t *nrows,
                         cp_error *err)
{
    size_t n = 0;
    *rows = NULL;
    *nrows = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        n += p->files[f].nblocks;
    if (n == 0)
        return 0;
    cp_reader_entry *e;
    if (cp_reader_sorted_entries(p, &e, &n) < 0)
        return cp_error_set(err, "%s: out of memory", p->dir);
    cp_summary_row *out = calloc(n, sizeof *out);
    if (!out) {
        free(e);
        return cp_error_set(err, "%s: out of memory", p->dir);
    }
    cp_ranges calls = {0};
    int rc = 0;
    size_t nout = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cp_reader_same_group(&e[i], &e[j]))
            j++;
        fill_row(p, e + i, j - i, &out[nout++], &calls, &rc);
        i = j;
    }
    cp_ranges_free(&calls);
    free(e);
    if (rc < 0) {
        free(out);
        return cp_error_set(err, "%s: out of memory", p->dir);
    }
    *rows = out;
    *nrows = nout;
    return 0;
}
