/*
 * `collprof report`: one self-contained HTML page (inline CSS, SVG and a few
 * lines of script; nothing fetched) describing an output directory.
 *
 * The page is a list of sections (page.c); each section is one writer
 * function in its own file.  Adding a section is one writer and one line in
 * that list.
 */
#ifndef COLLPROF_REPORT_H
#define COLLPROF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collprof/reader.h"

/* ------------------------------------------------------------ the page */

typedef struct report_options {
    size_t max_matrices; /* heat maps per communicator, collective and side; 0: all */
    size_t max_cells;    /* cells along a heat map side; larger matrices are aggregated */
    size_t cell_budget;  /* cells of all heat maps together (a cell is ~200 bytes) */
    int64_t nodes;       /* the placement section's nodes (--nodes); 0: the run's own hosts */
} report_options;

/* The two colours of the bar charts: the page's style (html.c) draws
 * with them, and the captions that speak of a colour name it from here.
 * Class "s": sent, waiting; class "r": received, time in collectives. */
#define REPORT_BAR_S_FILL "#3b6fb6"
#define REPORT_BAR_S_NAME "blue"
#define REPORT_BAR_R_FILL "#e08a2c"
#define REPORT_BAR_R_NAME "orange"

#define REPORT_DEFAULT_MAX_MATRICES 8
#define REPORT_DEFAULT_MAX_CELLS 128
/* About 18 MB of cells: five full 128 x 128 maps and more.  Past it, maps
 * are drawn coarser, then not at all, so that many large matrices cannot
 * make a file too large to open. */
#define REPORT_DEFAULT_CELL_BUDGET 90000
/* The coarsest picture still worth drawing: 16 x 16 cells. */
#define REPORT_MIN_SIDE 16

/* What was written, for the command's one-line confirmation. */
typedef struct report_stats {
    size_t heatmaps;     /* heat maps drawn */
    size_t not_drawn;    /* matrices left out by max_matrices or the cell budget */
    size_t cells;        /* cells drawn so far (against opt->cell_budget) */
    size_t communicators;
} report_stats;

/* Everything a section writer sees. */
typedef struct report_ctx {
    FILE *out;
    const cp_profile *p;
    const report_options *opt;
    const cp_summary_row *rows; /* cp_profile_summarize: one per (comm, collective) */
    size_t nrows;
    report_stats *stats;
} report_ctx;

/* One section of the page: <section id="id"><h2>title</h2> ... */
typedef struct report_section {
    const char *id;
    const char *title;
    bool (*applies)(const report_ctx *c); /* NULL: always; false: left out of the page */
    int (*write)(const report_ctx *c);    /* the body; 0, or -1 when out of memory */
} report_section;

/* The whole page.  Returns 0, or -1 with err set (out of memory, write
 * error on out). */
int report_write_report(FILE *out, const cp_profile *p, const report_options *opt,
                        report_stats *stats, cp_error *err);

/* The section writers (one file each). */
int report_section_findings(const report_ctx *c); /* findings.c */
/* Under the findings: waiting per rank, time per call site, the share of
 * collectives over the run (findings_charts.c; timed runs only). */
void report_findings_charts(const report_ctx *c);
int report_section_summary(const report_ctx *c);  /* summary.c */
int report_section_matrices(const report_ctx *c); /* matrices.c */
int report_section_bytes(const report_ctx *c);    /* bytes.c */
int report_section_timing(const report_ctx *c);   /* timing.c */
int report_section_replay(const report_ctx *c);   /* replay.c: when replay.json is there */
int report_section_placement(const report_ctx *c); /* placement.c: --nodes, or several hosts */
bool report_has_placement(const report_ctx *c);
bool report_has_replay(const report_ctx *c);
/* tuning.c: the replay section of collprof-replay --tune's results. */
struct cp_replay;
void report_tuning(FILE *f, const struct cp_replay *r);

/* ------------------------------------------------------ html.c: output */

/* Text escaped for HTML text and attribute values (& < > " '); control
 * characters become spaces.  report_textn stops after max bytes. */
void report_text(FILE *f, const char *s);
void report_textn(FILE *f, const char *s, size_t max);
/* printf whose %s arguments are NOT escaped: for markup and numbers only. */
void report_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An id fragment: letters, digits, '-' and '_' kept, anything else '_'. */
void report_id(FILE *f, const char *s);
/* "1.5 MiB", "512 B". */
void report_human_bytes(char *buf, size_t size, int64_t bytes);
/* "950", "12.3k", "4.5M": short numbers for axes and legends. */
void report_human_count(char *buf, size_t size, int64_t v);
/* "2.5 s", "250 ms", "12.5 \u00b5s", "40 ns": three significant digits. */
void report_human_seconds(char *buf, size_t size, double s);
/* "0-7", "5": a closed range of ranks. */
void report_range(char *buf, size_t size, int64_t lo, int64_t hi);
/* A range list as text, cut after about max characters with ",...".
 * malloc'ed (NULL when out of memory). */
char *report_ranges_text(const cp_ranges *r, size_t max);

void report_page_begin(FILE *f, const char *title);
void report_page_end(FILE *f);

/* --------------------------------------------- rules.c: what counts mean */

/* A single count of this collective and direction goes to (send) / comes
 * from (receive) every peer: Alltoall, Allgather, ...  Otherwise it is one
 * contribution (a reduction's, a Bcast buffer, a Gather item).  The send
 * side is the rule of `collprof summary`'s bytes sent. */
bool report_single_count_per_peer(const char *collective, int direction);
/* Rooted collectives: in this direction, the root's single count is what it
 * sends to / receives from every rank (Bcast and Scatter send, Gather and
 * Reduce receive).  On the other side every rank's single count goes to /
 * comes from the root. */
bool report_root_side(const char *collective, int direction);
/* Which peers a single count of a non-rooted collective reaches: every
 * peer, or, for prefix reductions, the ranks after / before the rank
 * (Scan's own rank included, Exscan's not). */
enum report_reach { REPORT_REACH_ALL, REPORT_REACH_AFTER, REPORT_REACH_BEFORE };
enum report_reach report_single_count_reach(const char *collective, int direction, bool *self);
/* Bcast: the root's count goes to every OTHER rank (it has no receive row). */
bool report_root_skips_itself(const char *collective);
/* Some row of b has a count (Barrier's rows are empty: nothing to draw). */
bool report_block_has_counts(const cp_block *b);

/* ---------------------------------------- grid.c: a matrix as cells */

/* How the rows of a block were placed, for the caption. */
enum {
    REPORT_NOTE_SINGLE = 1 << 0,       /* single counts spread over their peers */
    REPORT_NOTE_ROOTED = 1 << 1,       /* only the root's row and column */
    REPORT_NOTE_NEIGHBORS = 1 << 2,    /* neighbourhood rows placed through the manifest */
    REPORT_NOTE_AS_GIVEN = 1 << 3,     /* neighbourhood rows drawn as given (no usable lists) */
    REPORT_NOTE_LISTS_DIFFER = 1 << 4, /* ... because rows do not match the manifest's lists */
    REPORT_NOTE_INTERCOMM = 1 << 5,    /* peers are the remote group */
    REPORT_NOTE_IGNORED = 1 << 6,      /* counts outside the matrix (see collprof check) */
    REPORT_NOTE_PREFIX = 1 << 7,       /* Scan / Exscan: single counts to the ranks above */
};

/* A count matrix, sender rows and receiver columns, possibly aggregated:
 * cell (i, j) sums the counts from the senders of row tile i to the
 * receivers of column tile j. */
typedef struct report_grid {
    int64_t nsenders, nreceivers; /* ranks along each axis */
    int64_t tr, tc;               /* ranks per cell along rows / columns */
    size_t rows, cols;            /* cells */
    int64_t *count;               /* rows * cols sums, saturated at INT64_MAX */
    int64_t unit;                 /* bytes per count: datatype size, 1 in bytes */
    bool by_index;                /* columns are neighbour positions, not ranks */
    unsigned notes;               /* REPORT_NOTE_* */
} report_grid;

/* Build the grid of block b (direction: its file's).  The receive side is
 * transposed, so that both sides read sender -> receiver (except rows drawn
 * as given, which stay rank -> neighbour position).  Returns 0 or -1 (no
 * memory). */
int report_grid_build(report_grid *g, const cp_profile *p, const cp_block *b, int direction,
                      size_t max_cells);
void report_grid_free(report_grid *g);
/* Same shape and the same bytes in every cell. */
bool report_grid_same_picture(const report_grid *a, const report_grid *b);
/* Ranks of row tile i / column tile j. */
void report_grid_row_ranks(const report_grid *g, size_t i, int64_t *lo, int64_t *hi);
void report_grid_col_ranks(const report_grid *g, size_t j, int64_t *lo, int64_t *hi);

/* ---------------------------------------- figure.c: one heat-map figure */

typedef struct report_figure_place {
    size_t k, total; /* "send matrix k of total"; k is in the figure's id */
    bool coarser;    /* drawn coarser than max_cells: the cell budget is short */
} report_figure_place;

/* <figure id="m-c<comm>-<collective>-<send|recv>-<k>">: the heat map of
 * grid g of block b, and its caption.  Returns 0 or -1 (no memory). */
int report_figure(const report_ctx *c, const char *collective, const cp_block *b, int dir,
                  const report_grid *g, report_figure_place at);

/* ------------------------------------- axis.c, heatmap.c, bars.c: SVG */

/* 1, 2, 5, 10, 20, 50 ...: the first >= x. */
int64_t report_nice_step(double x);
/* Round steps for a byte axis: 1, 2, 5 ... of the unit (B, KiB, MiB ...)
 * in which x is between 1 and 1024. */
int64_t report_nice_bytes_step(double x);
/* Rank labels along one axis of n ranks, t ranks per cell of px pixels,
 * starting at pixel `at` (x when horizontal, else y), beside the plot's
 * edge `edge` (y when horizontal, else x): before it (above, left) when
 * before, else after it (below). */
void report_axis_ticks(FILE *f, int64_t n, int64_t t, int px, bool horizontal, int at, int edge,
                       bool before);

/* A plot area: left and top edges, width and height in pixels. */
typedef struct report_plot {
    int left, top, w, h;
} report_plot;
/* What a value axis shows: whole counts, bytes (steps of a byte unit),
 * or real values (seconds, shares) labelled with a suffix. */
typedef enum { REPORT_AXIS_COUNT, REPORT_AXIS_BYTES, REPORT_AXIS_REAL } report_axis_kind;
/* The value axis of every chart: from 0 up to top_value or a little more,
 * in 4 or 5 round steps, a labelled grid line each.  Returns the pixels per
 * unit. */
double report_value_axis(FILE *f, const report_plot *pl, double top_value, report_axis_kind kind,
                         const char *suffix);

typedef struct report_heatmap_labels {
    const char *row_axis;    /* "sender rank" */
    const char *col_axis;    /* "receiver rank" */
    const char *row_attr;    /* "sender": data-sender */
    const char *col_attr;    /* "receiver" */
} report_heatmap_labels;

/* <svg> of the grid with its axes and legend, one <rect> per cell with
 * data-<row_attr>, data-<col_attr>, data-count and data-bytes and a <title>. */
void report_heatmap_svg(FILE *f, const report_grid *g, const report_heatmap_labels *l);

/* Bytes per rank: two series over n ranks (received may be NULL). */
typedef struct report_bars {
    int64_t n;
    const int64_t *sent, *received;
    size_t max_groups; /* more ranks than this are summed in groups */
} report_bars;

void report_bars_svg(FILE *f, const report_bars *b);

/* ------------------------------------ histogram.c: call durations */

/* Bins of durations (seconds): bin i counts the values in
 * [report_hist_edge(h, first + i), report_hist_edge(h, first + i + 1)).  Linear
 * bins of a round width when the values span less than a decade, else five
 * per decade (histogram.c says exactly). */
typedef struct report_hist {
    bool log;          /* edge(k) = 10^(k/5), else k * mant * 10^exp10 */
    int64_t mant;      /* 1, 2 or 5 */
    int exp10;
    int64_t first;     /* index of the first bin's lower edge */
    size_t nbins;
    uint64_t *count;
    uint64_t n;        /* values counted (those that are numbers) */
} report_hist;

/* 0, or -1 when out of memory.  Free with report_hist_free. */
int report_hist_build(report_hist *h, const double *v, size_t n);
void report_hist_free(report_hist *h);
double report_hist_edge(const report_hist *h, int64_t k);
/* <svg> of the bins: one <g> per non-empty bin with data-lo, data-hi
 * (seconds, bounds of the bin), data-count and a <title>. */
void report_hist_svg(FILE *f, const report_hist *h);

#endif
