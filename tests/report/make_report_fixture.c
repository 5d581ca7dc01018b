/*
 * make_report_fixture DIR mixed|large [N]|timed: write a report test
 * directory (report_fixture.h; timed: tests/unit/timing_fixture.h) into DIR,
 * creating it.  For the CLI and browser tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_fixture.h"
#include "timing_fixture.h"

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: make_report_fixture DIR mixed|large [N]|timed\n");
        return 2;
    }
    if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_report_fixture: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    cp_error err = {{0}};
    int rc;
    if (strcmp(argv[2], "mixed") == 0) {
        rc = rfx_write_mixed(argv[1], &err);
    } else if (strcmp(argv[2], "large") == 0) {
        long n = argc == 4 ? strtol(argv[3], NULL, 10) : 1024;
        if (n < 2 || n > 65536) {
            fprintf(stderr, "make_report_fixture: N must be 2 to 65536\n");
            return 2;
        }
        rc = rfx_write_large(argv[1], n, &err);
    } else if (strcmp(argv[2], "timed") == 0) {
        tfx t;
        tfx_build(&t);
        rc = tfx_write(argv[1], &t, &err);
        tfx_free(&t);
    } else {
        fprintf(stderr, "make_report_fixture: unknown variant '%s'\n", argv[2]);
        return 2;
    }
    if (rc != 0) {
        fprintf(stderr, "make_report_fixture: %s\n", err.msg);
        return 1;
    }
    return 0;
}
