/*
 * The job's slowest calls as timings.cpt's aggregates carry them (world
 * rank 0's chunk; finalize merges every rank's up a tree), one line each,
 * slowest first, for robustness.sh (case late-rank) to check:
 *   slow COLLECTIVE RANK SECONDS
 * usage: cpt_slowest FILE
 */
#include <inttypes.h>
#include <stdio.h>

#include "cpt.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cpt_slowest FILE\n");
        return 2;
    }
    cp_cpt_file f;
    cp_error err;
    if (cp_cpt_read(argv[1], &f, &err)) {
        fprintf(stderr, "cpt_slowest: %s\n", err.msg);
        return 1;
    }
    int rc = 1;
    for (uint64_t r = 0; r < f.world_size; r++) {
        const cp_cpt_chunk *c = &f.chunks[r];
        if (!c->has_aggregates)
            continue;
        for (size_t i = 0; i < c->agg.nslowest; i++)
            printf("slow %s %" PRId64 " %.6f\n", c->agg.slowest[i].collective,
                   c->agg.slowest[i].rank, c->agg.slowest[i].duration);
        rc = 0;
    }
    cp_cpt_file_free(&f);
    return rc;
}
