/*
 * What the compact counts format's writer (compact_write.c) and parser
 * (compact_parse.c) both hold a block to, and its file names
 * (compact_grammar.h has the grammar).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact_grammar.h"
#include "file_names.h"
#include "search.h"

bool cp_compact_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
}


/* Interval of some row's ranks, for the "rank in two rows" check. */
typedef struct row_span {
    int64_t lo, hi;
    size_t row;
} row_span;

static int cmp_span(const void *pa, const void *pb)
{
    const row_span *a = pa, *b = pb;
    CP_ORDER_BY(a->lo, b->lo);
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Find two rows of b that share a rank.  Returns 0 when there are none,
 * 1 with *ra < *rb and *rank set when there are, -1 when out of memory.
 * O(n log n) in the number of intervals, whatever their order. */
int cp_compact_shared_rank(const cp_block *b, size_t *ra, size_t *rb, int64_t *rank)
{
    size_t total = 0;
    for (size_t i = 0; i < b->nrows; i++)
        total += b->rows[i].ranks.n;
    if (total < 2)
        return 0;
    row_span *s = malloc(total * sizeof *s);
    if (!s)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < b->nrows; i++)
        for (size_t j = 0; j < b->rows[i].ranks.n; j++) {
            s[k].lo = b->rows[i].ranks.v[j].lo;
            s[k].hi = b->rows[i].ranks.v[j].hi;
            s[k].row = i;
            k++;
        }
    qsort(s, total, sizeof *s, cmp_span);
    int found = 0;
    for (size_t i = 1; i < total; i++) {
        /* Sorted by lo: some pair overlaps iff some neighbours do. */
        if (s[i].lo <= s[i - 1].hi) {
            size_t x = s[i - 1].row, y = s[i].row;
            *ra = x < y ? x : y;
            *rb = x < y ? y : x;
            *rank = s[i].lo;
            found = 1;
            break;
        }
    }
    free(s);
    return found;
}


/* Is every value of set a in set b?  Both normalised. */
bool cp_compact_subset(const cp_ranges *a, const cp_ranges *b)
{
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && b->v[j].hi < a->v[i].lo)
            j++;
        if (j == b->n || b->v[j].lo > a->v[i].lo || b->v[j].hi < a->v[i].hi)
            return false;
    }
    return true;
}


/* What is wrong with a sparse or relative row of b, or NULL: its items in
 * increasing order of peer (offset), none zero, every peer of every rank of
 * the row below the row length; dense rows only where rows vary in length. */
const char *cp_compact_row_problem(const cp_block *b, const cp_row *row)
{
    if (row->form == CP_ROW_DENSE)
        return NULL;
    if (row->form != CP_ROW_SPARSE && row->form != CP_ROW_RELATIVE)
        return "unknown row form";
    if (cp_collective_rows_vary(b->collective))
        return "neighbourhood collectives have dense rows only";
    if (row->len != b->row_len)
        return "a sparse or relative row addresses every peer of the block";
    if (row->len <= 1)
        return "rows of one count are dense";
    if (row->nnz > 0 && !row->peers)
        return "no peers";
    int64_t lo = 0, hi = 0;
    if (row->form == CP_ROW_RELATIVE && row->ranks.n > 0) {
        lo = row->ranks.v[0].lo;
        hi = row->ranks.v[row->ranks.n - 1].hi;
    }
    for (size_t k = 0; k < row->nnz; k++) {
        if (k > 0 && row->peers[k] <= row->peers[k - 1])
            return row->form == CP_ROW_SPARSE ? "peers must be listed in increasing order, once"
                                              : "offsets must be listed in increasing order, once";
        if (row->counts[k] == 0)
            return "a listed count is 0 (sparse and relative rows list only non-zero counts)";
        int64_t p = row->peers[k];
        if (p > (int64_t)row->len || p < -(int64_t)row->len)
            return row->form == CP_ROW_SPARSE ? "a peer is not below the row length"
                                              : "an offset is larger than the row length";
        if (row->form == CP_ROW_SPARSE ? p < 0 || (uint64_t)p >= row->len
                                       : lo + p < 0 || hi + p < 0 || (uint64_t)(hi + p) >= row->len)
            return row->form == CP_ROW_SPARSE
                       ? "a peer is not below the row length"
                       : "an offset takes a rank of the row outside 0 .. row length - 1";
    }
    return NULL;
}


/* Has the block a sparse or relative row (version 5, "Row length:")? */
bool cp_compact_listed_rows(const cp_block *b)
{
    for (size_t r = 0; r < b->nrows; r++)
        if (b->rows[r].form != CP_ROW_DENSE)
            return true;
    return false;
}

/* ------------------------------------------------------------- file names */

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digits at *p (at least one, no overflow) into *v. */
static bool name_number(const char **p, int64_t *v)
{
    const char *s = *p;
    int64_t x = 0;
    if (!digit(*s))
        return false;
    while (digit(*s)) {
        int d = *s - '0';
        if (x > (INT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        s++;
    }
    *p = s;
    *v = x;
    return true;
}

int cp_compact_parse_name(const char *basename, int *direction, int64_t *lead)
{
    const char *s = strrchr(basename, '/');
    s = s ? s + 1 : basename;
    int dir;
    size_t n = sizeof CP_FILE_SEND_COUNTS - 1;
    _Static_assert(sizeof CP_FILE_SEND_COUNTS == sizeof CP_FILE_RECV_COUNTS, "one length");
    if (strncmp(s, CP_FILE_SEND_COUNTS ".", n + 1) == 0)
        dir = CP_SEND;
    else if (strncmp(s, CP_FILE_RECV_COUNTS ".", n + 1) == 0)
        dir = CP_RECV;
    else
        return -1;
    s += n + 1;
    int64_t job, rank;
    if (strncmp(s, "job", 3) == 0) { /* other tools: send-counters.job0.rank0.txt */
        s += 3;
        if (!name_number(&s, &job) || *s != '.')
            return -1;
        s++;
    }
    if (strncmp(s, "rank", 4) != 0)
        return -1;
    s += 4;
    if (!name_number(&s, &rank))
        return -1;
    if (strcmp(s, ".txt") != 0 && strcmp(s, ".txt.gz") != 0)
        return -1;
    if (direction)
        *direction = dir;
    if (lead)
        *lead = rank;
    return 0;
}

int cp_compact_file_name(char *buf, size_t size, int direction, int64_t lead, bool gz)
{
    return snprintf(buf, size, "%s.rank%" PRId64 ".txt%s",
                    direction == CP_SEND ? CP_FILE_SEND_COUNTS : CP_FILE_RECV_COUNTS, lead,
                    gz ? ".gz" : "");
}
