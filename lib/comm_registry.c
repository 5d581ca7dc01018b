/* Communicator registry (see comm_registry.h). */
#include "comm_registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hash_index.h"
#include "log.h"
#include "runtime.h"
#include "signals.h"

/* A communicator that makes no collective call costs this struct and its
 * member list: keep it well under 1 KiB (tables come with the first call). */
_Static_assert(sizeof(cp_comm) <= 512, "cp_comm grew: a communicator must stay small");

void cp_hot_publish(void)
{
    for (;;) {
        int s = atomic_load(&cp_hot.state), p = atomic_load(&cp_hot.paused);
        uint64_t g = 0;
        if (s == CP_STATE_ON && !p) {
            if (cp_hot.timing == CP_TIMING_OFF)
                g = cp_hot.enabled;
            else if (cp_hot.timing == CP_TIMING_PASSIVE && cp_hot.clock_tsc)
                g = cp_hot.enabled << CP_GATE_TIMED;
        }
        cp_comm_cache_gate(g);
        if (atomic_load(&cp_hot.state) == s && atomic_load(&cp_hot.paused) == p)
            return;
    }
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cp_comm *head, *tail;
static uint32_t count;
static bool failed_once, tables_failed_once;

/* How many communicators of each membership were registered so far: the
 * next one's ordinal, found by hash rather than by walking every
 * communicator ever registered (libraries that duplicate a communicator per
 * operation register thousands). */
typedef struct membership {
    uint64_t hash;
    uint32_t n;
} membership;
static membership *memberships;
static uint32_t nmemberships, cap_memberships;
static cp_index membership_index;

static bool membership_match(const void *ctx, uint32_t id)
{
    return memberships[id].hash == *(const uint64_t *)ctx;
}

/* The ordinal of the next communicator with this membership hash; 0 and
 * -1 returned when memory ran out (ordinals would then disagree between
 * ranks: the communicator is not registered). */
static int next_ordinal(uint64_t hash, uint32_t *ordinal)
{
    uint32_t id = cp_index_find(&membership_index, hash, membership_match, &hash);
    if (id == CP_INDEX_EMPTY) {
        if (nmemberships == cap_memberships) {
            uint32_t ncap = cap_memberships ? 2 * cap_memberships : 16;
            membership *nm = realloc(memberships, ncap * sizeof *nm);
            if (!nm)
                return -1;
            memberships = nm;
            cap_memberships = ncap;
        }
        if (cp_index_put(&membership_index, hash, nmemberships))
            return -1;
        id = nmemberships++;
        memberships[id] = (membership){.hash = hash, .n = 0};
    }
    *ordinal = memberships[id].n++;
    return 0;
}

bool cp_registry_complete(void)
{
    return !failed_once && !tables_failed_once;
}

/* c's entry in the communicator cache written (comm_cache.h): put there
 * when it is looked up, written again where it is when it makes tables. */
static void cache_put(const cp_comm *c, bool only_update)
{
    cp_comm_entry e = {.comm = (cp_comm *)c, .peers = c->peers, .size = c->size,
                       .rank = c->rank, .tags = cp_comm_tags(c->inter != 0, c->hot_coll)};
    for (int i = 0; i < CP_COMM_HOT; i++)
        e.hot[i] = c->hot_coll[i] == CP_COMM_HOT_NONE ? NULL : c->coll[c->hot_coll[i]];
    cp_comm_cache_put(cp_comm_bits(c->handle), &e, only_update);
}

static const cp_memo memo_empty = {.sig = CP_MEMO_EMPTY, .seen = CP_MEMO_EMPTY};

cp_coll_tables *cp_comm_tables(cp_comm *c, int k)
{
    cp_coll_tables *x = c->coll[k];
    if (x)
        return x;
    /* On a line of its own: the memo, then the counts' first fields, each
     * one line (cp_memo). */
    x = aligned_alloc(64, (sizeof *x + 63) / 64 * 64);
    if (!x) {
        c->lost = true;
        cp_log_once(&tables_failed_once, "out of memory for a communicator's tables; "
                                         "some calls are not recorded");
        return NULL;
    }
    cp_counts_init(&x->counts);
    x->timing = (cp_timing){0};
    x->memo = memo_empty;
    c->coll[k] = x;
    for (int i = 0; i < CP_COMM_HOT; i++)
        if (c->hot_coll[i] == CP_COMM_HOT_NONE) {
            c->hot_coll[i] = (uint8_t)k;
            /* Its handle may be another communicator's once it was freed. */
            if (atomic_load(&c->live))
                cache_put(c, true);
            break;
        }
    return x;
}

/* MPI frees a communicator we registered: forget its handle (its recorded
 * data stays until finalize). */
static int delete_attr(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)keyval;
    (void)extra;
    cp_comm *c = attr;
    atomic_store(&c->live, 0);
    /* Its data stays until finalize: only as much memory as it fills
     * (libraries that duplicate a communicator per operation free
     * thousands).  Persistent requests on it may still add calls: the
     * tables grow again if they must.  Busy from here: a termination
     * signal waits while the cache's entry changes, as for every other
     * change of collprof's state. */
    cp_busy_enter();
    cp_comm_cache_drop(cp_comm_bits(comm), c);
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (c->coll[k])
            cp_memo_fold(c->coll[k]); /* the calls it counted, before it goes */
    for (int k = 0; k < CP_NCOLLECTIVES && !atomic_load(&c->persistent); k++)
        if (c->coll[k]) {
            cp_counts_compact(&c->coll[k]->counts);
            cp_timing_compact(&c->coll[k]->timing);
        }
    /* No call comes through the handle again: the memos go. */
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        if (c->coll[k])
            c->coll[k]->memo = memo_empty;
    cp_busy_leave();
    return MPI_SUCCESS;
}

int cp_registry_start(void)
{
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &cp_rt.keyval, NULL);
}

cp_comm *cp_registry_first(void)
{
    return head;
}

uint32_t cp_registry_count(void)
{
    return count;
}

/* World ranks of every process of `group`, in rank order, into members;
 * folds them into the membership hash. */
static int translate(MPI_Group group, cp_ranges *members, uint64_t *h)
{
    int n;
    PMPI_Group_size(group, &n);
    int *in = malloc(((size_t)n + 1) * sizeof *in), *out = malloc(((size_t)n + 1) * sizeof *out);
    int rc = -1;
    if (!in || !out)
        goto done;
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (PMPI_Group_translate_ranks(group, n, in, cp_rt.world_group, out) != MPI_SUCCESS)
        goto done;
    *h = cp_hash_mix(*h, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        *h = cp_hash_mix(*h, (uint64_t)(int64_t)out[i]);
        if (members && cp_ranges_push(members, out[i]))
            goto done;
    }
    rc = 0;
done:
    free(in);
    free(out);
    return rc;
}

int cp_topology_degrees(MPI_Comm comm, int rank, int *in, int *out)
{
    int topo = MPI_UNDEFINED, weighted = 0;
    *in = *out = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return MPI_UNDEFINED;
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *in = *out = 2 * nd; /* per dimension: the negative, then the positive neighbour */
    } else if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, rank, in);
        *out = *in;
    } else if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
    return topo;
}

/* The topology's neighbours of this process, in the order neighbourhood
 * collectives use them.  Returns 0, or -1 when memory ran out. */
static int neighbours(cp_comm *c, MPI_Comm comm)
{
    int in = 0, out = 0;
    c->topology = MPI_UNDEFINED;
    int topo = c->inter ? MPI_UNDEFINED : cp_topology_degrees(comm, (int)c->rank, &in, &out);
    if (topo == MPI_UNDEFINED)
        return 0;
    c->sources = malloc(((size_t)in + 1) * sizeof *c->sources);
    c->destinations = malloc(((size_t)out + 1) * sizeof *c->destinations);
    int *w = malloc(((size_t)(in > out ? in : out) + 1) * 2 * sizeof *w);
    if (!c->sources || !c->destinations || !w) {
        free(w);
        return -1;
    }
    if (topo == MPI_CART) {
        /* Per dimension: the negative, then the positive direction. */
        for (int d = 0; d < in / 2; d++) {
            PMPI_Cart_shift(comm, d, 1, &c->sources[2 * d], &c->sources[2 * d + 1]);
            c->destinations[2 * d] = c->sources[2 * d];
            c->destinations[2 * d + 1] = c->sources[2 * d + 1];
        }
    } else if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors(comm, (int)c->rank, in, c->sources);
        memcpy(c->destinations, c->sources, (size_t)in * sizeof *c->sources);
    } else {
        PMPI_Dist_graph_neighbors(comm, in, c->sources, w, out, c->destinations, w + in + 1);
    }
    free(w);
    for (int i = 0; i < in; i++)
        if (c->sources[i] == MPI_PROC_NULL)
            c->sources[i] = -1;
    for (int i = 0; i < out; i++)
        if (c->destinations[i] == MPI_PROC_NULL)
            c->destinations[i] = -1;
    c->topology = topo;
    c->indegree = in;
    c->outdegree = out;
    return 0;
}

/* A communicator that was never registered (no tables yet). */
static void destroy(cp_comm *c)
{
    free(c->sources);
    free(c->destinations);
    cp_ranges_free(&c->members);
    cp_ranges_free(&c->remote);
    free(c);
}

/* c := what registering asks of MPI, copied from `like` (same groups and
 * topology); *h := its membership hash (the same groups hash the same:
 * translate's fold over them).  0, or -1 when memory ran out. */
static int copy_membership(cp_comm *c, const cp_comm *like, uint64_t *h)
{
    c->inter = like->inter;
    c->size = like->size;
    c->rank = like->rank;
    c->peers = like->peers;
    c->topology = like->topology;
    c->indegree = like->indegree;
    c->outdegree = like->outdegree;
    *h = like->key_hash;
    if (cp_ranges_copy(&c->members, &like->members) ||
        cp_ranges_copy(&c->remote, &like->remote))
        return -1;
    if (like->topology == MPI_UNDEFINED)
        return 0;
    c->sources = malloc(((size_t)like->indegree + 1) * sizeof *c->sources);
    c->destinations = malloc(((size_t)like->outdegree + 1) * sizeof *c->destinations);
    if (!c->sources || !c->destinations)
        return -1;
    memcpy(c->sources, like->sources, (size_t)like->indegree * sizeof *c->sources);
    memcpy(c->destinations, like->destinations,
           (size_t)like->outdegree * sizeof *c->destinations);
    return 0;
}

/* c := its groups, their hash *h and its topology, asked of MPI.  0, or -1
 * when memory ran out. */
static int ask_membership(cp_comm *c, MPI_Comm comm, uint64_t *h)
{
    int inter = 0, size = 0, rank = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    c->inter = inter;
    c->size = size;
    c->rank = rank;
    c->peers = size;
    *h = cp_hash_mix(0x9216D5D98979FB1Bull, (uint64_t)inter);
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    int rc = translate(g, &c->members, h);
    PMPI_Group_free(&g);
    if (!rc && inter) {
        int rsize = 0;
        PMPI_Comm_remote_size(comm, &rsize);
        c->peers = rsize;
        PMPI_Comm_remote_group(comm, &g);
        rc = translate(g, &c->remote, h);
        PMPI_Group_free(&g);
    }
    return rc ? rc : neighbours(c, comm);
}

/* The registered state of comm, or NULL (no MPI call but the attribute's). */
static cp_comm *registered(MPI_Comm comm)
{
    void *attr = NULL;
    int flag = 0;
    if (comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, cp_rt.keyval, &attr, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return attr;
}

static cp_comm *create(MPI_Comm comm, MPI_Comm like)
{
    cp_comm *c = aligned_alloc(64, (sizeof *c + 63) / 64 * 64); /* the handle's line first */
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    memset(c->hot_coll, CP_COMM_HOT_NONE, sizeof c->hot_coll);
    c->handle = comm;
    atomic_store(&c->live, 1);
    const cp_comm *model = registered(like);
    uint64_t h = 0;
    if (model ? copy_membership(c, model, &h) : ask_membership(c, comm, &h)) {
        destroy(c);
        return NULL;
    }
    c->lead = cp_ranges_nth(&c->members, 0);
    c->key_hash = h;
    return c;
}

cp_comm *cp_comm_lookup(MPI_Comm comm)
{
    return cp_comm_lookup_like(comm, MPI_COMM_NULL);
}

cp_comm *cp_comm_lookup_like(MPI_Comm comm, MPI_Comm like)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    int saved = errno; /* on behalf of the application's call */
    cp_busy_enter();
    pthread_mutex_lock(&lock);
    cp_comm *c = registered(comm);
    if (c) {
        /* known already */
    } else if ((c = create(comm, like)) != NULL &&
               next_ordinal(c->key_hash, &c->key_ordinal) == 0) {
        c->reg_index = count++;
        if (PMPI_Comm_set_attr(comm, cp_rt.keyval, c) != MPI_SUCCESS)
            atomic_store(&c->live, 0); /* still recorded, just not found again */
        if (tail)
            tail->next = c;
        else
            head = c;
        tail = c;
    } else {
        if (c)
            destroy(c);
        c = NULL;
        cp_log_once(&failed_once, "cannot register a communicator (out of memory?); "
                                  "its calls are not recorded");
    }
    if (c && atomic_load(&c->live))
        cache_put(c, false);
    pthread_mutex_unlock(&lock);
    cp_busy_leave();
    errno = saved;
    return c;
}
