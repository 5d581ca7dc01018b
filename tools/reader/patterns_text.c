/*
 * The classes of a pattern as one line of text (`collprof patterns`):
 * "uniform; sparse: 25% of peers; one hot rank: rank 0 receives 100% of the
 * bytes".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "reader_internal.h"

typedef struct text {
    char *buf;
    size_t size, len; /* len: what the whole text needs, as snprintf counts */
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->size ? t->size - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static void sep(text *t)
{
    if (t->len)
        put(t, "; ");
}

/* "one hot rank: rank 0 receives 100% of the bytes", or for several
 * "concentrated: ranks 0-3 (4 of 40) receive 80% of the bytes"; the list is
 * cut after about 40 characters. */
static void hot(text *t, const cp_hot_ranks *h, bool inter_peers, const char *verb1,
                const char *verb)
{
    const char *remote = inter_peers ? "remote " : "";
    sep(t);
    if (h->count == 1) {
        put(t, "one hot rank: %srank %" PRId64 " %s %d%% of the bytes", remote, h->ranks.v[0].lo,
            verb1, h->percent);
        return;
    }
    char *list = cp_ranges_to_string(&h->ranks);
    if (list && strlen(list) > 40) {
        size_t keep = 40;
        while (keep > 0 && list[keep] != ',')
            keep--;
        strcpy(list + keep, keep ? ",..." : "...");
    }
    put(t, "concentrated: %sranks %s (%" PRId64 " of %" PRId64 ") %s %d%% of the bytes", remote,
        list ? list : "?", h->count, h->population, verb, h->percent);
    free(list);
}

int cp_pattern_classes_text(const cp_pattern *pat, char *buf, size_t size)
{
    text t = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    unsigned c = pat->classes;
    if (c & CP_PATTERN_EMPTY)
        put(&t, "empty");
    if (c & CP_PATTERN_UNIFORM)
        put(&t, "uniform");
    if (c & CP_PATTERN_SPARSE) {
        sep(&t);
        if (pat->percent_peers < 1)
            put(&t, "sparse: <1%% of peers");
        else
            put(&t, "sparse: %d%% of peers", pat->percent_peers);
    }
    if (c & CP_PATTERN_BANDED) {
        sep(&t);
        put(&t, "banded: |i-j| <= %" PRId64, pat->band);
    }
    /* receivers of an intercommunicator's matrix are the remote group */
    if (c & CP_PATTERN_HOT_RECEIVERS)
        hot(&t, &pat->hot_recv, pat->inter, "receives",
            "receive");
    if (c & CP_PATTERN_HOT_SENDERS)
        hot(&t, &pat->hot_send, false, "sends", "send");
    if (t.len == 0)
        put(&t, "-");
    return t.len > (size_t)INT32_MAX ? INT32_MAX : (int)t.len;
}
