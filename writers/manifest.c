/*
 * manifest.json: writer and parser (docs/formats.md, "manifest.json").
 *
 * The writer emits one fixed layout (2-space indentation, keys in a fixed
 * order, one communicator per line).  The parser is a small recursive-descent
 * JSON parser that builds a tree of values (bounded nesting depth, every
 * access checked against the input length), then maps that tree onto the
 * profile model.  Errors read "<file>:<line>:<column>: expected ...", with
 * 1-based lines and 1-based byte columns.
 */
#include "manifest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "json.h"
#include "textio.h"

#define MANIFEST_FORMAT_NAME "collprof-manifest"

/* ======================================================= model helpers */

void cp_neighbors_free(cp_neighbors *nb, int64_t n)
{
    for (int64_t r = 0; nb && r < n; r++) {
        free(nb[r].sources);
        free(nb[r].destinations);
    }
    free(nb);
}

static bool list_equal(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static bool neighbors_equal(const cp_comm_info *x, const cp_comm_info *y)
{
    if (!x->neighbors || !y->neighbors)
        return !x->neighbors && !y->neighbors;
    for (int64_t r = 0; r < x->size; r++) {
        const cp_neighbors *a = &x->neighbors[r], *b = &y->neighbors[r];
        if (!list_equal(a->sources, a->nsources, b->sources, b->nsources) ||
            !list_equal(a->destinations, a->ndestinations, b->destinations, b->ndestinations))
            return false;
    }
    return true;
}

void cp_manifest_free(cp_manifest *m)
{
    if (!m)
        return;
    cp_kv_free(m->config, m->nconfig);
    cp_kv_free(m->missing, m->nmissing);
    cp_kv_free(m->disagreements, m->ndisagreements);
    cp_kv_free(m->modules, m->nmodules);
    for (size_t i = 0; i < m->ncomms; i++) {
        cp_ranges_free(&m->comms[i].members);
        cp_ranges_free(&m->comms[i].remote_members);
        cp_neighbors_free(m->comms[i].neighbors, m->comms[i].size);
        free(m->comms[i].series);
    }
    free(m->comms);
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->files);
    free(m->file_bytes);
    free(m->file_crc);
    free(m->call_tree);
    memset(m, 0, sizeof *m);
}

/* Fixed-size string fields compared up to their size, so that a field that
 * is (wrongly) not NUL-terminated is still compared safely. */
#define FIELD_EQ(a, b, f) (strncmp((a)->f, (b)->f, sizeof (a)->f) == 0)

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool kv_equal(const cp_kv *a, size_t na, const cp_kv *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!str_eq(a[i].key, b[i].key) || !str_eq(a[i].value, b[i].value))
            return false;
    return true;
}

int64_t cp_manifest_file_bytes(const cp_manifest *m, size_t i)
{
    return m->file_bytes && i < m->nfile_info && i < m->nfiles ? m->file_bytes[i] : -1;
}

int64_t cp_manifest_file_crc(const cp_manifest *m, size_t i)
{
    return m->file_crc && i < m->nfile_info && i < m->nfiles ? m->file_crc[i] : -1;
}

bool cp_manifest_equal(const cp_manifest *a, const cp_manifest *b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    if (a->format_version != b->format_version ||
        a->counts_format_version != b->counts_format_version ||
        !FIELD_EQ(a, b, collprof_version) || !FIELD_EQ(a, b, mpi_version) ||
        !FIELD_EQ(a, b, job) || !FIELD_EQ(a, b, start_time) ||
        a->world_size != b->world_size || a->partial != b->partial ||
        !FIELD_EQ(a, b, partial_reason) || a->has_state != b->has_state ||
        (a->has_state && (strcmp(a->state.at, b->state.at) || a->state.snapshot != b->state.snapshot ||
                          a->state.rank != b->state.rank || a->state.pid != b->state.pid || strcmp(a->state.host, b->state.host))) ||
        !kv_equal(a->config, a->nconfig, b->config, b->nconfig) ||
        !kv_equal(a->missing, a->nmissing, b->missing, b->nmissing) ||
        !kv_equal(a->disagreements, a->ndisagreements, b->disagreements,
                  b->ndisagreements) ||
        !kv_equal(a->modules, a->nmodules, b->modules, b->nmodules) ||
        a->ncomms != b->ncomms || a->nfiles != b->nfiles)
        return false;
    for (size_t i = 0; i < a->ncomms; i++) {
        const cp_comm_info *x = &a->comms[i], *y = &b->comms[i];
        if (x->id != y->id || x->size != y->size || x->lead != y->lead ||
            !cp_ranges_equal(&x->members, &y->members) ||
            !cp_ranges_equal(&x->remote_members, &y->remote_members) ||
            !neighbors_equal(x, y) || x->nseries != y->nseries)
            return false;
        for (size_t k = 0; k < x->nseries; k++)
            if (strcmp(x->series[k].collective, y->series[k].collective) ||
                x->series[k].calls != y->series[k].calls ||
                x->series[k].blocks[0] != y->series[k].blocks[0] ||
                x->series[k].blocks[1] != y->series[k].blocks[1])
                return false;
    }
    for (size_t i = 0; i < a->nfiles; i++)
        if (!str_eq(a->files[i], b->files[i]) || cp_manifest_file_bytes(a, i) !=
            cp_manifest_file_bytes(b, i) || cp_manifest_file_crc(a, i) != cp_manifest_file_crc(b, i))
            return false;
    if (a->has_clock != b->has_clock ||
        (a->has_clock &&
         (strcmp(a->clock.source, b->clock.source) || a->clock.tsc_ranks != b->clock.tsc_ranks ||
          a->clock.tsc_hz != b->clock.tsc_hz || a->clock.max_drift_ppm != b->clock.max_drift_ppm ||
          a->clock.drift_bound_ppm != b->clock.drift_bound_ppm ||
          strcmp(a->clock.note, b->clock.note))))
        return false;
    if (a->ncall_tree != b->ncall_tree)
        return false;
    for (size_t i = 0; i < a->ncall_tree; i++) {
        const cp_callsite_node *x = &a->call_tree[i], *y = &b->call_tree[i];
        if (x->parent != y->parent || x->address != y->address ||
            strcmp(x->function, y->function) || strcmp(x->module, y->module) ||
            x->line != y->line || (x->line > 0 && strcmp(x->file, y->file)))
            return false;
    }
    return true;
}

/* ============================================================== writer */

static int write_cstr(cp_out *o, const char *s)
{
    return cp_json_write_string(o, s ? s : "", s ? strlen(s) : 0);
}

/* A fixed-size field of the model: never read past its end. */
#define WRITE_FIELD(o, m, f) cp_json_write_string((o), (m)->f, strnlen((m)->f, sizeof (m)->f))

/* ', "neighbors": {"sources": [[1,2],[0]], "destinations": [[...],...]}' */
static int write_lists(cp_out *o, const cp_comm_info *c, bool sources)
{
    if (cp_out_printf(o, "[") < 0)
        return -1;
    for (int64_t r = 0; r < c->size; r++) {
        const cp_neighbors *nb = &c->neighbors[r];
        const int64_t *v = sources ? nb->sources : nb->destinations;
        size_t n = sources ? nb->nsources : nb->ndestinations;
        if (cp_out_printf(o, "%s[", r ? ", " : "") < 0)
            return -1;
        for (size_t k = 0; k < n; k++)
            if (cp_out_printf(o, k ? ",%" PRId64 : "%" PRId64, v[k]) < 0)
                return -1;
        if (cp_out_printf(o, "]") < 0)
            return -1;
    }
    return cp_out_printf(o, "]");
}

static int write_neighbors(cp_out *o, const cp_comm_info *c)
{
    if (!c->neighbors)
        return 0;
    if (cp_out_printf(o, ", \"neighbors\": {\"sources\": ") < 0 || write_lists(o, c, true) < 0 ||
        cp_out_printf(o, ", \"destinations\": ") < 0 || write_lists(o, c, false) < 0)
        return -1;
    return cp_out_printf(o, "}");
}

/* ', "series": [{"collective": "Alltoallv", "calls": 5, "blocks": [2, 2]}]': what
 * the lead's count files hold of each collective (format 2). */
static int write_series(cp_out *o, const cp_comm_info *c)
{
    if (!c->nseries)
        return 0;
    bool ok = cp_out_str(o, ", \"series\": [") >= 0;
    for (size_t k = 0; ok && k < c->nseries; k++) {
        const cp_series_info *x = &c->series[k];
        ok = cp_out_str(o, k ? ", {\"collective\": " : "{\"collective\": ") >= 0 &&
             WRITE_FIELD(o, x, collective) >= 0 && cp_out_str(o, ", \"calls\": ") >= 0 &&
             cp_out_i64(o, x->calls) >= 0 && cp_out_str(o, ", \"blocks\": [") >= 0 &&
             cp_out_i64(o, x->blocks[0]) >= 0 && cp_out_str(o, ", ") >= 0 &&
             cp_out_i64(o, x->blocks[1]) >= 0 && cp_out_str(o, "]}") >= 0;
    }
    return ok && cp_out_str(o, "]") >= 0 ? 0 : -1;
}

/* ',\n  "clock": {"source": "tsc", "tsc_ranks": 4, "tsc_hz": 2894561234,
 * "max_drift_ppm": 12, "drift_bound_ppm": 5000, "note": ""}' (when timed). */
/* ",\n  "name": {"key": "value", ...}" */
static int write_kv(cp_out *o, const char *name, const cp_kv *kv, size_t n)
{
    bool ok = cp_out_printf(o, ",\n  \"%s\": {", name) >= 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = (i == 0 || cp_out_printf(o, ", ") >= 0) && write_cstr(o, kv[i].key) >= 0 &&
             cp_out_printf(o, ": ") >= 0 && write_cstr(o, kv[i].value) >= 0;
    return ok && cp_out_printf(o, "}") >= 0 ? 0 : -1;
}

/* ',\n  "state": {"at": "2026-11-28T14:02:11", "snapshot": true, "rank": 1,
 * "pid": 4242, "host": "node1"}' (a rank's partial profile only). */
static int write_state(cp_out *o, const cp_manifest *m)
{
    if (!m->has_state)
        return 0;
    if (cp_out_printf(o, ",\n  \"state\": {\"at\": ") < 0 || WRITE_FIELD(o, &m->state, at) < 0 ||
        cp_out_printf(o, ", \"snapshot\": %s, \"rank\": %" PRId64 ", \"pid\": %" PRId64
                         ", \"host\": ",
                      m->state.snapshot ? "true" : "false", m->state.rank, m->state.pid) < 0 ||
        WRITE_FIELD(o, &m->state, host) < 0)
        return -1;
    return cp_out_printf(o, "}");
}

static int to_state(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (v->type != JV_OBJ)
        return cp_jfail(cx, v, "expected an object for \"state\", found %s", cp_jtype_name(v->type));
    const jv *b;
    if (cp_jget_str(cx, v, "at", m->state.at, sizeof m->state.at) < 0 ||
        cp_jget_member(cx, v, "snapshot", true, &b) < 0 ||
        cp_jget_int(cx, v, "rank", 0, INT64_MAX, &m->state.rank) < 0 ||
        cp_jget_int(cx, v, "pid", 0, INT64_MAX, &m->state.pid) < 0 ||
        cp_jget_str(cx, v, "host", m->state.host, sizeof m->state.host) < 0)
        return -1;
    if (b->type != JV_BOOL)
        return cp_jfail(cx, b, "expected true or false for \"snapshot\", found %s",
                        cp_jtype_name(b->type));
    m->state.snapshot = b->b;
    m->has_state = true;
    return 0;
}

static int write_clock(cp_out *o, const cp_manifest *m)
{
    if (!m->has_clock)
        return 0;
    const cp_clock_info *c = &m->clock;
    if (cp_out_printf(o, ",\n  \"clock\": {\"source\": ") < 0 || WRITE_FIELD(o, c, source) < 0 ||
        cp_out_printf(o,
                      ", \"tsc_ranks\": %" PRId64 ", \"tsc_hz\": %" PRId64
                      ", \"max_drift_ppm\": %" PRId64 ", \"drift_bound_ppm\": %" PRId64
                      ", \"note\": ",
                      c->tsc_ranks, c->tsc_hz, c->max_drift_ppm, c->drift_bound_ppm) < 0 ||
        WRITE_FIELD(o, c, note) < 0)
        return -1;
    return cp_out_printf(o, "}");
}

/* ',\n  "call_tree": [{"parent": -1, "function": "main", "module": "/app", "address": 4660}]'
 * (only when call paths were recorded; a node's id is its index). */
static int write_call_tree(cp_out *o, const cp_manifest *m)
{
    if (m->ncall_tree == 0)
        return 0;
    if (cp_out_printf(o, ",\n  \"call_tree\": [") < 0)
        return -1;
    for (size_t i = 0; i < m->ncall_tree; i++) {
        const cp_callsite_node *n = &m->call_tree[i];
        if (cp_out_printf(o, "%s\n    {\"parent\": %" PRId64 ", \"function\": ", i ? "," : "",
                          n->parent) < 0 ||
            WRITE_FIELD(o, n, function) < 0 || cp_out_printf(o, ", \"module\": ") < 0 ||
            WRITE_FIELD(o, n, module) < 0 ||
            cp_out_printf(o, ", \"address\": %" PRIu64, n->address) < 0)
            return -1;
        /* The line of the call as the module that ran says (format 2). */
        if (n->line > 0 && (cp_out_printf(o, ", \"file\": ") < 0 || WRITE_FIELD(o, n, file) < 0 ||
                            cp_out_printf(o, ", \"line\": %" PRId64, n->line) < 0))
            return -1;
        if (cp_out_printf(o, "}") < 0)
            return -1;
    }
    return cp_out_printf(o, "\n  ]");
}

int cp_manifest_write(cp_out *o, const cp_manifest *m, cp_error *err)
{
    int counts_version = m->counts_format_version > 0 ? m->counts_format_version
                                                      : CP_COUNTS_FORMAT_VERSION;
    bool ok = cp_out_printf(o,
                            "{\n  \"format\": \"" MANIFEST_FORMAT_NAME "\",\n"
                            "  \"format_version\": %d,\n"
                            "  \"counts_format_version\": %d,\n",
                            CP_MANIFEST_FORMAT_VERSION, counts_version) >= 0;
    ok = ok && cp_out_printf(o, "  \"collprof_version\": ") >= 0 &&
         WRITE_FIELD(o, m, collprof_version) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"mpi_version\": ") >= 0 &&
         WRITE_FIELD(o, m, mpi_version) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"job\": ") >= 0 && WRITE_FIELD(o, m, job) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"start_time\": ") >= 0 &&
         WRITE_FIELD(o, m, start_time) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"world_size\": %" PRId64 ",\n  \"partial\": %s,\n"
                                "  \"partial_reason\": ",
                             m->world_size, m->partial ? "true" : "false") >= 0 &&
         WRITE_FIELD(o, m, partial_reason) >= 0 && write_state(o, m) >= 0;

    ok = ok && write_kv(o, "config", m->config, m->nconfig) >= 0 && write_clock(o, m) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"communicators\": [") >= 0;
    for (size_t i = 0; ok && i < m->ncomms; i++) {
        const cp_comm_info *c = &m->comms[i];
        char *members = cp_ranges_to_string(&c->members);
        if (!members)
            return cp_error_set(err, "%s: out of memory", cp_out_path(o));
        char *remote = c->remote_members.n ? cp_ranges_to_string(&c->remote_members) : NULL;
        if (c->remote_members.n && !remote) {
            free(members);
            return cp_error_set(err, "%s: out of memory", cp_out_path(o));
        }
        /* One row per communicator: put piece by piece, not formatted. */
        ok = cp_out_str(o, i ? ",\n    {\"id\": " : "\n    {\"id\": ") >= 0 &&
             cp_out_i64(o, c->id) >= 0 && cp_out_str(o, ", \"size\": ") >= 0 &&
             cp_out_i64(o, c->size) >= 0 && cp_out_str(o, ", \"lead\": ") >= 0 &&
             cp_out_i64(o, c->lead) >= 0 && cp_out_str(o, ", \"members\": \"") >= 0 &&
             cp_out_str(o, members) >= 0 && cp_out_str(o, "\"") >= 0 &&
             (!remote || (cp_out_str(o, ", \"remote_members\": \"") >= 0 &&
                          cp_out_str(o, remote) >= 0 && cp_out_str(o, "\"") >= 0));
        ok = ok && write_neighbors(o, c) >= 0 && write_series(o, c) >= 0 &&
             cp_out_str(o, "}") >= 0;
        free(members);
        free(remote);
    }
    ok = ok && cp_out_printf(o, "%s]", m->ncomms ? "\n  " : "") >= 0;
    ok = ok && write_call_tree(o, m) >= 0;
    if (m->nmodules)
        ok = ok && write_kv(o, "modules", m->modules, m->nmodules) >= 0;
    ok = ok && cp_out_printf(o, ",\n  \"files\": [") >= 0;
    for (size_t i = 0; ok && i < m->nfiles; i++) {
        int64_t bytes = cp_manifest_file_bytes(m, i), crc = cp_manifest_file_crc(m, i);
        ok = i == 0 || cp_out_printf(o, ",") >= 0;
        if (bytes < 0) {
            ok = ok && cp_out_printf(o, "\n    ") >= 0 && write_cstr(o, m->files[i]) >= 0;
            continue;
        }
        ok = ok && cp_out_printf(o, "\n    {\"name\": ") >= 0 && write_cstr(o, m->files[i]) >= 0 &&
             cp_out_printf(o, ", \"bytes\": %" PRId64, bytes) >= 0 &&
             (crc < 0 || cp_out_printf(o, ", \"crc32\": %" PRId64, crc) >= 0) &&
             cp_out_printf(o, "}") >= 0;
    }
    ok = ok && cp_out_printf(o, "%s]", m->nfiles ? "\n  " : "") >= 0;
    if (m->nmissing)
        ok = ok && write_kv(o, "missing", m->missing, m->nmissing) >= 0;
    if (m->ndisagreements)
        ok = ok && write_kv(o, "disagreements", m->disagreements, m->ndisagreements) >= 0;
    ok = ok && cp_out_printf(o, "\n}\n") >= 0;
    if (!ok) {
        if (cp_out_status(o, err) == 0) /* not a write error: our own formatting */
            cp_error_set(err, "%s: cannot write the manifest", cp_out_path(o));
        return -1;
    }
    return 0;
}

int cp_manifest_write_file(const char *path, bool gzip, const cp_manifest *m, cp_error *err)
{
    cp_out *o = cp_out_open(path, gzip, err);
    if (!o)
        return -1;
    if (cp_manifest_write(o, m, err) < 0) {
        cp_out_abort(o);
        return -1;
    }
    return cp_out_commit(o, err);
}

/* ====================================================== tree -> model */

static char *steal(jv *v)
{
    char *s = v->s;
    v->s = NULL;
    return s;
}

static int cmp_key_ptr(const void *a, const void *b)
{
    const jv *x = *(const jv *const *)a, *y = *(const jv *const *)b;
    int c = strcmp(x->s, y->s);
    if (c)
        return c;
    /* equal keys: the later one first, so that it is the one reported */
    return (x->line > y->line || (x->line == y->line && x->col > y->col)) ? -1 : 1;
}

static int to_clock(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (v->type != JV_OBJ)
        return cp_jfail(cx, v, "expected an object for \"clock\", found %s", cp_jtype_name(v->type));
    cp_clock_info *c = &m->clock;
    if (cp_jget_str(cx, v, "source", c->source, sizeof c->source) < 0 ||
        cp_jget_int(cx, v, "tsc_ranks", 0, INT64_MAX, &c->tsc_ranks) < 0 ||
        cp_jget_int(cx, v, "tsc_hz", 0, INT64_MAX, &c->tsc_hz) < 0 ||
        cp_jget_int(cx, v, "max_drift_ppm", 0, INT64_MAX, &c->max_drift_ppm) < 0 ||
        cp_jget_int(cx, v, "drift_bound_ppm", 0, INT64_MAX, &c->drift_bound_ppm) < 0 ||
        cp_jget_str(cx, v, "note", c->note, sizeof c->note) < 0)
        return -1;
    if (strcmp(c->source, "tsc") && strcmp(c->source, "monotonic") && strcmp(c->source, "mixed"))
        return cp_jfail(cx, v, "expected \"source\" to be tsc, monotonic or mixed, found \"%s\"",
                     c->source);
    m->has_clock = true;
    return 0;
}

/* An object of strings (\"config\", \"missing\") into *out, *n. */
static int to_kv(const jctx *cx, jv *v, const char *what, cp_kv **out, size_t *n)
{
    if (v->type != JV_OBJ)
        return cp_jfail(cx, v, "expected an object for \"%s\", found %s", what, cp_jtype_name(v->type));
    if (v->n == 0)
        return 0;
    /* unique keys: sort pointers, compare neighbours */
    const jv **sorted = malloc(v->n * sizeof *sorted);
    if (!sorted)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++)
        sorted[k] = &v->keys[k];
    qsort(sorted, v->n, sizeof *sorted, cmp_key_ptr);
    for (size_t k = 1; k < v->n; k++)
        if (strcmp(sorted[k - 1]->s, sorted[k]->s) == 0) {
            const jv *dup = sorted[k - 1];
            free(sorted);
            return cp_jfail(cx, dup, "expected the key \"%s\" only once in \"%s\"", dup->s,
                         what);
        }
    free(sorted);
    *out = calloc(v->n, sizeof **out);
    if (!*out)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        if (v->items[k].type != JV_STR)
            return cp_jfail(cx, &v->items[k], "expected a string value for %s key \"%s\", found %s",
                         what, v->keys[k].s, cp_jtype_name(v->items[k].type));
        (*out)[k].key = steal(&v->keys[k]);
        (*out)[k].value = steal(&v->items[k]);
        (*n)++;
    }
    return 0;
}

/* "series": [{"collective": NAME, "calls": N, "blocks": [S, R]}, ...] */
static int to_series(const jctx *cx, const jv *a, cp_comm_info *c)
{
    if (a->type != JV_ARR)
        return cp_jfail(cx, a, "expected an array for \"series\", found %s", cp_jtype_name(a->type));
    if (!a->n)
        return 0;
    if (!(c->series = calloc(a->n, sizeof *c->series)))
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < a->n; k++) {
        const jv *o = &a->items[k], *b;
        cp_series_info *x = &c->series[k];
        if (o->type != JV_OBJ)
            return cp_jfail(cx, o, "expected an object in \"series\", found %s",
                            cp_jtype_name(o->type));
        if (cp_jget_str(cx, o, "collective", x->collective, sizeof x->collective) < 0 ||
            cp_jget_int(cx, o, "calls", 0, INT64_MAX, &x->calls) < 0 ||
            cp_jget_member(cx, o, "blocks", true, &b) < 0)
            return -1;
        if (b->type != JV_ARR || b->n != 2 || b->items[0].type != JV_INT ||
            b->items[1].type != JV_INT || b->items[0].overflow || b->items[1].overflow ||
            b->items[0].i < 0 || b->items[1].i < 0)
            return cp_jfail(cx, b, "expected [send blocks, receive blocks] for \"blocks\"");
        x->blocks[0] = b->items[0].i;
        x->blocks[1] = b->items[1].i;
        c->nseries++;
    }
    return 0;
}

/* One of "sources"/"destinations": an array of c->size arrays of ranks. */
static int to_lists(const jctx *cx, const jv *o, const char *key, cp_comm_info *c, bool sources)
{
    const jv *a;
    if (cp_jget_member(cx, o, key, true, &a) < 0)
        return -1;
    if (a->type != JV_ARR || (int64_t)a->n != c->size)
        return cp_jfail(cx, a, "expected an array of %" PRId64 " neighbour lists for \"%s\"",
                     c->size, key);
    for (size_t r = 0; r < a->n; r++) {
        const jv *l = &a->items[r];
        if (l->type != JV_ARR)
            return cp_jfail(cx, l, "expected an array of ranks in \"%s\"", key);
        int64_t *v = malloc((l->n ? l->n : 1) * sizeof *v);
        if (!v)
            return cp_error_set(cx->err, "%s: out of memory", cx->name);
        cp_neighbors *nb = &c->neighbors[r];
        if (sources) {
            nb->sources = v;
            nb->nsources = l->n;
        } else {
            nb->destinations = v;
            nb->ndestinations = l->n;
        }
        for (size_t k = 0; k < l->n; k++) {
            const jv *x = &l->items[k];
            if (x->type != JV_INT || x->overflow || x->i < -1 || x->i >= c->size)
                return cp_jfail(cx, x, "expected a rank from -1 (MPI_PROC_NULL) to %" PRId64
                                    " in \"%s\"", c->size - 1, key);
            v[k] = x->i;
        }
    }
    return 0;
}

static int to_neighbors(const jctx *cx, const jv *o, cp_comm_info *c)
{
    if (o->type != JV_OBJ)
        return cp_jfail(cx, o, "expected an object for \"neighbors\", found %s", cp_jtype_name(o->type));
    /* Both lists must hold one entry per rank: check their lengths before
     * allocating, so that the allocation is bounded by the input's length
     * and not by a "size" that the input may set to anything. */
    static const char *const keys[] = {"sources", "destinations"};
    for (size_t k = 0; k < 2; k++) {
        const jv *a;
        if (cp_jget_member(cx, o, keys[k], true, &a) < 0)
            return -1;
        if (a->type != JV_ARR || (int64_t)a->n != c->size)
            return cp_jfail(cx, a, "expected an array of %" PRId64 " neighbour lists for \"%s\"",
                         c->size, keys[k]);
    }
    if (c->size > (int64_t)(SIZE_MAX / sizeof *c->neighbors) ||
        !(c->neighbors = calloc(c->size ? (size_t)c->size : 1, sizeof *c->neighbors)))
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    return to_lists(cx, o, "sources", c, true) < 0 || to_lists(cx, o, "destinations", c, false) < 0
               ? -1
               : 0;
}

static int to_comms(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (v->type != JV_ARR)
        return cp_jfail(cx, v, "expected an array for \"communicators\", found %s",
                     cp_jtype_name(v->type));
    if (v->n == 0)
        return 0;
    m->comms = calloc(v->n, sizeof *m->comms);
    if (!m->comms)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        const jv *o = &v->items[k], *mem;
        cp_comm_info *c = &m->comms[k];
        m->ncomms++;
        if (o->type != JV_OBJ)
            return cp_jfail(cx, o, "expected an object for a communicator, found %s",
                         cp_jtype_name(o->type));
        if (cp_jget_int(cx, o, "id", 0, INT64_MAX, &c->id) < 0 ||
            cp_jget_int(cx, o, "size", 0, INT64_MAX, &c->size) < 0 ||
            cp_jget_int(cx, o, "lead", 0, INT64_MAX, &c->lead) < 0 ||
            cp_jget_member(cx, o, "members", true, &mem) < 0)
            return -1;
        if (mem->type != JV_STR)
            return cp_jfail(cx, mem, "expected a string for \"members\", found %s",
                         cp_jtype_name(mem->type));
        const char *why = NULL;
        if (mem->slen > 0 && cp_ranges_parse_ordered(mem->s, mem->slen, &c->members, &why) < 0)
            return cp_jfail(cx, mem, "expected a list of world ranks such as \"0-3,5\" for \"members\" (%s)",
                         why ? why : "invalid range list");
        /* Optional: intercommunicators only. */
        if (cp_jget_member(cx, o, "remote_members", false, &mem) < 0)
            return -1;
        if (mem && mem->type != JV_STR)
            return cp_jfail(cx, mem, "expected a string for \"remote_members\", found %s",
                         cp_jtype_name(mem->type));
        if (mem && mem->slen > 0 &&
            cp_ranges_parse_ordered(mem->s, mem->slen, &c->remote_members, &why) < 0)
            return cp_jfail(cx, mem,
                         "expected a list of world ranks such as \"4-7\" for \"remote_members\" (%s)",
                         why ? why : "invalid range list");
        /* Optional: topology communicators only. */
        if (cp_jget_member(cx, o, "neighbors", false, &mem) < 0 || (mem && to_neighbors(cx, mem, c) < 0))
            return -1;
        /* Optional (format 2): what its count files hold. */
        if (cp_jget_member(cx, o, "series", false, &mem) < 0 || (mem && to_series(cx, mem, c) < 0))
            return -1;
    }
    return 0;
}

/* "files": names, or (format 2) {"name": NAME, "bytes": N[, "crc32": C]}. */
static int to_files(const jctx *cx, jv *v, cp_manifest *m)
{
    if (v->type != JV_ARR)
        return cp_jfail(cx, v, "expected an array for \"files\", found %s", cp_jtype_name(v->type));
    if (v->n == 0)
        return 0;
    m->files = calloc(v->n, sizeof *m->files);
    m->file_bytes = malloc(v->n * sizeof *m->file_bytes);
    m->file_crc = malloc(v->n * sizeof *m->file_crc);
    if (!m->files || !m->file_bytes || !m->file_crc)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        jv *it = &v->items[k];
        m->file_bytes[k] = m->file_crc[k] = -1;
        if (it->type == JV_OBJ) {
            jv *name;
            const jv *crc;
            if (cp_jget_member(cx, it, "name", true, (const jv **)&name) < 0 ||
                cp_jget_int(cx, it, "bytes", 0, INT64_MAX, &m->file_bytes[k]) < 0 ||
                cp_jget_member(cx, it, "crc32", false, &crc) < 0)
                return -1;
            if (crc && cp_jget_int(cx, it, "crc32", 0, UINT32_MAX, &m->file_crc[k]) < 0)
                return -1;
            if (name->type != JV_STR)
                return cp_jfail(cx, name, "expected a file name (string) for \"name\", found %s",
                                cp_jtype_name(name->type));
            m->files[k] = steal(name);
        } else if (it->type == JV_STR) {
            m->files[k] = steal(it);
        } else {
            return cp_jfail(cx, it, "expected a file name or {\"name\", \"bytes\", \"crc32\"} in "
                                    "\"files\", found %s", cp_jtype_name(it->type));
        }
        m->nfiles++;
        m->nfile_info = m->nfiles;
    }
    return 0;
}

static int to_call_tree(const jctx *cx, const jv *v, cp_manifest *m)
{
    if (!v)
        return 0; /* call paths were not recorded */
    if (v->type != JV_ARR)
        return cp_jfail(cx, v, "expected an array for \"call_tree\", found %s", cp_jtype_name(v->type));
    if (v->n == 0)
        return 0;
    m->call_tree = calloc(v->n, sizeof *m->call_tree);
    if (!m->call_tree)
        return cp_error_set(cx->err, "%s: out of memory", cx->name);
    for (size_t k = 0; k < v->n; k++) {
        const jv *o = &v->items[k];
        cp_callsite_node *n = &m->call_tree[k];
        int64_t address;
        if (o->type != JV_OBJ)
            return cp_jfail(cx, o, "expected a call-tree node (object) in \"call_tree\", found %s",
                         cp_jtype_name(o->type));
        /* Pre-order: a parent comes before its children. */
        if (cp_jget_int(cx, o, "parent", -1, (int64_t)k - 1, &n->parent) < 0 ||
            cp_jget_str(cx, o, "function", n->function, sizeof n->function) < 0 ||
            cp_jget_str(cx, o, "module", n->module, sizeof n->module) < 0 ||
            cp_jget_int(cx, o, "address", 0, INT64_MAX, &address) < 0)
            return -1;
        n->address = (uint64_t)address;
        const jv *line;
        if (cp_jget_member(cx, o, "line", false, &line) < 0 ||
            (line && (cp_jget_int(cx, o, "line", 1, INT64_MAX, &n->line) < 0 ||
                      cp_jget_str(cx, o, "file", n->file, sizeof n->file) < 0)))
            return -1;
        m->ncall_tree++;
    }
    return 0;
}

static int to_manifest(const jctx *cx, jv *root, cp_manifest *m)
{
    const jv *v;
    int64_t x;
    if (root->type != JV_OBJ)
        return cp_jfail(cx, root, "expected an object at the top level, found %s",
                     cp_jtype_name(root->type));
    /* format and version first: a newer manifest may differ in everything else */
    if (cp_jget_member(cx, root, "format", true, &v) < 0)
        return -1;
    if (v->type != JV_STR || strcmp(v->s, MANIFEST_FORMAT_NAME) != 0)
        return cp_jfail(cx, v, "expected \"format\": \"" MANIFEST_FORMAT_NAME "\"");
    if (cp_jget_member(cx, root, "format_version", true, &v) < 0)
        return -1;
    if (v->type == JV_INT && !v->overflow && v->i > CP_MANIFEST_FORMAT_VERSION)
        return cp_jfail(cx, v,
                     "manifest format version %" PRId64
                     " is newer than version %d, which this collprof reads",
                     v->i, CP_MANIFEST_FORMAT_VERSION);
    if (cp_jget_int(cx, root, "format_version", 1, CP_MANIFEST_FORMAT_VERSION, &x) < 0)
        return -1;
    m->format_version = (int)x;
    /* From 1: version 0 is other tools' count files, which come without a
     * manifest, and the writer takes 0 for "not set" and writes the current
     * version, so a 0 read here would not survive a round trip. */
    if (cp_jget_int(cx, root, "counts_format_version", 1, 1000000, &x) < 0)
        return -1;
    m->counts_format_version = (int)x;
    if (cp_jget_str(cx, root, "collprof_version", m->collprof_version, sizeof m->collprof_version) < 0 ||
        cp_jget_str(cx, root, "mpi_version", m->mpi_version, sizeof m->mpi_version) < 0 ||
        cp_jget_str(cx, root, "job", m->job, sizeof m->job) < 0 ||
        cp_jget_str(cx, root, "start_time", m->start_time, sizeof m->start_time) < 0 ||
        cp_jget_int(cx, root, "world_size", 0, INT64_MAX, &m->world_size) < 0)
        return -1;
    if (cp_jget_member(cx, root, "partial", true, &v) < 0)
        return -1;
    if (v->type != JV_BOOL)
        return cp_jfail(cx, v, "expected true or false for \"partial\", found %s",
                     cp_jtype_name(v->type));
    m->partial = v->b;
    if (cp_jget_str(cx, root, "partial_reason", m->partial_reason, sizeof m->partial_reason) < 0)
        return -1;
    if (cp_jget_member(cx, root, "state", false, &v) < 0 || (v && to_state(cx, v, m) < 0))
        return -1;
    if (cp_jget_member(cx, root, "config", true, &v) < 0 ||
        to_kv(cx, (jv *)v, "config", &m->config, &m->nconfig) < 0)
        return -1;
    if (cp_jget_member(cx, root, "clock", false, &v) < 0 || (v && to_clock(cx, v, m) < 0))
        return -1;
    if (cp_jget_member(cx, root, "communicators", true, &v) < 0 || to_comms(cx, v, m) < 0)
        return -1;
    if (cp_jget_member(cx, root, "files", true, &v) < 0 || to_files(cx, (jv *)v, m) < 0)
        return -1;
    if (cp_jget_member(cx, root, "call_tree", false, &v) < 0 || to_call_tree(cx, v, m) < 0)
        return -1;
    if (cp_jget_member(cx, root, "modules", false, &v) < 0 ||
        (v && to_kv(cx, (jv *)v, "modules", &m->modules, &m->nmodules) < 0))
        return -1;
    if (cp_jget_member(cx, root, "missing", false, &v) < 0 ||
        (v && to_kv(cx, (jv *)v, "missing", &m->missing, &m->nmissing) < 0))
        return -1;
    if (cp_jget_member(cx, root, "disagreements", false, &v) < 0 ||
        (v && to_kv(cx, (jv *)v, "disagreements", &m->disagreements, &m->ndisagreements) < 0))
        return -1;
    return 0;
}

/* Parse data[0..len) (need not be NUL-terminated). */
static int manifest_parse_mem(const char *data, size_t len, const char *name, cp_manifest *m,
                              cp_error *err)
{
    jv root = {0};
    memset(m, 0, sizeof *m);
    int rc = cp_json_parse(data, len, name, &root, err);
    if (rc == 0) {
        jctx cx = {name, err};
        rc = to_manifest(&cx, &root, m);
    }
    cp_jv_free(&root);
    if (rc < 0)
        cp_manifest_free(m);
    return rc;
}

int cp_manifest_parse(cp_in *in, cp_manifest *m, cp_error *err)
{
    char *data = NULL;
    size_t len = 0;
    memset(m, 0, sizeof *m);
    if (cp_in_slurp(in, &data, &len, err) < 0)
        return -1;
    int rc = manifest_parse_mem(data, len, cp_in_name(in), m, err);
    free(data);
    return rc;
}

static int parse_in(cp_in *in, void *m, cp_error *err)
{
    return cp_manifest_parse(in, m, err);
}

int cp_manifest_parse_file(const char *path, cp_manifest *m, cp_error *err)
{
    memset(m, 0, sizeof *m);
    return cp_in_parse_path(path, parse_in, m, err);
}
