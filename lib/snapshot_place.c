/* Where this rank's snapshots went (snapshot_place.h). */
#include "snapshot_place.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_names.h"
#include "outdir.h"

static char base_dir[4096];

void cp_snapshot_place_set(const char *base)
{
    snprintf(base_dir, sizeof base_dir, "%s", base);
}

bool cp_snapshot_place_get(char *out, size_t len)
{
    if (!base_dir[0])
        return false;
    snprintf(out, len, "%s", base_dir);
    return true;
}

void cp_snapshot_place_forget(const char *kept, int rank)
{
    if (!base_dir[0])
        return;
    char folder[4200];
    snprintf(folder, sizeof folder, "%.4000s/" CP_FILE_PARTIAL "%d", base_dir, rank);
    cp_outdir_remove_folder(folder);
    if (strcmp(base_dir, kept) != 0)
        rmdir(base_dir); /* only when nothing else is left in it */
    base_dir[0] = '\0';
}
