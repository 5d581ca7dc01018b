/*
 * Which call site each MPI cnode of profile.cubex stands for: the join
 * between the Cube call tree and manifest.json's call tree
 * (docs/formats.md, "Call tree").
 *
 * In the Cube, a function is one node under its caller however many places
 * in it call MPI (a prefix tree of functions, as Scalasca draws it), and
 * each MPI cnode below it is one call site: one node of the manifest's call
 * tree, whose address gives the file and line.  Which one is not visible
 * from the tree's shape, so the file says it, in anchor attributes:
 *
 *     <attr key="collprof call sites" value="3=0 5=1 6=2"/>
 *
 * "cnode=call-tree id" pairs, separated by one space, cnode ids ascending;
 * a value longer than CP_CUBE_CALLSITES_CHUNK bytes continues in the
 * attributes "collprof call sites 2", "... 3", and so on (Cube attributes
 * are kept short).  Files without the attribute are older: there each MPI
 * cnode's parent is its call site, the k-th non-MPI cnode after the root
 * being call-tree node k.
 */
#ifndef COLLPROF_CUBEX_CALLSITES_H
#define COLLPROF_CUBEX_CALLSITES_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"

#define CP_CUBE_CALLSITES_KEY "collprof call sites"
#define CP_CUBE_CALLSITES_CHUNK 60000

/* Add the attributes for n pairs (cnode[i], site[i]), cnode ids ascending.
 * 0, or -1 when out of memory or given a pair out of order (errno EINVAL). */
int cp_cube_put_callsites(cp_cube *c, const int64_t *cnode, const int64_t *site, size_t n);
/* The same for pairs in any order (each cnode once), put in order here.
 * 0, or -1 when out of memory or given a cnode twice (errno EINVAL). */
int cp_cube_put_callsites_any_order(cp_cube *c, const int64_t *cnode, const int64_t *site,
                                    size_t n);

/* site_of[k] (c->ncnodes entries) = the call-tree id of cnode k, -1 for the
 * cnodes without one.  Returns 1 when c has the attributes, 0 when it has
 * none (site_of all -1), -1 with err set when a value is not as above
 * ("profile.cubex: attribute \"collprof call sites\": ..."). */
int cp_cube_get_callsites(const cp_cube *c, int64_t *site_of, cp_error *err);

#endif
