/*
 * Timing one pattern the way the Intel MPI Benchmarks time a collective
 * (their user guide, "Actual Benchmarking"; docs/replay.md):
 *   n_sample = MSGSPERSAMPLE for a rank that sends nothing, else
 *   max(1, min(MSGSPERSAMPLE, OVERALL_VOL / X)), X the bytes this rank
 *   sends, agreed over the communicator (the smallest) so that every rank
 *   repeats equally, and no more calls than fit in --seconds S (1 s unless
 *   asked otherwise, judged by the last warm-up call); --repetitions R
 *   sets it instead;
 *   N_WARMUP calls off the clock, N_BARR barriers, then n_sample calls timed
 *   together: t = elapsed / n_sample per rank; t_min, t_avg, t_max over the
 *   ranks.
 * A pattern recorded as non-blocking is also measured as IMB-NBC does: the
 * pure time (I... then MPI_Wait), the time with a CPU load of that length
 * between the two, the load alone, and the overlap
 *   100 * max(0, min(1, (t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU))).
 * Every rank of the job takes part in the reductions that bring the
 * numbers to world rank 0, members or not, in the same pattern order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define MSGSPERSAMPLE 1000
#define OVERALL_VOL (4 * 1024 * 1024)
#define N_BARR 2
#define N_WARMUP 2

/* n calls, every one of them even after one failed: a rank that stopped
 * early while the others went on would leave them waiting in a collective
 * it never makes.  The first failure is returned; the ranks agree on it
 * afterwards (agreed_failure). */
static int run(const replay_args *a, int64_t n, bool nonblocking, double load, double *cpu)
{
    int rc = MPI_SUCCESS;
    for (int64_t i = 0; i < n; i++) {
        int r;
        if (!nonblocking) {
            r = replay_colls[a->coll].call(a, NULL);
        } else {
            MPI_Request req;
            r = replay_colls[a->coll].call(a, &req);
            if (r == MPI_SUCCESS && load > 0) {
                double t = MPI_Wtime();
                replay_cpu_load(load);
                if (cpu)
                    *cpu += MPI_Wtime() - t;
            }
            if (r == MPI_SUCCESS)
                r = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

/* Did a member fail?  The same answer on every member, so that all take
 * the same way next. */
static bool agreed_failure(MPI_Comm sync, int rc)
{
    int bad = rc != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, sync);
    return any != 0;
}

/* Seconds per call of n calls, after the barriers. */
static double timed(const replay_args *a, MPI_Comm sync, int64_t n, bool nonblocking, double load,
                    double *cpu, int *rc)
{
    for (int i = 0; i < N_BARR; i++)
        MPI_Barrier(sync);
    double t0 = MPI_Wtime();
    *rc = run(a, n, nonblocking, load, cpu);
    return (MPI_Wtime() - t0) / (double)n;
}

/* At most as many calls as fit in the time limit, judged by the last
 * warm-up call (a non-blocking pattern is timed three times), at least one. */
static int64_t within_seconds(int64_t n, double per_call, bool nonblocking, double seconds)
{
    double fit = seconds / (nonblocking ? 3 : 1) / (per_call > 0 ? per_call : 1e-9);
    if (fit < (double)n)
        n = fit < 1 ? 1 : (int64_t)fit;
    return n;
}

int replay_measure(const replay_comm *rc, const replay_args *a, replay_pattern *pt,
                   const replay_options *o)
{
    bool member = rc->side >= 0 && !pt->skipped;
    double t = INFINITY, pure = 0, ovrl = 0, cpu = 0;
    int64_t n = 0;
    int mpirc = MPI_SUCCESS;
    if (member) {
        n = a->sent == 0 ? MSGSPERSAMPLE : a->sent >= OVERALL_VOL ? 1 : OVERALL_VOL / a->sent;
        if (n > MSGSPERSAMPLE)
            n = MSGSPERSAMPLE;
        double last = 0;
        for (int i = 0; i < N_WARMUP; i++) { /* each call on every member, as run() */
            double t0 = MPI_Wtime();
            int r = run(a, 1, false, 0, NULL);
            last = MPI_Wtime() - t0;
            if (mpirc == MPI_SUCCESS)
                mpirc = r;
        }
        n = within_seconds(n, last, pt->nonblocking, o->seconds);
        if (o->repetitions)
            n = o->repetitions;
        /* Every member the same n, and the same way on after a failure. */
        int64_t agree[2] = {-n, mpirc != MPI_SUCCESS};
        MPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT64_T, MPI_MAX, rc->sync);
        n = -agree[0];
        bool failed = agree[1] != 0;
        if (!failed) {
            t = timed(a, rc->sync, n, false, 0, NULL, &mpirc);
            failed = agreed_failure(rc->sync, mpirc);
        }
        if (pt->nonblocking && !failed) {
            pure = timed(a, rc->sync, n, true, 0, NULL, &mpirc);
            double c = 0;
            failed = agreed_failure(rc->sync, mpirc);
            if (!failed) {
                ovrl = timed(a, rc->sync, n, true, pure, &c, &mpirc);
                failed = agreed_failure(rc->sync, mpirc);
            }
            cpu = c / (double)n;
        }
        if (failed && mpirc == MPI_SUCCESS)
            mpirc = MPI_ERR_OTHER; /* another member's failure */
    }
    /* To world rank 0: min of t and of -t (the max), sums for the average. */
    double mins[5] = {t, member ? -t : INFINITY, member ? -pure : INFINITY,
                      member ? -ovrl : INFINITY, member ? -cpu : INFINITY};
    double sums[2] = {member ? t : 0, member ? 1 : 0};
    int64_t maxes[2] = {n, mpirc != MPI_SUCCESS};
    double gmins[5], gsums[2];
    int64_t gmax[2];
    MPI_Reduce(mins, gmins, 5, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(maxes, gmax, 2, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0 && !pt->skipped) {
        pt->n_sample = gmax[0];
        pt->t_min = gmins[0];
        pt->t_max = -gmins[1];
        pt->t_avg = gsums[1] > 0 ? gsums[0] / gsums[1] : 0;
        if (pt->nonblocking) {
            pt->t_pure = -gmins[2];
            pt->t_ovrl = -gmins[3];
            pt->t_cpu = -gmins[4];
            double lo = fmin(pt->t_pure, pt->t_cpu);
            pt->overlap = lo > 0 ? 100 * fmax(0, fmin(1, (pt->t_pure + pt->t_cpu - pt->t_ovrl) / lo))
                                 : 0;
        }
        if (gmax[1]) {
            pt->skipped = true;
            snprintf(pt->why, sizeof pt->why, "the MPI library returned an error");
        }
    }
    return 0;
}
