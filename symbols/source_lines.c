/* The one symboliser, with libdwfl (source_lines.h). */
#include "source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *debuginfo_path;

/* Is the ELF file at path the debug file of a module with build-id
 * bits[len]? */
static bool same_build(const char *path, const unsigned char *bits, int len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id = NULL;
    bool same = elf && dwelf_elf_gnu_build_id(elf, &id) == len && memcmp(id, bits, (size_t)len) == 0;
    elf_end(elf);
    close(fd);
    return same;
}

/* libdwfl's search for a module's separate debug file, but with the client
 * of debuginfod servers only when the user names servers (DEBUGINFOD_URLS):
 * libdwfl loads that library, and libcurl's world with it, on the first
 * module whose debug file is not on disk (10 ms of finalize for a program
 * built without -g) to ask no server.  Without servers, libdwfl's own order
 * on disk: by build-id under the debug directory, then the file's
 * .gnu_debuglink name beside it, in .debug/ beside it and under
 * /usr/lib/debug; a file found by name is taken only when its build-id is
 * the module's. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                          Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (urls && *urls)
        return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
                                            debuglink_file, debuglink_crc, debuginfo_file_name);
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                          debuglink_file, debuglink_crc, debuginfo_file_name);
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len = fd < 0 && debuglink_file && file_name ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;
    if (len <= 0)
        return fd;
    const char *slash = strrchr(file_name, '/');
    int dlen = slash ? (int)(slash - file_name) : 1;
    const char *dir = slash ? file_name : ".";
    char path[4096];
    for (int form = 0; form < 3; form++) {
        if (form == 2 && dir[0] != '/')
            break;
        static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
        int n = snprintf(path, sizeof path, forms[form], dlen, dir, debuglink_file);
        if (n <= 0 || (size_t)n >= sizeof path || strcmp(path, file_name) == 0 ||
            !same_build(path, bits, len))
            continue;
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
            *debuginfo_file_name = strdup(path);
            return fd;
        }
    }
    return -1;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = find_debuginfo,
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
