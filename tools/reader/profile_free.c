/* cp_profile_free: what cp_profile_load (load.c) allocated, released. */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"

void cp_profile_free(cp_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nfiles; i++)
        cp_counts_file_free(&p->files[i]);
    free(p->files);
    if (p->has_manifest)
        cp_manifest_free(&p->manifest);
    if (p->has_timings)
        cp_cpt_file_free(&p->timings);
    for (size_t i = 0; i < p->nstops; i++) {
        free(p->stops[i].key);
        free(p->stops[i].value);
    }
    free(p->stops);
    for (size_t i = 0; i < p->ndamaged; i++) {
        free(p->damaged[i].key);
        free(p->damaged[i].value);
    }
    free(p->damaged);
    cp_ranges_free(&p->absent);
    cp_reader_cache_free(p->cache);
    memset(p, 0, sizeof *p);
}
