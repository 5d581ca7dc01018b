/*
 * The model of profile.cubex (cubex.h): freeing, reading values, equality,
 * and the builder the runtime fills it with.
 *
 * Values are kept per metric as one array of ncnodes x nlocations 8-byte
 * values (IEEE double or uint64, as the metric's dtype says), numbered by
 * cnode in depth-first pre-order: the order of Cube's N.data rows, so that
 * the writer streams them as they are.  The builder accepts the call tree in
 * any order and renumbers it once (cp_cube_tree_finish).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex_internal.h"
#include "grow.h"

/* ================================================================ model */

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

size_t cp_cube_values_bytes(const cp_cube *c)
{
    size_t n = c->ncnodes * c->nlocations;
    if (c->nlocations && n / c->nlocations != c->ncnodes)
        return 0;
    return n > SIZE_MAX / 8 ? 0 : n * 8;
}

uint64_t cp_cube_raw_value(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t v = 0;
    if (c->values && m < c->nmetrics && c->values[m] && cnode < c->ncnodes && loc < c->nlocations)
        memcpy(&v, (const char *)c->values[m] + (cnode * c->nlocations + loc) * 8, 8);
    return v;
}

double cp_cube_get_double(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t u = cp_cube_raw_value(c, m, cnode, loc);
    if (m < c->nmetrics && c->metrics[m].dtype == CP_CUBE_UINT64)
        return (double)u;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

uint64_t cp_cube_get_u64(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    uint64_t u = cp_cube_raw_value(c, m, cnode, loc);
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
           FIELD_EQ(a, b, uom) && FIELD_EQ(a, b, url) && FIELD_EQ(a, b, descr) &&
           FIELD_EQ(a, b, parent);
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
        a->nhosts != b->nhosts || a->nlocations != b->nlocations ||
        a->first_rank != b->first_rank || !a->values != !b->values)
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
    size_t vb = cp_cube_values_bytes(a);
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

double cp_cube_get_excl(const cp_cube *c, size_t m, size_t cnode, size_t loc)
{
    double v = cp_cube_get_double(c, m, cnode, loc);
    for (size_t k = m + 1; m < c->nmetrics && k < c->nmetrics; k++) /* children come later */
        if (!strcmp(c->metrics[k].parent, c->metrics[m].uniq_name))
            v -= cp_cube_get_double(c, k, cnode, loc);
    return v;
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

/* Room for one more after n: the model's arrays keep no capacity fields
 * (grow.h, cp_grow_implicit). */
static int reserve(void **arr, size_t n, size_t size)
{
    return cp_grow_implicit(arr, n, size);
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
    size_t vb = cp_cube_values_bytes(c);
    if (!vb && c->ncnodes && c->nlocations)
        return NULL; /* overflow */
    return calloc(vb ? vb : 8, 1);
}

/* Metrics are added in the pre-order of their tree, as Cube numbers them:
 * a metric's parent is the last metric added or one of its ancestors. */
static bool preorder_parent(const cp_cube *c, const char *parent)
{
    if (!parent[0])
        return true;
    for (int64_t k = (int64_t)c->nmetrics - 1; k >= 0;) {
        if (!strcmp(c->metrics[k].uniq_name, parent))
            return true;
        k = c->metrics[k].parent[0] ? cp_cube_find_metric(c, c->metrics[k].parent) : -1;
    }
    return false;
}

int64_t cp_cube_add_metric(cp_cube *c, const cp_cube_metric *m)
{
    if ((m->dtype != CP_CUBE_DOUBLE && m->dtype != CP_CUBE_UINT64) || !m->uniq_name[0] ||
        !memchr(m->uniq_name, 0, sizeof m->uniq_name) ||
        cp_cube_find_metric(c, m->uniq_name) >= 0 || !memchr(m->parent, 0, sizeof m->parent) ||
        !preorder_parent(c, m->parent)) {
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
    if (c->values || c->finished || parent < -1 || (parent >= 0 && (uint64_t)parent >= c->ncnodes) ||
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

static int finish(cp_cube *c, int64_t *handle_to_id, bool with_values)
{
    if (c->values || c->finished) {
        errno = EINVAL;
        return -1;
    }
    size_t n = c->ncnodes;
    int64_t *id = malloc((n ? n : 1) * sizeof *id);
    cp_cube_cnode *sorted = malloc((n ? n : 1) * sizeof *sorted);
    void **values = with_values ? calloc(c->nmetrics ? c->nmetrics : 1, sizeof *values) : NULL;
    int rc = id && sorted && (values || !with_values) && preorder(c, id) == 0 ? 0 : -1;
    for (size_t m = 0; rc == 0 && values && m < c->nmetrics; m++)
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
        c->finished = true;
        values = NULL;
    }
    for (size_t m = 0; values && m < c->nmetrics; m++)
        free(values[m]);
    free(values);
    free(sorted);
    free(id);
    return rc;
}

int cp_cube_tree_finish(cp_cube *c, int64_t *handle_to_id)
{
    return finish(c, handle_to_id, true);
}

int cp_cube_tree_finish_meta(cp_cube *c, int64_t *handle_to_id)
{
    return finish(c, handle_to_id, false);
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
