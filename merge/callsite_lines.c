/* Source lines of the job's call sites from the module files (see
 * callsite_lines.h), by the one symboliser (symbols/source_lines.h). */
#include "callsite_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_id.h"
#include "source_lines.h"

/* Lines of every node of module `path` (addresses are the module's own). */
static size_t module_lines(cp_callsite_node *tree, size_t n, const char *path)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += tree[i].address && strcmp(tree[i].module, path) == 0;
    uint64_t *addr = malloc((k ? k : 1) * sizeof *addr);
    cp_line_at *at = malloc((k ? k : 1) * sizeof *at);
    size_t done = 0;
    if (addr && at) {
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (tree[i].address && strcmp(tree[i].module, path) == 0)
                addr[j++] = tree[i].address;
        if (cp_source_lines(path, addr, k, at) > 0)
            for (size_t i = 0, j = 0; i < n; i++) {
                if (!tree[i].address || strcmp(tree[i].module, path) != 0)
                    continue;
                const cp_line_at *l = &at[j++];
                if (l->line <= 0)
                    continue;
                snprintf(tree[i].file, sizeof tree[i].file, "%s", l->file);
                tree[i].line = l->line;
                done++;
            }
    }
    free(addr);
    free(at);
    return done;
}

size_t cp_callsite_lines(cp_callsite_node *tree, size_t n, const cp_kv *modules,
                         size_t nmodules)
{
    size_t done = 0;
    for (size_t k = 0; k < nmodules; k++) {
        char now[CP_BUILD_ID_MAX];
        /* Only the build that ran: a module without a build-id, or rebuilt
         * since, gives no lines. */
        if (!modules[k].value[0] || cp_build_id_of_file(modules[k].key, now, sizeof now) ||
            strcmp(now, modules[k].value) != 0)
            continue;
        done += module_lines(tree, n, modules[k].key);
    }
    return done;
}
