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

/* "f_one < main < __libc_start_main": the path from its innermost frame. */
static void path_text(const cp_manifest *m, int64_t id, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t n = id; n >= 0 && used < size; n = m->call_tree[n].parent) {
        const cp_callsite_node *x = &m->call_tree[n];
        int w = x->function[0]
                    ? snprintf(buf + used, size - used, "%s%s", n == id ? "" : " < ", x->function)
                    : snprintf(buf + used, size - used, "%s0x%" PRIx64, n == id ? "" : " < ",
                               x->address);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int run(const cli_command *self, int argc, char **argv)
{
    cp_profile p;
    int rc = cli_load_dir_arg(self, argc, argv, &p);
    if (rc != CLI_OK)
        return rc;
    cp_callsite_row *rows;
    size_t n;
    cp_error err;
    if (cp_profile_callsites(&p, true, &rows, &n, &err)) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    static const char *const headers[] = {"id", "function", "source", "module", "collectives",
                                          "rank-calls", "bytes sent", "time (s)", "call path"};
    static const bool right[] = {true, false, false, false, false, true, true, true, false};
    cli_table *t = cli_table_new(9, headers, right);
    int ok = t != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const cp_callsite_row *r = &rows[i];
        char path[1024];
        path_text(&p.manifest, r->id, path, sizeof path);
        ok = cli_table_cell(t, "%" PRId64, r->id) == 0 &&
             cli_table_cell(t, "%s", r->node->function[0] ? r->node->function : "?") == 0 &&
             /* Without a line: the place in the module, never an offset that
              * could read as one into the function named before it. */
             (r->source.line > 0
                  ? cli_table_cell(t, "%s:%" PRId64, base(r->source.file), r->source.line)
                  : cli_table_cell(t, "%s+0x%" PRIx64 "%s", base(r->node->module),
                                   r->node->address,
                                   r->source.line == CP_LINE_CHANGED
                                       ? " (module rebuilt since the run: no lines)"
                                       : "")) == 0 &&
             cli_table_cell(t, "%s", base(r->node->module)) == 0 &&
             cli_table_cell(t, "%s", r->collectives) == 0 &&
             cli_table_cell(t, "%" PRIu64, r->calls) == 0 &&
             cli_table_cell(t, "%" PRIu64, r->bytes_sent) == 0 &&
             cli_table_cell(t, "%.6f", r->time) == 0 && cli_table_cell(t, "%s", path) == 0;
    }
    if (ok)
        cli_table_print(t, stdout);
    else
        fprintf(stderr, "collprof: out of memory\n");
    cli_table_free(t);
    free(rows);
    cp_profile_free(&p);
    return ok ? CLI_OK : CLI_BAD_INPUT;
}

const cli_command cli_cmd_callsites = {
    .name = "callsites",
    .synopsis = "callsites DIR",
    .brief = "where the collectives were called: function, file:line, calls, bytes, time",
    .help =
        "DIR is a collprof output directory of a run with call paths\n"
        "(COLLPROF_CALLSITE_DEPTH >= 1, the default).  One line per call path that\n"
        "issued collective calls:\n"
        "  id           its call-tree id (the \"Callsites:\" lines of the count files,\n"
        "               the manifest's call_tree; summary --callsite ID)\n"
        "  function     the function that called MPI, and source, the file:line of\n"
        "               that call (addr2line on the module, when the module is still\n"
        "               there and has debug information; else +0xADDRESS in module)\n"
        "  collectives  which collectives this path called\n"
        "  rank-calls   (rank, call) pairs: one call on 4 ranks counts 4 (summary's\n"
        "               calls count it once)\n"
        "  bytes sent   bytes the ranks' send counts ask to move, over all ranks\n"
        "  time (s)     seconds in those calls, over all ranks (timed runs)\n"
        "  call path    the functions from the caller of MPI outwards\n",
    .run = run,
};
