/*
 * manifest.json: writer and parser (writers/manifest.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/profile.h"
#include "manifest.h"
#include "textio.h"
#include "tmpdir.h"

/* The manifest of the format documentation, byte for byte. */
static const char example_text[] =
    "{\n"
    "  \"format\": \"collprof-manifest\",\n"
    "  \"format_version\": 2,\n"
    "  \"counts_format_version\": 1,\n"
    "  \"collprof_version\": \"0.1.0\",\n"
    "  \"mpi_version\": \"MPICH Version: 4.0.2\",\n"
    "  \"job\": \"local\",\n"
    "  \"start_time\": \"2026-11-22T04:13:35\",\n"
    "  \"world_size\": 4,\n"
    "  \"partial\": false,\n"
    "  \"partial_reason\": \"\",\n"
    "  \"config\": {\"COLLPROF_COMPRESS\": \"none\", \"COLLPROF_OUTPUT_DIR\": \"out\"},\n"
    "  \"communicators\": [\n"
    "    {\"id\": 0, \"size\": 4, \"lead\": 0, \"members\": \"0-3\", \"series\": "
    "[{\"collective\": \"Alltoallv\", \"calls\": 3, \"blocks\": [2, 1]}]},\n"
    "    {\"id\": 1, \"size\": 2, \"lead\": 2, \"members\": \"2,0\"}\n"
    "  ],\n"
    "  \"modules\": {\"/bin/app\": \"0123abcd\"},\n"
    "  \"files\": [\n"
    "    \"manifest.json\",\n"
    "    {\"name\": \"send-counters.rank0.txt\", \"bytes\": 412, \"crc32\": 4294967295},\n"
    "    {\"name\": \"recv-counters.rank0.txt\", \"bytes\": 0}\n"
    "  ],\n"
    "  \"disagreements\": {\"communicator 1, Bcast\": \"ranks disagree on the number of calls "
    "(rank 1: 1, rank 0: 0)\"}\n"
    "}\n";

static void add_config(cp_manifest *m, const char *k, const char *v)
{
    m->config = realloc(m->config, (m->nconfig + 1) * sizeof *m->config);
    m->config[m->nconfig].key = strdup(k);
    m->config[m->nconfig].value = strdup(v);
    m->nconfig++;
}

static void add_comm(cp_manifest *m, int64_t id, const int64_t *members, size_t n)
{
    m->comms = realloc(m->comms, (m->ncomms + 1) * sizeof *m->comms);
    cp_comm_info *c = &m->comms[m->ncomms++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->size = (int64_t)n;
    c->lead = members[0];
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(cp_ranges_push(&c->members, members[i]), 0);
}

static void add_file(cp_manifest *m, const char *name)
{
    m->files = realloc(m->files, (m->nfiles + 1) * sizeof *m->files);
    m->files[m->nfiles++] = strdup(name);
}

/* The model of example_text. */
static void example_model(cp_manifest *m)
{
    memset(m, 0, sizeof *m);
    m->format_version = CP_MANIFEST_FORMAT_VERSION;
    m->counts_format_version = 1;
    strcpy(m->collprof_version, "0.1.0");
    strcpy(m->mpi_version, "MPICH Version: 4.0.2");
    strcpy(m->job, "local");
    strcpy(m->start_time, "2026-11-22T04:13:35");
    m->world_size = 4;
    add_config(m, "COLLPROF_COMPRESS", "none");
    add_config(m, "COLLPROF_OUTPUT_DIR", "out");
    add_comm(m, 0, (const int64_t[]){0, 1, 2, 3}, 4);
    add_comm(m, 1, (const int64_t[]){2, 0}, 2);
    add_file(m, "manifest.json");
    add_file(m, "send-counters.rank0.txt");
    add_file(m, "recv-counters.rank0.txt");
    m->comms[0].series = calloc(1, sizeof *m->comms[0].series);
    m->comms[0].nseries = 1;
    m->comms[0].series[0] = (cp_series_info){"Alltoallv", 3, {2, 1}};
    m->file_bytes = malloc(8 * sizeof *m->file_bytes);
    m->file_crc = malloc(8 * sizeof *m->file_crc);
    const int64_t bytes[] = {-1, 412, 0}, crc[] = {-1, 4294967295, -1};
    for (int i = 0; i < 3; i++)
        m->file_bytes[i] = bytes[i], m->file_crc[i] = crc[i];
    m->nfile_info = 3;
    m->modules = calloc(1, sizeof *m->modules);
    m->modules[0] = (cp_kv){strdup("/bin/app"), strdup("0123abcd")};
    m->nmodules = 1;
    m->disagreements = calloc(1, sizeof *m->disagreements);
    m->disagreements[0] = (cp_kv){strdup("communicator 1, Bcast"),
                                  strdup("ranks disagree on the number of calls (rank 1: 1, rank 0: 0)")};
    m->ndisagreements = 1;
}

/* Write m to a file, return its text (malloc'ed). */
static char *write_text(const cp_manifest *m, bool gzip)
{
    char path[512];
    cp_error err = {{0}};
    snprintf(path, sizeof path, "%s/manifest.json%s", tmpdir, gzip ? ".gz" : "");
    ck_assert_msg(cp_manifest_write_file(path, gzip, m, &err) == 0, "%s", err.msg);
    cp_in *in = cp_in_open(path, &err);
    ck_assert_msg(in != NULL, "%s", err.msg);
    char *data;
    size_t len;
    ck_assert_int_eq(cp_in_slurp(in, &data, &len, &err), 0);
    cp_in_close(in);
    data = realloc(data, len + 1);
    data[len] = '\0';
    return data;
}

static int parse_text(const char *text, size_t len, cp_manifest *m, cp_error *err)
{
    cp_in *in = cp_in_open_mem(text, len, "m.json");
    ck_assert_ptr_nonnull(in);
    int rc = cp_manifest_parse(in, m, err);
    cp_in_close(in);
    return rc;
}

/* text with the first occurrence of old replaced by new (malloc'ed). */
static char *replace(const char *text, const char *old, const char *new)
{
    const char *at = strstr(text, old);
    ck_assert_msg(at != NULL, "'%s' not in the text", old);
    size_t n = strlen(text) - strlen(old) + strlen(new);
    char *s = malloc(n + 1);
    size_t pre = (size_t)(at - text);
    memcpy(s, text, pre);
    strcpy(s + pre, new);
    strcat(s, at + strlen(old));
    return s;
}

/* ------------------------------------------------------------------ */

START_TEST(exact_text)
{
    cp_manifest m;
    example_model(&m);
    char *text = write_text(&m, false);
    ck_assert_str_eq(text, example_text);
    free(text);
    cp_manifest_free(&m);
}
END_TEST

START_TEST(empty_lists_text)
{
    cp_manifest m;
    memset(&m, 0, sizeof m);
    m.format_version = CP_MANIFEST_FORMAT_VERSION;
    m.counts_format_version = 1;
    m.world_size = 1;
    m.partial = true;
    strcpy(m.partial_reason, "MPI_Finalize was not called");
    char *text = write_text(&m, false);
    ck_assert_str_eq(text, "{\n"
                           "  \"format\": \"collprof-manifest\",\n"
                           "  \"format_version\": 2,\n"
                           "  \"counts_format_version\": 1,\n"
                           "  \"collprof_version\": \"\",\n"
                           "  \"mpi_version\": \"\",\n"
                           "  \"job\": \"\",\n"
                           "  \"start_time\": \"\",\n"
                           "  \"world_size\": 1,\n"
                           "  \"partial\": true,\n"
                           "  \"partial_reason\": \"MPI_Finalize was not called\",\n"
                           "  \"config\": {},\n"
                           "  \"communicators\": [],\n"
                           "  \"files\": []\n"
                           "}\n");
    cp_manifest back;
    cp_error err = {{0}};
    ck_assert_msg(parse_text(text, strlen(text), &back, &err) == 0, "%s", err.msg);
    ck_assert(cp_manifest_equal(&m, &back));
    free(text);
    cp_manifest_free(&back);
    cp_manifest_free(&m);
}
END_TEST

START_TEST(round_trip)
{
    for (int gz = 0; gz < 2; gz++) {
        cp_manifest m, back;
        cp_error err = {{0}};
        example_model(&m);
        m.partial = true;
        strcpy(m.partial_reason, "killed: \"SIGTERM\"\n");
        /* a rank's snapshot: when, and which process */
        m.has_state = true;
        strcpy(m.state.at, "2026-11-28T14:02:11");
        m.state.snapshot = gz;
        m.state.rank = 3;
        m.state.pid = 4242;
        strcpy(m.state.host, "node \"7\"");
        strcpy(m.mpi_version, "MPICH Version:\t4.0.2\nMPICH Release date: Thu Mar 10 2022\n");
        add_config(&m, "COLLPROF_OUTPUT_DIR2", "dir with \\ and \"quotes\" and é");
        add_comm(&m, 7, (const int64_t[]){3, 1, 2, 0}, 4);
        add_file(&m, "profile.cubex");
        char path[512];
        snprintf(path, sizeof path, "%s/manifest.json%s", tmpdir, gz ? ".gz" : "");
        ck_assert_msg(cp_manifest_write_file(path, gz, &m, &err) == 0, "%s", err.msg);
        ck_assert_msg(cp_manifest_parse_file(path, &back, &err) == 0, "%s", err.msg);
        ck_assert(cp_manifest_equal(&m, &back));
        ck_assert_int_eq(back.comms[2].members.n, 3); /* 3, 1-2, 0: order kept */
        ck_assert_int_eq(cp_ranges_nth(&back.comms[2].members, 0), 3);
        ck_assert_int_eq(cp_ranges_nth(&back.comms[2].members, 3), 0);
        ck_assert(back.has_state && back.state.snapshot == gz && back.state.pid == 4242 &&
                  back.state.rank == 3);
        ck_assert_str_eq(back.state.host, "node \"7\"");
        /* and a difference is seen */
        back.state.snapshot = !gz;
        ck_assert(!cp_manifest_equal(&m, &back));
        back.state.snapshot = gz;
        back.state.rank = 2;
        ck_assert(!cp_manifest_equal(&m, &back));
        back.state.rank = 3;
        back.comms[2].lead = 1;
        ck_assert(!cp_manifest_equal(&m, &back));
        cp_manifest_free(&back);
        cp_manifest_free(&m);
    }
}
END_TEST

/* The call tree: written as documented, read back equal; a parent that
 * does not come before its child is refused. */
START_TEST(call_tree)
{
    cp_manifest m, back;
    cp_error err = {{0}};
    example_model(&m);
    m.call_tree = calloc(3, sizeof *m.call_tree);
    m.ncall_tree = 3;
    m.call_tree[0] = (cp_callsite_node){.parent = -1, .address = 4660};
    snprintf(m.call_tree[0].function, sizeof m.call_tree[0].function, "main");
    snprintf(m.call_tree[0].module, sizeof m.call_tree[0].module, "/opt/app/bin/solver");
    m.call_tree[1] = (cp_callsite_node){.parent = 0, .address = 123};
    snprintf(m.call_tree[1].module, sizeof m.call_tree[1].module, "/opt/app/lib/libx \"q\".so");
    m.call_tree[2] = (cp_callsite_node){.parent = 0, .address = UINT64_C(1) << 40};
    snprintf(m.call_tree[2].function, sizeof m.call_tree[2].function, "exchange");
    snprintf(m.call_tree[2].module, sizeof m.call_tree[2].module, "/opt/app/bin/solver");
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", tmpdir);
    ck_assert_msg(cp_manifest_write_file(path, false, &m, &err) == 0, "%s", err.msg);
    ck_assert_msg(cp_manifest_parse_file(path, &back, &err) == 0, "%s", err.msg);
    ck_assert(cp_manifest_equal(&m, &back));
    ck_assert_uint_eq(back.ncall_tree, 3);
    ck_assert_str_eq(back.call_tree[1].module, "/opt/app/lib/libx \"q\".so");
    back.call_tree[2].address++;
    ck_assert(!cp_manifest_equal(&m, &back));
    cp_manifest_free(&back);
    cp_manifest_free(&m);
    const char *bad =
        "{\"format\": \"collprof-manifest\", \"format_version\": 1, \"counts_format_version\": 2,"
        " \"collprof_version\": \"x\", \"mpi_version\": \"x\", \"job\": \"x\", "
        "\"start_time\": \"x\", \"world_size\": 1, \"partial\": false, \"partial_reason\": \"\","
        " \"config\": {}, \"communicators\": [], \"files\": [],\n"
        "\"call_tree\": [{\"parent\": 0, \"function\": \"\", \"module\": \"m\", \"address\": 1}]}";
    ck_assert_int_eq(parse_text(bad, strlen(bad), &back, &err), -1);
    ck_assert_msg(strstr(err.msg, "\"parent\" between -1 and -1") != NULL, "%s", err.msg);
}
END_TEST

/* The clock record: written as documented after "config", read back equal,
 * absent from manifests without it, and every field checked. */
START_TEST(clock_record)
{
    cp_manifest m, back;
    cp_error err = {{0}};
    example_model(&m);
    m.has_clock = true;
    m.clock = (cp_clock_info){.source = "mixed", .tsc_ranks = 3, .tsc_hz = 2596120381,
                              .max_drift_ppm = 12, .drift_bound_ppm = 5000,
                              .note = "1 rank(s) stamped with CLOCK_MONOTONIC"};
    char *text = write_text(&m, false);
    ck_assert_msg(strstr(text, "},\n  \"clock\": {\"source\": \"mixed\", \"tsc_ranks\": 3, "
                               "\"tsc_hz\": 2596120381, \"max_drift_ppm\": 12, "
                               "\"drift_bound_ppm\": 5000, \"note\": \"1 rank(s) stamped "
                               "with CLOCK_MONOTONIC\"},\n  \"communicators\"") != NULL,
                  "%s", text);
    ck_assert_msg(parse_text(text, strlen(text), &back, &err) == 0, "%s", err.msg);
    ck_assert(cp_manifest_equal(&m, &back));
    ck_assert(back.has_clock);
    ck_assert_int_eq(back.clock.tsc_hz, 2596120381);
    back.clock.max_drift_ppm++;
    ck_assert(!cp_manifest_equal(&m, &back));
    cp_manifest_free(&back);

    static const struct {
        const char *old, *new, *msg;
    } bad[] = {
        {"\"mixed\"", "\"rdtsc\"", "expected \"source\" to be tsc, monotonic or mixed"},
        {"\"tsc_hz\": 2596120381", "\"tsc_hz\": 2.6e9",
         "expected an integer for \"tsc_hz\", found a number"},
        {"\"max_drift_ppm\": 12", "\"max_drift_ppm\": -12",
         "expected \"max_drift_ppm\" between 0 and"},
        {", \"note\": \"1 rank(s) stamped with CLOCK_MONOTONIC\"", "",
         "expected the key \"note\" in this object"},
        {"\"clock\": {", "\"clock\": [{", "expected an object for \"clock\", found an array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *t = replace(text, bad[i].old, bad[i].new);
        if (strcmp(bad[i].new, "\"clock\": [{") == 0) {
            char *t2 = replace(t, "MONOTONIC\"}", "MONOTONIC\"}]");
            free(t);
            t = t2;
        }
        ck_assert_int_eq(parse_text(t, strlen(t), &back, &err), -1);
        ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "case %zu: %s", i, err.msg);
        free(t);
    }
    free(text);
    cp_manifest_free(&m);

    /* Without the key (counts only, or an older collprof): no clock. */
    example_model(&m);
    text = write_text(&m, false);
    ck_assert_msg(parse_text(text, strlen(text), &back, &err) == 0, "%s", err.msg);
    ck_assert(!back.has_clock);
    ck_assert_ptr_null(strstr(text, "\"clock\""));
    free(text);
    cp_manifest_free(&back);
    cp_manifest_free(&m);
}
END_TEST

/* Intercommunicator groups and topology neighbour lists survive the trip,
 * and are written as documented. */
START_TEST(remote_members_and_neighbours)
{
    cp_manifest m, back;
    cp_error err = {{0}};
    example_model(&m);
    add_comm(&m, 7, (const int64_t[]){0, 1, 2}, 3);
    cp_comm_info *c = &m.comms[m.ncomms - 1];
    cp_ranges_push(&c->remote_members, 5);
    c->neighbors = calloc(3, sizeof *c->neighbors);
    static const int64_t src0[] = {1, 2}, dst0[] = {2}, src2[] = {-1};
    c->neighbors[0] = (cp_neighbors){.sources = malloc(sizeof src0), .nsources = 2,
                                     .destinations = malloc(sizeof dst0), .ndestinations = 1};
    memcpy(c->neighbors[0].sources, src0, sizeof src0);
    memcpy(c->neighbors[0].destinations, dst0, sizeof dst0);
    c->neighbors[2] = (cp_neighbors){.sources = malloc(sizeof src2), .nsources = 1};
    memcpy(c->neighbors[2].sources, src2, sizeof src2);
    char *text = write_text(&m, false);
    ck_assert_msg(strstr(text, "\"members\": \"0-2\", \"remote_members\": \"5\", \"neighbors\": "
                               "{\"sources\": [[1,2], [], [-1]], \"destinations\": [[2], [], []]}}") != NULL,
                  "%s", text);
    ck_assert_msg(parse_text(text, strlen(text), &back, &err) == 0, "%s", err.msg);
    ck_assert(cp_manifest_equal(&m, &back));
    ck_assert_int_eq(back.comms[back.ncomms - 1].neighbors[2].sources[0], -1);
    back.comms[back.ncomms - 1].neighbors[0].sources[1] = 0;
    ck_assert(!cp_manifest_equal(&m, &back));
    cp_manifest_free(&back);
    /* A neighbour that is not a rank of the communicator is refused. */
    char *bad = replace(text, "[[1,2],", "[[1,3],");
    ck_assert_int_eq(parse_text(bad, strlen(bad), &back, &err), -1);
    ck_assert_msg(strstr(err.msg, "expected a rank from -1 (MPI_PROC_NULL) to 2") != NULL, "%s",
                  err.msg);
    free(bad);
    free(text);
    cp_manifest_free(&m);
}
END_TEST

START_TEST(escapes_written)
{
    cp_manifest m;
    memset(&m, 0, sizeof m);
    m.format_version = 1;
    m.counts_format_version = 1;
    strcpy(m.job, "a\"b\\c\nd\te\x01\x1f\x7f é€😀");
    strcpy(m.collprof_version, "bad \xff utf8 \xe2\x82");
    char *text = write_text(&m, false);
    ck_assert_ptr_nonnull(strstr(text, "  \"job\": \"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\x7f é€😀\",\n"));
    /* invalid UTF-8 is replaced, so that the file stays valid JSON */
    ck_assert_ptr_nonnull(
        strstr(text, "  \"collprof_version\": \"bad \xef\xbf\xbd utf8 \xef\xbf\xbd\xef\xbf\xbd\",\n"));
    cp_manifest back;
    cp_error err = {{0}};
    ck_assert_msg(parse_text(text, strlen(text), &back, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(back.job, m.job);
    ck_assert_str_eq(back.collprof_version, "bad \xef\xbf\xbd utf8 \xef\xbf\xbd\xef\xbf\xbd");
    free(text);
    cp_manifest_free(&back);
    cp_manifest_free(&m);
}
END_TEST

START_TEST(unicode_escapes_read)
{
    char *text = replace(example_text, "\"job\": \"local\"",
                         "\"job\": \"a\\u00e9\\u20AC\\ud83d\\ude00\\/\\b\\f\\r\\\"\\\\z\"");
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_msg(parse_text(text, strlen(text), &m, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(m.job, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80/\b\f\r\"\\z");
    cp_manifest_free(&m);
    free(text);
}
END_TEST

START_TEST(parsed_values)
{
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_msg(parse_text(example_text, strlen(example_text), &m, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(m.format_version, 2);
    ck_assert_int_eq(m.world_size, 4);
    ck_assert_int_eq(cp_manifest_file_bytes(&m, 1), 412);
    ck_assert_int_eq(cp_manifest_file_crc(&m, 1), 4294967295);
    ck_assert_int_eq(cp_manifest_file_crc(&m, 2), -1);
    ck_assert_int_eq(cp_manifest_file_bytes(&m, 0), -1);
    ck_assert_uint_eq(m.comms[0].nseries, 1);
    ck_assert_int_eq(m.comms[0].series[0].blocks[0], 2);
    ck_assert_str_eq(m.mpi_version, "MPICH Version: 4.0.2");
    ck_assert_int_eq(m.nconfig, 2);
    ck_assert_str_eq(m.config[1].key, "COLLPROF_OUTPUT_DIR");
    ck_assert_str_eq(m.config[1].value, "out");
    ck_assert_int_eq(m.ncomms, 2);
    ck_assert_int_eq(m.comms[1].id, 1);
    ck_assert_int_eq(m.comms[1].size, 2);
    ck_assert_int_eq(m.comms[1].lead, 2);
    ck_assert_int_eq(cp_ranges_nth(&m.comms[1].members, 0), 2);
    ck_assert_int_eq(cp_ranges_nth(&m.comms[1].members, 1), 0);
    ck_assert_int_eq(m.nfiles, 3);
    ck_assert_str_eq(m.files[2], "recv-counters.rank0.txt");
    cp_manifest ex;
    example_model(&ex);
    ck_assert(cp_manifest_equal(&m, &ex));
    cp_manifest_free(&ex);
    cp_manifest_free(&m);
}
END_TEST

START_TEST(unknown_keys_ignored)
{
    char *text = replace(example_text, "  \"job\"",
                         "  \"future\": {\"nested\": [1, -2.5e+3, 0.25, null, true, {}, []], "
                         "\"big\": 123456789012345678901234567890},\n  \"job\"");
    char *t2 = replace(text, "\"lead\": 2,", "\"lead\": 2, \"colour\": \"red\",");
    cp_manifest m, ex;
    cp_error err = {{0}};
    ck_assert_msg(parse_text(t2, strlen(t2), &m, &err) == 0, "%s", err.msg);
    example_model(&ex);
    ck_assert(cp_manifest_equal(&m, &ex));
    cp_manifest_free(&ex);
    cp_manifest_free(&m);
    free(text);
    free(t2);
}
END_TEST

/* Syntax errors, each with its position. */
static const struct {
    const char *text, *msg;
} bad_json[] = {
    {"", "m.json:1:1: expected a value"},
    {"   \n  ", "m.json:2:3: expected a value"},
    {"{", "m.json:1:2: expected a string key or '}', found end of input"},
    {"{\"a\" 1}", "m.json:1:6: expected ':' after the key \"a\", found '1'"},
    {"{\"a\":}", "m.json:1:6: expected a value"},
    {"{\"a\":1,}", "m.json:1:8: expected a string key, found '}'"},
    {"{\"a\":1 \"b\":2}", "m.json:1:8: expected ',' or '}' after an object member, found '\"'"},
    {"[1 2]", "m.json:1:4: expected ',' or ']' after an array element, found '2'"},
    {"[1,]", "m.json:1:4: expected a value"},
    {"{\"a\":1}x", "m.json:1:8: expected the end of the input after the top-level value, found 'x'"},
    {"{\n  \"a\": tru\n}", "m.json:2:8: expected a value"},
    {"{\"a\": nul}", "m.json:1:7: expected a value"},
    {"{\"a\":\"\\x\"}", "m.json:1:8: expected an escape character"},
    {"{\"a\":\"\\u12G4\"}", "m.json:1:7: expected four hexadecimal digits after \\u"},
    {"{\"a\":\"\\u12", "m.json:1:7: expected four hexadecimal digits after \\u"},
    {"{\"a\":\"\\ud800\"}", "m.json:1:13: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD800"},
    {"{\"a\":\"\\ud800\\u0041\"}", "m.json:1:13: expected a low surrogate"},
    {"{\"a\":\"\\udc00\"}", "m.json:1:7: expected a high surrogate (\\uD800-\\uDBFF) before \\uDC00"},
    {"{\"a\":\"\\u0000\"}", "m.json:1:7: expected a character other than \\u0000 (NUL)"},
    {"{\"a\":\"x\ny\"}", "m.json:1:8: expected an escape sequence instead of control character 0x0A"},
    {"{\"a\":\"\xff\"}", "m.json:1:7: expected valid UTF-8 in a string (byte 0xFF)"},
    {"{\"a\":\"\xc0\xaf\"}", "m.json:1:7: expected valid UTF-8"},
    {"{\"a\":\"\xed\xa0\x80\"}", "m.json:1:7: expected valid UTF-8"},
    {"{\"a\":\"abc", "m.json:1:10: expected '\"' to close the string that starts at 1:6"},
    {"{\"a\":01}", "m.json:1:6: expected a number without leading zeros"},
    {"{\"a\":-}", "m.json:1:7: expected a digit"},
    {"{\"a\":1.}", "m.json:1:8: expected a digit after '.'"},
    {"{\"a\":1e+}", "m.json:1:9: expected a digit in the exponent"},
    {"{\"a\":+1}", "m.json:1:6: expected a value"},
    {"\xef\xbb\xbf{}", "m.json:1:1: expected a value (object, array, string, number, true, false or null), found byte 0xEF"},
    {"{\"a\":1,\n\n   \"b\" : [true, false, nul", "m.json:3:24: expected a value"},
};

START_TEST(malformed_json)
{
    const char *text = bad_json[_i].text;
    size_t len = strlen(text);
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_int_eq(parse_text(text, len, &m, &err), -1);
    ck_assert_msg(strncmp(err.msg, bad_json[_i].msg, strlen(bad_json[_i].msg)) == 0,
                  "case %d: got '%s', expected '%s...'", _i, err.msg, bad_json[_i].msg);
    /* nothing is left allocated in m */
    ck_assert_ptr_null(m.config);
    ck_assert_ptr_null(m.comms);
    ck_assert_ptr_null(m.files);
}
END_TEST

START_TEST(nul_after_value)
{
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_int_eq(parse_text("{\"a\":1}\0", 8, &m, &err), -1);
    ck_assert_str_eq(err.msg, "m.json:1:8: expected the end of the input after the top-level "
                              "value, found byte 0x00");
}
END_TEST

START_TEST(depth_bounded)
{
    char text[300];
    memset(text, '[', 200);
    text[200] = '\0';
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_int_eq(parse_text(text, strlen(text), &m, &err), -1);
    ck_assert_str_eq(err.msg, "m.json:1:65: expected at most 64 nested arrays and objects");
    /* 64 levels are fine as JSON (and then not a manifest) */
    memset(text, '[', 64);
    memset(text + 64, ']', 64);
    text[128] = '\0';
    ck_assert_int_eq(parse_text(text, strlen(text), &m, &err), -1);
    ck_assert_str_eq(err.msg, "m.json:1:1: expected an object at the top level, found an array");
}
END_TEST

/* Valid JSON, not a valid manifest: (old, new) replacements in example_text. */
static const struct {
    const char *old, *new, *msg;
} bad_manifest[] = {
    {"\"bytes\": 412", "\"bytes\": -4", "m.json:20:50: expected \"bytes\" between 0 and"},
    {"\"blocks\": [2, 1]", "\"blocks\": [2]",
     "m.json:14:116: expected [send blocks, receive blocks] for \"blocks\""},
    {"\"format\": \"collprof-manifest\"", "\"format\": \"other\"",
     "m.json:2:13: expected \"format\": \"collprof-manifest\""},
    {"\"format\": \"collprof-manifest\",", "", "m.json:1:1: expected the key \"format\" in this object"},
    {"\"format_version\": 2", "\"format_version\": 3",
     "m.json:3:21: manifest format version 3 is newer than version 2, which this collprof reads"},
    {"\"format_version\": 2", "\"format_version\": 0",
     "m.json:3:21: expected \"format_version\" between 1 and 2, found 0"},
    {"\"format_version\": 2", "\"format_version\": \"1\"",
     "m.json:3:21: expected an integer for \"format_version\", found a string"},
    {"\"format_version\": 2", "\"format_version\": 1.0",
     "m.json:3:21: expected an integer for \"format_version\", found a number"},
    {"\"world_size\": 4", "\"world_size\": 99999999999999999999",
     "m.json:9:17: expected an integer for \"world_size\", found an integer outside the 64-bit range"},
    {"\"world_size\": 4", "\"world_size\": -4",
     "m.json:9:17: expected \"world_size\" between 0 and 9223372036854775807, found -4"},
    {"  \"world_size\": 4,\n", "", "m.json:1:1: expected the key \"world_size\" in this object"},
    {"\"job\": \"local\"", "\"job\": \"local\", \"job\": \"again\"",
     "m.json:7:19: expected the key \"job\" only once in an object"},
    {"\"partial\": false", "\"partial\": 0",
     "m.json:10:14: expected true or false for \"partial\", found a number"},
    {"\"config\": {", "\"config\": {\"COLLPROF_COMPRESS\": \"gzip\", ",
     "m.json:12:43: expected the key \"COLLPROF_COMPRESS\" only once in \"config\""},
    {"\"none\"", "null",
     "m.json:12:35: expected a string value for config key \"COLLPROF_COMPRESS\", found null"},
    {"\"members\": \"2,0\"", "\"members\": \"2,x\"",
     "m.json:15:48: expected a list of world ranks such as \"0-3,5\" for \"members\""},
    {"\"members\": \"2,0\"", "\"members\": \"2,0,2\"",
     "m.json:15:48: expected a list of world ranks such as \"0-3,5\" for \"members\""},
    {"\"members\": \"2,0\"", "\"members\": [2,0]",
     "m.json:15:48: expected a string for \"members\", found an array"},
    {", \"lead\": 2", "", "m.json:15:5: expected the key \"lead\" in this object"},
    {"\"id\": 1,", "\"id\": -1,", "m.json:15:12: expected \"id\" between 0 and"},
    {"    {\"id\": 1", "    7,{\"id\": 1", "m.json:15:5: expected an object for a communicator, found a number"},
    {"\"manifest.json\",", "\"manifest.json\", 3,",
     "m.json:19:22: expected a file name or {\"name\", \"bytes\", \"crc32\"} in \"files\", found a "
     "number"},
    {"\"files\": [", "\"files\": {\"a\": [",
     "m.json:18:12: expected an array for \"files\", found an object"},
    {"\"2026-11-22T04:13:35\"", "\"2026-11-22T04:13:35.123456789+01:00\"",
     "m.json:8:17: expected a string of at most 31 bytes for \"start_time\", found 35 bytes"},
};

START_TEST(invalid_manifest)
{
    char *text = replace(example_text, bad_manifest[_i].old, bad_manifest[_i].new);
    if (strcmp(bad_manifest[_i].new, "\"files\": {\"a\": [") == 0) {
        char *t2 = replace(text, "  ],\n  \"disagreements", "  ]},\n  \"disagreements");
        free(text);
        text = t2;
    }
    cp_manifest m;
    cp_error err = {{0}};
    ck_assert_int_eq(parse_text(text, strlen(text), &m, &err), -1);
    ck_assert_msg(strncmp(err.msg, bad_manifest[_i].msg, strlen(bad_manifest[_i].msg)) == 0,
                  "case %d: got '%s', expected '%s...'", _i, err.msg, bad_manifest[_i].msg);
    ck_assert_ptr_null(m.comms);
    ck_assert_ptr_null(m.config);
    free(text);
}
END_TEST

/* Every prefix of a valid manifest is rejected (except the one without
 * the final newline), and never read past. */
START_TEST(truncated_everywhere)
{
    size_t len = strlen(example_text);
    for (size_t k = 0; k < len; k++) {
        char *copy = malloc(k ? k : 1); /* exact size: ASan sees any overread */
        memcpy(copy, example_text, k);
        cp_manifest m;
        cp_error err = {{0}};
        int rc = parse_text(copy, k, &m, &err);
        if (k == len - 1) {
            ck_assert_int_eq(rc, 0);
            cp_manifest_free(&m);
        } else {
            ck_assert_msg(rc == -1, "prefix of %zu bytes accepted", k);
            ck_assert_msg(strncmp(err.msg, "m.json:", 7) == 0, "%s", err.msg);
        }
        free(copy);
    }
}
END_TEST

/* Every byte replaced by a few troublesome ones: no crash, no leak. */
START_TEST(corrupted_everywhere)
{
    static const char subst[] = {'"', '\\', '{', '[', ']', '}', ',', ':', '\0', '\xff', '\n', '0'};
    size_t len = strlen(example_text);
    char *copy = malloc(len);
    for (size_t k = 0; k < len; k++)
        for (size_t s = 0; s < sizeof subst; s++) {
            memcpy(copy, example_text, len);
            copy[k] = subst[s];
            cp_manifest m;
            cp_error err = {{0}};
            if (parse_text(copy, len, &m, &err) == 0)
                cp_manifest_free(&m);
            else
                ck_assert_msg(strncmp(err.msg, "m.json:", 7) == 0, "%s", err.msg);
        }
    free(copy);
}
END_TEST

START_TEST(missing_file)
{
    cp_manifest m;
    cp_error err = {{0}};
    char path[512];
    snprintf(path, sizeof path, "%s/nothing.json", tmpdir);
    ck_assert_int_eq(cp_manifest_parse_file(path, &m, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "nothing.json"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("manifest");
    TCase *tc = tcase_create("manifest");
    tcase_add_checked_fixture(tc, tmpdir_make, tmpdir_remove);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, exact_text);
    tcase_add_test(tc, empty_lists_text);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, call_tree);
    tcase_add_test(tc, clock_record);
    tcase_add_test(tc, remote_members_and_neighbours);
    tcase_add_test(tc, escapes_written);
    tcase_add_test(tc, unicode_escapes_read);
    tcase_add_test(tc, parsed_values);
    tcase_add_test(tc, unknown_keys_ignored);
    tcase_add_loop_test(tc, malformed_json, 0, (int)(sizeof bad_json / sizeof bad_json[0]));
    tcase_add_test(tc, nul_after_value);
    tcase_add_test(tc, depth_bounded);
    tcase_add_loop_test(tc, invalid_manifest, 0,
                        (int)(sizeof bad_manifest / sizeof bad_manifest[0]));
    tcase_add_test(tc, truncated_everywhere);
    tcase_add_test(tc, corrupted_everywhere);
    tcase_add_test(tc, missing_file);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
