/*
 * --rules FILE: Open MPI coll/tuned's dynamic rules file
 * (coll_tuned_dynamic_rules_filename, read when coll_tuned_use_dynamic_rules
 * is set), restricted to what the application used: for each collective
 * coll/tuned serves and each communicator size its patterns had, the
 * algorithm that costs their recorded calls least, where it is faster
 * beyond the noise.  Every other size is left to Open MPI's own decision
 * (algorithm 0): a rule at size 0 and one just above each tuned size, as
 * Open MPI applies the largest rule not above a communicator's size (the
 * first for smaller ones).  The message size is one band from 0: the
 * patterns were timed at their own sizes, and coll/tuned measures a
 * collective's message differently for each.
 *
 * The file, as Open MPI's reader takes it (numbers, '#' to the end of a
 * line is a comment):
 *   COLLECTIVES
 *   then per collective: ID (Open MPI's numbering, COLLTYPE_T) NSIZES
 *   then per size: COMM_SIZE NMSG, then per message rule:
 *   MSG_SIZE ALGORITHM FANINOUT SEGSIZE
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "textio.h"

/* Open MPI's numbering of the collectives in its rules file (COLLTYPE_T). */
static const char *const ompi_ids[] = {
    "Allgather", "Allgatherv", "Allreduce", "Alltoall", "Alltoallv", "Alltoallw",
    "Barrier", "Bcast", "Exscan", "Gather", "Gatherv", "Reduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Scatter", "Scatterv"};

static int ompi_id(const char *coll)
{
    for (size_t i = 0; i < sizeof ompi_ids / sizeof ompi_ids[0]; i++)
        if (strcmp(ompi_ids[i], coll) == 0)
            return (int)i;
    return -1;
}

/* One communicator size's rule: the tuned algorithm k (0: the library's). */
typedef struct rule {
    int64_t size;
    int k;
    const replay_algos *algos;
} rule;

static int cmp_rule(const void *a, const void *b)
{
    const rule *x = a, *y = b;
    return (x->size > y->size) - (x->size < y->size);
}

/* The rules of one collective (whose first pattern is `first`): the sizes
 * with a winner, each followed by a return to the library's own choice. */
static size_t collective_rules(const replay_patterns *ps, const replay_tuned *t,
                               const replay_tune_use *uses, size_t first, rule *out)
{
    const char *cvar = t[first].algos.cvar;
    size_t n = 0;
    for (size_t i = first; i < ps->n; i++) {
        if (!t[i].algos.n || strcmp(t[i].algos.cvar, cvar) != 0 || !t[i].t[0].rounds)
            continue;
        bool seen = false;
        for (size_t j = 0; j < n; j++)
            seen = seen || out[j].size == t[i].ranks;
        if (seen)
            continue;
        replay_tune_choice ch = replay_tune_choose(uses, ps->n, cvar, t[i].ranks);
        if (ch.clear)
            out[n++] = (rule){t[i].ranks, ch.k, &t[i].algos};
    }
    qsort(out, n, sizeof *out, cmp_rule);
    return n;
}

static void write_collective(cp_out *o, const char *coll, const rule *r, size_t n)
{
    /* size 0 -> own choice; each tuned size -> its algorithm; size + 1 -> own
     * choice unless the next tuned size is size + 1 */
    size_t nsizes = 1;
    for (size_t i = 0; i < n; i++)
        nsizes += 1 + (i + 1 == n || r[i + 1].size != r[i].size + 1);
    cp_out_printf(o, "%d            # %s\n%zu            # communicator sizes\n", ompi_id(coll),
                  coll, nsizes);
    cp_out_printf(o, "0 1 0 0 0 0  # from size 0: Open MPI's own decision\n");
    for (size_t i = 0; i < n; i++) {
        cp_out_printf(o, "%lld 1 0 %d 0 0  # %lld ranks: %s (%s=%d)\n", (long long)r[i].size,
                      r[i].algos->values[r[i].k], (long long)r[i].size,
                      r[i].algos->names[r[i].k], r[i].algos->cvar, r[i].algos->values[r[i].k]);
        if (i + 1 == n || r[i + 1].size != r[i].size + 1)
            cp_out_printf(o, "%lld 1 0 0 0 0  # from %lld ranks: Open MPI's own decision\n",
                          (long long)r[i].size + 1, (long long)r[i].size + 1);
    }
}

int replay_write_rules(const char *path, const cp_profile *p, const replay_patterns *ps,
                       const replay_tuned *t, cp_error *err)
{
    replay_tune_use *uses = replay_tune_uses(ps, t);
    rule *rules = malloc((ps->n ? ps->n : 1) * sizeof *rules);
    size_t *first = malloc((ps->n ? ps->n : 1) * sizeof *first);
    size_t *count = malloc((ps->n ? ps->n : 1) * sizeof *count);
    if (!uses || !rules || !first || !count) {
        free(uses);
        free(rules);
        free(first);
        free(count);
        return cp_error_set(err, "out of memory");
    }
    /* The collectives of coll/tuned with at least one tuned size. */
    size_t ncoll = 0, nrules = 0;
    for (size_t i = 0; i < ps->n; i++) {
        const replay_algos *al = &t[i].algos;
        if (!al->n || replay_tune_seen(t, i) || strncmp(al->cvar, "coll_tuned_", 11) != 0 ||
            ompi_id(ps->v[i].collective) < 0)
            continue;
        size_t n = collective_rules(ps, t, uses, i, rules + nrules);
        if (n) {
            first[ncoll] = i;
            count[ncoll++] = n;
            nrules += n;
        }
    }
    cp_out *o = cp_out_open(path, false, err);
    int rc = o ? 0 : -1;
    if (o) {
        char lib[256];
        replay_library_line(lib, sizeof lib);
        cp_out_printf(o, "# Open MPI coll/tuned dynamic rules, by collprof-replay --tune from %s\n"
                         "# (%s); read with OMPI_MCA_coll_tuned_use_dynamic_rules=1\n"
                         "# OMPI_MCA_coll_tuned_dynamic_rules_filename=THIS_FILE\n"
                         "%zu            # collectives\n",
                      p->dir, lib, ncoll);
        for (size_t c = 0, at = 0; c < ncoll; at += count[c++])
            write_collective(o, ps->v[first[c]].collective, rules + at, count[c]);
        rc = cp_out_commit(o, err);
    }
    free(uses);
    free(rules);
    free(first);
    free(count);
    return rc;
}
