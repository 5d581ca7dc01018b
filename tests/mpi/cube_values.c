/*
 * profile.cubex as collprof's own parser reads it, printed the way
 * cubelib's `cube_dump -w` and `cube_dump -m all -z excl -s csv2` print it
 * (robustness.sh, case cube-tools, compares the two):
 *   metric UNIQ_NAME DEPTH            one per metric, in order (DEPTH in
 *                                     the metric tree, 0: a root)
 *   cnode DEPTH REGION LINE           the call tree, depth-first (LINE: of
 *                                     the call site, -1 unknown)
 *   then the CSV: "Cnode ID, Thread ID,<metrics>" and one line per
 *   (cnode, location) with every metric's (exclusive) value.
 * usage: cube_values FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "cubex.h"

static int depth_of(const cp_cube *c, size_t i)
{
    int d = 0;
    for (int64_t p = c->cnodes[i].parent; p >= 0; p = c->cnodes[p].parent)
        d++;
    return d;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cube_values FILE\n");
        return 2;
    }
    cp_cube c;
    cp_error err = {{0}};
    if (cp_cubex_read(argv[1], &c, &err)) {
        fprintf(stderr, "cube_values: %s\n", err.msg);
        return 1;
    }
    for (size_t m = 0; m < c.nmetrics; m++) {
        int depth = 0;
        for (int64_t p = cp_cube_find_metric(&c, c.metrics[m].parent); p >= 0;
             p = cp_cube_find_metric(&c, c.metrics[p].parent))
            depth++;
        printf("metric %s %d\n", c.metrics[m].uniq_name, depth);
    }
    for (size_t i = 0; i < c.ncnodes; i++)
        printf("cnode %d %s %lld\n", depth_of(&c, i), c.regions[c.cnodes[i].region].name,
               (long long)c.cnodes[i].line);
    printf("Cnode ID, Thread ID");
    for (size_t m = 0; m < c.nmetrics; m++)
        printf(",%s", c.metrics[m].uniq_name);
    printf("\n");
    for (size_t i = 0; i < c.ncnodes; i++)
        for (size_t l = 0; l < c.nlocations; l++) {
            printf("%zu,%zu", i, l);
            for (size_t m = 0; m < c.nmetrics; m++)
                if (c.metrics[m].dtype == CP_CUBE_DOUBLE)
                    printf(",%.17g", cp_cube_get_double(&c, m, i, l));
                else
                    printf(",%llu", (unsigned long long)cp_cube_get_u64(&c, m, i, l));
            printf("\n");
        }
    cp_cube_free(&c);
    return 0;
}
