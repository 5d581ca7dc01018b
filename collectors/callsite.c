/* Callsite collector (see callsite.h). */
#define UNW_LOCAL_ONLY
#include "callsite.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int depth;

/* Executable address ranges of the modules whose frames are skipped. */
#define MAX_SKIP 16
static struct range {
    uintptr_t lo, hi;
} skip[MAX_SKIP];
static int nskip;

/* The path table: open addressing on a hash of the return addresses; a
 * slot is published (key stored last, with release order) after its path
 * is complete, so lookups take no lock. */
#define NSLOTS (2 * CP_CALLSITE_MAX_PATHS)
static struct slot {
    _Atomic uint64_t key; /* 0: empty */
    uint32_t id;
} slots[NSLOTS];
static uint64_t *path_ips; /* CP_CALLSITE_MAX_PATHS x depth return addresses */
static cp_callpath paths[CP_CALLSITE_MAX_PATHS];
static _Atomic uint32_t npaths;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool full_reported;

/* ------------------------------------------------------ modules to skip */

struct find_ctx {
    uintptr_t addr;
    bool found;
};

/* dl_iterate_phdr: the executable segments of the module holding addr. */
static int add_module_of(struct dl_phdr_info *info, size_t size, void *vctx)
{
    struct find_ctx *ctx = vctx;
    (void)size;
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mine = ph->p_type == PT_LOAD && ctx->addr >= lo && ctx->addr < lo + ph->p_memsz;
    }
    if (!mine)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nskip < MAX_SKIP; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            skip[nskip].lo = info->dlpi_addr + ph->p_vaddr;
            skip[nskip].hi = skip[nskip].lo + ph->p_memsz;
            nskip++;
        }
    }
    ctx->found = true;
    return 1;
}

static void skip_module_of(const void *addr)
{
    if (!addr)
        return;
    for (int i = 0; i < nskip; i++)
        if ((uintptr_t)addr >= skip[i].lo && (uintptr_t)addr < skip[i].hi)
            return; /* already */
    struct find_ctx ctx = {(uintptr_t)addr, false};
    dl_iterate_phdr(add_module_of, &ctx);
}

static bool skipped(uintptr_t ip)
{
    for (int i = 0; i < nskip; i++)
        if (ip >= skip[i].lo && ip < skip[i].hi)
            return true;
    return false;
}

void cp_callsite_start(int d, const void *self)
{
    depth = d < 0 ? 0 : d > CP_CALLSITE_MAX_DEPTH ? CP_CALLSITE_MAX_DEPTH : d;
    if (depth == 0)
        return;
    path_ips = calloc((size_t)CP_CALLSITE_MAX_PATHS * (size_t)depth, sizeof *path_ips);
    if (!path_ips) {
        depth = 0;
        return;
    }
    skip_module_of(self);
    /* The MPI library, and its Fortran bindings, which call the C
     * functions that collprof wraps. */
    static const char *const mpi_symbols[] = {"PMPI_Init", "mpi_init_", "mpi_init",
                                              "mpi_init__", "PMPI_INIT"};
    for (size_t i = 0; i < sizeof mpi_symbols / sizeof *mpi_symbols; i++)
        skip_module_of(dlsym(RTLD_DEFAULT, mpi_symbols[i]));
}

/* --------------------------------------------------------------- capture */

static int collect(uint64_t *ips)
{
    void *buf[CP_CALLSITE_MAX_DEPTH + 8];
    int want = depth + 8, m = unw_backtrace(buf, want), k = 0, n = 0;
    while (k < m && skipped((uintptr_t)buf[k]))
        k++;
    while (k < m && n < depth)
        ips[n++] = (uint64_t)(uintptr_t)buf[k++];
    return n;
}

static uint64_t hash_ips(const uint64_t *ips, int n)
{
    uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= ips[i];
        h *= 0x100000001b3u;
        h ^= h >> 29;
    }
    return h ? h : 1;
}

static bool same_path(uint32_t id, const uint64_t *ips, int n)
{
    return paths[id].nframes == (uint32_t)n &&
           memcmp(path_ips + (size_t)id * (size_t)depth, ips, (size_t)n * sizeof *ips) == 0;
}

/* The slot of (h, ips), or of the empty slot where it would go. */
static struct slot *probe(uint64_t h, const uint64_t *ips, int n, bool *found)
{
    for (uint32_t i = (uint32_t)h & (NSLOTS - 1);; i = (i + 1) & (NSLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&slots[i].key, memory_order_acquire);
        if (k == 0) {
            *found = false;
            return &slots[i];
        }
        if (k == h && same_path(slots[i].id, ips, n)) {
            *found = true;
            return &slots[i];
        }
    }
}

/* ------------------------------------------------------------ resolution */

/* A function name is given only when the call lies inside that symbol's
 * extent: dladdr names the nearest exported symbol before an address,
 * however far (a stripped program's every call site would take the name of
 * some small exported function before it).  Without a name the site is
 * its module and offset alone. */
static void module_of(uint64_t ip, cp_frame *f)
{
    Dl_info info;
    struct link_map *lm = NULL;
    const ElfW(Sym) *sym = NULL;
    /* ip - 1: a return address may lie just past the end of a function
     * that ends in a call. */
    void *at = (void *)(uintptr_t)(ip - 1);
    if (!dladdr1(at, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
        snprintf(f->module, sizeof f->module, "?");
        f->address = ip;
        return;
    }
    f->address = ip - (uint64_t)lm->l_addr;
    if (lm->l_name && lm->l_name[0]) {
        snprintf(f->module, sizeof f->module, "%s", lm->l_name);
    } else {
        ssize_t len = readlink("/proc/self/exe", f->module, sizeof f->module - 1);
        f->module[len > 0 ? len : 0] = '\0';
    }
    Dl_info si;
    if (dladdr1(at, &si, (void **)&sym, RTLD_DL_SYMENT) && si.dli_sname && si.dli_saddr && sym &&
        (uintptr_t)at - (uintptr_t)si.dli_saddr < (uintptr_t)sym->st_size)
        snprintf(f->function, sizeof f->function, "%s", si.dli_sname);
}

/* Function names from the symbol tables (libunwind reads .symtab, which
 * dladdr does not): walk the stack we are on, whose frames these are.
 * libunwind names the nearest function symbol before the address; the name
 * is kept only when that symbol starts inside the procedure the unwind
 * information gives for the address (a symbol far before it is another
 * function's, not this one's). */
static void names_from_stack(const uint64_t *ips, int n, cp_frame *frames)
{
    unw_context_t uc;
    unw_cursor_t cur;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cur, &uc) != 0)
        return;
    int found = 0;
    for (int steps = 0; steps < depth + 64 && found < n && unw_step(&cur) > 0; steps++) {
        unw_word_t ip;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0)
            break;
        for (int i = 0; i < n; i++)
            if (ips[i] == (uint64_t)ip && !frames[i].function[0]) {
                unw_word_t off;
                unw_proc_info_t pi;
                char name[sizeof frames[i].function];
                if (unw_get_proc_name(&cur, name, sizeof name, &off) == 0 &&
                    unw_get_proc_info(&cur, &pi) == 0 && ip - off >= pi.start_ip &&
                    ip - off < pi.end_ip)
                    snprintf(frames[i].function, sizeof frames[i].function, "%s", name);
                found++;
            }
    }
}

static uint32_t add_path(uint64_t h, const uint64_t *ips, int n)
{
    pthread_mutex_lock(&lock);
    bool found;
    struct slot *s = probe(h, ips, n, &found);
    uint32_t id = found ? s->id : atomic_load(&npaths);
    if (!found && id < CP_CALLSITE_MAX_PATHS) {
        cp_frame *frames = calloc((size_t)(n ? n : 1), sizeof *frames);
        if (frames) {
            for (int i = 0; i < n; i++)
                module_of(ips[i], &frames[i]);
            names_from_stack(ips, n, frames);
            memcpy(path_ips + (size_t)id * (size_t)depth, ips, (size_t)n * sizeof *ips);
            paths[id] = (cp_callpath){(uint32_t)n, frames};
            s->id = id;
            atomic_store(&npaths, id + 1);
            atomic_store_explicit(&s->key, h, memory_order_release);
        } else {
            id = CP_CALLSITE_NONE;
        }
    } else if (!found) {
        if (!full_reported)
            fprintf(stderr, "collprof: more than %d distinct call paths on this rank: later "
                            "ones are not told apart\n", CP_CALLSITE_MAX_PATHS);
        full_reported = true;
        id = CP_CALLSITE_NONE;
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t cp_callsite_capture(void *ra, bool *by_address)
{
    if (by_address)
        *by_address = false;
    if (depth == 0)
        return CP_CALLSITE_NONE;
    uint64_t ips[CP_CALLSITE_MAX_DEPTH];
    int n;
    if (depth == 1 && !skipped((uintptr_t)ra)) {
        if (by_address)
            *by_address = true;
        ips[0] = (uint64_t)(uintptr_t)ra;
        n = 1;
    } else {
        n = collect(ips);
    }
    uint64_t h = hash_ips(ips, n);
    bool found;
    struct slot *s = probe(h, ips, n, &found);
    return found ? s->id : add_path(h, ips, n);
}

uint32_t cp_callsite_count(void)
{
    return atomic_load(&npaths);
}

const cp_callpath *cp_callsite_path(uint32_t id)
{
    return id < atomic_load(&npaths) ? &paths[id] : NULL;
}
