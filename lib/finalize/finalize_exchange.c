/*
 * A finalize stage: the tables of every (communicator, collective) go to
 * the communicator's lead up a binomial tree of its members
 * (merge/counts_stage.h over merge/group_trees.h, all
 * communicators together, round by round, over MPI): each member merges
 * what its children send into its own tables (identical rows collapse into
 * rank ranges at every step) and sends the result to its parent.  So the
 * lead receives O(log P) messages whose size grows with the distinct rows,
 * not with the ranks, and no member receives from more than O(log P)
 * others.  A member whose tables could not be packed still sends, marked
 * failed, and the lead reports the failure.
 *
 * Every member of every communicator it registered takes part, whether
 * or not it called anything there: a peer that called a collective the
 * others never called (an erroneous program, a call that failed on one
 * rank) must not wait for them, and its calls must reach the lead.  That
 * needs every member to hold every communicator.  When memory ran out
 * while registering one (cp_registry_complete), or the members do not hold
 * the same communicators (a communicator one member never registered), the
 * trees would wait for ever: all ranks check first (one allreduce of
 * fingerprints, below) and then send straight to the leads with a counted
 * exchange instead (finalize_mail.h), the leads merging the same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_merge.h"
#include "counts_stage.h"
#include "finalize.h"
#include "finalize_mail.h"
#include "group_trees.h"
#include "log.h"
#include "pack.h"
#include "transport.h"

_Static_assert(CP_NCOLLECTIVES <= CP_HOLD_COLLS, "a holding carries every collective");

/* ------------------------------------- do all members hold each one? */

/* Two fingerprints of the registered communicators, sums modulo the
 * Mersenne prime 2^31 - 1 (so that a sum over 2^32 ranks fits in 64 bits):
 * each rank adds h(C) / size(C) for every communicator C it holds, and
 * h(C) for those it leads.  When every member of every communicator holds
 * it (under the same key), the two sums are equal; a communicator that
 * some member lacks leaves a difference, but with a chance of 2^-62 for
 * two independent hashes.  No rank learns which: the counts then take the
 * counted exchange, which waits for nothing that is not promised. */
#define FP_PRIME 2147483647ull

/* x modulo the prime, for x below 2^62, without a division (a Mersenne
 * prime: 2^31 is 1 modulo it). */
static uint64_t fp_mod(uint64_t x)
{
    x = (x & FP_PRIME) + (x >> 31);
    x = (x & FP_PRIME) + (x >> 31);
    return x >= FP_PRIME ? x - FP_PRIME : x;
}

static uint64_t fp_mul(uint64_t a, uint64_t b)
{
    return fp_mod((a % FP_PRIME) * (b % FP_PRIME));
}

static uint64_t fp_inverse(uint64_t a)
{
    uint64_t r = 1, e = FP_PRIME - 2;
    for (a %= FP_PRIME; e; e >>= 1, a = fp_mul(a, a))
        if (e & 1)
            r = fp_mul(r, a);
    return r;
}

static void fingerprints(cp_comm *comms, uint64_t out[4])
{
    memset(out, 0, 4 * sizeof *out);
    /* The inverse of the last size met: churned communicators share one
     * size, and an inverse is 60 multiplications. */
    uint64_t size = 0, inverse = 0;
    for (cp_comm *c = comms; c; c = c->next) {
        if ((uint64_t)c->size != size) {
            size = (uint64_t)c->size;
            inverse = fp_inverse(size);
        }
        for (int j = 0; j < 2; j++) {
            uint64_t h = cp_hash_mix(cp_hash_mix(c->key_hash, c->key_ordinal),
                                     0x9E3779B97F4A7C15ull * (uint64_t)(j + 1)) % FP_PRIME;
            out[2 * j] = (out[2 * j] + fp_mul(h, inverse)) % FP_PRIME;
            if (c->rank == 0)
                out[2 * j + 1] = (out[2 * j + 1] + h) % FP_PRIME;
        }
    }
}

/* This rank's own tables of c: a leaf tree per collective it called. */
void cp_fin_own_holding(cp_holding *h, const cp_comm *c, const cp_own_paths *own)
{
    cp_holding_init(h, c->rank, c->size);
    for (int k = 0; k < CP_NCOLLECTIVES; k++) {
        if (!c->coll[k] || c->coll[k]->counts.ncalls == 0)
            continue;
        cp_counts *t = &c->coll[k]->counts;
        if (cp_counts_settle(t))
            t->partial = true;
        cp_sig *sigs = own ? cp_fin_sigs_renamed(t, own) : t->sigs;
        if (own && !sigs) { /* no room for the renamed copy */
            h->failed = true;
            continue;
        }
        cp_counts_view v = {t->vecs, t->nvecs, sigs, t->nsigs, &t->seq};
        cp_holding_leaf(h, (uint32_t)k, &v, cp_counts_relative_ok(cp_collective_names[k]));
        if (own)
            free(sigs);
    }
    if (c->topology != MPI_UNDEFINED)
        cp_holding_neighbors(h, c->sources, c->indegree, c->destinations, c->outdegree);
}

/* The communicators this rank called collectives on, each a group whose
 * value is its holding. */
typedef struct holdings {
    cp_groups g;
    cp_holding *h;
    const cp_comm **c;
} holdings;

/* ---------------------------------------------------- straight to leads */

struct direct {
    const holdings *H;
    cp_holding **got; /* per communicator this rank leads: what each rank sent */
};

static void deliver_direct(fin *f, void *ctx, int source, uint32_t nrec, cp_rbuf *rbp)
{
    struct direct *d = ctx;
    if (!d || !d->got) { /* this rank could not make room to take them */
        cp_fin_fail(f, "out of memory while receiving counts");
        return;
    }
    for (uint32_t i = 0; i < nrec && !rbp->bad; i++) {
        cp_group_key k = {.hash = cp_get_u64(rbp), .ordinal = cp_get_u32(rbp)};
        cp_membership *t = cp_groups_find(&d->H->g, &k);
        size_t j = t ? (size_t)(t - d->H->g.v) : 0;
        cp_holding x;
        cp_holding_init(&x, 0, t ? t->size : 0);
        if (!t || t->rank != 0 || cp_holding_unpack(rbp, &x) || x.hi != x.lo + 1 ||
            cp_fin_member_world(t->members, x.lo) != source) {
            cp_holding_clear(&x);
            rbp->bad = true;
            return;
        }
        if (!d->got[j] && !(d->got[j] = calloc((size_t)t->size, sizeof *d->got[j]))) {
            cp_holding_clear(&x);
            cp_fin_fail(f, "out of memory while merging counts");
            return;
        }
        cp_holding_clear(&d->got[j][x.lo]);
        d->got[j][x.lo] = x;
    }
}

/* Each lead merges what its ranks sent, in halves (as the tree would). */
static void fold(fin *f, cp_holding *v, int64_t lo, int64_t hi)
{
    if (hi - lo < 2)
        return;
    int64_t mid = lo + (hi - lo) / 2;
    fold(f, v, lo, mid);
    fold(f, v, mid, hi);
    if (cp_holding_absorb(&v[lo], &v[mid]) != CP_GROUP_OK)
        cp_fin_fail(f, "out of memory while merging counts");
}

static void direct_exchange(fin *f, holdings *H)
{
    size_t n = H->g.n;
    struct direct d = {H, calloc(n ? n : 1, sizeof *d.got)};
    cp_mail m = {0};
    m.failed = d.got == NULL;
    for (size_t i = 0; i < n && !m.failed; i++) {
        if (H->g.v[i].rank == 0)
            continue; /* the lead's own stays */
        cp_box *b = cp_mail_box(&m, (int)H->c[i]->lead);
        if (!b)
            break;
        cp_put_u64(&b->b, H->g.v[i].key.hash);
        cp_put_u32(&b->b, H->g.v[i].key.ordinal);
        cp_holding_pack(&b->b, &H->h[i]);
        b->nrecords++;
        cp_holding_clear(&H->h[i]);
    }
    cp_mail_exchange(f, &m, TAG_COUNTS, "counts", deliver_direct, &d);
    for (size_t i = 0; i < n && d.got; i++) {
        if (!d.got[i])
            continue;
        cp_holding *v = d.got[i];
        cp_holding_clear(&v[0]);
        v[0] = H->h[i];
        fold(f, v, 0, H->g.v[i].size);
        H->h[i] = v[0];
        for (int64_t r = 1; r < H->g.v[i].size; r++)
            cp_holding_clear(&v[r]);
        free(v);
    }
    free(d.got);
}

/* ------------------------------------------------------------ the stage */

static bool holds_calls(const cp_holding *h)
{
    CP_SLOTS_EACH(k, &h->c)
        if (cp_holding_at(h, k)->tree)
            return true;
    return false;
}

/* The lead's holding becomes a led communicator's trees and lists, when
 * any member called anything there (the lead itself perhaps not). */
void cp_fin_to_led(fin *f, fin_leads *L, const cp_membership *g, const cp_comm *c,
                   cp_holding *h)
{
    if (!holds_calls(h) && !g->failed && !h->failed)
        return;
    if (!L->led) { /* no room for the list (cp_fin_exchange made it) */
        cp_fin_fail(f, "out of memory while receiving counts");
        return;
    }
    cp_led *l = &L->led[L->n++];
    *l = (cp_led){.comm = (cp_comm *)c};
    if (g->failed || h->failed) {
        char msg[200];
        snprintf(msg, sizeof msg, "the counts of some ranks of a communicator of %" PRId64
                 " ranks did not reach its lead", g->size);
        cp_fin_fail(f, msg);
    }
    CP_SLOTS_EACH(k, &h->c)
    {
        cp_hold_coll *e = cp_holding_at(h, k);
        cp_led_coll *x = cp_slots_add(&l->c, k, sizeof *x);
        if (!x) { /* the holding keeps it, and frees it */
            cp_fin_fail(f, "out of memory while receiving counts");
            continue;
        }
        x->held = *e; /* the lead takes them */
        *e = (cp_hold_coll){NULL, NULL};
    }
    if (h->nnb && (l->neighbors = calloc((size_t)g->size, sizeof *l->neighbors))) {
        for (size_t i = 0; i < h->nnb; i++) {
            l->neighbors[h->nb[i].crank] = h->nb[i].nb;
            h->nb[i].nb = (cp_neighbors){0};
        }
    } else if (h->nnb) {
        cp_fin_fail(f, "out of memory while receiving neighbour lists");
    }
}

void cp_fin_exchange(fin *f, fin_leads *L)
{
    size_t n = 0;
    for (cp_comm *c = f->comms; c; c = c->next)
        n++;
    holdings H = {.g = {.v = calloc(n ? n : 1, sizeof(cp_membership)),
                        .world_of = cp_fin_member_world},
                  .h = calloc(n ? n : 1, sizeof(cp_holding)),
                  .c = calloc(n ? n : 1, sizeof(cp_comm *))};
    bool room = H.g.v && H.h && H.c;
    /* In one allreduce: how many ranks lack room or a communicator, and
     * the fingerprints of what the ranks hold. */
    uint64_t in[5], sum[5];
    fingerprints(f->comms, in);
    in[4] = !(room && f->registry_complete);
    cp_tp_allreduce(in, sum, 5, MPI_UINT64_T, MPI_SUM, f->w);
    bool held = sum[0] % FP_PRIME == sum[1] % FP_PRIME && sum[2] % FP_PRIME == sum[3] % FP_PRIME;
    int all = sum[4] == 0 && held;
    L->trees_ok = all != 0; /* the wait states' trees need the same */
    if (!held && f->rank == 0)
        cp_log("some rank does not hold a communicator that its peers hold (one it never "
               "used, created before collprof started): counts go straight to each "
               "communicator's lead, and wait states are not computed");
    if (!room) {
        cp_fin_fail(f, "out of memory while sending counts");
        cp_mail m = {.failed = true}; /* still counted in, so nobody waits */
        cp_mail_exchange(f, &m, TAG_COUNTS, "counts", deliver_direct, NULL);
        free(H.g.v);
        free(H.h);
        free(H.c);
        return;
    }
    for (cp_comm *c = f->comms; c; c = c->next) {
        size_t i = H.g.n++;
        H.c[i] = c;
        cp_fin_own_holding(&H.h[i], c, NULL);
        H.g.v[i] = (cp_membership){.key = {c->key_hash, c->key_ordinal, 0}, .size = c->size,
                              .rank = c->rank, .members = &c->members, .value = &H.h[i],
                              .failed = H.h[i].failed};
    }
    cp_groups_index(&H.g);
    if (all) {
        cp_fin_world_io w = {.f = f, .tag = TAG_COUNTS, .what = "counts"};
        cp_tree_io io = cp_fin_world_carrier(&w);
        cp_groups_report rep = CP_GROUPS_REPORT_INIT;
        cp_groups_up(&H.g, &io, &cp_holding_up_op, &rep);
        cp_fin_world_finish(&w);
        if (cp_fin_groups_said(f, &rep, "counts"))
            cp_fin_fail(f, "out of memory while merging counts");
    } else {
        if (f->rank == 0 && held)
            cp_log("memory ran out while registering communicators: counts go straight to "
                   "each communicator's lead");
        direct_exchange(f, &H);
    }
    /* The list of led communicators at once, as long as this rank leads
     * (10,000 churned communicators: no list grown one by one). */
    size_t leads = 0;
    for (size_t i = 0; i < n; i++)
        leads += H.g.v[i].rank == 0;
    L->led = calloc(leads ? leads : 1, sizeof *L->led);
    for (size_t i = 0; i < n; i++) {
        if (H.g.v[i].rank == 0)
            cp_fin_to_led(f, L, &H.g.v[i], H.c[i], &H.h[i]);
        cp_holding_clear(&H.h[i]);
    }
    cp_fin_index_led(L);
    cp_groups_free_index(&H.g);
    free(H.g.v);
    free(H.h);
    free(H.c);
}
