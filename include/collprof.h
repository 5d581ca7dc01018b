/*
 * collprof runtime control API.  Link with -lcollprof (pkg-config collprof)
 * to call these; an application that only runs under LD_PRELOAD can use the
 * standard MPI_Pcontrol(0) / MPI_Pcontrol(1) instead.
 */
#ifndef COLLPROF_H
#define COLLPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#define COLLPROF_VERSION_STRING "0.1.0"

/* Stop / resume recording count vectors.  Calls made while paused keep
 * their call numbers, so indices stay comparable across ranks and runs.
 * Same as MPI_Pcontrol(0) / MPI_Pcontrol(1). */
void collprof_pause(void);
void collprof_resume(void);
/* 1 when MPI is initialised, not finalised, and recording is not paused. */
int collprof_is_recording(void);
const char *collprof_version(void);

#ifdef __cplusplus
}
#endif
#endif
