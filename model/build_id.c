/* GNU build-ids of ELF modules (build_id.h). */
#include "build_id.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The build-id note among the notes of [p, p + len), as hex into out. */
static int from_notes(const unsigned char *p, size_t len, char *out, size_t size)
{
    size_t off = 0;
    while (off + sizeof(ElfW(Nhdr)) <= len) {
        ElfW(Nhdr) nh;
        memcpy(&nh, p + off, sizeof nh);
        size_t name_at = off + sizeof nh, namesz = (nh.n_namesz + 3u) & ~3u;
        size_t desc_at = name_at + namesz, descsz = (nh.n_descsz + 3u) & ~3u;
        if (desc_at > len || nh.n_descsz > len - desc_at)
            return -1;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp(p + name_at, "GNU", 4) == 0) {
            if (size < 2 * (size_t)nh.n_descsz + 1 || nh.n_descsz == 0)
                return -1;
            for (size_t i = 0; i < nh.n_descsz; i++)
                snprintf(out + 2 * i, 3, "%02x", p[desc_at + i]);
            return 0;
        }
        off = desc_at + descsz;
    }
    return -1;
}

int cp_build_id_of_file(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    ElfW(Ehdr) eh;
    int rc = -1;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum > 4096)
        goto out;
    for (unsigned i = 0; i < eh.e_phnum && rc; i++) {
        ElfW(Phdr) ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
            break;
        if (ph.p_type != PT_NOTE || ph.p_filesz == 0 || ph.p_filesz > 65536)
            continue;
        unsigned char notes[65536];
        if (pread(fd, notes, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
            break;
        rc = from_notes(notes, ph.p_filesz, out, size);
    }
out:
    close(fd);
    if (rc)
        out[0] = '\0';
    return rc;
}

struct mem_ctx {
    const char *path; /* NULL: the executable (empty dlpi_name) */
    char *out;
    size_t size;
    int rc;
};

static int each_module(struct dl_phdr_info *info, size_t sz, void *vctx)
{
    (void)sz;
    struct mem_ctx *c = vctx;
    bool exe = !info->dlpi_name || !info->dlpi_name[0];
    if (c->path ? exe || strcmp(info->dlpi_name, c->path) != 0 : !exe)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && c->rc; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE)
            c->rc = from_notes((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                               ph->p_memsz, c->out, c->size);
    }
    return 1;
}

int cp_build_id_loaded(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    struct mem_ctx c = {path, out, size, -1};
    dl_iterate_phdr(each_module, &c);
    if (c.rc)
        out[0] = '\0';
    return c.rc;
}
