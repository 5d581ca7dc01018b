/*
 * `collprof diff`'s call sites: each profile's call paths (profile.cubex's
 * time and waiting per path, `collprof callsites`), matched across the two
 * by what names them in the code: the functions of the path, innermost
 * first, and where the call is, file:line (module+offset when the binary
 * has no line information).  Addresses alone would not match across two
 * builds; names and lines do as long as the code around the call stays.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

/* "exchange < main at app.c:46": the path's names (no addresses, which
 * differ between builds) and where the call is. */
static void key_of(const cp_profile *p, const cp_callsite_row *r, char *key, size_t size)
{
    char path[600], where[400]; /* cut alike on both sides; the key holds both */
    cp_callsite_path(&p->manifest, r->id, false, path, sizeof path);
    cp_callsite_where(r, false, where, sizeof where);
    snprintf(key, size, "%s at %s", path, where);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const cp_diff_site *)a)->key, ((const cp_diff_site *)b)->key);
}

int cp_diff_sites(const cp_profile *a, const cp_profile *b, cp_diff *d)
{
    const cp_profile *p[2] = {a, b};
    cp_callsite_row *rows[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        cp_error ignored; /* no call paths, no profile.cubex: no sites, not an error */
        d->has_sites[k] = p[k]->has_manifest && p[k]->manifest.ncall_tree > 0 &&
                          cp_profile_callsites(p[k], true, &rows[k], &n[k], &ignored) == 0;
    }
    cp_diff_site *v = calloc(n[0] + n[1] + 1, sizeof *v);
    if (!v) {
        free(rows[0]);
        free(rows[1]);
        return -1;
    }
    size_t nv = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n[k]; i++) {
            cp_diff_site *x = &v[nv++];
            key_of(p[k], &rows[k][i], x->key, sizeof x->key);
            x->present[k] = true;
            x->calls[k] = rows[k][i].calls;
            x->time[k] = rows[k][i].time;
            x->wait[k] = rows[k][i].waiting;
        }
    if (nv)
        qsort(v, nv, sizeof *v, by_key);
    /* Entries of one key (either profile, possibly several paths of one
     * profile that name the same place) add up. */
    size_t m = 0;
    for (size_t i = 0; i < nv; i++) {
        if (m && strcmp(v[m - 1].key, v[i].key) == 0) {
            for (int k = 0; k < 2; k++) {
                v[m - 1].present[k] |= v[i].present[k];
                v[m - 1].calls[k] += v[i].calls[k];
                v[m - 1].time[k] += v[i].time[k];
                v[m - 1].wait[k] += v[i].wait[k];
            }
        } else {
            v[m++] = v[i];
        }
    }
    d->sites = v;
    d->nsites = m;
    free(rows[0]);
    free(rows[1]);
    return 0;
}
