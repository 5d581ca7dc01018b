/*
 * One heat-map figure of the matrices section: the picture (heatmap.c), the
 * hover line, and a caption saying which calls it is and how its rows were
 * placed (the REPORT_NOTE_* of grid.c, in words).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"

static void caption_notes(FILE *f, const report_grid *g, const cp_block *b, int dir)
{
    bool recv = dir == CP_RECV;
    if (g->tr > 1 || g->tc > 1)
        report_printf(f,
                      " <b>Aggregated</b>: %" PRId64 " &times; %" PRId64 " ranks drawn as %zu "
                      "&times; %zu cells; a cell sums the counts and bytes of %" PRId64
                      " &times; %" PRId64 " ranks (its <code>data-sender</code> and "
                      "<code>data-receiver</code> give the rank ranges).",
                      g->nsenders, g->nreceivers, g->rows, g->cols, g->tr, g->tc);
    if (g->notes & REPORT_NOTE_ROOTED) {
        report_printf(f,
                      " Rooted at rank %" PRId64 ": only the root&#39;s row and column can hold "
                      "counts.",
                      b->root);
        if ((g->notes & REPORT_NOTE_SINGLE) && report_root_side(b->collective, dir))
            report_printf(f, " The root&#39;s single count %s every rank%s.",
                          recv ? "comes from" : "goes to",
                          report_root_skips_itself(b->collective) ? " but itself" : "");
        else if (g->notes & REPORT_NOTE_SINGLE)
            report_printf(f, " Each rank&#39;s single count %s the root.",
                          recv ? "comes from" : "goes to");
    } else if (g->notes & REPORT_NOTE_SINGLE) {
        report_printf(f,
                      " Ranks that pass a single count (one value, not one per peer) have it "
                      "drawn in every cell of their %s: the count they pass for every peer (for "
                      "a reduction, their contribution).",
                      recv ? "column" : "row");
    }
    if (g->notes & REPORT_NOTE_PREFIX) {
        bool self;
        report_single_count_reach(b->collective, dir, &self);
        report_printf(
            f, " A prefix reduction: %s",
            recv ? "a rank&#39;s single count is drawn in its column, from every lower rank"
                 : "a rank&#39;s single count is drawn in its row, towards every higher rank");
        report_printf(f, "%s.", self ? " and itself" : "");
    }
    if (g->notes & REPORT_NOTE_NEIGHBORS)
        report_printf(f,
                      " Neighbourhood rows are placed through the manifest&#39;s neighbour lists "
                      "(the k-th count of a rank goes to its k-th %s).",
                      recv ? "in-neighbour" : "out-neighbour");
    if (g->notes & REPORT_NOTE_AS_GIVEN)
        report_printf(f,
                      " Neighbourhood rows are drawn <b>as given</b>: column k is the rank&#39;s "
                      "k-th %s in MPI&#39;s order, not a rank, because %s.",
                      recv ? "in-neighbour" : "out-neighbour",
                      g->notes & REPORT_NOTE_LISTS_DIFFER
                          ? "the rows do not have the degrees of the manifest&#39;s neighbour "
                            "lists (see <code>collprof check</code>)"
                          : "there are no neighbour lists for this communicator (no manifest, or "
                            "not a topology communicator)");
    if (g->notes & REPORT_NOTE_INTERCOMM)
        report_printf(f, " Intercommunicator: the %s are ranks of the remote group.",
                      recv ? "senders" : "receivers");
    if (g->notes & REPORT_NOTE_IGNORED)
        report_printf(f, " Some counts lie outside the matrix and are not drawn "
                         "(<code>collprof check</code> reports them).");
}

int report_figure(const report_ctx *c, const char *collective, const cp_block *b, int dir,
                  const report_grid *g, report_figure_place at)
{
    FILE *f = c->out;
    bool recv = dir == CP_RECV;
    int64_t ncalls = cp_ranges_count(&b->calls);
    char *calls = report_ranges_text(&b->calls, 60);
    if (!calls)
        return -1;
    report_printf(f, "<figure id=\"m-c%" PRId64 "-", b->comm_id);
    report_id(f, collective);
    report_printf(f, "-%s-%zu\">\n", recv ? "recv" : "send", at.k);
    bool inter = g->notes & REPORT_NOTE_INTERCOMM;
    report_heatmap_labels l = {
        .row_axis = g->by_index     ? (recv ? "receiver rank" : "sender rank")
                    : inter && recv ? "sender rank (remote group)"
                                    : "sender rank",
        .col_axis = g->by_index      ? (recv ? "in-neighbour position" : "out-neighbour position")
                    : inter && !recv ? "receiver rank (remote group)"
                                     : "receiver rank",
        .row_attr = g->by_index && recv ? "receiver" : "sender",
        .col_attr = g->by_index ? "neighbor" : "receiver",
    };
    report_heatmap_svg(f, g, &l);
    report_printf(f, "<p class=\"info\"></p>\n<figcaption><b>");
    report_text(f, collective);
    report_printf(f, ", %s matrix %zu of %zu</b>: call%s %s (%" PRId64 " call%s)",
                  recv ? "receive" : "send", at.k, at.total, ncalls == 1 ? "" : "s", calls, ncalls,
                  ncalls == 1 ? "" : "s");
    if (b->counts_in_bytes)
        report_printf(f,
                      ", counts in bytes (per-peer datatypes, or datatypes of different sizes).");
    else
        report_printf(f, ", counts of %" PRId64 "-byte elements.", b->dtsize);
    if (recv && !g->by_index)
        report_printf(f, " Receive counts are drawn from sender to receiver: rank i&#39;s count "
                         "for peer j is the cell (sender j, receiver i).");
    caption_notes(f, g, b, dir);
    if (at.coarser)
        report_printf(f, " Drawn coarser than the other maps: the report&#39;s cell budget is "
                         "nearly spent.");
    report_printf(f, "</figcaption>\n</figure>\n");
    free(calls);
    c->stats->heatmaps++;
    return 0;
}

