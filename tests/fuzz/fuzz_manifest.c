/*
 * Fuzz target: the manifest.json parser (writers/manifest.c).
 *
 * The input is a whole manifest, read from memory.  An accepted manifest
 * must survive a round trip (written back with cp_manifest_write, parsed
 * again: cp_manifest_equal), and the fields the reader indexes must be
 * consistent (neighbour lists of exactly `size` ranks, ranks from -1 to
 * size-1).  A rejected one must be rejected with "<input>:<line>:<col>: ...".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_common.h"
#include "manifest.h"

#define INPUT_NAME "fuzz-manifest.json"

static void check_manifest(const cp_manifest *m)
{
    FUZZ_CHECK(m->format_version >= 1 && m->format_version <= CP_MANIFEST_FORMAT_VERSION,
               "format_version %d", m->format_version);
    for (size_t i = 0; i < m->nfiles; i++)
        FUZZ_CHECK(cp_manifest_file_bytes(m, i) >= -1 && cp_manifest_file_crc(m, i) >= -1 &&
                       cp_manifest_file_crc(m, i) <= UINT32_MAX,
                   "file %zu: size %" PRId64 ", crc %" PRId64, i, cp_manifest_file_bytes(m, i),
                   cp_manifest_file_crc(m, i));
    for (size_t i = 0; i < m->ncomms; i++)
        for (size_t k = 0; k < m->comms[i].nseries; k++)
            FUZZ_CHECK(m->comms[i].series[k].calls >= 0 && m->comms[i].series[k].blocks[0] >= 0 &&
                           m->comms[i].series[k].blocks[1] >= 0,
                       "communicator %zu: series %zu: a negative number", i, k);
    FUZZ_CHECK(m->world_size >= 0, "world_size %" PRId64, m->world_size);
    FUZZ_CHECK(m->nconfig == 0 || m->config, "config entries without an array");
    FUZZ_CHECK(m->ncomms == 0 || m->comms, "communicators without an array");
    FUZZ_CHECK(m->nfiles == 0 || m->files, "files without an array");
    for (size_t i = 0; i < m->nconfig; i++)
        FUZZ_CHECK(m->config[i].key && m->config[i].value, "config %zu: NULL string", i);
    for (size_t i = 0; i < m->nfiles; i++)
        FUZZ_CHECK(m->files[i], "file %zu: NULL string", i);
    for (size_t i = 0; i < m->ncomms; i++) {
        const cp_comm_info *c = &m->comms[i];
        FUZZ_CHECK(c->id >= 0 && c->size >= 0 && c->lead >= 0, "communicator %zu: negative field",
                   i);
        if (!c->neighbors)
            continue;
        for (int64_t r = 0; r < c->size; r++) {
            const cp_neighbors *nb = &c->neighbors[r];
            for (size_t k = 0; k < nb->nsources; k++)
                FUZZ_CHECK(nb->sources[k] >= -1 && nb->sources[k] < c->size,
                           "communicator %zu rank %" PRId64 ": source out of range", i, r);
            for (size_t k = 0; k < nb->ndestinations; k++)
                FUZZ_CHECK(nb->destinations[k] >= -1 && nb->destinations[k] < c->size,
                           "communicator %zu rank %" PRId64 ": destination out of range", i, r);
        }
    }
}

static void round_trip(const cp_manifest *m, size_t size)
{
    /* gzip for one input in eight (see fuzz_compact.c). */
    bool gzip = size % 8 == 0;
    cp_error err = {{0}};
    const char *path = fuzz_tmp_path("manifest.json");
    int rc = cp_manifest_write_file(path, gzip, m, &err);
    FUZZ_CHECK(rc == 0, "the writer refuses a parsed manifest: %s", err.msg);
    cp_manifest back;
    rc = cp_manifest_parse_file(fuzz_tmp_path("manifest.json"), &back, &err);
    FUZZ_CHECK(rc == 0, "the parser refuses what the writer wrote: %s", err.msg);
    /* The writer writes the current format: an older one is upgraded. */
    back.format_version = m->format_version;
    FUZZ_CHECK(cp_manifest_equal(m, &back), "the manifest differs after a round trip");
    cp_manifest_free(&back);
    fuzz_tmp_remove("manifest.json");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cp_in *in = cp_in_open_mem(data, size, INPUT_NAME);
    if (!in)
        return 0;
    cp_manifest m;
    cp_error err = {{0}};
    int rc = cp_manifest_parse(in, &m, &err);
    cp_in_close(in);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_error_names_line(&err, INPUT_NAME), "error without a line: '%s'",
                   err.msg);
        return 0;
    }
    check_manifest(&m);
    round_trip(&m, size);
    cp_manifest_free(&m);
    return 0;
}
