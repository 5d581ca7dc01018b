/*
 * The timed calls of partial profiles.  Each rank's partial.rank<R>/ holds
 * a timings.cpt of world size 1: that rank's chunk alone, its communicators
 * by the rank's own numbering (its manifest's).  Read on its own, the chunk
 * is put at its rank; merged, every rank's chunk goes to its place in one
 * file of the world's size with the job-wide communicator ids, so that
 * time, waiting (recomputed from the calls every member kept) and the
 * sample read as those of a whole profile.  A rank that left no timings
 * has an empty chunk: its series are said to be missing where they count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "file_names.h"

/* The world-size file p->timings, made once (the header from the first
 * rank's file); its chunks empty, each at its rank.  0, or -1. */
static int world_file(cp_profile *p, const cp_cpt_file *from)
{
    cp_cpt_file *f = &p->timings;
    if (f->chunks)
        return 0;
    uint64_t w = p->manifest.world_size > 0 ? (uint64_t)p->manifest.world_size : 1;
    cp_cpt_chunk *c = calloc(w, sizeof *c);
    if (!c)
        return -1;
    memcpy(f->version, from->version, sizeof f->version);
    memcpy(f->git_hash, from->git_hash, sizeof f->git_hash);
    memcpy(f->mode, from->mode, sizeof f->mode);
    f->flags = from->flags;
    f->world_size = w;
    f->chunks = c;
    for (uint64_t r = 0; r < w; r++) {
        c[r].rank = (int64_t)r;
        c[r].core = -1;
        c[r].missing = true; /* until its rank's chunk comes */
    }
    return 0;
}

/* Move rank's one chunk of `from` (the file `name`) into p->timings, each
 * series' communicator renamed by rename(ctx, id), its sites' call paths by
 * paths (NULL: the same); what cannot be placed is
 * named as damaged and left out: a file that is not one rank's, a series of
 * a communicator its manifest does not list (-1). */
static int place(cp_profile *p, const char *name, int64_t rank, cp_cpt_file *from,
                 int64_t (*rename)(const void *ctx, int64_t id), const void *ctx,
                 const int64_t *paths, size_t npaths)
{
    if (from->world_size != 1) {
        cp_reader_damage(p, name, "holds %llu chunks: a rank's partial profile holds its own "
                                  "chunk alone; left out",
                         (unsigned long long)from->world_size);
        return 0;
    }
    if (rank < 0 || rank >= p->manifest.world_size) {
        cp_reader_damage(p, name, "the chunk of rank %lld, in a world of %lld ranks; left out",
                         (long long)rank, (long long)p->manifest.world_size);
        return 0;
    }
    if (world_file(p, from))
        return -1;
    cp_cpt_chunk *to = &p->timings.chunks[rank];
    *to = from->chunks[0];
    memset(&from->chunks[0], 0, sizeof from->chunks[0]);
    to->rank = rank;
    size_t kept = 0;
    for (size_t i = 0; i < to->nseries; i++) {
        cp_cpt_series *s = &to->series[i];
        int64_t id = rename ? rename(ctx, s->comm_id) : s->comm_id;
        if (id < 0) {
            cp_reader_damage(p, name, "rank %lld's %s on communicator %lld, which its "
                                      CP_FILE_MANIFEST " does not list: left out",
                             (long long)rank, s->collective, (long long)s->comm_id);
            cp_cpt_series_free(s);
            continue;
        }
        s->comm_id = id;
        /* its sites' call paths: the rank's own tree's ids as the job's */
        for (uint32_t j = 0; s->site_path && paths && j < s->nsites; j++)
            s->site_path[j] = s->site_path[j] < npaths ? (uint32_t)paths[s->site_path[j]]
                                                       : UINT32_MAX;
        to->series[kept++] = *s;
    }
    to->nseries = kept;
    p->has_timings = true;
    return 0;
}

int cp_reader_place_own_timings(cp_profile *p)
{
    int64_t rank = cp_reader_own_partial_rank(p);
    if (!p->has_timings || rank < 0)
        return 0;
    cp_cpt_file own = p->timings;
    memset(&p->timings, 0, sizeof p->timings);
    p->has_timings = false;
    int rc = place(p, CP_FILE_TIMINGS, rank, &own, NULL, NULL, NULL, 0);
    cp_cpt_file_free(&own);
    return rc;
}

int cp_reader_add_partial_timings(cp_profile *p, int64_t rank, cp_profile *part,
                                  int64_t (*job_wide)(const void *ctx, int64_t id),
                                  const void *ctx, const int64_t *paths)
{
    if (!part->has_timings)
        return 0;
    char name[64];
    snprintf(name, sizeof name, CP_FILE_PARTIAL "%lld/" CP_FILE_TIMINGS, (long long)rank);
    return place(p, name, rank, &part->timings, job_wide, ctx, paths,
                 paths ? part->manifest.ncall_tree : 0);
}

void cp_reader_add_partial_clock(cp_manifest *m, const cp_manifest *part)
{
    if (!part->has_clock)
        return;
    cp_clock_info *c = &m->clock;
    const cp_clock_info *from = &part->clock;
    if (!m->has_clock) {
        *c = *from; /* the lowest rank's: its rate, its note */
        m->has_clock = true;
        c->tsc_ranks = 0;
    }
    c->tsc_ranks += from->tsc_ranks;
    if (from->max_drift_ppm > c->max_drift_ppm)
        c->max_drift_ppm = from->max_drift_ppm;
    if (strcmp(c->source, from->source) != 0)
        snprintf(c->source, sizeof c->source, "mixed");
}
