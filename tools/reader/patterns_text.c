/*
 * The classes of a pattern as one line of text (`collprof patterns`):
 * "uniform; sparse: 25% of peers; one hot rank: rank 0 receives 100% of the
 * bytes".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "ranges.h"
#include "reader_internal.h"

/* The text as it grows: the model's byte buffer (bytes.h). */
typedef cp_bytes text;

static void sep(text *t)
{
    if (t->len)
        cp_bytes_printf(t, "; ");
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
        cp_bytes_printf(t, "one hot rank: %srank %" PRId64 " %s %d%% of the bytes", remote,
                        h->ranks.v[0].lo, verb1, h->percent);
        return;
    }
    char *list = cp_ranges_to_string(&h->ranks);
    if (list && strlen(list) > 40) {
        size_t keep = 40;
        while (keep > 0 && list[keep] != ',')
            keep--;
        strcpy(list + keep, keep ? ",..." : "...");
    }
    cp_bytes_printf(t,
                    "concentrated: %sranks %s (%" PRId64 " of %" PRId64 ") %s %d%% of the bytes",
                    remote, list ? list : "?", h->count, h->population, verb, h->percent);
    free(list);
}

int cp_pattern_classes_text(const cp_pattern *pat, char *buf, size_t size)
{
    text t = {0};
    unsigned c = pat->classes;
    if (c & CP_PATTERN_EMPTY)
        cp_bytes_printf(&t, "empty");
    if (c & CP_PATTERN_UNIFORM)
        cp_bytes_printf(&t, "uniform");
    if (c & CP_PATTERN_SPARSE) {
        sep(&t);
        if (pat->percent_peers < 1)
            cp_bytes_printf(&t, "sparse: <1%% of peers");
        else
            cp_bytes_printf(&t, "sparse: %d%% of peers", pat->percent_peers);
    }
    if (c & CP_PATTERN_BANDED) {
        sep(&t);
        cp_bytes_printf(&t, "banded: |i-j| <= %" PRId64, pat->band);
    }
    /* receivers of an intercommunicator's matrix are the remote group */
    if (c & CP_PATTERN_HOT_RECEIVERS)
        hot(&t, &pat->hot_recv, pat->inter, "receives",
            "receive");
    if (c & CP_PATTERN_HOT_SENDERS)
        hot(&t, &pat->hot_send, false, "sends", "send");
    if (t.len == 0)
        cp_bytes_printf(&t, "-");
    /* snprintf's contract: as much as fits, and the length of the whole */
    if (t.failed)
        snprintf(buf, size, "?");
    else
        snprintf(buf, size, "%s", (const char *)t.p);
    size_t len = t.failed ? 1 : t.len;
    cp_bytes_free(&t);
    return len > (size_t)INT32_MAX ? INT32_MAX : (int)len;
}
