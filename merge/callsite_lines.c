/* Source lines of the job's call sites from the module files (see
 * callsite_lines.h). */
#include "callsite_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* Lines of every node of module `path` (addresses are the module's own:
 * placed at its link-time addresses, base 0). */
static size_t module_lines(cp_callsite_node *tree, size_t n, const char *path)
{
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(dwfl, path, path, fd, 0, true) : NULL;
    if (!mod && fd >= 0)
        close(fd); /* dwfl owns fd only once it reported the module */
    dwfl_report_end(dwfl, NULL, NULL);
    size_t done = 0;
    for (size_t i = 0; mod && i < n; i++) {
        cp_callsite_node *nd = &tree[i];
        if (!nd->address || strcmp(nd->module, path) != 0)
            continue;
        /* address - 1: the call, not the instruction after it */
        Dwfl_Line *line = dwfl_module_getsrc(mod, (Dwarf_Addr)(nd->address - 1));
        int lineno = 0;
        const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (file && lineno > 0) {
            /* A relative name is relative to the compilation's directory:
             * the whole path, as addr2line gives it. */
            Dwarf_Addr bias;
            Dwarf_Die *cu = file[0] == '/' ? NULL
                                           : dwfl_module_addrdie(mod, nd->address - 1, &bias);
            Dwarf_Attribute at;
            const char *dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;
            if (dir)
                snprintf(nd->file, sizeof nd->file, "%s/%s", dir, file);
            else
                snprintf(nd->file, sizeof nd->file, "%s", file);
            nd->line = lineno;
            done++;
        }
    }
    dwfl_end(dwfl);
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
