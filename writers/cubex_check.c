/*
 * What the writer of profile.cubex refuses (cubex.h): a cube that Cube's
 * readers, or collprof's own parser, would not read back as it is.  Checked
 * before a byte is written, so that a refused cube leaves nothing behind.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cubex_internal.h"

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
        if (cp_cubex_reserved_attr(a->key))
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
    return cp_cubex_check_meta(c, true, err);
}

int cp_cubex_check_meta(const cp_cube *c, bool values, cp_error *err)
{
    if (!c->nmetrics || !c->nregions || !c->ncnodes || !c->nlocations)
        return cp_error_set(err, "Cube needs at least one metric, region, cnode and location "
                                 "(%zu, %zu, %zu, %zu)",
                            c->nmetrics, c->nregions, c->ncnodes, c->nlocations);
    if (values && (!cp_cube_values_bytes(c) || !c->values))
        return cp_error_set(err, "no values (cp_cube_tree_finish not called?)");
    if (!c->location_host || !(c->values || c->finished))
        return cp_error_set(err, "no call tree (cp_cube_tree_finish not called?)");
    for (size_t i = 0; i < c->nmetrics; i++) {
        const cp_cube_metric *m = &c->metrics[i];
        if (m->dtype != CP_CUBE_DOUBLE && m->dtype != CP_CUBE_UINT64)
            return cp_error_set(err, "metric %zu: unknown dtype %d", i, (int)m->dtype);
        if (values && !c->values[i])
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
