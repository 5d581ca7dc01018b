/*
 * cp_profile_check, part 6: the files of a timed run.
 *
 *  - profile.cubex, profile.stat and timings.cpt, when the manifest lists
 *    them (or, without a manifest, when they are there), parse; one that is
 *    there but not listed is reported like an unlisted counts file (a listed
 *    file that is missing is reported by check.c);
 *  - profile.stat against profile.cubex: every pattern is a metric of the
 *    cube (the same one as its MetricID, in the documented layout), every
 *    instance is at a call-tree node of the cube and of a rank of the world;
 *  - profile.cubex: one location per world rank, on the host timings.cpt
 *    gives that rank; its visits against the count files (check_visits.c);
 *  - timings.cpt: one chunk per world rank; every series names a
 *    communicator of the manifest of which its rank is a member, and only
 *    calls that the count files record for that communicator and
 *    collective.
 * timings.cpt itself parsed when the profile was loaded (cp_profile_load
 * fails on a corrupt one).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_internal.h"
#include "compact.h"
#include "cubex.h"
#include "stat.h"
#include "file_names.h"

static bool listed(const cp_manifest *m, const char *name)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i], name) == 0)
            return true;
    return false;
}

/* dir/name into path; whether the file is there.  One that is there but
 * not listed by the manifest is a problem (but the joined profile.cubex
 * and profile.stat `collprof complete` writes beside the ranks' partial
 * profiles, whose merged manifest is the reader's, not a file). */
static bool present(checker *c, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", c->p->dir, name);
    if (access(path, F_OK) != 0)
        return false;
    if (c->p->has_manifest && !listed(&c->p->manifest, name) &&
        !(c->p->npartials && (!strcmp(name, CP_FILE_CUBE) || !strcmp(name, CP_FILE_STAT))))
        cp_check_problem(c, "%s: not listed in the \"files\" of " CP_FILE_MANIFEST, name);
    return true;
}

/* A parser's message, which names the file by its path: from the file's
 * name on ("profile.cubex: anchor.xml:12: expected ..."). */
static void parse_problem(checker *c, const cp_error *err)
{
    size_t n = strlen(c->p->dir);
    const char *m = err->msg;
    if (strncmp(m, c->p->dir, n) == 0 && m[n] == '/')
        m += n + 1;
    cp_check_problem(c, "%s", m);
}

/* The world size: the manifest's, else timings.cpt's; -1 when unknown. */
static int64_t world_size(const cp_profile *p)
{
    if (p->has_manifest)
        return p->manifest.world_size;
    return p->has_timings ? (int64_t)p->timings.world_size : -1;
}

static void stat_against_cube(checker *c, const cp_stat_file *s, const cp_cube *cube)
{
    int64_t world = world_size(c->p);
    for (size_t i = 0; i < s->npatterns; i++) {
        const cp_stat_pattern *sp = &s->patterns[i];
        int64_t m = cp_cube_find_metric(cube, sp->name);
        if (m < 0)
            cp_check_problem(c, CP_FILE_STAT ": pattern %s is not a metric of " CP_FILE_CUBE,
                             sp->name);
        else if (sp->metric_id >= 0 && sp->metric_id != m)
            cp_check_problem(c, CP_FILE_STAT ": pattern %s: MetricID %" PRId64 ", but it is "
                                "metric %" PRId64 " of " CP_FILE_CUBE,
                             sp->name, sp->metric_id, m);
        for (size_t e = 0; e < sp->nevents; e++) {
            const cp_stat_event *ev = &sp->events[e];
            if (ev->cnode < 0 || (uint64_t)ev->cnode >= cube->ncnodes)
                cp_check_problem(c, CP_FILE_STAT ": pattern %s: an instance at cnode %" PRId64
                                    ", but " CP_FILE_CUBE " has %zu call-tree nodes",
                                 sp->name, ev->cnode, cube->ncnodes);
            if (world >= 0 && ev->rank >= world)
                cp_check_problem(c, CP_FILE_STAT ": pattern %s: an instance of rank %" PRId64
                                    ", but the world has %" PRId64 " ranks",
                                 sp->name, ev->rank, world);
        }
    }
}

static const char *host_of(const cp_cube *cube, size_t loc)
{
    int64_t h = cube->location_host[loc];
    return h >= 0 && (uint64_t)h < cube->nhosts ? cube->hosts[h].name : "?";
}

/* The cube's system tree against the world and timings.cpt's chunks. */
static void locations(checker *c, const cp_cube *cube)
{
    const cp_profile *p = c->p;
    if (p->has_manifest && cube->nlocations != (uint64_t)p->manifest.world_size)
        cp_check_problem(c, CP_FILE_CUBE ": %zu locations (processes), but the world has %" PRId64
                            " ranks (" CP_FILE_MANIFEST ")",
                         cube->nlocations, p->manifest.world_size);
    if (!p->has_timings)
        return;
    size_t n = cube->nlocations < p->timings.world_size ? cube->nlocations
                                                          : (size_t)p->timings.world_size;
    size_t differ = 0, first = 0;
    for (size_t r = 0; r < n; r++) /* a rank without a profile has no host in either */
        if (!p->timings.chunks[r].missing &&
            strcmp(host_of(cube, r), p->timings.chunks[r].hostname) != 0 && differ++ == 0)
            first = r;
    if (differ)
        cp_check_problem(c, CP_FILE_CUBE ", " CP_FILE_TIMINGS ": world rank %zu runs on host %s in "
                            CP_FILE_CUBE ", on %s in " CP_FILE_TIMINGS " (%zu of %zu ranks differ)",
                         first, host_of(cube, first), p->timings.chunks[first].hostname, differ,
                         n);
}

/* One series of world rank r against the manifest and the count files. */
static void series(checker *c, uint64_t r, const cp_cpt_series *s, cp_ranges *recorded)
{
    const cp_comm_info *ci = cp_reader_manifest_comm(c->p, s->comm_id);
    if (!ci) {
        cp_check_problem(c, CP_FILE_TIMINGS ": world rank %" PRIu64 ": %s on communicator %" PRId64
                            ", which is not in the communicator table of " CP_FILE_MANIFEST,
                         r, s->collective, s->comm_id);
        return;
    }
    if (ci->members.n && cp_ranges_index_of(&ci->members, (int64_t)r) < 0)
        cp_check_problem(c, CP_FILE_TIMINGS ": world rank %" PRIu64 ": %s on communicator %" PRId64
                            ", of which it is not a member",
                         r, s->collective, s->comm_id);
    if (s->n == 0)
        return;
    if (cp_profile_calls(c->p, s->comm_id, s->collective, -1, recorded) < 0) {
        c->oom = true;
        return;
    }
    uint64_t missing = 0, first = 0;
    for (uint64_t i = 0; i < s->n; i++)
        if ((s->call[i] > INT64_MAX || !cp_ranges_contains(recorded, (int64_t)s->call[i])) &&
            missing++ == 0)
            first = s->call[i];
    if (missing)
        cp_check_problem(c, CP_FILE_TIMINGS ": world rank %" PRIu64 ", communicator %" PRId64
                            ", %s: call %" PRIu64 " is timed but not recorded in the count "
                            "files (%" PRIu64 " of %" PRIu64 " timed calls)",
                         r, s->comm_id, s->collective, first, missing, s->n);
}

static void timings(checker *c, bool against_counts)
{
    const cp_profile *p = c->p;
    const cp_cpt_file *f = &p->timings;
    if (!p->has_manifest)
        return;
    if (f->world_size != (uint64_t)p->manifest.world_size)
        cp_check_problem(c, CP_FILE_TIMINGS ": %" PRIu64 " ranks, but the world has %" PRId64
                            " ranks (" CP_FILE_MANIFEST ")",
                         f->world_size, p->manifest.world_size);
    cp_ranges recorded = {0};
    for (uint64_t r = 0; against_counts && r < f->world_size; r++)
        for (size_t i = 0; i < f->chunks[r].nseries; i++)
            series(c, r, &f->chunks[r].series[i], &recorded);
    cp_ranges_free(&recorded);
}

/* Did the run write every count file?  When one is missing (manifest.json's
 * "missing": a full disk, say), calls are timed that no file records, so
 * the timed files are checked on their own only. */
static bool counts_complete(const cp_profile *p)
{
    for (size_t i = 0; p->has_manifest && i < p->manifest.nmissing; i++) {
        int direction;
        int64_t lead;
        if (cp_compact_parse_name(p->manifest.missing[i].key, &direction, &lead) == 0)
            return false;
    }
    return true;
}

void cp_check_timing_files(checker *c)
{
    char path[sizeof c->p->dir + 32];
    cp_error err = {{0}};
    cp_cube cube;
    cp_stat_file st = {0};
    bool has_cube = false, has_stat = false;
    memset(&cube, 0, sizeof cube);
    if (present(c, CP_FILE_CUBE, path, sizeof path)) {
        has_cube = cp_cubex_read(path, &cube, &err) == 0;
        if (!has_cube)
            parse_problem(c, &err);
    }
    if (present(c, CP_FILE_STAT, path, sizeof path)) {
        has_stat = cp_stat_read(path, &st, &err) == 0;
        if (!has_stat)
            parse_problem(c, &err);
    }
    present(c, CP_FILE_TIMINGS, path, sizeof path);
    if (has_cube && has_stat)
        stat_against_cube(c, &st, &cube);
    bool against_counts = counts_complete(c->p);
    /* A partial profile's ranks' files, one location each, as the world's
     * (made when it was loaded): the values the reader shows. */
    const cp_cube *world = has_cube ? &cube : NULL;
    if ((c->p->npartials || cp_reader_own_partial_rank(c->p) >= 0) && cp_reader_cached_cube(c->p))
        world = cp_reader_cached_cube(c->p);
    if (world) {
        locations(c, world);
        if (against_counts)
            cp_check_visits(c, world);
    }
    if (c->p->has_timings)
        timings(c, against_counts);
    if (has_cube)
        cp_cube_free(&cube);
    if (has_stat)
        cp_stat_file_free(&st);
}
