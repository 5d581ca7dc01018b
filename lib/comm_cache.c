/* The communicator cache's writers (see comm_cache.h). */
#include "comm_cache.h"

#include <pthread.h>

cp_comm_entry cp_comm_cache[CP_COMM_CACHE_N];

/* Writers take turns: each write is marked, changed and published alone.
 * No signal handler writes an entry. */
static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;
/* Which of a handle's two places a new entry takes when both are held. */
static unsigned turn;

static uint64_t version_after(uint64_t k)
{
    return ((k >> CP_KEY_VERSION_SHIFT) + 1) % CP_KEY_VERSIONS << CP_KEY_VERSION_SHIFT;
}

/* e's fields from src, then its word: the handle's bits with a new version. */
static void write_entry(cp_comm_entry *e, uint64_t bits, const cp_comm_entry *src)
{
    uint64_t v = version_after(atomic_load_explicit(&e->key, memory_order_relaxed));
    atomic_store_explicit(&e->key, CP_KEY_WRITING | v, memory_order_relaxed);
    atomic_thread_fence(memory_order_release); /* the mark before any field */
    __atomic_store_n(&e->comm, src->comm, __ATOMIC_RELAXED);
    __atomic_store_n(&e->peers, src->peers, __ATOMIC_RELAXED);
    __atomic_store_n(&e->size, src->size, __ATOMIC_RELAXED);
    __atomic_store_n(&e->rank, src->rank, __ATOMIC_RELAXED);
    __atomic_store_n(&e->tags, src->tags, __ATOMIC_RELAXED);
    for (int i = 0; i < CP_COMM_HOT; i++)
        __atomic_store_n(&e->hot[i], src->hot[i], __ATOMIC_RELAXED);
    atomic_store_explicit(&e->key, bits | v, memory_order_release);
}

static bool holds(const cp_comm_entry *e, uint64_t bits)
{
    return (atomic_load_explicit(&e->key, memory_order_relaxed) & CP_KEY_MATCH) == bits;
}

/* The place that holds the handle of these bits (at most one does: an
 * entry is put in the other place only when neither holds it), or NULL. */
static cp_comm_entry *held_at(cp_comm_entry *a, cp_comm_entry *b, uint64_t bits)
{
    return holds(a, bits) ? a : holds(b, bits) ? b : NULL;
}

static bool is_free(const cp_comm_entry *e)
{
    return (atomic_load_explicit(&e->key, memory_order_relaxed) & CP_KEY_HANDLE) == 0;
}

void cp_comm_cache_put(uint64_t bits, const cp_comm_entry *src, bool only_update)
{
    if (bits == CP_KEY_NEVER)
        return;
    uint64_t h = cp_comm_place_hash(bits);
    cp_comm_entry *a = cp_comm_first(h), *b = cp_comm_second(h);
    pthread_mutex_lock(&writers);
    cp_comm_entry *e = held_at(a, b, bits);
    if (e && only_update && e->comm != src->comm)
        e = NULL; /* the handle is another communicator's now */
    else if (!e && !only_update)
        e = is_free(a) ? a : is_free(b) ? b : turn++ % 2 ? b : a;
    if (e)
        write_entry(e, bits, src);
    pthread_mutex_unlock(&writers);
}

void cp_comm_cache_drop(uint64_t bits, const struct cp_comm *comm)
{
    if (bits == CP_KEY_NEVER)
        return;
    uint64_t h = cp_comm_place_hash(bits);
    pthread_mutex_lock(&writers);
    cp_comm_entry *e = held_at(cp_comm_first(h), cp_comm_second(h), bits);
    if (e && e->comm == comm)
        atomic_store_explicit(&e->key,
                              version_after(atomic_load_explicit(&e->key, memory_order_relaxed)),
                              memory_order_release);
    pthread_mutex_unlock(&writers);
}

void cp_comm_cache_gate(uint64_t g)
{
    for (size_t i = 0; i < CP_COMM_CACHE_N; i++)
        atomic_store_explicit(&cp_comm_cache[i].gate, g, memory_order_relaxed);
}
