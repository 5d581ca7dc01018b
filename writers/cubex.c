/*
 * profile.cubex (cubex.h, docs/formats.md): the model's functions, the
 * builder, and the archive around anchor.xml (which cubex_anchor.c writes
 * and reads): the ustar container and the N.index / N.data members.
 *
 * Layouts, as Cube's writer (cubew) writes them and its reader (cubelib)
 * reads them:
 *   N.index  "CUBEX.INDEX", uint32 1 (tells the byte order), uint16 0,
 *            uint8 format (1 sparse: uint32 n, then n ascending cnode ids;
 *            3 dense: every cnode, nothing more).
 *   N.data   "CUBEX.DATA", then per indexed cnode one row: one value per
 *            location, 8 bytes each (IEEE double or uint64), in the index's
 *            byte order.
 *   N.data   "ZCUBEX.DATA", uint64 n (the rows), n entries of three uint64
 *            (row's byte offset in the uncompressed data, offset of its zlib
 *            stream after the entries, that stream's size; size 0: a row of
 *            zeros), then the streams.  Read, never written (not every Cube
 *            installation reads it).
 * A metric's data is numbered by cnode in depth-first pre-order, which is
 * why the model keeps its cnodes in that order (cp_cube_tree_finish).
 *
 * The writer lists a row only when it holds a non-zero value (sparse), or
 * every row when all do (dense).  The parser checks everything against the
 * archive's bounds before reading, and frees what it built on any error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cubex.h"
#include "textio.h"

#define BLOCK 512
#define INDEX_MARK "CUBEX.INDEX"
#define DATA_MARK "CUBEX.DATA"
#define ZDATA_MARK "ZCUBEX.DATA"
#define INDEX_SPARSE 1
#define INDEX_DENSE 3
/* Header of an index: marker, endianness mark, version, format. */
#define INDEX_HEAD 18
/* Values the parser allocates beyond what the archive's size justifies
 * (a sparse or compressed archive is much smaller than its model). */
#define VALUES_FREE_BYTES ((uint64_t)256 << 20)
#define VALUES_PER_ARCHIVE_BYTE 4096

/* ================================================================ model */

int cp_cbuf_put(cp_cbuf *b, const void *data, size_t n)
{
    if (n > SIZE_MAX / 2 - b->n)
        return -1;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->n, data, n);
    b->n += n;
    return 0;
}

void cp_cube_free(cp_cube *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nattrs; i++) {
        free(c->attrs[i].key);
        free(c->attrs[i].value);
    }
    free(c->attrs);
    for (size_t m = 0; c->values && m < c->nmetrics; m++)
        free(c->values[m]);
    free(c->values);
    free(c->metrics);
    free(c->regions);
    free(c->cnodes);
    free(c->hosts);
    free(c->location_host);
    memset(c, 0, sizeof *c);
}

/* Bytes of one metric's values, or 0 when that overflows size_t. */
static size_t values_bytes(const cp_cube *c)
{
    size_t n = c->ncnodes * c->nlocations;
    if (c->nlocations && n / c->nlocations != c->ncnodes)
        return 0;
    return n > SIZE_MAX / 8 ? 0 : n * 8;
}

static uint64_t raw_value(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t v = 0;
    if (c->values && m < c->nmetrics && c->values[m] && cnode < c->ncnodes && loc < c->nlocations)
        memcpy(&v, (const char *)c->values[m] + (cnode * c->nlocations + loc) * 8, 8);
    return v;
}

double cp_cube_get_double(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t u = raw_value(c, m, cnode, loc);
    if (m < c->nmetrics && c->metrics[m].dtype == CP_CUBE_UINT64)
        return (double)u;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

uint64_t cp_cube_get_u64(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t u = raw_value(c, m, cnode, loc);
    if (m < c->nmetrics && c->metrics[m].dtype == CP_CUBE_DOUBLE) {
        double d;
        memcpy(&d, &u, 8);
        /* a DOUBLE metric read as a count: in range, or 0 */
        return d >= 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
    }
    return u;
}

/* Fixed-size string fields compared up to their size. */
#define FIELD_EQ(a, b, f) (strncmp((a)->f, (b)->f, sizeof(a)->f) == 0)

static bool metric_eq(const cp_cube_metric *a, const cp_cube_metric *b)
{
    return FIELD_EQ(a, b, uniq_name) && FIELD_EQ(a, b, disp_name) && a->dtype == b->dtype &&
           FIELD_EQ(a, b, uom) && FIELD_EQ(a, b, url) && FIELD_EQ(a, b, descr);
}

static bool region_eq(const cp_cube_region *a, const cp_cube_region *b)
{
    return FIELD_EQ(a, b, name) && FIELD_EQ(a, b, mangled_name) && FIELD_EQ(a, b, mod) &&
           a->begin == b->begin && a->end == b->end && FIELD_EQ(a, b, paradigm) &&
           FIELD_EQ(a, b, role) && FIELD_EQ(a, b, url) && FIELD_EQ(a, b, descr);
}

static bool str_eq(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

bool cp_cube_equal(const cp_cube *a, const cp_cube *b)
{
    if (a == b)
        return true;
    if (!a || !b || !FIELD_EQ(a, b, machine) || a->nattrs != b->nattrs ||
        a->nmetrics != b->nmetrics || a->nregions != b->nregions || a->ncnodes != b->ncnodes ||
        a->nhosts != b->nhosts || a->nlocations != b->nlocations || !a->values != !b->values)
        return false;
    for (size_t i = 0; i < a->nattrs; i++)
        if (!str_eq(a->attrs[i].key, b->attrs[i].key) ||
            !str_eq(a->attrs[i].value, b->attrs[i].value))
            return false;
    for (size_t i = 0; i < a->nmetrics; i++)
        if (!metric_eq(&a->metrics[i], &b->metrics[i]))
            return false;
    for (size_t i = 0; i < a->nregions; i++)
        if (!region_eq(&a->regions[i], &b->regions[i]))
            return false;
    for (size_t i = 0; i < a->ncnodes; i++) {
        const cp_cube_cnode *x = &a->cnodes[i], *y = &b->cnodes[i];
        if (x->region != y->region || x->parent != y->parent || x->line != y->line ||
            !FIELD_EQ(x, y, mod))
            return false;
    }
    for (size_t i = 0; i < a->nhosts; i++)
        if (!FIELD_EQ(&a->hosts[i], &b->hosts[i], name))
            return false;
    if (!a->location_host || !b->location_host) {
        if (a->location_host != b->location_host)
            return false;
    } else if (a->nlocations && memcmp(a->location_host, b->location_host,
                                       a->nlocations * sizeof *a->location_host) != 0) {
        return false;
    }
    size_t vb = values_bytes(a);
    for (size_t m = 0; a->values && m < a->nmetrics; m++) {
        if (!a->values[m] || !b->values[m]) {
            if (a->values[m] != b->values[m])
                return false;
        } else if (vb && memcmp(a->values[m], b->values[m], vb) != 0) {
            return false;
        }
    }
    return true;
}

int64_t cp_cube_find_metric(const cp_cube *c, const char *uniq_name)
{
    for (size_t i = 0; uniq_name && i < c->nmetrics; i++)
        if (strncmp(c->metrics[i].uniq_name, uniq_name, sizeof c->metrics[i].uniq_name) == 0 &&
            strlen(uniq_name) < sizeof c->metrics[i].uniq_name)
            return (int64_t)i;
    return -1;
}

/* ============================================================== builder */

/* Room for one more element in *arr, n in use.  The capacity is implicit:
 * 8, doubled whenever n reaches it (arrays the parser builds have at least
 * that much), so that the builder keeps no capacity fields in the model. */
static int reserve(void **arr, size_t n, size_t size)
{
    if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
        return 0;
    size_t cap = n ? n * 2 : 8;
    if (cap > SIZE_MAX / size)
        return -1;
    void *p = realloc(*arr, cap * size);
    if (!p)
        return -1;
    *arr = p;
    return 0;
}

int cp_cube_init(cp_cube *c, size_t nlocations)
{
    memset(c, 0, sizeof *c);
    if (nlocations > SIZE_MAX / sizeof *c->location_host)
        return -1;
    c->location_host = malloc((nlocations ? nlocations : 1) * sizeof *c->location_host);
    if (!c->location_host)
        return -1;
    for (size_t i = 0; i < nlocations; i++)
        c->location_host[i] = -1;
    c->nlocations = nlocations;
    return 0;
}

/* A zeroed value array for one metric (at least one element, so that a
 * metric always has one). */
static void *new_values(const cp_cube *c)
{
    size_t vb = values_bytes(c);
    if (!vb && c->ncnodes && c->nlocations)
        return NULL; /* overflow */
    return calloc(vb ? vb : 8, 1);
}

int64_t cp_cube_add_metric(cp_cube *c, const cp_cube_metric *m)
{
    if ((m->dtype != CP_CUBE_DOUBLE && m->dtype != CP_CUBE_UINT64) || !m->uniq_name[0] ||
        !memchr(m->uniq_name, 0, sizeof m->uniq_name) ||
        cp_cube_find_metric(c, m->uniq_name) >= 0) {
        errno = EINVAL;
        return -1;
    }
    if (reserve((void **)&c->metrics, c->nmetrics, sizeof *c->metrics) < 0)
        return -1;
    if (c->values) { /* the tree is finished: the metric gets its values now */
        void *v = new_values(c);
        void **vv = v ? realloc(c->values, (c->nmetrics + 1) * sizeof *vv) : NULL;
        if (!vv) {
            free(v);
            return -1;
        }
        c->values = vv;
        vv[c->nmetrics] = v;
    }
    c->metrics[c->nmetrics] = *m;
    return (int64_t)c->nmetrics++;
}

int64_t cp_cube_add_region(cp_cube *c, const cp_cube_region *r)
{
    if (reserve((void **)&c->regions, c->nregions, sizeof *c->regions) < 0)
        return -1;
    c->regions[c->nregions] = *r;
    return (int64_t)c->nregions++;
}

int64_t cp_cube_add_host(cp_cube *c, const char *name)
{
    if (reserve((void **)&c->hosts, c->nhosts, sizeof *c->hosts) < 0)
        return -1;
    snprintf(c->hosts[c->nhosts].name, sizeof c->hosts[c->nhosts].name, "%s", name ? name : "");
    return (int64_t)c->nhosts++;
}

int cp_cube_set_location_host(cp_cube *c, size_t loc, int64_t host)
{
    if (loc >= c->nlocations || host < 0 || (uint64_t)host >= c->nhosts) {
        errno = EINVAL;
        return -1;
    }
    c->location_host[loc] = host;
    return 0;
}

int cp_cube_add_attr(cp_cube *c, const char *key, const char *value)
{
    if (reserve((void **)&c->attrs, c->nattrs, sizeof *c->attrs) < 0)
        return -1;
    char *k = strdup(key ? key : ""), *v = strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    c->attrs[c->nattrs].key = k;
    c->attrs[c->nattrs].value = v;
    c->nattrs++;
    return 0;
}

int64_t cp_cube_tree_add(cp_cube *c, int64_t parent, int64_t region, int64_t line,
                         const char *mod)
{
    if (c->values || parent < -1 || (parent >= 0 && (uint64_t)parent >= c->ncnodes) ||
        region < 0 || (uint64_t)region >= c->nregions) {
        errno = EINVAL;
        return -1;
    }
    if (reserve((void **)&c->cnodes, c->ncnodes, sizeof *c->cnodes) < 0)
        return -1;
    cp_cube_cnode *n = &c->cnodes[c->ncnodes];
    n->region = region;
    n->parent = parent;
    n->line = line;
    snprintf(n->mod, sizeof n->mod, "%s", mod ? mod : "");
    return (int64_t)c->ncnodes++;
}

/* Depth-first pre-order ids of the nodes as added (parents before their
 * children, since a parent is a handle returned earlier): children in the
 * order they were added, via first-child / next-sibling links. */
static int preorder(const cp_cube *c, int64_t *id)
{
    size_t n = c->ncnodes;
    if (n == 0)
        return 0;
    int64_t *first = malloc(n * sizeof *first), *last = malloc(n * sizeof *last),
            *next = malloc(n * sizeof *next);
    if (!first || !last || !next) {
        free(first);
        free(last);
        free(next);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        first[i] = last[i] = next[i] = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t p = c->cnodes[i].parent;
        if (p < 0)
            continue;
        if (last[p] < 0)
            first[p] = (int64_t)i;
        else
            next[last[p]] = (int64_t)i;
        last[p] = (int64_t)i;
    }
    int64_t order = 0;
    for (size_t r = 0; r < n; r++) {
        if (c->cnodes[r].parent >= 0)
            continue;
        int64_t node = (int64_t)r;
        for (;;) {
            id[node] = order++;
            if (first[node] >= 0) {
                node = first[node];
                continue;
            }
            while (node != (int64_t)r && next[node] < 0)
                node = c->cnodes[node].parent;
            if (node == (int64_t)r)
                break;
            node = next[node];
        }
    }
    free(first);
    free(last);
    free(next);
    return 0;
}

int cp_cube_tree_finish(cp_cube *c, int64_t *handle_to_id)
{
    if (c->values) {
        errno = EINVAL;
        return -1;
    }
    size_t n = c->ncnodes;
    int64_t *id = malloc((n ? n : 1) * sizeof *id);
    cp_cube_cnode *sorted = malloc((n ? n : 1) * sizeof *sorted);
    void **values = calloc(c->nmetrics ? c->nmetrics : 1, sizeof *values);
    int rc = id && sorted && values && preorder(c, id) == 0 ? 0 : -1;
    for (size_t m = 0; rc == 0 && m < c->nmetrics; m++)
        if (!(values[m] = new_values(c)))
            rc = -1;
    if (rc == 0) {
        for (size_t h = 0; h < n; h++) {
            cp_cube_cnode *s = &sorted[id[h]];
            *s = c->cnodes[h];
            s->parent = s->parent < 0 ? -1 : id[s->parent];
            if (handle_to_id)
                handle_to_id[h] = id[h];
        }
        if (n)
            memcpy(c->cnodes, sorted, n * sizeof *sorted);
        c->values = values;
        values = NULL;
    }
    for (size_t m = 0; values && m < c->nmetrics; m++)
        free(values[m]);
    free(values);
    free(sorted);
    free(id);
    return rc;
}

/* values[m][cnode][loc] of the given dtype, or NULL. */
static void *value_at(cp_cube *c, size_t m, size_t cnode, size_t loc, cp_cube_dtype dt)
{
    if (!c->values || m >= c->nmetrics || c->metrics[m].dtype != dt || !c->values[m] ||
        cnode >= c->ncnodes || loc >= c->nlocations)
        return NULL;
    return (char *)c->values[m] + (cnode * c->nlocations + loc) * 8;
}

void cp_cube_add_double(cp_cube *c, size_t m, size_t cnode, size_t loc, double v)
{
    double *p = value_at(c, m, cnode, loc, CP_CUBE_DOUBLE);
    if (p)
        *p += v;
}

void cp_cube_add_u64(cp_cube *c, size_t m, size_t cnode, size_t loc, uint64_t v)
{
    uint64_t *p = value_at(c, m, cnode, loc, CP_CUBE_UINT64);
    if (p)
        *p += v;
}

/* =============================================================== checks */

#define TERMINATED(f) (memchr((f), 0, sizeof(f)) != NULL)

static int check_strings(const cp_cube *c, cp_error *err)
{
    if (!TERMINATED(c->machine))
        return cp_error_set(err, "the machine name has no terminating NUL");
    for (size_t i = 0; i < c->nmetrics; i++) {
        const cp_cube_metric *m = &c->metrics[i];
        if (!TERMINATED(m->uniq_name) || !TERMINATED(m->disp_name) || !TERMINATED(m->uom) ||
            !TERMINATED(m->url) || !TERMINATED(m->descr))
            return cp_error_set(err, "metric %zu: a string field has no terminating NUL", i);
    }
    for (size_t i = 0; i < c->nregions; i++) {
        const cp_cube_region *r = &c->regions[i];
        if (!TERMINATED(r->name) || !TERMINATED(r->mangled_name) || !TERMINATED(r->mod) ||
            !TERMINATED(r->paradigm) || !TERMINATED(r->role) || !TERMINATED(r->url) ||
            !TERMINATED(r->descr))
            return cp_error_set(err, "region %zu: a string field has no terminating NUL", i);
    }
    for (size_t i = 0; i < c->ncnodes; i++)
        if (!TERMINATED(c->cnodes[i].mod))
            return cp_error_set(err, "cnode %zu: mod has no terminating NUL", i);
    for (size_t i = 0; i < c->nhosts; i++)
        if (!TERMINATED(c->hosts[i].name))
            return cp_error_set(err, "host %zu: the name has no terminating NUL", i);
    for (size_t i = 0; i < c->nattrs; i++) {
        const cp_kv *a = &c->attrs[i];
        if (!a->key || !a->value)
            return cp_error_set(err, "attr %zu: no key or no value", i);
        if (strlen(a->key) > CP_CUBEX_MAX_ATTR_LEN || strlen(a->value) > CP_CUBEX_MAX_ATTR_LEN)
            return cp_error_set(err, "attr \"%.40s\": key or value longer than %d bytes", a->key,
                                CP_CUBEX_MAX_ATTR_LEN);
        for (int k = 0; k < CP_CUBEX_RESERVED_ATTRS; k++)
            if (strcmp(a->key, cp_cubex_reserved_attrs[k]) == 0)
                return cp_error_set(err, "attr \"%s\" is written by collprof itself", a->key);
    }
    return 0;
}

/* Depth-first pre-order: each node's parent is on the path from the root to
 * the node before it (the stack holds that path). */
static int check_tree(const cp_cube *c, cp_error *err)
{
    int64_t *stack = malloc(c->ncnodes * sizeof *stack);
    size_t depth = 0;
    if (!stack)
        return cp_error_set(err, "out of memory");
    for (size_t i = 0; i < c->ncnodes; i++) {
        const cp_cube_cnode *n = &c->cnodes[i];
        if (n->region < 0 || (uint64_t)n->region >= c->nregions) {
            free(stack);
            return cp_error_set(err, "cnode %zu: region %" PRId64 " does not exist (%zu regions)",
                                i, n->region, c->nregions);
        }
        while (depth > 0 && stack[depth - 1] != n->parent)
            depth--;
        if (n->parent != -1 && depth == 0) {
            free(stack);
            return cp_error_set(err, "cnode %zu: parent %" PRId64 " breaks the depth-first "
                                     "pre-order of the call tree (see cp_cube_tree_finish)",
                                i, n->parent);
        }
        stack[depth++] = (int64_t)i;
    }
    free(stack);
    return 0;
}

int cp_cubex_check(const cp_cube *c, cp_error *err)
{
    if (!c->nmetrics || !c->nregions || !c->ncnodes || !c->nlocations)
        return cp_error_set(err, "Cube needs at least one metric, region, cnode and location "
                                 "(%zu, %zu, %zu, %zu)",
                            c->nmetrics, c->nregions, c->ncnodes, c->nlocations);
    if (!values_bytes(c) || !c->values || !c->location_host)
        return cp_error_set(err, "no values (cp_cube_tree_finish not called?)");
    for (size_t i = 0; i < c->nmetrics; i++) {
        const cp_cube_metric *m = &c->metrics[i];
        if (m->dtype != CP_CUBE_DOUBLE && m->dtype != CP_CUBE_UINT64)
            return cp_error_set(err, "metric %zu: unknown dtype %d", i, (int)m->dtype);
        if (!c->values[i])
            return cp_error_set(err, "metric %zu: no values", i);
        if (!m->uniq_name[0] || !TERMINATED(m->uniq_name))
            return cp_error_set(err, "metric %zu: empty uniq_name", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->metrics[j].uniq_name, m->uniq_name) == 0)
                return cp_error_set(err, "metric %zu: uniq_name \"%s\" is also metric %zu", i,
                                    m->uniq_name, j);
    }
    for (size_t l = 0; l < c->nlocations; l++)
        if (c->location_host[l] < 0 || (uint64_t)c->location_host[l] >= c->nhosts)
            return cp_error_set(err, "location %zu: host %" PRId64 " does not exist (%zu hosts)",
                                l, c->location_host[l], c->nhosts);
    return check_strings(c, err) < 0 ? -1 : check_tree(c, err);
}

/* =============================================================== writer */

/* Where the archive goes: a file (cp_out) or memory. */
typedef struct sink {
    cp_out *out;
    cp_cbuf mem;
    bool oom;
} sink;

static int sink_put(sink *s, const void *p, size_t n)
{
    if (s->out)
        return cp_out_write(s->out, p, n);
    if (cp_cbuf_put(&s->mem, p, n) < 0) {
        s->oom = true;
        return -1;
    }
    return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A ustar header for a regular file.  Sizes of 8 GiB and more use the
 * base-256 form of GNU tar (and of POSIX readers that follow it). */
static void tar_header(unsigned char h[BLOCK], const char *name, uint64_t size, uint64_t mtime)
{
    memset(h, 0, BLOCK);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    if (size < ((uint64_t)1 << 33)) {
        snprintf((char *)h + 124, 12, "%011" PRIo64, size);
    } else {
        h[124] = 0x80;
        for (int i = 0; i < 8; i++)
            h[135 - i] = (unsigned char)(size >> (8 * i));
    }
    snprintf((char *)h + 136, 12, "%011" PRIo64, mtime & (((uint64_t)1 << 33) - 1));
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6); /* with its NUL */
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < BLOCK; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum); /* 6 digits, NUL; the space stays */
}

static int put_member_header(sink *s, const char *name, uint64_t size)
{
    unsigned char h[BLOCK];
    time_t now = time(NULL);
    tar_header(h, name, size, now > 0 ? (uint64_t)now : 0);
    return sink_put(s, h, BLOCK);
}

static int put_padding(sink *s, uint64_t size)
{
    static const unsigned char zero[BLOCK];
    size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);
    return pad ? sink_put(s, zero, pad) : 0;
}

static bool row_nonzero(const cp_cube *c, size_t m, size_t cnode)
{
    const unsigned char *row = (const unsigned char *)c->values[m] + cnode * c->nlocations * 8;
    for (size_t i = 0; i < c->nlocations * 8; i++)
        if (row[i])
            return true;
    return false;
}

/* N.index and N.data of metric m. */
static int put_metric(sink *s, const cp_cube *c, size_t m)
{
    size_t nrows = 0;
    for (size_t i = 0; i < c->ncnodes; i++)
        nrows += row_nonzero(c, m, i);
    bool dense = nrows == c->ncnodes;
    if (nrows > UINT32_MAX)
        return -1; /* Cube's index counts in uint32 */

    cp_cbuf idx = {0};
    unsigned char head[INDEX_HEAD + 4];
    memcpy(head, INDEX_MARK, 11);
    put_le32(head + 11, 1);
    head[15] = head[16] = 0; /* uint16 version 0 */
    head[17] = dense ? INDEX_DENSE : INDEX_SPARSE;
    put_le32(head + INDEX_HEAD, (uint32_t)nrows);
    int rc = cp_cbuf_put(&idx, head, dense ? INDEX_HEAD : INDEX_HEAD + 4);
    for (size_t i = 0; rc == 0 && !dense && i < c->ncnodes; i++)
        if (row_nonzero(c, m, i)) {
            unsigned char b[4];
            put_le32(b, (uint32_t)i);
            rc = cp_cbuf_put(&idx, b, 4);
        }
    char name[32];
    snprintf(name, sizeof name, "%zu.index", m);
    rc = rc == 0 && put_member_header(s, name, idx.n) == 0 && sink_put(s, idx.s, idx.n) == 0 &&
                 put_padding(s, idx.n) == 0
             ? 0
             : -1;
    free(idx.s);
    if (rc < 0)
        return -1;

    uint64_t size = 10 + (uint64_t)nrows * c->nlocations * 8;
    snprintf(name, sizeof name, "%zu.data", m);
    if (put_member_header(s, name, size) < 0 || sink_put(s, DATA_MARK, 10) < 0)
        return -1;
    unsigned char buf[8192];
    size_t fill = 0;
    for (size_t i = 0; i < c->ncnodes; i++) {
        if (!dense && !row_nonzero(c, m, i))
            continue;
        for (size_t l = 0; l < c->nlocations; l++) {
            put_le64(buf + fill, raw_value(c, m, i, l));
            if ((fill += 8) == sizeof buf) {
                if (sink_put(s, buf, fill) < 0)
                    return -1;
                fill = 0;
            }
        }
    }
    if (sink_put(s, buf, fill) < 0)
        return -1;
    return put_padding(s, size);
}

/* The whole archive of a checked cube. */
static int emit(sink *s, const cp_cube *c)
{
    static const unsigned char zero[2 * BLOCK];
    cp_cbuf anchor = {0};
    int rc = cp_cubex_anchor_write(c, &anchor);
    if (rc < 0)
        s->oom = true;
    rc = rc == 0 && put_member_header(s, "anchor.xml", anchor.n) == 0 &&
                 sink_put(s, anchor.s, anchor.n) == 0 && put_padding(s, anchor.n) == 0
             ? 0
             : -1;
    free(anchor.s);
    for (size_t m = 0; rc == 0 && m < c->nmetrics; m++)
        rc = put_metric(s, c, m);
    return rc == 0 ? sink_put(s, zero, sizeof zero) : -1;
}

int cp_cubex_format(const cp_cube *c, void **data, size_t *len, cp_error *err)
{
    sink s = {0};
    *data = NULL;
    *len = 0;
    if (cp_cubex_check(c, err) < 0)
        return cp_error_set(err, "cannot write a Cube profile: %s", err ? err->msg : "");
    if (emit(&s, c) < 0) {
        free(s.mem.s);
        return cp_error_set(err, "cannot write a Cube profile: out of memory");
    }
    *data = s.mem.s;
    *len = s.mem.n;
    return 0;
}

int cp_cubex_write(const char *path, const cp_cube *c, cp_error *err)
{
    if (cp_cubex_check(c, err) < 0)
        return cp_error_set(err, "%s: %s", path, err ? err->msg : "");
    sink s = {0};
    s.out = cp_out_open(path, false, err);
    if (!s.out)
        return -1;
    if (emit(&s, c) < 0) {
        if (s.oom || cp_out_status(s.out, err) == 0)
            cp_error_set(err, "%s: out of memory", path);
        cp_out_abort(s.out);
        return -1;
    }
    return cp_out_commit(s.out, err);
}

/* =============================================================== parser */

typedef struct member {
    char name[256];
    size_t off, size;
} member;

typedef struct archive {
    const unsigned char *d;
    size_t len;
    const char *name;
    cp_error *err;
    member *mem;
    size_t nmem, cap;
} archive;

/* An octal number field: leading blanks, digits, then NULs or blanks. */
static bool octal(const unsigned char *f, size_t n, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && f[i] == ' ')
        i++;
    size_t digits = i;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 61)
            return false;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    if (i == digits)
        return false;
    for (; i < n; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return false;
    *out = v;
    return true;
}

/* The size field: octal, or GNU base-256 (0x80, then big-endian). */
static bool size_field(const unsigned char *f, uint64_t *out)
{
    if (f[0] != 0x80)
        return octal(f, 12, out);
    uint64_t v = 0;
    for (int i = 1; i < 12; i++) {
        if (v >> 55)
            return false;
        v = (v << 8) | f[i];
    }
    *out = v;
    return true;
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Check one header block at off and append its member. */
static int read_header(archive *a, size_t off, size_t *next)
{
    const unsigned char *h = a->d + off;
    uint64_t stored, size;
    unsigned usum = 0;
    int ssum = 0;
    for (int i = 0; i < BLOCK; i++) {
        unsigned char b = i >= 148 && i < 156 ? ' ' : h[i];
        usum += b;
        ssum += (signed char)b; /* what some old tars computed */
    }
    if (!octal(h + 148, 8, &stored))
        return cp_error_set(a->err, "%s: header at offset %zu: expected an octal checksum",
                            a->name, off);
    if (stored != usum && (int64_t)stored != ssum)
        return cp_error_set(a->err, "%s: header at offset %zu: checksum %" PRIo64
                                    " does not match the header's bytes (%o)",
                            a->name, off, stored, usum);
    bool posix = memcmp(h + 257, "ustar", 6) == 0;
    if (!posix && memcmp(h + 257, "ustar  ", 8) != 0)
        return cp_error_set(a->err, "%s: header at offset %zu: expected a ustar header", a->name,
                            off);
    member m;
    size_t nl = strnlen((const char *)h, 100), pl = posix ? strnlen((const char *)h + 345, 155) : 0;
    if (pl)
        snprintf(m.name, sizeof m.name, "%.*s/%.*s", (int)pl, (const char *)h + 345, (int)nl,
                 (const char *)h);
    else
        snprintf(m.name, sizeof m.name, "%.*s", (int)nl, (const char *)h);
    for (char *p = m.name; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F)
            *p = '?'; /* names appear in messages */
    if (h[156] != '0' && h[156] != '\0')
        return cp_error_set(a->err, "%s: member %s: type '%c' is not a regular file", a->name,
                            m.name, h[156] >= 0x20 && h[156] < 0x7F ? h[156] : '?');
    if (!size_field(h + 124, &size))
        return cp_error_set(a->err, "%s: member %s: expected a size", a->name, m.name);
    size_t avail = a->len - off - BLOCK;
    if (size > avail || (BLOCK - size % BLOCK) % BLOCK > avail - size)
        return cp_error_set(a->err, "%s: member %s: truncated (%" PRIu64 " bytes, %zu left in "
                                    "the archive)",
                            a->name, m.name, size, avail);
    m.off = off + BLOCK;
    m.size = (size_t)size;
    if (a->nmem == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        member *p = realloc(a->mem, cap * sizeof *p);
        if (!p)
            return cp_error_set(a->err, "%s: out of memory", a->name);
        a->mem = p;
        a->cap = cap;
    }
    a->mem[a->nmem++] = m;
    *next = m.off + m.size + (BLOCK - m.size % BLOCK) % BLOCK;
    return 0;
}

/* Every member; the archive ends with two zero blocks, and only zero
 * blocks may follow them. */
static int read_tar(archive *a)
{
    size_t off = 0;
    for (;;) {
        if (a->len - off < BLOCK)
            return cp_error_set(a->err, "%s: truncated at offset %zu: expected %s", a->name, off,
                                off == a->len ? "a header or two zero blocks at the end"
                                              : "a whole 512-byte block");
        if (!all_zero(a->d + off, BLOCK)) {
            if (read_header(a, off, &off) < 0)
                return -1;
            continue;
        }
        if (a->len - off < 2 * BLOCK || !all_zero(a->d + off + BLOCK, BLOCK))
            return cp_error_set(a->err, "%s: offset %zu: expected a second zero block to end "
                                        "the archive",
                                a->name, off + BLOCK);
        off += 2 * BLOCK;
        if ((a->len - off) % BLOCK != 0 || !all_zero(a->d + off, a->len - off))
            return cp_error_set(a->err, "%s: offset %zu: expected nothing but zero blocks after "
                                        "the end of the archive",
                                a->name, off);
        return 0;
    }
}

/* "N.index" / "N.data" -> N and the kind (0 index, 1 data); -1: neither. */
static int metric_member(const char *name, size_t *n)
{
    size_t v = 0, i = 0;
    for (; name[i] >= '0' && name[i] <= '9'; i++) {
        if (v > (SIZE_MAX - 9) / 10 || (i == 1 && name[0] == '0'))
            return -1;
        v = v * 10 + (size_t)(name[i] - '0');
    }
    if (i == 0)
        return -1;
    *n = v;
    return strcmp(name + i, ".index") == 0 ? 0 : strcmp(name + i, ".data") == 0 ? 1 : -1;
}

static uint32_t get32(const unsigned char *p, bool big)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[big ? 3 - i : i] << (8 * i);
    return v;
}

static uint64_t get64(const unsigned char *p, bool big)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}

/* One metric's index: the cnode of each row (rows[r]), the byte order. */
typedef struct index_info {
    bool big;
    size_t nrows;
    const unsigned char *ids; /* sparse: nrows uint32; dense: NULL */
} index_info;

static size_t row_cnode(const index_info *ix, size_t r)
{
    return ix->ids ? get32(ix->ids + 4 * r, ix->big) : r;
}

static int read_index(const archive *a, const member *mb, const cp_cube *c, index_info *ix)
{
    const unsigned char *d = a->d + mb->off;
    size_t n = mb->size;
    const char *who = mb->name;
    if (n < INDEX_HEAD || memcmp(d, INDEX_MARK, 11) != 0)
        return cp_error_set(a->err, "%s: %s: expected the marker " INDEX_MARK " and a header",
                            a->name, who);
    if (get32(d + 11, false) == 1)
        ix->big = false;
    else if (get32(d + 11, true) == 1)
        ix->big = true;
    else
        return cp_error_set(a->err, "%s: %s: expected the endianness mark 1", a->name, who);
    if (d[17] == INDEX_DENSE) {
        if (n != INDEX_HEAD)
            return cp_error_set(a->err, "%s: %s: %zu bytes after a dense index header", a->name,
                                who, n - INDEX_HEAD);
        ix->nrows = c->ncnodes;
        ix->ids = NULL;
        return 0;
    }
    if (d[17] != INDEX_SPARSE)
        return cp_error_set(a->err, "%s: %s: index format %u (collprof reads 1, sparse, and 3, "
                                    "dense)",
                            a->name, who, d[17]);
    if (n < INDEX_HEAD + 4)
        return cp_error_set(a->err, "%s: %s: expected the number of cnode ids", a->name, who);
    uint32_t count = get32(d + INDEX_HEAD, ix->big);
    if ((n - INDEX_HEAD - 4) / 4 != count || (n - INDEX_HEAD - 4) % 4 != 0)
        return cp_error_set(a->err, "%s: %s: %" PRIu32 " cnode ids announced, %zu bytes for "
                                    "them",
                            a->name, who, count, n - INDEX_HEAD - 4);
    ix->ids = d + INDEX_HEAD + 4;
    ix->nrows = count;
    for (size_t r = 0; r < count; r++) {
        uint32_t id = get32(ix->ids + 4 * r, ix->big);
        if (id >= c->ncnodes)
            return cp_error_set(a->err, "%s: %s: cnode id %" PRIu32 " at entry %zu, but "
                                        "anchor.xml has %zu cnodes",
                                a->name, who, id, r, c->ncnodes);
        if (r > 0 && id <= get32(ix->ids + 4 * (r - 1), ix->big))
            return cp_error_set(a->err, "%s: %s: cnode ids not ascending at entry %zu", a->name,
                                who, r);
    }
    return 0;
}

/* One row of raw values (the index's byte order) into the model. */
static void store_row(cp_cube *c, size_t m, size_t cnode, const unsigned char *src, bool big)
{
    unsigned char *dst = (unsigned char *)c->values[m] + cnode * c->nlocations * 8;
    for (size_t l = 0; l < c->nlocations; l++) {
        uint64_t v = get64(src + 8 * l, big);
        memcpy(dst + 8 * l, &v, 8);
    }
}

/* "ZCUBEX.DATA": each row a zlib stream (see the top of this file). */
static int read_zdata(const archive *a, const member *mb, cp_cube *c, size_t m,
                      const index_info *ix)
{
    const unsigned char *d = a->d + mb->off + 11;
    size_t n = mb->size - 11, row = c->nlocations * 8;
    const char *who = mb->name;
    if (n < 8 || get64(d, ix->big) != ix->nrows)
        return cp_error_set(a->err, "%s: %s: expected the number of rows, %zu", a->name, who,
                            ix->nrows);
    if ((n - 8) / 24 < ix->nrows)
        return cp_error_set(a->err, "%s: %s: truncated in its table of %zu rows", a->name, who,
                            ix->nrows);
    const unsigned char *tab = d + 8, *area = tab + 24 * ix->nrows;
    size_t area_len = n - 8 - 24 * ix->nrows;
    unsigned char *buf = malloc(row), *done = calloc(ix->nrows ? ix->nrows : 1, 1);
    int rc = buf && done ? 0 : cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t i = 0; rc == 0 && i < ix->nrows; i++) {
        uint64_t at_u = get64(tab + 24 * i, ix->big), at_c = get64(tab + 24 * i + 8, ix->big),
                 size = get64(tab + 24 * i + 16, ix->big);
        if (size == 0)
            continue; /* a row of zeros */
        uint64_t r = at_u / row;
        uLongf got = (uLongf)row;
        int z;
        if (at_u % row != 0 || r >= ix->nrows || done[r])
            rc = cp_error_set(a->err, "%s: %s: entry %zu: offset %" PRIu64 " is not the start "
                                      "of a row not seen before",
                              a->name, who, i, at_u);
        else if (at_c > area_len || size > area_len - at_c)
            rc = cp_error_set(a->err, "%s: %s: entry %zu: compressed bytes outside the member",
                              a->name, who, i);
        else if ((z = uncompress(buf, &got, area + at_c, (uLong)size)) != Z_OK || got != row)
            rc = cp_error_set(a->err, "%s: %s: entry %zu: %s", a->name, who, i,
                              z != Z_OK ? (z == Z_BUF_ERROR ? "decompresses to more than a row"
                                                            : "corrupt zlib stream")
                                        : "decompresses to less than a row");
        else {
            done[r] = 1;
            store_row(c, m, row_cnode(ix, (size_t)r), buf, ix->big);
        }
    }
    free(buf);
    free(done);
    return rc;
}

static int read_data(const archive *a, const member *mb, cp_cube *c, size_t m,
                     const index_info *ix)
{
    const unsigned char *d = a->d + mb->off;
    size_t row = c->nlocations * 8;
    if (mb->size >= 11 && memcmp(d, ZDATA_MARK, 11) == 0)
        return read_zdata(a, mb, c, m, ix);
    if (mb->size < 10 || memcmp(d, DATA_MARK, 10) != 0)
        return cp_error_set(a->err, "%s: %s: expected the marker " DATA_MARK " or " ZDATA_MARK,
                            a->name, mb->name);
    /* nrows <= ncnodes: no overflow, the model's values have this size */
    if (mb->size - 10 != ix->nrows * row)
        return cp_error_set(a->err, "%s: %s: %zu bytes of values, expected %zu (%zu rows x %zu "
                                    "locations x 8)",
                            a->name, mb->name, mb->size - 10, ix->nrows * row, ix->nrows,
                            c->nlocations);
    for (size_t r = 0; r < ix->nrows; r++)
        store_row(c, m, row_cnode(ix, r), d + 10 + r * row, ix->big);
    return 0;
}

/* The members of every metric, found by name; the values read. */
static int read_metrics(archive *a, cp_cube *c)
{
    const member **idx = calloc(c->nmetrics, sizeof *idx), **dat = calloc(c->nmetrics, sizeof *dat);
    int rc = idx && dat ? 0 : cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t i = 0; rc == 0 && i < a->nmem; i++) {
        size_t n;
        int kind = metric_member(a->mem[i].name, &n);
        if (kind < 0)
            continue; /* not ours: ignored */
        const member **slot = kind ? dat : idx;
        if (n >= c->nmetrics)
            rc = cp_error_set(a->err, "%s: %s: anchor.xml has no metric %zu", a->name,
                              a->mem[i].name, n);
        else if (slot[n])
            rc = cp_error_set(a->err, "%s: member %s appears twice", a->name, a->mem[i].name);
        else
            slot[n] = &a->mem[i];
    }
    for (size_t m = 0; rc == 0 && m < c->nmetrics; m++) {
        index_info ix = {0};
        if (!idx[m] || !dat[m])
            rc = cp_error_set(a->err, "%s: member %zu.%s missing (metric %zu, \"%s\")", a->name, m,
                              idx[m] ? "data" : "index", m, c->metrics[m].uniq_name);
        else if (read_index(a, idx[m], c, &ix) == 0)
            rc = read_data(a, dat[m], c, m, &ix);
        else
            rc = -1;
    }
    free(idx);
    free(dat);
    return rc;
}

/* anchor.xml, then the values (bounded: see VALUES_PER_ARCHIVE_BYTE). */
static int read_cube(archive *a, cp_cube *c)
{
    const member *anchor = NULL;
    for (size_t i = 0; i < a->nmem; i++)
        if (strcmp(a->mem[i].name, "anchor.xml") == 0) {
            if (anchor)
                return cp_error_set(a->err, "%s: member anchor.xml appears twice", a->name);
            anchor = &a->mem[i];
        }
    if (!anchor)
        return cp_error_set(a->err, "%s: member anchor.xml missing", a->name);
    if (cp_cubex_anchor_parse((const char *)a->d + anchor->off, anchor->size, a->name, c,
                              a->err) < 0)
        return -1;
    size_t vb = values_bytes(c);
    if (!vb || (uint64_t)vb > (VALUES_FREE_BYTES + VALUES_PER_ARCHIVE_BYTE * (uint64_t)a->len) /
                           c->nmetrics)
        return cp_error_set(a->err, "%s: anchor.xml: %zu cnodes x %zu locations x %zu metrics "
                                    "are more values than collprof reads from %zu bytes",
                            a->name, c->ncnodes, c->nlocations, c->nmetrics, a->len);
    if (!(c->values = calloc(c->nmetrics, sizeof *c->values)))
        return cp_error_set(a->err, "%s: out of memory", a->name);
    for (size_t m = 0; m < c->nmetrics; m++)
        if (!(c->values[m] = calloc(vb, 1)))
            return cp_error_set(a->err, "%s: out of memory for the values", a->name);
    return read_metrics(a, c);
}

int cp_cubex_parse_mem(const void *data, size_t len, const char *name, cp_cube *out,
                       cp_error *err)
{
    archive a = {.d = data, .len = data ? len : 0, .name = name ? name : "<memory>", .err = err};
    memset(out, 0, sizeof *out);
    int rc = read_tar(&a) == 0 && read_cube(&a, out) == 0 ? 0 : -1;
    free(a.mem);
    if (rc < 0)
        cp_cube_free(out);
    return rc;
}

int cp_cubex_read(const char *path, cp_cube *out, cp_error *err)
{
    char *data;
    size_t len;
    memset(out, 0, sizeof *out);
    cp_in *in = cp_in_open(path, err);
    if (!in)
        return -1;
    int rc = cp_in_slurp(in, &data, &len, err);
    cp_in_close(in);
    if (rc < 0)
        return -1;
    rc = cp_cubex_parse_mem(data, len, path, out, err);
    free(data);
    return rc;
}
