/*
 * The report's placement section (`collprof report --nodes N`, or the run's
 * own hosts when it ran on several): the bytes between nodes of the run's
 * own layout, the launchers' block and round-robin layouts and the proposal
 * of `collprof placement` (tools/placement/, docs/placement.md), and the
 * node-to-node heat maps of the layout the run had and of the proposal.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "report.h"

/* The nodes to place on: --nodes, else the run's own hosts when several. */
static int64_t nodes_of(const report_ctx *c)
{
    if (c->opt->nodes > 0)
        return c->opt->nodes;
    int64_t hosts = cp_placement_run_hosts(c->p);
    return hosts > 1 ? hosts : 0;
}

bool report_has_placement(const report_ctx *c)
{
    return nodes_of(c) > 0 && c->nrows > 0;
}

/* Node-to-node bytes of layout l as a grid (tiles of nodes when more nodes
 * than the heat map's cells). */
static int node_grid(const cp_rank_graph *g, const cp_layout *l, size_t max_cells,
                     report_grid *grid)
{
    memset(grid, 0, sizeof *grid);
    int64_t n = l->nnodes, t = (n + (int64_t)max_cells - 1) / (int64_t)max_cells;
    t = t < 1 ? 1 : t;
    size_t side = (size_t)((n + t - 1) / t);
    grid->nsenders = grid->nreceivers = n;
    grid->tr = grid->tc = t;
    grid->rows = grid->cols = side;
    grid->unit = 1;
    grid->count = calloc(side * side, sizeof *grid->count);
    if (!grid->count)
        return -1;
    for (size_t i = 0; i < g->nedges; i++) {
        int64_t a = l->node[g->edges[i].a], b = l->node[g->edges[i].b];
        if (a == b)
            continue;
        uint64_t bytes = g->edges[i].bytes; /* both directions, drawn in both cells */
        int64_t *x = &grid->count[(size_t)(a / t) * side + (size_t)(b / t)];
        int64_t *y = &grid->count[(size_t)(b / t) * side + (size_t)(a / t)];
        *x = (uint64_t)*x + bytes > INT64_MAX ? INT64_MAX : (int64_t)((uint64_t)*x + bytes);
        *y = (uint64_t)*y + bytes > INT64_MAX ? INT64_MAX : (int64_t)((uint64_t)*y + bytes);
    }
    return 0;
}

static void heatmap(const report_ctx *c, const cp_rank_graph *g, const cp_layout *l,
                    const char *caption)
{
    report_grid grid;
    if (node_grid(g, l, c->opt->max_cells, &grid))
        return;
    static const report_heatmap_labels labels = {"node", "node", "node-a", "node-b"};
    report_printf(c->out, "<figure class=\"placement\">\n");
    report_heatmap_svg(c->out, &grid, &labels);
    report_printf(c->out, "<figcaption>");
    report_text(c->out, caption);
    report_printf(c->out, "</figcaption>\n</figure>\n");
    c->stats->heatmaps++;
    report_grid_free(&grid);
}

int report_section_placement(const report_ctx *c)
{
    cp_placement pl;
    cp_error err = {{0}};
    int64_t nodes = nodes_of(c);
    if (cp_placement_make(c->p, nodes, 0, &pl, &err)) {
        report_printf(c->out, "<p>No placement: ");
        report_text(c->out, err.msg);
        report_printf(c->out, ".</p>\n");
        return 0;
    }
    char a[48], b[48];
    report_printf(c->out,
                  "<p>The bytes the run's collectives moved between each pair of ranks (the MPI "
                  "standard's data movement; reductions, scans and barriers left out: "
                  "docs/placement.md), on %" PRId64 " nodes of at most %" PRId64
                  " ranks, as <code>collprof placement DIR --nodes %" PRId64 "</code> computes "
                  "them: exact, from the matrices.</p>\n",
                  pl.nnodes, pl.cap, pl.nnodes);
    report_printf(c->out, "<table><tr><th>layout</th><th>bytes between nodes</th>"
                          "<th>of the graph's %s</th></tr>\n",
                  cp_u128_str(pl.g.total, b, sizeof b));
    const struct {
        const cp_placed *x;
        const char *name;
    } rows[] = {{&pl.own, "the run's own hosts"},
                {&pl.block, "block (consecutive ranks per node)"},
                {&pl.round_robin, "round-robin"},
                {&pl.proposal, "proposal"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].x->present)
            continue;
        report_printf(c->out, "<tr><td>");
        report_text(c->out, rows[i].name);
        if (rows[i].x == &pl.proposal) {
            report_printf(c->out, " (");
            report_text(c->out, pl.proposal_by);
            report_printf(c->out, ")");
        }
        report_printf(c->out, "</td><td class=\"num\">%s</td><td class=\"num\">%.1f%%</td></tr>\n",
                      cp_u128_str(rows[i].x->cut, a, sizeof a),
                      pl.g.total ? 100.0 * (double)rows[i].x->cut / (double)pl.g.total : 0.0);
    }
    report_printf(c->out, "</table>\n");
    const cp_placed *now = pl.own.present && pl.own.l.nnodes > 1 ? &pl.own : &pl.block;
    char caption[256];
    snprintf(caption, sizeof caption, "Bytes between nodes now (%s): %s",
             now == &pl.own ? "the run's own hosts" : "the block layout",
             cp_u128_str(now->cut, a, sizeof a));
    heatmap(c, &pl.g, &now->l, caption);
    snprintf(caption, sizeof caption, "Bytes between nodes proposed: %s",
             cp_u128_str(pl.proposal.cut, a, sizeof a));
    heatmap(c, &pl.g, &pl.proposal.l, caption);
    cp_placement_free(&pl);
    return 0;
}
