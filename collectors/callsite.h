/*
 * Callsite collector: from where in the application each call was made.
 *
 * A call path is the return addresses of the innermost COLLPROF_CALLSITE_DEPTH
 * frames of the application, innermost first, skipping the frames of
 * collprof itself and of the MPI library (its Fortran bindings call the C
 * functions we wrap).  Each distinct path gets a small id on this rank; its
 * frames are resolved here, on the rank that ran them, to (module path,
 * address in the module, function) the first time the path is seen:
 * address-space layouts differ between processes, so only this process can
 * do it.  World rank 0 merges every rank's paths into one call tree at
 * finalize (lib/finalize_callsites.c).
 *
 * The common case costs a hash of the return addresses: depth 1 takes the
 * wrapper's own return address (no unwinding) unless it lies in the MPI
 * library; deeper paths use libunwind's unw_backtrace.
 */
#ifndef COLLPROF_CALLSITE_H
#define COLLPROF_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_CALLSITE_MAX_DEPTH 32
/* Distinct call paths per rank; later ones are "unknown" (reported once). */
#define CP_CALLSITE_MAX_PATHS 4096
/* No call path (collector off, unknown, or over the limit). */
#define CP_CALLSITE_NONE UINT32_MAX

typedef struct cp_frame {
    char module[1024];   /* path of the executable or shared object */
    uint64_t address;    /* return address minus the module's load bias: what
                            addr2line and the symbol table of the file use */
    char function[256];  /* "" when the symbol table does not say */
} cp_frame;

typedef struct cp_callpath {
    uint32_t nframes;
    cp_frame *frames;    /* innermost (the caller of MPI) first */
} cp_callpath;

/* Set the depth (0: off) and find the modules to skip.  `self` is any
 * function of libcollprof. */
void cp_callsite_start(int depth, const void *self);

/* The path of the current call; ra is the wrapper's return address.
 * Thread-safe; allocation only for a path not seen before.  *by_address
 * (may be NULL) tells whether the path is ra alone (depth 1, ra outside
 * the skipped modules): then the same ra always gives the same path, and
 * the caller may remember it. */
uint32_t cp_callsite_capture(void *ra, bool *by_address);

/* The paths seen so far, ids 0 .. n-1. */
uint32_t cp_callsite_count(void);
const cp_callpath *cp_callsite_path(uint32_t id);

#endif
