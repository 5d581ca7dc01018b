/*
 * The algorithms the running MPI library offers for a collective, found
 * through the MPI tool information interface (MPI_T), and the choice of one
 * of them (docs/replay.md, "Tuning"):
 *   MPICH: MPIR_CVAR_<COLL>_{INTRA,INTER}_ALGORITHM (I<COLL> for the
 *   non-blocking form), an integer whose values its description names
 *   (algo_names.c); the library reads it at every call.  While tuning,
 *   MPIR_CVAR_COLLECTIVE_FALLBACK is "error", so that an algorithm that cannot
 *   serve a pattern is refused with an error instead of being replaced, in
 *   silence, by the library's own choice.
 *   Open MPI: coll_tuned_<coll>_algorithm (coll_libnbc_i<coll>_algorithm for
 *   the non-blocking form), enumerations of MPI_T; coll/tuned obeys them only
 *   when coll_tuned_use_dynamic_rules was set at launch (read-only later),
 *   and a communicator takes them when it is made: the measurement runs on a
 *   duplicate made after the choice.
 * Nothing here is hard-coded but the names of the variables.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static bool opened, is_mpich, is_openmpi;
static int fallback_index = -1, fallback_old; /* MPICH's COLLECTIVE_FALLBACK */

/* The index of control variable name, or -1. */
static int cvar_index(const char *name)
{
    int index;
#if MPI_VERSION >= 4 || (MPI_VERSION == 3 && MPI_SUBVERSION >= 1)
    if (MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS)
        return index;
    return -1;
#else
    int n = 0;
    MPI_T_cvar_get_num(&n);
    for (index = 0; index < n; index++) {
        char buf[256];
        int len = sizeof buf, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(index, buf, &len, &verb, &dt, &en, NULL, NULL, &bind, &scope) ==
                MPI_SUCCESS &&
            strcmp(buf, name) == 0)
            return index;
    }
    return -1;
#endif
}

static int cvar_rw(int index, int *value, bool write)
{
    MPI_T_cvar_handle h;
    int count, rc = MPI_T_cvar_handle_alloc(index, NULL, &h, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count != 1)
        rc = MPI_ERR_ARG;
    else
        rc = write ? MPI_T_cvar_write(h, value) : MPI_T_cvar_read(h, value);
    MPI_T_cvar_handle_free(&h);
    return rc;
}

int replay_algos_open(char *why, size_t size)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        snprintf(why, size, "the MPI library's tool information interface (MPI_T) did not start");
        return -1;
    }
    opened = true;
    is_mpich = cvar_index("MPIR_CVAR_COLLECTIVE_FALLBACK") >= 0;
    is_openmpi = !is_mpich && cvar_index("coll_tuned_use_dynamic_rules") >= 0;
    if (is_mpich) {
        /* Its values: error, print, silent (MPICH's description lists them). */
        fallback_index = cvar_index("MPIR_CVAR_COLLECTIVE_FALLBACK");
        int error = 0;
        if (cvar_rw(fallback_index, &fallback_old, false) != MPI_SUCCESS ||
            cvar_rw(fallback_index, &error, true) != MPI_SUCCESS)
            fallback_index = -1;
    }
    return 0;
}

void replay_algos_strict(bool on)
{
    int error = 0;
    if (fallback_index >= 0)
        cvar_rw(fallback_index, on ? &error : &fallback_old, true);
}

void replay_algos_close(void)
{
    if (!opened)
        return;
    if (fallback_index >= 0)
        cvar_rw(fallback_index, &fallback_old, true);
    MPI_T_finalize();
    opened = false;
}

const char *replay_algos_library(void)
{
    return is_mpich ? "MPICH" : is_openmpi ? "Open MPI" : "this MPI library";
}

bool replay_algos_rules_file(char *why, size_t size)
{
    if (is_openmpi)
        return true;
    if (is_mpich)
        snprintf(why, size, "--rules: MPICH reads every collective's selection from its tuning "
                 "file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), so the file would have to "
                 "restate MPICH's whole built-in selection, which the library does not expose; "
                 "use the environment settings --tune prints (MPICH reads them at every call)");
    else
        snprintf(why, size, "--rules: %s reads no rules file collprof-replay knows",
                 replay_algos_library());
    return false;
}

static void upper(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

static void lower(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

/* Algorithms that a version of the library aborts the process with when
 * they are chosen (an assertion of its own, not an error it returns, which
 * would be a refusal): never tried, and the output says why.  Found by
 * --tune on profiles with every collective (tests/replay/tune_all_test.sh). */
static const struct defect {
    const char *version; /* the start of MPI_Get_library_version's text */
    const char *cvar;    /* the start of the control variable's name */
    const char *algorithm, *why;
} defects[] = {
    /* Every non-blocking collective (MPICH 4.0.2: Ibcast ... Ibarrier,
     * each checked with a one-call program). */
    {"MPICH Version:\t4.0", "MPIR_CVAR_I", "sched_auto",
     "MPICH 4.0 aborts the process with it (an assertion in mpir_coll.c)"},
};

static void mark_defects(replay_algos *a)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    for (size_t d = 0; d < sizeof defects / sizeof *defects; d++) {
        const struct defect *x = &defects[d];
        if (strncmp(version, x->version, strlen(x->version)) != 0 ||
            strncmp(a->cvar, x->cvar, strlen(x->cvar)) != 0)
            continue;
        for (int k = 0; k < a->n; k++)
            if (strcmp(a->names[k], x->algorithm) == 0)
                a->untried[k] = x->why;
    }
}

static void find_mpich(const char *coll, bool nonblocking, bool inter, replay_algos *a)
{
    char name[64];
    upper(name, sizeof name, coll);
    snprintf(a->cvar, sizeof a->cvar, "MPIR_CVAR_%s%s_%s_ALGORITHM", nonblocking ? "I" : "", name,
             inter ? "INTER" : "INTRA");
    a->index = cvar_index(a->cvar);
    if (a->index < 0) {
        snprintf(a->why, sizeof a->why, "MPICH has no control variable %s", a->cvar);
        return;
    }
    if (fallback_index < 0) {
        snprintf(a->why, sizeof a->why, "MPIR_CVAR_COLLECTIVE_FALLBACK cannot be set to "
                 "'error': an algorithm that cannot serve a pattern would be replaced in silence");
        return;
    }
    char desc[8192], buf[256];
    int len = sizeof buf, dlen = sizeof desc, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(a->index, buf, &len, &verb, &dt, &en, desc, &dlen, &bind, &scope) !=
            MPI_SUCCESS ||
        dt != MPI_INT) {
        snprintf(a->why, sizeof a->why, "%s is not an integer control variable", a->cvar);
        return;
    }
    int n = replay_mpich_algo_names(desc, a->names, REPLAY_ALGO_MAX);
    if (n < 2) {
        snprintf(a->why, sizeof a->why, n < 0 ? "the names of %s's values cannot be read from "
                 "its description" : "%s offers no algorithm but its own choice", a->cvar);
        return;
    }
    a->n = n;
    for (int k = 0; k < n; k++)
        a->values[k] = k;
    mark_defects(a);
}

static void find_openmpi(const char *coll, bool nonblocking, bool inter, replay_algos *a)
{
    char name[64];
    lower(name, sizeof name, coll);
    snprintf(a->cvar, sizeof a->cvar, nonblocking ? "coll_libnbc_i%s_algorithm"
                                                  : "coll_tuned_%s_algorithm", name);
    a->index = cvar_index(a->cvar);
    if (a->index < 0) {
        snprintf(a->why, sizeof a->why, "Open MPI offers no choice of algorithm here (it has no "
                 "control variable %s)", a->cvar);
        return;
    }
    if (inter) {
        snprintf(a->why, sizeof a->why, "Open MPI's %s serves intracommunicators only: an "
                 "intercommunicator's algorithm cannot be chosen",
                 nonblocking ? "coll/libnbc" : "coll/tuned");
        return;
    }
    if (!nonblocking) {
        int dyn = 0, idx = cvar_index("coll_tuned_use_dynamic_rules");
        if (idx < 0 || cvar_rw(idx, &dyn, false) != MPI_SUCCESS || !dyn) {
            snprintf(a->why, sizeof a->why, "Open MPI's coll/tuned obeys %s only when "
                     "coll_tuned_use_dynamic_rules is set at launch: run again with "
                     "OMPI_MCA_coll_tuned_use_dynamic_rules=1 in the environment (mpiexec -x)",
                     a->cvar);
            return;
        }
    }
    char buf[256];
    int len = sizeof buf, verb, bind, scope, items = 0;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(a->index, buf, &len, &verb, &dt, &en, NULL, NULL, &bind, &scope) !=
            MPI_SUCCESS ||
        en == MPI_T_ENUM_NULL || dt != MPI_INT) {
        snprintf(a->why, sizeof a->why, "%s has no enumeration of its values", a->cvar);
        return;
    }
    len = sizeof buf;
    MPI_T_enum_get_info(en, &items, buf, &len);
    for (int k = 0; k < items && a->n < REPLAY_ALGO_MAX; k++) {
        len = REPLAY_ALGO_NAME;
        if (MPI_T_enum_get_item(en, k, &a->values[a->n], a->names[a->n], &len) == MPI_SUCCESS)
            a->n++;
    }
    /* Value 0 ("ignore") is the library's own decision: first, as MPICH's auto. */
    for (int k = 1; k < a->n; k++)
        if (a->values[k] == 0) {
            char name[REPLAY_ALGO_NAME];
            memcpy(name, a->names[k], sizeof name);
            memcpy(a->names[k], a->names[0], sizeof name);
            memcpy(a->names[0], name, sizeof name);
            a->values[k] = a->values[0];
            a->values[0] = 0;
        }
    if (a->n < 2 || a->values[0] != 0) {
        snprintf(a->why, sizeof a->why, "%s offers no algorithm but the library's own choice",
                 a->cvar);
        a->n = 0;
    }
    a->new_comm = true;
}

void replay_algos_find(const char *coll, bool nonblocking, bool inter, replay_algos *a)
{
    *a = (replay_algos){.index = -1};
    if (!opened)
        snprintf(a->why, sizeof a->why, "MPI_T is not started");
    else if (is_mpich)
        find_mpich(coll, nonblocking, inter, a);
    else if (is_openmpi)
        find_openmpi(coll, nonblocking, inter, a);
    else
        snprintf(a->why, sizeof a->why, "this MPI library names no control variables that "
                 "choose an algorithm (neither MPICH's nor Open MPI's)");
}

int replay_algos_select(const replay_algos *a, int k)
{
    int value = a->values[k];
    return cvar_rw(a->index, &value, true) == MPI_SUCCESS ? 0 : -1;
}

void replay_algos_setting(const replay_algos *a, int k, char *buf, size_t size)
{
    if (is_mpich)
        snprintf(buf, size, "%s=%s", a->cvar, a->names[k]);
    else if (strncmp(a->cvar, "coll_tuned_", 11) == 0)
        snprintf(buf, size, "OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_%s=%d", a->cvar,
                 a->values[k]);
    else
        snprintf(buf, size, "OMPI_MCA_%s=%d", a->cvar, a->values[k]);
}

int replay_algos_current(const replay_algos *a)
{
    int value;
    if (a->n == 0 || cvar_rw(a->index, &value, false) != MPI_SUCCESS)
        return -1;
    for (int k = 0; k < a->n; k++)
        if (a->values[k] == value)
            return k;
    return -1;
}

int replay_algos_parse_setting(const char *word, replay_algos *a, int *k, char *why, size_t size)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word || !eq[1]) {
        snprintf(why, size, "--setting: expected NAME=VALUE, got '%s'", word);
        return -1;
    }
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(eq - word), word);
    const char *var = strncmp(name, "OMPI_MCA_", 9) == 0 ? name + 9 : name;
    if (strcmp(var, "coll_tuned_use_dynamic_rules") == 0) {
        int on = 0, idx = cvar_index(var);
        if (idx < 0 || cvar_rw(idx, &on, false) != MPI_SUCCESS || on != atoi(eq + 1)) {
            snprintf(why, size, "--setting %s: Open MPI reads it at launch only: set it in the "
                     "environment of this run (mpiexec -x)", word);
            return -1;
        }
        return 1;
    }
    for (size_t i = 0; i < replay_ncolls; i++)
        for (int nb = 0; nb < 2; nb++)
            for (int inter = 0; inter < 2; inter++) {
                replay_algos_find(replay_colls[i].name, nb, inter, a);
                if (strcmp(a->cvar, var) != 0)
                    continue;
                if (a->n == 0) {
                    snprintf(why, size, "--setting %s: %s", word, a->why);
                    return -1;
                }
                char *end;
                long v = strtol(eq + 1, &end, 10);
                for (*k = 0; *k < a->n; (*k)++)
                    if (strcmp(a->names[*k], eq + 1) == 0 || (!*end && a->values[*k] == v)) {
                        if (!a->untried[*k])
                            return 0;
                        snprintf(why, size, "--setting %s: %s", word, a->untried[*k]);
                        return -1;
                    }
                snprintf(why, size, "--setting %s: %s has no algorithm '%s'", word, var, eq + 1);
                return -1;
            }
    snprintf(why, size, "--setting %s: %s chooses no collective's algorithm in %s", word, var,
             replay_algos_library());
    return -1;
}
