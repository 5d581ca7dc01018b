/*
 * Completing profile.cubex with what finalize does not look up (`collprof
 * complete`), as Scalasca post-processes its reports: the source file and
 * the first and last line of each user region (nm and addr2line on the
 * module the runtime recorded), and the file and line of each call of an
 * MPI function (its cnode's call site, the line `collprof callsites`
 * gives).  Finalize keeps to the application's time: spawning tools from
 * inside an MPI job, on every rank, is what it must not do.
 */
#include <stdlib.h>
#include <string.h>

#include "cubex.h"
#include "stat.h"
#include "reader_internal.h"
#include "file_names.h"

/* Regions of one module: their names, lines looked up together. */
static int region_lines(cp_cube *c, const char *module, size_t *done)
{
    size_t n = 0;
    const char **names = calloc(c->nregions + 1, sizeof *names);
    size_t *which = calloc(c->nregions + 1, sizeof *which);
    cp_source_line *begin = calloc(c->nregions + 1, sizeof *begin);
    int64_t *end = calloc(c->nregions + 1, sizeof *end);
    int rc = names && which && begin && end ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < c->nregions; i++)
        if (!strcmp(c->regions[i].paradigm, "user") && !strcmp(c->regions[i].mod, module)) {
            names[n] = c->regions[i].name;
            which[n++] = i;
        }
    if (rc == 0)
        rc = cp_reader_function_lines(module, names, n, begin, end);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        cp_cube_region *r = &c->regions[which[k]];
        if (begin[k].line < 0)
            continue;
        r->begin = begin[k].line;
        r->end = end[k];
        snprintf(r->mod, sizeof r->mod, "%.1000s", begin[k].file);
        (*done)++;
    }
    free(names);
    free(which);
    free(begin);
    free(end);
    return rc;
}

/* Ranks' partial profiles: the Cube profile merged from their files when
 * they were loaded, copied (written out as DIR/profile.cubex, the job's,
 * for Cube; the ranks' own files stay as they are). */
static int merged_copy(const cp_profile *p, cp_cube *c, cp_error *err)
{
    const cp_cube *m = cp_reader_cached_cube(p);
    if (!m)
        return cp_error_set(err, "%s: no rank's partial profile holds a " CP_FILE_CUBE
                                 " (written by an older collprof, or missing: `collprof summary "
                                 "%s` says why)",
                            p->dir, p->dir);
    void *data = NULL;
    size_t len = 0;
    int rc = cp_cubex_format(m, &data, &len, err) ||
                     cp_cubex_parse_mem(data, len, CP_FILE_CUBE, c, err)
                 ? -1
                 : 0;
    free(data);
    return rc;
}

int cp_profile_complete_cube(const cp_profile *p, cp_complete_stats *st, cp_error *err)
{
    memset(st, 0, sizeof *st);
    char path[sizeof p->dir + 32];
    snprintf(path, sizeof path, "%s/" CP_FILE_CUBE, p->dir);
    if (!p->has_manifest)
        return cp_error_set(err, "%s: no " CP_FILE_MANIFEST ": the call tree's modules are unknown",
                            p->dir);
    cp_cube c;
    if (p->npartials ? merged_copy(p, &c, err) : cp_cubex_read(path, &c, err))
        return -1;
    int rc = 0;
    /* User regions, module by module: a region's mod is its module until
     * its lines are found (then its source file). */
    char (*mods)[1024] = calloc(c.nregions + 1, sizeof *mods);
    size_t nmods = 0;
    for (size_t i = 0; mods && i < c.nregions; i++) {
        const cp_cube_region *r = &c.regions[i];
        if (strcmp(r->paradigm, "user") || !r->mod[0] || r->begin >= 0)
            continue;
        st->regions++;
        bool seen = false;
        for (size_t k = 0; k < nmods && !seen; k++)
            seen = !strcmp(mods[k], r->mod);
        if (!seen)
            snprintf(mods[nmods++], sizeof mods[0], "%s", r->mod);
    }
    if (!mods)
        rc = cp_error_set(err, "out of memory");
    for (size_t k = 0; rc == 0 && k < nmods; k++) {
        if (!cp_reader_module_is_the_run(p, mods[k])) {
            st->changed++; /* another build's lines would be false */
            continue;
        }
        if (region_lines(&c, mods[k], &st->regions_done))
            rc = cp_error_set(err, "out of memory");
    }
    free(mods);
    /* Each MPI cnode's call site: the line of the frame that called it. */
    int64_t *site_of = rc ? NULL : cp_cube_callsite_of(p, &c, err);
    if (rc == 0 && !site_of)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < c.ncnodes; i++) {
        if (site_of[i] < 0)
            continue;
        const cp_callsite_node *nd = &p->manifest.call_tree[site_of[i]];
        cp_source_line at;
        st->callsites++;
        if (nd->line > 0) { /* as the run resolved it */
            snprintf(at.file, sizeof at.file, "%s", nd->file);
            at.line = nd->line;
            c.cnodes[i].line = at.line;
            snprintf(c.cnodes[i].mod, sizeof c.cnodes[i].mod, "%s", at.file);
            st->callsites_done++;
        } else if (!cp_reader_module_is_the_run(p, nd->module)) {
            st->changed++; /* not this build's lines: left as they are */
        } else if (cp_reader_symbolize(nd->module, &nd->address, 1, &at)) {
            rc = cp_error_set(err, "out of memory");
        } else if (at.line > 0) {
            c.cnodes[i].line = at.line;
            snprintf(c.cnodes[i].mod, sizeof c.cnodes[i].mod, "%s", at.file);
            st->callsites_done++;
        }
    }
    free(site_of);
    if (rc == 0)
        rc = cp_cubex_write(path, &c, err);
    if (rc == 0 && !p->npartials) /* a change of ours: the manifest records the new file */
        rc = cp_reader_refingerprint(p, CP_FILE_CUBE, err);
    /* Partial profiles: their wait-state statistics beside it, as finalize
     * writes them (their instances at this file's cnodes). */
    const cp_stat_file *stat = cp_profile_partial_stat(p);
    char spath[sizeof p->dir + 32];
    snprintf(spath, sizeof spath, "%s/" CP_FILE_STAT, p->dir);
    if (rc == 0 && stat)
        rc = cp_stat_write(spath, stat, err);
    cp_cube_free(&c);
    return rc;
}
