/*
 * profile.cubex's visits against the count files.
 *
 * The runtime counts one visit of a collective for every call a rank
 * records (lib/finalize_timing.c), at the call-tree nodes of that
 * collective: region "MPI_<Collective>" (or one of its forms,
 * "MPI_I<collective>", ..._init, ..._c) of paradigm "mpi", one node per call
 * path and form.  A rank has a row in a block for each recorded call in which
 * it passed counts in that direction; a rank that passes none (MPI_PROC_NULL
 * at an intercommunicator's root) records the call without a row.  So, per
 * world rank and collective, summed over its communicators,
 *
 *   calls in which it has a row (send or receive)  <=  visits
 *                  <=  calls recorded on the communicators it is a member of,
 *
 * and both are equal on intracommunicators.  The calls are counted from the
 * blocks, whose calls partition the recorded calls in each direction
 * (check 2 of check.c): for rank l, the calls of the send blocks with a row
 * of l, plus those of the receive blocks, minus the calls in both.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "cubex.h"
#include "mpi_names.h"
#include "file_names.h"

typedef struct tally {
    char (*names)[64]; /* the collectives, case-insensitively distinct */
    size_t n;
    size_t nranks;     /* the cube's locations */
    /* nranks x n each, [rank * n + collective] */
    uint64_t *visits, *with_row, *recorded;
} tally;

static int64_t find_name(const tally *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (cp_reader_collective_cmp(t->names[i], name) == 0)
            return (int64_t)i;
    return -1;
}

static int add_name(tally *t, const char *name)
{
    if (find_name(t, name) >= 0)
        return 0;
    char(*nn)[64] = realloc(t->names, (t->n + 1) * sizeof *nn);
    if (!nn)
        return -1;
    t->names = nn;
    snprintf(t->names[t->n++], sizeof *nn, "%s", name);
    return 0;
}

/* The collective of a call-tree node ("Alltoallv" for MPI_Ialltoallv_c:
 * the count files group the forms), or NULL. */
static const char *collective_of(const cp_cube *cube, size_t cnode, char *buf, size_t len)
{
    int64_t r = cube->cnodes[cnode].region;
    if (r < 0 || (uint64_t)r >= cube->nregions)
        return NULL;
    const cp_cube_region *reg = &cube->regions[r];
    int form;
    if (strcmp(reg->paradigm, "mpi") != 0 || !cp_mpi_function_parse(reg->name, buf, len, &form))
        return NULL;
    return buf;
}

static int collect_names(tally *t, const cp_profile *p, const cp_cube *cube)
{
    for (size_t c = 0; c < cube->ncnodes; c++) {
        char buf[64];
        const char *name = collective_of(cube, c, buf, sizeof buf);
        if (name && add_name(t, name) < 0)
            return -1;
    }
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++)
            if (add_name(t, p->files[f].blocks[b].collective) < 0)
                return -1;
    return 0;
}

static void add_visits(tally *t, const cp_cube *cube, size_t metric)
{
    bool u64 = cube->metrics[metric].dtype == CP_CUBE_UINT64;
    for (size_t c = 0; c < cube->ncnodes; c++) {
        char buf[64];
        const char *name = collective_of(cube, c, buf, sizeof buf);
        if (!name)
            continue;
        size_t k = (size_t)find_name(t, name);
        for (size_t l = 0; l < t->nranks; l++)
            t->visits[l * t->n + k] += u64 ? cp_cube_get_u64(cube, metric, c, l)
                                           : (uint64_t)cp_cube_get_double(cube, metric, c, l);
    }
}

/* |a ∩ b| of two sets. */
/* A send block s and a receive block r sharing calls: those calls count
 * once for the ranks with a row in both. */
struct once_ctx {
    const bool *has;
    int64_t *cnt;
    size_t n;
    int64_t both; /* all such calls */
};

static int count_once(void *ctx, size_t s, size_t r, const cp_ranges *common)
{
    struct once_ctx *x = ctx;
    int64_t both = cp_ranges_count(common);
    x->both += both;
    for (size_t l = 0; l < x->n; l++)
        x->cnt[l] -= x->has[s * x->n + l] && x->has[r * x->n + l] ? both : 0;
    return 0;
}

/* has[l]: rank l (below n) has a row in b. */
static void rows_of(const cp_block *b, size_t n, bool *has)
{
    memset(has, 0, n);
    for (size_t r = 0; r < b->nrows; r++)
        for (size_t i = 0; i < b->rows[r].ranks.n; i++)
            for (int64_t l = b->rows[r].ranks.v[i].lo;
                 l <= b->rows[r].ranks.v[i].hi && (uint64_t)l < n; l++)
                has[l] = true;
}

/* One (communicator, collective): e[0..m) of the sorted entries, with the
 * world rank of each of its n ranks. */
static int add_group(tally *t, const cp_reader_entry *e, size_t m, const int64_t *world,
                     size_t n)
{
    size_t k = (size_t)find_name(t, e[0].b->collective);
    int64_t *cnt = calloc(n, sizeof *cnt);
    bool *has = malloc(m * n);
    if (!cnt || !has) {
        free(cnt);
        free(has);
        return -1;
    }
    int64_t all = 0;
    for (size_t i = 0; i < m; i++) {
        int64_t calls = cp_ranges_count(&e[i].b->calls);
        rows_of(e[i].b, n, has + i * n);
        all += calls;
        for (size_t l = 0; l < n; l++)
            cnt[l] += has[i * n + l] ? calls : 0;
    }
    /* calls in a send and a receive block: counted once (below zero only
     * when blocks overlap, which check.c reports) */
    const cp_ranges **sends = malloc(m * sizeof *sends), **recvs = malloc(m * sizeof *recvs);
    struct once_ctx x = {has, cnt, n, 0};
    int rc = sends && recvs ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < m; i++) {
        sends[i] = e[i].f->direction == CP_SEND ? &e[i].b->calls : NULL;
        recvs[i] = e[i].f->direction == CP_RECV ? &e[i].b->calls : NULL;
    }
    if (rc == 0)
        rc = cp_reader_common_calls(sends, m, recvs, m, count_once, &x);
    free(sends);
    free(recvs);
    if (rc) {
        free(cnt);
        free(has);
        return -1;
    }
    all -= x.both;
    for (size_t l = 0; l < n; l++)
        if (world[l] >= 0 && (uint64_t)world[l] < t->nranks) {
            t->with_row[(size_t)world[l] * t->n + k] += cnt[l] > 0 ? (uint64_t)cnt[l] : 0;
            t->recorded[(size_t)world[l] * t->n + k] += all > 0 ? (uint64_t)all : 0;
        }
    free(cnt);
    free(has);
    return 0;
}

/* Every (communicator, collective) whose ranks have known world ranks. */
static int add_groups(tally *t, const cp_profile *p)
{
    cp_reader_entry *e = NULL;
    size_t n = 0;
    int rc = cp_reader_sorted_entries(p, &e, &n);
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i + 1;
        while (j < n && cp_reader_same_group(&e[i], &e[j]))
            j++;
        const cp_comm_info *ci = cp_reader_manifest_comm(p, e[i].b->comm_id);
        const cp_ranges *members = ci ? &ci->members : &e[i].b->comm_world_ranks;
        int64_t size = cp_ranges_count(members);
        if (size > (int64_t)t->nranks)
            size = 0; /* more members than ranks: check.c reports the manifest */
        int64_t *world = malloc((size_t)(size ? size : 1) * sizeof *world);
        if (!world) {
            rc = -1;
            break;
        }
        int64_t l = 0; /* members: an ordered list, interval by interval */
        for (size_t v = 0; v < members->n; v++)
            for (int64_t w = members->v[v].lo; w <= members->v[v].hi && l < size; w++)
                world[l++] = w;
        if (size)
            rc = add_group(t, e + i, j - i, world, (size_t)size);
        free(world);
        i = j;
    }
    free(e);
    return rc;
}

/* Rank l's visits of collective k are out of bounds, and how_many ranks'. */
static void out_of_bounds(checker *c, const tally *t, size_t k, size_t l, size_t how_many,
                          bool above)
{
    size_t x = l * t->n + k;
    char bound[128];
    if (above)
        snprintf(bound, sizeof bound, "the count files record %" PRIu64 " calls on its "
                                      "communicators", t->recorded[x]);
    else
        snprintf(bound, sizeof bound, "a row in %" PRIu64 " calls of the count files",
                 t->with_row[x]);
    const char *which = above ? "more visits than recorded calls"
                              : "fewer visits than calls with a row";
    cp_check_problem(c, CP_FILE_CUBE ": %s: world rank %zu has %" PRIu64 " visit%s, but %s (%zu "
                        "of %zu ranks have %s)",
                     t->names[k], l, t->visits[x], t->visits[x] == 1 ? "" : "s", bound, how_many,
                     t->nranks, which);
}

/* Per collective, the first rank below / above its bounds, and how many are. */
static void report(checker *c, const tally *t)
{
    for (size_t k = 0; k < t->n; k++) {
        size_t low = 0, high = 0, fl = 0, fh = 0;
        for (size_t l = 0; l < t->nranks; l++) {
            size_t x = l * t->n + k;
            if (t->visits[x] < t->with_row[x] && low++ == 0)
                fl = l;
            if (t->visits[x] > t->recorded[x] && high++ == 0)
                fh = l;
        }
        if (low)
            out_of_bounds(c, t, k, fl, low, false);
        if (high)
            out_of_bounds(c, t, k, fh, high, true);
    }
}

void cp_check_visits(checker *c, const cp_cube *cube)
{
    int64_t metric = cp_cube_find_metric(cube, "visits");
    if (metric < 0) {
        cp_check_problem(c, CP_FILE_CUBE ": no metric \"visits\"");
        return;
    }
    tally t = {.nranks = cube->nlocations};
    int rc = collect_names(&t, c->p, cube);
    size_t cells = t.n * t.nranks;
    if (rc == 0 && cells) {
        t.visits = calloc(cells, sizeof *t.visits);
        t.with_row = calloc(cells, sizeof *t.with_row);
        t.recorded = calloc(cells, sizeof *t.recorded);
        rc = t.visits && t.with_row && t.recorded ? 0 : -1;
    }
    if (rc == 0 && cells) {
        add_visits(&t, cube, (size_t)metric);
        rc = add_groups(&t, c->p);
    }
    if (rc == 0 && cells)
        report(c, &t);
    if (rc)
        c->oom = true;
    free(t.names);
    free(t.visits);
    free(t.with_row);
    free(t.recorded);
}
