/*
 * What collprof-replay prints on world rank 0: a table of the patterns
 * (times in microseconds per call, as IMB prints them), and with --json
 * every number (seconds; docs/replay.md gives the schema).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "replay.h"

static void comm_label(const rpl_comm *rc, char *buf, size_t size)
{
    if (rc->inter && rc->id[1] >= 0)
        snprintf(buf, size, "%lld/%lld", (long long)rc->id[0], (long long)rc->id[1]);
    else
        snprintf(buf, size, "%lld", (long long)rc->id[0]);
}

static int64_t ranks_of(const rpl_comm *rc)
{
    return rc->size[0] + (rc->inter ? rc->size[1] : 0);
}

/* The first line of the MPI library's version string. */
static void first_line(char *buf, size_t size)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[strcspn(v, "\n")] = '\0';
    size_t n = strnlen(v, size - 1); /* a long first line is cut */
    memcpy(buf, v, n);
    buf[n] = '\0';
}

void rpl_print_table(FILE *out, const cp_profile *p, const rpl_comms *c, const rpl_patterns *ps,
                     const rpl_options *o, int nranks)
{
    char lib[256];
    first_line(lib, sizeof lib);
    fprintf(out, "collprof-replay: %zu patterns of %s, %d ranks, %s\n", ps->n, p->dir, nranks, lib);
    fprintf(out, "method: IMB (n_sample = min(1000, 4 MB / bytes sent), agreed; 2 warm-up calls, "
                 "2 barriers); times in microseconds per call%s\n",
            o->scale != 1 ? "; counts scaled" : "");
    if (!p->has_manifest)
        fprintf(out, "note: the other tools' count files name no communicator members: only the "
                     "communicators of the world's size are replayed (on MPI_COMM_WORLD)\n");
    if (ps->note[0])
        fprintf(out, "note: %s\n", ps->note);
    fprintf(out, "\n%-7s %6s  %-20s %10s %10s %14s %8s %11s %11s %11s %12s  %s\n", "comm", "ranks",
            "collective", "first call", "calls", "bytes/call", "n_sample", "t_min", "t_avg",
            "t_max", "projected s", "recorded min/median/max");
    for (size_t i = 0; i < ps->n; i++) {
        const rpl_pattern *pt = &ps->v[i];
        const rpl_comm *rc = &c->v[pt->comm];
        char label[48];
        comm_label(rc, label, sizeof label);
        fprintf(out, "%-7s %6lld  %-20s %10lld %10lld %14lld", label, (long long)ranks_of(rc),
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
            fprintf(out, "%-7s %6s  %-20s non-blocking: t_pure %.2f, t_ovrl %.2f, t_CPU %.2f, "
                         "overlap %.1f%%\n",
                    "", "", "", pt->t_pure * 1e6, pt->t_ovrl * 1e6, pt->t_cpu * 1e6, pt->overlap);
    }
}

void rpl_print_sequence(FILE *out, const cp_profile *p, const rpl_sequence_result *r)
{
    char lib[256];
    first_line(lib, sizeof lib);
    fprintf(out, "collprof-replay --sequence: %s, %s\n", p->dir, lib);
    fprintf(out, "calls replayed: %lld (the busiest rank)\n", (long long)r->calls);
    fprintf(out, "replayed:       %.6f s (the slowest rank)\n", r->seconds);
    if (r->has_recorded)
        fprintf(out, "recorded:       %.6f s in those calls (the rank with the most); replayed / "
                     "recorded %.2f\n",
                r->recorded, r->recorded > 0 ? r->seconds / r->recorded : 0);
    else
        fprintf(out, "recorded:       - (no timings.cpt)\n");
}

static void num(FILE *f, const char *key, double v, bool comma)
{
    fprintf(f, "\"%s\":", key);
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
    if (comma)
        fputc(',', f);
}

int rpl_write_json(const char *path, const cp_profile *p, const rpl_comms *c,
                   const rpl_patterns *ps, const rpl_options *o, int nranks,
                   const rpl_sequence_result *seq, cp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cp_error_set(err, "cannot write %s: %s", path, strerror(errno));
    char lib[256];
    first_line(lib, sizeof lib);
    fputs("{\"collprof_replay\":1,\"profile\":", f);
    cp_json_write_string(f, p->dir);
    fputs(",\"mpi_library\":", f);
    cp_json_write_string(f, lib);
    fprintf(f, ",\"ranks\":%d,\"mode\":\"%s\",\"options\":{\"comm\":", nranks,
            o->sequence ? "sequence" : "patterns");
    if (o->comm >= 0)
        fprintf(f, "%lld", (long long)o->comm);
    else
        fputs("null", f);
    fputs(",\"collective\":", f);
    cp_json_write_string(f, o->collective);
    fprintf(f, ",\"top\":%lld,\"top_by\":\"%s\",", (long long)o->top,
            o->top_by == RPL_TOP_TIME ? "time" : "bytes");
    num(f, "scale_counts", o->scale, true);
    fprintf(f, "\"repetitions\":%lld},\"note\":", (long long)o->repetitions);
    cp_json_write_string(f, ps->note);
    fputs(",\n\"patterns\":[", f);
    for (size_t i = 0; i < ps->n && !seq; i++) {
        const rpl_pattern *pt = &ps->v[i];
        const rpl_comm *rc = &c->v[pt->comm];
        fprintf(f, "%s\n{\"comm\":%lld,\"remote_comm\":", i ? "," : "", (long long)rc->id[0]);
        if (rc->inter && rc->id[1] >= 0)
            fprintf(f, "%lld", (long long)rc->id[1]);
        else
            fputs("null", f);
        fprintf(f, ",\"ranks\":%lld,\"collective\":\"%s\",\"first_call\":%lld,\"calls\":%lld,"
                   "\"bytes_per_call\":%lld,\"nonblocking\":%s,\"skipped\":",
                (long long)ranks_of(rc), pt->collective, (long long)pt->first_call,
                (long long)pt->calls, (long long)pt->bytes, pt->nonblocking ? "true" : "false");
        if (pt->skipped) {
            cp_json_write_string(f, pt->why);
            fputc('}', f);
            continue;
        }
        fprintf(f, "null,\"n_sample\":%lld,", (long long)pt->n_sample);
        num(f, "t_min", pt->t_min, true);
        num(f, "t_avg", pt->t_avg, true);
        num(f, "t_max", pt->t_max, true);
        num(f, "projected", pt->t_avg * (double)pt->calls, false);
        fputs(",\"recorded\":", f);
        if (pt->rec_instances) {
            fprintf(f, "{\"instances\":%llu,", (unsigned long long)pt->rec_instances);
            num(f, "min", pt->rec_min, true);
            num(f, "median", pt->rec_median, true);
            num(f, "max", pt->rec_max, true);
            num(f, "wait", pt->rec_wait, false);
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fputs(",\"nbc\":", f);
        if (pt->nonblocking) {
            fputc('{', f);
            num(f, "t_pure", pt->t_pure, true);
            num(f, "t_ovrl", pt->t_ovrl, true);
            num(f, "t_cpu", pt->t_cpu, true);
            num(f, "overlap_percent", pt->overlap, false);
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        fputc('}', f);
    }
    fputs("],\n\"sequence\":", f);
    if (seq) {
        fprintf(f, "{\"calls\":%lld,", (long long)seq->calls);
        num(f, "seconds", seq->seconds, true);
        fputs("\"recorded\":", f);
        if (seq->has_recorded)
            fprintf(f, "%.9g", seq->recorded);
        else
            fputs("null", f);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs("}\n", f);
    if (ferror(f) | (fclose(f) != 0))
        return cp_error_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
