/*
 * COLLPROF_* settings: one table of variables, their parsers and the values
 * they accept.
 */
#include "config.h"

#include "clock.h"
#include "signals.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef int (*parse_fn)(cp_config *cfg, const char *value);

static int parse_output_dir(cp_config *cfg, const char *v)
{
    if (!*v || strlen(v) >= sizeof cfg->output_dir)
        return -1;
    strcpy(cfg->output_dir, v);
    return 0;
}

static int parse_compress(cp_config *cfg, const char *v)
{
    if (!strcasecmp(v, "gzip"))
        cfg->gzip = true;
    else if (!strcasecmp(v, "none"))
        cfg->gzip = false;
    else
        return -1;
    return 0;
}

static int parse_counts_rows(cp_config *cfg, const char *v)
{
    if (!strcasecmp(v, "dense"))
        cfg->dense_rows = true;
    else if (!strcasecmp(v, "compact"))
        cfg->dense_rows = false;
    else
        return -1;
    return 0;
}

static const char *const timings_io_names[] = {"auto", "posix", "mpiio"};

static int parse_timings_io(cp_config *cfg, const char *v)
{
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(v, timings_io_names[i])) {
            cfg->timings_io = i;
            return 0;
        }
    return -1;
}

static void show_timings_io(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", timings_io_names[cfg->timings_io]);
}

static int parse_u64(const char *v, uint64_t *out)
{
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

static int parse_start_call(cp_config *cfg, const char *v)
{
    return parse_u64(v, &cfg->start_call);
}

static int parse_max_calls(cp_config *cfg, const char *v)
{
    if (!strcasecmp(v, "unlimited")) {
        cfg->max_calls = UINT64_MAX;
        return 0;
    }
    return parse_u64(v, &cfg->max_calls);
}

/* "all", or a comma-separated list of collective names (any case). */
static int parse_collectives(cp_config *cfg, const char *v)
{
    bool on[CP_NCOLLECTIVES] = {false};
    if (!strcasecmp(v, "all")) {
        for (int k = 0; k < CP_NCOLLECTIVES; k++)
            cfg->enabled[k] = true;
        return 0;
    }
    const char *p = v;
    while (*p) {
        size_t n = strcspn(p, ",");
        while (n && p[n - 1] == ' ')
            n--;
        int k = 0;
        while (k < CP_NCOLLECTIVES && !(strlen(cp_collective_names[k]) == n &&
                                        !strncasecmp(p, cp_collective_names[k], n)))
            k++;
        if (k == CP_NCOLLECTIVES)
            return -1;
        on[k] = true;
        p += strcspn(p, ",");
        while (*p == ',' || *p == ' ')
            p++;
    }
    memcpy(cfg->enabled, on, sizeof on);
    return 0;
}

static int parse_verbose(cp_config *cfg, const char *v)
{
    if (strlen(v) != 1 || v[0] < '0' || v[0] > '2')
        return -1;
    cfg->verbose = v[0] - '0';
    return 0;
}

static const char *const timing_modes[] = {"off", "passive", "barrier"};

const char *cp_timing_mode_name(int mode)
{
    return mode >= 0 && mode < 3 ? timing_modes[mode] : "?";
}

static int parse_timing(cp_config *cfg, const char *v)
{
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(v, timing_modes[i])) {
            cfg->timing = i;
            return 0;
        }
    return -1;
}

static int parse_timing_max_calls(cp_config *cfg, const char *v)
{
    return parse_u64(v, &cfg->timing_max_calls);
}

static int parse_timing_sample(cp_config *cfg, const char *v)
{
    uint64_t n;
    if (strcmp(v, "auto") == 0) {
        cfg->timing_sample = 0; /* the pool shared among the busy series */
        return 0;
    }
    if (parse_u64(v, &n) || n < 2)
        return -1;
    cfg->timing_sample = n;
    return 0;
}

static int parse_timing_seed(cp_config *cfg, const char *v)
{
    if (strcmp(v, "auto") == 0) {
        cfg->timing_seed_auto = true;
        return 0;
    }
    if (parse_u64(v, &cfg->timing_seed))
        return -1;
    cfg->timing_seed_auto = false;
    return 0;
}

/* A host name as the location collector reports it: printable, no spaces. */
static int parse_hostname(cp_config *cfg, const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= sizeof cfg->hostname)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
            return -1;
    strcpy(cfg->hostname, v);
    return 0;
}

static int parse_stat_layout(cp_config *cfg, const char *v)
{
    if (!strcasecmp(v, "cubegui"))
        cfg->stat_documented = false;
    else if (!strcasecmp(v, "documented"))
        cfg->stat_documented = true;
    else
        return -1;
    return 0;
}

static int parse_callsite_depth(cp_config *cfg, const char *v)
{
    uint64_t d;
    if (parse_u64(v, &d) || d > 32)
        return -1;
    cfg->callsite_depth = (int)d;
    return 0;
}

static int parse_clock(cp_config *cfg, const char *v)
{
    for (int m = 0; m < CP_CLOCK_NMODES; m++)
        if (!strcasecmp(v, cp_clock_mode_names[m])) {
            cfg->clock = m;
            return 0;
        }
    return -1;
}

static int parse_signals(cp_config *cfg, const char *v)
{
    return cp_signals_parse(v, &cfg->signals);
}

/* ------------------------------------------- effective values (manifest) */

static void show_output_dir(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cfg->output_dir);
}

static void show_compress(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cfg->gzip ? "gzip" : "none");
}

static void show_counts_rows(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cfg->dense_rows ? "dense" : "compact");
}

static void show_start_call(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%" PRIu64, cfg->start_call);
}

static void show_max_calls(const cp_config *cfg, char *out, size_t len)
{
    if (cfg->max_calls == UINT64_MAX)
        snprintf(out, len, "unlimited");
    else
        snprintf(out, len, "%" PRIu64, cfg->max_calls);
}

static void show_verbose(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%d", cfg->verbose);
}

static void show_collectives(const cp_config *cfg, char *out, size_t len)
{
    size_t used = 0;
    int n = 0;
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        n += cfg->enabled[k];
    if (n == CP_NCOLLECTIVES) {
        snprintf(out, len, "all");
        return;
    }
    out[0] = '\0';
    for (int k = 0; k < CP_NCOLLECTIVES && used < len; k++)
        if (cfg->enabled[k])
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
                                     cp_collective_names[k]);
}

static void show_timing(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", timing_modes[cfg->timing]);
}

static void show_timing_max_calls(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%" PRIu64, cfg->timing_max_calls);
}

static void show_timing_sample(const cp_config *cfg, char *out, size_t len)
{
    if (cfg->timing_sample == 0)
        snprintf(out, len, "auto");
    else
        snprintf(out, len, "%" PRIu64, cfg->timing_sample);
}

/* "auto" until the run's seed is drawn (cp_config_set_seed): the manifest
 * then records the number, so that the run's sample can be drawn again. */
static void show_timing_seed(const cp_config *cfg, char *out, size_t len)
{
    if (cfg->timing_seed_auto)
        snprintf(out, len, "auto");
    else
        snprintf(out, len, "%" PRIu64, cfg->timing_seed);
}

static void show_hostname(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cfg->hostname);
}

static void show_stat_layout(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cfg->stat_documented ? "documented" : "cubegui");
}

static void show_callsite_depth(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%d", cfg->callsite_depth);
}

static void show_clock(const cp_config *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s", cp_clock_mode_names[cfg->clock]);
}

static void show_signals(const cp_config *cfg, char *out, size_t len)
{
    cp_signals_show(cfg->signals, out, len);
}

static int parse_snapshot(cp_config *cfg, const char *v)
{
    uint64_t s;
    if (!strcasecmp(v, "auto"))
        cfg->snapshot_s = CP_SNAPSHOT_AUTO;
    else if (!strcasecmp(v, "off"))
        cfg->snapshot_s = 0;
    else if (parse_u64(v, &s) || s < 1 || s > 100000000)
        return -1;
    else
        cfg->snapshot_s = s;
    return 0;
}

static void show_snapshot(const cp_config *cfg, char *out, size_t len)
{
    if (cfg->snapshot_s == CP_SNAPSHOT_AUTO)
        snprintf(out, len, "auto");
    else if (cfg->snapshot_s == 0)
        snprintf(out, len, "off");
    else
        snprintf(out, len, "%" PRIu64, cfg->snapshot_s);
}

uint64_t cp_config_snapshot_seconds(const cp_config *cfg, int64_t world_size)
{
    if (cfg->snapshot_s != CP_SNAPSHOT_AUTO)
        return cfg->snapshot_s;
    uint64_t by_size = (uint64_t)(world_size > 0 ? world_size : 1) / CP_SNAPSHOT_JOB_RATE;
    return by_size > CP_SNAPSHOT_MIN_S ? by_size : CP_SNAPSHOT_MIN_S;
}

static const struct {
    const char *name;
    parse_fn parse;
    void (*show)(const cp_config *cfg, char *out, size_t len);
    const char *accepted;
} settings[CP_CONFIG_NENTRIES] = {
    {"COLLPROF_OUTPUT_DIR", parse_output_dir, show_output_dir,
     "a directory path (created if missing)"},
    {"COLLPROF_COMPRESS", parse_compress, show_compress, "none or gzip"},
    {"COLLPROF_COUNTS_ROWS", parse_counts_rows, show_counts_rows, "compact or dense"},
    {"COLLPROF_TIMINGS_IO", parse_timings_io, show_timings_io, "auto, posix or mpiio"},
    {"COLLPROF_START_CALL", parse_start_call, show_start_call, "a call index, 0 or more"},
    {"COLLPROF_MAX_CALLS", parse_max_calls, show_max_calls,
     "a number of calls, 0 or more, or unlimited"},
    {"COLLPROF_VERBOSE", parse_verbose, show_verbose, "0, 1 or 2"},
    {"COLLPROF_COLLECTIVES", parse_collectives, show_collectives,
     NULL /* built from the collective table */},
    {"COLLPROF_TIMING", parse_timing, show_timing, "off, passive or barrier"},
    {"COLLPROF_TIMING_MAX_CALLS", parse_timing_max_calls, show_timing_max_calls,
     "a number of calls per rank, 0 or more"},
    {"COLLPROF_TIMING_SAMPLE", parse_timing_sample, show_timing_sample,
     "auto, or a number of calls per communicator and collective, 2 or more"},
    {"COLLPROF_TIMING_SEED", parse_timing_seed, show_timing_seed,
     "auto, or a number from 0 to 18446744073709551615"},
    {"COLLPROF_HOSTNAME", parse_hostname, show_hostname,
     "a host name without spaces (at most 255 characters)"},
    {"COLLPROF_STAT_LAYOUT", parse_stat_layout, show_stat_layout, "cubegui or documented"},
    {"COLLPROF_CALLSITE_DEPTH", parse_callsite_depth, show_callsite_depth,
     "a number of frames from 0 (off) to 32"},
    {"COLLPROF_CLOCK", parse_clock, show_clock, "auto, tsc or monotonic"},
    {"COLLPROF_SIGNALS", parse_signals, show_signals,
     "default, none, or a comma-separated list of: TERM, INT, XCPU, USR1, USR2, HUP, QUIT, "
     "SEGV, BUS, FPE, ILL, ABRT"},
    {"COLLPROF_SNAPSHOT", parse_snapshot, show_snapshot,
     "auto, off, or a number of seconds from 1 to 100000000"},
};

/* "all, or a comma-separated list of: Allgather, Allgatherv, ..." */
static const char *collectives_accepted(void)
{
    static char buf[1024];
    if (!buf[0]) {
        size_t used = (size_t)snprintf(buf, sizeof buf, "all, or a comma-separated list of:");
        for (int k = 0; k < CP_NCOLLECTIVES && used < sizeof buf; k++)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s %s", k ? "," : "",
                                     cp_collective_names[k]);
    }
    return buf;
}

void cp_config_load(cp_config *cfg, cp_config_entry *entries, char *problems, size_t len)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_calls = UINT64_MAX;
    cfg->timing = CP_TIMING_PASSIVE;
    cfg->timing_max_calls = CP_TIMING_MAX_CALLS_DEFAULT;
    cfg->timing_sample = CP_TIMING_SAMPLE_DEFAULT;
    cfg->timing_seed_auto = true;
    cfg->callsite_depth = CP_CALLSITE_DEPTH_DEFAULT;
    cfg->signals = cp_signals_default();
    cfg->snapshot_s = CP_SNAPSHOT_AUTO;
    for (int k = 0; k < CP_NCOLLECTIVES; k++)
        cfg->enabled[k] = true;
    size_t used = 0;
    problems[0] = '\0';
    for (int i = 0; i < CP_CONFIG_NENTRIES; i++) {
        const char *v = getenv(settings[i].name);
        if (v && settings[i].parse(cfg, v) != 0 && used < len) {
            /* The parsers leave the default in place on failure. */
            int n = snprintf(problems + used, len - used,
                             "%s=\"%s\" is not valid (accepted: %s); using the default\n",
                             settings[i].name, v,
                             settings[i].accepted ? settings[i].accepted : collectives_accepted());
            if (n > 0)
                used += (size_t)n;
        }
    }
    for (int i = 0; i < CP_CONFIG_NENTRIES; i++) {
        entries[i].name = settings[i].name;
        settings[i].show(cfg, entries[i].value, sizeof entries[i].value);
    }
}

void cp_config_set_seed(cp_config *cfg, cp_config_entry *entries, uint64_t seed)
{
    cfg->timing_seed = seed;
    cfg->timing_seed_auto = false;
    for (int i = 0; i < CP_CONFIG_NENTRIES; i++)
        if (settings[i].show == show_timing_seed)
            show_timing_seed(cfg, entries[i].value, sizeof entries[i].value);
}
