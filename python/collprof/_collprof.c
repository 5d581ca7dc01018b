/*
 * collprof._collprof: the reader library (include/collprof/reader.h) for
 * Python.  One type, Profile, holding a loaded output directory; each
 * method answers one question with plain Python objects (dicts, lists,
 * tuples) or, for the large ones, bytes that numpy reads without copying
 * (numpy.frombuffer): no numpy C API, no CLI, no JSON.  collprof/
 * __init__.py builds the pandas DataFrames and numpy arrays on top.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collprof/reader.h"

typedef struct {
    PyObject_HEAD
    cp_profile p;
    bool loaded;
    bool timed;        /* timings computed (has_timings and no error) */
    bool timings_done;
    cp_timings t;
} Profile;

static void Profile_dealloc(Profile *self)
{
    if (self->timings_done && self->timed)
        cp_timings_free(&self->t);
    if (self->loaded)
        cp_profile_free(&self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Profile_init(Profile *self, PyObject *args, PyObject *kw)
{
    const char *dir;
    static char *names[] = {"dir", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s", names, &dir))
        return -1;
    cp_error err = {{0}};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = cp_profile_load(dir, &self->p, &err);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        PyErr_SetString(PyExc_OSError, err.msg);
        return -1;
    }
    self->loaded = true;
    return 0;
}

/* The timings of the profile, computed once; NULL (no error set) when the
 * profile has none. */
static const cp_timings *timings_of(Profile *self)
{
    if (!self->timings_done) {
        self->timings_done = true;
        cp_error err = {{0}};
        self->timed = self->p.has_timings && cp_profile_timings(&self->p, &self->t, &err) == 0;
    }
    return self->timed ? &self->t : NULL;
}

/* ------------------------------------------------------------- helpers */

static PyObject *ranges_list(const cp_ranges *r)
{
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < r->n; i++)
        for (int64_t v = r->v[i].lo; v <= r->v[i].hi; v += r->v[i].step > 1 ? r->v[i].step : 1) {
            PyObject *x = PyLong_FromLongLong(v);
            if (!x || PyList_Append(l, x) < 0) {
                Py_XDECREF(x);
                Py_DECREF(l);
                return NULL;
            }
            Py_DECREF(x);
        }
    return l;
}

static PyObject *kv_dict(const cp_kv *kv, size_t n)
{
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < n; i++) {
        PyObject *v = PyUnicode_DecodeUTF8(kv[i].value, (Py_ssize_t)strlen(kv[i].value),
                                           "replace");
        if (!v || PyDict_SetItemString(d, kv[i].key, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

/* Set d[key] = v, taking v's reference; -1 when v is NULL or the set fails. */
static int put(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *str(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* --------------------------------------------------------------- manifest */

static PyObject *comm_dict(const cp_comm_info *c)
{
    PyObject *d = PyDict_New();
    if (!d || put(d, "id", PyLong_FromLongLong(c->id)) || put(d, "size", PyLong_FromLongLong(c->size)) ||
        put(d, "lead", PyLong_FromLongLong(c->lead)) || put(d, "members", ranges_list(&c->members)) ||
        put(d, "remote_members", ranges_list(&c->remote_members))) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *Profile_manifest(Profile *self, PyObject *unused)
{
    (void)unused;
    if (!self->p.has_manifest)
        Py_RETURN_NONE;
    const cp_manifest *m = &self->p.manifest;
    PyObject *d = PyDict_New(), *comms = PyList_New(0), *files = PyList_New(0);
    bool ok = d && comms && files;
    for (size_t i = 0; ok && i < m->ncomms; i++) {
        PyObject *c = comm_dict(&m->comms[i]);
        ok = c && PyList_Append(comms, c) == 0;
        Py_XDECREF(c);
    }
    for (size_t i = 0; ok && i < m->nfiles; i++) {
        PyObject *f = str(m->files[i]);
        ok = f && PyList_Append(files, f) == 0;
        Py_XDECREF(f);
    }
    ok = ok && !put(d, "format_version", PyLong_FromLong(m->format_version)) &&
         !put(d, "counts_format_version", PyLong_FromLong(m->counts_format_version)) &&
         !put(d, "collprof_version", str(m->collprof_version)) &&
         !put(d, "mpi_version", str(m->mpi_version)) && !put(d, "job", str(m->job)) &&
         !put(d, "start_time", str(m->start_time)) &&
         !put(d, "world_size", PyLong_FromLongLong(m->world_size)) &&
         !put(d, "partial", PyBool_FromLong(m->partial)) &&
         !put(d, "partial_reason", str(m->partial_reason)) &&
         !put(d, "config", kv_dict(m->config, m->nconfig)) &&
         !put(d, "missing", kv_dict(m->missing, m->nmissing)) &&
         !put(d, "disagreements", kv_dict(m->disagreements, m->ndisagreements));
    if (ok) {
        Py_INCREF(comms), Py_INCREF(files);
        ok = !put(d, "communicators", comms) && !put(d, "files", files);
    }
    Py_XDECREF(comms), Py_XDECREF(files);
    if (!ok) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *Profile_damaged(Profile *self, PyObject *unused)
{
    (void)unused;
    return kv_dict(self->p.damaged, self->p.ndamaged);
}

/* ----------------------------------------------------------------- series */

static const cp_timing_row *timing_row(const cp_timings *t, int64_t comm, const char *coll)
{
    for (size_t i = 0; t && i < t->nrows; i++)
        if (t->rows[i].comm == comm && !strcasecmp(t->rows[i].collective, coll))
            return &t->rows[i];
    return NULL;
}

static void waiting_of(const cp_timing_row *r, double *w, double *se)
{
    double sum = 0, var = 0;
    for (int p = 0; p < CP_READER_NPATTERNS; p++)
        sum += r->wait[p], var += r->wait_se[p] * r->wait_se[p];
    *w = sum, *se = sqrt(var);
}

/* (comm, size, collective, calls, bytes, matrices, time, waiting,
 * waiting_se) per (communicator, collective); time and waiting None
 * without timings (waiting None where it cannot be known). */
static PyObject *Profile_series(Profile *self, PyObject *unused)
{
    (void)unused;
    cp_summary_row *rows;
    size_t n;
    cp_error err = {{0}};
    if (cp_profile_summarize(&self->p, &rows, &n, &err)) {
        PyErr_SetString(PyExc_MemoryError, err.msg);
        return NULL;
    }
    const cp_timings *t = timings_of(self);
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n; i++) {
        const cp_summary_row *r = &rows[i];
        const cp_timing_row *tr = timing_row(t, r->comm, r->collective);
        double w = 0, se = 0;
        if (tr)
            waiting_of(tr, &w, &se);
        PyObject *time = tr ? PyFloat_FromDouble(tr->total) : (Py_INCREF(Py_None), Py_None);
        PyObject *wait = tr && !tr->wait_unknown ? PyFloat_FromDouble(w)
                                                  : (Py_INCREF(Py_None), Py_None);
        PyObject *wse = tr && !tr->wait_unknown ? PyFloat_FromDouble(se)
                                                 : (Py_INCREF(Py_None), Py_None);
        PyObject *row = Py_BuildValue("(LLsLLnNNN)", (long long)r->comm, (long long)r->size,
                                      r->collective, (long long)r->calls,
                                      (long long)r->bytes_sent, (Py_ssize_t)r->send_matrices,
                                      time, wait, wse);
        if (!row || PyList_Append(l, row) < 0) {
            Py_XDECREF(row);
            Py_CLEAR(l);
        }
        Py_XDECREF(row);
    }
    free(rows);
    return l;
}

/* ------------------------------------------------------------------ calls */

/* The blocks of (comm, collective) of one direction, in the order of their
 * first call: the series' matrices, numbered. */
typedef struct series_blocks {
    const cp_block **b;
    size_t n;
} series_blocks;

static int64_t first_call(const cp_block *b)
{
    return b->calls.n ? b->calls.v[0].lo : INT64_MAX;
}

static int cmp_first(const void *x, const void *y)
{
    int64_t a = first_call(*(const cp_block *const *)x), b = first_call(*(const cp_block *const *)y);
    return (a > b) - (a < b);
}

static int blocks_of(const cp_profile *p, int64_t comm, const char *coll, int dir, series_blocks *s)
{
    s->n = 0;
    size_t cap = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        cap += p->files[f].nblocks;
    s->b = malloc((cap ? cap : 1) * sizeof *s->b);
    if (!s->b)
        return -1;
    for (size_t f = 0; f < p->nfiles; f++) {
        if (p->files[f].direction != dir)
            continue;
        for (size_t i = 0; i < p->files[f].nblocks; i++) {
            const cp_block *b = &p->files[f].blocks[i];
            if (b->comm_id == comm && !strcasecmp(b->collective, coll))
                s->b[s->n++] = b;
        }
    }
    qsort(s->b, s->n, sizeof *s->b, cmp_first);
    return 0;
}

/* One call of a series: its index, its matrix, its call path. */
typedef struct call_rec {
    int64_t call, matrix, site;
} call_rec;

static int cmp_call(const void *x, const void *y)
{
    const call_rec *a = x, *b = y;
    return (a->call > b->call) - (a->call < b->call);
}

/* calls(comm, collective) -> (records, direction): the calls in call order
 * as bytes of int64 triples (call index; matrix, numbered by first call;
 * the call path that issued the matrix, -1 when several or none), and the
 * side they were read from ("send", else "recv" for a series recorded on
 * its receive side only). */
static PyObject *Profile_calls(Profile *self, PyObject *args)
{
    long long comm;
    const char *coll;
    if (!PyArg_ParseTuple(args, "Ls", &comm, &coll))
        return NULL;
    series_blocks s;
    int dir = CP_SEND;
    if (blocks_of(&self->p, comm, coll, CP_SEND, &s))
        return PyErr_NoMemory();
    if (s.n == 0) {
        free(s.b);
        dir = CP_RECV;
        if (blocks_of(&self->p, comm, coll, CP_RECV, &s))
            return PyErr_NoMemory();
    }
    size_t total = 0;
    for (size_t i = 0; i < s.n; i++)
        total += (size_t)cp_ranges_count(&s.b[i]->calls);
    call_rec *v = malloc((total ? total : 1) * sizeof *v);
    if (!v) {
        free(s.b);
        return PyErr_NoMemory();
    }
    size_t k = 0;
    for (size_t i = 0; i < s.n; i++) {
        const cp_block *b = s.b[i];
        int64_t cs = cp_ranges_count(&b->callsites) == 1 ? b->callsites.v[0].lo : -1;
        for (size_t j = 0; j < b->calls.n; j++) {
            int64_t step = b->calls.v[j].step > 1 ? b->calls.v[j].step : 1;
            for (int64_t c = b->calls.v[j].lo; c <= b->calls.v[j].hi && k < total; c += step)
                v[k++] = (call_rec){c, (int64_t)i, cs};
        }
    }
    qsort(v, k, sizeof *v, cmp_call);
    PyObject *res = Py_BuildValue("(y#s)", (const char *)v, (Py_ssize_t)(k * sizeof *v),
                                  dir == CP_SEND ? "send" : "recv");
    free(v);
    free(s.b);
    return res;
}

/* ----------------------------------------------------------------- matrix */

/* matrix(comm, collective, call, recv, bytes) -> (values, mask, rows,
 * cols, unit): values bytes of int64, row-major, one row per rank of the
 * block ("Number of ranks"), one column per peer its counts address (the
 * longest row: a neighbourhood collective's rows differ); mask bytes of
 * uint8, 1 where a rank passed no count (no row, or past its row's end).
 * In elements as passed, or in bytes (bytes true; counts already in bytes
 * when the datatypes differed: then only in bytes).  None when the call is
 * not recorded on that side. */
static PyObject *Profile_matrix(Profile *self, PyObject *args)
{
    long long comm, call;
    const char *coll;
    int recv = 0, in_bytes = 0;
    if (!PyArg_ParseTuple(args, "LsL|pp", &comm, &coll, &call, &recv, &in_bytes))
        return NULL;
    const cp_block *b =
        cp_profile_find(&self->p, comm, coll, recv ? CP_RECV : CP_SEND, call);
    if (!b)
        Py_RETURN_NONE;
    if (b->counts_in_bytes && !in_bytes) {
        PyErr_Format(PyExc_ValueError,
                     "communicator %lld, %s: its counts are bytes (the ranks' datatypes "
                     "differ, or Alltoallw): matrix(..., bytes=True)",
                     comm, b->collective);
        return NULL;
    }
    int64_t unit = in_bytes && !b->counts_in_bytes ? b->dtsize : 1;
    size_t rows = b->nranks > 0 ? (size_t)b->nranks : 0, cols = b->row_len;
    if (rows && cols > SIZE_MAX / rows / 8)
        return PyErr_NoMemory();
    size_t cells = rows * cols;
    int64_t *val = calloc(cells > 0 ? cells : 1, sizeof *val);
    unsigned char *mask = malloc(cells > 0 ? cells : 1);
    if (!val || !mask) {
        free(val), free(mask);
        return PyErr_NoMemory();
    }
    memset(mask, 1, rows * cols);
    for (size_t i = 0; i < b->nrows; i++) {
        const cp_row *row = &b->rows[i];
        for (size_t k = 0; k < row->ranks.n; k++) {
            int64_t step = row->ranks.v[k].step > 1 ? row->ranks.v[k].step : 1;
            for (int64_t r = row->ranks.v[k].lo; r <= row->ranks.v[k].hi; r += step) {
                if (r < 0 || (size_t)r >= rows)
                    continue;
                for (size_t j = 0; j < row->len && j < cols; j++) {
                    val[(size_t)r * cols + j] = cp_row_value(row, r, j) * unit;
                    mask[(size_t)r * cols + j] = 0;
                }
            }
        }
    }
    PyObject *res = Py_BuildValue("(y#y#nnL)", (const char *)val,
                                  (Py_ssize_t)(rows * cols * sizeof *val), (const char *)mask,
                                  (Py_ssize_t)(rows * cols), (Py_ssize_t)rows, (Py_ssize_t)cols,
                                  (long long)(b->counts_in_bytes ? 1 : b->dtsize));
    free(val), free(mask);
    return res;
}

/* ---------------------------------------------------------------- timings */

/* One tuple per (communicator, collective) of timings.cpt, as `collprof
 * timings` prints them; None without timings. */
static PyObject *Profile_timings(Profile *self, PyObject *unused)
{
    (void)unused;
    const cp_timings *t = timings_of(self);
    if (!t)
        Py_RETURN_NONE;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < t->nrows; i++) {
        const cp_timing_row *r = &t->rows[i];
        double w, se;
        waiting_of(r, &w, &se);
        PyObject *row = Py_BuildValue(
            "(LsKKdddddKddddddd)", (long long)r->comm, r->collective,
            (unsigned long long)r->instances, (unsigned long long)r->naggregated, r->total,
            r->min, r->median, r->max, r->late, (unsigned long long)r->hist_calls, r->p50,
            r->p90, r->p99, r->wait_unknown ? NAN : w, r->wait_unknown ? NAN : se,
            r->wait_weight, r->wait_unseen);
        if (!row || PyList_Append(l, row) < 0)
            Py_CLEAR(l);
        Py_XDECREF(row);
    }
    return l;
}

/* Per (communicator, collective, wait-state pattern) with instances:
 * (comm, collective, pattern, instances, waiting, waiting_se, sampled). */
static PyObject *Profile_waits(Profile *self, PyObject *unused)
{
    (void)unused;
    const cp_timings *t = timings_of(self);
    if (!t)
        Py_RETURN_NONE;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < t->nrows; i++)
        for (int p = 0; l && p < CP_READER_NPATTERNS; p++) {
            const cp_timing_row *r = &t->rows[i];
            if (!r->wait_instances[p])
                continue;
            PyObject *row = Py_BuildValue("(LssKddd)", (long long)r->comm, r->collective,
                                          cp_reader_pattern_name(p),
                                          (unsigned long long)r->wait_instances[p], r->wait[p],
                                          r->wait_se[p], r->wait_sampled[p]);
            if (!row || PyList_Append(l, row) < 0)
                Py_CLEAR(l);
            Py_XDECREF(row);
        }
    return l;
}

/* ------------------------------------------------------ call sites, findings */

/* Per call path (profile.cubex): (id, function, module, file, line,
 * collectives, calls, bytes, time, waiting); None without call paths. */
static PyObject *Profile_callsites(Profile *self, PyObject *unused)
{
    (void)unused;
    if (!self->p.has_manifest || !self->p.manifest.ncall_tree)
        Py_RETURN_NONE;
    cp_callsite_row *rows;
    size_t n;
    cp_error err = {{0}};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = cp_profile_callsites(&self->p, true, &rows, &n, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        PyErr_SetString(PyExc_OSError, err.msg);
        return NULL;
    }
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n; i++) {
        const cp_callsite_row *r = &rows[i];
        PyObject *row = Py_BuildValue(
            "(LNNNLNKKdd)", (long long)r->id, str(r->node ? r->node->function : ""),
            str(r->node ? r->node->module : ""), str(r->source.file),
            (long long)r->source.line, str(r->collectives), (unsigned long long)r->calls,
            (unsigned long long)r->bytes_sent, r->time, r->waiting);
        if (!row || PyList_Append(l, row) < 0)
            Py_CLEAR(l);
        Py_XDECREF(row);
    }
    free(rows);
    return l;
}

static const char *finding_kind(int k)
{
    static const char *const names[] = {"time", "waiting", "imbalance", "pattern",
                                        "coverage", "share", "callsite"};
    return k >= 0 && k < (int)(sizeof names / sizeof names[0]) ? names[k] : "?";
}

/* (kind, cost, text) per finding, in `collprof summary`'s order. */
static PyObject *Profile_findings(Profile *self, PyObject *unused)
{
    (void)unused;
    cp_finding *f;
    size_t n;
    cp_error err = {{0}};
    if (cp_profile_findings(&self->p, &f, &n, &err)) {
        PyErr_SetString(PyExc_OSError, err.msg);
        return NULL;
    }
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *row = Py_BuildValue("(sdN)", finding_kind(f[i].kind), f[i].cost, str(f[i].text));
        if (!row || PyList_Append(l, row) < 0)
            Py_CLEAR(l);
        Py_XDECREF(row);
    }
    free(f);
    return l;
}

/* ------------------------------------------------------------ the module */

static PyMethodDef Profile_methods[] = {
    {"manifest", (PyCFunction)Profile_manifest, METH_NOARGS, "manifest.json as a dict, or None"},
    {"damaged", (PyCFunction)Profile_damaged, METH_NOARGS, "what the profile lost: name -> why"},
    {"series", (PyCFunction)Profile_series, METH_NOARGS, "one tuple per (comm, collective)"},
    {"calls", (PyCFunction)Profile_calls, METH_VARARGS, "the calls of one series"},
    {"matrix", (PyCFunction)Profile_matrix, METH_VARARGS, "the count matrix of one call"},
    {"timings", (PyCFunction)Profile_timings, METH_NOARGS, "timings.cpt per series, or None"},
    {"waits", (PyCFunction)Profile_waits, METH_NOARGS, "waiting per wait-state pattern"},
    {"callsites", (PyCFunction)Profile_callsites, METH_NOARGS, "per call path (profile.cubex)"},
    {"findings", (PyCFunction)Profile_findings, METH_NOARGS, "summary's findings"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ProfileType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "collprof._collprof.Profile",
    .tp_doc = "A collprof output directory loaded by the reader library",
    .tp_basicsize = sizeof(Profile),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Profile_init,
    .tp_dealloc = (destructor)Profile_dealloc,
    .tp_methods = Profile_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "collprof._collprof",
    .m_doc = "The collprof reader library (collprof/reader.h)", .m_size = -1,
};

PyMODINIT_FUNC PyInit__collprof(void)
{
    if (PyType_Ready(&ProfileType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&ProfileType);
    if (PyModule_AddObject(m, "Profile", (PyObject *)&ProfileType) < 0 ||
        PyModule_AddIntConstant(m, "npatterns", CP_READER_NPATTERNS) < 0) {
        Py_DECREF(&ProfileType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
