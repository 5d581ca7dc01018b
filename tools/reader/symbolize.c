/*
 * Source file and line of a call site, offline: addr2line (binutils) on the
 * module the runtime recorded, when the file is still there and has debug
 * information.  Run without a shell (the module path comes from the
 * manifest), one process per module with every address of that module.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build_id.h"
#include "reader_internal.h"

extern char **environ;

/* "path/file.c:42 (discriminator 3)" -> file "path/file.c", line 42;
 * "??:0" or "??:?" -> nothing. */
static void parse_line(char *s, cp_source_line *out)
{
    s[strcspn(s, "\n")] = '\0';
    char *disc = strstr(s, " (discriminator");
    if (disc)
        *disc = '\0';
    char *colon = strrchr(s, ':');
    if (!colon || colon == s || !strncmp(s, "??", 2))
        return;
    *colon = '\0';
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || line <= 0)
        return;
    snprintf(out->file, sizeof out->file, "%.1000s", s);
    out->line = line;
}

/* Run argv[0] (found on PATH, no shell) and hand each line of its output
 * to on_line.  A tool that is not installed gives no lines: not an error. */
static void each_line(char **argv, void (*on_line)(char *line, size_t i, void *ctx), void *ctx)
{
    int fd[2];
    if (pipe(fd) != 0)
        return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int sp = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[4096];
    for (size_t i = 0; sp == 0 && in && fgets(line, sizeof line, in); i++)
        on_line(line, i, ctx);
    if (in)
        fclose(in);
    else
        close(fd[0]);
    if (sp == 0)
        waitpid(pid, NULL, 0);
}

typedef struct lines_ctx {
    cp_source_line *out;
    size_t n;
} lines_ctx;

static void on_addr2line(char *line, size_t i, void *vctx)
{
    lines_ctx *x = vctx;
    if (i < x->n)
        parse_line(line, &x->out[i]);
}

int cp_reader_symbolize(const char *module, const uint64_t *addresses, size_t n,
                        cp_source_line *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (cp_source_line){.line = -1};
    if (n == 0 || access(module, R_OK) != 0)
        return 0;
    /* argv: addr2line -e MODULE ADDR... (return address - 1: the call) */
    char **argv = calloc(n + 4, sizeof *argv);
    char *buf = malloc(n * 24);
    if (!argv || !buf) {
        free(argv);
        free(buf);
        return -1;
    }
    argv[0] = "addr2line";
    argv[1] = "-e";
    argv[2] = (char *)module;
    for (size_t i = 0; i < n; i++) {
        snprintf(buf + 24 * i, 24, "0x%llx",
                 (unsigned long long)(addresses[i] ? addresses[i] - 1 : 0));
        argv[3 + i] = buf + 24 * i;
    }
    lines_ctx x = {out, n};
    each_line(argv, on_addr2line, &x);
    free(argv);
    free(buf);
    return 0;
}

typedef struct nm_ctx {
    const char *const *names;
    size_t n;
    uint64_t *start, *size;
} nm_ctx;

/* "0000000000001189 0000000000000087 T exchange" */
static void on_nm(char *line, size_t i, void *vctx)
{
    (void)i;
    nm_ctx *x = vctx;
    unsigned long long start, size;
    char type, name[1024];
    if (sscanf(line, "%llx %llx %c %1023s", &start, &size, &type, name) != 4 ||
        (type != 'T' && type != 't'))
        return;
    for (size_t k = 0; k < x->n; k++)
        if (x->size[k] == 0 && !strcmp(x->names[k], name)) {
            x->start[k] = start;
            x->size[k] = size;
        }
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
    if (n == 0 || access(module, R_OK) != 0)
        return 0;
    uint64_t *start = calloc(n, sizeof *start), *size = calloc(n, sizeof *size);
    uint64_t *addr = calloc(n * LINE_SAMPLES, sizeof *addr);
    cp_source_line *lines = calloc(n * LINE_SAMPLES, sizeof *lines);
    int rc = start && size && addr && lines ? 0 : -1;
    if (rc == 0) {
        char *argv[] = {"nm", "-S", "--defined-only", (char *)module, NULL};
        nm_ctx x = {names, n, start, size};
        each_line(argv, on_nm, &x);
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
    const cp_manifest *m = &p->manifest;
    for (size_t i = 0; p->has_manifest && i < m->nmodules; i++) {
        if (strcmp(m->modules[i].key, module) != 0)
            continue;
        char now[CP_BUILD_ID_MAX];
        cp_build_id_of_file(module, now, sizeof now);
        return strcmp(now, m->modules[i].value) == 0;
    }
    return true; /* an older profile: nothing recorded to hold it against */
}
