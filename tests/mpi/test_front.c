/*
 * Where the front's stubs jump.  A program linked with its MPI (this one)
 * has the library decide for the core as it loads: each stub's first
 * instruction is then a direct jump into the core's function of the same
 * name, and a call reads no table (lib/front/front_direct.c).  With
 * COLLPROF_FRONT_DIRECT=0 (argument "table") the stubs keep their jump
 * through the table.  The calls made here are counted either way: the run
 * is checked by `collprof check`, and the profile's calls here.
 *
 * usage: test_front [table]
 * Prints "front: PASS ..." and exits 0, or says what it found and exits 1.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {"MPI_Bcast", "MPI_Alltoallv", "MPI_Allreduce", "MPI_Barrier",
                                    "MPI_Comm_dup"};

/* The object file a code address lies in and the symbol it starts, or "". */
static void where(const void *p, const char **file, const char **sym)
{
    Dl_info info;
    *file = *sym = "";
    if (dladdr(p, &info)) {
        *file = info.dli_fname ? info.dli_fname : "";
        *sym = info.dli_sname && info.dli_saddr == p ? info.dli_sname : "";
    }
}

static int check(const char *name, int want_direct)
{
    const unsigned char *stub = dlsym(RTLD_DEFAULT, name);
    const char *file, *sym;
    where(stub, &file, &sym);
    if (!stub || !strstr(file, "libcollprof")) {
        printf("front: %s is not the front's stub (it is in %s)\n", name, file);
        return 1;
    }
    if (!want_direct) {
        /* jmp *disp32(%rip) */
        if (stub[0] == 0xff && stub[1] == 0x25)
            return 0;
        printf("front: %s does not jump through the table (first byte %#x)\n", name, stub[0]);
        return 1;
    }
    if (stub[0] != 0xe9) {
        printf("front: %s is not a direct jump (first byte %#x)\n", name, stub[0]);
        return 1;
    }
    int32_t rel;
    memcpy(&rel, stub + 1, sizeof rel);
    const void *target = stub + 5 + rel;
    where(target, &file, &sym);
    if (!strstr(file, "libcollprof-core-") || strcmp(sym, name) != 0) {
        printf("front: %s jumps to %s in %s, not to the core's %s\n", name, sym[0] ? sym : "?",
               file, name);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int want_direct = !(argc > 1 && strcmp(argv[1], "table") == 0);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        bad += check(names[i], want_direct);
    /* Calls through the stubs: counted, results right. */
    int v = rank + 1, sum = 0;
    for (int k = 0; k < 5; k++) {
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (sum != size) {
        printf("front: Allreduce gave %d, expected %d\n", sum, size);
        bad++;
    }
    MPI_Finalize();
    if (bad)
        return 1;
    if (rank == 0)
        printf("front: PASS: %zu stubs %s\n", sizeof names / sizeof names[0],
               want_direct ? "jump straight into the core" : "jump through the table");
    return 0;
}
