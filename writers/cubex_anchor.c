/*
 * anchor.xml of profile.cubex (cubex_internal.h, docs/formats.md): writer,
 * and a reader of the layout it writes, on the XML tokenizer of xml.h.
 *
 * The layout follows what Cube's own writer (cubew) emits and its reader's
 * grammar (cubelib's Cube4Parser) accepts: the XML declaration, <cube
 * version="4.4">, <attr>s, <doc>, <metrics>, <program> (regions first, then
 * the nested cnodes), <system> with the system tree and, inside it,
 * <topologies>.  Values are written as element text or attribute values,
 * escaped; bytes that XML cannot carry (control characters, invalid UTF-8)
 * become '?', so that the reader, which refuses them, reads back exactly
 * what was written.
 *
 * The reader is a recursive-descent reader of that fixed hierarchy.
 * Nothing recurses on the input's nesting: cnodes, the only element that
 * nests freely, are read in a loop that follows the parent links.  Every
 * string is bounded by its model field.  Errors read
 * "<name>: anchor.xml:<line>: expected ..., found ...".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubex_internal.h"
#include "textio.h"
#include "xml.h"
#include "grow.h"

#define ANCHOR "anchor.xml"
#define CUBE_VERSION "4.4"

const char *const cp_cubex_reserved_attrs[CP_CUBEX_RESERVED_ATTRS] = {
    "CubePL Version", "Cube Version", "Cube anchor.xml syntax version"};
/* Their values: CubePL 1.1 is what Cube's readers expect of a 4.4 file. */
static const char *const reserved_values[CP_CUBEX_RESERVED_ATTRS] = {"1.1", CUBE_VERSION,
                                                                     CUBE_VERSION};

bool cp_cubex_reserved_attr(const char *key)
{
    for (int i = 0; i < CP_CUBEX_RESERVED_ATTRS; i++)
        if (strcmp(key, cp_cubex_reserved_attrs[i]) == 0)
            return true;
    return false;
}

/* ================================================================ writer */

/* The text goes into a cp_bytes, whose failure is sticky:
 * cp_cubex_anchor_write checks once, at the end. */
static void put(cp_bytes *b, const char *s)
{
    cp_bytes_append(b, s, strlen(s));
}

/* A fixed-size field (checked NUL-terminated by cp_cubex_check). */
#define ESC(b, f) cp_xml_put_escaped((b), (f), strnlen((f), sizeof(f)))

/* "<tag>value</tag>\n" after indent. */
static void put_leaf(cp_bytes *b, const char *indent, const char *tag, const char *v, size_t n)
{
    cp_bytes_printf(b, "%s<%s>", indent, tag);
    cp_xml_put_escaped(b, v, n);
    cp_bytes_printf(b, "</%s>\n", tag);
}
#define LEAF(b, indent, tag, f) put_leaf((b), (indent), (tag), (f), strnlen((f), sizeof(f)))

/* Metric i and, nested in it, the metrics whose parent it is (the array is
 * in the tree's pre-order, so ids are array positions). */
static size_t write_metric(const cp_cube *c, cp_bytes *b, size_t i, int depth)
{
    const cp_cube_metric *m = &c->metrics[i];
    const char *dt = m->dtype == CP_CUBE_UINT64 ? "UINT64" : "DOUBLE";
    char ind[40];
    int n = depth < 16 ? 2 * depth : 32;
    memset(ind, ' ', (size_t)n + 2);
    ind[n + 2] = '\0';
    cp_bytes_printf(b, "%.*s<metric id=\"%zu\" type=\"EXCLUSIVE\">\n", n, ind, i);
    LEAF(b, ind, "disp_name", m->disp_name);
    LEAF(b, ind, "uniq_name", m->uniq_name);
    cp_bytes_printf(b, "%s<dtype>%s</dtype>\n", ind, dt);
    LEAF(b, ind, "uom", m->uom);
    cp_bytes_printf(b, "%s<val></val>\n", ind);
    LEAF(b, ind, "url", m->url);
    LEAF(b, ind, "descr", m->descr);
    size_t next = i + 1;
    while (next < c->nmetrics && !strcmp(c->metrics[next].parent, m->uniq_name))
        next = write_metric(c, b, next, depth + 1);
    cp_bytes_printf(b, "%.*s</metric>\n", n, ind);
    return next;
}

static void write_metrics(const cp_cube *c, cp_bytes *b)
{
    put(b, "<metrics>\n");
    for (size_t i = 0; i < c->nmetrics;)
        i = write_metric(c, b, i, 1);
    put(b, "</metrics>\n");
}

/* b to the sink when it holds a chunk; -1 when the sink failed. */
static int chunk(cp_bytes *b, const cp_anchor_sink *sink)
{
    if (b->failed)
        return -1;
    return b->len >= CP_CUBEX_ANCHOR_CHUNK ? sink->flush(sink->ctx, b) : 0;
}

static int write_regions(const cp_cube *c, cp_bytes *b, const cp_anchor_sink *sink)
{
    for (size_t i = 0; i < c->nregions; i++) {
        if (chunk(b, sink) < 0)
            return -1;
        const cp_cube_region *r = &c->regions[i];
        cp_bytes_printf(b, "  <region id=\"%zu\" mod=\"", i);
        ESC(b, r->mod);
        cp_bytes_printf(b, "\" begin=\"%" PRId64 "\" end=\"%" PRId64 "\">\n", r->begin, r->end);
        LEAF(b, "    ", "name", r->name);
        LEAF(b, "    ", "mangled_name", r->mangled_name);
        LEAF(b, "    ", "paradigm", r->paradigm);
        LEAF(b, "    ", "role", r->role);
        LEAF(b, "    ", "url", r->url);
        LEAF(b, "    ", "descr", r->descr);
        put(b, "  </region>\n");
    }
    return 0;
}

/* The call tree: nodes are in pre-order, so walking them in id order and
 * closing, before each node, the open nodes that are not its parent nests
 * the elements correctly.  One line per node, no indentation by depth (a
 * deep tree would otherwise cost quadratic space). */
static int write_cnodes(const cp_cube *c, cp_bytes *b, const cp_anchor_sink *sink)
{
    int64_t open = -1; /* innermost open node */
    for (size_t i = 0; i < c->ncnodes; i++) {
        const cp_cube_cnode *n = &c->cnodes[i];
        if (chunk(b, sink) < 0)
            return -1;
        for (; open != n->parent; open = c->cnodes[open].parent)
            put(b, "  </cnode>\n");
        cp_bytes_printf(b, "  <cnode id=\"%zu\"", i);
        if (n->line != -1)
            cp_bytes_printf(b, " line=\"%" PRId64 "\"", n->line);
        if (n->mod[0]) {
            put(b, " mod=\"");
            ESC(b, n->mod);
            put(b, "\"");
        }
        cp_bytes_printf(b, " calleeId=\"%" PRId64 "\">\n", n->region);
        open = (int64_t)i;
    }
    for (; open != -1; open = c->cnodes[open].parent)
        put(b, "  </cnode>\n");
    return 0;
}

/* One process with its thread: location l is world rank first_rank + l
 * (0 but in a rank's own partial profile), both with Id l.  Written without printf: a million ranks make 300 MB of these,
 * twice (anchor.xml's size is counted first); with printf they took 1.3 s
 * of rank 0's 1.9 s of own work at that size (the scale simulator). */
#define PROCESS_0 "      <locationgroup Id=\""
#define PROCESS_1 "\">\n        <name>MPI Rank "
#define PROCESS_2 "</name>\n        <rank>"
#define PROCESS_3 "</rank>\n        <type>process</type>\n        <location Id=\""
#define PROCESS_4                                                                             \
    "\">\n          <name>Master thread</name>\n          <rank>0</rank>\n"                    \
    "          <type>thread</type>\n        </location>\n      </locationgroup>\n"
#define PART(s) {s, sizeof s - 1}

static void write_process(cp_bytes *b, size_t l, int64_t first_rank)
{
    static const struct { const char *s; size_t n; } part[5] = {
        PART(PROCESS_0), PART(PROCESS_1), PART(PROCESS_2), PART(PROCESS_3), PART(PROCESS_4)};
    char d[24], r[24];
    const char *id = cp_format_i64(d, (int64_t)l),
               *rank = cp_format_i64(r, first_rank + (int64_t)l);
    size_t nd = (size_t)(d + sizeof d - id), nr = (size_t)(r + sizeof r - rank);
    size_t need = 2 * nd + 2 * nr + 1;
    for (int i = 0; i < 5; i++)
        need += part[i].n;
    if (!cp_bytes_reserve(b, need))
        return;
    char *p = (char *)b->p + b->len;
    for (int i = 0; i < 5; i++) {
        memcpy(p, part[i].s, part[i].n);
        p += part[i].n;
        if (i < 4) { /* Id, name and rank, the location's Id */
            bool is_rank = i == 1 || i == 2;
            memcpy(p, is_rank ? rank : id, is_rank ? nr : nd);
            p += is_rank ? nr : nd;
        }
    }
    *p = '\0'; /* as cp_bytes_printf leaves it */
    b->len = (size_t)(p - (char *)b->p);
}

/* machine -> one node per host -> its ranks' processes, in rank order.  The
 * ranks are sorted by host first (counting sort), so that many hosts and
 * many ranks cost their sum, not their product.  -1 when out of memory. */
static int write_system(const cp_cube *c, cp_bytes *b, const cp_anchor_sink *sink)
{
    size_t *start = calloc(c->nhosts + 1, sizeof *start);
    size_t *order = malloc((c->nlocations ? c->nlocations : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return -1;
    }
    for (size_t l = 0; l < c->nlocations; l++)
        start[c->location_host[l] + 1]++;
    for (size_t h = 0; h < c->nhosts; h++)
        start[h + 1] += start[h];
    for (size_t l = 0; l < c->nlocations; l++)
        order[start[c->location_host[l]]++] = l; /* start[h] ends as the next host's start */
    put(b, "<system>\n  <systemtreenode Id=\"0\">\n");
    LEAF(b, "    ", "name", c->machine);
    put(b, "    <class>machine</class>\n");
    int rc = 0;
    for (size_t h = 0, k = 0; h < c->nhosts && rc == 0; h++) {
        cp_bytes_printf(b, "    <systemtreenode Id=\"%zu\">\n", h + 1);
        LEAF(b, "      ", "name", c->hosts[h].name);
        put(b, "      <class>node</class>\n");
        for (; k < start[h] && rc == 0; k++) {
            write_process(b, order[k], c->first_rank);
            rc = chunk(b, sink);
        }
        put(b, "    </systemtreenode>\n");
    }
    free(start);
    free(order);
    if (rc < 0)
        return -1;
    put(b, "  </systemtreenode>\n  <topologies></topologies>\n</system>\n");
    return 0;
}

int cp_cubex_anchor_write(const cp_cube *c, cp_bytes *b, const cp_anchor_sink *sink)
{
    put(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"" CUBE_VERSION "\">\n");
    for (size_t i = 0; i < CP_CUBEX_RESERVED_ATTRS; i++)
        cp_bytes_printf(b, "<attr key=\"%s\" value=\"%s\"/>\n", cp_cubex_reserved_attrs[i],
                        reserved_values[i]);
    for (size_t i = 0; i < c->nattrs; i++) {
        const cp_kv *a = &c->attrs[i];
        put(b, "<attr key=\"");
        cp_xml_put_escaped(b, a->key, strlen(a->key));
        put(b, "\" value=\"");
        cp_xml_put_escaped(b, a->value, strlen(a->value));
        put(b, "\"/>\n");
    }
    put(b, "<doc><mirrors></mirrors></doc>\n");
    write_metrics(c, b);
    put(b, "<program>\n");
    if (write_regions(c, b, sink) < 0 || write_cnodes(c, b, sink) < 0)
        return -1;
    put(b, "</program>\n");
    if (write_system(c, b, sink) < 0)
        return -1;
    put(b, "</cube>\n");
    return b->failed ? -1 : sink->flush(sink->ctx, b);
}

/* ================================================================ reader */

/* The Id of a system-tree element ("Id" as Cube writes it; "id" too). */
static int id_attr(cp_xml *x, int64_t want)
{
    int64_t id;
    const char *key = cp_xml_attr_value(x, "Id", NULL) ? "Id" : "id";
    if (cp_xml_int_attr(x, key, true, 0, 0, INT64_MAX, &id) < 0)
        return -1;
    if (id != want)
        return CP_XML_TFAIL(x, "expected <%s Id=\"%" PRId64 "\">, found Id %" PRId64, x->tname,
                            want, id);
    return 0;
}

/* <attr key="..." value="..."/> of <cube>. */
static int read_cube_attr(cp_xml *x, cp_cube *c, size_t *cap)
{
    size_t kn = 0, vn = 0;
    const char *k = cp_xml_attr_value(x, "key", &kn), *v = cp_xml_attr_value(x, "value", &vn);
    if (!k || !v)
        return CP_XML_TFAIL(x, "expected the attributes key and value in <attr>");
    if (kn > CP_CUBEX_MAX_ATTR_LEN || vn > CP_CUBEX_MAX_ATTR_LEN)
        return CP_XML_TFAIL(x, "expected an <attr> key and value of at most %d bytes",
                            CP_CUBEX_MAX_ATTR_LEN);
    if (cp_xml_check_value(x, k, kn, "an <attr> key") < 0 ||
        cp_xml_check_value(x, v, vn, "an <attr> value") < 0)
        return -1;
    if (!cp_cubex_reserved_attr(k)) {
        if (cp_xml_grow(x, (void **)&c->attrs, c->nattrs, cap, sizeof *c->attrs) < 0)
            return -1;
        cp_kv *a = &c->attrs[c->nattrs];
        a->key = malloc(kn + 1);
        a->value = malloc(vn + 1);
        if (!a->key || !a->value) {
            free(a->key);
            free(a->value);
            return cp_xml_oom(x);
        }
        memcpy(a->key, k, kn + 1);
        memcpy(a->value, v, vn + 1);
        c->nattrs++;
    }
    return cp_xml_empty_element(x);
}

/* <doc><mirrors><murl>...</murl>*</mirrors></doc>: read, not kept. */
static int read_doc(cp_xml *x)
{
    char url[4096];
    if (x->empty)
        return 0;
    if (cp_xml_next_tag(x) < 0)
        return -1;
    if (cp_xml_is_start(x, "mirrors")) {
        if (!x->empty)
            for (;;) {
                if (cp_xml_next_tag(x) < 0)
                    return -1;
                if (cp_xml_is_end(x, "mirrors"))
                    break;
                if (!cp_xml_is_start(x, "murl"))
                    return cp_xml_expected(x, "<murl> or </mirrors>");
                if (cp_xml_leaf(x, url, sizeof url) < 0)
                    return -1;
            }
        if (cp_xml_next_tag(x) < 0)
            return -1;
    }
    return cp_xml_is_end(x, "doc") ? 0 : cp_xml_expected(x, "<mirrors> or </doc>");
}

static int read_metric(cp_xml *x, cp_cube *c, size_t *cap, const char *parent, int depth)
{
    char type[32], dtype[16], val[256];
    int64_t id;
    if (cp_xml_int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0 ||
        cp_xml_str_attr(x, "type", true, type, sizeof type) < 0)
        return -1;
    if (id != (int64_t)c->nmetrics)
        return CP_XML_TFAIL(
            x, "expected <metric id=\"%zu\"> (metrics numbered in order), found id %" PRId64,
            c->nmetrics, id);
    if (strcmp(type, "EXCLUSIVE") != 0)
        return CP_XML_TFAIL(
            x,
            "expected type=\"EXCLUSIVE\" in <metric> (the only type collprof reads), "
            "found \"%s\"",
            type);
    if (cp_xml_grow(x, (void **)&c->metrics, c->nmetrics, cap, sizeof *c->metrics) < 0)
        return -1;
    cp_cube_metric *m = &c->metrics[c->nmetrics];
    memset(m, 0, sizeof *m);
    snprintf(m->parent, sizeof m->parent, "%s", parent);
    cp_xml_field f[] = {{"disp_name", m->disp_name, sizeof m->disp_name, false, 0},
                        {"uniq_name", m->uniq_name, sizeof m->uniq_name, false, 0},
                        {"dtype", dtype, sizeof dtype, false, 0},
                        {"uom", m->uom, sizeof m->uom, false, 0},
                        {"val", val, sizeof val, false, 0},
                        {"url", m->url, sizeof m->url, false, 0},
                        {"descr", m->descr, sizeof m->descr, false, 0}};
    long line = x->tline;
    int rc = x->empty ? 0 : cp_xml_fields(x, "metric", f, sizeof f / sizeof f[0]);
    if (rc < 0)
        return -1;
    if (rc > 0 && !cp_xml_is_start(x, "metric"))
        return cp_xml_expected(x, "</metric> (a <metric> holds <disp_name>, <uniq_name>, "
                                  "<dtype>, <uom>, <val>, <url>, <descr>, then the metrics "
                                  "below it)");
    if (!f[1].seen || !m->uniq_name[0])
        return cp_xml_fail_at(x, CP_XML_FLINE(f[1], line),
                              "expected a non-empty <uniq_name> in metric %zu", c->nmetrics);
    if (!f[2].seen || (strcmp(dtype, "DOUBLE") != 0 && strcmp(dtype, "UINT64") != 0))
        return cp_xml_fail_at(x, CP_XML_FLINE(f[2], line),
                              "expected <dtype>DOUBLE</dtype> or "
                              "<dtype>UINT64</dtype> in metric %zu",
                              c->nmetrics);
    m->dtype = dtype[0] == 'U' ? CP_CUBE_UINT64 : CP_CUBE_DOUBLE;
    for (size_t i = 0; i < c->nmetrics; i++)
        if (strcmp(c->metrics[i].uniq_name, m->uniq_name) == 0)
            return cp_xml_fail_at(x, CP_XML_FLINE(f[1], line),
                                  "expected a unique <uniq_name>: \"%s\" is also metric %zu",
                                  m->uniq_name, i);
    c->nmetrics++;
    if (rc == 0)
        return 0;
    /* The metrics below it, each a <metric> in it, up to its </metric>. */
    char name[sizeof m->uniq_name];
    snprintf(name, sizeof name, "%s", m->uniq_name);
    if (depth >= 32)
        return CP_XML_TFAIL(x, "expected at most 32 levels of nested metrics");
    for (;;) {
        if (read_metric(x, c, cap, name, depth + 1) < 0 || cp_xml_next_tag(x) < 0)
            return -1;
        if (cp_xml_is_end(x, "metric"))
            return 0;
        if (!cp_xml_is_start(x, "metric"))
            return cp_xml_expected(x, "<metric> or </metric>");
    }
}

static int read_region(cp_xml *x, cp_cube *c, size_t *cap)
{
    int64_t id;
    if (cp_xml_int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0)
        return -1;
    if (id != (int64_t)c->nregions)
        return CP_XML_TFAIL(
            x, "expected <region id=\"%zu\"> (regions numbered in order), found id %" PRId64,
            c->nregions, id);
    if (cp_xml_grow(x, (void **)&c->regions, c->nregions, cap, sizeof *c->regions) < 0)
        return -1;
    cp_cube_region *r = &c->regions[c->nregions];
    memset(r, 0, sizeof *r);
    if (cp_xml_str_attr(x, "mod", false, r->mod, sizeof r->mod) < 0 ||
        cp_xml_int_attr(x, "begin", false, -1, INT64_MIN, INT64_MAX, &r->begin) < 0 ||
        cp_xml_int_attr(x, "end", false, -1, INT64_MIN, INT64_MAX, &r->end) < 0)
        return -1;
    cp_xml_field f[] = {{"name", r->name, sizeof r->name, false, 0},
                        {"mangled_name", r->mangled_name, sizeof r->mangled_name, false, 0},
                        {"paradigm", r->paradigm, sizeof r->paradigm, false, 0},
                        {"role", r->role, sizeof r->role, false, 0},
                        {"url", r->url, sizeof r->url, false, 0},
                        {"descr", r->descr, sizeof r->descr, false, 0}};
    int rc = x->empty ? 0 : cp_xml_fields(x, "region", f, sizeof f / sizeof f[0]);
    if (rc < 0)
        return -1;
    if (rc > 0)
        return cp_xml_expected(x, "</region> (a <region> holds <name>, <mangled_name>, <paradigm>, "
                                  "<role>, <url> and <descr>)");
    /* What Cube's reader assumes of missing elements. */
    if (!f[1].seen)
        memcpy(r->mangled_name, r->name, sizeof r->name);
    if (!f[2].seen)
        snprintf(r->paradigm, sizeof r->paradigm, "unknown");
    if (!f[3].seen)
        snprintf(r->role, sizeof r->role, "unknown");
    c->nregions++;
    return 0;
}

/* The call tree, from the first <cnode> to </program>.  Nodes nest in the
 * document; their ids must count up in document order (depth-first
 * pre-order).  No recursion: `open` walks up the parent links. */
static int read_cnodes(cp_xml *x, cp_cube *c)
{
    size_t cap = 0;
    int64_t open = -1;
    for (;;) {
        if (cp_xml_is_start(x, "cnode")) {
            int64_t id, callee, line;
            if (cp_xml_int_attr(x, "id", true, 0, 0, INT64_MAX, &id) < 0 ||
                cp_xml_int_attr(x, "calleeId", true, 0, 0, INT64_MAX, &callee) < 0 ||
                cp_xml_int_attr(x, "line", false, -1, INT64_MIN, INT64_MAX, &line) < 0)
                return -1;
            if (id != (int64_t)c->ncnodes)
                return CP_XML_TFAIL(x,
                                    "expected <cnode id=\"%zu\"> (ids depth-first in pre-order), "
                                    "found id %" PRId64,
                                    c->ncnodes, id);
            if (callee >= (int64_t)c->nregions)
                return CP_XML_TFAIL(
                    x, "expected a calleeId below %zu (the regions declared), found %" PRId64,
                    c->nregions, callee);
            if (cp_xml_grow(x, (void **)&c->cnodes, c->ncnodes, &cap, sizeof *c->cnodes) < 0)
                return -1;
            cp_cube_cnode *n = &c->cnodes[c->ncnodes];
            memset(n, 0, sizeof *n);
            n->region = callee;
            n->parent = open;
            n->line = line;
            if (cp_xml_str_attr(x, "mod", false, n->mod, sizeof n->mod) < 0)
                return -1;
            c->ncnodes++;
            if (!x->empty)
                open = id;
        } else if (cp_xml_is_end(x, "cnode") && open >= 0) {
            open = c->cnodes[open].parent;
        } else if (cp_xml_is_end(x, "program") && open < 0) {
            return 0;
        } else {
            return cp_xml_expected(x, open < 0 ? "<cnode> or </program>" : "<cnode> or </cnode>");
        }
        if (cp_xml_next_tag(x) < 0)
            return -1;
    }
}

static int read_program(cp_xml *x, cp_cube *c)
{
    size_t cap = 0;
    if (x->empty)
        return CP_XML_TFAIL(x, "expected <region> and <cnode> elements in <program>");
    for (;;) {
        if (cp_xml_next_tag(x) < 0)
            return -1;
        if (!cp_xml_is_start(x, "region"))
            break;
        if (read_region(x, c, &cap) < 0)
            return -1;
    }
    if (c->nregions == 0)
        return cp_xml_expected(x, "<region>");
    if (!cp_xml_is_start(x, "cnode"))
        return cp_xml_expected(x, "<region> or <cnode>");
    return read_cnodes(x, c);
}

/* Locations as read: the system tree may list them in any order. */
typedef struct loc_seen {
    int64_t *host; /* by location id, -1: not seen */
    size_t n, cap;
    int64_t first_rank; /* process Id i is rank first_rank + i (the first one read says) */
    bool have_first;
} loc_seen;

/* <locationgroup Id="i"> (process of rank i) holding <location Id="i">
 * (its thread). */
static int read_process(cp_xml *x, int64_t host, loc_seen *ls)
{
    char name[1024], type[32];
    int64_t id, rank = -1;
    const char *key = cp_xml_attr_value(x, "Id", NULL) ? "Id" : "id";
    long start = x->tline;
    if (cp_xml_int_attr(x, key, true, 0, 0, INT32_MAX, &id) < 0)
        return -1;
    for (int level = 0; level < 2; level++) {
        const char *elem = level ? "location" : "locationgroup";
        const char *want = level ? "thread" : "process";
        cp_xml_field f[] = {{"name", name, sizeof name, false, 0},
                            {"type", type, sizeof type, false, 0}};
        long line = x->tline;
        int rc = x->empty ? 0 : 2;
        cp_xml_field rk = {"rank", NULL, 0, false, 0};
        while (rc == 2) { /* fields, with <rank> holding an integer */
            rc = cp_xml_fields(x, elem, f, 2);
            if (rc == 1 && cp_xml_is_start(x, "rank")) {
                if (rk.seen)
                    return CP_XML_TFAIL(x, "expected one <rank> in <%s>", elem);
                rk.seen = true;
                rk.line = x->tline;
                if (cp_xml_int_leaf(x, &rank) < 0)
                    return -1;
                rc = 2;
            }
        }
        if (rc < 0)
            return -1;
        if (!f[1].seen || strcmp(type, want) != 0)
            return cp_xml_fail_at(x, CP_XML_FLINE(f[1], line), "expected <type>%s</type> in <%s>",
                                  want, elem);
        if (level == 0 && !ls->have_first && rank >= id) { /* 0, or a rank's own file */
            ls->first_rank = rank - id;
            ls->have_first = true;
        }
        if (rank != (level ? 0 : ls->first_rank + id))
            return cp_xml_fail_at(x, CP_XML_FLINE(rk, line),
                                  "expected <rank>%" PRId64 "</rank> in <%s Id=\"%" PRId64 "\">",
                                  level ? (int64_t)0 : ls->first_rank + id, elem, id);
        if (level == 0) {
            if (rc == 0 || !cp_xml_is_start(x, "location"))
                return rc == 0 ? cp_xml_fail_at(x, line, "expected a <location> in <locationgroup>")
                               : cp_xml_expected(x, "<location>");
            if (id_attr(x, id) < 0)
                return -1;
            rank = -1;
        } else if (rc != 0) {
            return cp_xml_expected(x, "</location>");
        }
    }
    if (cp_xml_next_tag(x) < 0)
        return -1;
    if (!cp_xml_is_end(x, "locationgroup"))
        return cp_xml_expected(x, "</locationgroup> (one location per process)");
    if ((size_t)id >= ls->cap) {
        size_t old = ls->cap;
        if (cp_grow((void **)&ls->host, &ls->cap, (size_t)id + 1, sizeof *ls->host, 64))
            return cp_xml_oom(x);
        for (size_t i = old; i < ls->cap; i++)
            ls->host[i] = -1;
    }
    if (ls->host[id] >= 0)
        return cp_xml_fail_at(x, start,
                              "expected each location once, found location %" PRId64 " again", id);
    ls->host[id] = host;
    ls->n++;
    return 0;
}

static int read_host(cp_xml *x, cp_cube *c, size_t *cap, loc_seen *ls)
{
    char cls[32], descr[1024];
    if (id_attr(x, (int64_t)c->nhosts + 1) < 0 ||
        cp_xml_grow(x, (void **)&c->hosts, c->nhosts, cap, sizeof *c->hosts) < 0)
        return -1;
    int64_t h = (int64_t)c->nhosts;
    cp_cube_host *host = &c->hosts[c->nhosts++];
    memset(host, 0, sizeof *host);
    cp_xml_field f[] = {{"name", host->name, sizeof host->name, false, 0},
                        {"class", cls, sizeof cls, false, 0},
                        {"descr", descr, sizeof descr, false, 0}};
    long line = x->tline;
    int rc = x->empty ? 0 : cp_xml_fields(x, "systemtreenode", f, 3);
    if (rc >= 0 && (!f[1].seen || strcmp(cls, "node") != 0))
        return cp_xml_fail_at(x, CP_XML_FLINE(f[1], line),
                              "expected <class>node</class> in a host's <systemtreenode>");
    for (; rc == 1; rc = cp_xml_is_end(x, "systemtreenode") ? 0 : 1) {
        if (!cp_xml_is_start(x, "locationgroup"))
            return cp_xml_expected(x, "<locationgroup> or </systemtreenode>");
        if (read_process(x, h, ls) < 0 || cp_xml_next_tag(x) < 0)
            return -1;
    }
    return rc;
}

static int read_system(cp_xml *x, cp_cube *c)
{
    char cls[32], descr[1024];
    size_t cap = 0;
    loc_seen ls = {0};
    int rc = -1;
    if (x->empty || cp_xml_next_tag(x) < 0)
        goto out;
    if (!cp_xml_is_start(x, "systemtreenode")) {
        cp_xml_expected(x, "<systemtreenode> (the machine)");
        goto out;
    }
    if (id_attr(x, 0) < 0)
        goto out;
    cp_xml_field f[] = {{"name", c->machine, sizeof c->machine, false, 0},
                        {"class", cls, sizeof cls, false, 0},
                        {"descr", descr, sizeof descr, false, 0}};
    long line = x->tline;
    int r = x->empty ? 0 : cp_xml_fields(x, "systemtreenode", f, 3);
    if (r < 0)
        goto out;
    if (!f[1].seen || strcmp(cls, "machine") != 0) {
        cp_xml_fail_at(x, CP_XML_FLINE(f[1], line),
                       "expected <class>machine</class> in the first <systemtreenode>");
        goto out;
    }
    for (; r == 1; r = cp_xml_next_tag(x) < 0 ? -1 : cp_xml_is_end(x, "systemtreenode") ? 0 : 1) {
        if (!cp_xml_is_start(x, "systemtreenode")) {
            cp_xml_expected(x, "<systemtreenode> (a host) or </systemtreenode>");
            goto out;
        }
        if (read_host(x, c, &cap, &ls) < 0)
            goto out;
    }
    if (r < 0 || cp_xml_next_tag(x) < 0)
        goto out;
    if (cp_xml_is_start(x, "topologies")) {
        if (cp_xml_empty_element(x) < 0 || cp_xml_next_tag(x) < 0)
            goto out;
    }
    if (!cp_xml_is_end(x, "system")) {
        cp_xml_expected(x, cp_xml_is_start(x, "systemtreenode")
                               ? "</system> (one machine)"
                               : "<topologies></topologies> or </system>");
        goto out;
    }
    /* Location ids 0..n-1, each once (duplicates were refused). */
    for (size_t i = 0; i < ls.n; i++)
        if (ls.host[i] < 0) {
            CP_XML_TFAIL(x, "expected locations 0 to %zu, location %zu is missing", ls.n - 1, i);
            goto out;
        }
    if (ls.n == 0) {
        CP_XML_TFAIL(x, "expected at least one <location> in <system>");
        goto out;
    }
    c->location_host = ls.host;
    c->nlocations = ls.n;
    c->first_rank = ls.first_rank;
    ls.host = NULL;
    rc = 0;
out:
    free(ls.host);
    return rc;
}

/* <cube version="4.N">: 4.0 to 4.4 are read; newer ones are refused. */
static int read_cube_start(cp_xml *x)
{
    if (cp_xml_next_tag(x) < 0)
        return -1;
    if (!cp_xml_is_start(x, "cube") || x->empty)
        return cp_xml_expected(x, "<cube version=\"" CUBE_VERSION "\">");
    const char *v = cp_xml_attr_value(x, "version", NULL);
    if (!v)
        return CP_XML_TFAIL(x, "expected the attribute version in <cube>");
    if (strlen(v) != 3 || v[0] != '4' || v[1] != '.' || v[2] < '0' || v[2] > '9')
        return CP_XML_TFAIL(
            x, "expected a Cube 4 anchor (<cube version=\"4.N\">), found version \"%.20s\"", v);
    if (strcmp(v, CUBE_VERSION) > 0)
        return CP_XML_TFAIL(x, "anchor version %s is newer than %s, which this collprof reads", v,
                            CUBE_VERSION);
    return 0;
}

static int read_anchor(cp_xml *x, cp_cube *c)
{
    size_t attr_cap = 0, metric_cap = 0;
    if (cp_xml_declaration(x) < 0 || read_cube_start(x) < 0 || cp_xml_next_tag(x) < 0)
        return -1;
    for (; cp_xml_is_start(x, "attr");)
        if (read_cube_attr(x, c, &attr_cap) < 0 || cp_xml_next_tag(x) < 0)
            return -1;
    if (cp_xml_is_start(x, "doc") && (read_doc(x) < 0 || cp_xml_next_tag(x) < 0))
        return -1;
    if (!cp_xml_is_start(x, "metrics"))
        return cp_xml_expected(x, "<attr>, <doc> or <metrics>");
    if (!x->empty)
        for (;;) {
            if (cp_xml_next_tag(x) < 0)
                return -1;
            if (!cp_xml_is_start(x, "metric"))
                break;
            if (read_metric(x, c, &metric_cap, "", 0) < 0)
                return -1;
        }
    if (c->nmetrics == 0)
        return cp_xml_expected(x, "<metric>");
    if (!x->empty && !cp_xml_is_end(x, "metrics"))
        return cp_xml_expected(x, "<metric> or </metrics>");
    if (cp_xml_next_tag(x) < 0)
        return -1;
    if (!cp_xml_is_start(x, "program"))
        return cp_xml_expected(x, "<program>");
    if (read_program(x, c) < 0 || cp_xml_next_tag(x) < 0)
        return -1;
    if (!cp_xml_is_start(x, "system"))
        return cp_xml_expected(x, "<system>");
    if (read_system(x, c) < 0 || cp_xml_next_tag(x) < 0)
        return -1;
    if (!cp_xml_is_end(x, "cube"))
        return cp_xml_expected(x, "</cube>");
    if (cp_xml_next_tag(x) < 0)
        return -1;
    return x->type == CP_XML_EOF ? 0 : cp_xml_expected(x, "the end of " ANCHOR " after </cube>");
}

int cp_cubex_anchor_parse(const char *xml, size_t len, const char *name, cp_cube *out,
                          cp_error *err)
{
    cp_xml x;
    cp_xml_init(&x, xml, len, name, ANCHOR, err);
    int rc = read_anchor(&x, out);
    cp_xml_free(&x);
    return rc;
}
