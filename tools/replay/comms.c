/*
 * The recorded communicators, rebuilt in this job from manifest.json: each
 * intracommunicator by MPI_Comm_split of MPI_COMM_WORLD (key: the recorded
 * rank, so that communicator ranks are the recorded ones), a topology as a
 * distributed graph with the recorded neighbour lists in their recorded
 * order (a Cartesian grid with borders as that grid, inferred from its
 * lists: MPI_PROC_NULL cannot be a graph's neighbour), an intercommunicator from its two groups' entries with
 * MPI_Intercomm_create.  Every rank builds every communicator in the same
 * order (the manifest's), so the splits match.  Without a manifest (the
 * other tools' dialect) the files name no members: a communicator as large
 * as the largest one is taken to be MPI_COMM_WORLD's first ranks, the
 * others cannot be rebuilt (their patterns are listed as skipped).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay.h"
#include "file_names.h"

/* Open MPI's MPI_UNWEIGHTED points to an empty object: gcc takes it for an
 * array of no elements passed where MPI reads none either. */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"

typedef struct replay_index {
    int64_t id;
    size_t comm;
    int side;
} replay_index;

static int by_id(const void *x, const void *y)
{
    const replay_index *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

const replay_comm *replay_comms_find(const replay_comms *c, int64_t id, int *side)
{
    replay_index key = {.id = id};
    const replay_index *x =
        c->nindex ? bsearch(&key, c->index, c->nindex, sizeof key, by_id) : NULL;
    if (!x)
        return NULL;
    if (side)
        *side = x->side;
    return &c->v[x->comm];
}

/* Split world into the members of list (communicator rank = position). */
static int split(const cp_ranges *members, int color_of_members, int wrank, MPI_Comm *out)
{
    int64_t pos = cp_ranges_index_of(members, wrank);
    return MPI_Comm_split(MPI_COMM_WORLD, pos >= 0 ? color_of_members : MPI_UNDEFINED,
                          pos >= 0 ? (int)pos : 0, out);
}

static bool has_borders(const cp_comm_info *ci)
{
    for (int64_t r = 0; ci->neighbors && r < ci->size; r++) {
        const cp_neighbors *nb = &ci->neighbors[r];
        for (size_t i = 0; i < nb->nsources; i++)
            if (nb->sources[i] < 0)
                return true;
        for (size_t i = 0; i < nb->ndestinations; i++)
            if (nb->destinations[i] < 0)
                return true;
    }
    return false;
}

#define MAX_DIMS 16

/* A grid with borders is Cartesian (a graph has no MPI_PROC_NULL
 * neighbours): its lists are, per dimension, the rank one step down and one
 * step up (MPI_Cart_shift).  Dimensions and periods follow from them: a
 * dimension's stride is the smallest step up, its size the stride before
 * it over its own; periodic when no rank has a border in it.  The grid is
 * accepted only when every rank's lists are exactly those of that grid, so
 * that every rank decides the same from the same manifest.  0, or -1. */
static int infer_grid(const cp_comm_info *ci, int *ndims, int *dims, int *periods)
{
    const cp_neighbors *n0 = &ci->neighbors[0];
    if (n0->nsources % 2 || n0->nsources / 2 > MAX_DIMS || n0->nsources == 0)
        return -1;
    int nd = (int)(n0->nsources / 2);
    int64_t stride[MAX_DIMS + 1], size = ci->size;
    for (int d = 0; d < nd; d++) {
        int64_t s = 0;
        bool border = false;
        for (int64_t r = 0; r < size; r++) {
            const cp_neighbors *nb = &ci->neighbors[r];
            if (nb->nsources != n0->nsources || nb->ndestinations != n0->nsources)
                return -1;
            int64_t up = nb->sources[2 * d + 1];
            border |= nb->sources[2 * d] < 0 || up < 0;
            if (up > r && (s == 0 || up - r < s))
                s = up - r;
        }
        int64_t before = d ? stride[d - 1] : size;
        stride[d] = s ? s : before; /* no step up anywhere: a dimension of 1 */
        if (stride[d] <= 0 || before % stride[d])
            return -1;
        dims[d] = (int)(before / stride[d]);
        periods[d] = !border;
    }
    if (stride[nd - 1] != 1)
        return -1;
    for (int64_t r = 0; r < size; r++) /* every list as the grid makes it */
        for (int d = 0; d < nd; d++) {
            int64_t c = (r / stride[d]) % dims[d], base = r - c * stride[d];
            int64_t lo = c > 0 ? r - stride[d] : periods[d] ? base + (dims[d] - 1) * stride[d] : -1;
            int64_t hi = c + 1 < dims[d] ? r + stride[d] : periods[d] ? base : -1;
            const cp_neighbors *nb = &ci->neighbors[r];
            if (nb->sources[2 * d] != lo || nb->sources[2 * d + 1] != hi ||
                nb->destinations[2 * d] != lo || nb->destinations[2 * d + 1] != hi)
                return -1;
        }
    *ndims = nd;
    return 0;
}

static int build_grid(const cp_comm_info *ci, replay_comm *rc)
{
    int nd, dims[MAX_DIMS], periods[MAX_DIMS];
    if (infer_grid(ci, &nd, dims, periods)) {
        snprintf(rc->why, sizeof rc->why, "neighbour lists with MPI_PROC_NULL that are not a "
                                          "Cartesian grid's");
        return MPI_SUCCESS;
    }
    if (rc->side < 0)
        return MPI_SUCCESS;
    MPI_Comm grid;
    int mpirc = MPI_Cart_create(rc->comm, nd, dims, periods, 0, &grid);
    if (mpirc == MPI_SUCCESS) {
        MPI_Comm_free(&rc->comm);
        rc->comm = rc->sync = grid;
    }
    return mpirc;
}

static int build_topology(const cp_comm_info *ci, replay_comm *rc)
{
    if (rc->side < 0)
        return MPI_SUCCESS;
    const cp_neighbors *nb = &ci->neighbors[rc->rank];
    int *src = malloc((nb->nsources + 1) * sizeof *src);
    int *dst = malloc((nb->ndestinations + 1) * sizeof *dst);
    if (!src || !dst) {
        free(src);
        free(dst);
        return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; i < nb->nsources; i++)
        src[i] = (int)nb->sources[i];
    for (size_t i = 0; i < nb->ndestinations; i++)
        dst[i] = (int)nb->destinations[i];
    MPI_Comm graph;
    int rc_ = MPI_Dist_graph_create_adjacent(rc->comm, (int)nb->nsources, src, MPI_UNWEIGHTED,
                                             (int)nb->ndestinations, dst, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &graph);
    free(src);
    free(dst);
    if (rc_ == MPI_SUCCESS) {
        MPI_Comm_free(&rc->comm);
        rc->comm = rc->sync = graph;
    }
    return rc_;
}

/* The entry j > i whose groups are entry i's, swapped; -1 when none. */
static int64_t partner(const cp_manifest *m, size_t i, const bool *used)
{
    for (size_t j = i + 1; j < m->ncomms; j++)
        if (!used[j] && cp_ranges_equal(&m->comms[j].members, &m->comms[i].remote_members) &&
            cp_ranges_equal(&m->comms[j].remote_members, &m->comms[i].members))
            return (int64_t)j;
    return -1;
}

static int from_manifest(const cp_manifest *m, int wrank, replay_comms *out, cp_error *err)
{
    bool *used = calloc(m->ncomms + 1, sizeof *used);
    if (!used)
        return cp_error_set(err, "out of memory");
    int mpirc = MPI_SUCCESS;
    for (size_t i = 0; i < m->ncomms && mpirc == MPI_SUCCESS; i++) {
        if (used[i])
            continue;
        const cp_comm_info *ci = &m->comms[i];
        replay_comm *rc = &out->v[out->n++];
        *rc = (replay_comm){.id = {ci->id, -1},
                            .size = {ci->size, 0},
                            .side = -1,
                            .comm = MPI_COMM_NULL,
                            .sync = MPI_COMM_NULL};
        used[i] = true;
        if (ci->remote_members.n == 0) {
            mpirc = split(&ci->members, 0, wrank, &rc->comm);
            int64_t pos = cp_ranges_index_of(&ci->members, wrank);
            rc->side = pos >= 0 ? 0 : -1;
            rc->rank = pos;
            rc->sync = rc->comm;
            if (ci->neighbors && mpirc == MPI_SUCCESS)
                mpirc = has_borders(ci) ? build_grid(ci, rc) : build_topology(ci, rc);
            continue;
        }
        rc->inter = true;
        int64_t j = partner(m, i, used);
        const cp_ranges *b = &ci->remote_members;
        if (j >= 0) {
            used[j] = true;
            rc->id[1] = m->comms[j].id;
            rc->size[1] = m->comms[j].size;
        } else {
            snprintf(rc->why, sizeof rc->why, "the intercommunicator's other group (world ranks of "
                                              "remote_members) has no entry in " CP_FILE_MANIFEST);
        }
        int64_t pa = cp_ranges_index_of(&ci->members, wrank), pb = cp_ranges_index_of(b, wrank);
        MPI_Comm local = MPI_COMM_NULL;
        mpirc = MPI_Comm_split(MPI_COMM_WORLD, pa >= 0 ? 0 : pb >= 0 ? 1 : MPI_UNDEFINED,
                               (int)(pa >= 0 ? pa : pb >= 0 ? pb : 0), &local);
        if (mpirc != MPI_SUCCESS || local == MPI_COMM_NULL)
            continue;
        rc->side = pa >= 0 ? 0 : 1;
        rc->rank = pa >= 0 ? pa : pb;
        int remote_leader = (int)cp_ranges_nth(pa >= 0 ? b : &ci->members, 0);
        mpirc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, (int)(i % 30000),
                                     &rc->comm);
        MPI_Comm_free(&local);
        if (mpirc == MPI_SUCCESS)
            mpirc = MPI_Intercomm_merge(rc->comm, rc->side, &rc->sync);
    }
    free(used);
    if (mpirc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(mpirc, s, &len);
        return cp_error_set(err, "cannot rebuild the recorded communicators: %s", s);
    }
    return 0;
}

/* The other tools' dialect: one communicator per synthetic id. */
static int from_blocks(const cp_profile *p, int wrank, replay_comms *out, cp_error *err)
{
    int64_t world = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t k = 0; k < p->files[f].nblocks; k++)
            if (p->files[f].blocks[k].nranks > world)
                world = p->files[f].blocks[k].nranks;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t k = 0; k < p->files[f].nblocks; k++) {
            const cp_block *b = &p->files[f].blocks[k];
            bool seen = false; /* few communicators in such files: a linear look */
            for (size_t i = 0; i < out->n && !seen; i++)
                seen = out->v[i].id[0] == b->comm_id;
            if (seen)
                continue;
            replay_comm *rc = &out->v[out->n++];
            *rc = (replay_comm){.id = {b->comm_id, -1},
                                .size = {b->nranks, 0},
                                .side = -1,
                                .comm = MPI_COMM_NULL,
                                .sync = MPI_COMM_NULL};
            if (b->nranks == world) {
                cp_ranges first = {0};
                if (cp_ranges_add_range(&first, 0, world - 1))
                    return cp_error_set(err, "out of memory");
                int mpirc = split(&first, 0, wrank, &rc->comm);
                cp_ranges_free(&first);
                if (mpirc != MPI_SUCCESS)
                    return cp_error_set(err, "cannot rebuild MPI_COMM_WORLD's first %lld ranks",
                                        (long long)world);
                rc->sync = rc->comm;
                rc->side = wrank < world ? 0 : -1;
                rc->rank = wrank;
            } else {
                snprintf(rc->why, sizeof rc->why,
                         "the other tools' files name no members: only communicators of the "
                         "world's size (%lld ranks) are replayed", (long long)world);
            }
        }
    return 0;
}

static size_t count_blocks(const cp_profile *p)
{
    size_t n = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        n += p->files[f].nblocks;
    return n;
}

int replay_comms_build(const cp_profile *p, replay_comms *out, cp_error *err)
{
    *out = (replay_comms){0};
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    size_t cap = p->has_manifest ? p->manifest.ncomms : count_blocks(p);
    /* communicators, then their index (at most two entries each) */
    out->v = calloc(cap + 1, sizeof *out->v);
    replay_index *idx = calloc(2 * cap + 1, sizeof *idx);
    out->index = idx;
    if (!out->v || !idx)
        return cp_error_set(err, "out of memory");
    if (p->has_manifest ? from_manifest(&p->manifest, wrank, out, err)
                        : from_blocks(p, wrank, out, err))
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++)
        for (int s = 0; s < (out->v[i].inter ? 2 : 1); s++)
            idx[k++] = (replay_index){.id = out->v[i].id[s], .comm = i, .side = s};
    qsort(idx, k, sizeof *idx, by_id);
    out->nindex = k;
    return 0;
}

int64_t replay_comm_lead(const cp_profile *p, int64_t id)
{
    for (size_t i = 0; p->has_manifest && i < p->manifest.ncomms; i++)
        if (p->manifest.comms[i].id == id)
            return p->manifest.comms[i].lead;
    return -1;
}

const cp_cpt_series *replay_timed_series(const cp_profile *p, int64_t rank, int64_t id,
                                         const char *coll)
{
    if (!p->has_timings || rank < 0 || (uint64_t)rank >= p->timings.world_size)
        return NULL;
    const cp_cpt_chunk *ch = &p->timings.chunks[rank];
    for (size_t i = 0; i < ch->nseries; i++)
        if (ch->series[i].comm_id == id && strcasecmp(ch->series[i].collective, coll) == 0)
            return &ch->series[i];
    return NULL;
}

void replay_comms_free(replay_comms *c)
{
    for (size_t i = 0; i < c->n; i++) {
        replay_comm *rc = &c->v[i];
        if (rc->sync != MPI_COMM_NULL && rc->sync != rc->comm)
            MPI_Comm_free(&rc->sync);
        if (rc->comm != MPI_COMM_NULL)
            MPI_Comm_free(&rc->comm);
    }
    free(c->v);
    free(c->index);
    *c = (replay_comms){0};
}

int replay_comms_dup(const replay_comms *c, replay_comms *out)
{
    *out = *c;
    out->v = malloc((c->n ? c->n : 1) * sizeof *out->v);
    int ok = out->v != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        free(out->v);
        *out = (replay_comms){0};
        return -1;
    }
    /* In the order of the originals, which every rank walks alike. */
    for (size_t i = 0; i < c->n; i++) {
        replay_comm *rc = &out->v[i];
        *rc = c->v[i];
        if (rc->comm != MPI_COMM_NULL)
            MPI_Comm_dup(c->v[i].comm, &rc->comm);
        if (c->v[i].sync == c->v[i].comm)
            rc->sync = rc->comm;
        else if (rc->sync != MPI_COMM_NULL)
            MPI_Comm_dup(c->v[i].sync, &rc->sync);
    }
    return 0;
}

void replay_comms_free_dup(replay_comms *c)
{
    c->index = NULL; /* the original's */
    c->nindex = 0;
    replay_comms_free(c);
}
