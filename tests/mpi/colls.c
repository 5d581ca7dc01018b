/* Every MPI collective with counts the test knows (see colls.h). */
#include "colls.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        cpt_die("out of memory");
    return p;
}

static int mod3(int64_t x)
{
    return (int)(((x % 3) + 3) % 3);
}

int64_t cptc_vcount(int r, int seed)
{
    return 1 + mod3((int64_t)r + seed);
}

int64_t cptc_pair_count(int a, int b, int seed)
{
    return 1 + mod3((int64_t)a + 2 * (int64_t)b + seed);
}

int64_t cptc_sym_count(int a, int b, int seed)
{
    return 1 + mod3((int64_t)a + b + seed);
}

int64_t cptc_w_size(int a, int b)
{
    return ((a + b) & 1) ? (int64_t)sizeof(double) : (int64_t)sizeof(int);
}

static MPI_Datatype w_type(int a, int b)
{
    return ((a + b) & 1) ? MPI_DOUBLE : MPI_INT;
}

int cptc_value(int src, int dst, int64_t i, int k)
{
    return (src + 2) * 100000 + (dst + 2) * 1000 + (int)(i % 1000) + 7 * k;
}

static bool large(int form)
{
    return cpt_large_ok(form == CPT_LARGE || form == CPT_NONBLOCKING_LARGE ||
                        form == CPT_PERSISTENT_LARGE);
}

static int finish(int rc, int form, MPI_Request *req)
{
    if (rc != MPI_SUCCESS || form == CPT_BLOCKING || form == CPT_LARGE)
        return rc;
    if (form == CPT_PERSISTENT || form == CPT_PERSISTENT_LARGE) {
        rc = MPI_Start(req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(req, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Request_free(req);
        return rc;
    }
    return MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* One collective in one of the six forms: fb(ARGS, comm), fi(ARGS, comm,
 * &req) + MPI_Wait, fp(ARGS, comm, MPI_INFO_NULL, &req) + MPI_Start +
 * MPI_Wait + MPI_Request_free. */
#define RUN3(rc, form, comm, fb, fi, fp, ...)                                                     \
    do {                                                                                           \
        MPI_Request req_ = MPI_REQUEST_NULL;                                                       \
        if ((form) == CPT_BLOCKING || (form) == CPT_LARGE)                                         \
            rc = fb(__VA_ARGS__, comm);                                                            \
        else if ((form) == CPT_NONBLOCKING || (form) == CPT_NONBLOCKING_LARGE)                     \
            rc = fi(__VA_ARGS__, comm, &req_);                                                     \
        else                                                                                       \
            rc = fp(__VA_ARGS__, comm, MPI_INFO_NULL, &req_);                                      \
        rc = finish(rc, form, &req_);                                                              \
    } while (0)

/* Collectives whose count arguments are scalars: the int and _c forms take
 * the same arguments. */
#define RUN(rc, form, comm, Name, name, ...)                                                      \
    do {                                                                                           \
        if (large(form))                                                                           \
            RUN3(rc, form, comm, MPI_##Name##_c, MPI_I##name##_c, MPI_##Name##_init_c,             \
                 __VA_ARGS__);                                                                     \
        else                                                                                       \
            RUN3(rc, form, comm, MPI_##Name, MPI_I##name, MPI_##Name##_init, __VA_ARGS__);         \
    } while (0)

static void check_rc(int rc, const cpt_comm *c, const char *coll, int form)
{
    if (rc != MPI_SUCCESS)
        cpt_die("%s (form %d) on %s failed", coll, form, c->label);
}

static int *ints(size_t n)
{
    return xcalloc(n + 1, sizeof(int));
}

static MPI_Count *counts_c(const int *v, int n)
{
    MPI_Count *o = xcalloc((size_t)n, sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = v[i];
    return o;
}

static MPI_Aint *aints(const int *v, int n)
{
    MPI_Aint *o = xcalloc((size_t)n, sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = v[i];
    return o;
}

static void expect(const cpt_comm *c, const char *coll, int call, int from, int got, int want)
{
    if (got != want)
        cpt_data_error(c, coll, call, from);
}

/* ------------------------------------------------------------- rooted */

int cptc_plan_gather(cpt_comm *c, int root, int64_t count, int64_t dt)
{
    int k = cpt_plan(c, "Gather", root);
    for (int r = 0; r < c->n; r++)
        cpt_plan_row1(c, "Gather", k, CP_SEND, r, dt, count);
    cpt_plan_row1(c, "Gather", k, CP_RECV, root, dt, count);
    return k;
}

void cptc_gather(cpt_comm *c, int form, int root, int count, bool in_place)
{
    int k = cptc_plan_gather(c, root, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc;
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)n * count);
    for (int i = 0; i < count; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    const void *sb = sbuf;
    int sc = count;
    MPI_Datatype st = MPI_INT;
    if (in_place && me == root) {
        memcpy(rbuf + (size_t)root * count, sbuf, (size_t)count * sizeof(int));
        sb = MPI_IN_PLACE, sc = 99, st = MPI_CHAR; /* ignored by MPI */
    }
    RUN(rc, form, c->comm, Gather, gather, sb, sc, st, rbuf, count, MPI_INT, root);
    check_rc(rc, c, "Gather", form);
    if (me == root)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < count; i++)
                expect(c, "Gather", k, p, rbuf[p * count + i], cptc_value(p, -1, i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_gatherv(cpt_comm *c, int root, int seed, int64_t dt)
{
    int k = cpt_plan(c, "Gatherv", root);
    int64_t v[CPT_MAXRANKS];
    for (int r = 0; r < c->n; r++) {
        v[r] = cptc_vcount(r, seed);
        cpt_plan_row1(c, "Gatherv", k, CP_SEND, r, dt, v[r]);
    }
    cpt_plan_row(c, "Gatherv", k, CP_RECV, root, dt, c->n, v);
    return k;
}

void cptc_gatherv(cpt_comm *c, int form, int root, int seed, bool in_place)
{
    int k = cptc_plan_gatherv(c, root, seed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, tot = 0;
    int rcnt[CPT_MAXRANKS], displs[CPT_MAXRANKS];
    for (int p = 0; p < n; p++) {
        rcnt[p] = (int)cptc_vcount(p, seed);
        displs[p] = tot;
        tot += rcnt[p] + 1; /* a gap: displacements matter */
    }
    int cnt = rcnt[me];
    int *sbuf = ints((size_t)cnt), *rbuf = ints((size_t)tot);
    for (int i = 0; i < cnt; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    const void *sb = sbuf;
    int sc = cnt;
    MPI_Datatype st = MPI_INT;
    if (in_place && me == root) {
        memcpy(rbuf + displs[root], sbuf, (size_t)cnt * sizeof(int));
        sb = MPI_IN_PLACE, sc = 99, st = MPI_CHAR;
    }
    if (large(form)) {
        MPI_Count *rcc = counts_c(rcnt, n);
        MPI_Aint *dc = aints(displs, n);
        RUN3(rc, form, c->comm, MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, sb, sc, st,
             rbuf, rcc, dc, MPI_INT, root);
        free(rcc), free(dc);
    } else {
        RUN3(rc, form, c->comm, MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, sb, sc, st, rbuf,
             rcnt, displs, MPI_INT, root);
    }
    check_rc(rc, c, "Gatherv", form);
    if (me == root)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < rcnt[p]; i++)
                expect(c, "Gatherv", k, p, rbuf[displs[p] + i], cptc_value(p, -1, i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_scatter(cpt_comm *c, int root, int64_t count, int64_t dt)
{
    int k = cpt_plan(c, "Scatter", root);
    cpt_plan_row1(c, "Scatter", k, CP_SEND, root, dt, count);
    for (int r = 0; r < c->n; r++)
        cpt_plan_row1(c, "Scatter", k, CP_RECV, r, dt, count);
    return k;
}

void cptc_scatter(cpt_comm *c, int form, int root, int count, bool in_place)
{
    int k = cptc_plan_scatter(c, root, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc;
    int *sbuf = ints((size_t)n * count), *rbuf = ints((size_t)count);
    if (me == root)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < count; i++)
                sbuf[p * count + i] = cptc_value(root, p, i, k);
    void *rb = rbuf;
    int rcount = count;
    MPI_Datatype rt = MPI_INT;
    if (in_place && me == root)
        rb = MPI_IN_PLACE, rcount = 99, rt = MPI_CHAR; /* ignored by MPI */
    RUN(rc, form, c->comm, Scatter, scatter, sbuf, count, MPI_INT, rb, rcount, rt, root);
    check_rc(rc, c, "Scatter", form);
    const int *got = rb == MPI_IN_PLACE ? sbuf + (size_t)root * count : rbuf;
    for (int i = 0; i < count; i++)
        expect(c, "Scatter", k, root, got[i], cptc_value(root, me, i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_scatterv(cpt_comm *c, int root, int seed, int64_t dt)
{
    int k = cpt_plan(c, "Scatterv", root);
    int64_t v[CPT_MAXRANKS];
    for (int r = 0; r < c->n; r++) {
        v[r] = cptc_vcount(r, seed);
        cpt_plan_row1(c, "Scatterv", k, CP_RECV, r, dt, v[r]);
    }
    cpt_plan_row(c, "Scatterv", k, CP_SEND, root, dt, c->n, v);
    return k;
}

void cptc_scatterv(cpt_comm *c, int form, int root, int seed, bool in_place)
{
    int k = cptc_plan_scatterv(c, root, seed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, tot = 0;
    int scnt[CPT_MAXRANKS], displs[CPT_MAXRANKS];
    for (int p = 0; p < n; p++) {
        scnt[p] = (int)cptc_vcount(p, seed);
        displs[p] = tot;
        tot += scnt[p] + 1;
    }
    int cnt = scnt[me];
    int *sbuf = ints((size_t)tot), *rbuf = ints((size_t)cnt);
    if (me == root)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < scnt[p]; i++)
                sbuf[displs[p] + i] = cptc_value(root, p, i, k);
    void *rb = rbuf;
    int rcount = cnt;
    MPI_Datatype rt = MPI_INT;
    if (in_place && me == root)
        rb = MPI_IN_PLACE, rcount = 99, rt = MPI_CHAR;
    if (large(form)) {
        MPI_Count *scc = counts_c(scnt, n);
        MPI_Aint *dc = aints(displs, n);
        RUN3(rc, form, c->comm, MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, sbuf, scc,
             dc, MPI_INT, rb, rcount, rt, root);
        free(scc), free(dc);
    } else {
        RUN3(rc, form, c->comm, MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, sbuf, scnt,
             displs, MPI_INT, rb, rcount, rt, root);
    }
    check_rc(rc, c, "Scatterv", form);
    const int *got = rb == MPI_IN_PLACE ? sbuf + displs[root] : rbuf;
    for (int i = 0; i < cnt; i++)
        expect(c, "Scatterv", k, root, got[i], cptc_value(root, me, i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_bcast(cpt_comm *c, int root, int64_t count, int64_t dt)
{
    int k = cpt_plan(c, "Bcast", root);
    for (int r = 0; r < c->n; r++)
        cpt_plan_row1(c, "Bcast", k, r == root ? CP_SEND : CP_RECV, r, dt, count);
    return k;
}

void cptc_bcast(cpt_comm *c, int form, int root, int count)
{
    int k = cptc_plan_bcast(c, root, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc;
    int *buf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        buf[i] = me == root ? cptc_value(root, -1, i, k) : -1;
    RUN(rc, form, c->comm, Bcast, bcast, buf, count, MPI_INT, root);
    check_rc(rc, c, "Bcast", form);
    for (int i = 0; i < count; i++)
        expect(c, "Bcast", k, root, buf[i], cptc_value(root, -1, i, k));
    free(buf);
}

int cptc_plan_reduce(cpt_comm *c, int root, int64_t count, int64_t dt)
{
    int k = cpt_plan(c, "Reduce", root);
    for (int r = 0; r < c->n; r++)
        cpt_plan_row1(c, "Reduce", k, CP_SEND, r, dt, count);
    cpt_plan_row1(c, "Reduce", k, CP_RECV, root, dt, count);
    return k;
}

/* Input of reductions: element i of rank r; MPI_SUM over ranks lo..hi. */
static int red_in(int r, int64_t i, int k)
{
    return (r + 1) * 10 + (int)i + k;
}

static int red_sum(int lo, int hi, int64_t i, int k)
{
    int s = 0;
    for (int r = lo; r <= hi; r++)
        s += red_in(r, i, k);
    return s;
}

void cptc_reduce(cpt_comm *c, int form, int root, int count, bool in_place)
{
    int k = cptc_plan_reduce(c, root, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc;
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        sbuf[i] = red_in(me, i, k);
    const void *sb = sbuf;
    if (in_place && me == root) {
        memcpy(rbuf, sbuf, (size_t)count * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    RUN(rc, form, c->comm, Reduce, reduce, sb, rbuf, count, MPI_INT, MPI_SUM, root);
    check_rc(rc, c, "Reduce", form);
    if (me == root)
        for (int i = 0; i < count; i++)
            expect(c, "Reduce", k, -1, rbuf[i], red_sum(0, c->n - 1, i, k));
    free(sbuf), free(rbuf);
}

/* ------------------------------------------------ reductions, barrier */

int cptc_plan_allreduce(cpt_comm *c, const char *collective, int64_t count, int64_t dt)
{
    int k = cpt_plan(c, collective, -1);
    for (int r = 0; r < c->n; r++) {
        cpt_plan_row1(c, collective, k, CP_SEND, r, dt, count);
        cpt_plan_row1(c, collective, k, CP_RECV, r, dt, count);
    }
    return k;
}

void cptc_allreduce(cpt_comm *c, const char *collective, int form, int count, bool in_place)
{
    int k = cptc_plan_allreduce(c, collective, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc, lo = 0, hi = c->n - 1;
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        sbuf[i] = red_in(me, i, k);
    const void *sb = sbuf;
    if (in_place) {
        memcpy(rbuf, sbuf, (size_t)count * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    if (strcmp(collective, "Allreduce") == 0) {
        RUN(rc, form, c->comm, Allreduce, allreduce, sb, rbuf, count, MPI_INT, MPI_SUM);
    } else if (strcmp(collective, "Scan") == 0) {
        RUN(rc, form, c->comm, Scan, scan, sb, rbuf, count, MPI_INT, MPI_SUM);
        hi = me;
    } else if (strcmp(collective, "Exscan") == 0) {
        RUN(rc, form, c->comm, Exscan, exscan, sb, rbuf, count, MPI_INT, MPI_SUM);
        hi = me - 1; /* rank 0: undefined */
    } else {
        cpt_die("cptc_allreduce: %s?", collective);
    }
    check_rc(rc, c, collective, form);
    if (hi >= lo)
        for (int i = 0; i < count; i++)
            expect(c, collective, k, -1, rbuf[i], red_sum(lo, hi, i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_reduce_scatter(cpt_comm *c, int seed, int64_t dt)
{
    int k = cpt_plan(c, "Reduce_scatter", -1);
    int64_t v[CPT_MAXRANKS];
    for (int r = 0; r < c->n; r++)
        v[r] = cptc_vcount(r, seed);
    for (int r = 0; r < c->n; r++) {
        cpt_plan_row(c, "Reduce_scatter", k, CP_SEND, r, dt, c->n, v);
        cpt_plan_row1(c, "Reduce_scatter", k, CP_RECV, r, dt, v[r]);
    }
    return k;
}

void cptc_reduce_scatter(cpt_comm *c, int form, int seed, bool in_place)
{
    int k = cptc_plan_reduce_scatter(c, seed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, tot = 0, off = 0;
    int rcnt[CPT_MAXRANKS];
    for (int p = 0; p < n; p++) {
        rcnt[p] = (int)cptc_vcount(p, seed);
        if (p < me)
            off += rcnt[p];
        tot += rcnt[p];
    }
    int *sbuf = ints((size_t)tot), *rbuf = ints((size_t)tot);
    for (int i = 0; i < tot; i++)
        sbuf[i] = red_in(me, i, k);
    const void *sb = sbuf;
    if (in_place) {
        memcpy(rbuf, sbuf, (size_t)tot * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    if (large(form)) {
        MPI_Count *rcc = counts_c(rcnt, n);
        RUN3(rc, form, c->comm, MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c,
             MPI_Reduce_scatter_init_c, sb, rbuf, rcc, MPI_INT, MPI_SUM);
        free(rcc);
    } else {
        RUN3(rc, form, c->comm, MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init,
             sb, rbuf, rcnt, MPI_INT, MPI_SUM);
    }
    check_rc(rc, c, "Reduce_scatter", form);
    for (int i = 0; i < rcnt[me]; i++)
        expect(c, "Reduce_scatter", k, -1, rbuf[i], red_sum(0, n - 1, off + i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_reduce_scatter_block(cpt_comm *c, int64_t count, int64_t dt)
{
    return cptc_plan_allreduce(c, "Reduce_scatter_block", count, dt);
}

void cptc_reduce_scatter_block(cpt_comm *c, int form, int count, bool in_place)
{
    int k = cptc_plan_reduce_scatter_block(c, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, tot = n * count;
    int *sbuf = ints((size_t)tot), *rbuf = ints((size_t)tot);
    for (int i = 0; i < tot; i++)
        sbuf[i] = red_in(me, i, k);
    const void *sb = sbuf;
    if (in_place) {
        memcpy(rbuf, sbuf, (size_t)tot * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    RUN(rc, form, c->comm, Reduce_scatter_block, reduce_scatter_block, sb, rbuf, count, MPI_INT,
        MPI_SUM);
    check_rc(rc, c, "Reduce_scatter_block", form);
    for (int i = 0; i < count; i++)
        expect(c, "Reduce_scatter_block", k, -1, rbuf[i], red_sum(0, n - 1, me * count + i, k));
    free(sbuf), free(rbuf);
}

int cptc_plan_barrier(cpt_comm *c)
{
    int k = cpt_plan(c, "Barrier", -1);
    for (int r = 0; r < c->n; r++) {
        cpt_plan_row(c, "Barrier", k, CP_SEND, r, CPT_DT_ANY, 0, NULL);
        cpt_plan_row(c, "Barrier", k, CP_RECV, r, CPT_DT_ANY, 0, NULL);
    }
    return k;
}

void cptc_barrier(cpt_comm *c, int form)
{
    cptc_plan_barrier(c);
    if (c->comm == MPI_COMM_NULL)
        return;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    if (form == CPT_BLOCKING || form == CPT_LARGE)
        rc = MPI_Barrier(c->comm);
    else if (form == CPT_NONBLOCKING || form == CPT_NONBLOCKING_LARGE)
        rc = MPI_Ibarrier(c->comm, &req);
    else
        rc = MPI_Barrier_init(c->comm, MPI_INFO_NULL, &req);
    check_rc(finish(rc, form, &req), c, "Barrier", form);
}

/* --------------------------------------------- all-to-all, all-gather */

static MPI_Datatype int_pair(void)
{
    MPI_Datatype t;
    if (MPI_Type_contiguous(2, MPI_INT, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
        cpt_die("cannot build a pair datatype");
    return t;
}

int cptc_plan_allgather(cpt_comm *c, int64_t count, bool mixed, int64_t dt)
{
    int k = cpt_plan(c, "Allgather", -1);
    for (int r = 0; r < c->n; r++) {
        int div = mixed && r % 2 ? 2 : 1;
        cpt_plan_row1(c, "Allgather", k, CP_SEND, r, dt * div, count / div);
        cpt_plan_row1(c, "Allgather", k, CP_RECV, r, dt * div, count / div);
    }
    return k;
}

void cptc_allgather(cpt_comm *c, int form, int count, bool in_place, bool mixed)
{
    if (mixed && count % 2)
        cpt_die("cptc_allgather: mixed needs an even count");
    int k = cptc_plan_allgather(c, count, mixed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, div = mixed && me % 2 ? 2 : 1;
    MPI_Datatype t = div == 2 ? int_pair() : MPI_INT;
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)n * count);
    for (int i = 0; i < count; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    const void *sb = sbuf;
    int sc = count / div;
    MPI_Datatype st = t;
    if (in_place) {
        memcpy(rbuf + (size_t)me * count, sbuf, (size_t)count * sizeof(int));
        sb = MPI_IN_PLACE, sc = 99, st = MPI_CHAR;
    }
    RUN(rc, form, c->comm, Allgather, allgather, sb, sc, st, rbuf, count / div, t);
    check_rc(rc, c, "Allgather", form);
    if (div == 2)
        MPI_Type_free(&t);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++)
            expect(c, "Allgather", k, p, rbuf[p * count + i], cptc_value(p, -1, i, k));
    free(sbuf), free(rbuf);
}

static int plan_allgatherv_of(cpt_comm *c, const int64_t *v, int64_t dt)
{
    int k = cpt_plan(c, "Allgatherv", -1);
    for (int r = 0; r < c->n; r++) {
        cpt_plan_row1(c, "Allgatherv", k, CP_SEND, r, dt, v[r]);
        cpt_plan_row(c, "Allgatherv", k, CP_RECV, r, dt, c->n, v);
    }
    return k;
}

int cptc_plan_allgatherv(cpt_comm *c, int seed, int64_t dt)
{
    int64_t v[CPT_MAXRANKS];
    for (int r = 0; r < c->n; r++)
        v[r] = cptc_vcount(r, seed);
    return plan_allgatherv_of(c, v, dt);
}

void cptc_allgatherv(cpt_comm *c, int form, int seed, bool in_place)
{
    int v[CPT_MAXRANKS];
    for (int p = 0; p < c->n; p++)
        v[p] = (int)cptc_vcount(p, seed);
    cptc_allgatherv_of(c, form, v, in_place);
}

void cptc_allgatherv_of(cpt_comm *c, int form, const int *counts, bool in_place)
{
    int64_t v[CPT_MAXRANKS];
    for (int p = 0; p < c->n; p++)
        v[p] = counts[p];
    int k = plan_allgatherv_of(c, v, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc, tot = 0;
    int rcnt[CPT_MAXRANKS], displs[CPT_MAXRANKS];
    for (int p = 0; p < n; p++) {
        rcnt[p] = counts[p];
        displs[p] = tot;
        tot += rcnt[p] + 1;
    }
    int cnt = rcnt[me];
    int *sbuf = ints((size_t)cnt), *rbuf = ints((size_t)tot);
    for (int i = 0; i < cnt; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    const void *sb = sbuf;
    int sc = cnt;
    MPI_Datatype st = MPI_INT;
    if (in_place) {
        memcpy(rbuf + displs[me], sbuf, (size_t)cnt * sizeof(int));
        sb = MPI_IN_PLACE, sc = 99, st = MPI_CHAR;
    }
    if (large(form)) {
        MPI_Count *rcc = counts_c(rcnt, n);
        MPI_Aint *dc = aints(displs, n);
        RUN3(rc, form, c->comm, MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, sb,
             sc, st, rbuf, rcc, dc, MPI_INT);
        free(rcc), free(dc);
    } else {
        RUN3(rc, form, c->comm, MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, sb, sc, st,
             rbuf, rcnt, displs, MPI_INT);
    }
    check_rc(rc, c, "Allgatherv", form);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < rcnt[p]; i++)
            expect(c, "Allgatherv", k, p, rbuf[displs[p] + i], cptc_value(p, -1, i, k));
    free(sbuf), free(rbuf);
}

static int64_t w_count(int a, int b, int seed, bool sym)
{
    return sym ? cptc_sym_count(a, b, seed) : cptc_pair_count(a, b, seed);
}

int cptc_plan_alltoallw(cpt_comm *c, int seed, bool in_place)
{
    int k = cpt_plan(c, "Alltoallw", -1);
    for (int r = 0; r < c->n; r++) {
        int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
        for (int p = 0; p < c->n; p++) {
            s[p] = w_count(r, p, seed, in_place) * cptc_w_size(r, p);
            v[p] = w_count(p, r, seed, in_place) * cptc_w_size(p, r);
        }
        cpt_plan_row(c, "Alltoallw", k, CP_SEND, r, CPT_DT_BYTES, c->n, s);
        cpt_plan_row(c, "Alltoallw", k, CP_RECV, r, CPT_DT_BYTES, c->n, v);
    }
    return k;
}

/* Element i of a typed segment: an int or a double holding the value. */
static void put_typed(unsigned char *base, int64_t byte_off, MPI_Datatype t, int64_t i, int v)
{
    if (t == MPI_DOUBLE) {
        double d = v;
        memcpy(base + byte_off + i * (int64_t)sizeof d, &d, sizeof d);
    } else {
        memcpy(base + byte_off + i * (int64_t)sizeof v, &v, sizeof v);
    }
}

static int get_typed(const unsigned char *base, int64_t byte_off, MPI_Datatype t, int64_t i)
{
    if (t == MPI_DOUBLE) {
        double d;
        memcpy(&d, base + byte_off + i * (int64_t)sizeof d, sizeof d);
        return (int)d;
    }
    int v;
    memcpy(&v, base + byte_off + i * (int64_t)sizeof v, sizeof v);
    return v;
}

void cptc_alltoallw(cpt_comm *c, int form, int seed, bool in_place)
{
    int k = cptc_plan_alltoallw(c, seed, in_place);
    if (c->comm == MPI_COMM_NULL)
        return;
    int n = c->n, me = c->rank, rc;
    int sc[CPT_MAXRANKS], rcnt[CPT_MAXRANKS], sd[CPT_MAXRANKS], rd[CPT_MAXRANKS];
    int junk_c[CPT_MAXRANKS], junk_d[CPT_MAXRANKS];
    MPI_Datatype st[CPT_MAXRANKS], rt[CPT_MAXRANKS], junk_t[CPT_MAXRANKS];
    int ns = 0, nr = 0;
    for (int p = 0; p < n; p++) {
        sc[p] = (int)w_count(me, p, seed, in_place);
        rcnt[p] = (int)w_count(p, me, seed, in_place);
        st[p] = w_type(me, p);
        rt[p] = w_type(p, me);
        sd[p] = ns; /* bytes, multiples of 8 */
        rd[p] = nr;
        ns += 8 * (sc[p] + 1);
        nr += 8 * (rcnt[p] + 1);
        junk_c[p] = 7, junk_d[p] = 0, junk_t[p] = MPI_CHAR;
    }
    unsigned char *sbuf = xcalloc((size_t)ns + 8, 1), *rbuf = xcalloc((size_t)nr + 8, 1);
    unsigned char *fill = in_place ? rbuf : sbuf;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < sc[p]; i++)
            put_typed(fill, in_place ? rd[p] : sd[p], st[p], i, cptc_value(me, p, i, k));
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)sbuf;
    const int *scp = in_place ? junk_c : sc, *sdp = in_place ? junk_d : sd;
    const MPI_Datatype *stp = in_place ? junk_t : st;
    if (large(form)) {
        MPI_Count *scc = counts_c(scp, n), *rcc = counts_c(rcnt, n);
        MPI_Aint *sdc = aints(sdp, n), *rdc = aints(rd, n);
        RUN3(rc, form, c->comm, MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, sb, scc,
             sdc, stp, rbuf, rcc, rdc, rt);
        free(scc), free(rcc), free(sdc), free(rdc);
    } else {
        RUN3(rc, form, c->comm, MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, sb, scp, sdp,
             stp, rbuf, rcnt, rd, rt);
    }
    check_rc(rc, c, "Alltoallw", form);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < rcnt[p]; i++)
            expect(c, "Alltoallw", k, p, get_typed(rbuf, rd[p], rt[p], i),
                   cptc_value(p, me, i, k));
    free(sbuf), free(rbuf);
}

/* ------------------------------------------------------ neighbourhood */

static void need_topo(const cpt_comm *c)
{
    if (!c->topo)
        cpt_die("communicator %s: neighbours not declared", c->label);
}

int cptc_plan_neighbor_allgather(cpt_comm *c, int64_t count, int64_t dt)
{
    need_topo(c);
    return cptc_plan_allreduce(c, "Neighbor_allgather", count, dt);
}

int cptc_plan_neighbor_alltoall(cpt_comm *c, int64_t count, int64_t dt)
{
    need_topo(c);
    return cptc_plan_allreduce(c, "Neighbor_alltoall", count, dt);
}

int cptc_plan_neighbor_allgatherv(cpt_comm *c, int seed, int64_t dt)
{
    need_topo(c);
    int k = cpt_plan(c, "Neighbor_allgatherv", -1);
    for (int r = 0; r < c->n; r++) {
        int64_t v[CPT_MAXRANKS];
        for (int j = 0; j < c->indeg[r]; j++)
            v[j] = cptc_vcount(c->sources[r][j], seed);
        cpt_plan_row1(c, "Neighbor_allgatherv", k, CP_SEND, r, dt, cptc_vcount(r, seed));
        cpt_plan_row(c, "Neighbor_allgatherv", k, CP_RECV, r, dt, c->indeg[r], v);
    }
    return k;
}

static int plan_neighbor_v(cpt_comm *c, const char *coll, int seed, int64_t dt)
{
    need_topo(c);
    int k = cpt_plan(c, coll, -1);
    for (int r = 0; r < c->n; r++) {
        int64_t s[CPT_MAXRANKS], v[CPT_MAXRANKS];
        for (int j = 0; j < c->outdeg[r]; j++) {
            int d = c->dests[r][j];
            s[j] = cptc_pair_count(r, d, seed) * (dt == CPT_DT_BYTES ? cptc_w_size(r, d) : 1);
        }
        for (int j = 0; j < c->indeg[r]; j++) {
            int q = c->sources[r][j];
            v[j] = cptc_pair_count(q, r, seed) * (dt == CPT_DT_BYTES ? cptc_w_size(q, r) : 1);
        }
        cpt_plan_row(c, coll, k, CP_SEND, r, dt, c->outdeg[r], s);
        cpt_plan_row(c, coll, k, CP_RECV, r, dt, c->indeg[r], v);
    }
    return k;
}

int cptc_plan_neighbor_alltoallv(cpt_comm *c, int seed, int64_t dt)
{
    return plan_neighbor_v(c, "Neighbor_alltoallv", seed, dt);
}

int cptc_plan_neighbor_alltoallw(cpt_comm *c, int seed)
{
    return plan_neighbor_v(c, "Neighbor_alltoallw", seed, CPT_DT_BYTES);
}

void cptc_neighbor_allgather(cpt_comm *c, int form, int count)
{
    int k = cptc_plan_neighbor_allgather(c, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc, in = c->indeg[me];
    int *sbuf = ints((size_t)count), *rbuf = ints((size_t)in * count);
    for (int i = 0; i < count; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    RUN(rc, form, c->comm, Neighbor_allgather, neighbor_allgather, sbuf, count, MPI_INT, rbuf,
        count, MPI_INT);
    check_rc(rc, c, "Neighbor_allgather", form);
    for (int j = 0; j < in; j++)
        if (c->sources[me][j] >= 0)
            for (int i = 0; i < count; i++)
                expect(c, "Neighbor_allgather", k, c->sources[me][j], rbuf[j * count + i],
                       cptc_value(c->sources[me][j], -1, i, k));
    free(sbuf), free(rbuf);
}

void cptc_neighbor_allgatherv(cpt_comm *c, int form, int seed)
{
    int k = cptc_plan_neighbor_allgatherv(c, seed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc, in = c->indeg[me], tot = 0;
    int rcnt[CPT_MAXRANKS], displs[CPT_MAXRANKS];
    for (int j = 0; j < in; j++) {
        rcnt[j] = (int)cptc_vcount(c->sources[me][j], seed);
        displs[j] = tot;
        tot += rcnt[j] + 1;
    }
    int cnt = (int)cptc_vcount(me, seed);
    int *sbuf = ints((size_t)cnt), *rbuf = ints((size_t)tot);
    for (int i = 0; i < cnt; i++)
        sbuf[i] = cptc_value(me, -1, i, k);
    if (large(form)) {
        MPI_Count *rcc = counts_c(rcnt, in);
        MPI_Aint *dc = aints(displs, in);
        RUN3(rc, form, c->comm, MPI_Neighbor_allgatherv_c, MPI_Ineighbor_allgatherv_c,
             MPI_Neighbor_allgatherv_init_c, sbuf, cnt, MPI_INT, rbuf, rcc, dc, MPI_INT);
        free(rcc), free(dc);
    } else {
        RUN3(rc, form, c->comm, MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv,
             MPI_Neighbor_allgatherv_init, sbuf, cnt, MPI_INT, rbuf, rcnt, displs, MPI_INT);
    }
    check_rc(rc, c, "Neighbor_allgatherv", form);
    for (int j = 0; j < in; j++)
        if (c->sources[me][j] >= 0)
            for (int i = 0; i < rcnt[j]; i++)
                expect(c, "Neighbor_allgatherv", k, c->sources[me][j], rbuf[displs[j] + i],
                       cptc_value(c->sources[me][j], -1, i, k));
    free(sbuf), free(rbuf);
}

void cptc_neighbor_alltoall(cpt_comm *c, int form, int count)
{
    int k = cptc_plan_neighbor_alltoall(c, count, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc, in = c->indeg[me], out = c->outdeg[me];
    int *sbuf = ints((size_t)out * count), *rbuf = ints((size_t)in * count);
    for (int j = 0; j < out; j++)
        for (int i = 0; i < count; i++)
            sbuf[j * count + i] = cptc_value(me, c->dests[me][j], i, k);
    RUN(rc, form, c->comm, Neighbor_alltoall, neighbor_alltoall, sbuf, count, MPI_INT, rbuf,
        count, MPI_INT);
    check_rc(rc, c, "Neighbor_alltoall", form);
    for (int j = 0; j < in; j++)
        if (c->sources[me][j] >= 0)
            for (int i = 0; i < count; i++)
                expect(c, "Neighbor_alltoall", k, c->sources[me][j], rbuf[j * count + i],
                       cptc_value(c->sources[me][j], me, i, k));
    free(sbuf), free(rbuf);
}

/* Neighbor_alltoallv (typed false) and Neighbor_alltoallw (typed true). */
static void neighbor_v(cpt_comm *c, int form, int seed, bool typed)
{
    const char *coll = typed ? "Neighbor_alltoallw" : "Neighbor_alltoallv";
    int k = typed ? cptc_plan_neighbor_alltoallw(c, seed)
                  : cptc_plan_neighbor_alltoallv(c, seed, sizeof(int));
    if (c->comm == MPI_COMM_NULL)
        return;
    int me = c->rank, rc, in = c->indeg[me], out = c->outdeg[me], ns = 0, nr = 0;
    int sc[CPT_MAXRANKS], rcnt[CPT_MAXRANKS], sd[CPT_MAXRANKS], rd[CPT_MAXRANKS];
    MPI_Datatype st[CPT_MAXRANKS], rt[CPT_MAXRANKS];
    /* displacements: in elements (v), in bytes (w) */
    for (int j = 0; j < out; j++) {
        int d = c->dests[me][j];
        sc[j] = (int)cptc_pair_count(me, d, seed);
        st[j] = typed ? w_type(me, d) : MPI_INT;
        sd[j] = typed ? 8 * ns : ns;
        ns += sc[j] + 1;
    }
    for (int j = 0; j < in; j++) {
        int q = c->sources[me][j];
        rcnt[j] = (int)cptc_pair_count(q, me, seed);
        rt[j] = typed ? w_type(q, me) : MPI_INT;
        rd[j] = typed ? 8 * nr : nr;
        nr += rcnt[j] + 1;
    }
    unsigned char *sbuf = xcalloc((size_t)ns + 1, 8), *rbuf = xcalloc((size_t)nr + 1, 8);
    for (int j = 0; j < out; j++)
        for (int i = 0; i < sc[j]; i++)
            put_typed(sbuf, typed ? sd[j] : 4 * (int64_t)sd[j], st[j], i,
                      cptc_value(me, c->dests[me][j], i, k));
    if (typed) {
        MPI_Aint sda[CPT_MAXRANKS], rda[CPT_MAXRANKS];
        for (int j = 0; j < out; j++)
            sda[j] = sd[j];
        for (int j = 0; j < in; j++)
            rda[j] = rd[j];
        if (large(form)) {
            MPI_Count *scc = counts_c(sc, out), *rcc = counts_c(rcnt, in);
            RUN3(rc, form, c->comm, MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c,
                 MPI_Neighbor_alltoallw_init_c, sbuf, scc, sda, st, rbuf, rcc, rda, rt);
            free(scc), free(rcc);
        } else {
            RUN3(rc, form, c->comm, MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw,
                 MPI_Neighbor_alltoallw_init, sbuf, sc, sda, st, rbuf, rcnt, rda, rt);
        }
    } else if (large(form)) {
        MPI_Count *scc = counts_c(sc, out), *rcc = counts_c(rcnt, in);
        MPI_Aint *sdc = aints(sd, out), *rdc = aints(rd, in);
        RUN3(rc, form, c->comm, MPI_Neighbor_alltoallv_c, MPI_Ineighbor_alltoallv_c,
             MPI_Neighbor_alltoallv_init_c, sbuf, scc, sdc, MPI_INT, rbuf, rcc, rdc, MPI_INT);
        free(scc), free(rcc), free(sdc), free(rdc);
    } else {
        /* a rank without out- (in-) neighbours passes NULL count arrays */
        RUN3(rc, form, c->comm, MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv,
             MPI_Neighbor_alltoallv_init, sbuf, out ? sc : NULL, out ? sd : NULL, MPI_INT, rbuf,
             in ? rcnt : NULL, in ? rd : NULL, MPI_INT);
    }
    check_rc(rc, c, coll, form);
    for (int j = 0; j < in; j++)
        if (c->sources[me][j] >= 0)
            for (int i = 0; i < rcnt[j]; i++)
                expect(c, coll, k, c->sources[me][j],
                       get_typed(rbuf, typed ? rd[j] : 4 * (int64_t)rd[j], rt[j], i),
                       cptc_value(c->sources[me][j], me, i, k));
    free(sbuf), free(rbuf);
}

void cptc_neighbor_alltoallv(cpt_comm *c, int form, int seed)
{
    neighbor_v(c, form, seed, false);
}

void cptc_neighbor_alltoallw(cpt_comm *c, int form, int seed)
{
    neighbor_v(c, form, seed, true);
}
