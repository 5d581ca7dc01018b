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

/* peers_of(r): how many peers a single count of rank r's row goes to. */
static int64_t call_bytes(const cp_block *b, int64_t (*peers_of)(const void *, int64_t),
                          const void *ctx)
{
    bool per_peer = cp_collective_single_count_per_peer(b->collective);
    cp_i128 total = 0;
    for (size_t r = 0; r < b->nrows && !b->invalid; r++) { /* invalid: nothing moved */
        const cp_row *row = &b->rows[r];
        if (row->err)
            continue; /* the MPI library refused these ranks' call */
        cp_i128 sum = 0;
        for (size_t k = 0, n = cp_row_nitems(row); k < n && sum <= (cp_i128)INT64_MAX; k++)
            sum += cp_reader_bytes(b, row->counts[k]);
        if (sum > (cp_i128)INT64_MAX)
            return INT64_MAX; /* the result saturates anyway */
        for (size_t i = 0; i < row->ranks.n; i++)
            for (int64_t rank = row->ranks.v[i].lo; rank <= row->ranks.v[i].hi; rank++) {
                total += row->len == 1 && per_peer ? sum * peers_of(ctx, rank) : sum;
                if (total > (cp_i128)INT64_MAX)
                    return INT64_MAX;
            }
    }
    return sat(total);
}

static int64_t nranks_of(const void *ctx, int64_t rank)
{
    (void)rank;
    return ((const cp_block *)ctx)->nranks;
}

int64_t cp_block_call_bytes(const cp_block *b)
{
    return call_bytes(b, nranks_of, b);
}

/* With the manifest: the remote group's size on an intercommunicator, each
 * rank's out-degree in a topology. */
struct peers_ctx {
    const cp_block *b;
    const cp_comm_info *ci;
};

static int64_t peers_from_manifest(const void *ctx, int64_t rank)
{
    const struct peers_ctx *c = ctx;
    if (c->ci && c->ci->neighbors && cp_collective_rows_vary(c->b->collective) &&
        rank < c->ci->size)
        return (int64_t)c->ci->neighbors[rank].ndestinations;
    if (c->ci && c->ci->remote_members.n)
        return cp_ranges_count(&c->ci->remote_members);
    return c->b->nranks;
}

int64_t cp_profile_call_bytes(const cp_profile *p, const cp_block *b)
{
    struct peers_ctx ctx = {b, cp_reader_manifest_comm(p, b->comm_id)};
    return call_bytes(b, peers_from_manifest, &ctx);
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
        if (cp_ranges_append(calls, &b->calls) < 0)
            *rc = -1;
        if (e[i].f->direction != CP_SEND) {
            row->recv_matrices++;
            continue;
        }
        row->send_matrices++;
        int64_t ncalls = cp_ranges_count(&b->calls);
        bytes += (cp_i128)ncalls * cp_profile_call_bytes(p, b);
        if (bytes > (cp_i128)INT64_MAX)
            bytes = INT64_MAX;
        if (!row->top_send || ncalls > row->top_send_calls ||
            (ncalls == row->top_send_calls && first_call(b) < first_call(row->top_send))) {
            row->top_send = b;
            row->top_send_calls = ncalls;
        }
    }
    row->bytes_sent = (int64_t)bytes;
    cp_ranges_normalise(calls, false); /* the blocks' calls, appended: one sort */
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
