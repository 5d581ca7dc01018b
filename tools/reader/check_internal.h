/*
 * What the files of cp_profile_check share (not installed): the checker
 * that counts and prints the problems.  check.c checks the count files and
 * the manifest; check_timing.c the files of a timed run.
 */
#ifndef COLLPROF_CHECK_INTERNAL_H
#define COLLPROF_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "reader_internal.h"

typedef struct checker {
    const cp_profile *p;
    FILE *out;     /* where problems go, one line each; may be NULL */
    long problems;
    bool oom;      /* something was not checked for want of memory */
} checker;

/* One problem: printf(fmt, ...) and a newline to c->out; counted. */
void cp_check_problem(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* profile.cubex, profile.stat and timings.cpt: each parses, and they agree
 * with each other, with the manifest and with the count files
 * (check_timing.c). */
void cp_check_timing_files(checker *c);
/* The cube's visits of each collective against the calls the count files
 * record (check_visits.c). */
void cp_check_visits(checker *c, const cp_cube *cube);

#endif
