/*
 * collprof run PROGRAM [ARGS]: start one rank of an application under
 * collprof, whichever MPI library it uses.  The MPI launcher starts it for
 * each rank (`mpiexec -n 64 collprof run ./app args`); it finds which MPI
 * the process will use, puts the collprof library built for that MPI
 * first in LD_PRELOAD and executes the program in its place: same process,
 * same arguments, same exit status.
 *
 * Which MPI, first found wins:
 *   1. --mpi NAME or COLLPROF_MPI (mpich, openmpi): the user said so;
 *   2. the MPI library the program itself is linked with (its ELF
 *      DT_NEEDED entries: libmpich.so.12 / libmpi.so.12 are MPICH's,
 *      libmpi*.so.40 Open MPI's);
 *   3. for a Python interpreter, the library its mpi4py's MPI module is
 *      linked with (asked of the interpreter, nothing imported);
 *   4. the launcher that started it (Open MPI's sets OMPI_COMM_WORLD_SIZE,
 *      MPICH's Hydra PMI_RANK): a script says nothing by itself;
 *   5. the default MPI of this build (libcollprof.so).
 * If no collprof library for that MPI is installed, the program runs
 * without profiling and rank 0 says so once: collprof never stops a run.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "collprof_config.h"

enum { MPI_UNKNOWN = -1, MPI_MPICH, MPI_OPENMPI, MPI_N };
static const char *const mpi_option[MPI_N] = {"mpich", "openmpi"};
static const char *const mpi_title[MPI_N] = {"MPICH", "Open MPI"};

static int mpi_by_name(const char *s)
{
    for (int i = 0; i < MPI_N; i++)
        if (strcmp(s, mpi_option[i]) == 0)
            return i;
    return MPI_UNKNOWN;
}

/* Which MPI a shared library's name belongs to. */
static int mpi_of_soname(const char *n)
{
    if (strncmp(n, "libmpich", 8) == 0 || strcmp(n, "libmpi.so.12") == 0 ||
        strcmp(n, "libmpifort.so.12") == 0)
        return MPI_MPICH;
    if (strncmp(n, "libmpi", 6) == 0 && strstr(n, ".so.40"))
        return MPI_OPENMPI;
    if (strncmp(n, "libopen-pal", 11) == 0 || strncmp(n, "libopen-rte", 11) == 0)
        return MPI_OPENMPI;
    return MPI_UNKNOWN;
}

static int read_at(int fd, void *buf, size_t len, off_t off)
{
    return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* The MPI of the DT_NEEDED entries of a 64-bit ELF file (from its section
 * headers, which stripping keeps), MPI_UNKNOWN when none names one; the
 * entry that named it into soname. */
static int mpi_of_elf(const char *path, char *soname, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return MPI_UNKNOWN;
    int found = MPI_UNKNOWN;
    Elf64_Ehdr eh;
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shnum > 4096)
        goto out;
    Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || read_at(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) != 0) {
        free(sh);
        goto out;
    }
    for (size_t s = 0; s < eh.e_shnum && found == MPI_UNKNOWN; s++) {
        if (sh[s].sh_type != SHT_DYNAMIC || sh[s].sh_link >= eh.e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[s].sh_link];
        size_t ndyn = sh[s].sh_size / sizeof(Elf64_Dyn);
        for (size_t d = 0; d < ndyn && d < 65536 && found == MPI_UNKNOWN; d++) {
            Elf64_Dyn dyn;
            if (read_at(fd, &dyn, sizeof dyn, (off_t)(sh[s].sh_offset + d * sizeof dyn)) != 0 ||
                dyn.d_tag == DT_NULL)
                break;
            char name[256];
            if (dyn.d_tag != DT_NEEDED || dyn.d_un.d_val >= str->sh_size)
                continue;
            ssize_t got = pread(fd, name, sizeof name - 1, (off_t)(str->sh_offset + dyn.d_un.d_val));
            if (got <= 0)
                continue;
            name[got] = '\0';
            found = mpi_of_soname(name);
            if (found != MPI_UNKNOWN)
                snprintf(soname, len, "%s", name);
        }
    }
    free(sh);
out:
    close(fd);
    return found;
}

/* A Python interpreter names no MPI itself: its mpi4py does.  Where PROG
 * is one (its name starts with "python"), ask it where mpi4py's MPI
 * extension module is (without importing it: no MPI starts) and read that
 * module's DT_NEEDED entries.  A launcher's variables would only tell the
 * process-management interface (srun --mpi=pmix runs either MPI).  Returns
 * the MPI, its module's path in origin. */
static int mpi_of_mpi4py(const char *prog, const char *path, char *origin, size_t len,
                         char *soname, size_t slen)
{
    const char *base = strrchr(prog, '/');
    if (strncmp(base ? base + 1 : prog, "python", 6) != 0 || !path)
        return MPI_UNKNOWN;
    int fd[2];
    if (pipe(fd) != 0)
        return MPI_UNKNOWN;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return MPI_UNKNOWN;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]), close(fd[1]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execl(path, prog, "-c",
              "import importlib.util as u\n"
              "s = u.find_spec('mpi4py')\n"
              "m = u.find_spec('mpi4py.MPI') if s else None\n"
              "print(m.origin if m and m.origin else '')",
              (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fd[0], origin + got, len - 1 - got)) > 0)
        got += (size_t)n;
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    origin[got] = '\0';
    char *nl = strchr(origin, '\n');
    if (nl)
        *nl = '\0';
    return origin[0] ? mpi_of_elf(origin, soname, slen) : MPI_UNKNOWN;
}

/* The file execvp would run for PROG (NULL: not found). */
static const char *program_path(const char *prog, char *buf, size_t len)
{
    if (strchr(prog, '/'))
        return prog;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(buf, len, "%.*s%s%s", (int)n, n ? p : ".", "/", prog);
        if (access(buf, X_OK) == 0)
            return buf;
        if (!end)
            break;
        p = end + 1;
    }
    return NULL;
}

/* The MPI of the launcher that started this process, and the variable
 * that said so. */
static int mpi_of_launcher(const char **var)
{
    static const struct {
        const char *var;
        int mpi;
    } said[] = {{"OMPI_COMM_WORLD_SIZE", MPI_OPENMPI},
                {"PMI_RANK", MPI_MPICH},
                {"PMI_SIZE", MPI_MPICH},
                {"HYDRA_CONTROL_FD", MPI_MPICH}};
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        if (getenv(said[i].var)) {
            *var = said[i].var;
            return said[i].mpi;
        }
    return MPI_UNKNOWN;
}

/* This process's rank in the job, as the launcher says (-1: not said). */
static long launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return -1;
}

/* The directory of this executable. */
static int own_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

/* The collprof library for MPI m: installed (this executable in the
 * configured bindir: the configured libdir), else in a build tree
 * (tools/collprof beside lib/). */
static const char *library_for(int m, char *buf, size_t len)
{
    char dir[PATH_MAX];
    if (own_dir(dir, sizeof dir) != 0)
        return NULL;
    char bindir[PATH_MAX];
    const char *where[2] = {NULL, NULL};
    char build_lib[PATH_MAX + 8];
    if (realpath(COLLPROF_BINDIR, bindir) && strcmp(bindir, dir) == 0)
        where[0] = COLLPROF_LIBDIR;
    snprintf(build_lib, sizeof build_lib, "%s/../lib", dir);
    where[1] = build_lib;
    for (int i = 0; i < 2; i++) {
        if (!where[i])
            continue;
        snprintf(buf, len, "%s/libcollprof-%s.so", where[i], mpi_option[m]);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    return NULL;
}

static void say(const char *fmt, const char *a, const char *b)
{
    if (launcher_rank() > 0)
        return;
    fprintf(stderr, "collprof run: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

/* LD_PRELOAD with lib first, and without any other collprof library the
 * user preloaded already (-genv, -x: perhaps the other MPI's): one
 * library, the right one.  0, or -1 with errno set. */
static int preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *out = malloc(n), *rest = old ? strdup(old) : NULL;
    if (!out || (old && !rest)) {
        free(out);
        free(rest);
        errno = ENOMEM;
        return -1;
    }
    size_t len = (size_t)snprintf(out, n, "%s", lib);
    for (char *save = NULL, *w = rest ? strtok_r(rest, ": ", &save) : NULL; w;
         w = strtok_r(NULL, ": ", &save)) {
        const char *base = strrchr(w, '/');
        if (strncmp(base ? base + 1 : w, "libcollprof", 11) == 0)
            continue;
        len += (size_t)snprintf(out + len, n - len, ":%s", w);
    }
    int rc = setenv("LD_PRELOAD", out, 1);
    free(out);
    free(rest);
    return rc;
}

int cli_run_run(const cli_command *self, int argc, char **argv)
{
    int first = 1;
    const char *asked = getenv("COLLPROF_MPI");
    const char *why = "COLLPROF_MPI";
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        }
        if (strcmp(argv[first], "--mpi") == 0 && first + 1 < argc) {
            asked = argv[first + 1];
            why = "--mpi";
            first += 2;
        } else if (cli_is_help(argv[first])) {
            cli_print_help(self);
            return CLI_OK;
        } else {
            return cli_usage_error(self, "unknown option '%s'", argv[first]);
        }
    }
    if (first >= argc)
        return cli_usage_error(self, "expected a program to run");
    char **prog = argv + first;

    int m = MPI_UNKNOWN;
    if (asked && *asked && (m = mpi_by_name(asked)) == MPI_UNKNOWN)
        return cli_usage_error(self, "%s=%s: expected mpich or openmpi", why, asked);
    /* Why this MPI: said with COLLPROF_VERBOSE=1, and recorded in the
     * manifest (the library reads COLLPROF_RUN_CHOICE). */
    char because[PATH_MAX + 128] = "", soname[256] = "";
    if (m != MPI_UNKNOWN)
        snprintf(because, sizeof because, "%s %s", why, asked);
    char found[PATH_MAX];
    const char *path = program_path(prog[0], found, sizeof found), *var = NULL;
    if (m == MPI_UNKNOWN && path && (m = mpi_of_elf(path, soname, sizeof soname)) != MPI_UNKNOWN)
        snprintf(because, sizeof because, "%s is linked with %s", path, soname);
    char origin[PATH_MAX];
    if (m == MPI_UNKNOWN &&
        (m = mpi_of_mpi4py(prog[0], path, origin, sizeof origin, soname, sizeof soname)) !=
            MPI_UNKNOWN)
        snprintf(because, sizeof because, "its mpi4py, %s, is linked with %s", origin, soname);
    if (m == MPI_UNKNOWN && (m = mpi_of_launcher(&var)) != MPI_UNKNOWN)
        snprintf(because, sizeof because, "the launcher set %s", var);
    if (m == MPI_UNKNOWN && (m = mpi_by_name(COLLPROF_DEFAULT_MPI)) != MPI_UNKNOWN)
        snprintf(because, sizeof because, "the default of this build");

    char lib[PATH_MAX + 64];
    if (m != MPI_UNKNOWN && library_for(m, lib, sizeof lib)) {
        /* Its directory without "..", its own name (not the version's). */
        char choice[2 * sizeof lib + sizeof because + 64], dir[sizeof lib], real[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", lib);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        snprintf(choice, sizeof choice, "%s/%s (%s: %s)",
                 slash && realpath(dir, real) ? real : dir, slash ? slash + 1 : lib,
                 mpi_title[m], because);
        const char *v = getenv("COLLPROF_VERBOSE");
        if (v && atoi(v) >= 1)
            say("profiling with %s%s", choice, "");
        if (preload(lib) != 0)
            say("cannot set LD_PRELOAD (%s%s): the program runs without profiling",
                strerror(errno), "");
        else
            setenv("COLLPROF_RUN_CHOICE", choice, 1);
    } else if (m != MPI_UNKNOWN) {
        say("%s has no collprof library here (libcollprof-%s.so): the program runs without "
            "profiling",
            mpi_title[m], mpi_option[m]);
    }
    execvp(prog[0], prog);
    int e = errno;
    fprintf(stderr, "collprof run: cannot run %s: %s\n", prog[0], strerror(e));
    return e == ENOENT ? 127 : 126;
}
