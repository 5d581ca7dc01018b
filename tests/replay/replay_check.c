/*
 * Exactness of collprof-replay: ORIG is an application's profile, REPLAYED
 * the profile of collprof-replay replaying it (run under collprof).  Every
 * matrix of ORIG (send and receive, every block) must appear in REPLAYED
 * on a communicator of the same members (world ranks in rank order; the
 * replay's own agreement and timing calls are there too, so more is
 * allowed), for the same collective, with the same bytes cell by cell.
 * With --sequence also the order: each (communicator, collective) series
 * of ORIG must be the series of one communicator of REPLAYED call by call
 * (its call k moved ORIG's matrix of call k).
 *
 * usage: replay_check ORIG REPLAYED [--sequence]; prints what is missing,
 * exit 0 (all there), 1 (not), 2 (cannot read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collprof/reader.h"

static const cp_comm_info *comm_of(const cp_profile *p, int64_t id)
{
    for (size_t i = 0; i < p->manifest.ncomms; i++)
        if (p->manifest.comms[i].id == id)
            return &p->manifest.comms[i];
    return NULL;
}

static bool same_members(const cp_comm_info *a, const cp_comm_info *b)
{
    return a && b && cp_ranges_equal(&a->members, &b->members) &&
           cp_ranges_equal(&a->remote_members, &b->remote_members);
}

static int64_t dt(const cp_block *b)
{
    return b->counts_in_bytes ? 1 : b->dtsize;
}

/* The same bytes from every rank to every peer. */
static bool same_matrix(const cp_block *a, const cp_block *b)
{
    if (a->nranks != b->nranks || cp_block_fingerprint(a) != cp_block_fingerprint(b))
        return false;
    size_t len = a->row_len > b->row_len ? a->row_len : b->row_len;
    for (int64_t r = 0; r < a->nranks; r++)
        for (size_t j = 0; j < len; j++) {
            int64_t x = cp_block_row(a, r) && j < a->row_len ? cp_block_count(a, r, j) : 0;
            int64_t y = cp_block_row(b, r) && j < b->row_len ? cp_block_count(b, r, j) : 0;
            if ((x < 0 ? 0 : x) * dt(a) != (y < 0 ? 0 : y) * dt(b))
                return false;
        }
    return true;
}

static bool found_anywhere(const cp_profile *o, const cp_block *b, int dir, const cp_profile *r)
{
    const cp_comm_info *ci = comm_of(o, b->comm_id);
    for (size_t f = 0; f < r->nfiles; f++) {
        if (r->files[f].direction != dir)
            continue;
        for (size_t k = 0; k < r->files[f].nblocks; k++) {
            const cp_block *x = &r->files[f].blocks[k];
            if (strcasecmp(x->collective, b->collective) == 0 &&
                same_members(ci, comm_of(r, x->comm_id)) && same_matrix(b, x))
                return true;
        }
    }
    return false;
}

/* Series (id, coll) of ORIG replayed call by call on some communicator. */
static bool same_sequence(const cp_profile *o, int64_t id, const char *coll, const cp_profile *r)
{
    const cp_comm_info *ci = comm_of(o, id);
    cp_ranges calls = {0};
    if (cp_profile_calls(o, id, coll, CP_SEND, &calls))
        return false;
    bool ok = false;
    for (size_t c = 0; c < r->manifest.ncomms && !ok; c++) {
        const cp_comm_info *rc = &r->manifest.comms[c];
        if (!same_members(ci, rc))
            continue;
        ok = true;
        for (size_t i = 0; i < calls.n && ok; i++) {
            int64_t st = calls.v[i].step > 1 ? calls.v[i].step : 1;
            for (int64_t k = calls.v[i].lo; k <= calls.v[i].hi && ok; k += st) {
                const cp_block *a = cp_profile_find(o, id, coll, CP_SEND, k);
                const cp_block *b = cp_profile_find(r, rc->id, coll, CP_SEND, k);
                ok = a && b && same_matrix(a, b);
            }
        }
    }
    cp_ranges_free(&calls);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: replay_check ORIG REPLAYED [--sequence]\n");
        return 2;
    }
    bool sequence = argc > 3 && strcmp(argv[3], "--sequence") == 0;
    cp_profile o, r;
    cp_error err = {{0}};
    if (cp_profile_load(argv[1], &o, &err) || cp_profile_load(argv[2], &r, &err)) {
        fprintf(stderr, "replay_check: %s\n", err.msg);
        return 2;
    }
    long missing = 0, checked = 0;
    for (size_t f = 0; f < o.nfiles; f++)
        for (size_t k = 0; k < o.files[f].nblocks; k++) {
            const cp_block *b = &o.files[f].blocks[k];
            checked++;
            if (!found_anywhere(&o, b, o.files[f].direction, &r)) {
                printf("missing: communicator %lld, %s, %s matrix of calls starting %lld\n",
                       (long long)b->comm_id, b->collective,
                       o.files[f].direction == CP_SEND ? "send" : "receive",
                       (long long)cp_ranges_nth(&b->calls, 0));
                missing++;
            }
        }
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    if (sequence && cp_profile_summarize(&o, &rows, &nrows, &err)) {
        fprintf(stderr, "replay_check: %s\n", err.msg);
        return 2;
    }
    for (size_t i = 0; i < nrows; i++)
        if (!same_sequence(&o, rows[i].comm, rows[i].collective, &r)) {
            printf("out of order: communicator %lld, %s: no replayed communicator of the same "
                   "members repeats its calls in order\n", (long long)rows[i].comm,
                   rows[i].collective);
            missing++;
        }
    free(rows);
    printf("replay_check: %ld matrices of %s, %ld missing or out of order\n", checked, argv[1],
           missing);
    cp_profile_free(&o);
    cp_profile_free(&r);
    return missing ? 1 : 0;
}
