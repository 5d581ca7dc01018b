/*
 * Messages between ranks run one by one, for the unit tests of the stages
 * that run over a carrier (merge/tree_reduce.h): what a rank sends
 * waits here until the rank it is for runs and asks for it.
 */
#ifndef CPT_MAILBOX_H
#define CPT_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#include "tree_reduce.h"

typedef struct tmail {
    int64_t from, to;
    char *p;
    size_t len;
} tmail;

typedef struct tmailbox {
    tmail m[256];
    size_t n;
    int64_t self;         /* the rank running */
    int64_t corrupt_from; /* messages from this rank lose their last byte (-1: none) */
} tmailbox;

/* A carrier over b; a rank asking for a message nobody sent fails the test. */
cp_tree_io tmailbox_io(tmailbox *b);
/* Frees what no rank asked for; returns how many messages that was. */
size_t tmailbox_drain(tmailbox *b);

#endif
