#include "run_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof_config.h"
#include "runtime.h"

int cp_run_manifest(cp_manifest *m, const char *partial_reason)
{
    m->format_version = CP_MANIFEST_FORMAT_VERSION;
    m->counts_format_version = CP_COUNTS_FORMAT_VERSION;
    snprintf(m->collprof_version, sizeof m->collprof_version, "%s", COLLPROF_VERSION);
    snprintf(m->mpi_version, sizeof m->mpi_version, "%.500s", cp_rt.mpi_version);
    snprintf(m->job, sizeof m->job, "%s", cp_rt.job);
    snprintf(m->start_time, sizeof m->start_time, "%s", cp_rt.start_iso);
    m->world_size = cp_rt.world_size;
    m->partial = partial_reason != NULL;
    snprintf(m->partial_reason, sizeof m->partial_reason, "%s",
             partial_reason ? partial_reason : "");
    m->config = calloc(CP_CONFIG_NENTRIES + 1, sizeof *m->config);
    if (!m->config)
        return -1;
    for (int i = 0; i < CP_CONFIG_NENTRIES; i++) {
        cp_kv *kv = &m->config[m->nconfig];
        kv->key = strdup(cp_rt.cfg_entries[i].name);
        kv->value = strdup(cp_rt.cfg_entries[i].value);
        m->nconfig++;
        if (!kv->key || !kv->value)
            return -1;
    }
    /* What `collprof run` preloaded, and why (it says so in the
     * environment it hands the program). */
    const char *run = getenv("COLLPROF_RUN_CHOICE");
    if (run && *run) {
        cp_kv *kv = &m->config[m->nconfig++];
        kv->key = strdup("collprof run");
        kv->value = strndup(run, 4096);
        if (!kv->key || !kv->value)
            return -1;
    }
    return 0;
}
