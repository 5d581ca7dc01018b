/*
 * MPI_Alltoallv on an intercommunicator (3 or 4 ranks): world split into a
 * lower group {0 .. n/2-1} and an upper group {n/2 .. n-1}, joined by
 * MPI_Intercomm_create.  A count vector addresses the REMOTE group, so a row
 * has one count per remote rank.  Checked on rank 0 with the reader library:
 * every row of every call of both groups exact (each group is found by its
 * members), rows as long as the remote group, and cp_profile_check accepts
 * the output.  The same calls again on a duplicate of the intercommunicator
 * (collprof copies a duplicate's groups from its parent): its rows must be
 * as exact.
 *
 * Counts, for call k: lower rank r sends 1 + r + p + k elements to upper
 * rank p; upper rank r sends 10 + r + 2p + k to lower rank p.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define NCALLS 3

static int64_t sends(int upper, int r, int p, int k)
{
    return upper ? 10 + r + 2 * p + k : 1 + r + p + k;
}

/* The manifest communicators with exactly these members (world ranks from
 * lo to hi): their ids (up to 2) and how many there are. */
static int find_groups(const cp_profile *p, int lo, int hi, int64_t ids[2])
{
    int count = 0;
    for (size_t i = 0; i < p->manifest.ncomms; i++) {
        const cp_comm_info *ci = &p->manifest.comms[i];
        if (cp_ranges_count(&ci->members) != hi - lo + 1)
            continue;
        bool same = true;
        for (int j = 0; j <= hi - lo; j++)
            same &= cp_ranges_nth(&ci->members, j) == lo + j;
        if (same && count++ < 2)
            ids[count - 1] = ci->id;
    }
    return count;
}

/* The manifest's communicator `id`, or NULL. */
static const cp_comm_info *comm_of(const cp_profile *p, int64_t id)
{
    for (size_t i = 0; i < p->manifest.ncomms; i++)
        if (p->manifest.comms[i].id == id)
            return &p->manifest.comms[i];
    return NULL;
}

/* NCALLS calls of MPI_Alltoallv on intercommunicator `inter`, their data
 * checked. */
static void calls(MPI_Comm inter, int upper, int h)
{
    int lr, rs;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rs);
    int sc[CPT_MAXRANKS], sd[CPT_MAXRANKS], rc[CPT_MAXRANKS], rd[CPT_MAXRANKS];
    for (int k = 0; k < NCALLS; k++) {
        int ns = 0, nr = 0;
        for (int p = 0; p < rs; p++) {
            sc[p] = (int)sends(upper, lr, p, k);
            rc[p] = (int)sends(!upper, p, lr, k);
            sd[p] = ns;
            rd[p] = nr;
            ns += sc[p];
            nr += rc[p];
        }
        int *sbuf = calloc((size_t)ns + 1, sizeof *sbuf), *rbuf = calloc((size_t)nr + 1, sizeof *rbuf);
        for (int p = 0; p < rs; p++)
            for (int i = 0; i < sc[p]; i++)
                sbuf[sd[p] + i] = 1000 * cpt_world_rank() + p;
        MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, inter);
        for (int p = 0; p < rs; p++)
            for (int i = 0; i < rc[p]; i++)
                if (rbuf[rd[p] + i] != 1000 * (upper ? p : h + p) + lr)
                    cpt_die("wrong data received in call %d", k);
        free(sbuf);
        free(rbuf);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cpt_init("intercomm");
    int n = cpt_world_size(), me = cpt_world_rank(), h = n / 2;
    if (n < 2)
        cpt_die("at least 2 ranks");
    int upper = me >= h;
    int size[2] = {h, n - h};
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, upper, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, upper ? 0 : h, 7, &inter);
    int rs;
    MPI_Comm_remote_size(inter, &rs);
    if (rs != size[!upper])
        cpt_die("remote size %d, expected %d", rs, size[!upper]);
    calls(inter, upper, h);
    MPI_Comm copy;
    MPI_Comm_dup(inter, &copy);
    calls(copy, upper, h);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    if (me != 0)
        return 0;

    cp_profile p;
    if (cpt_load_output(&p) != 0)
        return 1;
    long problems = 0;
#define FAIL(...) (problems++, fprintf(stderr, "FAIL: intercomm: " __VA_ARGS__), fputc('\n', stderr))
    for (int g = 0; g < 2; g++) {
        int lo = g ? h : 0, hi = g ? n - 1 : h - 1;
        const char *gname = g ? "upper group" : "lower group";
        int64_t ids[2];
        int count = find_groups(&p, lo, hi, ids);
        if (count != 2) {
            FAIL("the manifest has %d communicators with world ranks %d-%d (the %s), expected 2 "
                 "(the intercommunicator and its duplicate)",
                 count, lo, hi, gname);
            continue;
        }
        for (int x = 0; x < 2; x++) {
            int64_t id = ids[x];
            const cp_comm_info *ci = comm_of(&p, id);
            if (!ci || cp_ranges_count(&ci->remote_members) != size[!g] ||
                cp_ranges_nth(&ci->remote_members, 0) != (g ? 0 : h))
                FAIL("%s (id %" PRId64 "): the remote group is not world ranks %d-%d", gname, id,
                     g ? 0 : h, g ? h - 1 : n - 1);
            for (int k = 0; k < NCALLS; k++)
                for (int dir = CP_SEND; dir <= CP_RECV; dir++) {
                    const char *dn = dir == CP_SEND ? "send" : "recv";
                    const cp_block *b = cp_profile_find(&p, id, "Alltoallv", dir, k);
                    if (!b) {
                        FAIL("%s (id %" PRId64 ") Alltoallv call %d %s: missing", gname, id, k, dn);
                        continue;
                    }
                    if ((int)b->row_len != size[!g] || b->nranks != size[g])
                        FAIL("%s (id %" PRId64 ") Alltoallv call %d %s: %" PRId64 " rows of %zu "
                             "counts, expected %d rows of %d (one count per remote rank)",
                             gname, id, k, dn, b->nranks, b->row_len, size[g], size[!g]);
                    for (int r = 0; r < size[g]; r++)
                        for (int q = 0; q < size[!g]; q++) {
                            int64_t e = dir == CP_SEND ? sends(g, r, q, k) : sends(!g, q, r, k);
                            int64_t got = cp_block_count(b, r, (size_t)q);
                            if (got != e)
                                FAIL("%s (id %" PRId64 ") Alltoallv call %d %s: rank %d, remote peer "
                                     "%d: expected %" PRId64 ", got %" PRId64,
                                     gname, id, k, dn, r, q, e, got);
                        }
                }
        }
    }
    long nchk = cp_profile_check(&p, stderr);
    if (nchk)
        FAIL("cp_profile_check reports %ld problems (lines above): it must accept the output "
             "of an intercommunicator", nchk);
    cp_profile_free(&p);
    if (problems) {
        fprintf(stderr, "FAIL: intercomm: %ld problems\n", problems);
        return 1;
    }
    printf("intercomm: PASS: both groups' rows of every call exact\n");
    return 0;
}
