#ifndef CPT_CALLSITE_LIB_H
#define CPT_CALLSITE_LIB_H
/* Exported: the project builds with -fvisibility=hidden. */
#define CPT_LIB_API __attribute__((visibility("default")))
CPT_LIB_API extern int cpt_lib_line;
CPT_LIB_API void cpt_lib_allreduce(int count);
#endif
