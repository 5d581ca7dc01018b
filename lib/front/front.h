/*
 * The front of libcollprof.so: what a process preloads or links.  Its only
 * exported functions are stubs named as the MPI functions collprof wraps;
 * each jumps, registers untouched, either into the core library
 * (libcollprof-core-<mpi>.so, loaded privately, RTLD_LOCAL) when the
 * process uses the MPI library collprof was built for, or into that other
 * MPI library itself: a program of the other MPI then runs exactly as
 * without collprof, which says so once.  Which one is decided before the
 * first MPI call (at load when the program is linked with its MPI, else at
 * its first MPI call: a Python program opens its MPI late).
 */
#ifndef COLLPROF_FRONT_H
#define COLLPROF_FRONT_H

#include <stddef.h>

#define CP_FRONT_HIDDEN __attribute__((visibility("hidden")))

/* 0: not decided; 1: this MPI, the core; 2: the other MPI (or no core). */
extern CP_FRONT_HIDDEN unsigned char cp_front_mode;
extern CP_FRONT_HIDDEN const size_t cp_front_n;
extern CP_FRONT_HIDDEN const char *const cp_front_names[];
/* Where each stub jumps: its own undecided path (cp_front_undecided_<i>)
 * until decided, then the core's function or the other MPI's.  One load
 * per call: a single table, no test of the mode (the stubs' memory lines
 * count in an application whose work evicts the caches). */
extern CP_FRONT_HIDDEN void *cp_front_jump[];
/* Decide (from a stub, every argument register saved around it). */
CP_FRONT_HIDDEN void cp_front_decide(void);

/* Each stub's first instruction (cp_front_at[i], 8-byte aligned): when
 * the library decides for the core as it loads, before the program runs,
 * it is rewritten as a direct jump into the core (front_direct.c), so that
 * a call reads no table at all. */
extern CP_FRONT_HIDDEN unsigned char *const cp_front_at[];
/* Rewrite the stubs as direct jumps into the core, where the table says
 * the core's function is (near enough for a 32-bit displacement) and the
 * system lets the library's code be written: how many were. */
CP_FRONT_HIDDEN size_t cp_front_direct(void);

/* A stub: name NAME, number I, its slot at byte offset OFF of the table.
 * When not decided, the argument registers (integer and vector, and %al of
 * a variadic call) are saved, cp_front_decide runs, and the stub starts
 * again.  The jump through the table is 6 bytes, and the 8-byte word it
 * begins is rewritten in one store (cp_front_direct). */
#define CP_FRONT_STUB(NAME, I, OFF)                                                       \
    __asm__(".text\n"                                                                     \
            ".p2align 3\n"                                                                \
            ".globl " #NAME "\n"                                                          \
            ".type " #NAME ", @function\n" #NAME ":\n"                                   \
            ".globl cp_front_at_" #I "\n"                                                 \
            ".hidden cp_front_at_" #I "\n"                                                \
            "cp_front_at_" #I ":\n"                                                       \
            "0:  jmp *cp_front_jump+" #OFF "(%rip)\n"                                     \
            ".globl cp_front_undecided_" #I "\n"                                          \
            ".hidden cp_front_undecided_" #I "\n"                                         \
            "cp_front_undecided_" #I ":\n"                                                \
            "    push %rbp\n"                                                             \
            "    mov %rsp, %rbp\n"                                                        \
            "    and $-16, %rsp\n"                                                        \
            "    push %rdi\n    push %rsi\n    push %rdx\n    push %rcx\n"                \
            "    push %r8\n    push %r9\n    push %rax\n    push %r10\n"                  \
            "    sub $128, %rsp\n"                                                        \
            "    movdqu %xmm0, 0(%rsp)\n    movdqu %xmm1, 16(%rsp)\n"                     \
            "    movdqu %xmm2, 32(%rsp)\n    movdqu %xmm3, 48(%rsp)\n"                    \
            "    movdqu %xmm4, 64(%rsp)\n    movdqu %xmm5, 80(%rsp)\n"                    \
            "    movdqu %xmm6, 96(%rsp)\n    movdqu %xmm7, 112(%rsp)\n"                   \
            "    call cp_front_decide\n"                                                  \
            "    movdqu 0(%rsp), %xmm0\n    movdqu 16(%rsp), %xmm1\n"                     \
            "    movdqu 32(%rsp), %xmm2\n    movdqu 48(%rsp), %xmm3\n"                    \
            "    movdqu 64(%rsp), %xmm4\n    movdqu 80(%rsp), %xmm5\n"                    \
            "    movdqu 96(%rsp), %xmm6\n    movdqu 112(%rsp), %xmm7\n"                   \
            "    add $128, %rsp\n"                                                        \
            "    pop %r10\n    pop %rax\n    pop %r9\n    pop %r8\n"                      \
            "    pop %rcx\n    pop %rdx\n    pop %rsi\n    pop %rdi\n"                    \
            "    mov %rbp, %rsp\n"                                                        \
            "    pop %rbp\n"                                                              \
            "    jmp 0b\n"                                                                \
            ".size " #NAME ", .-" #NAME "\n");

#endif
