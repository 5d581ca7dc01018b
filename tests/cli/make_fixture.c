/*
 * make_fixture DIR VARIANT: write one of the reader fixture directories
 * (tests/unit/reader_fixture.c) into DIR, creating it.  For the CLI tests.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "reader_fixture.h"

static const struct {
    const char *name;
    enum fx_variant v;
} variants[] = {
    {"good", FX_GOOD},
    {"gzip", FX_GZIP},
    {"recv-altered", FX_RECV_ALTERED},
    {"overlap", FX_OVERLAP},
    {"manifest-mismatch", FX_MANIFEST_MISMATCH},
    {"syntax-error", FX_SYNTAX_ERROR},
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_fixture DIR VARIANT\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        if (strcmp(argv[2], variants[i].name) != 0)
            continue;
        if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "make_fixture: %s: %s\n", argv[1], strerror(errno));
            return 1;
        }
        cp_error err = {{0}};
        if (fx_write(argv[1], variants[i].v, &err) != 0) {
            fprintf(stderr, "make_fixture: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "make_fixture: unknown variant '%s'\n", argv[2]);
    return 2;
}
