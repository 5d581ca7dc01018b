/*
 * Which rank a partial profile is: a folder partial.rank<R> by its name,
 * a rank's partial profile read alone by its manifest.  The merge of the
 * ranks' folders (partials.c), the placing of a rank's timed calls
 * (partial_timings.c) and of its Cube file (partial_paths.c) all ask.
 */
#include <stdint.h>
#include <string.h>

#include "file_names.h"
#include "reader_internal.h"

/* "partial.rank<R>" exactly -> R, else -1 */
int64_t cp_reader_partial_rank(const char *name)
{
    const char *p = CP_FILE_PARTIAL;
    size_t n = strlen(p);
    if (strncmp(name, p, n) != 0 || !name[n])
        return -1;
    int64_t r = 0;
    for (const char *c = name + n; *c; c++) {
        if (*c < '0' || *c > '9' || r > INT64_MAX / 10 - 10 || (c == name + n + 1 && r == 0))
            return -1; /* digits only, no leading zero */
        r = r * 10 + (*c - '0');
    }
    return r;
}

int64_t cp_reader_own_partial_rank(const cp_profile *p)
{
    /* One rank's partial profile: its manifest's state says which rank (a
     * manifest written before it did: the folder's name, partial.rank<R>).
     * A whole profile marked partial (memory ran out on some rank) is
     * neither, and its files are the world's. */
    if (!p->has_manifest || !p->manifest.partial || p->npartials)
        return -1;
    const char *base = strrchr(p->dir, '/');
    return p->manifest.has_state ? p->manifest.state.rank
                                 : cp_reader_partial_rank(base ? base + 1 : p->dir);
}
