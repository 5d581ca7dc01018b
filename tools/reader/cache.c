/*
 * Files of a profile read on demand, once: profile.cubex is asked for by
 * the findings (the share of the run, the call sites), the report's
 * charts, `callsites` and `check`; one summary or report reads it once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "reader_internal.h"
#include "file_names.h"

struct cp_reader_cache {
    bool cube_tried;
    int cube_rc;
    cp_error cube_err;
    cp_cube cube;
    bool has_stat; /* partial profiles' wait-state statistics, made at load */
    cp_stat_file stat;
};

static int read_cube(const cp_profile *p, cp_cube *c, cp_error *err)
{
    char path[sizeof p->dir + 32];
    snprintf(path, sizeof path, "%s/" CP_FILE_CUBE, p->dir);
    return cp_cubex_read(path, c, err);
}

int cp_reader_cube(const cp_profile *p, const cp_cube **c, cp_cube *own, bool *owned,
                   cp_error *err)
{
    struct cp_reader_cache *k = p->cache;
    *owned = k == NULL;
    if (!k) {
        *c = own;
        return read_cube(p, own, err);
    }
    if (!k->cube_tried) {
        k->cube_tried = true;
        k->cube_rc = read_cube(p, &k->cube, &k->cube_err);
    }
    if (k->cube_rc) {
        *err = k->cube_err;
        return -1;
    }
    *c = &k->cube;
    return 0;
}

const cp_cube *cp_reader_cached_cube(const cp_profile *p)
{
    const struct cp_reader_cache *k = p->cache;
    return k && k->cube_tried && k->cube_rc == 0 ? &k->cube : NULL;
}

int cp_reader_cache_set_cube(cp_profile *p, cp_cube *c)
{
    if (!p->cache && !(p->cache = cp_reader_cache_new()))
        return -1;
    struct cp_reader_cache *k = p->cache;
    if (k->cube_tried && k->cube_rc == 0)
        cp_cube_free(&k->cube);
    k->cube_tried = true;
    k->cube_rc = 0;
    k->cube = *c; /* taken over */
    memset(c, 0, sizeof *c);
    return 0;
}

int cp_reader_cache_set_stat(cp_profile *p, cp_stat_file *s)
{
    if (!p->cache && !(p->cache = cp_reader_cache_new()))
        return -1;
    struct cp_reader_cache *k = p->cache;
    if (k->has_stat)
        cp_stat_file_free(&k->stat);
    k->stat = *s; /* taken over */
    k->has_stat = true;
    memset(s, 0, sizeof *s);
    return 0;
}

const cp_stat_file *cp_reader_cached_stat(const cp_profile *p)
{
    const struct cp_reader_cache *k = p->cache;
    return k && k->has_stat ? &k->stat : NULL;
}

const cp_stat_file *cp_profile_partial_stat(const cp_profile *p)
{
    return p->npartials ? cp_reader_cached_stat(p) : NULL;
}

struct cp_reader_cache *cp_reader_cache_new(void)
{
    return calloc(1, sizeof(struct cp_reader_cache));
}

void cp_reader_cache_free(struct cp_reader_cache *k)
{
    if (!k)
        return;
    if (k->cube_tried && k->cube_rc == 0)
        cp_cube_free(&k->cube);
    if (k->has_stat)
        cp_stat_file_free(&k->stat);
    free(k);
}
