/*
 * The report's summary: what `collprof summary` prints (the run, then one
 * line per communicator and collective), with links to the matrices.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "file_names.h"

/* A manifest string: its first line only (an MPI version string has
 * several; the first names the library). */
static void first_line(FILE *f, const char *s, size_t size)
{
    size_t n = strnlen(s, size);
    const char *nl = memchr(s, '\n', n);
    report_textn(f, s, nl ? (size_t)(nl - s) : n);
}

static void field(FILE *f, const char *label, const char *value, size_t size)
{
    report_printf(f, "<dt>%s</dt><dd>", label);
    first_line(f, value, size);
    report_printf(f, "</dd>\n");
}

static void run_fields(const report_ctx *c)
{
    FILE *f = c->out;
    const cp_profile *p = c->p;
    size_t nsend = 0;
    for (size_t i = 0; i < p->nfiles; i++)
        nsend += p->files[i].direction == CP_SEND;
    report_printf(f, "<dl class=\"run\">\n");
    if (p->has_manifest) {
        const cp_manifest *m = &p->manifest;
        report_printf(f, "<dt>manifest</dt><dd>" CP_FILE_MANIFEST "</dd>\n");
        field(f, "job", m->job, sizeof m->job);
        report_printf(f, "<dt>world size</dt><dd>%" PRId64 "</dd>\n", m->world_size);
        field(f, "MPI library", m->mpi_version, sizeof m->mpi_version);
        field(f, "collprof version", m->collprof_version, sizeof m->collprof_version);
        field(f, "start time", m->start_time, sizeof m->start_time);
        if (m->partial)
            field(f, "partial", m->partial_reason[0] ? m->partial_reason : "yes",
                  sizeof m->partial_reason);
        else
            report_printf(f, "<dt>partial</dt><dd>no</dd>\n");
    } else {
        report_printf(f, "<dt>manifest</dt><dd>none (counts files of another tool: communicator "
                         "ids are synthetic)</dd>\n");
    }
    report_printf(f, "<dt>counts files</dt><dd>%zu (%zu send, %zu receive)</dd>\n</dl>\n",
                  p->nfiles, nsend, p->nfiles - nsend);
    if (p->has_manifest && p->manifest.nconfig) {
        report_printf(f, "<details><summary>Configuration (%zu settings)</summary>\n<table>\n",
                      p->manifest.nconfig);
        for (size_t i = 0; i < p->manifest.nconfig; i++) {
            report_printf(f, "<tr><td><code>");
            report_text(f, p->manifest.config[i].key ? p->manifest.config[i].key : "");
            report_printf(f, "</code></td><td><code>");
            report_text(f, p->manifest.config[i].value ? p->manifest.config[i].value : "");
            report_printf(f, "</code></td></tr>\n");
        }
        report_printf(f, "</table>\n</details>\n");
    }
}

static int table(const report_ctx *c)
{
    FILE *f = c->out;
    report_printf(
        f, "<table class=\"summary\">\n<tr><th class=\"n\">comm</th><th class=\"n\">size</th>"
           "<th class=\"n\">lead</th><th>collective</th><th class=\"n\">calls</th>"
           "<th class=\"n\">send matrices</th><th class=\"n\">recv matrices</th>"
           "<th class=\"n\">bytes sent</th><th>most frequent send matrix</th></tr>\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const cp_summary_row *r = &c->rows[i];
        char human[32] = "";
        if (r->bytes_sent >= 1024) {
            human[0] = ' ';
            human[1] = '(';
            report_human_bytes(human + 2, sizeof human - 4, r->bytes_sent);
            strcat(human, ")");
        }
        report_printf(f, "<tr><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td>",
                      r->comm, r->size);
        if (r->lead >= 0)
            report_printf(f, "<td class=\"n\">%" PRId64 "</td>", r->lead);
        else
            report_printf(f, "<td class=\"n\">-</td>");
        report_printf(f, "<td><a href=\"#c%" PRId64 "-", r->comm);
        report_id(f, r->collective);
        report_printf(f, "\">");
        report_text(f, r->collective);
        report_printf(f,
                      "</a></td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%zu</td>"
                      "<td class=\"n\">%zu</td><td class=\"n\">%" PRId64 "%s</td><td>",
                      r->calls, r->send_matrices, r->recv_matrices, r->bytes_sent, human);
        if (r->top_send) {
            char *list = report_ranges_text(&r->top_send->calls, 40);
            if (!list)
                return -1;
            report_printf(f, "%" PRId64 " call%s (%s)", r->top_send_calls,
                          r->top_send_calls == 1 ? "" : "s", list);
            free(list);
        } else {
            report_printf(f, "-");
        }
        report_printf(f, "</td></tr>\n");
    }
    report_printf(f, "</table>\n");
    return 0;
}

int report_section_summary(const report_ctx *c)
{
    run_fields(c);
    if (c->nrows == 0) {
        report_printf(c->out, "<p>No collective calls recorded.</p>\n");
        return 0;
    }
    report_printf(c->out,
                  "<p class=\"note\">One line per communicator and collective, as "
                  "<code>collprof summary</code> prints them. <i>Bytes sent</i> is what the send "
                  "arguments ask to move over all calls (a single count that goes to every peer, "
                  "as Alltoall&#39;s, counts once per peer).</p>\n");
    return table(c);
}
