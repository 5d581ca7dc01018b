/*
 * The MPI-free half of --tune, which the unit tests drive alone:
 *   algo_names.c   the names of MPICH's algorithms, read from the
 *                  description of its control variables
 *   tune_choice.c  the numbers: a pattern's times over the rounds, its
 *                  winner, and a collective's one setting over its patterns
 */
#ifndef CP_REPLAY_TUNING_H
#define CP_REPLAY_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_ALGO_NAME 64 /* a name's bytes, with its terminating zero */
#define REPLAY_ALGO_MAX 32  /* algorithms of one control variable, at the most */

/* MPICH lists the values of such a variable in its description, one per
 * line ("auto - Internal algorithm selection ...", "nb - Force nonblocking
 * algorithm", ...), in the order of the values the variable takes (0, 1,
 * ...); MPI_T gives the text with the line ends removed, so each name is
 * glued to the last word of the line before ("...algorithmscattered").
 * This finds the names again: the glued word is one MPICH ends its lines
 * with, and where two readings remain ("algorithm" + "scattered" or
 * "algorithms" + "cattered"), the one whose prefix its siblings share
 * ("sched_", "tsp_") or whose words its own line names wins.  Returns the
 * number of names (names[0] is "auto", the library's own choice), or -1
 * when the text cannot be read without guessing: then nothing is chosen. */
int replay_mpich_algo_names(const char *desc, char names[][REPLAY_ALGO_NAME], int max);

/* The algorithms one control variable of the library chooses between
 * (algorithms.c finds them). */
typedef struct replay_algos {
    char cvar[96];            /* its name ("" when there is none) */
    int index;                /* its MPI_T index, -1 */
    int n;                    /* algorithms; 0 when none can be chosen (why says why) */
    char names[REPLAY_ALGO_MAX][REPLAY_ALGO_NAME]; /* [0]: the library's own choice */
    int values[REPLAY_ALGO_MAX];                    /* the variable's value of each */
    bool new_comm;            /* a choice is taken by communicators made after it */
    const char *untried[REPLAY_ALGO_MAX]; /* why algorithm k is never tried (NULL: it is):
                                             the library aborts the process with it */
    char why[320];
} replay_algos;

/* One algorithm on one pattern: seconds per call of the slowest rank (IMB's
 * t_max; t_pure for a non-blocking pattern), over the rounds. */
typedef struct replay_tune_time {
    int rounds;               /* rounds measured (0: refused or not chosen) */
    double median, lo, hi;    /* the median round, the fastest, the slowest */
    bool refused;             /* the library returned an error: it cannot serve this pattern */
    const char *untried;      /* not tried, and why (replay_algos.untried) */
} replay_tune_time;

typedef struct replay_tuned {
    replay_algos algos;       /* of the pattern's collective and communicator */
    int64_t ranks;            /* of its communicator (both groups) */
    replay_tune_time t[REPLAY_ALGO_MAX];
    int best;                 /* the lowest median (0: the library's own choice) */
    bool clear;               /* best's slowest round is faster than the own choice's fastest */
    char cut[160];            /* why fewer rounds than asked were measured ("" when all) */
} replay_tuned;

/* The times of n rounds (v is reordered) into t. */
void replay_tune_summarise(double *v, int n, replay_tune_time *t);
/* tu->best and tu->clear from tu->t: a winner is called only when its
 * slowest round beats the library's own choice's fastest. */
void replay_tune_winner(replay_tuned *tu);

/* A pattern as the choice of a collective's setting sees it. */
typedef struct replay_tune_use {
    const replay_tuned *t;
    int64_t calls;            /* the application's calls of the pattern */
    double recorded;          /* their recorded seconds; < 0 when the profile has no timings */
    int64_t size;             /* ranks of its communicator */
} replay_tune_use;

/* One collective's setting: the algorithm that costs the recorded calls of
 * all its patterns least, and the saving against the library's own choice,
 * with its bounds from the rounds' spread (lo: every algorithm at its
 * least favourable round).  A refused algorithm leaves a pattern to the
 * library's own choice, as MPICH does outside --tune. */
typedef struct replay_tune_choice {
    int k;                    /* the algorithm; 0: keep the library's own */
    bool clear;               /* lo > 0: a saving beyond the noise */
    double saving, lo, hi;    /* seconds over the recorded calls */
    int64_t calls;
    double recorded;          /* < 0: not known */
} replay_tune_choice;

/* Over the uses whose control variable is cvar (those with algorithms and
 * a measured own choice), of communicators of `size` ranks (-1: any). */
replay_tune_choice replay_tune_choose(const replay_tune_use *u, size_t n, const char *cvar,
                                      int64_t size);

#endif
