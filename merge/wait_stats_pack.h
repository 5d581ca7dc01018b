/*
 * The statistics of wait-state instances as finalize's messages carry them
 * up the tree of ranks (model/wait_stats.h keeps them; pack.h the format).
 */
#ifndef COLLPROF_WAIT_STATS_PACK_H
#define COLLPROF_WAIT_STATS_PACK_H

#include "pack.h"
#include "wait_stats.h"

void cp_wstat_pack(cp_wbuf *b, const cp_wstat *w);
/* Returns 0, or -1 (b->bad: malformed; or out of memory). */
int cp_wstat_unpack(cp_rbuf *b, cp_wstat *w);

#endif
