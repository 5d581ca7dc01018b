/*
 * The stubs made direct jumps (front.h).  A stub jumps through its slot of
 * cp_front_jump: one more memory line on every MPI call, and in an
 * application whose work evicts the caches between collectives, one more
 * trip to memory.  Once the library has decided for the core as it loads,
 * before the program's own code runs, where each stub goes never changes;
 * its first instruction is then rewritten as `jmp rel32` to that place.
 *
 * Only what is safe is done, else the stub keeps its table (and every call
 * still arrives where it should): a target further than a 32-bit
 * displacement reaches is left alone, and so is every stub when the system
 * refuses to make the library's code writable (a policy against writable
 * code).  Each stub is 8-byte aligned and its 8-byte word is replaced in one
 * store, the bytes after the new jump unchanged, so that a thread already
 * running sees one instruction or the other.  A program whose MPI opens
 * late (Python) decides at its first MPI call, with other threads about:
 * its stubs keep the table.
 */
#include "front.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The 8-byte word of a stub whose first 5 bytes jump to target, or 0 when
 * the target is out of reach. */
static uint64_t direct_word(const unsigned char *at, const void *target)
{
    intptr_t rel = (intptr_t)target - (intptr_t)(at + 5);
    if (rel < INT32_MIN || rel > INT32_MAX)
        return 0;
    uint64_t word;
    memcpy(&word, at, sizeof word);
    uint32_t r = (uint32_t)(int32_t)rel;
    return (word & ~(uint64_t)0xffffffffff) | 0xe9 | (uint64_t)r << 8;
}

size_t cp_front_direct(void)
{
    if (cp_front_n == 0)
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (size_t i = 0; i < cp_front_n; i++) {
        uintptr_t a = (uintptr_t)cp_front_at[i];
        lo = a < lo ? a : lo;
        hi = a + 8 > hi ? a + 8 : hi;
    }
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return 0;
    lo &= ~((uintptr_t)page - 1);
    hi = (hi + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    /* Executable throughout: this function's own code may share a page
     * with the stubs. */
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < cp_front_n; i++) {
        uint64_t w = direct_word(cp_front_at[i], __atomic_load_n(&cp_front_jump[i], __ATOMIC_ACQUIRE));
        if (w) {
            __atomic_store_n((uint64_t *)(void *)cp_front_at[i], w, __ATOMIC_RELEASE);
            n++;
        }
    }
    mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
    return n;
}
