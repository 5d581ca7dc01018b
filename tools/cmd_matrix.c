/*
 * collprof matrix DIR --comm C --collective NAME --call K [--recv]
 *                 [--format text|csv|json] [--sparse | --dense]
 * The full count matrix of one call: one row per communicator rank; or its
 * non-zero counts only (the default in text beyond SPARSE_FROM peers).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "ranges.h"

enum format { FMT_TEXT, FMT_CSV, FMT_JSON };

/* Text rows longer than this are listed sparse unless --dense is given: a
 * row of 100,000 numbers is read by no one. */
#define SPARSE_FROM 64

/* rows[r]: the counts of communicator rank r, NULL when it has no row. */
static const cp_row **rank_rows(const cp_block *b)
{
    size_t n = b->nranks > 0 ? (size_t)b->nranks : 0;
    const cp_row **rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < b->nrows; i++)
        for (size_t k = 0; k < b->rows[i].ranks.n; k++)
            for (int64_t r = b->rows[i].ranks.v[k].lo; r <= b->rows[i].ranks.v[k].hi; r++) {
                if (r < 0 || (size_t)r >= n)
                    break; /* not below nranks: `collprof check` reports it */
                rows[r] = &b->rows[i];
            }
    return rows;
}

/* Rank r's count towards peer k (r has a row; k below its length). */
static int64_t value(const cp_row *const *rows, size_t r, size_t k)
{
    return cp_row_value(rows[r], (int64_t)r, k);
}

/* The non-zero counts of each rank: "rank 5: 4=8 6=8" (text), "rank,peer,
 * count" lines (CSV), [[peer, count], ...] per rank (JSON). */
static void print_sparse(const cp_block *b, const cp_row **rows, size_t n, enum format fmt)
{
    if (fmt == FMT_CSV)
        printf("rank,peer,count\n");
    for (size_t r = 0; r < n; r++) {
        if (fmt == FMT_TEXT)
            printf(rows[r] ? "rank %zu:" : "rank %zu: -", r);
        else if (fmt == FMT_JSON)
            printf(r ? (rows[r] ? ",[" : ",null") : (rows[r] ? "[" : "null"));
        size_t listed = 0;
        for (size_t i = 0, m = rows[r] ? cp_row_nitems(rows[r]) : 0; i < m; i++) {
            int64_t count, peer = cp_row_item(rows[r], (int64_t)r, i, &count);
            if (count == 0)
                continue;
            if (fmt == FMT_TEXT)
                printf(" %" PRId64 "=%" PRId64, peer, count);
            else if (fmt == FMT_CSV)
                printf("%zu,%" PRId64 ",%" PRId64 "\n", r, peer, count);
            else
                printf("%s[%" PRId64 ",%" PRId64 "]", listed ? "," : "", peer, count);
            listed++;
        }
        if (fmt == FMT_TEXT)
            printf(rows[r] && listed == 0 ? " (nothing)\n" : "\n");
        else if (fmt == FMT_JSON && rows[r])
            putchar(']');
    }
    (void)b;
}

static void print_matrix(const cp_block *b, const cp_row **rows, int64_t call, bool recv,
                         enum format fmt, bool sparse)
{
    size_t n = b->nranks > 0 ? (size_t)b->nranks : 0;
    if (sparse && fmt == FMT_JSON) {
        printf("{\"comm\":%" PRId64 ",\"collective\":", b->comm_id);
        cli_json_string(b->collective);
        printf(",\"call\":%" PRId64 ",\"direction\":\"%s\",\"datatype_size\":%" PRId64
               ",\"counts_in_bytes\":%s,\"sparse_rows\":[",
               call, recv ? "recv" : "send", b->dtsize, b->counts_in_bytes ? "true" : "false");
        print_sparse(b, rows, n, fmt);
        printf("]}\n");
        return;
    }
    if (sparse && fmt == FMT_CSV) {
        print_sparse(b, rows, n, fmt);
        return;
    }
    if (fmt == FMT_TEXT) {
        printf("communicator %" PRId64 ", %s, call %" PRId64, b->comm_id, b->collective, call);
        if (b->root >= 0)
            printf(", root %" PRId64, b->root);
        printf(", %s counts ", recv ? "receive" : "send");
        if (b->counts_in_bytes)
            printf("(counts in bytes)\n");
        else
            printf("(datatype size %" PRId64 " byte%s)\n", b->dtsize, b->dtsize == 1 ? "" : "s");
        if (b->invalid)
            printf("invalid call: a negative count was passed; the MPI library refuses such a "
                   "call, nothing moved\n");
        if (sparse) {
            printf("non-zero counts only, as peer=count\n");
            print_sparse(b, rows, n, fmt);
            return;
        }
        for (size_t r = 0; r < n; r++) {
            printf("rank %zu:", r);
            if (!rows[r])
                printf(" -");
            else
                for (size_t k = 0; k < rows[r]->len; k++)
                    printf(" %" PRId64, value(rows, r, k));
            putchar('\n');
        }
    } else if (fmt == FMT_CSV) {
        printf("rank");
        for (size_t k = 0; k < b->row_len; k++)
            printf(",peer%zu", k);
        putchar('\n');
        for (size_t r = 0; r < n; r++) {
            printf("%zu", r);
            /* Shorter rows (neighbourhood collectives) leave cells empty. */
            for (size_t k = 0; k < b->row_len; k++)
                if (!rows[r])
                    printf(",-");
                else if (k < rows[r]->len)
                    printf(",%" PRId64, value(rows, r, k));
                else
                    putchar(',');
            putchar('\n');
        }
    } else {
        printf("{\"comm\":%" PRId64 ",\"collective\":", b->comm_id);
        cli_json_string(b->collective);
        printf(",\"call\":%" PRId64 ",\"direction\":\"%s\",\"datatype_size\":%" PRId64
               ",\"counts_in_bytes\":%s,\"rows\":[",
               call, recv ? "recv" : "send", b->dtsize, b->counts_in_bytes ? "true" : "false");
        for (size_t r = 0; r < n; r++) {
            if (r)
                putchar(',');
            if (!rows[r]) {
                printf("null");
                continue;
            }
            putchar('[');
            for (size_t k = 0; k < rows[r]->len; k++)
                printf(k ? ",%" PRId64 : "%" PRId64, value(rows, r, k));
            putchar(']');
        }
        printf("]}\n");
    }
}

/* In a profile merged from partial profiles, the ranks with no row of the
 * call in either direction did not record it: they stopped before it (or
 * left no profile).  Said under the text matrix; a whole profile has rows
 * where a rank passed counts, and "-" means it passed none this way (a
 * rooted collective's other ranks). */
static void say_unrecorded(const cp_profile *p, const cp_block *b, const cp_row **rows,
                           bool recv, int64_t call)
{
    if (!p->npartials)
        return;
    const cp_block *o = cp_profile_find(p, b->comm_id, b->collective, recv ? CP_SEND : CP_RECV,
                                        call);
    cp_ranges none = {0};
    for (int64_t r = 0; r < b->nranks; r++)
        if (!rows[r] && !(o && cp_block_row(o, r)) && cp_ranges_add(&none, r))
            break;
    char *list = none.n ? cp_ranges_to_string(&none) : NULL;
    if (list)
        printf("-: %s %s recorded no call %" PRId64 " in either direction: the run stopped "
               "before %s entered it (`collprof summary` says where each rank stopped)\n",
               cp_ranges_count(&none) == 1 ? "rank" : "ranks", list, call,
               cp_ranges_count(&none) == 1 ? "it" : "they");
    free(list);
    cp_ranges_free(&none);
}

/* Explain why (comm, collective, direction, call) is not there. */
static void not_found(const cp_profile *p, int64_t comm, const char *coll, bool recv,
                      int64_t call)
{
    const char *what = recv ? "receive" : "send";
    cp_ranges calls = {0};
    char *list = NULL;
    if (cp_profile_calls(p, comm, coll, recv ? CP_RECV : CP_SEND, &calls) == 0 && calls.n &&
        (list = cp_ranges_to_string(&calls))) {
        /* the name as the files write it */
        const cp_block *any =
            cp_profile_find(p, comm, coll, recv ? CP_RECV : CP_SEND, calls.v[0].lo);
        fprintf(stderr,
                "collprof: %s: communicator %" PRId64 ", %s: no call %" PRId64
                " with %s counts; calls with %s counts: %s\n",
                p->dir, comm, any ? any->collective : coll, call, what, what, list);
        free(list);
        cp_ranges_free(&calls);
        return;
    }
    cp_ranges_free(&calls);
    /* which collectives does the communicator have, which communicators exist */
    cp_summary_row *rows = NULL;
    size_t nrows = 0;
    cp_ranges comms = {0};
    if (cp_profile_summarize(p, &rows, &nrows, NULL) < 0)
        nrows = 0;
    size_t ncoll = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (cp_ranges_add(&comms, rows[i].comm) < 0)
            break;
        ncoll += rows[i].comm == comm;
    }
    if (ncoll) {
        fprintf(stderr, "collprof: %s: communicator %" PRId64 " has no %s counts of %s; its collectives:",
                p->dir, comm, what, coll);
        const char *sep = " ";
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].comm == comm) {
                fprintf(stderr, "%s%s", sep, rows[i].collective);
                sep = ", ";
            }
        fputc('\n', stderr);
    } else {
        list = cp_ranges_to_string(&comms);
        fprintf(stderr, "collprof: %s: no communicator %" PRId64 " with counts; communicators: %s\n",
                p->dir, comm, list && list[0] ? list : "none");
        free(list);
    }
    cp_ranges_free(&comms);
    free(rows);
}

int cli_matrix_run(const cli_command *self, int argc, char **argv)
{
    const char *dir, *comm_s = NULL, *coll = NULL, *call_s = NULL, *fmt_s = "text",
               *callsite = NULL;
    bool recv = false, sparse = false, dense = false;
    const cli_opt opts[] = {{"--comm", &comm_s, NULL},  {"--collective", &coll, NULL},
                            {"--call", &call_s, NULL},  {"--format", &fmt_s, NULL},
                            {"--recv", NULL, &recv},    {"--callsite", &callsite, NULL},
                            {"--sparse", NULL, &sparse}, {"--dense", NULL, &dense},
                            {NULL}};
    int prc = cli_parse_args(self, argc, argv, opts, &dir);
    if (prc != CLI_OK)
        return prc;
    if (!comm_s || !coll || !call_s)
        return cli_usage_error(self, "--comm, --collective and --call are required");
    if (sparse && dense)
        return cli_usage_error(self, "--sparse and --dense exclude each other");
    int64_t comm, call;
    if (cli_int64(self, "--comm", comm_s, &comm) < 0 || cli_int64(self, "--call", call_s, &call) < 0)
        return CLI_USAGE;
    enum format fmt;
    if (strcmp(fmt_s, "text") == 0)
        fmt = FMT_TEXT;
    else if (strcmp(fmt_s, "csv") == 0)
        fmt = FMT_CSV;
    else if (strcmp(fmt_s, "json") == 0)
        fmt = FMT_JSON;
    else
        return cli_usage_error(self, "--format expects text, csv or json, not '%s'", fmt_s);

    cp_profile p;
    int rc = cli_load_callsite(self, dir, callsite, &p);
    if (rc != CLI_OK)
        return rc;
    const cp_block *b = cp_profile_find(&p, comm, coll, recv ? CP_RECV : CP_SEND, call);
    if (!b && callsite) {
        fprintf(stderr, "collprof: call %" PRId64 " of %s on communicator %" PRId64
                        " was not issued from call path %s\n", call, coll, comm, callsite);
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    if (!b) {
        not_found(&p, comm, coll, recv, call);
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    const cp_row **rows = rank_rows(b);
    if (!rows) {
        fprintf(stderr, "collprof: out of memory for %" PRId64 " ranks\n", b->nranks);
        cp_profile_free(&p);
        return CLI_BAD_INPUT;
    }
    if (!sparse && !dense && fmt == FMT_TEXT && b->row_len > SPARSE_FROM)
        sparse = true;
    print_matrix(b, rows, call, recv, fmt, sparse);
    if (fmt == FMT_TEXT)
        say_unrecorded(&p, b, rows, recv, call);
    free(rows);
    cp_profile_free(&p);
    return CLI_OK;
}
