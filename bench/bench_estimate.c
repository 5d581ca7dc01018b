/*
 * How true is the whole-run waiting estimate?  Given a profile whose timing
 * sample kept every call (a run with COLLPROF_TIMING_MAX_CALLS above its
 * calls per rank), this draws many samples of that one run offline with
 * the runtime's sampler (one call per block of 2^level calls, chosen by a
 * hash of the block: here the same hash with other seeds), estimates each
 * series' waiting from each sample with the reader's own code
 * (cp_profile_timings), and compares it with the exact waiting of the
 * whole run:
 *   - the bias (mean error over the samples) against the mean stated
 *     standard error;
 *   - how often the stated ±1 and ±2 standard-error intervals hold the
 *     exact value (68.3 % and 95.4 % if the error is honest), with the
 *     binomial band of that many samples (two standard deviations);
 *   - how often an estimate exceeded the time in the calls (never, in
 *     passive timing);
 *   - the shape of the errors: their kurtosis (3 for a normal error), and
 *     how often ±1 RMS error (the error an oracle would state: the one
 *     whose square is the mean squared error) holds the exact value.  Where
 *     the errors are heavy-tailed no honest standard error covers 68.3 %
 *     at ±1: this column says what one that is right on average covers.
 * Given several runs of one workload, the tallies are pooled: the claim of
 * a ±1 standard-error interval is about runs, so the band is that of the
 * number of runs.  bench/estimate_coverage.sh makes the runs (several
 * workloads) and calls this on them.
 *
 * usage: bench_estimate [--label NAME] [--seeds N] [--levels 3,5,7] DIR...
 *        (N samples of each run per stride 2^level; default 200, 3,5,7)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/reader.h"
#include "timing.h"

typedef struct saved {
    cp_cpt_series s; /* the series as the run kept it (every call) */
} saved;

static double row_wait(const cp_timing_row *r, double *se)
{
    double w = 0, v = 0;
    for (int q = 0; q < CP_READER_NPATTERNS; q++)
        w += r->wait[q], v += r->wait_se[q] * r->wait_se[q];
    *se = sqrt(v);
    return w;
}

/* The sample of one series at `level` with hash `seed`: its kept calls'
 * arrays (fresh), the rest in the aggregates, as the runtime leaves them. */
static void thin(const cp_cpt_series *all, cp_cpt_series *s, unsigned level, uint64_t seed)
{
    *s = *all;
    size_t n = (size_t)all->n;
    s->call = malloc((n ? n : 1) * sizeof *s->call);
    s->enter = malloc((n ? n : 1) * sizeof *s->enter);
    s->start = malloc((n ? n : 1) * sizeof *s->start);
    s->exit = malloc((n ? n : 1) * sizeof *s->exit);
    s->root = malloc((n ? n : 1) * sizeof *s->root);
    s->flags = malloc((n ? n : 1) * sizeof *s->flags);
    s->site = all->nsites ? malloc((n ? n : 1) * sizeof *s->site) : NULL;
    if (!s->call || !s->enter || !s->start || !s->exit || !s->root || !s->flags ||
        (all->nsites && !s->site)) {
        fprintf(stderr, "bench_estimate: out of memory\n");
        exit(1);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t c = all->call[i];
        if (cp_timing_chosen_seeded(c >> level, level, seed) != c) {
            s->naggregated++;
            s->agg_time += all->exit[i] - all->start[i];
            continue;
        }
        s->call[k] = c, s->enter[k] = all->enter[i], s->start[k] = all->start[i];
        s->exit[k] = all->exit[i], s->root[k] = all->root[i], s->flags[k] = all->flags[i];
        if (s->site)
            s->site[k] = all->site[i];
        k++;
    }
    s->n = k;
    s->stride = UINT64_C(1) << level;
}

static void drop(cp_cpt_series *s)
{
    free(s->call), free(s->enter), free(s->start), free(s->exit), free(s->root), free(s->flags);
    free(s->site);
}

typedef struct tally {
    double err, err2, se, est, exact;
    unsigned n, in1, in2, over_time;
    double *errs; /* every error, for the shape */
    size_t cap;
} tally;

/* One profile's samples, added to the tallies of its rows (by index). */
static int one_run(const char *dir, const unsigned *levels, unsigned nlevels, unsigned seeds,
                   tally *tl, size_t maxrows, char names[][64], size_t *nrows)
{
    cp_profile p;
    cp_error err = {{0}};
    if (cp_profile_load(dir, &p, &err) != 0) {
        fprintf(stderr, "bench_estimate: %s\n", err.msg);
        return -1;
    }
    cp_timings exact;
    if (cp_profile_timings(&p, &exact, &err) != 0) {
        fprintf(stderr, "bench_estimate: %s\n", err.msg);
        return -1;
    }
    for (size_t i = 0; i < exact.nrows; i++)
        if (exact.rows[i].wait_weight > 1 || exact.rows[i].naggregated) {
            fprintf(stderr, "bench_estimate: %s: the run's sample did not keep every call "
                            "(raise COLLPROF_TIMING_MAX_CALLS): no exact waiting to compare\n",
                    dir);
            return -1;
        }
    for (size_t i = 0; i < exact.nrows && i < maxrows; i++)
        snprintf(names[i], 64, "%lld %s", (long long)exact.rows[i].comm,
                 exact.rows[i].collective);
    if (exact.nrows > *nrows)
        *nrows = exact.nrows < maxrows ? exact.nrows : maxrows;
    /* Every series as the run kept it. */
    size_t total = 0;
    for (uint64_t r = 0; r < p.timings.world_size; r++)
        total += p.timings.chunks[r].nseries;
    saved *keep = calloc(total ? total : 1, sizeof *keep);
    if (!keep)
        return -1;
    size_t at = 0;
    for (uint64_t r = 0; r < p.timings.world_size; r++)
        for (size_t i = 0; i < p.timings.chunks[r].nseries; i++)
            keep[at++].s = p.timings.chunks[r].series[i];

    for (unsigned l = 0; l < nlevels; l++)
        for (unsigned seed = 1; seed <= seeds; seed++) {
            at = 0;
            for (uint64_t r = 0; r < p.timings.world_size; r++)
                for (size_t i = 0; i < p.timings.chunks[r].nseries; i++)
                    thin(&keep[at++].s, &p.timings.chunks[r].series[i], levels[l], seed);
            cp_timings t;
            if (cp_profile_timings(&p, &t, &err) != 0) {
                fprintf(stderr, "bench_estimate: %s\n", err.msg);
                return -1;
            }
            for (size_t i = 0; i < t.nrows && i < exact.nrows && i < maxrows; i++) {
                double se, se0, est = row_wait(&t.rows[i], &se), x = row_wait(&exact.rows[i], &se0);
                tally *a = &tl[i * nlevels + l];
                if (a->n == a->cap) {
                    a->cap = a->cap ? 2 * a->cap : 256;
                    if (!(a->errs = realloc(a->errs, a->cap * sizeof *a->errs))) {
                        fprintf(stderr, "bench_estimate: out of memory\n");
                        exit(1);
                    }
                }
                a->errs[a->n] = est - x;
                a->n++;
                a->exact += x;
                a->est += est;
                a->err += est - x;
                a->err2 += (est - x) * (est - x);
                a->se += se;
                a->in1 += fabs(est - x) <= se;
                a->in2 += fabs(est - x) <= 2 * se;
                a->over_time += est > t.rows[i].total * (1 + 1e-12);
            }
            cp_timings_free(&t);
            at = 0;
            for (uint64_t r = 0; r < p.timings.world_size; r++)
                for (size_t i = 0; i < p.timings.chunks[r].nseries; i++) {
                    drop(&p.timings.chunks[r].series[i]);
                    p.timings.chunks[r].series[i] = keep[at++].s;
                }
        }
    cp_timings_free(&exact);
    cp_profile_free(&p);
    free(keep);
    return 0;
}

#define MAXROWS 16

int main(int argc, char **argv)
{
    const char *label = NULL;
    unsigned levels[16] = {3, 5, 7}, nlevels = 3, seeds = 200;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--label") && i + 1 < argc) {
            label = argv[++i];
        } else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
            seeds = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--levels") && i + 1 < argc) {
            nlevels = 0;
            for (char *t = strtok(argv[++i], ","); t && nlevels < 16; t = strtok(NULL, ","))
                levels[nlevels++] = (unsigned)atoi(t);
        } else {
            break;
        }
    }
    if (i >= argc || !seeds || !nlevels) {
        fprintf(stderr, "usage: bench_estimate [--label NAME] [--seeds N] [--levels 3,5,7] "
                        "DIR...\n");
        return 2;
    }
    int runs = argc - i;
    tally tl[MAXROWS * 16] = {{0}};
    char names[MAXROWS][64] = {{0}};
    size_t nrows = 0;
    for (; i < argc; i++)
        if (one_run(argv[i], levels, nlevels, seeds, tl, MAXROWS, names, &nrows) != 0)
            return 1;
    printf("| workload | series | stride | runs x samples | exact (s, mean) | bias (s) | "
           "bias / SE | mean SE (s) | RMS error (s) | in ±1 SE | in ±2 SE | > time | "
           "kurtosis | in ±1 RMS |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t r = 0; r < nrows; r++)
        for (unsigned l = 0; l < nlevels; l++) {
            const tally *a = &tl[r * nlevels + l];
            if (!a->n || a->exact <= 0)
                continue;
            /* The band: two binomial standard deviations for as many
             * independent runs (the samples of one run share its calls). */
            double n = a->n, mse = a->se / n, b1 = 2 * sqrt(0.683 * 0.317 / runs),
                   b2 = 2 * sqrt(0.954 * 0.046 / runs);
            double rms = sqrt(a->err2 / n), m4 = 0;
            unsigned in_rms = 0;
            for (unsigned k = 0; k < a->n; k++) {
                m4 += pow(a->errs[k], 4) / n;
                in_rms += fabs(a->errs[k]) <= rms;
            }
            printf("| %s | %s | %u | %d x %u | %.4f | %+.5f | %+.2f | %.5f | %.5f | "
                   "%.1f %% (68.3 ± %.1f) | %.1f %% (95.4 ± %.1f) | %u | %.1f | %.1f %% |\n",
                   label ? label : argv[argc - runs], names[r], 1u << levels[l], runs, seeds,
                   a->exact / n, a->err / n, mse > 0 ? a->err / n / mse : 0, mse, rms,
                   100 * a->in1 / n, 100 * b1, 100 * a->in2 / n, 100 * b2, a->over_time,
                   rms > 0 ? m4 / (rms * rms * rms * rms) : 0, 100 * in_rms / n);
        }
    for (size_t k = 0; k < sizeof tl / sizeof tl[0]; k++)
        free(tl[k].errs);
    return 0;
}
