/*
 * Cube 4 profile `profile.cubex` (DESIGN.md section 6, docs/formats.md):
 * writer and parser of the model cp_cube (include/collprof/profile.h), and
 * a builder that the runtime uses to fill one.
 *
 * The file is a POSIX ustar archive holding anchor.xml (metadata: metrics,
 * regions, the call tree, the system tree) and, per metric N (its index in
 * cp_cube.metrics), N.index (which call-tree nodes have a row) and N.data
 * (one row of values per indexed node, one value per location), laid out
 * as Cube's own writer (cubew) lays them out, for Cube's readers (CubeGUI,
 * cube_dump, pycubexr).
 *
 * Ownership: a cp_cube owns everything it points to (arrays, attribute
 * strings, value arrays); cp_cube_free releases it all.  Strings handed to
 * the builder are copied.  The builder extends cubes that cp_cube_init or a
 * parser made (it keeps no capacities in the model: see reserve() in
 * cubex_model.c), not arrays allocated by hand.
 */
#ifndef COLLPROF_CUBEX_H
#define COLLPROF_CUBEX_H

/* anchor.xml is written as it is made, this many bytes at a time (and one
 * element more at most): the system tree of a million ranks is never held
 * whole, only the order of the ranks by host (8 bytes a rank). */
#define CP_CUBEX_ANCHOR_CHUNK 65536

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collprof/profile.h"

/* ------------------------------------------------------------- builder */

/* Start an empty cube for nlocations locations (location i = world rank i).
 * Every location starts without a host (-1): give each one with
 * cp_cube_set_location_host before writing.  Returns 0, or -1 when out of
 * memory (c is then empty).  c need not be initialised. */
int cp_cube_init(cp_cube *c, size_t nlocations);

/* Append a copy of *m / *r; returns its index (metric id / region id), or -1
 * (out of memory; for a metric: an empty or duplicate uniq_name, or a dtype
 * other than DOUBLE and UINT64, with errno EINVAL).  A metric added after
 * cp_cube_tree_finish gets its zeroed values at once. */
int64_t cp_cube_add_metric(cp_cube *c, const cp_cube_metric *m);
int64_t cp_cube_add_region(cp_cube *c, const cp_cube_region *r);
/* Append a host (a node of the machine; the name is cut to the model's 255
 * bytes); returns its index, or -1. */
int64_t cp_cube_add_host(cp_cube *c, const char *name);
/* Location loc runs on host `host`.  0, or -1 (errno EINVAL) when either is
 * out of range. */
int cp_cube_set_location_host(cp_cube *c, size_t loc, int64_t host);
/* Append an <attr key value/> of the anchor (copied).  0 or -1. */
int cp_cube_add_attr(cp_cube *c, const char *key, const char *value);

/* Add a call-tree node below `parent` (a handle returned earlier, or -1 for
 * a root) calling region `region`, called from line/mod (-1 / NULL or ""
 * when unknown).  Nodes may come in any order (a grandchild before its
 * parent's siblings): the handle returned is only a name for this node until
 * cp_cube_tree_finish numbers the tree.  -1 (errno EINVAL) for an unknown
 * parent or region, or after cp_cube_tree_finish; -1 when out of memory. */
int64_t cp_cube_tree_add(cp_cube *c, int64_t parent, int64_t region, int64_t line,
                         const char *mod);
/* Number the call tree depth-first in pre-order (roots, and each node's
 * children, in the order they were added), as Cube requires, and allocate
 * zeroed values for every metric.  handle_to_id (caller-allocated, one entry
 * per handle, may be NULL) receives the cnode id of every handle.  Returns
 * 0, or -1 when out of memory or called twice (errno EINVAL). */
int cp_cube_tree_finish(cp_cube *c, int64_t *handle_to_id);
/* The same without the values: for a profile whose rows are written as
 * they come (cp_cubex_write_rows), never all held at once.  Afterwards
 * c->values stays NULL and c->finished is set. */
int cp_cube_tree_finish_meta(cp_cube *c, int64_t *handle_to_id);

/* values[m][cnode][loc] += v, for a DOUBLE / a UINT64 metric (after
 * cp_cube_tree_finish).  Out-of-range indices and the wrong dtype are
 * ignored: the runtime never stops for a profile value. */
void cp_cube_add_double(cp_cube *c, size_t m, size_t cnode, size_t loc, double v);
void cp_cube_add_u64(cp_cube *c, size_t m, size_t cnode, size_t loc, uint64_t v);

/* Index of the metric with this unique name, or -1. */
int64_t cp_cube_find_metric(const cp_cube *c, const char *uniq_name);

/* Deep equality: every field, values bit for bit. */
bool cp_cube_equal(const cp_cube *a, const cp_cube *b);

/* ---------------------------------------------------------- write, read */

/* Refused before anything is written (err says what): no metric, region,
 * cnode or location (Cube needs at least one of each); cnodes not in
 * depth-first pre-order; an unknown region, dtype or host; a metric without
 * values, with an empty or duplicate uniq_name; a string field without its
 * NUL; an attribute key written by collprof itself (CP_CUBEX_RESERVED_ATTRS)
 * or longer than CP_CUBEX_MAX_ATTR_LEN.  Bytes that XML cannot carry (control
 * characters, invalid UTF-8) are written as '?'. */

/* Write c as profile.cubex to path, atomically: to "<path>.tmp.<pid>.<random>",
 * renamed on success; on error nothing is left behind. */
int cp_cubex_write(const char *path, const cp_cube *c, cp_error *err);
/* Row m, cnode of a profile written as it comes: raw[l] the value of
 * location l, 8 bytes as the metric's dtype (a double's bits).  Returns 0,
 * or -1 to stop writing (err set by the writer). */
typedef int (*cp_cubex_row_fn)(void *ctx, size_t m, size_t cnode, uint64_t *raw);

/* Write c's metadata (finished with cp_cube_tree_finish_meta, or with
 * values, which are then not used) and each metric's rows from row(),
 * called in the file's order: metric by metric, cnode ids ascending, only
 * the rows with nonzero[m * ncnodes + cnode] set (the rows every location
 * holds 0 in are left out, as cp_cubex_write leaves them out).  The file is
 * the same as cp_cubex_write's of the same values.  Atomic like it. */
int cp_cubex_write_rows(const char *path, const cp_cube *c, const uint8_t *nonzero,
                        cp_cubex_row_fn row, void *ctx, cp_error *err);
/* The same archive in memory (*data malloc'ed, free with free()). */
int cp_cubex_format(const cp_cube *c, void **data, size_t *len, cp_error *err);

/* Parse an archive from memory; `name` starts every error message, e.g.
 * "profile.cubex: 3.index: cnode ids not ascending at entry 4" or
 * "profile.cubex: anchor.xml:12: expected </region>, found <cnode>".
 * *out is overwritten (not freed first); on error it is left empty.  Reads
 * exactly len bytes, never more. */
int cp_cubex_parse_mem(const void *data, size_t len, const char *name, cp_cube *out,
                       cp_error *err);
/* Read and parse a file (a gzip-compressed archive is read too). */
int cp_cubex_read(const char *path, cp_cube *out, cp_error *err);

/* Attribute keys that the writer emits itself ("CubePL Version", "Cube
 * Version", "Cube anchor.xml syntax version"): the parser does not put them
 * into the model, the writer refuses them in it. */
#define CP_CUBEX_RESERVED_ATTRS 3
extern const char *const cp_cubex_reserved_attrs[CP_CUBEX_RESERVED_ATTRS];
/* Longest attribute key or value, in bytes, that is written and read. */
#define CP_CUBEX_MAX_ATTR_LEN 65536

#endif
