/*
 * Finalize, internal: messages from every rank to the lead ranks of its
 * communicators over the duplicate of MPI_COMM_WORLD.  Each sender puts
 * what it has for one destination in that destination's box; a
 * reduce-scatter tells each destination how many messages to expect, so
 * every message is received even after a failure and no rank is left
 * waiting.  Each box's first word is its number of records.
 */
#ifndef COLLPROF_FINALIZE_MAIL_H
#define COLLPROF_FINALIZE_MAIL_H

#include "finalize.h"
#include "pack.h"
#include "group_trees.h"
#include "tree_reduce.h"

typedef struct cp_box {
    int dest;
    cp_wbuf b;
    uint32_t nrecords;
} cp_box;

typedef struct cp_mail {
    cp_box *boxes;
    size_t n;
    bool failed; /* out of memory while packing */
} cp_mail;

/* The box for dest (created empty), or NULL when out of memory. */
cp_box *cp_mail_box(cp_mail *m, int dest);

/* Send every box, receive every message addressed to this rank and hand it
 * to deliver(ctx, source rank, records, reader positioned after the count).
 * Frees the boxes.  `what` names the data in messages ("counts"). */
void cp_mail_exchange(fin *f, cp_mail *m, int tag, const char *what,
                      void (*deliver)(fin *f, void *ctx, int source, uint32_t nrecords,
                                      cp_rbuf *rb),
                      void *ctx);

/* The world's ranks (f->w), messages of one tag, as a carrier for the
 * MPI-free stages (merge/tree_reduce.h, group_trees.h).  A send is
 * posted with a copy of its bytes and returns at once (so that ranks
 * sending to each other in one round never wait on each other; without
 * room for the copy it waits instead); cp_fin_world_finish waits for every
 * send and frees the copies.  `what` names the data in verbose logs. */
typedef struct cp_fin_world_io {
    fin *f;
    int tag;
    const char *what;
    MPI_Request *reqs; /* the posted sends and their copies */
    char **copies;
    size_t n, cap;
} cp_fin_world_io;
cp_tree_io cp_fin_world_carrier(cp_fin_world_io *w);
void cp_fin_world_finish(cp_fin_world_io *w);

/* The world rank of member m of a communicator whose members are the
 * cp_ranges at `members` (cp_groups.world_of, merge/group_trees.h). */
int64_t cp_fin_member_world(const void *members, int64_t m);

/* Says what went wrong at this rank in a stage over many groups' trees
 * (what: "counts", ...): a malformed message, one too large for the MPI
 * library.  Returns whether room ran out, which each stage says its own
 * way. */
bool cp_fin_groups_said(fin *f, const cp_groups_report *rep, const char *what);

/* A reduction of byte buffers up the world's binomial tree (transport.h) to
 * rank 0: each rank hands what each child sends to op->merge(value, bytes)
 * (false: that part is lost), then packs its own, merged, for its parent
 * (op->pack(value, b, failed): when failed, what still can go).  No rank receives
 * more than ceil(log2 P) messages, each as big as what pack makes.  Returns
 * false when a part was lost at or below this rank (ok false: this rank's
 * own). */
bool cp_fin_up_tree(fin *f, int tag, const cp_tree_op *op, void *value, bool ok);

#endif
