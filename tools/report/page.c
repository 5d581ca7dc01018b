/*
 * The page of `collprof report`: a header, a table of contents, then the
 * sections of `sections[]` in order.  A new section is one writer and one
 * line here.
 */
#include <stdlib.h>
#include <string.h>

#include "collprof_config.h"
#include "report.h"

static bool has_calls(const report_ctx *c)
{
    return c->nrows > 0;
}

static bool has_timings(const report_ctx *c)
{
    return c->p->has_timings;
}

static const report_section sections[] = {
    {"findings", "Findings", NULL, report_section_findings},
    {"summary", "Summary", NULL, report_section_summary},
    {"matrices", "Communication matrices", has_calls, report_section_matrices},
    {"bytes", "Bytes per rank", has_calls, report_section_bytes},
    {"timing", "Time and waiting", has_timings, report_section_timing},
    {"replay", "Replay", report_has_replay, report_section_replay},
    {"placement", "Placement on nodes", report_has_placement, report_section_placement},
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

int report_write_report(FILE *out, const cp_profile *p, const report_options *opt,
                        report_stats *stats, cp_error *err)
{
    report_ctx c = {.out = out, .p = p, .opt = opt, .stats = stats};
    cp_summary_row *rows = NULL;
    memset(stats, 0, sizeof *stats);
    if (cp_profile_summarize(p, &rows, &c.nrows, err) < 0)
        return -1;
    c.rows = rows;

    const char *job = p->has_manifest && p->manifest.job[0] ? p->manifest.job : NULL;
    char title[512];
    snprintf(title, sizeof title, "collprof report: %.*s", 400, job ? job : p->dir);
    report_page_begin(out, title);
    report_printf(out, "<header>\n<h1>collprof report</h1>\n<p>Output directory <code>");
    report_text(out, p->dir);
    report_printf(out, "</code>%s", job ? ", job <b>" : "");
    if (job)
        report_textn(out, job, sizeof p->manifest.job);
    report_printf(out, "%s.</p>\n<nav>", job ? "</b>" : "");
    bool shown[NSECTIONS];
    for (size_t i = 0; i < NSECTIONS; i++) {
        shown[i] = !sections[i].applies || sections[i].applies(&c);
        if (shown[i])
            report_printf(out, "<a href=\"#%s\">%s</a>", sections[i].id, sections[i].title);
    }
    report_printf(out, "</nav>\n</header>\n");

    int rc = 0;
    for (size_t i = 0; rc == 0 && i < NSECTIONS; i++) {
        if (!shown[i])
            continue;
        report_printf(out, "<section id=\"%s\">\n<h2>%s</h2>\n", sections[i].id, sections[i].title);
        rc = sections[i].write(&c);
        report_printf(out, "</section>\n");
    }
    report_printf(out,
                  "<footer>Written by collprof %s (<code>collprof report</code>). "
                  "This file is self-contained: it loads nothing.</footer>\n",
                  COLLPROF_VERSION);
    report_page_end(out);
    free(rows);
    if (rc < 0)
        return cp_error_set(err, "%s: out of memory", p->dir);
    if (fflush(out) != 0 || ferror(out))
        return cp_error_set(err, "cannot write the report");
    return 0;
}
