/*
 * collprof patterns DIR: per communicator, its send matrices ranked by calls
 * and by bytes with their classes, then for every matrix (send and receive)
 * how many other ranks each rank addresses (DESIGN.md section 4).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranges.h"
#include "table.h"

/* A call list, cut after about 40 characters at a comma (as `summary`). */
static char *calls_text(const cp_ranges *calls)
{
    char *list = cp_ranges_to_string(calls);
    if (list && strlen(list) > 40) {
        size_t keep = 40;
        while (keep > 0 && list[keep] != ',')
            keep--;
        strcpy(list + keep, keep ? ",..." : "...");
    }
    return list;
}

static int ranking(const cp_comm_patterns *c)
{
    static const char *const headers[] = {"by calls", "by bytes", "collective", "calls",
                                          "bytes",    "which calls", "pattern"};
    static const bool right[] = {true, true, false, true, true, false, false};
    cli_table *t = cli_table_new(7, headers, right);
    if (!t)
        return -1;
    size_t *bytes_rank = malloc(c->nblocks * sizeof *bytes_rank);
    int rc = bytes_rank ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < c->nsend; i++)
        bytes_rank[c->by_bytes[i]] = i + 1;
    for (size_t i = 0; rc == 0 && i < c->nsend; i++) {
        const cp_pattern *pat = &c->blocks[c->by_calls[i]];
        char classes[512];
        cp_pattern_classes_text(pat, classes, sizeof classes);
        char *list = calls_text(&pat->b->calls);
        rc = !list || cli_table_cell(t, "%zu", i + 1) < 0 ||
                     cli_table_cell(t, "%zu", bytes_rank[c->by_calls[i]]) < 0 ||
                     cli_table_cell(t, "%s", pat->b->collective) < 0 ||
                     cli_table_cell(t, "%" PRId64, pat->calls) < 0 ||
                     cli_table_cell(t, "%" PRId64, pat->bytes) < 0 ||
                     cli_table_cell(t, "%s", list) < 0 || cli_table_cell(t, "%s", classes) < 0
                 ? -1
                 : 0;
        free(list);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = rc == 0 ? open_memstream(&text, &len) : NULL;
    if (mem) {
        cli_table_print(t, mem);
        fclose(mem);
    }
    if (!text) {
        rc = -1;
    } else {
        /* indented under its communicator */
        printf("\n  send matrices, ranked by calls and by bytes:\n");
        for (char *line = text; *line;) {
            size_t n = strcspn(line, "\n");
            printf("  %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
    free(text);
    free(bytes_rank);
    cli_table_free(t);
    return rc;
}

static void group_line(const cp_pattern *pat, const cp_peer_group *g)
{
    bool send = pat->direction == CP_SEND, one = g->ranks == 1;
    const char *verb = send ? (one ? "sends to" : "send to")
                            : (one ? "receives from" : "receive from");
    printf("    %" PRId64 " rank%s %s ", g->ranks, one ? "" : "s", verb);
    if (g->peers == CP_PEERS_UNKNOWN)
        printf("an unknown number of neighbours (no neighbour lists in the manifest)\n");
    else
        printf("%" PRId64 " other rank%s\n", g->peers, g->peers == 1 ? "" : "s");
}

/* The recorded time of a send matrix's calls (timings.cpt's sample). */
static void time_line(const cp_pattern_time *t)
{
    char med[32], lo[32], hi[32], w[32];
    if (!t)
        return;
    if (t->instances == 0) {
        printf("    time: none of its calls is in the timed sample\n");
        return;
    }
    printf("    time: median %s (min %s, max %s) over %" PRIu64 " timed rank-call%s of %" PRIu64
           " call%s",
           cp_reader_duration(t->median, "us", med, sizeof med),
           cp_reader_duration(t->min, "us", lo, sizeof lo),
           cp_reader_duration(t->max, "us", hi, sizeof hi), t->instances,
           t->instances == 1 ? "" : "s", t->calls, t->calls == 1 ? "" : "s");
    if (t->wait_instances)
        printf("; waiting %s in all (%" PRIu64 " wait-state instance%s)\n",
               cp_reader_duration(t->wait, "us", w, sizeof w), t->wait_instances,
               t->wait_instances == 1 ? "" : "s");
    else
        printf("; no waiting\n");
}

static int peers_of_block(const cp_pattern *pat, const cp_pattern_time *times, size_t ntimes)
{
    const cp_block *b = pat->b;
    char *list = calls_text(&b->calls);
    if (!list)
        return -1;
    printf("\n  %s", b->collective);
    if (b->root >= 0)
        printf(", root %" PRId64, b->root);
    printf(", %s, call%s %s:\n", pat->direction == CP_SEND ? "send" : "receive",
           pat->calls == 1 ? "" : "s", list);
    free(list);
    if (pat->direction == CP_SEND)
        time_line(cp_pattern_time_find(times, ntimes, b));
    if (b->row_len == 0 && pat->ranks_with_row > 0)
        printf("    %" PRId64 " rank%s pass%s no counts\n", pat->ranks_with_row,
               pat->ranks_with_row == 1 ? "" : "s", pat->ranks_with_row == 1 ? "es" : "");
    else
        for (size_t g = 0; g < pat->ngroups; g++)
            group_line(pat, &pat->groups[g]);
    int64_t without = b->nranks - pat->ranks_with_row;
    if (without > 0)
        printf("    %" PRId64 " rank%s no %s counts\n", without, without == 1 ? " has" : "s have",
               pat->direction == CP_SEND ? "send" : "receive");
    return 0;
}

static int print_comm(const cp_comm_patterns *c, const cp_pattern_time *times, size_t ntimes)
{
    size_t nrecv = c->nblocks - c->nsend;
    printf("communicator %" PRId64 ": %" PRId64 " rank%s", c->comm, c->size,
           c->size == 1 ? "" : "s");
    if (c->lead >= 0)
        printf(", lead %" PRId64, c->lead);
    if (c->inter)
        printf(", intercommunicator group");
    printf(", %zu send matri%s, %zu receive matri%s\n", c->nsend, c->nsend == 1 ? "x" : "ces",
           nrecv, nrecv == 1 ? "x" : "ces");
    if (c->nsend && ranking(c) < 0)
        return -1;
    for (size_t i = 0; i < c->nblocks; i++)
        if (peers_of_block(&c->blocks[i], times, ntimes) < 0)
            return -1;
    return 0;
}

int cli_patterns_read(cp_profile *p)
{
    int rc = CLI_OK;
    cp_comm_patterns *c = NULL;
    size_t n = 0;
    cp_error err = {{0}};
    if (cp_profile_patterns(p, &c, &n, &err) < 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        return CLI_BAD_INPUT;
    }
    cp_pattern_time *times = NULL;
    size_t ntimes = 0;
    if (cp_profile_pattern_times(p, &times, &ntimes, &err) < 0) {
        fprintf(stderr, "collprof: %s\n", err.msg);
        cp_comm_patterns_free(c, n);
        return CLI_BAD_INPUT;
    }
    if (n == 0)
        printf("no collective calls recorded\n");
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        if (i)
            putchar('\n');
        if (print_comm(&c[i], times, ntimes) < 0) {
            fprintf(stderr, "collprof: out of memory\n");
            rc = CLI_BAD_INPUT;
        }
    }
    free(times);
    cp_comm_patterns_free(c, n);
    return rc;
}
