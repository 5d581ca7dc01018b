/*
 * cp_profile_check: everything that can be validated in a loaded profile.
 *
 *  1. each block: rows name distinct ranks below "Number of ranks"; its calls
 *     are among "<Collective> calls" (files of this collprof, version >= 1);
 *  2. blocks of one (communicator, collective, direction), version >= 1:
 *     the same "<Collective> calls" list, disjoint calls, whose union is it;
 *  3. blocks of one communicator agree on its Communicator: line;
 *  4. manifest.json (when present): its communicator table is consistent
 *     and lists every communicator used, with the same size and members; a
 *     communicator's counts are in the files of its lead rank; every file it
 *     lists exists (plain or .gz) and every counts file is listed;
 *  5. send = transpose of receive, in bytes, for every call present in both
 *     directions (see check_transpose);
 *  6. the files of a timed run (check_timing.c).
 * One line per problem: "<file(s)>: communicator C, <collective>, call(s) K: what".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_internal.h"
#include "ranges.h"
#include "file_names.h"

/* The transpose check costs nranks^2 per pair of matrices; larger
 * communicators are skipped (documented in docs/reader.md). */
#define CHECK_MAX_RANKS 32768

static const char *fname(const cp_counts_file *f)
{
    return cp_reader_basename(f->path);
}

/* --------------------------------------------------------- set algebra */

/* out = a ∩ b (sets). */
static int ranges_intersect(const cp_ranges *a, const cp_ranges *b, cp_ranges *out)
{
    size_t i = 0, j = 0;
    out->n = 0;
    while (i < a->n && j < b->n) {
        int64_t lo = a->v[i].lo > b->v[j].lo ? a->v[i].lo : b->v[j].lo;
        int64_t hi = a->v[i].hi < b->v[j].hi ? a->v[i].hi : b->v[j].hi;
        if (lo <= hi && cp_ranges_add_range(out, lo, hi) < 0)
            return -1;
        if (a->v[i].hi < b->v[j].hi)
            i++;
        else
            j++;
    }
    return 0;
}

/* out = a \ b (sets). */
static int ranges_subtract(const cp_ranges *a, const cp_ranges *b, cp_ranges *out)
{
    size_t j = 0;
    out->n = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t lo = a->v[i].lo, hi = a->v[i].hi;
        while (j < b->n && b->v[j].hi < lo)
            j++;
        size_t k = j;
        while (lo <= hi && k < b->n && b->v[k].lo <= hi) {
            if (b->v[k].lo > lo && cp_ranges_add_range(out, lo, b->v[k].lo - 1) < 0)
                return -1;
            if (b->v[k].hi >= hi) {
                lo = hi + 1; /* hi < INT64_MAX: b covers it */
                break;
            }
            lo = b->v[k].hi + 1;
            k++;
        }
        if (lo <= hi && cp_ranges_add_range(out, lo, hi) < 0)
            return -1;
    }
    return 0;
}

static int ranges_union_into(cp_ranges *acc, const cp_ranges *b)
{
    return cp_ranges_union(acc, b);
}

/* --------------------------------------------------- 1. single blocks */

static void check_block(checker *c, const cp_counts_file *f, const cp_block *b)
{
    char cl[96];
    cp_reader_calls_label(&b->calls, cl, sizeof cl);
    cp_ranges seen = {0}, extra = {0};
    int64_t expected = 0;
    for (size_t r = 0; r < b->nrows; r++) {
        const cp_ranges *rk = &b->rows[r].ranks;
        if (rk->n && rk->v[rk->n - 1].hi >= b->nranks)
            cp_check_problem(c,
                             "%s: communicator %" PRId64 ", %s, %s: rank %" PRId64
                             " has a row, but the number of ranks is %" PRId64,
                             fname(f), b->comm_id, b->collective, cl, rk->v[rk->n - 1].hi,
                             b->nranks);
        expected += cp_ranges_count(rk);
        if (ranges_union_into(&seen, rk) < 0)
            c->oom = true;
        if (cp_ranges_count(&seen) != expected) {
            cp_check_problem(c,
                             "%s: communicator %" PRId64 ", %s, %s: a rank has more than one row",
                             fname(f), b->comm_id, b->collective, cl);
            expected = cp_ranges_count(&seen); /* report each duplicate once */
        }
    }
    if (f->version >= 1) {
        if (b->calls.n == 0)
            cp_check_problem(c, "%s: communicator %" PRId64 ", %s: a block has no calls", fname(f),
                             b->comm_id, b->collective);
        if (ranges_subtract(&b->calls, &b->all_calls, &extra) < 0)
            c->oom = true;
        if (extra.n) {
            char xl[96];
            char *all = cp_ranges_to_string(&b->all_calls);
            cp_check_problem(c, "%s: communicator %" PRId64 ", %s, %s: not among the %s calls %s",
                             fname(f), b->comm_id, b->collective,
                             cp_reader_calls_label(&extra, xl, sizeof xl), b->collective,
                             all ? all : "?");
            free(all);
        }
    }
    cp_ranges_free(&seen);
    cp_ranges_free(&extra);
}

/* ------------------------------ 2. calls partitioned within a direction */

/* The blocks' calls are disjoint (the usual case): *all is their union,
 * found with one sort.  Otherwise the caller looks for the overlaps block
 * by block, to name them. */
static bool blocks_disjoint(checker *c, const cp_reader_entry *e, size_t n, cp_ranges *all)
{
    for (size_t i = 0; i < n; i++)
        if (cp_ranges_append(all, &e[i].b->calls) < 0) {
            c->oom = true;
            return false;
        }
    if (cp_ranges_normalise(all, true) == 0) {
        cp_ranges_normalise(all, false); /* merge what touches */
        return true;
    }
    all->n = 0;
    return false;
}

static void check_partition(checker *c, const cp_reader_entry *e, size_t n)
{
    cp_ranges seen = {0}, overlap = {0}, missing = {0};
    const cp_block *b0 = e[0].b;
    bool disjoint = blocks_disjoint(c, e, n, &seen);
    for (size_t i = 0; i < n; i++) {
        const cp_block *b = e[i].b;
        if (!cp_ranges_equal(&b->all_calls, &b0->all_calls)) {
            char *x = cp_ranges_to_string(&b->all_calls), *y = cp_ranges_to_string(&b0->all_calls);
            cp_check_problem(
                c, "%s: communicator %" PRId64 ", %s: one block lists %s calls %s, another %s",
                fname(e[i].f), b->comm_id, b->collective, b->collective, x ? x : "?", y ? y : "?");
            free(x);
            free(y);
        }
        if (disjoint)
            continue; /* seen is the union already */
        if (ranges_intersect(&seen, &b->calls, &overlap) < 0)
            c->oom = true;
        if (overlap.n) {
            /* name the earlier block that holds the first overlapping call */
            const cp_reader_entry *other = NULL;
            for (size_t k = 0; k < i && !other; k++)
                if (cp_ranges_contains(&e[k].b->calls, overlap.v[0].lo))
                    other = &e[k];
            char ol[96], la[96], lb[96], files[600];
            if (other && other->f != e[i].f)
                snprintf(files, sizeof files, "%s, %s", fname(other->f), fname(e[i].f));
            else
                snprintf(files, sizeof files, "%s", fname(e[i].f));
            cp_check_problem(c,
                             "%s: communicator %" PRId64
                             ", %s, %s: in two blocks, the block of %s and the block of %s",
                             files, b->comm_id, b->collective,
                             cp_reader_calls_label(&overlap, ol, sizeof ol),
                             other ? cp_reader_calls_label(&other->b->calls, la, sizeof la) : "?",
                             cp_reader_calls_label(&b->calls, lb, sizeof lb));
        }
        if (ranges_union_into(&seen, &b->calls) < 0)
            c->oom = true;
    }
    if (ranges_subtract(&b0->all_calls, &seen, &missing) < 0)
        c->oom = true;
    if (missing.n) {
        char ml[96];
        cp_check_problem(
            c, "%s: communicator %" PRId64 ", %s, %s: listed in \"%s calls\" but in no block",
            fname(e[0].f), b0->comm_id, b0->collective,
            cp_reader_calls_label(&missing, ml, sizeof ml), b0->collective);
    }
    cp_ranges_free(&seen);
    cp_ranges_free(&overlap);
    cp_ranges_free(&missing);
}

/* ------------------------------------ 3. and 4. communicators, manifest */

static void describe_comm(char *buf, size_t size, int64_t csize, const cp_ranges *members)
{
    char *m = cp_ranges_to_string(members);
    if (members->n)
        snprintf(buf, size, "size %" PRId64 ", world ranks %s", csize, m ? m : "?");
    else
        snprintf(buf, size, "size %" PRId64, csize);
    free(m);
}

/* Blocks of one communicator (e[0..n)) name the same size and members. */
static void check_comm_lines(checker *c, const cp_reader_entry *e, size_t n)
{
    const cp_reader_entry *ref = NULL;
    for (size_t i = 0; i < n; i++) {
        const cp_block *b = e[i].b;
        if (b->comm_size < 0 && b->comm_world_ranks.n == 0)
            continue;
        if (!ref) {
            ref = &e[i];
            continue;
        }
        const cp_block *r = ref->b;
        if ((b->comm_size >= 0 && r->comm_size >= 0 && b->comm_size != r->comm_size) ||
            (b->comm_world_ranks.n && r->comm_world_ranks.n &&
             !cp_ranges_equal(&b->comm_world_ranks, &r->comm_world_ranks))) {
            char x[512], y[512];
            describe_comm(x, sizeof x, r->comm_size, &r->comm_world_ranks);
            describe_comm(y, sizeof y, b->comm_size, &b->comm_world_ranks);
            cp_check_problem(
                c,
                "%s, %s: communicator %" PRId64 ": Communicator: lines differ (%s in %s; %s in %s)",
                fname(ref->f), fname(e[i].f), b->comm_id, x, r->collective, y, b->collective);
            return; /* once per communicator */
        }
    }
}

static void check_manifest_table(checker *c)
{
    const cp_manifest *m = &c->p->manifest;
    for (size_t i = 0; i < m->ncomms; i++) {
        const cp_comm_info *ci = &m->comms[i];
        for (size_t k = 0; k < i; k++)
            if (m->comms[k].id == ci->id) {
                cp_check_problem(c, CP_FILE_MANIFEST ": communicator %" PRId64 " is listed twice",
                                 ci->id);
                break;
            }
        if (ci->members.n == 0)
            continue;
        int64_t count = cp_ranges_count(&ci->members);
        if (count != ci->size)
            cp_check_problem(c,
                             CP_FILE_MANIFEST ": communicator %" PRId64 ": size %" PRId64
                             " but %" PRId64 " members",
                             ci->id, ci->size, count);
        if (cp_ranges_nth(&ci->members, 0) != ci->lead)
            cp_check_problem(c,
                             CP_FILE_MANIFEST ": communicator %" PRId64 ": lead %" PRId64
                             " but its first member is world rank %" PRId64,
                             ci->id, ci->lead, cp_ranges_nth(&ci->members, 0));
        int64_t maxm = -1;
        for (size_t r = 0; r < ci->members.n; r++)
            if (ci->members.v[r].hi > maxm)
                maxm = ci->members.v[r].hi;
        if (maxm >= m->world_size)
            cp_check_problem(c,
                             CP_FILE_MANIFEST ": communicator %" PRId64 ": member %" PRId64
                             " is not below the world size %" PRId64,
                             ci->id, maxm, m->world_size);
    }
}

/* Each file's communicators against the manifest's table: once per (file,
 * communicator). */
static void check_files_against_manifest(checker *c)
{
    for (size_t fi = 0; fi < c->p->nfiles; fi++) {
        const cp_counts_file *f = &c->p->files[fi];
        cp_ranges seen = {0};
        for (size_t bi = 0; bi < f->nblocks; bi++) {
            const cp_block *b = &f->blocks[bi];
            if (b->comm_id < 0 || cp_ranges_contains(&seen, b->comm_id))
                continue;
            if (cp_ranges_add(&seen, b->comm_id) < 0)
                c->oom = true;
            const cp_comm_info *ci = cp_reader_manifest_comm(c->p, b->comm_id);
            if (!ci) {
                cp_check_problem(c,
                                 "%s: communicator %" PRId64
                                 ": not in the communicator table of " CP_FILE_MANIFEST,
                                 fname(f), b->comm_id);
                continue;
            }
            if ((b->comm_size >= 0 && b->comm_size != ci->size) ||
                (b->comm_world_ranks.n && !cp_ranges_equal(&b->comm_world_ranks, &ci->members))) {
                char x[512], y[512];
                describe_comm(x, sizeof x, b->comm_size >= 0 ? b->comm_size : ci->size,
                              &b->comm_world_ranks);
                describe_comm(y, sizeof y, ci->size, &ci->members);
                cp_check_problem(c,
                                 "%s: communicator %" PRId64
                                 ": the Communicator: line says %s, " CP_FILE_MANIFEST " says %s",
                                 fname(f), b->comm_id, x, y);
            }
            /* A partial profile is written by each rank for itself: its
             * files hold the communicators it is a member of. */
            if (c->p->has_manifest && c->p->manifest.partial) {
                if (f->lead_rank >= 0 && cp_ranges_index_of(&ci->members, f->lead_rank) < 0)
                    cp_check_problem(c,
                                     "%s: communicator %" PRId64 ": world rank %" PRId64
                                     " wrote it in a partial profile but is not a member",
                                     fname(f), b->comm_id, f->lead_rank);
            } else if (f->version >= 1 && f->lead_rank >= 0 && f->lead_rank != ci->lead) {
                cp_check_problem(c,
                                 "%s: communicator %" PRId64 ": led by world rank %" PRId64
                                 " in " CP_FILE_MANIFEST ", but found in the file of lead rank %" PRId64,
                                 fname(f), b->comm_id, ci->lead, f->lead_rank);
            }
        }
        cp_ranges_free(&seen);
    }
}

static bool exists(const char *dir, const char *name, const char *suffix, size_t strip)
{
    char path[8192];
    size_t len = strlen(name) - strip;
    int n = snprintf(path, sizeof path, "%s/%.*s%s", dir, (int)len, name, suffix);
    struct stat st;
    return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* name and listed are the same file name, up to a ".gz" suffix. */
static bool same_file(const char *name, const char *listed)
{
    size_t n = strlen(name), l = strlen(listed);
    if (ends_with(name, ".gz"))
        n -= 3;
    if (ends_with(listed, ".gz"))
        l -= 3;
    return n == l && strncmp(name, listed, n) == 0;
}

static void check_listed_files(checker *c)
{
    const cp_manifest *m = &c->p->manifest;
    if (c->p->npartials)
        return; /* merged partial profiles: each folder lists its own */
    for (size_t i = 0; i < m->nfiles; i++) {
        const char *name = m->files[i];
        if (exists(c->p->dir, name, "", 0) || exists(c->p->dir, name, ".gz", 0) ||
            (ends_with(name, ".gz") && exists(c->p->dir, name, "", 3)))
            continue;
        cp_check_problem(c, CP_FILE_MANIFEST ": lists %s, which is not in the directory", name);
    }
    /* and the other way round: every counts file is listed */
    for (size_t f = 0; f < c->p->nfiles; f++) {
        const char *name = fname(&c->p->files[f]);
        size_t i = 0;
        while (i < m->nfiles && !same_file(name, m->files[i]))
            i++;
        if (i == m->nfiles)
            cp_check_problem(c, "%s: not listed in the \"files\" of " CP_FILE_MANIFEST, name);
    }
}

/* ------------------------------------------- 5. send = transpose(recv) */

/* Value of rank's row towards/from peer k: per-peer rows index by peer, a
 * single-count row (row_len 1) holds the count for every peer. */
static int64_t peer_value(const cp_block *b, const cp_row *row, int64_t rank, int64_t k)
{
    return b->row_len == 1 ? row->counts[0] : cp_row_value(row, rank, (size_t)k);
}

/* Rows address `peers` processes: one count for all, or one per peer. */
static bool shape_ok(const cp_block *b, int64_t peers)
{
    if (cp_collective_rows_vary(b->collective))
        return false; /* rows address neighbours, not ranks */
    return b->row_len == 1 || (peers >= 0 && b->row_len == (size_t)peers);
}

/* Send matrix s against receive matrix r for the calls both moved.  On an
 * intracommunicator both are the same communicator's; on an
 * intercommunicator s is one group's and r the other group's, so s's rows
 * address r's ranks and the other way round. */
static void compare_pair(checker *c, const cp_reader_entry *se, const cp_reader_entry *re,
                         const cp_ranges *calls, bool inter)
{
    const cp_block *s = se->b, *r = re->b;
    if (s->invalid || r->invalid || cp_block_has_failed(s) || cp_block_has_failed(r))
        return; /* a negative count, a refused call: the MPI library moved nothing */
    char cl[96], files[600];
    cp_reader_calls_label(calls, cl, sizeof cl);
    if (se->f == re->f)
        snprintf(files, sizeof files, "%s", fname(se->f));
    else
        snprintf(files, sizeof files, "%s, %s", fname(se->f), fname(re->f));
    if (!inter && s->nranks != r->nranks) {
        cp_check_problem(c,
                         "%s: communicator %" PRId64 ", %s, %s: %" PRId64
                         " ranks on the send side, %" PRId64 " on the receive side",
                         files, s->comm_id, s->collective, cl, s->nranks, r->nranks);
        return;
    }
    int64_t n = s->nranks, m = r->nranks;
    if (n > CHECK_MAX_RANKS || m > CHECK_MAX_RANKS || !shape_ok(s, m) || !shape_ok(r, n))
        return; /* neighbourhood collectives, very large communicators */
    int64_t root = inter ? -1 : s->root >= 0 ? s->root : r->root;
    int64_t differ = 0, pairs = 0;
    int64_t fi = 0, fj = 0;
    cp_i128 fsb = 0, frb = 0;
    for (size_t sr = 0; sr < s->nrows; sr++) {
        const cp_row *srow = &s->rows[sr];
        for (size_t si = 0; si < srow->ranks.n; si++)
            for (int64_t i = srow->ranks.v[si].lo; i <= srow->ranks.v[si].hi && i < n; i++) {
                if (i < 0)
                    continue;
                for (size_t rr = 0; rr < r->nrows; rr++) {
                    const cp_row *rrow = &r->rows[rr];
                    for (size_t ri = 0; ri < rrow->ranks.n; ri++)
                        for (int64_t j = rrow->ranks.v[ri].lo; j <= rrow->ranks.v[ri].hi && j < m;
                             j++) {
                            if (j < 0 || (root >= 0 && i != root && j != root))
                                continue;
                            cp_i128 sb = cp_reader_bytes(s, peer_value(s, srow, i, j));
                            cp_i128 rb = cp_reader_bytes(r, peer_value(r, rrow, j, i));
                            pairs++;
                            if (sb != rb && differ++ == 0) {
                                fi = i;
                                fj = j;
                                fsb = sb;
                                frb = rb;
                            }
                        }
                }
            }
    }
    if (differ && inter)
        cp_check_problem(
            c,
            "%s: intercommunicator %" PRId64 " -> %" PRId64 ", %s, %s: the send matrix of "
            "one group is not the transpose of the receive matrix of the other: rank %" PRId64
            " sends %" PRId64 " bytes to remote rank %" PRId64 ", which receives %" PRId64
            " bytes from it (%" PRId64 " of %" PRId64 " rank pairs differ)",
            files, s->comm_id, r->comm_id, s->collective, cl, fi, (int64_t)fsb, fj, (int64_t)frb,
            differ, pairs);
    else if (differ)
        cp_check_problem(c,
                         "%s: communicator %" PRId64
                         ", %s, %s: the send matrix is not the transpose of "
                         "the receive matrix: rank %" PRId64 " sends %" PRId64
                         " bytes to rank %" PRId64 ", which receives %" PRId64
                         " bytes from it (%" PRId64 " of %" PRId64 " rank pairs differ)",
                         files, s->comm_id, s->collective, cl, fi, (int64_t)fsb, fj, (int64_t)frb,
                         differ, pairs);
}

/* Send blocks of es[0..ns) against receive blocks of er[0..nr) of the same
 * collective, call by common call. */
struct pair_ctx {
    checker *c;
    const cp_reader_entry *es, *er;
    bool inter;
};

static int compare_common(void *ctx, size_t i, size_t k, const cp_ranges *both)
{
    struct pair_ctx *x = ctx;
    if (cp_reader_collective_cmp(x->es[i].b->collective, x->er[k].b->collective) == 0)
        compare_pair(x->c, &x->es[i], &x->er[k], both, x->inter);
    return 0;
}

/* The calls of each send block of es, against the receive blocks of er
 * that share them (cp_reader_common_calls: no pair by pair search). */
static void transpose_groups(checker *c, const cp_reader_entry *es, size_t ns,
                             const cp_reader_entry *er, size_t nr, bool inter)
{
    const cp_ranges **a = malloc((ns ? ns : 1) * sizeof *a), **b = malloc((nr ? nr : 1) * sizeof *b);
    if (!a || !b) {
        c->oom = true;
    } else {
        for (size_t i = 0; i < ns; i++)
            a[i] = es[i].f->direction == CP_SEND ? &es[i].b->calls : NULL;
        for (size_t k = 0; k < nr; k++)
            b[k] = er[k].f->direction == CP_RECV ? &er[k].b->calls : NULL;
        struct pair_ctx x = {c, es, er, inter};
        if (cp_reader_common_calls(a, ns, b, nr, compare_common, &x) < 0)
            c->oom = true;
    }
    free(a);
    free(b);
}

static bool is_inter(const checker *c, int64_t comm)
{
    const cp_comm_info *ci = cp_reader_manifest_comm(c->p, comm);
    return ci && ci->remote_members.n > 0;
}

static void check_transpose(checker *c, const cp_reader_entry *e, size_t n)
{
    if (n && !is_inter(c, e[0].b->comm_id))
        transpose_groups(c, e, n, e, n, false);
}

/* The entries [*lo, *hi) of communicator id in the sorted list. */
static void comm_span(const cp_reader_entry *e, size_t n, int64_t id, size_t *lo, size_t *hi)
{
    *lo = 0;
    while (*lo < n && e[*lo].b->comm_id != id)
        (*lo)++;
    *hi = *lo;
    while (*hi < n && e[*hi].b->comm_id == id)
        (*hi)++;
}

/* Each group of an intercommunicator is its own entry in the manifest: pair
 * each with the group whose members are its remote group (and the other way
 * round), the k-th such pair with the k-th, and check that one group's sends
 * are the other's receives. */
static void check_intercomms(checker *c, const cp_reader_entry *e, size_t n)
{
    const cp_manifest *m = &c->p->manifest;
    if (n == 0)
        return; /* no blocks (and e may be NULL) */
    bool *used = calloc(m->ncomms ? m->ncomms : 1, sizeof *used);
    if (!used) {
        c->oom = true;
        return;
    }
    for (size_t a = 0; a < m->ncomms; a++) {
        const cp_comm_info *A = &m->comms[a];
        if (!A->remote_members.n || used[a])
            continue;
        size_t b = 0;
        while (b < m->ncomms &&
               (b == a || used[b] || !cp_ranges_equal(&m->comms[b].members, &A->remote_members) ||
                !cp_ranges_equal(&m->comms[b].remote_members, &A->members)))
            b++;
        if (b == m->ncomms)
            continue; /* the other group's lead wrote nothing */
        used[a] = used[b] = true;
        size_t alo, ahi, blo, bhi;
        comm_span(e, n, A->id, &alo, &ahi);
        comm_span(e, n, m->comms[b].id, &blo, &bhi);
        transpose_groups(c, e + alo, ahi - alo, e + blo, bhi - blo, true);
        transpose_groups(c, e + blo, bhi - blo, e + alo, ahi - alo, true);
    }
    free(used);
}


/* ------------------------------------------ neighbourhood collectives */

/* The k-th out-edge of rank i (to j, its m-th edge to j) arrives at j as
 * j's m-th in-edge from i.  Returns that position in j's sources, or -1. */
static int64_t arrival(const cp_neighbors *nb, int64_t i, size_t k)
{
    int64_t j = nb[i].destinations[k];
    size_t m = 0;
    for (size_t x = 0; x < k; x++)
        m += nb[i].destinations[x] == j;
    for (size_t y = 0; y < nb[j].nsources; y++)
        if (nb[j].sources[y] == i && m-- == 0)
            return (int64_t)y;
    return -1;
}

/* A neighbourhood send matrix against a receive matrix of the same calls,
 * through the manifest's neighbour lists: rows must have the degrees the
 * topology gives, and what i sends on each edge is what its target
 * receives on it. */
static void compare_neighbors(checker *c, const cp_comm_info *ci, const cp_reader_entry *se,
                              const cp_reader_entry *re, const cp_ranges *calls)
{
    const cp_block *s = se->b, *r = re->b;
    const cp_neighbors *nb = ci->neighbors;
    char cl[96];
    cp_reader_calls_label(calls, cl, sizeof cl);
    for (int64_t i = 0; i < ci->size; i++) {
        const cp_row *srow = cp_block_row(s, i), *rrow = cp_block_row(r, i);
        if (srow && srow->len != 1 && srow->len != nb[i].ndestinations)
            cp_check_problem(
                c,
                "%s: communicator %" PRId64 ", %s, %s: rank %" PRId64 " sends %zu counts "
                "but has %zu out-neighbours",
                fname(se->f), s->comm_id, s->collective, cl, i, srow->len, nb[i].ndestinations);
        if (rrow && rrow->len != 1 && rrow->len != nb[i].nsources)
            cp_check_problem(
                c,
                "%s: communicator %" PRId64 ", %s, %s: rank %" PRId64 " receives %zu counts "
                "but has %zu in-neighbours",
                fname(re->f), r->comm_id, r->collective, cl, i, rrow->len, nb[i].nsources);
    }
    for (int64_t i = 0; i < ci->size; i++) {
        const cp_row *srow = cp_block_row(s, i);
        if (!srow || (srow->len != 1 && srow->len != nb[i].ndestinations))
            continue;
        for (size_t k = 0; k < nb[i].ndestinations; k++) {
            int64_t j = nb[i].destinations[k];
            if (j < 0 || j >= ci->size)
                continue; /* MPI_PROC_NULL */
            const cp_row *rrow = cp_block_row(r, j);
            int64_t y = arrival(nb, i, k);
            if (!rrow || y < 0 || (rrow->len != 1 && rrow->len != nb[j].nsources))
                continue;
            cp_i128 sb = cp_reader_bytes(s, srow->counts[srow->len == 1 ? 0 : k]);
            cp_i128 rb = cp_reader_bytes(r, rrow->counts[rrow->len == 1 ? 0 : (size_t)y]);
            if (sb != rb) {
                cp_check_problem(c,
                                 "%s, %s: communicator %" PRId64 ", %s, %s: rank %" PRId64
                                 " sends %" PRId64 " bytes to its neighbour %" PRId64
                                 ", which receives %" PRId64 " bytes from it",
                                 fname(se->f), fname(re->f), s->comm_id, s->collective, cl, i,
                                 (int64_t)sb, j, (int64_t)rb);
                return;
            }
        }
    }
}

static void check_neighbors(checker *c, const cp_reader_entry *e, size_t n)
{
    const cp_comm_info *ci = n ? cp_reader_manifest_comm(c->p, e[0].b->comm_id) : NULL;
    if (!ci || !ci->neighbors || !cp_collective_rows_vary(e[0].b->collective))
        return;
    cp_ranges both = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            if (e[i].f->direction != CP_SEND || e[k].f->direction != CP_RECV)
                continue;
            if (ranges_intersect(&e[i].b->calls, &e[k].b->calls, &both) < 0)
                c->oom = true;
            if (both.n)
                compare_neighbors(c, ci, &e[i], &e[k], &both);
        }
    cp_ranges_free(&both);
}

/* -------------------------------------------------------------- driver */

long cp_profile_check(const cp_profile *p, FILE *report)
{
    checker c = {.p = p, .out = report};
    cp_reader_entry *e = NULL, *v1 = NULL;
    size_t n = 0;

    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++)
            check_block(&c, &p->files[f], &p->files[f].blocks[b]);

    if (cp_reader_sorted_entries(p, &e, &n) < 0 || (n && !(v1 = malloc(n * sizeof *v1)))) {
        c.oom = true;
        n = 0;
    }
    /* 2. per (communicator, collective, direction), files of version >= 1 */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1, nv = 0;
        while (j < n && cp_reader_same_group(&e[i], &e[j]) && e[j].f->direction == e[i].f->direction)
            j++;
        for (size_t k = i; k < j; k++)
            if (e[k].f->version >= 1)
                v1[nv++] = e[k];
        if (nv)
            check_partition(&c, v1, nv);
        i = j;
    }
    /* 3. per communicator */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && e[j].b->comm_id == e[i].b->comm_id)
            j++;
        check_comm_lines(&c, e + i, j - i);
        i = j;
    }
    /* 4. manifest */
    if (p->has_manifest) {
        check_manifest_table(&c);
        check_files_against_manifest(&c);
        check_listed_files(&c);
    }
    /* 5. per (communicator, collective) */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cp_reader_same_group(&e[i], &e[j]))
            j++;
        check_transpose(&c, e + i, j - i);
        check_neighbors(&c, e + i, j - i);
        i = j;
    }
    if (p->has_manifest)
        check_intercomms(&c, e, n);
    /* 6. profile.cubex, profile.stat, timings.cpt */
    cp_check_timing_files(&c);
    free(e);
    free(v1);
    if (c.oom)
        cp_check_problem(&c, "%s: out of memory while checking: the check is incomplete", p->dir);
    return c.problems;
}
