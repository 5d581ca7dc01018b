/* How many calls each member made of a series (calls_said.h). */
#include "calls_said.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void cp_said_init(cp_calls_said *s, int64_t lo, int64_t hi, uint64_t calls)
{
    memset(s, 0, sizeof *s);
    s->min = s->max = calls;
    if (hi <= lo)
        return;
    s->n = 1;
    s->v[0] = (cp_said_value){.calls = calls, .nranks = hi - lo, .nint = 1};
    s->v[0].lo[0] = lo;
    s->v[0].hi[0] = hi - 1;
}

/* Add x's intervals (all above v's) to v. */
static void add_intervals(cp_said_value *v, const cp_said_value *x)
{
    v->nranks += x->nranks;
    for (uint32_t i = 0; i < x->nint; i++) {
        if (v->nint && v->hi[v->nint - 1] + 1 == x->lo[i])
            v->hi[v->nint - 1] = x->hi[i];
        else if (v->nint < CP_SAID_INTERVALS) {
            v->lo[v->nint] = x->lo[i];
            v->hi[v->nint++] = x->hi[i];
        }
    }
}

void cp_said_merge(cp_calls_said *s, const cp_calls_said *x)
{
    cp_calls_said out = {.min = s->min < x->min ? s->min : x->min,
                         .max = s->max > x->max ? s->max : x->max,
                         .nother = s->nother + x->nother};
    uint32_t i = 0, j = 0;
    while (i < s->n || j < x->n) {
        const cp_said_value *a = i < s->n ? &s->v[i] : NULL, *b = j < x->n ? &x->v[j] : NULL;
        cp_said_value m;
        if (a && (!b || a->calls <= b->calls)) {
            m = *a;
            i++;
            if (b && b->calls == m.calls) {
                add_intervals(&m, b);
                j++;
            }
        } else {
            m = *b;
            j++;
        }
        if (out.n < CP_SAID_VALUES)
            out.v[out.n++] = m;
        else
            out.nother += m.nranks;
    }
    *s = out;
}

static int64_t listed(const cp_said_value *v)
{
    int64_t n = 0;
    for (uint32_t i = 0; i < v->nint; i++)
        n += v->hi[i] - v->lo[i] + 1;
    return n;
}

void cp_said_text(const cp_calls_said *s, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
#define PUT(...)                                                                    \
    do {                                                                            \
        int w_ = snprintf(out + at, at < len ? len - at : 0, __VA_ARGS__);          \
        at += w_ > 0 ? (size_t)w_ : 0;                                              \
    } while (0)
    for (uint32_t k = s->n; k-- > 0;) { /* most calls first */
        const cp_said_value *v = &s->v[k];
        PUT("%s%s ", k + 1 < s->n ? ", " : "", v->nranks == 1 ? "rank" : "ranks");
        for (uint32_t i = 0; i < v->nint; i++) {
            if (v->lo[i] == v->hi[i])
                PUT("%s%" PRId64, i ? "," : "", v->lo[i]);
            else
                PUT("%s%" PRId64 "-%" PRId64, i ? "," : "", v->lo[i], v->hi[i]);
        }
        if (listed(v) < v->nranks)
            PUT(" and %" PRId64 " more", v->nranks - listed(v));
        PUT(": %" PRIu64, v->calls);
    }
    if (s->nother)
        PUT(", %" PRId64 " other rank%s: other numbers", s->nother, s->nother == 1 ? "" : "s");
#undef PUT
    if (at >= len && len > 4)
        memcpy(out + len - 4, "...", 4);
}

void cp_said_pack(cp_wbuf *b, const cp_calls_said *s)
{
    cp_put_u32(b, s->n);
    cp_put_i64(b, s->nother);
    cp_put_u64(b, s->min);
    cp_put_u64(b, s->max);
    for (uint32_t k = 0; k < s->n; k++) {
        const cp_said_value *v = &s->v[k];
        cp_put_u64(b, v->calls);
        cp_put_i64(b, v->nranks);
        cp_put_u32(b, v->nint);
        cp_put(b, v->lo, v->nint * sizeof *v->lo);
        cp_put(b, v->hi, v->nint * sizeof *v->hi);
    }
}

int cp_said_unpack(cp_rbuf *b, cp_calls_said *s)
{
    memset(s, 0, sizeof *s);
    s->n = cp_get_u32(b);
    s->nother = cp_get_i64(b);
    s->min = cp_get_u64(b);
    s->max = cp_get_u64(b);
    if (b->bad || s->n > CP_SAID_VALUES || s->nother < 0 || s->min > s->max)
        return -1;
    for (uint32_t k = 0; k < s->n; k++) {
        cp_said_value *v = &s->v[k];
        v->calls = cp_get_u64(b);
        v->nranks = cp_get_i64(b);
        v->nint = cp_get_u32(b);
        if (b->bad || v->nint > CP_SAID_INTERVALS || v->nranks < 1)
            return -1;
        cp_get(b, v->lo, v->nint * sizeof *v->lo);
        cp_get(b, v->hi, v->nint * sizeof *v->hi);
        if (k && v->calls <= s->v[k - 1].calls)
            return -1;
        for (uint32_t i = 0; i < v->nint; i++)
            if (v->lo[i] < 0 || v->hi[i] < v->lo[i])
                return -1;
    }
    return b->bad ? -1 : 0;
}
