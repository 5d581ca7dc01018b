/*
 * collprof-replay DIR: measure the collective patterns of a collprof
 * profile in this MPI library (docs/replay.md).  Every rank reads the
 * profile, rebuilds the recorded communicators and walks the same list of
 * patterns; world rank 0 prints the table and writes --json.  Any failure
 * is agreed over MPI_COMM_WORLD first: one message (world rank 0's, or
 * that of the lowest rank that failed) and the same non-zero exit status
 * on every rank, never a rank left waiting.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int wrank, wsize;

/* Did any rank fail?  The message of the lowest that did, on rank 0. */
static bool agree_failure(bool failed, char *msg, size_t size)
{
    int mine = failed ? wrank : INT_MAX, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == INT_MAX)
        return false;
    if (first != 0) {
        if (wrank == first)
            MPI_Send(msg, (int)size, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        else if (wrank == 0)
            MPI_Recv(msg, (int)size, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    msg[size - 1] = '\0';
    return true;
}

static int fail(const char *msg, int status)
{
    if (wrank == 0)
        fprintf(stderr, "collprof-replay: %s\n", msg);
    replay_algos_close(); /* MPI_T before MPI_Finalize (Open MPI needs that order) */
    MPI_Finalize();
    return status;
}

static int64_t recorded_world(const cp_profile *p)
{
    if (p->has_manifest)
        return p->manifest.world_size;
    int64_t w = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t k = 0; k < p->files[f].nblocks; k++)
            if (p->files[f].blocks[k].nranks > w)
                w = p->files[f].blocks[k].nranks;
    return w;
}

/* This rank's arguments of every pattern, once, for the buffer sizes: the
 * buffers are as large as the largest call needs, no larger. */
static void buffer_sizes(const replay_comms *c, const replay_patterns *ps, const replay_options *o,
                         size_t *sbytes, size_t *rbytes)
{
    *sbytes = *rbytes = 1;
    for (size_t i = 0; i < ps->n; i++) {
        replay_args a = {0};
        char why[160];
        if (!ps->v[i].skipped &&
            replay_args_make(c, &ps->v[i], o->scale, &a, why, sizeof why) == 0) {
            *sbytes = a.sbytes > *sbytes ? a.sbytes : *sbytes;
            *rbytes = a.rbytes > *rbytes ? a.rbytes : *rbytes;
        }
        replay_args_free(&a);
    }
}

static void on_sigint(int sig)
{
    replay_interrupted = sig;
}

static void measure_all(const replay_comms *c, replay_patterns *ps, const replay_options *o,
                        void *sbuf, void *rbuf)
{
    for (size_t i = 0; i < ps->n; i++) {
        replay_pattern *pt = &ps->v[i];
        replay_args a = {0};
        char why[160] = "";
        int rc = pt->skipped ? 0 : replay_args_make(c, pt, o->scale, &a, why, sizeof why);
        if (rc < 0)
            snprintf(why, sizeof why, "rank %d: out of memory", wrank);
        if (!pt->skipped && agree_failure(rc != 0, why, sizeof why)) {
            pt->skipped = true;
            snprintf(pt->why, sizeof pt->why, "%s", why);
        }
        if (!pt->skipped) {
            a.sbuf = sbuf;
            a.rbuf = rbuf;
        }
        double t0 = MPI_Wtime();
        replay_measure(&c->v[pt->comm], &a, pt, o);
        replay_args_free(&a);
        /* A long replay shows that it is moving (the table comes at the end). */
        if (wrank == 0)
            fprintf(stderr, "collprof-replay: pattern %zu of %zu (%s): %s %.2f s\n", i + 1, ps->n,
                    pt->collective, pt->skipped ? "skipped after" : "measured in",
                    MPI_Wtime() - t0);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    replay_options o;
    char msg[1024] = "";
    switch (replay_options_parse(argc, argv, &o, msg, sizeof msg)) {
    case 1:
        if (wrank == 0)
            replay_usage(stdout);
        MPI_Finalize();
        return 0;
    case 2:
        if (wrank == 0)
            replay_usage(stderr);
        return fail(msg, 2);
    }
    if (o.algorithms || o.tune || o.validate) {
        /* MPI_T on every rank: the choice of an algorithm is each rank's. */
        int rc = replay_algos_open(msg, sizeof msg);
        if (agree_failure(rc != 0, msg, sizeof msg))
            return fail(msg, 1);
    }
    if (o.rules && !replay_algos_rules_file(msg, sizeof msg))
        return fail(msg, 2);
    if (o.algorithms) {
        if (wrank == 0)
            replay_print_algorithms(stdout);
        replay_algos_close();
        MPI_Finalize();
        return 0;
    }
    /* --setting: the same words give the same choices on every rank. */
    static replay_algos given[REPLAY_SETTINGS_MAX];
    replay_choice choices[REPLAY_SETTINGS_MAX];
    int nchoices = 0, parsed = 0;
    for (int i = 0; i < o.nsettings && parsed >= 0; i++) {
        parsed = replay_algos_parse_setting(o.settings[i], &given[nchoices],
                                            &choices[nchoices].k, msg, sizeof msg);
        if (parsed == 0) {
            choices[nchoices].algos = &given[nchoices];
            nchoices++;
        }
    }
    if (agree_failure(parsed < 0, msg, sizeof msg))
        return fail(msg, 2);
    cp_profile p;
    cp_error err = {{0}};
    int loaded = cp_profile_load(o.dir, &p, &err);
    if (loaded)
        snprintf(msg, sizeof msg, "%s", err.msg);
    if (agree_failure(loaded != 0, msg, sizeof msg)) {
        if (loaded == 0)
            cp_profile_free(&p);
        return fail(msg, 1);
    }
    /* A damaged profile is refused: a benchmark of some of the run's
     * patterns would read as one of all of them.  (The same on every rank:
     * each loaded the same files.) */
    if (p.ndamaged) {
        snprintf(msg, sizeof msg, "%s: damaged: %s: %s%s; collprof-replay needs the whole "
                 "profile (collprof check %s)", o.dir, p.damaged[0].key, p.damaged[0].value,
                 p.ndamaged > 1 ? " (and more)" : "", o.dir);
        cp_profile_free(&p);
        return fail(msg, 1);
    }
    int64_t world = recorded_world(&p);
    if (world > wsize) {
        snprintf(msg, sizeof msg, "%s is the profile of a job of %lld ranks; this job has %d: run "
                 "with -n %lld or more", o.dir, (long long)world, wsize, (long long)world);
        cp_profile_free(&p);
        return fail(msg, 1);
    }
    replay_comms comms;
    int built = replay_comms_build(&p, &comms, &err);
    replay_patterns ps = {0};
    int found = built ? -1 : replay_patterns_find(&p, &comms, &o, &ps, &err);
    if (found)
        snprintf(msg, sizeof msg, "%s", err.msg);
    if (agree_failure(found != 0, msg, sizeof msg)) {
        replay_patterns_free(&ps);
        replay_comms_free(&comms);
        cp_profile_free(&p);
        return fail(msg, 1);
    }
    /* The CPU load of IMB-NBC's overlap: calibrated before anything is
     * timed, when a non-blocking pattern will be measured. */
    for (size_t i = 0; !o.sequence && i < ps.n; i++)
        if (ps.v[i].nonblocking && !ps.v[i].skipped) {
            replay_cpu_load(0);
            break;
        }
    size_t sbytes, rbytes;
    buffer_sizes(&comms, &ps, &o, &sbytes, &rbytes);
    void *sbuf = malloc(sbytes), *rbuf = malloc(rbytes);
    if (!sbuf || !rbuf)
        snprintf(msg, sizeof msg, "rank %d: cannot allocate %zu + %zu bytes of buffers", wrank,
                 sbytes, rbytes);
    if (agree_failure(!sbuf || !rbuf, msg, sizeof msg)) {
        free(sbuf);
        free(rbuf);
        replay_patterns_free(&ps);
        replay_comms_free(&comms);
        cp_profile_free(&p);
        return fail(msg, 1);
    }
    memset(sbuf, 1, sbytes); /* touched now: no page faults on the clock */
    memset(rbuf, 0, rbytes);
    replay_sequence_result seq = {0};
    replay_tuned *tuned = NULL;
    replay_validation validation;
    memset(&validation, 0, sizeof validation);
    int status = 0;
    bool interrupted = false;
    if (o.sequence) {
        int rc = replay_sequence(&p, &comms, &ps, &o, sbuf, rbuf, &seq, &err);
        if (rc)
            snprintf(msg, sizeof msg, "%s", err.msg);
        if (agree_failure(rc != 0, msg, sizeof msg)) {
            if (wrank == 0)
                fprintf(stderr, "collprof-replay: %s\n", msg);
            status = 1;
        }
    } else if (o.tune) {
        tuned = calloc(ps.n ? ps.n : 1, sizeof *tuned);
        int rc = tuned ? 0 : -1;
        snprintf(msg, sizeof msg, "rank %d: out of memory", wrank);
        if (agree_failure(rc != 0, msg, sizeof msg)) {
            if (wrank == 0)
                fprintf(stderr, "collprof-replay: %s\n", msg);
            status = 1;
        } else {
            /* Ctrl-C: stop at the next measurement's end, agreed by all,
             * and print what was measured.  Hydra passes SIGINT on to the
             * ranks; Open MPI's mpiexec sends them SIGTERM. */
            signal(SIGINT, on_sigint);
            signal(SIGTERM, on_sigint);
            replay_tune(&comms, &ps, &o, sbuf, rbuf, tuned);
            int mine = replay_interrupted != 0, any = 0;
            MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            interrupted = any != 0;
            if (o.validate && !interrupted)
                replay_tune_validate(&p, &comms, &ps, &o, tuned, sbuf, rbuf, &validation);
            else if (o.validate)
                snprintf(validation.why, sizeof validation.why, "interrupted (SIGINT)");
        }
    } else if (o.validate) {
        replay_validate_settings(&p, &comms, &ps, &o, choices, nchoices, sbuf, rbuf, &validation);
    } else {
        measure_all(&comms, &ps, &o, sbuf, rbuf);
    }
    if (wrank == 0 && status == 0) {
        if (o.tune)
            replay_print_tune(stdout, &p, &comms, &ps, tuned, &o, wsize,
                              o.validate ? &validation : NULL);
        else if (o.validate)
            replay_print_validation(stdout, &p, &o, wsize, &validation);
        else if (o.sequence)
            replay_print_sequence(stdout, &p, &seq);
        else
            replay_print_table(stdout, &p, &comms, &ps, &o, wsize);
        fflush(stdout);
        if (o.rules && o.tune && replay_write_rules(o.rules, &p, &ps, tuned, &err)) {
            fprintf(stderr, "collprof-replay: %s\n", err.msg);
            status = 1;
        }
        if (o.json && (o.tune ? replay_write_tune_json(o.json, &p, &comms, &ps, &o, wsize, tuned,
                                                       o.validate ? &validation : NULL, &err)
                              : replay_write_json(o.json, &p, &comms, &ps, &o, wsize,
                                                  o.sequence ? &seq : NULL, &err))) {
            fprintf(stderr, "collprof-replay: %s\n", err.msg);
            status = 1;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (interrupted && status == 0) {
        if (wrank == 0)
            fprintf(stderr, "collprof-replay: interrupted (SIGINT or SIGTERM): the table above "
                    "holds what was measured before\n");
        status = 130; /* as a shell reports SIGINT */
    }
    free(sbuf);
    free(rbuf);
    replay_patterns_free(&ps);
    replay_comms_free(&comms);
    replay_types_free();
    free(tuned);
    cp_profile_free(&p);
    replay_algos_close();
    MPI_Finalize();
    return status;
}
