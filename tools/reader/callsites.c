/*
 * The call paths of a profile (collprof callsites): each innermost node of
 * the manifest's call tree that issued collective calls, with its calls,
 * bytes and time over all ranks from profile.cubex, and the source line of
 * its call from addr2line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpt.h"
#include "cubex.h"
#include "cubex_callsites.h"
#include "wait_states.h"
#include "reader_internal.h"
#include "file_names.h"

static bool is_mpi(const cp_cube *c, size_t cnode)
{
    return !strcmp(c->regions[c->cnodes[cnode].region].paradigm, "mpi");
}

/* Sums over locations of one metric at one cnode. */
static void add_sum(const cp_cube *c, int64_t m, size_t cnode, uint64_t *u, double *d)
{
    for (size_t l = 0; m >= 0 && l < c->nlocations; l++) {
        if (u)
            *u += cp_cube_get_u64(c, (size_t)m, cnode, l);
        if (d)
            *d += cp_cube_get_double(c, (size_t)m, cnode, l);
    }
}

/* Files before the "collprof call sites" attribute: each MPI cnode's
 * parent is its call site, the k-th non-MPI cnode after the root being
 * call-tree node k. */
static int by_order(const cp_profile *p, const cp_cube *c, int64_t *site_of, cp_error *err)
{
    int64_t *frame = malloc((c->ncnodes ? c->ncnodes : 1) * sizeof *frame), next = 0;
    if (!frame)
        return cp_error_set(err, "out of memory");
    for (size_t i = 0; i < c->ncnodes; i++)
        frame[i] = c->cnodes[i].parent < 0 || is_mpi(c, i) ? -1 : next++;
    for (size_t i = 0; i < c->ncnodes; i++)
        site_of[i] = is_mpi(c, i) && c->cnodes[i].parent >= 0 ? frame[c->cnodes[i].parent] : -1;
    free(frame);
    if ((size_t)next != p->manifest.ncall_tree)
        return cp_error_set(err, "%s: " CP_FILE_CUBE " has %lld call-path nodes, " CP_FILE_MANIFEST " %zu",
                            p->dir, (long long)next, p->manifest.ncall_tree);
    return 0;
}

int64_t *cp_cube_callsite_of(const cp_profile *p, const cp_cube *c, cp_error *err)
{
    int64_t *site_of = malloc((c->ncnodes ? c->ncnodes : 1) * sizeof *site_of);
    if (!site_of) {
        cp_error_set(err, "out of memory");
        return NULL;
    }
    int has = cp_cube_get_callsites(c, site_of, err);
    if (has < 0) { /* "profile.cubex: attribute ...": say which directory */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        cp_error_set(err, "%s/%s", p->dir, why);
    } else if (has == 0 && by_order(p, c, site_of, err)) {
        has = -1;
    }
    for (size_t i = 0; has == 1 && i < c->ncnodes; i++)
        if (site_of[i] >= 0 && (!is_mpi(c, i) || (size_t)site_of[i] >= p->manifest.ncall_tree)) {
            cp_error_set(err, "%s: " CP_FILE_CUBE " names call site %lld for cnode %zu, %s", p->dir,
                         (long long)site_of[i], i,
                         is_mpi(c, i) ? "which " CP_FILE_MANIFEST "'s call tree does not have"
                                      : "which is not an MPI call");
            has = -1;
        }
    if (has >= 0)
        return site_of;
    free(site_of);
    return NULL;
}

static int fill_rows(const cp_profile *p, const cp_cube *c, cp_callsite_row *rows, size_t *nrows,
                     cp_error *err)
{
    const cp_manifest *m = &p->manifest;
    int64_t *site_of = cp_cube_callsite_of(p, c, err);
    if (!site_of)
        return -1;
    int64_t visits = cp_cube_find_metric(c, "visits"), sent = cp_cube_find_metric(c, "bytes_sent"),
            time = cp_cube_find_metric(c, "time"), late = cp_cube_find_metric(c, "late_arrival");
    for (size_t i = 0; i < c->ncnodes; i++) {
        int64_t id = site_of[i];
        if (id < 0)
            continue;
        cp_callsite_row *r = NULL;
        for (size_t k = 0; k < *nrows && !r; k++)
            if (rows[k].id == id)
                r = &rows[k];
        if (!r) {
            r = &rows[(*nrows)++];
            memset(r, 0, sizeof *r);
            r->id = id;
            r->node = &m->call_tree[id];
            r->source.line = -1;
        }
        const char *name = c->regions[c->cnodes[i].region].name;
        if (!strncmp(name, "MPI_", 4))
            name += 4;
        size_t used = strlen(r->collectives);
        snprintf(r->collectives + used, sizeof r->collectives - used, "%s%s", used ? ", " : "",
                 name);
        add_sum(c, visits, i, &r->calls, NULL);
        add_sum(c, sent, i, &r->bytes_sent, NULL);
        /* the call's time: Time, less collprof's barrier before it that
         * the metric tree puts in it (late arrival, barrier mode) */
        for (size_t l = 0; time >= 0 && l < c->nlocations; l++)
            r->time += cp_cube_get_double(c, (size_t)time, i, l) -
                       (late >= 0 && c->metrics[late].parent[0]
                            ? cp_cube_get_double(c, (size_t)late, i, l)
                            : 0);
        for (int w = 0; w < CP_NWAIT_PATTERNS; w++)
            add_sum(c, cp_cube_find_metric(c, cp_wait_metrics[w].uniq_name), i, NULL,
                    &r->waiting);
    }
    free(site_of);
    return 0;
}

/* File and line of every row's call: as the run resolved it (manifest),
 * else one addr2line per module, only in a module file of the build that
 * ran. */
int cp_callsite_rows_lines(const cp_profile *p, cp_callsite_row *rows, size_t n)
{
    uint64_t *addr = malloc((n ? n : 1) * sizeof *addr);
    size_t *which = malloc((n ? n : 1) * sizeof *which);
    cp_source_line *out = malloc((n ? n : 1) * sizeof *out);
    int rc = addr && which && out ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *mod = rows[i].node->module;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(rows[j].node->module, mod) != 0;
        if (!first)
            continue; /* done with the row that first named this module */
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!strcmp(rows[j].node->module, mod)) {
                which[k] = j;
                addr[k++] = rows[j].node->address;
            }
        bool same = cp_reader_module_is_the_run(p, mod);
        rc = same ? cp_reader_symbolize(mod, addr, k, out) : 0;
        for (size_t j = 0; rc == 0 && j < k; j++) {
            const cp_callsite_node *nd = rows[which[j]].node;
            cp_source_line *to = &rows[which[j]].source;
            if (nd->line > 0) { /* resolved at the end of the run: the run's line */
                snprintf(to->file, sizeof to->file, "%s", nd->file);
                to->line = nd->line;
            } else {
                *to = same ? out[j] : (cp_source_line){.line = CP_LINE_CHANGED};
            }
        }
    }
    free(addr);
    free(which);
    free(out);
    return rc;
}

static int cmp_row(const void *a, const void *b)
{
    const cp_callsite_row *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int cp_profile_callsites(const cp_profile *p, bool lines, cp_callsite_row **rows, size_t *nrows,
                         cp_error *err)
{
    *rows = NULL;
    *nrows = 0;
    if (!p->has_manifest || p->manifest.ncall_tree == 0)
        return cp_error_set(err, "%s: no call paths recorded (COLLPROF_CALLSITE_DEPTH=0, or "
                                 "not a collprof output directory)", p->dir);
    const cp_cube *c;
    cp_cube own;
    bool owned;
    if (cp_reader_cube(p, &c, &own, &owned, err))
        return -1;
    *rows = calloc(c->ncnodes ? c->ncnodes : 1, sizeof **rows);
    int rc = *rows ? fill_rows(p, c, *rows, nrows, err) : cp_error_set(err, "out of memory");
    if (owned)
        cp_cube_free(&own);
    if (rc == 0 && *nrows)
        qsort(*rows, *nrows, sizeof **rows, cmp_row);
    if (rc == 0 && lines && (rc = cp_callsite_rows_lines(p, *rows, *nrows)))
        cp_error_set(err, "out of memory");
    if (rc) {
        free(*rows);
        *rows = NULL;
        *nrows = 0;
    }
    return rc;
}

int cp_profile_keep_callsite(cp_profile *p, int64_t id, cp_error *err)
{
    if (!p->has_manifest || p->manifest.ncall_tree == 0)
        return cp_error_set(err, "%s: no call paths recorded (COLLPROF_CALLSITE_DEPTH=0?)",
                            p->dir);
    if (id < 0 || (size_t)id >= p->manifest.ncall_tree)
        return cp_error_set(err, "%s: no call path %lld (the call tree has ids 0 to %zu)", p->dir,
                            (long long)id, p->manifest.ncall_tree - 1);
    for (size_t i = 0; i < p->nfiles; i++) {
        cp_counts_file *f = &p->files[i];
        size_t kept = 0;
        for (size_t b = 0; b < f->nblocks; b++) {
            if (cp_ranges_contains(&f->blocks[b].callsites, id))
                f->blocks[kept++] = f->blocks[b];
            else
                cp_block_free(&f->blocks[b]);
        }
        f->nblocks = kept;
    }
    /* The timings are not per call path: leave them out. */
    if (p->has_timings)
        cp_cpt_file_free(&p->timings);
    p->has_timings = false;
    return 0;
}

void cp_callsite_path(const cp_manifest *m, int64_t id, bool addresses, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int64_t n = id; n >= 0 && (size_t)n < m->ncall_tree && used < size;
         n = m->call_tree[n].parent) {
        const cp_callsite_node *x = &m->call_tree[n];
        const char *sep = n == id ? "" : " < ";
        int w = x->function[0] || !addresses
                    ? snprintf(buf + used, size - used, "%s%s", sep,
                               x->function[0] ? x->function : "?")
                    : snprintf(buf + used, size - used, "%s0x%" PRIx64, sep, x->address);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

void cp_callsite_where(const cp_callsite_row *r, bool full_path, char *buf, size_t size)
{
    if (r->source.line >= 0)
        snprintf(buf, size, "%s:%" PRId64,
                 full_path ? r->source.file : cp_reader_basename(r->source.file),
                 r->source.line);
    else
        snprintf(buf, size, "%s+0x%" PRIx64, cp_reader_basename(r->node->module),
                 r->node->address);
}
