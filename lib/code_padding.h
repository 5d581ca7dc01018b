/*
 * Code placement for measurement builds only (meson option `code_padding`,
 * bench/hotpath_placements.sh): n bytes of padding in .text at this point
 * move the code after it by n bytes and change nothing else.  On some CPUs
 * the hot path's time depends on where its code lies as much as on what it
 * does (docs/performance.md), so a change is judged over several
 * placements, never at one.  Ordinary builds define no padding.
 */
#ifndef COLLPROF_CODE_PADDING_H
#define COLLPROF_CODE_PADDING_H

/* A macro's value as a string, for assembly text (this padding, and the
 * wrappers' assembly, gen_wrappers.py). */
#define CP_STRING2(x) #x
#define CP_STRING(x) CP_STRING2(x)
#define CP_PLACEMENT_PAD(name, bytes)                                                     \
    __attribute__((used, noinline)) static void name(void)                               \
    {                                                                                     \
        __asm__ volatile(".skip " CP_STRING(bytes));                                      \
    }

#endif
