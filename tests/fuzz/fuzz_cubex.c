/*
 * Fuzz target: the profile.cubex parser, from memory: the ustar container
 * (writers/cubex_tar.c), N.index, N.data and ZCUBEX.DATA (writers/cubex.c),
 * and anchor.xml (writers/cubex_anchor.c on the tokenizer of writers/xml.c).
 *
 * Every input is parsed twice: as it is, and with the checksums of its tar
 * headers recomputed, so that mutations of header fields and member
 * contents get past the checksum test to the code behind it.  Beyond "no
 * crash, no leak, no undefined behaviour": a rejected archive is rejected
 * with a message that starts with the input's name and leaves an empty
 * model; an accepted one satisfies what the reader relies on (below), and
 * survives a round trip: written by cp_cubex_format (or, for one input in
 * sixteen, by cp_cubex_write to a file and read back by cp_cubex_read) and
 * parsed again, it gives an equal model.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cubex.h"
#include "fuzz_common.h"

#define INPUT_NAME "fuzz-input"

static bool terminated(const char *s, size_t size)
{
    return memchr(s, 0, size) != NULL;
}

/* What docs/formats.md promises of every cube that parses. */
static void check_cube(const cp_cube *c)
{
    FUZZ_CHECK(c->nmetrics >= 1 && c->nregions >= 1 && c->ncnodes >= 1 && c->nlocations >= 1,
               "%zu metrics, %zu regions, %zu cnodes, %zu locations", c->nmetrics, c->nregions,
               c->ncnodes, c->nlocations);
    FUZZ_CHECK(c->values && c->location_host && terminated(c->machine, sizeof c->machine),
               "values, hosts or machine missing");
    for (size_t m = 0; m < c->nmetrics; m++) {
        const cp_cube_metric *x = &c->metrics[m];
        FUZZ_CHECK(c->values[m], "metric %zu: no values", m);
        FUZZ_CHECK(x->dtype == CP_CUBE_DOUBLE || x->dtype == CP_CUBE_UINT64, "metric %zu: dtype",
                   m);
        FUZZ_CHECK(terminated(x->uniq_name, sizeof x->uniq_name) && x->uniq_name[0],
                   "metric %zu: uniq_name", m);
        FUZZ_CHECK(cp_cube_find_metric(c, x->uniq_name) == (int64_t)m,
                   "metric %zu: uniq_name not unique", m);
    }
    for (size_t i = 0; i < c->ncnodes; i++) {
        const cp_cube_cnode *n = &c->cnodes[i];
        FUZZ_CHECK(n->region >= 0 && (uint64_t)n->region < c->nregions, "cnode %zu: region", i);
        FUZZ_CHECK(n->parent >= -1 && n->parent < (int64_t)i, "cnode %zu: parent %" PRId64, i,
                   n->parent);
        FUZZ_CHECK(i > 0 || n->parent == -1, "cnode 0 has a parent");
        FUZZ_CHECK(terminated(n->mod, sizeof n->mod), "cnode %zu: mod", i);
    }
    for (size_t l = 0; l < c->nlocations; l++)
        FUZZ_CHECK(c->location_host[l] >= 0 && (uint64_t)c->location_host[l] < c->nhosts,
                   "location %zu: host %" PRId64, l, c->location_host[l]);
    for (size_t i = 0; i < c->nattrs; i++)
        FUZZ_CHECK(c->attrs[i].key && c->attrs[i].value, "attr %zu", i);
    /* the accessors on the last value of each metric */
    for (size_t m = 0; m < c->nmetrics; m++) {
        (void)cp_cube_get_double(c, m, c->ncnodes - 1, c->nlocations - 1);
        (void)cp_cube_get_u64(c, m, c->ncnodes - 1, c->nlocations - 1);
    }
}

static void round_trip(const cp_cube *c, size_t size)
{
    cp_cube d;
    cp_error err = {{0}};
    if (size % 16 == 0) {
        const char *path = fuzz_tmp_path("profile.cubex");
        FUZZ_CHECK(cp_cubex_write(path, c, &err) == 0, "the writer refuses a parsed cube: %s",
                   err.msg);
        FUZZ_CHECK(cp_cubex_read(fuzz_tmp_path("profile.cubex"), &d, &err) == 0,
                   "the parser refuses what the writer wrote: %s", err.msg);
        fuzz_tmp_remove("profile.cubex");
    } else {
        void *data;
        size_t len;
        FUZZ_CHECK(cp_cubex_format(c, &data, &len, &err) == 0,
                   "the writer refuses a parsed cube: %s", err.msg);
        int rc = cp_cubex_parse_mem(data, len, "round-trip", &d, &err);
        free(data);
        FUZZ_CHECK(rc == 0, "the parser refuses what the writer wrote: %s", err.msg);
    }
    FUZZ_CHECK(cp_cube_equal(c, &d), "the cube differs after a round trip");
    cp_cube_free(&d);
}

static void parse_one(const uint8_t *data, size_t size)
{
    cp_cube c, empty;
    cp_error err = {{0}};
    memset(&empty, 0, sizeof empty);
    if (cp_cubex_parse_mem(data, size, INPUT_NAME, &c, &err) != 0) {
        FUZZ_CHECK(strncmp(err.msg, INPUT_NAME ": ", strlen(INPUT_NAME) + 2) == 0,
                   "error without the input's name: '%s'", err.msg);
        FUZZ_CHECK(memcmp(&c, &empty, sizeof c) == 0, "model left after a failure");
        return;
    }
    check_cube(&c);
    round_trip(&c, size);
    cp_cube_free(&c);
}

/* A copy of the input with the checksum of every tar header recomputed (as
 * far as the headers can be followed); NULL when nothing changed. */
static uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
    uint8_t *copy = NULL;
    size_t off = 0;
    while (size - off >= 512) {
        const uint8_t *h = (copy ? copy : data) + off;
        unsigned sum = 0;
        bool zero = true;
        for (int i = 0; i < 512; i++) {
            sum += i >= 148 && i < 156 ? ' ' : h[i];
            zero = zero && h[i] == 0;
        }
        if (zero)
            break;
        char field[8];
        snprintf(field, sizeof field, "%06o", sum);
        if (memcmp(h + 148, field, 7) != 0 || h[155] != ' ') {
            if (!copy) {
                copy = malloc(size);
                FUZZ_CHECK(copy, "out of memory");
                memcpy(copy, data, size);
                h = copy + off;
            }
            memcpy(copy + off + 148, field, 7);
            copy[off + 155] = ' ';
        }
        uint64_t len = 0; /* the octal size, as far as it goes */
        for (int i = 124; i < 136 && h[i] >= '0' && h[i] <= '7'; i++)
            len = len * 8 + (uint64_t)(h[i] - '0');
        uint64_t next = 512 + (len + 511) / 512 * 512;
        if (next > size - off)
            break;
        off += (size_t)next;
    }
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_one(data, size);
    uint8_t *fixed = fix_checksums(data, size);
    if (fixed) {
        parse_one(fixed, size);
        free(fixed);
    }
    return 0;
}
