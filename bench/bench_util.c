/* Shared helpers of the collprof benchmarks (see bench_util.h). */
#include "bench_util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long bu_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kib;
}

/* The profiler's public API, looked up by name: present only when
 * libcollprof.so is loaded (preloaded by the driver script). */
static int (*recording_fn(void))(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "collprof_is_recording");
    int (*fn)(void);
    /* A data pointer to a function pointer: the POSIX-sanctioned way. */
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

bool bu_profiler_loaded(void)
{
    return recording_fn() != NULL;
}

bool bu_profiler_recording(void)
{
    int (*fn)(void) = recording_fn();
    return fn && fn();
}

const char *bu_profiler_status(void)
{
    if (!bu_profiler_loaded())
        return "collprof NOT loaded: MPI_ and PMPI_ are the same code, "
               "expect no difference";
    return bu_profiler_recording() ? "collprof preloaded, recording"
                                   : "collprof preloaded but NOT recording";
}

void bu_interleaved(MPI_Comm comm, int rounds, int n, int nops, bu_batch_fn fn, void *ctx,
                    bu_result *res)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    int narms = 2 * nops; /* arm 2*op: through MPI_, 2*op+1: through PMPI_ */
    size_t nt = (size_t)rounds * (size_t)narms;
    double *t = malloc(nt * sizeof *t), *tmax = malloc(nt * sizeof *tmax);
    if (!t || !tmax) {
        fprintf(stderr, "bench: out of memory\n");
        PMPI_Abort(comm, 1);
    }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < narms; i++) {
            int arm = (r + i) % narms;
            PMPI_Barrier(comm);
            double t0 = bu_now();
            fn(ctx, arm / 2, arm % 2 == 1, n);
            t[(size_t)r * (size_t)narms + (size_t)arm] = (bu_now() - t0) / n * 1e9;
        }
    /* One reduction at the end, so that nothing but barriers sits between
     * the timed batches. */
    PMPI_Reduce(t, tmax, (int)nt, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        double *a = malloc((size_t)rounds * sizeof *a), *b = malloc((size_t)rounds * sizeof *b);
        double *d = malloc((size_t)rounds * sizeof *d);
        if (!a || !b || !d) {
            fprintf(stderr, "bench: out of memory\n");
            PMPI_Abort(comm, 1);
        }
        for (int op = 0; op < nops; op++) {
            bu_result *x = &res[op];
            for (int r = 0; r < rounds; r++) {
                a[r] = tmax[(size_t)r * (size_t)narms + (size_t)(2 * op)];
                b[r] = tmax[(size_t)r * (size_t)narms + (size_t)(2 * op + 1)];
                d[r] = a[r] - b[r];
            }
            x->mpi_q1 = bu_quantile(a, (size_t)rounds, 0.25);
            x->mpi_q3 = bu_quantile(a, (size_t)rounds, 0.75);
            x->mpi_med = bu_median(a, (size_t)rounds);
            x->pmpi_q1 = bu_quantile(b, (size_t)rounds, 0.25);
            x->pmpi_q3 = bu_quantile(b, (size_t)rounds, 0.75);
            x->pmpi_med = bu_median(b, (size_t)rounds);
            x->paired_diff_med = bu_median(d, (size_t)rounds);
            x->added = x->mpi_med - x->pmpi_med;
            x->ratio = x->pmpi_med > 0 ? x->mpi_med / x->pmpi_med : 0;
        }
        free(a);
        free(b);
        free(d);
    }
    free(t);
    free(tmax);
}

int bu_arg_int(int argc, char **argv, int i, int def)
{
    if (i >= argc)
        return def;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v <= 0 || v > 1000000000) {
        fprintf(stderr, "bench: argument %d (\"%s\") must be a positive integer\n", i, argv[i]);
        /* Called after MPI_Init: a plain exit would leave the other rank
         * waiting in its first collective. */
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    return (int)v;
}

void bu_pattern_counts(int p, int rank, int size, int *counts)
{
    int a = p % BU_PATTERN_BASE, b = p / BU_PATTERN_BASE;
    for (int j = 0; j < size; j++)
        counts[j] = 1 + ((rank + j) % 2 == 0 ? a : b);
}

void bu_world(const char *name, int min, int max, int *rank, int *size)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, rank);
    PMPI_Comm_size(MPI_COMM_WORLD, size);
    if (*size >= min && *size <= max)
        return;
    if (*rank == 0) {
        if (min == max)
            fprintf(stderr, "%s: runs on %d ranks\n", name, min);
        else if (*size < min)
            fprintf(stderr, "%s: needs at least %d ranks\n", name, min);
        else
            fprintf(stderr, "%s: at most %d ranks\n", name, max);
    }
    PMPI_Abort(MPI_COMM_WORLD, 2);
}
