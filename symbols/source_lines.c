/* The one symboliser, with libdwfl (source_lines.h). */
#include "source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* The module file at path, placed at its link-time addresses (base 0);
 * NULL when it cannot be read.  dwfl_end(*dwfl) in every case. */
static Dwfl_Module *open_module(const char *path, Dwfl **dwfl)
{
    *dwfl = dwfl_begin(&callbacks);
    if (!*dwfl)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(*dwfl, path, path, fd, 0, true) : NULL;
    if (!mod && fd >= 0)
        close(fd); /* dwfl owns fd only once it reported the module */
    dwfl_report_end(*dwfl, NULL, NULL);
    return mod;
}

static void line_of(Dwfl_Module *mod, uint64_t ret, cp_line_at *out)
{
    *out = (cp_line_at){.line = -1};
    if (!ret)
        return;
    /* ret - 1: the call, not the instruction after it */
    Dwfl_Line *line = dwfl_module_getsrc(mod, (Dwarf_Addr)(ret - 1));
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (!file || lineno <= 0)
        return;
    /* A relative name is relative to the compilation's directory. */
    Dwarf_Addr bias;
    Dwarf_Die *cu = file[0] == '/' ? NULL : dwfl_module_addrdie(mod, ret - 1, &bias);
    Dwarf_Attribute at;
    const char *dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;
    if (dir)
        snprintf(out->file, sizeof out->file, "%s/%s", dir, file);
    else
        snprintf(out->file, sizeof out->file, "%s", file);
    out->line = lineno;
}

long cp_source_lines(const char *path, const uint64_t *addresses, size_t n, cp_line_at *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (cp_line_at){.line = -1};
    Dwfl *dwfl;
    Dwfl_Module *mod = open_module(path, &dwfl);
    long found = mod ? 0 : -1;
    for (size_t i = 0; mod && i < n; i++) {
        line_of(mod, addresses[i], &out[i]);
        found += out[i].line > 0;
    }
    dwfl_end(dwfl);
    return found;
}

long cp_function_extents(const char *path, const char *const *names, size_t n, uint64_t *start,
                         uint64_t *size)
{
    for (size_t i = 0; i < n; i++)
        start[i] = size[i] = 0;
    Dwfl *dwfl;
    Dwfl_Module *mod = open_module(path, &dwfl);
    int nsyms = mod ? dwfl_module_getsymtab(mod) : -1;
    long found = nsyms >= 0 ? 0 : -1;
    for (int s = 0; s < nsyms; s++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(mod, s, &sym, &addr, NULL, NULL, NULL);
        if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
            continue;
        for (size_t i = 0; i < n; i++)
            if (size[i] == 0 && !strcmp(names[i], name)) {
                start[i] = addr;
                size[i] = sym.st_size;
                found += sym.st_size > 0;
            }
    }
    dwfl_end(dwfl);
    return found;
}
