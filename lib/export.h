/* The library is built with hidden visibility: only what is marked here
 * (the MPI entry points and the public collprof_ API) is exported. */
#ifndef COLLPROF_EXPORT_H
#define COLLPROF_EXPORT_H
#define CP_EXPORT __attribute__((visibility("default")))
#endif
