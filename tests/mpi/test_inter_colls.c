/*
 * Collectives on an intercommunicator from MPI_Intercomm_create: world split
 * into group A = world ranks 0 .. h-1 and group B = h .. n-1, h = (n-1)/2,
 * groups of unequal sizes ({0} and {1,2} at 3 ranks, {0} and {1,2,3} at 4).  Each group is its own communicator in the output
 * (its own id, led by its rank 0, "remote_members" in the manifest), and its
 * rows address the remote group.
 *
 * Rooted collectives: the root passes MPI_ROOT and its group's blocks get
 * `Root: <the root's local rank>`; the other processes of its group pass
 * MPI_PROC_NULL and have no rows (they pass wrong counts, which collprof must
 * ignore); the remote group passes the root's rank in the root's group, which
 * is their blocks' Root too.
 *   Bcast:    the root's send row [count]; the other group's recv rows [count]
 *   Gather:   the other group's send rows [count]; the root's recv row [count]
 *   Gatherv:  ... the root's recv row: one count per remote rank
 *   Scatter(v): mirrors Gather(v)
 *   Reduce:   the other group's send rows [count]; the root's recv row [count]
 * Not rooted:
 *   Allgather, Alltoall: send [my sendcount], recv [my recvcount]
 *   Allreduce: send = recv = [count]
 *   Reduce_scatter: the receive side only: [recvcounts[me]]
 *   Reduce_scatter_block: group g passes recvcount rc_g = 2 x (the other
 *     group's size), so that both groups' vectors are nA x nB x 2 long:
 *     send [the block each remote rank gets = the remote recvcount], recv
 *     [rc_g] (from each remote rank)
 *   Alltoallv, Alltoallw (bytes), Allgatherv: rows of the remote group's
 *     length, counts that differ per rank and peer
 *   Barrier: rows of no counts on both sides
 *
 * Calls, in this order (root: group, local rank):
 *   Bcast A:0 count 3; Gather B:last count 2; Scatter A:0 count 1;
 *   Reduce B:0 count 2; Allgather (A sends 2, B sends 3); Alltoall (A 1,
 *   B 2); Bcast B:0 count 4; Gatherv A:last; Scatterv B:last; Allreduce 2;
 *   Reduce_scatter; Barrier; Reduce A:0 count 1 (non-blocking);
 *   Bcast B:0 count 2, twice through one MPI_Bcast_init request (created
 *   before the Allgather between its starts); Allgather (A 1, B 1); Gatherv
 *   B:0 as MPI_Igatherv_c.
 * (MPICH 4.0.2's non-blocking and persistent Bcast on an intercommunicator
 * deliver nothing when the root is not its group's rank 0 and the other
 * group has more than one rank, profiled or not: that root is rank 0.)
 * Checked on rank 0 with cpt_verify (every row of every call of both groups,
 * the manifest's groups, cp_profile_check pairs the groups); data checked on
 * the receiving ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "colls.h"

static cpt_comm *grp[2];          /* A, B */
static int mine;                  /* this rank's group */
static MPI_Comm inter;
static int lsize[2];              /* group sizes */

/* The root argument of this rank for a root at (group g, local rank lr). */
static int root_arg(int g, int lr)
{
    if (mine != g)
        return lr;
    return grp[g]->rank == lr ? MPI_ROOT : MPI_PROC_NULL;
}

static bool is_root(int g, int lr)
{
    return mine == g && grp[g]->rank == lr;
}

static void die_rc(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        cpt_die("%s on the intercommunicator failed", what);
}

static int *ints(size_t n)
{
    int *p = calloc(n + 1, sizeof *p);
    if (!p)
        cpt_die("out of memory");
    return p;
}

static void check(int call, const char *coll, int from, int got, int want)
{
    if (got != want)
        cpt_data_error(grp[mine], coll, call, from);
}

static void bcast(int g, int lr, int count)
{
    int o = !g;
    int k = cpt_plan(grp[g], "Bcast", lr);
    if (cpt_plan(grp[o], "Bcast", lr) != k)
        cpt_die("call numbering of the groups differs");
    cpt_plan_row1(grp[g], "Bcast", k, CP_SEND, lr, 4, count);
    for (int r = 0; r < lsize[o]; r++)
        cpt_plan_row1(grp[o], "Bcast", k, CP_RECV, r, 4, count);
    int *buf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        buf[i] = is_root(g, lr) ? cptc_value(lr, -1, i, k) : -1;
    die_rc(MPI_Bcast(buf, mine == g ? (is_root(g, lr) ? count : 99) : count, MPI_INT,
                     root_arg(g, lr), inter),
           "Bcast");
    if (mine == o)
        for (int i = 0; i < count; i++)
            check(k, "Bcast", lr, buf[i], cptc_value(lr, -1, i, k));
    free(buf);
}

/* Gather (v false) / Gatherv (v true) to the root (g, lr): the other group's
 * rank r sends count (Gather) or vcount(r, 7) (Gatherv). */
static void gather(bool v, int g, int lr, int count)
{
    const char *coll = v ? "Gatherv" : "Gather";
    int o = !g, no = lsize[o];
    int k = cpt_plan(grp[g], coll, lr);
    cpt_plan(grp[o], coll, lr);
    int64_t want[CPT_MAXRANKS];
    int cnt[CPT_MAXRANKS], displs[CPT_MAXRANKS], tot = 0;
    for (int r = 0; r < no; r++) {
        want[r] = v ? cptc_vcount(r, 7) : count;
        cnt[r] = (int)want[r];
        displs[r] = tot;
        tot += cnt[r] + 1;
        cpt_plan_row1(grp[o], coll, k, CP_SEND, r, 4, want[r]);
    }
    if (v)
        cpt_plan_row(grp[g], coll, k, CP_RECV, lr, 4, no, want);
    else
        cpt_plan_row1(grp[g], coll, k, CP_RECV, lr, 4, count);
    int *sbuf = ints(16), *rbuf = ints((size_t)tot);
    int rc;
    if (mine == o) {
        int me = grp[o]->rank;
        for (int i = 0; i < cnt[me]; i++)
            sbuf[i] = cptc_value(me, -1, i, k);
        rc = v ? MPI_Gatherv(sbuf, cnt[me], MPI_INT, rbuf, cnt, displs, MPI_INT, lr, inter)
               : MPI_Gather(sbuf, count, MPI_INT, rbuf, 99, MPI_INT, lr, inter);
    } else if (is_root(g, lr)) {
        rc = v ? MPI_Gatherv(sbuf, 99, MPI_CHAR, rbuf, cnt, displs, MPI_INT, MPI_ROOT, inter)
               : MPI_Gather(sbuf, 99, MPI_CHAR, rbuf, count, MPI_INT, MPI_ROOT, inter);
    } else {
        rc = v ? MPI_Gatherv(sbuf, 99, MPI_CHAR, rbuf, cnt, displs, MPI_INT, MPI_PROC_NULL, inter)
               : MPI_Gather(sbuf, 99, MPI_CHAR, rbuf, 99, MPI_INT, MPI_PROC_NULL, inter);
    }
    die_rc(rc, coll);
    if (is_root(g, lr))
        for (int r = 0; r < no; r++)
            for (int i = 0; i < cnt[r]; i++)
                check(k, coll, r, rbuf[v ? displs[r] + i : r * count + i], cptc_value(r, -1, i, k));
    free(sbuf), free(rbuf);
}

/* Scatter / Scatterv from the root (g, lr): the other group's rank r
 * receives count / vcount(r, 8). */
static void scatter(bool v, int g, int lr, int count)
{
    const char *coll = v ? "Scatterv" : "Scatter";
    int o = !g, no = lsize[o];
    int k = cpt_plan(grp[g], coll, lr);
    cpt_plan(grp[o], coll, lr);
    int64_t want[CPT_MAXRANKS];
    int cnt[CPT_MAXRANKS], displs[CPT_MAXRANKS], tot = 0;
    for (int r = 0; r < no; r++) {
        want[r] = v ? cptc_vcount(r, 8) : count;
        cnt[r] = (int)want[r];
        displs[r] = tot;
        tot += cnt[r] + 1;
        cpt_plan_row1(grp[o], coll, k, CP_RECV, r, 4, want[r]);
    }
    if (v)
        cpt_plan_row(grp[g], coll, k, CP_SEND, lr, 4, no, want);
    else
        cpt_plan_row1(grp[g], coll, k, CP_SEND, lr, 4, count);
    int *sbuf = ints((size_t)tot + (size_t)no * count), *rbuf = ints(16);
    int rc;
    if (is_root(g, lr)) {
        for (int r = 0; r < no; r++)
            for (int i = 0; i < cnt[r]; i++)
                sbuf[v ? displs[r] + i : r * count + i] = cptc_value(lr, r, i, k);
        rc = v ? MPI_Scatterv(sbuf, cnt, displs, MPI_INT, rbuf, 99, MPI_CHAR, MPI_ROOT, inter)
               : MPI_Scatter(sbuf, count, MPI_INT, rbuf, 99, MPI_CHAR, MPI_ROOT, inter);
    } else if (mine == o) {
        int me = grp[o]->rank;
        rc = v ? MPI_Scatterv(sbuf, cnt, displs, MPI_INT, rbuf, cnt[me], MPI_INT, lr, inter)
               : MPI_Scatter(sbuf, 99, MPI_INT, rbuf, count, MPI_INT, lr, inter);
        for (int i = 0; i < cnt[me]; i++)
            check(k, coll, lr, rbuf[i], cptc_value(lr, me, i, k));
    } else {
        rc = v ? MPI_Scatterv(sbuf, cnt, displs, MPI_INT, rbuf, 99, MPI_CHAR, MPI_PROC_NULL, inter)
               : MPI_Scatter(sbuf, 99, MPI_INT, rbuf, 99, MPI_CHAR, MPI_PROC_NULL, inter);
    }
    die_rc(rc, coll);
    free(sbuf), free(rbuf);
}

/* Reduce (MPI_SUM) to the root (g, lr); nonblocking: MPI_Ireduce. */
static void reduce(int g, int lr, int count, bool nonblocking)
{
    int o = !g, no = lsize[o];
    int k = cpt_plan(grp[g], "Reduce", lr);
    cpt_plan(grp[o], "Reduce", lr);
    for (int r = 0; r < no; r++)
        cpt_plan_row1(grp[o], "Reduce", k, CP_SEND, r, 4, count);
    cpt_plan_row1(grp[g], "Reduce", k, CP_RECV, lr, 4, count);
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)count);
    int root = root_arg(g, lr), cnt = count;
    if (mine == o)
        for (int i = 0; i < count; i++)
            sbuf[i] = 10 * (grp[o]->rank + 1) + i;
    if (root == MPI_PROC_NULL)
        cnt = 99; /* not significant: collprof must ignore it */
    int rc;
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Ireduce(sbuf, rbuf, cnt, MPI_INT, MPI_SUM, root, inter, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Reduce(sbuf, rbuf, cnt, MPI_INT, MPI_SUM, root, inter);
    }
    die_rc(rc, "Reduce");
    if (is_root(g, lr))
        for (int i = 0; i < count; i++)
            check(k, "Reduce", -1, rbuf[i], 10 * no * (no + 1) / 2 + no * i);
    free(sbuf), free(rbuf);
}

/* Allgather (alltoall false) / Alltoall: group A's ranks send ca (to each
 * remote rank), group B's cb. */
static void all(bool alltoall, int ca, int cb)
{
    const char *coll = alltoall ? "Alltoall" : "Allgather";
    int c[2] = {ca, cb};
    int k = cpt_plan(grp[0], coll, -1);
    cpt_plan(grp[1], coll, -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++) {
            cpt_plan_row1(grp[g], coll, k, CP_SEND, r, 4, c[g]);
            cpt_plan_row1(grp[g], coll, k, CP_RECV, r, 4, c[!g]);
        }
    int me = grp[mine]->rank, rs = lsize[!mine], sc = c[mine], rcnt = c[!mine];
    int nsend = alltoall ? sc * rs : sc;
    int *sbuf = ints((size_t)nsend), *rbuf = ints((size_t)rcnt * rs);
    for (int i = 0; i < nsend; i++)
        sbuf[i] = cptc_value(me, alltoall ? i / sc : -1, i % sc, k) + 5000000 * mine;
    int rc = alltoall ? MPI_Alltoall(sbuf, sc, MPI_INT, rbuf, rcnt, MPI_INT, inter)
                      : MPI_Allgather(sbuf, sc, MPI_INT, rbuf, rcnt, MPI_INT, inter);
    die_rc(rc, coll);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < rcnt; i++)
            check(k, coll, p, rbuf[p * rcnt + i],
                  cptc_value(p, alltoall ? me : -1, i, k) + 5000000 * !mine);
    free(sbuf), free(rbuf);
}

static void allreduce(int count)
{
    int k = cpt_plan(grp[0], "Allreduce", -1);
    cpt_plan(grp[1], "Allreduce", -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++) {
            cpt_plan_row1(grp[g], "Allreduce", k, CP_SEND, r, 4, count);
            cpt_plan_row1(grp[g], "Allreduce", k, CP_RECV, r, 4, count);
        }
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        sbuf[i] = 10 * (grp[mine]->rank + 1) + i;
    die_rc(MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, inter), "Allreduce");
    int no = lsize[!mine]; /* the result: the remote group's sum */
    for (int i = 0; i < count; i++)
        check(k, "Allreduce", -1, rbuf[i], 10 * no * (no + 1) / 2 + no * i);
    free(sbuf), free(rbuf);
}

/* Reduce_scatter: both groups' recvcounts sum to 6; only the receive side
 * is recorded. */
static int rs_count(int i, int size)
{
    return size == 1 ? 6 : i == 0 ? 2 : 4 / (size - 1) + (i == 1 ? 4 % (size - 1) : 0);
}

static void reduce_scatter(void)
{
    int k = cpt_plan(grp[0], "Reduce_scatter", -1);
    cpt_plan(grp[1], "Reduce_scatter", -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++)
            cpt_plan_row1(grp[g], "Reduce_scatter", k, CP_RECV, r, 4, rs_count(r, lsize[g]));
    int ls = lsize[mine], rcnt[CPT_MAXRANKS], tot = 0;
    for (int i = 0; i < ls; i++)
        tot += rcnt[i] = rs_count(i, ls);
    if (tot != 6)
        cpt_die("reduce_scatter counts");
    int *sbuf = ints(6), *rbuf = ints(6);
    for (int i = 0; i < 6; i++)
        sbuf[i] = 1;
    die_rc(MPI_Reduce_scatter(sbuf, rbuf, rcnt, MPI_INT, MPI_SUM, inter), "Reduce_scatter");
    for (int i = 0; i < rcnt[grp[mine]->rank]; i++)
        check(k, "Reduce_scatter", -1, rbuf[i], lsize[!mine]);
    free(sbuf), free(rbuf);
}

/* Reduce_scatter_block, blocking or not (MPI_SUM of ones): each remote rank's
 * block is the sum over the sending group. */
static void reduce_scatter_block(bool nonblocking)
{
    int rc_[2] = {2 * lsize[1], 2 * lsize[0]};
    int k = cpt_plan(grp[0], "Reduce_scatter_block", -1);
    cpt_plan(grp[1], "Reduce_scatter_block", -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++) {
            cpt_plan_row1(grp[g], "Reduce_scatter_block", k, CP_SEND, r, 4, rc_[!g]);
            cpt_plan_row1(grp[g], "Reduce_scatter_block", k, CP_RECV, r, 4, rc_[g]);
        }
    int len = lsize[mine] * rc_[mine], rc = rc_[mine];
    int *sbuf = ints((size_t)len), *rbuf = ints((size_t)rc);
    for (int i = 0; i < len; i++)
        sbuf[i] = 1;
    int err;
    if (nonblocking) {
        MPI_Request req;
        err = MPI_Ireduce_scatter_block(sbuf, rbuf, rc, MPI_INT, MPI_SUM, inter, &req);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        err = MPI_Reduce_scatter_block(sbuf, rbuf, rc, MPI_INT, MPI_SUM, inter);
    }
    die_rc(err, "Reduce_scatter_block");
    for (int i = 0; i < rc; i++)
        check(k, "Reduce_scatter_block", -1, rbuf[i], lsize[!mine]);
    free(sbuf), free(rbuf);
}

/* What rank r of group g sends to remote rank p (Alltoallv, Alltoallw). */
static int vcnt(int g, int r, int p)
{
    return 1 + (r + 2 * p + g) % 3;
}

/* Alltoallv (w false) or Alltoallw (w true, rows in bytes). */
static void alltoallv(bool w)
{
    const char *coll = w ? "Alltoallw" : "Alltoallv";
    int k = cpt_plan(grp[0], coll, -1);
    cpt_plan(grp[1], coll, -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++) {
            int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
            for (int p = 0; p < lsize[!g]; p++) {
                s[p] = vcnt(g, r, p) * (w ? 4 : 1);
                v[p] = vcnt(!g, p, r) * (w ? 4 : 1);
            }
            cpt_plan_row(grp[g], coll, k, CP_SEND, r, w ? CPT_DT_BYTES : 4, lsize[!g], s);
            cpt_plan_row(grp[g], coll, k, CP_RECV, r, w ? CPT_DT_BYTES : 4, lsize[!g], v);
        }
    int me = grp[mine]->rank, rs = lsize[!mine];
    int sc[CPT_MAXRANKS], sd[CPT_MAXRANKS], rcn[CPT_MAXRANKS], rd[CPT_MAXRANKS], st = 0, rt = 0;
    MPI_Datatype types[CPT_MAXRANKS];
    for (int p = 0; p < rs; p++) {
        sc[p] = vcnt(mine, me, p), rcn[p] = vcnt(!mine, p, me);
        sd[p] = st, rd[p] = rt;
        st += sc[p], rt += rcn[p];
        types[p] = MPI_INT;
    }
    int *sbuf = ints((size_t)st), *rbuf = ints((size_t)rt);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < sc[p]; i++)
            sbuf[sd[p] + i] = cptc_value(me, p, i, k) + 5000000 * mine;
    int rc;
    if (w) {
        int sdb[CPT_MAXRANKS], rdb[CPT_MAXRANKS];
        for (int p = 0; p < rs; p++)
            sdb[p] = 4 * sd[p], rdb[p] = 4 * rd[p];
        rc = MPI_Alltoallw(sbuf, sc, sdb, types, rbuf, rcn, rdb, types, inter);
    } else {
        rc = MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rcn, rd, MPI_INT, inter);
    }
    die_rc(rc, coll);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < rcn[p]; i++)
            check(k, coll, p, rbuf[rd[p] + i], cptc_value(p, me, i, k) + 5000000 * !mine);
    free(sbuf), free(rbuf);
}

/* Allgatherv: rank r of group g sends 1 + (r + g) % 2 to every remote rank. */
static void allgatherv(void)
{
    int k = cpt_plan(grp[0], "Allgatherv", -1);
    cpt_plan(grp[1], "Allgatherv", -1);
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < lsize[g]; r++) {
            int64_t v[CPT_MAXRANKS];
            for (int p = 0; p < lsize[!g]; p++)
                v[p] = 1 + (p + !g) % 2;
            cpt_plan_row1(grp[g], "Allgatherv", k, CP_SEND, r, 4, 1 + (r + g) % 2);
            cpt_plan_row(grp[g], "Allgatherv", k, CP_RECV, r, 4, lsize[!g], v);
        }
    int me = grp[mine]->rank, rs = lsize[!mine], sc = 1 + (me + mine) % 2;
    int rcn[CPT_MAXRANKS], rd[CPT_MAXRANKS], rt = 0;
    for (int p = 0; p < rs; p++) {
        rcn[p] = 1 + (p + !mine) % 2;
        rd[p] = rt;
        rt += rcn[p];
    }
    int *sbuf = ints(2), *rbuf = ints((size_t)rt);
    for (int i = 0; i < sc; i++)
        sbuf[i] = cptc_value(me, -1, i, k) + 5000000 * mine;
    die_rc(MPI_Allgatherv(sbuf, sc, MPI_INT, rbuf, rcn, rd, MPI_INT, inter), "Allgatherv");
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < rcn[p]; i++)
            check(k, "Allgatherv", p, rbuf[rd[p] + i], cptc_value(p, -1, i, k) + 5000000 * !mine);
    free(sbuf), free(rbuf);
}

static void barrier(void)
{
    for (int g = 0; g < 2; g++) {
        int k = cpt_plan(grp[g], "Barrier", -1);
        for (int r = 0; r < lsize[g]; r++) {
            cpt_plan_row(grp[g], "Barrier", k, CP_SEND, r, CPT_DT_ANY, 0, NULL);
            cpt_plan_row(grp[g], "Barrier", k, CP_RECV, r, CPT_DT_ANY, 0, NULL);
        }
    }
    die_rc(MPI_Barrier(inter), "Barrier");
}

/* A persistent Bcast from (g, lr), created now, started by bcast_start. */
static int pb_buf[8], pb_count;
static MPI_Request pb_req;
static int pb_g, pb_lr;

static void bcast_init(int g, int lr, int count)
{
    pb_g = g, pb_lr = lr, pb_count = count;
    int cnt = mine == g && !is_root(g, lr) ? 99 : count;
    die_rc(MPI_Bcast_init(pb_buf, cnt, MPI_INT, root_arg(g, lr), inter, MPI_INFO_NULL, &pb_req),
           "MPI_Bcast_init");
}

static void bcast_start(void)
{
    int g = pb_g, o = !g, lr = pb_lr, count = pb_count;
    int k = cpt_plan(grp[g], "Bcast", lr);
    cpt_plan(grp[o], "Bcast", lr);
    cpt_plan_row1(grp[g], "Bcast", k, CP_SEND, lr, 4, count);
    for (int r = 0; r < lsize[o]; r++)
        cpt_plan_row1(grp[o], "Bcast", k, CP_RECV, r, 4, count);
    for (int i = 0; i < count; i++)
        pb_buf[i] = is_root(g, lr) ? cptc_value(lr, -1, i, k) : -1;
    die_rc(MPI_Start(&pb_req), "MPI_Start");
    die_rc(MPI_Wait(&pb_req, MPI_STATUS_IGNORE), "MPI_Wait");
    if (mine == o)
        for (int i = 0; i < count; i++)
            check(k, "Bcast", lr, pb_buf[i], cptc_value(lr, -1, i, k));
}

/* The large-count form, or the int form where the MPI library has none
 * (MPI 3.x): collprof records both the same. */
#if CP_HAVE_LARGE
typedef MPI_Count big_count;
typedef MPI_Aint big_displ;
#define IGATHERV_C MPI_Igatherv_c
#else
typedef int big_count;
typedef int big_displ;
#define IGATHERV_C MPI_Igatherv
#endif

/* MPI_Igatherv_c to the root (g, lr): the other group's rank r sends
 * vcount(r, 9). */
static void igatherv_c(int g, int lr)
{
    int o = !g, no = lsize[o];
    int k = cpt_plan(grp[g], "Gatherv", lr);
    cpt_plan(grp[o], "Gatherv", lr);
    int64_t want[CPT_MAXRANKS];
    big_count cnt[CPT_MAXRANKS];
    big_displ displs[CPT_MAXRANKS];
    big_displ tot = 0;
    for (int r = 0; r < no; r++) {
        want[r] = cptc_vcount(r, 9);
        cnt[r] = want[r];
        displs[r] = tot;
        tot += cnt[r];
        cpt_plan_row1(grp[o], "Gatherv", k, CP_SEND, r, 4, want[r]);
    }
    cpt_plan_row(grp[g], "Gatherv", k, CP_RECV, lr, 4, no, want);
    int *sbuf = ints(16), *rbuf = ints((size_t)tot);
    big_count sc = 99; /* ignored in the root's group */
    MPI_Datatype st = MPI_CHAR;
    if (mine == o) {
        int me = grp[o]->rank;
        sc = cnt[me], st = MPI_INT;
        for (int i = 0; i < sc; i++)
            sbuf[i] = cptc_value(me, -1, i, k);
    }
    MPI_Request req;
    int rc = IGATHERV_C(sbuf, sc, st, rbuf, cnt, displs, MPI_INT, root_arg(g, lr), inter, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    die_rc(rc, "MPI_Igatherv_c");
    if (is_root(g, lr))
        for (int r = 0; r < no; r++)
            for (int i = 0; i < cnt[r]; i++)
                check(k, "Gatherv", r, rbuf[displs[r] + i], cptc_value(r, -1, i, k));
    free(sbuf), free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("inter_colls");
    int n = cpt_world_size(), me = cpt_world_rank(), h = (n - 1) / 2;
    if (n < 3)
        cpt_die("at least 3 ranks");
    int members[2][CPT_MAXRANKS];
    lsize[0] = h, lsize[1] = n - h;
    for (int i = 0; i < n; i++)
        members[i >= h][i >= h ? i - h : i] = i;
    mine = me >= h;
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, mine, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mine ? 0 : h, 11, &inter);
    for (int g = 0; g < 2; g++)
        grp[g] = cpt_comm_declare_inter(g ? "group B" : "group A", lsize[g], members[g],
                                        mine == g ? inter : MPI_COMM_NULL, lsize[!g],
                                        members[!g]);

    bcast(0, 0, 3);
    gather(false, 1, lsize[1] - 1, 2);
    scatter(false, 0, 0, 1);
    reduce(1, 0, 2, false);
    all(false, 2, 3);
    all(true, 1, 2);
    bcast(1, 0, 4);
    gather(true, 0, lsize[0] - 1, 0);
    scatter(true, 1, lsize[1] - 1, 0);
    allreduce(2);
    reduce_scatter();
    reduce_scatter_block(false);
    alltoallv(false);
    alltoallv(true);
    allgatherv();
    reduce_scatter_block(true);
    barrier();
    reduce(0, 0, 1, true);
    bcast_init(1, 0, 2);
    bcast_start();
    all(false, 1, 1);
    bcast_start();
    MPI_Request_free(&pb_req);
    igatherv_c(1, 0);

    /* Some again on a duplicate (collprof copies its groups from the
     * parent's: the remote group, the kind, the roots must all hold). */
    MPI_Comm parent = inter;
    MPI_Comm_dup(parent, &inter);
    for (int g = 0; g < 2; g++)
        grp[g] = cpt_comm_declare_inter(g ? "dup of group B" : "dup of group A", lsize[g],
                                        members[g], mine == g ? inter : MPI_COMM_NULL, lsize[!g],
                                        members[!g]);
    bcast(0, 0, 3);
    gather(false, 1, lsize[1] - 1, 2);
    reduce_scatter_block(false);
    alltoallv(false);
    MPI_Comm_free(&inter);
    inter = parent;

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return cpt_verify();
}
