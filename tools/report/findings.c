/*
 * The report's first section: the findings of `collprof summary`, every
 * one, by the time each explains (cp_profile_findings; docs/reader.md
 * "Findings").
 */
#include <stdlib.h>

#include "report.h"

int report_section_findings(const report_ctx *c)
{
    cp_finding *f;
    size_t n;
    cp_error err;
    if (cp_profile_findings(c->p, &f, &n, &err))
        return -1;
    report_printf(c->out,
                  "<p class=\"note\">What to look at first, by the time each finding "
                  "explains (the waiting a late rank causes, a series&#39; own time, a call "
                  "site&#39;s time beyond its share of the calls), then context and pattern "
                  "facts, what the profile leaves out last; the thresholds are "
                  "in the reader&#39;s documentation (<code>collprof help summary</code>).</p>\n");
    if (n == 0) {
        report_printf(c->out, "<p>Nothing stands out.</p>\n");
    } else {
        report_printf(c->out, "<ol class=\"findings\">\n");
        for (size_t i = 0; i < n; i++) {
            report_printf(c->out, "<li>");
            report_text(c->out, f[i].text);
            report_printf(c->out, "</li>\n");
        }
        report_printf(c->out, "</ol>\n");
    }
    free(f);
    report_findings_charts(c);
    return 0;
}
