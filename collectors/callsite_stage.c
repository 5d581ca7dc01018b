/* One rank's part of the call-path stage (callsite_stage.h). */
#include "callsite_stage.h"

#include <stdlib.h>
#include <string.h>

void cp_paths_up(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io)
{
    int rounds = cp_tree_rounds(n), up = cp_tree_send_round(rank);
    st->subs = calloc((size_t)(rounds ? rounds : 1), sizeof *st->subs);
    st->ok = st->ok && st->subs;
    for (int k = 0; k < rounds && (up < 0 || k < up); k++) {
        if (!cp_tree_has_child(rank, n, k))
            continue;
        size_t len;
        int64_t child = rank + ((int64_t)1 << k);
        char *buf = io->recv(io->ctx, child, &len);
        cp_psub s = {.rank = (int)child};
        if (!buf || !st->ok || !cp_ptree_merge(&st->t, buf, len, &s))
            st->ok = false;
        if (st->subs)
            st->subs[st->nsubs++] = s;
        else
            free(s.to_mine);
        free(buf);
    }
    st->nnodes = st->t.n;
    if (up < 0)
        return;
    cp_wbuf b = {0};
    cp_ptree_pack(&b, &st->t, !st->ok);
    if (b.failed) { /* a failed tree is 12 bytes */
        cp_wbuf_free(&b);
        b = (cp_wbuf){0};
        cp_ptree_pack(&b, &st->t, true);
        st->ok = false;
    }
    static const char failed_tree[12] = {1};
    io->send(io->ctx, rank - ((int64_t)1 << up), b.failed ? failed_tree : b.p,
             b.failed ? sizeof failed_tree : b.len);
    cp_wbuf_free(&b);
}

/* The ids of a child's nodes, or a list that says there are none. */
static void send_ids(const cp_paths_rank *st, const cp_psub *s, const cp_tree_io *io)
{
    bool failed = !st->ids || !s->to_mine;
    cp_wbuf b = {0};
    cp_put_u32(&b, failed);
    cp_put_u64(&b, failed ? 0 : s->n);
    for (uint64_t i = 0; !failed && i < s->n; i++)
        cp_put_i64(&b, st->ids[s->to_mine[i]]);
    static const unsigned char failed_msg[12] = {1};
    io->send(io->ctx, s->rank, b.failed ? (const void *)failed_msg : b.p,
             b.failed ? sizeof failed_msg : b.len);
    cp_wbuf_free(&b);
}

bool cp_paths_down(cp_paths_rank *st, int64_t rank, int64_t n, const cp_tree_io *io,
                   cp_manifest *m)
{
    int up = cp_tree_send_round(rank);
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
    (void)n;
    /* Each child the ids of the nodes it sent, the last round's first. */
    for (size_t i = st->nsubs; i-- > 0;)
        send_ids(st, &st->subs[i], io);
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
