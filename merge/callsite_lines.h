/*
 * The callsite collector's finalize side, at world rank 0: the source file
 * and line of every call site of the job's call tree, looked up in the
 * module files with elfutils' libdwfl, once the run is over and while
 * those files are the builds that ran (their GNU build-id is the one the
 * run recorded): a program rebuilt after the run can then never relabel a
 * site, and the reader shows the lines of the run.  Modules without debug
 * information keep no line.  No MPI.
 */
#ifndef COLLPROF_CALLSITE_LINES_H
#define COLLPROF_CALLSITE_LINES_H

#include <stddef.h>

#include "collprof/profile.h"

/* Fill file and line of the call-site nodes of tree[0..n) (nodes with an
 * address) whose module is listed in modules[0..nmodules) (path -> build-id)
 * and whose file on disk has that build-id.  Returns the number of nodes
 * given a line. */
size_t cp_callsite_lines(cp_callsite_node *tree, size_t n, const cp_kv *modules,
                         size_t nmodules);

#endif
