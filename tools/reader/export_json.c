/*
 * cp_export_json: the whole profile model as one JSON document
 * (`collprof export`; the schema is docs/export-schema.md).
 *
 * Written through a small buffer of our own rather than fprintf per value:
 * an export holds every count of every matrix, tens of millions of numbers
 * for a large run.  Layout: top-level keys and each block on a line of its
 * own, so that the output can be read with grep, but readers must use a JSON
 * parser.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "json.h"
#include "mpi_names.h"
#include "reader_internal.h"
#include "textio.h"

/* The export as it is written: the model's byte buffer (bytes.h), written
 * out whenever it holds 64 KiB (a million calls' export never held whole). */
typedef struct jw {
    FILE *out;
    cp_bytes b;
    bool failed; /* a write failed */
} jw;

static void flush(jw *w)
{
    if (w->b.len && fwrite(w->b.p, 1, w->b.len, w->out) != w->b.len)
        w->failed = true;
    w->b.len = 0;
}

static void raw(jw *w, const char *s, size_t n)
{
    cp_bytes_append(&w->b, s, n);
    if (w->b.len >= (size_t)1 << 16)
        flush(w);
}

static void lit(jw *w, const char *s)
{
    raw(w, s, strlen(s));
}

static void i64(jw *w, int64_t v)
{
    char tmp[24], *s = cp_format_i64(tmp, v);
    raw(w, s, (size_t)(tmp + sizeof tmp - s));
}

/* An integer, or null when it is the model's "absent" (-1). */
static void i64_or_null(jw *w, int64_t v)
{
    if (v < 0)
        lit(w, "null");
    else
        i64(w, v);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static int put_jw(void *ctx, const char *p, size_t n)
{
    raw(ctx, p, n);
    return 0;
}

/* A JSON string (the model's strings come from parsed files and file
 * names): the one escaper, cp_json_escape. */
static void str(jw *w, const char *s, size_t max)
{
    cp_json_escape(s, strnlen(s, max), put_jw, w);
}

static void key(jw *w, const char *k, bool first)
{
    if (!first)
        lit(w, ",");
    lit(w, "\"");
    lit(w, k);
    lit(w, "\":");
}

/* {"key": "value", ...} */
static void kv_object(jw *w, const cp_kv *kv, size_t n)
{
    lit(w, "{");
    for (size_t i = 0; i < n; i++) {
        if (i)
            lit(w, ",");
        str(w, kv[i].key, SIZE_MAX);
        lit(w, ":");
        str(w, kv[i].value, SIZE_MAX);
    }
    lit(w, "}");
}

static void dbl(jw *w, double v)
{
    char buf[40];
    int n = snprintf(buf, sizeof buf, "%.9g", v);
    raw(w, buf, (size_t)n);
}

/* The recorded time of a send matrix's calls (cp_profile_pattern_times). */
static void pattern_time(jw *w, const cp_pattern_time *t)
{
    lit(w, "{");
    key(w, "instances", true);
    i64(w, (int64_t)t->instances);
    key(w, "calls", false);
    i64(w, (int64_t)t->calls);
    key(w, "min", false);
    dbl(w, t->min);
    key(w, "median", false);
    dbl(w, t->median);
    key(w, "max", false);
    dbl(w, t->max);
    key(w, "wait", false);
    dbl(w, t->wait);
    key(w, "wait_instances", false);
    i64(w, (int64_t)t->wait_instances);
    lit(w, "}");
}

static void boolean(jw *w, bool v)
{
    lit(w, v ? "true" : "false");
}

/* [[lo,hi],...] in the list's order (an ordered list keeps rank order). */
static void ranges(jw *w, const cp_ranges *r)
{
    lit(w, "[");
    for (size_t i = 0; i < r->n; i++) {
        lit(w, i ? ",[" : "[");
        i64(w, r->v[i].lo);
        lit(w, ",");
        i64(w, r->v[i].hi);
        lit(w, "]");
    }
    lit(w, "]");
}

static void i64_array(jw *w, const int64_t *v, size_t n)
{
    lit(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            lit(w, ",");
        i64(w, v[i]);
    }
    lit(w, "]");
}

/* As manifest.json writes them: {"sources": [[...] per rank], "destinations": ...}. */
static void neighbor_lists(jw *w, const cp_comm_info *c, bool sources)
{
    lit(w, "[");
    for (int64_t r = 0; r < c->size; r++) {
        const cp_neighbors *nb = &c->neighbors[r];
        if (r)
            lit(w, ",");
        if (sources)
            i64_array(w, nb->sources, nb->nsources);
        else
            i64_array(w, nb->destinations, nb->ndestinations);
    }
    lit(w, "]");
}

static void neighbors(jw *w, const cp_comm_info *c)
{
    if (!c->neighbors) {
        lit(w, "null");
        return;
    }
    lit(w, "{\"sources\":");
    neighbor_lists(w, c, true);
    lit(w, ",\"destinations\":");
    neighbor_lists(w, c, false);
    lit(w, "}");
}

static void manifest(jw *w, const cp_manifest *m)
{
    lit(w, "{");
    key(w, "format_version", true);
    i64(w, m->format_version);
    key(w, "counts_format_version", false);
    i64(w, m->counts_format_version);
    key(w, "collprof_version", false);
    str(w, m->collprof_version, sizeof m->collprof_version);
    key(w, "mpi_version", false);
    str(w, m->mpi_version, sizeof m->mpi_version);
    key(w, "job", false);
    str(w, m->job, sizeof m->job);
    key(w, "start_time", false);
    str(w, m->start_time, sizeof m->start_time);
    key(w, "world_size", false);
    i64(w, m->world_size);
    key(w, "partial", false);
    boolean(w, m->partial);
    key(w, "partial_reason", false);
    str(w, m->partial_reason, sizeof m->partial_reason);
    key(w, "config", false);
    kv_object(w, m->config, m->nconfig);
    key(w, "missing", false);
    kv_object(w, m->missing, m->nmissing);
    key(w, "disagreements", false);
    kv_object(w, m->disagreements, m->ndisagreements);
    key(w, "communicators", false);
    lit(w, "[");
    for (size_t i = 0; i < m->ncomms; i++) {
        const cp_comm_info *c = &m->comms[i];
        lit(w, i ? ",\n{" : "\n{");
        key(w, "id", true);
        i64(w, c->id);
        key(w, "size", false);
        i64(w, c->size);
        key(w, "lead", false);
        i64(w, c->lead);
        key(w, "members", false);
        ranges(w, &c->members);
        key(w, "remote_members", false);
        ranges(w, &c->remote_members);
        key(w, "neighbors", false);
        neighbors(w, c);
        lit(w, "}");
    }
    lit(w, "]");
    key(w, "files", false);
    lit(w, "[");
    for (size_t i = 0; i < m->nfiles; i++) {
        if (i)
            lit(w, ",");
        str(w, m->files[i], SIZE_MAX);
    }
    lit(w, "]");
    key(w, "call_tree", false);
    lit(w, "[");
    for (size_t i = 0; i < m->ncall_tree; i++) {
        const cp_callsite_node *n = &m->call_tree[i];
        lit(w, i ? ",\n{" : "\n{");
        key(w, "parent", true);
        i64(w, n->parent);
        key(w, "function", false);
        str(w, n->function, sizeof n->function);
        key(w, "module", false);
        str(w, n->module, sizeof n->module);
        key(w, "address", false);
        i64(w, (int64_t)n->address);
        lit(w, "}");
    }
    lit(w, "]}");
}

static void block(jw *w, const cp_block *b, const cp_pattern_time *time)
{
    lit(w, "{");
    key(w, "comm", true);
    i64(w, b->comm_id);
    key(w, "comm_size", false);
    i64_or_null(w, b->comm_size);
    key(w, "comm_world_ranks", false);
    if (b->comm_world_ranks.n)
        ranges(w, &b->comm_world_ranks);
    else
        lit(w, "null");
    key(w, "collective", false);
    str(w, b->collective, sizeof b->collective);
    key(w, "root", false);
    i64_or_null(w, b->root);
    key(w, "nranks", false);
    i64(w, b->nranks);
    key(w, "datatype_size", false);
    i64(w, b->dtsize);
    key(w, "counts_in_bytes", false);
    boolean(w, b->counts_in_bytes);
    key(w, "invalid", false);
    boolean(w, b->invalid);
    key(w, "all_calls", false);
    ranges(w, &b->all_calls);
    key(w, "calls", false);
    ranges(w, &b->calls);
    key(w, "callsites", false);
    ranges(w, &b->callsites);
    key(w, "row_len", false);
    i64(w, (int64_t)b->row_len);
    key(w, "rows", false);
    lit(w, "[");
    for (size_t r = 0; r < b->nrows; r++) {
        const cp_row *row = &b->rows[r];
        lit(w, r ? ",{\"ranks\":" : "{\"ranks\":");
        ranges(w, &row->ranks);
        if (row->form != CP_ROW_DENSE) { /* counts format 5: listed values */
            lit(w, row->form == CP_ROW_SPARSE ? ",\"form\":\"sparse\",\"peers\":"
                                              : ",\"form\":\"relative\",\"offsets\":");
            i64_array(w, row->peers, row->nnz);
        }
        lit(w, ",\"counts\":");
        i64_array(w, row->counts, cp_row_nitems(row));
        if (row->err) { /* counts format 6: the MPI library refused these calls */
            char name[48];
            cp_error_class_name(row->err, name, sizeof name);
            lit(w, ",\"failed\":");
            str(w, name, sizeof name);
        }
        lit(w, "}");
    }
    lit(w, "]");
    if (time) { /* send blocks of a profile with timings.cpt */
        key(w, "time", false);
        pattern_time(w, time);
    }
    lit(w, "}");
}

static void counts_file(jw *w, const cp_counts_file *f, const cp_pattern_time *times,
                        size_t ntimes)
{
    lit(w, "{");
    key(w, "file", true);
    str(w, cp_reader_basename(f->path), sizeof f->path);
    key(w, "direction", false);
    lit(w, f->direction == CP_SEND ? "\"send\"" : "\"recv\"");
    key(w, "lead_rank", false);
    i64_or_null(w, f->lead_rank);
    key(w, "format_version", false);
    i64(w, f->version);
    key(w, "blocks", false);
    lit(w, "[");
    for (size_t i = 0; i < f->nblocks; i++) {
        lit(w, i ? ",\n" : "\n");
        block(w, &f->blocks[i], cp_pattern_time_find(times, ntimes, &f->blocks[i]));
    }
    lit(w, "]}");
}

int cp_export_json(const cp_profile *p, FILE *out, cp_error *err)
{
    cp_pattern_time *times = NULL;
    size_t ntimes = 0, nfindings = 0;
    cp_finding *findings = NULL;
    if (cp_profile_pattern_times(p, &times, &ntimes, err))
        return -1;
    if (cp_profile_findings(p, &findings, &nfindings, err)) {
        free(times);
        return -1;
    }
    jw writer = {.out = out}, *w = &writer;
    lit(w, "{\"schema_version\":");
    i64(w, CP_EXPORT_SCHEMA_VERSION);
    lit(w, ",\"format\":\"collprof-export\",\n\"manifest\":");
    if (p->has_manifest)
        manifest(w, &p->manifest);
    else
        lit(w, "null");
    /* A run without MPI_Finalize: which ranks' partial profiles were merged. */
    lit(w, ",\n\"partial_profiles\":");
    if (p->npartials) {
        lit(w, "{");
        key(w, "merged", true);
        i64(w, (int64_t)p->npartials);
        key(w, "stopped", false);
        kv_object(w, p->stops, p->nstops);
        key(w, "absent", false);
        ranges(w, &p->absent);
        lit(w, "}");
    } else {
        lit(w, "null");
    }
    /* What the profile lost (cp_profile.damaged): name -> what is wrong. */
    lit(w, ",\n\"damaged\":");
    kv_object(w, p->damaged, p->ndamaged);
    /* What to look at first (collprof summary's findings), every one. */
    lit(w, ",\n\"findings\":[");
    for (size_t i = 0; i < nfindings; i++) {
        static const char *const kinds[] = {"time", "waiting", "imbalance", "pattern", "coverage",
                                            "share", "callsite"};
        lit(w, i ? ",{" : "{");
        key(w, "kind", true);
        str(w, kinds[findings[i].kind], 16);
        key(w, "cost", false);
        dbl(w, findings[i].cost);
        key(w, "text", false);
        str(w, findings[i].text, sizeof findings[i].text);
        lit(w, "}");
    }
    lit(w, "]");
    lit(w, ",\n\"counts_files\":[");
    for (size_t i = 0; i < p->nfiles; i++) {
        lit(w, i ? ",\n" : "\n");
        counts_file(w, &p->files[i], times, ntimes);
    }
    lit(w, "]}\n");
    flush(w);
    bool failed = w->failed, oom = w->b.failed;
    cp_bytes_free(&w->b);
    free(times);
    free(findings);
    if (oom)
        return cp_error_set(err, "cannot write the export: %s", strerror(ENOMEM));
    if (fflush(out) != 0 || ferror(out) || failed)
        return cp_error_set(err, "cannot write the export: %s", strerror(errno));
    return 0;
}
