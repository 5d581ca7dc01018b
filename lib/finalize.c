/*
 * Finalize: before PMPI_Finalize, every rank sends its tables to the lead
 * rank of each of its communicators over a duplicate of MPI_COMM_WORLD
 * (sub-communicators may be freed by then); leads merge and write the count
 * files; world rank 0 numbers the communicators and writes the manifest.
 *
 * Ranks stay in step on error: every collective below is made by every
 * rank whatever happened before it, failures are agreed on by an allreduce,
 * one rank reports, and files are renamed into place only on success.
 * Data sent to a lead grows with distinct vectors and non-repeating
 * changes, not with the number of calls.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_registry.h"
#include "compact.h"
#include "counts_merge.h"
#include "counts_pack.h"
#include "log.h"
#include "manifest.h"
#include "outdir.h"
#include "pack.h"
#include "run_manifest.h"
#include "runtime.h"

#define TAG_COUNTS 0x6370 /* on our own duplicate of MPI_COMM_WORLD */

typedef struct fin {
    MPI_Comm w;
    int rank, size;
    char dir[4096];
    bool failed;      /* this rank hit an error (message in err) */
    cp_error err;
    cp_comm **led;    /* communicators with calls that this rank leads */
    size_t nled;
    int64_t *led_ids; /* their job-wide ids */
    cp_manifest man;  /* rank 0 */
    char part[2][4200];  /* this lead's files, before renaming */
    size_t nblocks[2];
    char final[2][4200];
} fin;

static void fail(fin *f, const char *fmt, const char *detail)
{
    if (!f->failed) {
        f->failed = true;
        cp_error_set(&f->err, fmt, detail);
    }
}

static bool has_calls(const cp_comm *c)
{
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (c->counts[k].ncalls > 0)
            return true;
    return false;
}

/* ------------------------------------------------ 1. output directory */

static int agree_directory(fin *f)
{
    int len = -1;
    if (f->rank == 0) {
        cp_error err;
        if (cp_outdir_create(&cp_rt.cfg, cp_rt.job, cp_rt.start_stamp, true, f->dir,
                             sizeof f->dir, &err) == 0)
            len = (int)strlen(f->dir);
        else
            cp_log("%s; no profile written", err.msg);
    }
    PMPI_Bcast(&len, 1, MPI_INT, 0, f->w);
    if (len < 0)
        return -1;
    PMPI_Bcast(f->dir, len + 1, MPI_CHAR, 0, f->w);
    return 0;
}

/* ------------------------------------------- 2. communicator numbering */

typedef struct desc {
    uint64_t hash;
    uint32_t ordinal, reg_index;
    int64_t size, lead;
    int from;    /* world rank that described it */
    size_t pos;  /* its position in that rank's list */
    cp_ranges members, remote;
} desc;

static int desc_order(const void *a, const void *b)
{
    const desc *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1; /* the largest (world) first */
    if (x->lead != y->lead)
        return x->lead < y->lead ? -1 : 1;
    return (x->reg_index > y->reg_index) - (x->reg_index < y->reg_index);
}

static void put_ranges(cp_wbuf *b, const cp_ranges *r)
{
    cp_put_u64(b, r->n);
    for (size_t i = 0; i < r->n; i++) {
        cp_put_i64(b, r->v[i].lo);
        cp_put_i64(b, r->v[i].hi);
    }
}

static void get_ranges(cp_rbuf *b, cp_ranges *r)
{
    uint64_t n = cp_get_u64(b);
    for (uint64_t j = 0; j < n && !b->bad; j++) {
        int64_t lo = cp_get_i64(b), hi = cp_get_i64(b);
        for (int64_t v = lo; v <= hi && !b->bad; v++)
            if (cp_ranges_push(r, v))
                b->bad = true;
    }
}

static int number_communicators(fin *f)
{
    cp_wbuf b = {0};
    for (size_t i = 0; i < f->nled; i++) {
        const cp_comm *c = f->led[i];
        cp_put_u64(&b, c->key_hash);
        cp_put_u32(&b, c->key_ordinal);
        cp_put_u32(&b, c->reg_index);
        cp_put_i64(&b, c->size);
        put_ranges(&b, &c->members);
        put_ranges(&b, &c->remote);
    }
    if (b.failed)
        fail(f, "%s", "out of memory while describing communicators");
    int mylen = b.failed ? 0 : (int)b.len, nled = b.failed ? 0 : (int)f->nled;
    int *lens = NULL, *displs = NULL, *nleds = NULL, *idispls = NULL;
    char *all = NULL;
    int64_t *ids = NULL;
    desc *d = NULL;
    size_t nd = 0;
    if (f->rank == 0) {
        lens = calloc((size_t)f->size, sizeof *lens);
        displs = calloc((size_t)f->size, sizeof *displs);
        nleds = calloc((size_t)f->size, sizeof *nleds);
        idispls = calloc((size_t)f->size, sizeof *idispls);
    }
    PMPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, f->w);
    PMPI_Gather(&nled, 1, MPI_INT, nleds, 1, MPI_INT, 0, f->w);
    if (f->rank == 0) {
        size_t total = 0, totald = 0;
        for (int r = 0; r < f->size; r++) {
            displs[r] = (int)total;
            idispls[r] = (int)totald;
            total += (size_t)lens[r];
            totald += (size_t)nleds[r];
        }
        all = malloc(total ? total : 1);
        d = calloc(totald ? totald : 1, sizeof *d);
        ids = calloc(totald ? totald : 1, sizeof *ids);
        nd = totald;
    }
    PMPI_Gatherv(b.p, mylen, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, f->w);
    if (f->rank == 0) {
        size_t k = 0;
        for (int r = 0; r < f->size && all && d; r++) {
            cp_rbuf rb = {.p = all + displs[r], .len = (size_t)lens[r]};
            for (int i = 0; i < nleds[r]; i++, k++) {
                desc *x = &d[k];
                x->hash = cp_get_u64(&rb);
                x->ordinal = cp_get_u32(&rb);
                x->reg_index = cp_get_u32(&rb);
                x->size = cp_get_i64(&rb);
                x->lead = r;
                x->from = r;
                x->pos = (size_t)i;
                get_ranges(&rb, &x->members);
                get_ranges(&rb, &x->remote);
            }
        }
        qsort(d, nd, sizeof *d, desc_order);
        f->man.comms = calloc(nd ? nd : 1, sizeof *f->man.comms);
        for (size_t i = 0; i < nd && ids && f->man.comms; i++) {
            ids[idispls[d[i].from] + (int)d[i].pos] = (int64_t)i;
            cp_comm_info *ci = &f->man.comms[f->man.ncomms++];
            ci->id = (int64_t)i;
            ci->size = d[i].size;
            ci->lead = d[i].lead;
            ci->members = d[i].members; /* moved */
            ci->remote_members = d[i].remote;
            memset(&d[i].members, 0, sizeof d[i].members);
            memset(&d[i].remote, 0, sizeof d[i].remote);
        }
        if (!all || !d || !ids || !f->man.comms)
            fail(f, "%s", "out of memory while numbering communicators");
    }
    f->led_ids = calloc(f->nled ? f->nled : 1, sizeof *f->led_ids);
    PMPI_Scatterv(ids, nleds, idispls, MPI_INT64_T, f->led_ids, nled, MPI_INT64_T, 0, f->w);
    if (!f->led_ids)
        fail(f, "%s", "out of memory");
    for (size_t i = 0; i < nd; i++) {
        cp_ranges_free(&d[i].members);
        cp_ranges_free(&d[i].remote);
    }
    free(d);
    free(all);
    free(ids);
    free(lens);
    free(displs);
    free(nleds);
    free(idispls);
    cp_wbuf_free(&b);
    return 0;
}

/* -------------------------------------------- 3. tables to the leads */

typedef struct outbox {
    int lead;
    cp_wbuf b;
    uint32_t nrecords;
} outbox;

static outbox *box_for(outbox **boxes, size_t *n, int lead)
{
    for (size_t i = 0; i < *n; i++)
        if ((*boxes)[i].lead == lead)
            return &(*boxes)[i];
    outbox *nb = realloc(*boxes, (*n + 1) * sizeof *nb);
    if (!nb)
        return NULL;
    *boxes = nb;
    nb[*n] = (outbox){.lead = lead};
    return &nb[(*n)++];
}

/* Each record: communicator key, sender's rank in it, collective, tables. */
static int pack_records(fin *f, outbox **boxes, size_t *nboxes)
{
    for (cp_comm *c = cp_registry_first(); c; c = c->next) {
        if (!has_calls(c))
            continue;
        outbox *ob = box_for(boxes, nboxes, (int)c->lead);
        if (!ob)
            return -1;
        for (int k = 0; k < CP_NCOLLECTIVES; k++) {
            cp_counts *t = &c->counts[k];
            if (t->ncalls == 0)
                continue;
            if (cp_seq_finish(&t->seq))
                t->partial = true;
            cp_put_u64(&ob->b, c->key_hash);
            cp_put_u32(&ob->b, c->key_ordinal);
            cp_put_i64(&ob->b, c->rank);
            cp_put_u32(&ob->b, (uint32_t)k);
            cp_counts_pack(&ob->b, t);
            ob->nrecords++;
        }
    }
    (void)f;
    return 0;
}

/* Exchange: returns the received buffers (lead side). */
static int exchange(fin *f, char ***inbox, size_t **inlens, int *ninbox)
{
    outbox *boxes = NULL;
    size_t nboxes = 0;
    if (pack_records(f, &boxes, &nboxes))
        fail(f, "%s", "out of memory while packing counts");
    int *want = calloc((size_t)f->size, sizeof *want);
    if (!want)
        fail(f, "%s", "out of memory");
    for (size_t i = 0; i < nboxes && want; i++)
        if (!boxes[i].b.failed)
            want[boxes[i].lead] = 1;
    /* How many messages each lead will receive: one per sender. */
    int nrecv = 0;
    int *ones = want ? want : calloc((size_t)f->size, sizeof *ones);
    PMPI_Reduce_scatter_block(ones, &nrecv, 1, MPI_INT, MPI_SUM, f->w);
    MPI_Request *reqs = calloc(nboxes ? nboxes : 1, sizeof *reqs);
    size_t nreqs = 0;
    for (size_t i = 0; i < nboxes && reqs && want; i++) {
        if (boxes[i].b.failed)
            continue;
        cp_wbuf *b = &boxes[i].b;
        /* Prefix the record count. */
        cp_wbuf msg = {0};
        cp_put_u32(&msg, boxes[i].nrecords);
        cp_put(&msg, b->p, b->len);
        cp_wbuf_free(b);
        *b = msg;
        if (PMPI_Isend_c(b->p, (MPI_Count)b->len, MPI_BYTE, boxes[i].lead, TAG_COUNTS, f->w,
                         &reqs[nreqs]) == MPI_SUCCESS)
            nreqs++;
        if (cp_rt.cfg.verbose >= 2)
            cp_log("rank %d sends %zu bytes of counts (%u tables) to lead rank %d", f->rank,
                   b->len, boxes[i].nrecords, boxes[i].lead);
    }
    *inbox = calloc((size_t)nrecv + 1, sizeof **inbox);
    *inlens = calloc((size_t)nrecv + 1, sizeof **inlens);
    *ninbox = 0;
    for (int i = 0; i < nrecv; i++) {
        MPI_Status st;
        MPI_Count n = 0;
        PMPI_Probe(MPI_ANY_SOURCE, TAG_COUNTS, f->w, &st);
        PMPI_Get_count_c(&st, MPI_BYTE, &n);
        char *buf = malloc(n > 0 ? (size_t)n : 1);
        PMPI_Recv_c(buf ? buf : (char[1]){0}, buf ? n : 0, MPI_BYTE, st.MPI_SOURCE, TAG_COUNTS,
                    f->w, MPI_STATUS_IGNORE);
        if (!buf || !*inbox || !*inlens) {
            fail(f, "%s", "out of memory while receiving counts");
            free(buf);
            continue;
        }
        (*inbox)[*ninbox] = buf;
        (*inlens)[(*ninbox)++] = (size_t)n;
    }
    for (size_t i = 0; i < nreqs; i++)
        PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    for (size_t i = 0; i < nboxes; i++)
        cp_wbuf_free(&boxes[i].b);
    free(boxes);
    free(reqs);
    if (ones != want)
        free(ones);
    free(want);
    return 0;
}

/* ------------------------------------------------ 4. merge and write */

typedef struct led_data {
    /* views[k][r]: communicator rank r's tables of collective k */
    const cp_counts_view **views[CP_NCOLLECTIVES];
} led_data;

static int unpack_inbox(fin *f, led_data *ld, char **inbox, size_t *inlens, int ninbox,
                        cp_counts_unpacked ***store, size_t *nstore)
{
    for (int m = 0; m < ninbox; m++) {
        cp_rbuf rb = {.p = inbox[m], .len = inlens[m]};
        uint32_t nrec = cp_get_u32(&rb);
        for (uint32_t i = 0; i < nrec && !rb.bad; i++) {
            uint64_t hash = cp_get_u64(&rb);
            uint32_t ordinal = cp_get_u32(&rb);
            int64_t crank = cp_get_i64(&rb);
            uint32_t k = cp_get_u32(&rb);
            cp_counts_unpacked *u = malloc(sizeof *u);
            cp_counts_unpacked **ns = realloc(*store, (*nstore + 1) * sizeof *ns);
            if (!u || !ns) {
                free(u);
                fail(f, "%s", "out of memory while merging counts");
                return -1;
            }
            *store = ns;
            if (cp_counts_unpack(&rb, u)) {
                free(u);
                fail(f, "%s", "malformed counts received from another rank");
                return -1;
            }
            ns[(*nstore)++] = u;
            size_t j = 0;
            while (j < f->nled && !(f->led[j]->key_hash == hash && f->led[j]->key_ordinal == ordinal))
                j++;
            if (j == f->nled || k >= CP_NCOLLECTIVES || crank < 0 || crank >= f->led[j]->size) {
                cp_log("rank %d received counts of a communicator it does not lead; "
                       "they are left out", f->rank);
                continue;
            }
            if (!ld[j].views[k])
                ld[j].views[k] = calloc((size_t)f->led[j]->size, sizeof *ld[j].views[k]);
            if (!ld[j].views[k]) {
                fail(f, "%s", "out of memory while merging counts");
                return -1;
            }
            if (!ld[j].views[k][crank])
                ld[j].views[k][crank] = &u->view;
        }
        if (rb.bad) {
            fail(f, "%s", "malformed counts received from another rank");
            return -1;
        }
    }
    return 0;
}

static void write_counts(fin *f, cp_counts_file out[2])
{
    static const char *const names[2] = {"send-counters", "recv-counters"};
    for (int d = 0; d < 2 && !f->failed; d++) {
        snprintf(f->final[d], sizeof f->final[d], "%s/%s.rank%d.txt%s", f->dir, names[d], f->rank,
                 cp_rt.cfg.gzip ? ".gz" : "");
        snprintf(f->part[d], sizeof f->part[d], "%s.part", f->final[d]);
        out[d].version = CP_COUNTS_FORMAT_VERSION;
        out[d].direction = d;
        out[d].lead_rank = f->rank;
        f->nblocks[d] = out[d].nblocks;
        cp_error err;
        if (cp_compact_write_file(f->part[d], cp_rt.cfg.gzip, &out[d], &err))
            fail(f, "%s", err.msg);
    }
}

static int by_id(const void *a, const void *b, void *ids)
{
    (void)ids;
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

static void merge_and_write(fin *f, char **inbox, size_t *inlens, int ninbox)
{
    led_data *ld = calloc(f->nled ? f->nled : 1, sizeof *ld);
    cp_counts_unpacked **store = NULL;
    size_t nstore = 0;
    cp_counts_file out[2];
    memset(out, 0, sizeof out);
    if (!ld)
        fail(f, "%s", "out of memory while merging counts");
    else if (unpack_inbox(f, ld, inbox, inlens, ninbox, &store, &nstore) == 0 && f->nled > 0) {
        /* Blocks in order of communicator id, then collective. */
        int64_t (*order)[2] = calloc(f->nled, sizeof *order);
        for (size_t j = 0; order && j < f->nled; j++) {
            order[j][0] = f->led_ids[j];
            order[j][1] = (int64_t)j;
        }
        if (order)
            qsort_r(order, f->nled, sizeof *order, by_id, NULL);
        for (size_t o = 0; order && o < f->nled && !f->failed; o++) {
            size_t j = (size_t)order[o][1];
            const cp_comm *c = f->led[j];
            for (int k = 0; k < CP_NCOLLECTIVES && !f->failed; k++) {
                if (!ld[j].views[k])
                    continue;
                cp_block tmpl;
                memset(&tmpl, 0, sizeof tmpl);
                tmpl.comm_id = f->led_ids[j];
                tmpl.comm_size = c->size;
                tmpl.comm_world_ranks = c->members; /* borrowed: copied by the merge */
                snprintf(tmpl.collective, sizeof tmpl.collective, "%s", cp_collective_names[k]);
                cp_error err;
                if (cp_counts_merge(ld[j].views[k], c->size, &tmpl, out, &err))
                    fail(f, "%s", err.msg);
            }
        }
        if (!order)
            fail(f, "%s", "out of memory while merging counts");
        free(order);
    }
    if (f->nled > 0)
        write_counts(f, out);
    cp_counts_file_free(&out[0]);
    cp_counts_file_free(&out[1]);
    for (size_t i = 0; i < nstore; i++) {
        cp_counts_unpacked_free(store[i]);
        free(store[i]);
    }
    free(store);
    for (size_t j = 0; ld && j < f->nled; j++)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            free(ld[j].views[k]);
    free(ld);
}

/* --------------------------------------------- 5. agree, rename, report */

static void fill_manifest(fin *f, bool partial)
{
    cp_manifest *m = &f->man;
    if (cp_run_manifest(m, partial ? "memory ran out on some ranks: calls after that were not "
                                     "recorded"
                                   : NULL))
        return;
    /* Files: the manifest, then each lead's pair. */
    size_t cap = 1 + 2 * m->ncomms;
    m->files = calloc(cap, sizeof *m->files);
    if (!m->files)
        return;
    m->files[m->nfiles++] = strdup("manifest.json");
    for (size_t i = 0; i < m->ncomms; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= m->comms[j].lead == m->comms[i].lead;
        if (seen)
            continue;
        for (int d = 0; d < 2; d++) {
            char name[128];
            snprintf(name, sizeof name, "%s-counters.rank%" PRId64 ".txt%s",
                     d == 0 ? "send" : "recv", m->comms[i].lead, cp_rt.cfg.gzip ? ".gz" : "");
            m->files[m->nfiles++] = strdup(name);
        }
    }
}

static void conclude(fin *f, double t0)
{
    int partial = 0;
    for (cp_comm *c = cp_registry_first(); c; c = c->next)
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            partial |= c->counts[k].partial;
    /* Agree on: the lowest failing rank (it reports), how many failed, and
     * whether any rank's counts are partial. */
    int me = f->failed ? f->rank : f->size, lowest = f->size;
    int one = f->failed, nfailed = 0, any_partial = 0;
    PMPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, f->w);
    PMPI_Allreduce(&one, &nfailed, 1, MPI_INT, MPI_SUM, f->w);
    PMPI_Allreduce(&partial, &any_partial, 1, MPI_INT, MPI_MAX, f->w);
    bool ok = nfailed == 0;
    if (f->failed && f->rank == lowest)
        cp_log("%s (rank %d%s); no profile written", f->err.msg, f->rank,
               nfailed > 1 ? ", and other ranks failed too" : "");
    for (int d = 0; d < 2 && f->nled > 0; d++) {
        if (!f->part[d][0])
            continue;
        if (!ok)
            remove(f->part[d]);
        else if (rename(f->part[d], f->final[d]) != 0)
            cp_log("cannot rename %s into place", f->part[d]);
        else if (cp_rt.cfg.verbose >= 1)
            cp_log("rank %d wrote %s (%zu blocks, %zu communicators)", f->rank, f->final[d],
                   f->nblocks[d], f->nled);
    }
    if (!ok || f->rank != 0)
        return;
    fill_manifest(f, any_partial != 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", f->dir);
    cp_error err;
    if (cp_manifest_write_file(path, false, &f->man, &err)) {
        cp_log("%s", err.msg);
        return;
    }
    cp_log("wrote %zu files to %s in %.3f s", f->man.nfiles, f->dir, PMPI_Wtime() - t0);
}

void cp_runtime_finalize(void)
{
    int expected = CP_STATE_ON;
    if (!atomic_compare_exchange_strong(&cp_state, &expected, CP_STATE_DONE))
        return; /* first step: stop recording, our own calls are not profiled */
    double t0 = PMPI_Wtime();
    fin f;
    memset(&f, 0, sizeof f);
    f.rank = cp_rt.world_rank;
    f.size = cp_rt.world_size;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &f.w) != MPI_SUCCESS) {
        if (f.rank == 0)
            cp_log("cannot duplicate MPI_COMM_WORLD at finalize; no profile written");
        return;
    }
    PMPI_Comm_set_errhandler(f.w, MPI_ERRORS_RETURN);
    if (agree_directory(&f) == 0) {
        size_t n = 0;
        for (cp_comm *c = cp_registry_first(); c; c = c->next)
            n += has_calls(c) && c->lead == f.rank;
        f.led = calloc(n ? n : 1, sizeof *f.led);
        if (!f.led)
            fail(&f, "%s", "out of memory");
        for (cp_comm *c = cp_registry_first(); c && f.led; c = c->next)
            if (has_calls(c) && c->lead == f.rank)
                f.led[f.nled++] = c;
        number_communicators(&f);
        char **inbox = NULL;
        size_t *inlens = NULL;
        int ninbox = 0;
        exchange(&f, &inbox, &inlens, &ninbox);
        merge_and_write(&f, inbox, inlens, ninbox);
        for (int i = 0; i < ninbox; i++)
            free(inbox[i]);
        free(inbox);
        free(inlens);
        conclude(&f, t0);
        free(f.led);
        free(f.led_ids);
        cp_manifest_free(&f.man);
    }
    PMPI_Comm_free(&f.w);
}
