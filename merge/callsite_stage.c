/* One rank's part of the call-path stage (callsite_stage.h). */
#include "callsite_stage.h"

#include <stdlib.h>
#include <string.h>

/* The way up is a reduction (tree_reduce.h) whose value is the rank's
 * state: its tree packed, its children's merged in, each merge remembered. */
static void pack_tree(void *value, cp_wbuf *b, bool failed)
{
    cp_ptree_pack(b, &((cp_paths_rank *)value)->t, failed);
}

static bool merge_tree(void *value, const char *buf, size_t len)
{
    cp_paths_rank *st = value;
    cp_psub *subs = realloc(st->subs, (st->nsubs + 1) * sizeof *subs);
    if (!subs)
        return false;
    st->subs = subs;
    cp_psub *s = &subs[st->nsubs++];
    *s = (cp_psub){0};
    return cp_ptree_merge(&st->t, buf, len, s);
}

static const cp_tree_op paths_op = {pack_tree, merge_tree};

void cp_paths_up(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io)
{
    st->ok = cp_tree_reduce_up(rank, n, io, &paths_op, st, st->ok);
    st->nnodes = st->t.n;
}

/* The ids of child's nodes (s: where they went), or a list that says
 * there are none (s NULL). */
static void send_ids(const cp_paths_rank *st, int64_t child, const cp_psub *s,
                     const cp_tree_io *io)
{
    bool failed = !st->ids || !s || !s->to_mine;
    cp_wbuf b = {0};
    cp_put_u32(&b, failed);
    cp_put_u64(&b, failed ? 0 : s->n);
    for (uint64_t i = 0; !failed && i < s->n; i++)
        cp_put_i64(&b, st->ids[s->to_mine[i]]);
    static const unsigned char failed_msg[12] = {1};
    io->send(io->ctx, child, b.failed ? (const void *)failed_msg : b.p,
             b.failed ? sizeof failed_msg : b.len);
    cp_wbuf_free(&b);
}

bool cp_paths_down(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io,
                   cp_manifest *m)
{
    int rounds = cp_tree_rounds(n), up = cp_tree_send_round(rank);
    size_t nn = st->nnodes;
    bool ok = false;
    if (up >= 0) {
        size_t len;
        char *buf = io->recv(io->ctx, rank - ((int64_t)1 << up), &len);
        cp_rbuf rb = {.p = buf, .len = len};
        bool failed = !buf || cp_get_u32(&rb) != 0;
        uint64_t got = buf ? cp_get_u64(&rb) : 0;
        ok = !failed && !rb.bad && got == nn && cp_rbuf_has(&rb, got, 8) &&
             (st->ids = malloc((nn ? nn : 1) * sizeof *st->ids)) != NULL;
        for (size_t i = 0; ok && i < nn; i++)
            st->ids[i] = cp_get_i64(&rb);
        free(buf);
    } else {
        /* Rank 0: the job's tree, numbered; the manifest's call tree. */
        ok = st->ok && cp_ptree_number(&st->t, m) == 0 &&
             (st->ids = malloc((nn ? nn : 1) * sizeof *st->ids)) != NULL;
        for (size_t i = 0; ok && i < nn; i++)
            st->ids[i] = st->t.nodes[i].id;
    }
    if (!ok) {
        free(st->ids);
        st->ids = NULL;
    }
    /* Each child the ids of the nodes it sent, the last round's first.  The
     * j-th child's merge is subs[j]; a child whose tree was lost made the
     * whole job's numbering fail, so then no rank has ids. */
    size_t j = 0;
    for (int k = 0; k < rounds && (up < 0 || k < up); k++)
        j += cp_tree_has_child(rank, n, k);
    for (int k = (up < 0 ? rounds : up); k-- > 0;)
        if (cp_tree_has_child(rank, n, k)) {
            j--;
            send_ids(st, rank + ((int64_t)1 << k), j < st->nsubs ? &st->subs[j] : NULL, io);
        }
    return ok;
}

void cp_paths_rank_free(cp_paths_rank *st)
{
    for (size_t i = 0; i < st->nsubs; i++)
        free(st->subs[i].to_mine);
    free(st->subs);
    free(st->ids);
    free(st->t.nodes);
    memset(st, 0, sizeof *st);
}
