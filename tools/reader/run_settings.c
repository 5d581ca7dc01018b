/* What a profile records of how its run was set up (reader_internal.h):
 * the manifest's COLLPROF_* settings, and from them, its missing files and
 * whether the run reached MPI_Finalize, why it has no timings. */
#include <stdio.h>
#include <string.h>

#include "file_names.h"
#include "reader_internal.h"

const char *cp_reader_setting(const cp_profile *p, const char *key)
{
    return p->has_manifest ? cp_kv_get(p->manifest.config, p->manifest.nconfig, key) : NULL;
}

const char *cp_reader_no_timings(const cp_profile *p, char *buf, size_t len)
{
    const char *mode = cp_reader_setting(p, "COLLPROF_TIMING"), *why;
    if (cp_reader_is_damaged(p, CP_FILE_TIMINGS))
        snprintf(buf, len, CP_FILE_TIMINGS " is damaged (see above)");
    else if (!mode)
        snprintf(buf, len, "no " CP_FILE_TIMINGS ", and the manifest does not record whether "
                           "timing was on");
    else if (!strcmp(mode, "off"))
        snprintf(buf, len, "timing was off (COLLPROF_TIMING=off)");
    else if (p->npartials)
        snprintf(buf, len, "timing was on (COLLPROF_TIMING=%s), but the run stopped before "
                           "MPI_Finalize and none of the ranks' partial profiles holds its "
                           CP_FILE_TIMINGS "%s", mode,
                 p->manifest.nmissing ? " (see missing)" : "");
    else if ((why = cp_kv_get(p->manifest.missing, p->manifest.nmissing, CP_FILE_TIMINGS)))
        snprintf(buf, len, "timing was on (COLLPROF_TIMING=%s), but " CP_FILE_TIMINGS
                           " could not be written: %s", mode, why);
    else
        snprintf(buf, len, "timing was on (COLLPROF_TIMING=%s), but " CP_FILE_TIMINGS
                           " is not in the directory", mode);
    return buf;
}
