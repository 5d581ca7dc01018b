/*
 * collprof callsites DIR: where in the code the collectives were called -
 * one line per call path with its function, file:line, calls, bytes and
 * time over all ranks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

int cli_callsites_read(cp_profile *p)
{
    cp_callsite_row *rows;
    size_t n;
    cp_error err;
    if (cp_profile_callsites(p, true, &rows, &n, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    static const char *const headers[] = {"id", "function", "source", "module", "collectives",
                                          "rank-calls", "bytes sent", "time (s)", "call path"};
    static const bool right[] = {true, false, false, false, false, true, true, true, false};
    cli_table *t = cli_table_new(9, headers, right);
    int ok = t != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const cp_callsite_row *r = &rows[i];
        char path[1024], where[1200];
        cp_callsite_path(&p->manifest, r->id, true, path, sizeof path);
        cp_callsite_where(r, false, where, sizeof where);
        ok = cli_table_cell(t, "%" PRId64, r->id) == 0 &&
             cli_table_cell(t, "%s", r->node->function[0] ? r->node->function : "?") == 0 &&
             cli_table_cell(t, "%s%s", where,
                            r->source.line == CP_LINE_CHANGED
                                ? " (module rebuilt since the run: no lines)"
                                : "") == 0 &&
             cli_table_cell(t, "%s", cp_reader_basename(r->node->module)) == 0 &&
             cli_table_cell(t, "%s", r->collectives) == 0 &&
             cli_table_cell(t, "%" PRIu64, r->calls) == 0 &&
             cli_table_cell(t, "%" PRIu64, r->bytes_sent) == 0 &&
             cli_table_cell(t, "%.6f", r->time) == 0 && cli_table_cell(t, "%s", path) == 0;
    }
    free(rows);
    if (cli_table_done(t, ok) == 0)
        return CLI_OK;
    fprintf(stderr, "collprof: out of memory\n");
    return CLI_BAD_INPUT;
}
