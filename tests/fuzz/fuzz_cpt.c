/*
 * Fuzz target: the timings.cpt parser (writers/cpt.c), from memory.
 *
 * Beyond "no crash, no leak, no undefined behaviour": an accepted file
 * satisfies what the model promises (check_file below), and survives a
 * round trip: encoded again with the writer (which must not refuse it) it
 * parses to an equal model, and encoding is a function of the model (that
 * model encodes to the same bytes again).  One input in eight goes through a
 * real file (cp_cpt_write, cp_cpt_read) instead of memory.  A rejected file
 * is rejected with "<input>: ..." and leaves the model zeroed.
 *
 * The CRC32 in front of every compressed payload stops most mutations of a
 * payload before zlib sees them, as it should; the seeds (corpus/cpt/)
 * bring valid payloads, and libFuzzer's comparison tracing finds the CRC of
 * a mutated one now and then.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "cpt.h"
#include "fuzz_common.h"

#define INPUT_NAME "fuzz-input"

/* Is s[cap] a NUL-terminated string of at least min characters? */
static bool str_ok(const char *s, size_t cap, size_t min)
{
    size_t n = strnlen(s, cap);
    return n < cap && n >= min;
}

/* What docs/formats.md promises of every file that parses. */
static void check_file(const cp_cpt_file *f)
{
    FUZZ_CHECK(f->version[0] >= 1 && f->version[0] <= CP_CPT_VERSION_MAJOR,
               "major version %" PRIu32, f->version[0]);
    FUZZ_CHECK(str_ok(f->git_hash, sizeof f->git_hash, 0), "git hash not terminated");
    FUZZ_CHECK(str_ok(f->mode, sizeof f->mode, 0), "mode not terminated");
    FUZZ_CHECK(f->world_size >= 1 && f->chunks, "world size %" PRIu64, f->world_size);
    for (uint64_t r = 0; r < f->world_size; r++) {
        const cp_cpt_chunk *c = &f->chunks[r];
        FUZZ_CHECK(c->rank >= 0 && (uint64_t)c->rank == r, "chunk %" PRIu64 ": rank %" PRId64,
                   r, c->rank);
        FUZZ_CHECK(str_ok(c->hostname, sizeof c->hostname, 0), "rank %" PRIu64 ": hostname", r);
        FUZZ_CHECK(c->nseries == 0 || c->series, "rank %" PRIu64 ": no series array", r);
        const cp_cpt_aggregates *a = &c->agg;
        if (!c->has_aggregates) {
            FUZZ_CHECK(!a->colls && !a->slowest && !a->ncolls && !a->nslowest,
                       "rank %" PRIu64 ": aggregates without the flag", r);
        } else {
            FUZZ_CHECK(str_ok(a->start_time, sizeof a->start_time, 0) &&
                           str_ok(a->end_time, sizeof a->end_time, 0),
                       "rank %" PRIu64 ": times", r);
            FUZZ_CHECK(a->ncolls == 0 || a->colls, "rank %" PRIu64 ": no colls array", r);
            FUZZ_CHECK(a->nslowest == 0 || a->slowest, "rank %" PRIu64 ": no slowest array", r);
            for (size_t i = 0; i < a->ncolls; i++)
                FUZZ_CHECK(str_ok(a->colls[i].collective, sizeof a->colls[i].collective, 1),
                           "rank %" PRIu64 ": coll %zu name", r, i);
            for (size_t i = 0; i < a->nslowest; i++) {
                const cp_cpt_slow *s = &a->slowest[i];
                FUZZ_CHECK(str_ok(s->collective, sizeof s->collective, 1),
                           "rank %" PRIu64 ": slowest %zu name", r, i);
                FUZZ_CHECK(s->rank >= 0 && (uint64_t)s->rank < f->world_size,
                           "rank %" PRIu64 ": slowest %zu: rank %" PRId64, r, i, s->rank);
            }
        }
        for (size_t i = 0; i < c->nseries; i++) {
            const cp_cpt_series *s = &c->series[i];
            FUZZ_CHECK(str_ok(s->collective, sizeof s->collective, 1),
                       "rank %" PRIu64 " series %zu: name", r, i);
            if (s->n == 0)
                continue;
            FUZZ_CHECK(s->call && s->enter && s->start && s->exit && s->root && s->flags,
                       "rank %" PRIu64 " series %zu: %" PRIu64 " calls, an array missing", r, i,
                       s->n);
            for (uint64_t k = 0; k < s->n; k++)
                FUZZ_CHECK(s->root[k] >= -1, "rank %" PRIu64 " series %zu: root %" PRId32, r, i,
                           s->root[k]);
        }
    }
}

/* Encode f; the writer may not refuse what the parser accepted. */
static void encode(const cp_cpt_file *f, cp_bytes *out)
{
    cp_error err = {{0}};
    memset(out, 0, sizeof *out);
    FUZZ_CHECK(cp_cpt_encode(f, out, &err) == 0, "the writer refuses a parsed file: %s",
               err.msg);
}

static void round_trip(cp_cpt_file *f, size_t size)
{
    cp_error err = {{0}};
    cp_cpt_file g;
    cp_bytes b;
    encode(f, &b);
    if (size % 8 == 0) {
        const char *path = fuzz_tmp_path("timings.cpt");
        FUZZ_CHECK(cp_cpt_write(path, f, &err) == 0, "cp_cpt_write: %s", err.msg);
        FUZZ_CHECK(cp_cpt_read(fuzz_tmp_path("timings.cpt"), &g, &err) == 0,
                   "the parser refuses the file the writer wrote: %s", err.msg);
        fuzz_tmp_remove("timings.cpt");
    } else {
        FUZZ_CHECK(cp_cpt_parse_mem(b.p, b.len, "again", &g, &err) == 0,
                   "the parser refuses what the writer wrote: %s", err.msg);
    }
    /* The writer stamps its own version; all the rest must be as read. */
    FUZZ_CHECK(g.version[0] == CP_CPT_VERSION_MAJOR && g.version[1] == CP_CPT_VERSION_MINOR &&
                   g.version[2] == CP_CPT_VERSION_PATCH,
               "version %" PRIu32 ".%" PRIu32 ".%" PRIu32 " after a round trip", g.version[0],
               g.version[1], g.version[2]);
    memcpy(g.version, f->version, sizeof g.version);
    FUZZ_CHECK(cp_cpt_file_equal(f, &g), "the model differs after a round trip");
    cp_bytes again;
    encode(&g, &again);
    FUZZ_CHECK(again.len == b.len && memcmp(again.p, b.p, b.len) == 0,
               "one model, two encodings (%zu and %zu bytes)", b.len, again.len);
    cp_bytes_free(&again);
    cp_bytes_free(&b);
    cp_cpt_file_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_cpt_file f;
    cp_error err = {{0}};
    if (cp_cpt_parse_mem(data, size, INPUT_NAME, &f, &err) != 0) {
        size_t n = strlen(INPUT_NAME);
        FUZZ_CHECK(strncmp(err.msg, INPUT_NAME ": ", n + 2) == 0 && err.msg[n + 2] != '\0',
                   "error without the input's name: '%s'", err.msg);
        FUZZ_CHECK(f.chunks == NULL && f.world_size == 0, "model left after a failure");
        return 0;
    }
    check_file(&f);
    round_trip(&f, size);
    cp_cpt_file_free(&f);
    return 0;
}
