/*
 * The symboliser asks debuginfod servers only when the user names some
 * (DEBUGINFOD_URLS): otherwise libdwfl would load the debuginfod client
 * library, and libcurl with it, the first time a module's debug file is not
 * on disk, to ask no server (about 10 ms of finalize).
 *
 * usage: test_source_lines PROGRAM_WITHOUT_DEBUG_INFO
 * Exit 0 when it holds; 1 when it does not; 77 when this machine has no
 * debuginfod client library (then nothing is loaded either way).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_lines.h"

static bool client_loaded(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, "libdebuginfod") != NULL;
    if (f)
        fclose(f);
    return found;
}

/* The lines of one address of path: none is known, the file is read. */
static int symbolise(const char *path)
{
    uint64_t addr = 0x1000;
    cp_line_at at;
    long found = cp_source_lines(path, &addr, 1, &at);
    if (found != 0 || at.line != -1) {
        fprintf(stderr, "FAIL: %s: %ld lines found (expected a readable module without lines)\n",
                path, found);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROGRAM_WITHOUT_DEBUG_INFO\n", argv[0]);
        return 2;
    }
    unsetenv("DEBUGINFOD_URLS");
    if (symbolise(argv[1]))
        return 1;
    /* A system program has a .gnu_debuglink whose file is not installed:
     * the search by that name finds nothing either. */
    if (access("/bin/true", R_OK) == 0 && cp_source_lines("/bin/true", (uint64_t[]){0x1000}, 1,
                                                          &(cp_line_at){0}) < 0) {
        fprintf(stderr, "FAIL: /bin/true cannot be read\n");
        return 1;
    }
    if (client_loaded()) {
        fprintf(stderr, "FAIL: the debuginfod client was loaded without DEBUGINFOD_URLS\n");
        return 1;
    }
    /* With a server named (a closed port: refused at once, nothing
     * fetched), libdwfl's own search runs and loads the client: the
     * check above can see it. */
    char cache[] = "/tmp/collprof-debuginfod-XXXXXX";
    if (!mkdtemp(cache))
        return 1;
    setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
    setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
    setenv("DEBUGINFOD_TIMEOUT", "2", 1);
    int rc = symbolise(argv[1]);
    char cmd[sizeof cache + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    if (system(cmd) != 0)
        fprintf(stderr, "note: %s left behind\n", cache);
    if (rc)
        return 1;
    if (!client_loaded()) {
        printf("SKIP: no debuginfod client library on this machine\n");
        return 77;
    }
    printf("PASS: the debuginfod client is loaded only when servers are named\n");
    return 0;
}
