/*
 * The report's bytes per rank: for each communicator, what each rank's
 * arguments ask to send and to receive, over all its collectives and calls.
 *
 * The send side follows `collprof summary`'s "bytes sent" rule (a single
 * count that goes to every peer counts once per peer; other single counts
 * once), so the bars of a communicator add up to its summary lines.  The
 * receive side applies the same rule to receive counts.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "report.h"

__extension__ typedef __int128 i128;

/* How many peers a single count of rank r goes to / comes from. */
static int64_t peers(const cp_comm_info *ci, const cp_block *b, int dir, int64_t r)
{
    if (ci && ci->neighbors && cp_collective_rows_vary(b->collective) && r < ci->size)
        return (int64_t)(dir == CP_SEND ? ci->neighbors[r].ndestinations
                                        : ci->neighbors[r].nsources);
    if (ci && ci->remote_members.n)
        return cp_ranges_count(&ci->remote_members);
    return b->nranks;
}

static void add_block(i128 *acc, int64_t n, const cp_comm_info *ci, const cp_block *b, int dir)
{
    bool per_peer = report_single_count_per_peer(b->collective, dir);
    i128 ncalls = cp_ranges_count(&b->calls);
    int64_t unit = b->counts_in_bytes ? 1 : b->dtsize;
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        i128 sum = 0;
        for (size_t k = 0, n_items = cp_row_nitems(row); k < n_items; k++)
            if (row->counts[k] > 0 && sum < INT64_MAX)
                sum += (i128)row->counts[k] * unit; /* < 2^126: no overflow */
        if (sum > INT64_MAX)
            sum = INT64_MAX;
        for (size_t k = 0; k < row->ranks.n; k++)
            for (int64_t r = row->ranks.v[k].lo; r <= row->ranks.v[k].hi && r < n; r++) {
                i128 v = row->len == 1 && per_peer ? sum * peers(ci, b, dir, r) : sum;
                if (v > INT64_MAX)
                    v = INT64_MAX;
                acc[r] += v * ncalls;
                if (acc[r] > INT64_MAX)
                    acc[r] = INT64_MAX;
            }
    }
}

/* "total 192 bytes (192 B); per rank min 48 (rank 1), max 96 (rank 0)" */
static void stats_line(FILE *f, const char *what, const int64_t *v, int64_t n)
{
    i128 total = 0;
    int64_t lo = 0, hi = 0;
    for (int64_t r = 0; r < n; r++) {
        total += v[r];
        lo = v[r] < v[lo] ? r : lo;
        hi = v[r] > v[hi] ? r : hi;
    }
    int64_t t = total > INT64_MAX ? INT64_MAX : (int64_t)total;
    char ht[32], hl[32], hh[32];
    report_human_bytes(ht, sizeof ht, t);
    report_human_bytes(hl, sizeof hl, v[lo]);
    report_human_bytes(hh, sizeof hh, v[hi]);
    report_printf(f,
                  "<li>%s: %" PRId64 " bytes in all (%s); per rank from %s (rank %" PRId64
                  ") to %s (rank %" PRId64 ")</li>\n",
                  what, t, ht, hl, lo, hh, hi);
}

static int communicator(const report_ctx *c, const cp_summary_row *r)
{
    FILE *f = c->out;
    const cp_profile *p = c->p;
    const cp_comm_info *ci = cp_reader_manifest_comm(p, r->comm);
    int64_t n = r->size > 0 ? r->size : 1;
    bool has_recv = false;
    for (size_t i = 0; i < p->nfiles; i++)
        for (size_t k = 0; k < p->files[i].nblocks; k++)
            if (p->files[i].blocks[k].comm_id == r->comm) {
                int64_t nr = p->files[i].blocks[k].nranks;
                n = nr > n ? nr : n;
                has_recv |= p->files[i].direction == CP_RECV;
            }
    i128 *acc[2] = {calloc((size_t)n, sizeof(i128)), calloc((size_t)n, sizeof(i128))};
    int64_t *v[2] = {calloc((size_t)n, sizeof(int64_t)), calloc((size_t)n, sizeof(int64_t))};
    int rc = -1;
    if (!acc[0] || !acc[1] || !v[0] || !v[1])
        goto out;
    for (size_t i = 0; i < p->nfiles; i++)
        for (size_t k = 0; k < p->files[i].nblocks; k++)
            if (p->files[i].blocks[k].comm_id == r->comm)
                add_block(acc[p->files[i].direction == CP_RECV], n, ci,
                          &p->files[i].blocks[k], p->files[i].direction);
    bool any = false;
    for (int d = 0; d < 2; d++)
        for (int64_t x = 0; x < n; x++) {
            v[d][x] = (int64_t)acc[d][x];
            any |= v[d][x] != 0;
        }
    report_printf(f, "<h3 id=\"bytes-%" PRId64 "\">Communicator %" PRId64 "</h3>\n", r->comm,
                  r->comm);
    if (!any) {
        report_printf(f, "<p>No bytes: its collectives pass no counts, or only zeros.</p>\n");
        rc = 0;
        goto out;
    }
    report_printf(f, "<ul>\n");
    stats_line(f, "Sent", v[0], n);
    if (has_recv)
        stats_line(f, "Received", v[1], n);
    report_printf(f, "</ul>\n<figure id=\"bytes-c%" PRId64 "\">\n", r->comm);
    report_bars bars = {
        .n = n, .sent = v[0], .received = has_recv ? v[1] : NULL, .max_groups = c->opt->max_cells};
    report_bars_svg(f, &bars);
    report_printf(f,
                  "<p class=\"info\"></p>\n<figcaption>Bytes per rank of communicator %" PRId64
                  ", over all its collectives and calls.</figcaption>\n</figure>\n",
                  r->comm);
    rc = 0;
out:
    free(acc[0]);
    free(acc[1]);
    free(v[0]);
    free(v[1]);
    return rc;
}

int report_section_bytes(const report_ctx *c)
{
    report_printf(
        c->out, "<p class=\"note\">What each rank&#39;s arguments ask to send and to receive, "
                "summed over every collective and call of its communicator (ranks are "
                "communicator ranks). A single count that goes to every peer (Alltoall, "
                "Allgather, ...) counts once per peer, any other single count (a reduction&#39;s "
                "contribution, a Bcast buffer) once, as in <code>collprof summary</code>: the sent "
                "bytes of a communicator add up to its <i>bytes sent</i>.</p>\n");
    for (size_t i = 0; i < c->nrows;) {
        if (communicator(c, &c->rows[i]) < 0)
            return -1;
        size_t j = i;
        while (j < c->nrows && c->rows[j].comm == c->rows[i].comm)
            j++;
        i = j;
    }
    return 0;
}
