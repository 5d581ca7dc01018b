/*
 * The report's matrices: per communicator, per collective, one heat map per
 * distinct count matrix (block), most frequent first.
 *
 * The receive side is drawn sender -> receiver like the send side; when a
 * receive matrix draws the same picture as the send matrix of its calls (a
 * consistent profile: `collprof check` verifies the transposition), it is
 * not drawn twice.  Collectives without counts (Barrier) get one line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reader_internal.h"
#include "report.h"

typedef struct entry {
    const cp_block *b;
    int dir;
    int64_t ncalls, first;
} entry;

static int by_frequency(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->dir != b->dir)
        return a->dir - b->dir;
    if (a->ncalls != b->ncalls)
        return a->ncalls > b->ncalls ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Every block of (comm, collective), send side first, most calls first. */
static entry *collect(const cp_profile *p, const cp_summary_row *r, size_t *n)
{
    size_t cap = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        cap += p->files[f].nblocks;
    entry *e = malloc((cap ? cap : 1) * sizeof *e);
    if (!e)
        return NULL;
    *n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t k = 0; k < p->files[f].nblocks; k++) {
            const cp_block *b = &p->files[f].blocks[k];
            if (b->comm_id != r->comm || strcasecmp(b->collective, r->collective) != 0)
                continue;
            e[(*n)++] = (entry){b, p->files[f].direction, cp_ranges_count(&b->calls),
                                b->calls.n ? b->calls.v[0].lo : INT64_MAX};
        }
    qsort(e, *n, sizeof *e, by_frequency);
    return e;
}

/* a within b, both sets: the first value looked up (most pairs differ
 * there), then one walk of both lists. */
static bool subset(const cp_ranges *a, const cp_ranges *b)
{
    if (a->n && !cp_ranges_contains(b, a->v[0].lo))
        return false;
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (k < b->n && b->v[k].hi < a->v[i].lo)
            k++;
        if (k == b->n || b->v[k].lo > a->v[i].lo || a->v[i].hi > b->v[k].hi)
            return false;
    }
    return true;
}

/* The calls of n entries, given as pointers (ep) or as an array (e), as one
 * list of ranges ("3-7, 12"); NULL when out of memory. */
static char *calls_list(const entry *const *ep, const entry *e, size_t n)
{
    cp_ranges calls = {0};
    for (size_t i = 0; i < n; i++)
        if (cp_ranges_append(&calls, &(ep ? ep[i] : &e[i])->b->calls) < 0) {
            cp_ranges_free(&calls);
            return NULL;
        }
    cp_ranges_normalise(&calls, false);
    char *list = report_ranges_text(&calls, 60);
    cp_ranges_free(&calls);
    return list;
}

/* "N more send matrices are not drawn (calls ...)". */
static int not_drawn(const report_ctx *c, const entry *const *e, size_t n, const char *side)
{
    if (n == 0)
        return 0;
    char *list = calls_list(e, NULL, n);
    if (!list)
        return -1;
    report_printf(c->out,
                  "<p class=\"note\">%zu more %s matri%s (calls %s) %s not drawn, to keep "
                  "the file small: the report draws ",
                  n, side, n == 1 ? "x" : "ces", list, n == 1 ? "is" : "are");
    if (c->opt->max_matrices)
        report_printf(c->out,
                      "at most %zu per collective and side (<code>--max-matrices</code>) "
                      "and ",
                      c->opt->max_matrices);
    report_printf(c->out,
                  "about %zu cells in all. <code>collprof matrix</code> prints any of "
                  "them.</p>\n",
                  c->opt->cell_budget);
    free(list);
    c->stats->not_drawn += n;
    return 0;
}

static size_t isqrt(size_t v)
{
    size_t r = 0;
    while ((r + 1) * (r + 1) <= v)
        r++;
    return r;
}

/* The grid of e within what is left of the cell budget: coarser when the
 * usual picture does not fit.  Returns 1 (built; *coarser set), 0 (does not
 * fit at all) or -1 (no memory). */
static int budgeted_grid(const report_ctx *c, const entry *e, report_grid *g, bool *coarser)
{
    size_t left = c->opt->cell_budget > c->stats->cells ? c->opt->cell_budget - c->stats->cells : 0;
    *coarser = false;
    if (report_grid_build(g, c->p, e->b, e->dir, c->opt->max_cells) < 0)
        return -1;
    if (g->rows * g->cols <= left)
        return 1;
    report_grid_free(g);
    size_t side = isqrt(left);
    if (side < REPORT_MIN_SIDE)
        return 0;
    *coarser = true;
    return report_grid_build(g, c->p, e->b, e->dir, side) < 0 ? -1 : 1;
}

/* Draw up to max_matrices of e[0..n), within the cell budget. */
static int draw(const report_ctx *c, const cp_summary_row *r, const entry *e, size_t n)
{
    size_t max = c->opt->max_matrices ? c->opt->max_matrices : n;
    const entry **skipped = malloc(n * sizeof *skipped);
    if (!skipped)
        return -1;
    size_t nskipped = 0, drawn = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        report_grid g;
        bool coarser = false;
        int fits = drawn < max ? budgeted_grid(c, &e[i], &g, &coarser) : 0;
        if (fits < 0) {
            rc = -1;
        } else if (fits == 0) {
            skipped[nskipped++] = &e[i];
        } else {
            rc = report_figure(c, r->collective, e[i].b, e[i].dir, &g,
                               (report_figure_place){++drawn, n, coarser});
            c->stats->cells += g.rows * g.cols;
            report_grid_free(&g);
        }
    }
    if (rc == 0)
        rc = not_drawn(c, skipped, nskipped, e[0].dir == CP_RECV ? "receive" : "send");
    free(skipped);
    return rc;
}

/* The receive blocks that draw the same picture as the send block of
 * their calls are moved to the end of recv[] (*same of them). */
static int drop_same_as_send(const report_ctx *c, const entry *send, size_t nsend, entry *recv,
                             size_t nrecv, size_t *same)
{
    size_t keep = 0;
    entry *moved = malloc((nrecv ? nrecv : 1) * sizeof *moved);
    if (!moved)
        return -1;
    *same = 0;
    for (size_t i = 0; i < nrecv; i++) {
        bool dup = false;
        report_grid gr = {0};
        for (size_t k = 0; k < nsend && !dup; k++) {
            if (!subset(&recv[i].b->calls, &send[k].b->calls))
                continue;
            report_grid gs;
            if ((!gr.count &&
                 report_grid_build(&gr, c->p, recv[i].b, CP_RECV, c->opt->max_cells) < 0) ||
                report_grid_build(&gs, c->p, send[k].b, CP_SEND, c->opt->max_cells) < 0) {
                report_grid_free(&gr);
                free(moved);
                return -1;
            }
            dup = report_grid_same_picture(&gr, &gs);
            report_grid_free(&gs);
        }
        report_grid_free(&gr);
        if (dup)
            moved[(*same)++] = recv[i];
        else
            recv[keep++] = recv[i];
    }
    memcpy(recv + keep, moved, *same * sizeof *moved);
    free(moved);
    return 0;
}

static int same_note(const report_ctx *c, const entry *e, size_t n)
{
    char *list = calls_list(NULL, e, n);
    if (!list)
        return -1;
    report_printf(c->out,
                  "<p class=\"note\">Receive side of call%s %s: the receive counts draw the same "
                  "picture as the send counts (every rank receives what its peers send), so it is "
                  "not repeated.</p>\n",
                  n == 1 && cp_ranges_count(&e[0].b->calls) == 1 ? "" : "s", list);
    free(list);
    return 0;
}

static int collective(const report_ctx *c, const cp_summary_row *r)
{
    FILE *f = c->out;
    report_printf(f, "<h4 id=\"c%" PRId64 "-", r->comm);
    report_id(f, r->collective);
    report_printf(f, "\">");
    report_text(f, r->collective);
    report_printf(f, " <small>(%" PRId64 " call%s)</small></h4>\n", r->calls,
                  r->calls == 1 ? "" : "s");
    size_t n = 0;
    entry *e = collect(c->p, r, &n);
    if (!e)
        return -1;
    bool any = false;
    for (size_t i = 0; i < n && !any; i++)
        any = report_block_has_counts(e[i].b);
    if (!any) {
        report_printf(f, "<p>No counts to draw: ");
        report_text(f, r->collective);
        report_printf(f, " passes none. %" PRId64 " call%s recorded.</p>\n", r->calls,
                      r->calls == 1 ? "" : "s");
        free(e);
        return 0;
    }
    size_t nsend = 0;
    while (nsend < n && e[nsend].dir == CP_SEND)
        nsend++;
    size_t nrecv = n - nsend, same = 0;
    int rc = nsend ? draw(c, r, e, nsend) : 0;
    if (rc == 0)
        rc = drop_same_as_send(c, e, nsend, e + nsend, nrecv, &same);
    if (rc == 0 && same)
        rc = same_note(c, e + n - same, same);
    if (rc == 0 && nrecv > same)
        rc = draw(c, r, e + nsend, nrecv - same);
    free(e);
    return rc;
}

static void describe_comm(const report_ctx *c, const cp_summary_row *r)
{
    FILE *f = c->out;
    const cp_comm_info *ci = cp_reader_manifest_comm(c->p, r->comm);
    report_printf(
        f, "<h3 id=\"comm-%" PRId64 "\">Communicator %" PRId64 "</h3>\n<p>%" PRId64 " rank%s",
        r->comm, r->comm, r->size, r->size == 1 ? "" : "s");
    if (r->lead >= 0)
        report_printf(f, ", led by world rank %" PRId64, r->lead);
    if (ci) {
        char *m = report_ranges_text(&ci->members, 120);
        if (m)
            report_printf(f, "; world ranks %s", m);
        free(m);
        if (ci->remote_members.n) {
            m = report_ranges_text(&ci->remote_members, 120);
            if (m)
                report_printf(f, "; intercommunicator, remote group: world ranks %s", m);
            free(m);
        }
        if (ci->neighbors)
            report_printf(f, "; topology with neighbour lists in the manifest");
    } else if (!c->p->has_manifest) {
        report_printf(f, " (no manifest: the communicator id is synthetic)");
    }
    report_printf(f, ".</p>\n");
}

int report_section_matrices(const report_ctx *c)
{
    report_printf(c->out,
                  "<p class=\"note\">One heat map per distinct count matrix, most frequent first: "
                  "rows are senders, columns receivers (communicator ranks), colour the count on a "
                  "log scale; grey cells are zero. Hover a cell for its ranks, count and bytes. "
                  "Matrices of more than %zu ranks are aggregated.</p>\n",
                  c->opt->max_cells);
    for (size_t i = 0; i < c->nrows;) {
        size_t j = i;
        describe_comm(c, &c->rows[i]);
        c->stats->communicators++;
        for (; j < c->nrows && c->rows[j].comm == c->rows[i].comm; j++)
            if (collective(c, &c->rows[j]) < 0)
                return -1;
        i = j;
    }
    return 0;
}
