/*
 * Source file and line of a call site, and the lines of a function, offline:
 * the one symboliser (symbols/source_lines.h, libdwfl) on the module the
 * runtime recorded, when the file is still there and has debug information.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_id.h"
#include "reader_internal.h"
#include "source_lines.h"

_Static_assert(sizeof(((cp_source_line *)0)->file) == sizeof(((cp_line_at *)0)->file),
               "a source line is the symboliser's");

int cp_reader_symbolize(const char *module, const uint64_t *addresses, size_t n,
                        cp_source_line *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (cp_source_line){.line = -1};
    if (n == 0)
        return 0;
    cp_line_at *at = malloc(n * sizeof *at);
    if (!at)
        return -1;
    if (cp_source_lines(module, addresses, n, at) > 0)
        for (size_t i = 0; i < n; i++)
            if (at[i].line > 0) {
                memcpy(out[i].file, at[i].file, sizeof out[i].file);
                out[i].line = at[i].line;
            }
    free(at);
    return 0;
}

/* Addresses looked up per function: enough to find its last line in an
 * optimised body, where the last instruction need not be the last line. */
#define LINE_SAMPLES 256

int cp_reader_function_lines(const char *module, const char *const *names, size_t n,
                             cp_source_line *begin, int64_t *end)
{
    for (size_t i = 0; i < n; i++) {
        begin[i] = (cp_source_line){.line = -1};
        end[i] = -1;
    }
    if (n == 0)
        return 0;
    uint64_t *start = calloc(n, sizeof *start), *size = calloc(n, sizeof *size);
    uint64_t *addr = calloc(n * LINE_SAMPLES, sizeof *addr);
    cp_source_line *lines = calloc(n * LINE_SAMPLES, sizeof *lines);
    int rc = start && size && addr && lines ? 0 : -1;
    if (rc == 0 && cp_function_extents(module, names, n, start, size) > 0) {
        /* The first instruction (its line: the function's first), then
         * samples over the body; the last line is the largest of the
         * samples in the same file (inlined code of other files aside).
         * symbolize takes return addresses and looks one byte before. */
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; size[i] && k < LINE_SAMPLES; k++)
                addr[i * LINE_SAMPLES + k] = start[i] + 1 + k * size[i] / LINE_SAMPLES;
        rc = cp_reader_symbolize(module, addr, n * LINE_SAMPLES, lines);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            const cp_source_line *l = &lines[i * LINE_SAMPLES];
            if (!size[i] || l[0].line <= 0)
                continue;
            begin[i] = l[0];
            end[i] = l[0].line;
            for (size_t k = 1; k < LINE_SAMPLES; k++)
                if (l[k].line > end[i] && !strcmp(l[k].file, l[0].file))
                    end[i] = l[k].line;
        }
    }
    free(start);
    free(size);
    free(addr);
    free(lines);
    return rc;
}

bool cp_reader_module_is_the_run(const cp_profile *p, const char *module)
{
    const char *ran = p->has_manifest
                          ? cp_kv_get(p->manifest.modules, p->manifest.nmodules, module)
                          : NULL;
    if (!ran)
        return true; /* an older profile: nothing recorded to hold it against */
    char now[CP_BUILD_ID_MAX];
    cp_build_id_of_file(module, now, sizeof now);
    return strcmp(now, ran) == 0;
}
