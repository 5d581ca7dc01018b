/* The call sites of profile.cubex's MPI cnodes: writer and parser of the
 * "collprof call sites" attributes (cubex_callsites.h). */
#include "cubex_callsites.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "file_names.h"

/* The key of chunk k (0-based): the first has no number. */
static void chunk_key(size_t k, char *key, size_t len)
{
    if (k == 0)
        snprintf(key, len, "%s", CP_CUBE_CALLSITES_KEY);
    else
        snprintf(key, len, "%s %zu", CP_CUBE_CALLSITES_KEY, k + 1);
}

int cp_cube_put_callsites(cp_cube *c, const int64_t *cnode, const int64_t *site, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cnode[i] < 0 || site[i] < 0 || (i > 0 && cnode[i] <= cnode[i - 1])) {
            errno = EINVAL;
            return -1;
        }
    char *buf = malloc(CP_CUBE_CALLSITES_CHUNK + 1);
    if (!buf)
        return -1;
    size_t used = 0, chunk = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i <= n; i++) {
        char pair[48] = "";
        if (i < n)
            snprintf(pair, sizeof pair, "%s%" PRId64 "=%" PRId64, used ? " " : "", cnode[i],
                     site[i]);
        size_t len = strlen(pair);
        if (used && (i == n || used + len > CP_CUBE_CALLSITES_CHUNK)) {
            char key[64];
            chunk_key(chunk++, key, sizeof key);
            buf[used] = '\0';
            rc = cp_cube_add_attr(c, key, buf);
            used = 0;
            if (i < n) /* the pair opens the next chunk, without its space */
                len = (size_t)snprintf(pair, sizeof pair, "%" PRId64 "=%" PRId64, cnode[i],
                                       site[i]);
        }
        memcpy(buf + used, pair, len);
        used += len;
    }
    free(buf);
    return rc;
}

static int cmp_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int cp_cube_put_callsites_any_order(cp_cube *c, const int64_t *cnode, const int64_t *site,
                                    size_t n)
{
    int64_t(*pair)[2] = malloc((n ? n : 1) * sizeof *pair);
    int64_t *cn = malloc((n ? n : 1) * sizeof *cn), *st = malloc((n ? n : 1) * sizeof *st);
    int rc = -1;
    if (pair && cn && st) {
        for (size_t i = 0; i < n; i++)
            pair[i][0] = cnode[i], pair[i][1] = site[i];
        qsort(pair, n, sizeof *pair, cmp_pair);
        for (size_t i = 0; i < n; i++)
            cn[i] = pair[i][0], st[i] = pair[i][1];
        rc = cp_cube_put_callsites(c, cn, st, n);
    }
    free(pair);
    free(cn);
    free(st);
    return rc;
}

static const char *find_attr(const cp_cube *c, const char *key)
{
    for (size_t i = 0; i < c->nattrs; i++)
        if (!strcmp(c->attrs[i].key, key))
            return c->attrs[i].value;
    return NULL;
}

/* One chunk's pairs into site_of; last = the last cnode id seen. */
static int parse_chunk(const cp_cube *c, const char *key, const char *s, int64_t *site_of,
                       int64_t *last, cp_error *err)
{
    while (*s) {
        char *end;
        errno = 0;
        long long cn = strtoll(s, &end, 10);
        if (end == s || *end != '=' || errno || cn < 0)
            return cp_error_set(err, CP_FILE_CUBE ": attribute \"%s\": expected cnode=call-site "
                                     "pairs, found \"%.20s\"",
                                key, s);
        s = end + 1;
        long long id = strtoll(s, &end, 10);
        if (end == s || (*end && *end != ' ') || errno || id < 0)
            return cp_error_set(err, CP_FILE_CUBE ": attribute \"%s\": expected a call-tree id "
                                     "after \"%lld=\", found \"%.20s\"",
                                key, cn, s);
        if ((uint64_t)cn >= c->ncnodes || cn <= *last)
            return cp_error_set(err, CP_FILE_CUBE ": attribute \"%s\": cnode %lld %s", key, cn,
                                (uint64_t)cn >= c->ncnodes ? "is not in the call tree"
                                                           : "is not after the one before");
        site_of[cn] = id;
        *last = cn;
        s = *end ? end + 1 : end;
    }
    return 0;
}

int cp_cube_get_callsites(const cp_cube *c, int64_t *site_of, cp_error *err)
{
    for (size_t i = 0; i < c->ncnodes; i++)
        site_of[i] = -1;
    int64_t last = -1;
    size_t k = 0;
    for (;; k++) {
        char key[64];
        chunk_key(k, key, sizeof key);
        const char *v = find_attr(c, key);
        if (!v)
            break;
        if (parse_chunk(c, key, v, site_of, &last, err))
            return -1;
    }
    return k > 0;
}
