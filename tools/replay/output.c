/*
 * What collprof-replay prints on world rank 0: a table of the patterns
 * (times in microseconds per call, as IMB prints them), and with --json
 * every number (seconds; docs/replay.md gives the schema).
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_json.h"
#include "file_names.h"

void replay_comm_label(const replay_comm *rc, char *buf, size_t size)
{
    if (rc->inter && rc->id[1] >= 0)
        snprintf(buf, size, "%lld/%lld", (long long)rc->id[0], (long long)rc->id[1]);
    else
        snprintf(buf, size, "%lld", (long long)rc->id[0]);
}

int64_t replay_comm_ranks(const replay_comm *rc)
{
    return rc->size[0] + (rc->inter ? rc->size[1] : 0);
}

/* The first line of the MPI library's version string. */
void replay_library_line(char *buf, size_t size)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n")] = '\0';
    size_t n = strnlen(v, size - 1); /* a long first line is cut */
    memcpy(buf, v, n);
    buf[n] = '\0';
}

void replay_print_table(FILE *out, const cp_profile *p, const replay_comms *c,
                        const replay_patterns *ps, const replay_options *o, int nranks)
{
    char lib[256];
    replay_library_line(lib, sizeof lib);
    fprintf(out, "collprof-replay: %zu pattern%s of %s, %d ranks, %s\n", ps->n,
            ps->n == 1 ? "" : "s",
            p->dir, nranks, lib);
    if (o->repetitions)
        fprintf(out, "method: IMB (n_sample = %lld, as asked", (long long)o->repetitions);
    else
        fprintf(out, "method: IMB (n_sample = min(1000, 4 MB / bytes sent, the calls that fit in "
                     "%g s), agreed", o->seconds);
    fprintf(out, "; 2 warm-up calls, 2 barriers); times in microseconds per call%s\n",
            o->scale != 1 ? "; counts scaled" : "");
    if (!p->has_manifest)
        fprintf(out, "note: the other tools' count files name no communicator members: only the "
                     "communicators of the world's size are replayed (on MPI_COMM_WORLD)\n");
    if (ps->note[0])
        fprintf(out, "note: %s\n", ps->note);
    fprintf(out, "\n%-7s %6s  %-20s %10s %10s %14s %8s %11s %11s %11s %12s  %s\n", "comm", "ranks",
            "collective", "first call", "calls", "bytes/call", "n_sample", "t_min[usec]",
            "t_avg[usec]", "t_max[usec]", "projected[s]", "recorded min/median/max[usec]");
    for (size_t i = 0; i < ps->n; i++) {
        const replay_pattern *pt = &ps->v[i];
        const replay_comm *rc = &c->v[pt->comm];
        char label[48];
        replay_comm_label(rc, label, sizeof label);
        fprintf(out, "%-7s %6lld  %-20s %10lld %10lld %14lld", label,
                (long long)replay_comm_ranks(rc),
                pt->collective, (long long)pt->first_call, (long long)pt->calls,
                (long long)pt->bytes);
        if (pt->skipped) {
            fprintf(out, "  skipped: %s\n", pt->why);
            continue;
        }
        fprintf(out, " %8lld %11.2f %11.2f %11.2f %12.6f", (long long)pt->n_sample, pt->t_min * 1e6,
                pt->t_avg * 1e6, pt->t_max * 1e6, pt->t_avg * (double)pt->calls);
        if (pt->rec_instances)
            fprintf(out, "  %.2f / %.2f / %.2f", pt->rec_min * 1e6, pt->rec_median * 1e6,
                    pt->rec_max * 1e6);
        else
            fprintf(out, "  -");
        fputc('\n', out);
        if (pt->nonblocking)
            fprintf(out, "%-7s %6s  %-20s non-blocking: t_pure %.2f usec, t_ovrl %.2f usec, "
                         "t_CPU %.2f usec, overlap %.1f%%\n",
                    "", "", "", pt->t_pure * 1e6, pt->t_ovrl * 1e6, pt->t_cpu * 1e6, pt->overlap);
    }
}

void replay_print_sequence(FILE *out, const cp_profile *p, const replay_sequence_result *r)
{
    char lib[256];
    replay_library_line(lib, sizeof lib);
    fprintf(out, "collprof-replay --sequence: %s, %s\n", p->dir, lib);
    fprintf(out, "calls replayed: %lld (the busiest rank)\n", (long long)r->calls);
    fprintf(out, "replayed:       %.6f s (the slowest rank)\n", r->seconds);
    if (r->has_recorded)
        fprintf(out, "recorded:       %.6f s in those calls (the rank with the most); replayed / "
                     "recorded %.2f\n",
                r->recorded, r->recorded > 0 ? r->seconds / r->recorded : 0);
    else
        fprintf(out, "recorded:       - (no " CP_FILE_TIMINGS ")\n");
}

void replay_json_header(cp_replay *r, const cp_profile *p, const replay_patterns *ps,
                        const replay_options *o, int nranks)
{
    *r = (cp_replay){.ranks = nranks,
                     .comm = o->comm,
                     .top = o->top,
                     .top_by_bytes = o->top_by == REPLAY_TOP_BYTES,
                     .scale_counts = o->scale,
                     .repetitions = o->repetitions};
    snprintf(r->profile, sizeof r->profile, "%s", p->dir);
    replay_library_line(r->mpi_library, sizeof r->mpi_library);
    snprintf(r->collective, sizeof r->collective, "%s", o->collective);
    snprintf(r->note, sizeof r->note, "%s", ps->note);
}

void replay_json_pattern(cp_replay_pattern *x, const replay_comms *c, const replay_pattern *pt)
{
    const replay_comm *rc = &c->v[pt->comm];
    *x = (cp_replay_pattern){
        .comm = rc->id[0], .remote_comm = rc->inter ? rc->id[1] : -1,
        .ranks = replay_comm_ranks(rc), .first_call = pt->first_call, .calls = pt->calls,
        .bytes_per_call = pt->bytes, .nonblocking = pt->nonblocking, .skipped = pt->skipped,
        .n_sample = pt->n_sample, .t_min = pt->t_min, .t_avg = pt->t_avg, .t_max = pt->t_max,
        .projected = pt->t_avg * (double)pt->calls, .has_recorded = pt->rec_instances > 0,
        .rec_instances = pt->rec_instances, .rec_min = pt->rec_min,
        .rec_median = pt->rec_median, .rec_max = pt->rec_max, .rec_wait = pt->rec_wait,
        .has_nbc = pt->nonblocking, .t_pure = pt->t_pure, .t_ovrl = pt->t_ovrl,
        .t_cpu = pt->t_cpu, .overlap_percent = pt->overlap};
    snprintf(x->collective, sizeof x->collective, "%s", pt->collective);
    snprintf(x->why, sizeof x->why, "%s", pt->why);
}

int replay_write_json(const char *path, const cp_profile *p, const replay_comms *c,
                      const replay_patterns *ps, const replay_options *o, int nranks,
                      const replay_sequence_result *seq, cp_error *err)
{
    cp_replay r;
    replay_json_header(&r, p, ps, o, nranks);
    r.sequence = seq != NULL;
    if (seq) {
        r.seq_calls = seq->calls;
        r.seq_seconds = seq->seconds;
        r.seq_has_recorded = seq->has_recorded;
        r.seq_recorded = seq->recorded;
    } else if (!(r.patterns = calloc(ps->n + 1, sizeof *r.patterns))) {
        return cp_error_set(err, "out of memory");
    }
    for (size_t i = 0; !seq && i < ps->n; i++)
        replay_json_pattern(&r.patterns[r.npatterns++], c, &ps->v[i]);
    int rc = cp_replay_write_file(path, &r, err);
    cp_replay_free(&r);
    return rc;
}
