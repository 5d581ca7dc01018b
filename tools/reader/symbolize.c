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
    int fd[2];
    int rc = -1;
    if (pipe(fd) == 0) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&fa, fd[0]);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        pid_t pid;
        int sp = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(fd[1]);
        FILE *in = fdopen(fd[0], "r");
        char line[4096];
        for (size_t i = 0; sp == 0 && in && i < n && fgets(line, sizeof line, in); i++)
            parse_line(line, &out[i]);
        if (in)
            fclose(in);
        else
            close(fd[0]);
        if (sp == 0)
            waitpid(pid, NULL, 0);
        rc = 0; /* no addr2line: no lines, not an error */
    }
    free(argv);
    free(buf);
    return rc;
}
