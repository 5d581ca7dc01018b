/* Which MPI this process uses, and where the stubs jump (front.h). */
#include "front.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include CP_FRONT_FLAVOR_H /* which MPI, the other one, the core's file name (meson) */

CP_FRONT_HIDDEN unsigned char cp_front_mode;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The base name of a loaded object begins with one of the library names
 * of an MPI ("libmpich.so", "libmpi.so"): its path, else "". */
struct find {
    const char *const *prefixes;
    char path[4096];
};

static int each(struct dl_phdr_info *info, size_t size, void *vctx)
{
    (void)size;
    struct find *f = vctx;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    for (size_t i = 0; base && f->prefixes[i]; i++)
        if (!strncmp(base, f->prefixes[i], strlen(f->prefixes[i]))) {
            snprintf(f->path, sizeof f->path, "%s", name);
            return 1;
        }
    return 0;
}

static bool loaded(const char *const *prefixes, char *path, size_t len)
{
    struct find f = {.prefixes = prefixes, .path = ""};
    dl_iterate_phdr(each, &f);
    if (path)
        snprintf(path, len, "%s", f.path);
    return f.path[0] != '\0';
}

/* What marks each MPI in a process (a library only it loads), and where
 * the other one's C functions are. */
static const char *const mine[] = CP_FRONT_MPI_MARK, *const other[] = CP_FRONT_OTHER_MARK,
                         *const other_lib[] = CP_FRONT_OTHER_LIB;

static int noop(void)
{
    return 0;
}

/* One line, from world rank 0 (or every rank when the launcher does not
 * say which: before MPI_Init nothing else can). */
static void say(const char *fmt, const char *a, const char *b)
{
    static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "MPI_LOCALRANKID", NULL};
    for (size_t i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            if (strcmp(v, "0") != 0)
                return;
    }
    fprintf(stderr, "collprof: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

/* The other MPI's own function of each name: next in the global scope
 * (a program linked with it), else in the library that opened late. */
static void to_the_mpi(const char *lib)
{
    void *h = lib && lib[0] ? dlopen(lib, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    for (size_t i = 0; i < cp_front_n; i++) {
        void *f = dlsym(RTLD_NEXT, cp_front_names[i]);
        if (!f && h)
            f = dlsym(h, cp_front_names[i]);
        __atomic_store_n(&cp_front_jump[i], f ? f : (void *)noop, __ATOMIC_RELEASE);
    }
    if (h)
        dlclose(h);
    __atomic_store_n(&cp_front_mode, 2, __ATOMIC_RELEASE);
}

/* The path of a file beside this library (NULL: not known). */
static bool beside(const char *name, char *path, size_t len)
{
    Dl_info info;
    if (!dladdr((void *)&cp_front_mode, &info) || !info.dli_fname)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    snprintf(path, len, "%.*s%s", slash ? (int)(slash - info.dli_fname + 1) : 0,
             info.dli_fname, name);
    return true;
}

/* The core library, beside this one, opened privately (RTLD_LOCAL): its
 * functions of the MPI names, and the MPI library it needs, stay out of
 * the global scope, where a Python program's late-opened MPI would
 * otherwise find this MPI's functions before its own. */
static void *open_core(char *why, size_t len)
{
    char path[4200];
    if (!beside(CP_FRONT_CORE, path, sizeof path)) {
        snprintf(why, len, "cannot find where libcollprof.so is");
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(why, len, "%s", dlerror());
    return h;
}

/* The other MPI loaded in the process: the stubs go to it (from the first
 * MPI call).  This MPI loaded (the program's: the core is not loaded yet):
 * to the core, from now.  Neither: wait for the first MPI call (a Python
 * program opens its MPI late); then this MPI is the one. */
static void decide(bool at_call)
{
    pthread_mutex_lock(&lock);
    if (cp_front_mode) {
        pthread_mutex_unlock(&lock);
        return;
    }
    char path[4096], lib[4096];
    if (loaded(other, path, sizeof path)) {
        /* Said and settled at the first MPI call only: a launcher of the
         * other MPI (orterun loads its libraries too) never calls one,
         * and must print nothing. */
        if (!at_call) {
            pthread_mutex_unlock(&lock);
            return;
        }
        loaded(other_lib, lib, sizeof lib);
        /* Which file would profile it: the other MPI's collprof beside
         * this one (a build for both), else how to build it. */
        char front[4200], would[9000];
        /* Advice that fits how it came here: `collprof run` chose this
         * library (it says what it chose in COLLPROF_RUN_CHOICE), or the
         * user preloaded it. */
        const char *run = getenv("COLLPROF_RUN_CHOICE");
        bool there = beside(CP_FRONT_OTHER_FRONT, front, sizeof front) && access(front, R_OK) == 0;
        if (there && run)
            snprintf(would, sizeof would, "%s would; `collprof run` chose this one, %.4000s: "
                     "tell it `collprof run --mpi " CP_FRONT_OTHER_OPTION "` or COLLPROF_MPI="
                     CP_FRONT_OTHER_OPTION, front, run);
        else if (there)
            snprintf(would, sizeof would, "%s would: preload it instead, or start the program "
                     "with `collprof run`, which picks it", front);
        else
            snprintf(would, sizeof would,
                     "a collprof built for that MPI would: meson setup -Dmpi=auto or -Dmpi="
                     CP_FRONT_OTHER_OPTION);
        char msg[sizeof would + 4096 + 512];
        snprintf(msg, sizeof msg,
                 "this program uses " CP_FRONT_OTHER_NAME " (%s): this collprof was built for "
                 CP_FRONT_MPI_NAME "; it stands aside and profiles nothing (%s)",
                 lib[0] ? lib : path, would);
        say("%s%s", msg, "");
        to_the_mpi(lib);
    } else if (at_call || loaded(mine, NULL, 0)) {
        char why[600];
        void *core = open_core(why, sizeof why);
        if (!core) {
            say("cannot load its core library: %s%s; it stands aside and profiles nothing", why,
                "");
            to_the_mpi(NULL);
        } else {
            for (size_t i = 0; i < cp_front_n; i++) {
                void *f = dlsym(core, cp_front_names[i]);
                if (!f)
                    f = dlsym(RTLD_NEXT, cp_front_names[i]);
                __atomic_store_n(&cp_front_jump[i], f ? f : (void *)noop, __ATOMIC_RELEASE);
            }
            __atomic_store_n(&cp_front_mode, 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&lock);
}

void cp_front_decide(void)
{
    decide(true);
}

/* A program linked with its MPI has it loaded now, before main: the core
 * is loaded as early as the library always was. */
__attribute__((constructor)) static void at_load(void)
{
    decide(false);
    /* Decided for the core before the program runs: the stubs jump
     * straight there (front_direct.c).  COLLPROF_FRONT_DIRECT=0 keeps the
     * table: to compare, or where rewriting code is unwelcome. */
    const char *direct = getenv("COLLPROF_FRONT_DIRECT");
    if (__atomic_load_n(&cp_front_mode, __ATOMIC_ACQUIRE) == 1 && !(direct && !strcmp(direct, "0")))
        cp_front_direct();
}
