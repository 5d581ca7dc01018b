/*
 * Where this rank's snapshots went (lib/partial.c writes them): finalize
 * writes the whole profile there and removes the last snapshot, so that a
 * normal end leaves none behind.  Kept apart from the writer so that
 * finalize's driver and the partial profile's do not depend on each other.
 */
#ifndef COLLPROF_SNAPSHOT_PLACE_H
#define COLLPROF_SNAPSHOT_PLACE_H

#include <stdbool.h>
#include <stddef.h>

/* The output directory this rank's last snapshot went to. */
void cp_snapshot_place_set(const char *base);
/* It, if this rank wrote a snapshot. */
bool cp_snapshot_place_get(char *out, size_t len);
/* After a normal finalize: rank's last snapshot folder is removed, and the
 * directory it was in too when it is not `kept` (the profile's) and nothing
 * else is left in it. */
void cp_snapshot_place_forget(const char *kept, int rank);

#endif
