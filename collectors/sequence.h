/*
 * Call sequences: which signature (distinct set of count vectors) each call
 * of one (communicator, collective) used on this rank, in call order.
 *
 * Stored compressed so that memory grows with the number of changes that do
 * not repeat, not with the number of calls:
 *  - consecutive equal ids form a run (id, length);
 *  - a block of up to CP_SEQ_MAX_PERIOD runs that repeats back to back forms a
 *    group (runs, repetitions): A B A B A B ... is one group of two runs.
 * Appending is O(1) for a repeating run and O(CP_SEQ_MAX_PERIOD^2) at worst
 * when a run ends.  No allocation happens once a pattern repeats.
 */
#ifndef COLLPROF_SEQUENCE_H
#define COLLPROF_SEQUENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The id of a call this rank did not record (paused, outside the recording
 * window): it keeps its number but has no counts. */
#define CP_SEQ_NONE UINT32_MAX
/* Cycles of up to 64 runs fold: solvers that cycle through dozens of
 * patterns (32 per time step, say) cost nothing per call once the cycle has
 * repeated.  Checking the periods when a run ends costs O(64) compares,
 * usually one each (the first run already differs). */
#define CP_SEQ_MAX_PERIOD 64

typedef struct cp_run {
    uint32_t id;
    uint64_t len;
} cp_run;

typedef struct cp_group {
    size_t first; /* index of its first run */
    uint32_t nruns;
    uint64_t reps;
} cp_group;

/* The fields a repeated call reads and writes (cp_seq_tail_add) first: with
 * the table's own (cp_counts) they share the line after the call memo's
 * (comm_registry.h, cp_coll_tables). */
typedef struct cp_seq {
    uint64_t total; /* number of calls appended */
    uint64_t changes;  /* counts the changes of the functions below (and
                          cp_seq_free): a tail of an earlier state is refused;
                          one sequence put in another's place takes a higher
                          number than the one it replaces had */
    cp_run *runs;
    size_t nruns, cap_runs;
    cp_group *groups;
    size_t ngroups, cap_groups;
    /* Matching state of the last group while it repeats: runs [0, rk) of
     * the next repetition seen whole, ro calls of run rk seen. */
    bool repeating;
    uint32_t rk;
    uint64_t ro;
    bool failed; /* an allocation failed: the sequence stopped growing */
    /* lastpos[id]: 1 + the index of the latest run of id (0: none).  A run
     * whose id last ran more than CP_SEQ_MAX_PERIOD runs before cannot end
     * a repetition: the period check is skipped (new patterns, long
     * non-repeating sequences).  Positions may be stale after folding:
     * then the check runs, as it would without them. */
    uint32_t *lastpos;
    uint32_t nlastpos;
    uint64_t last_gap; /* runs between the last run and the one before it
                          with its id: CP_SEQ_GAP_NEVER, CP_SEQ_GAP_UNKNOWN */
} cp_seq;

#define CP_SEQ_GAP_NEVER UINT64_MAX
#define CP_SEQ_GAP_UNKNOWN 0

void cp_seq_init(cp_seq *s);
void cp_seq_free(cp_seq *s);
/* Append `count` calls with this id (count >= 1).  Returns 0, or -1 when
 * memory ran out (s->failed is then set and later appends are ignored). */
int cp_seq_append(cp_seq *s, uint32_t id, uint64_t count);
/* Turn a partly matched repetition into plain runs, so that groups, runs and
 * total describe the sequence exactly (before packing or iterating). */
int cp_seq_finish(cp_seq *s);

/* The last `period` calls appended repeat `more` times more: when they
 * close a repetition of the last group (period a multiple of it), the group
 * is counted `more` periods further and 1 returned; else 0, and the caller
 * appends them itself.  Lets a merge of two cycling sequences append a
 * million repetitions at the cost of one. */
int cp_seq_repeat_last(cp_seq *s, uint64_t period, uint64_t more);

/* Give back the room the arrays hold beyond what they use. */
void cp_seq_compact(cp_seq *s);

/* Where calls of one id lengthen the last run in place, for as long as the
 * sequence is not changed otherwise (its `changes` stays the same): a
 * caller that appends the same id call after call keeps it, and counts a
 * call with two increments. */
typedef struct cp_seq_tail {
    uint64_t changes; /* s->changes when taken; 0: no place */
    cp_run *run;
} cp_seq_tail;

/* The place where calls of id lengthen the last run, if they can (the
 * sequence is not in a repetition, and its last run is id's, in an open
 * group); else a tail that cp_seq_tail_add refuses. */
cp_seq_tail cp_seq_tail_of(const cp_seq *s, uint32_t id);

/* Append one call of the tail's id, as cp_seq_append would: true, or false
 * when the sequence changed since the tail was taken (append then). */
static inline __attribute__((always_inline)) bool cp_seq_tail_add(cp_seq *s,
                                                                  const cp_seq_tail *t)
{
    if (__builtin_expect(t->changes != s->changes, 0))
        return false;
    t->run->len++;
    s->total++;
    return true;
}

/* Append n calls of the tail's id at once: true, or false (nothing done)
 * when the sequence changed since the tail was taken. */
static inline bool cp_seq_tail_add_n(cp_seq *s, const cp_seq_tail *t, uint64_t n)
{
    if (t->changes != s->changes)
        return false;
    t->run->len += n;
    s->total += n;
    return true;
}

/* Iterate a finished sequence run by run. */
typedef struct cp_seq_iter {
    const cp_seq *s;
    size_t g;      /* group */
    uint64_t rep;  /* repetition within the group */
    uint32_t k;    /* run within the group */
    uint64_t left; /* calls left in the current run */
    /* cp_seq_iter_seek's: the calls of one repetition of group period_of - 1
     * (0: none yet), so that a seek does not add up a group's runs again
     * at each of its repetitions. */
    size_t period_of;
    uint64_t period;
} cp_seq_iter;

void cp_seq_iter_init(cp_seq_iter *it, const cp_seq *s);
/* Current id and the number of calls left with it; id CP_SEQ_NONE with
 * UINT64_MAX calls once the sequence has ended. */
uint32_t cp_seq_iter_peek(const cp_seq_iter *it, uint64_t *left);
/* Skip n calls (n <= left of the current run). */
void cp_seq_iter_skip(cp_seq_iter *it, uint64_t n);
/* Is the iterator at the start of a repetition of a group that repeats at
 * least twice more (this one included)?  Then *period is the calls of one
 * repetition and *reps_left the repetitions left, this one included. */
bool cp_seq_iter_at_repetition(const cp_seq_iter *it, uint64_t *period, uint64_t *reps_left);
/* From the start of a repetition, skip n whole repetitions (n <= reps_left). */
void cp_seq_iter_skip_reps(cp_seq_iter *it, uint64_t n);

/* Move forward to the run that holds call index `call` (*at: the call index
 * at the start of the iterator's run, updated), whole repetitions of a
 * group at a time; returns that run's id (CP_SEQ_NONE past the end). */
uint32_t cp_seq_iter_seek(cp_seq_iter *it, uint64_t *at, uint64_t call);

/* Expand to one id per call (tests). Returns a malloc'ed array of s->total. */
uint32_t *cp_seq_expand(const cp_seq *s);

#endif
