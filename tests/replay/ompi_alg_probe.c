/*
 * Which Alltoallv algorithm did Open MPI run?  Preloaded into an Open MPI
 * program, it counts the calls coll/tuned makes to the two algorithms of
 * Open MPI's base (mca_coll_tuned.so calls them in libmpi.so, so they can
 * be interposed) and, at exit, writes "basic_linear N" and "pairwise M" to
 * $ALG_PROBE_OUT.<pid>.  tune_test.sh sees with it that a rules file and a
 * setting of collprof-replay --tune select the algorithm they name.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*alltoallv_fn)(const void *, const int *, const int *, void *, void *, const int *,
                            const int *, void *, void *, void *);

static long counts[2];
static const char *const names[2] = {"basic_linear", "pairwise"};

static int forward(int which, const char *symbol, const void *sb, const int *sc, const int *sd,
                   void *st, void *rb, const int *rc, const int *rd, void *rt, void *comm,
                   void *module)
{
    static alltoallv_fn next[2];
    if (!next[which])
        next[which] = (alltoallv_fn)dlsym(RTLD_NEXT, symbol);
    counts[which]++;
    return next[which](sb, sc, sd, st, rb, rc, rd, rt, comm, module);
}

__attribute__((visibility("default"))) int
ompi_coll_base_alltoallv_intra_basic_linear(const void *sb, const int *sc, const int *sd,
                                            void *st, void *rb, const int *rc, const int *rd,
                                            void *rt, void *comm, void *module)
{
    return forward(0, "ompi_coll_base_alltoallv_intra_basic_linear", sb, sc, sd, st, rb, rc, rd,
                   rt, comm, module);
}

__attribute__((visibility("default"))) int
ompi_coll_base_alltoallv_intra_pairwise(const void *sb, const int *sc, const int *sd, void *st,
                                        void *rb, const int *rc, const int *rd, void *rt,
                                        void *comm, void *module)
{
    return forward(1, "ompi_coll_base_alltoallv_intra_pairwise", sb, sc, sd, st, rb, rc, rd, rt,
                   comm, module);
}

__attribute__((destructor)) static void report(void)
{
    const char *out = getenv("ALG_PROBE_OUT");
    if (!out)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%ld", out, (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int i = 0; i < 2; i++)
        fprintf(f, "%s %ld\n", names[i], counts[i]);
    fclose(f);
}
